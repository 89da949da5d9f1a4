"""The log/linear x switch of the frontier figures in a real Chromium: each opens on the scale its data ask for
(log at the defaults, which span over two decades) and its buttons move the axis, and the labels on it, to the
other scale and back."""

from __future__ import annotations

import pytest
from browser_checks import figure_data, viewport
from conftest import severe_console_errors

from benchmarks.chromium import wait_js

pytestmark = pytest.mark.browser

STATE_JS = """const gd = document.querySelector(`#fig-${arguments[0]} .js-plotly-plot`);
const pressed = gd && gd.querySelector(".updatemenu-button[aria-pressed='true']");
if (!gd || !gd._fullLayout || !pressed) return false;
const onX = (gd.layout.annotations || []).filter((a) => a.xref === 'x').map((a) => a.x);
return {type: gd._fullLayout.xaxis.type, range: gd._fullLayout.xaxis.range, pressed: pressed.getAttribute('aria-label'),
        onX: onX};"""

PRESS_JS = """const gd = document.querySelector(`#fig-${arguments[0]} .js-plotly-plot`);
const button = [...gd.querySelectorAll('.updatemenu-button')]
  .find((b) => b.getAttribute('aria-label') === arguments[1]);
button.dispatchEvent(new MouseEvent('click', {bubbles: true}));
return true;"""


def state(browser, fig: int, want: str) -> dict:
    return wait_js(
        browser,
        STATE_JS.replace("return {", f"if (gd._fullLayout.xaxis.type !== '{want}') return false;\nreturn {{", 1),
        args=(fig,),
        what=f"Figure {fig} on {want} x",
    )


@pytest.mark.parametrize("fig", [6, 7])
def test_the_x_switch_moves_a_frontier_figure_between_log_and_linear(browser, server, fig):
    with viewport(browser, 800, 500):
        browser.get(server.url + f"embed/fig{fig}")
        figure_data(browser, fig)
        opened = state(browser, fig, "log")
        assert opened["pressed"] == "log x", opened
        browser.execute_script(PRESS_JS, fig, "linear x")
        linear = state(browser, fig, "linear")
        assert linear["pressed"] == "linear x", linear
        assert linear["range"][0] <= 0 < linear["range"][1]  # a linear throughput axis from zero
        # The labels placed on x moved with it: at their values, not at log10 of them.
        assert all(x > 10 * max(opened["onX"]) for x in linear["onX"]), (opened["onX"], linear["onX"])
        browser.execute_script(PRESS_JS, fig, "log x")
        again = state(browser, fig, "log")
        assert again["pressed"] == "log x" and again["onX"] == pytest.approx(opened["onX"])
    assert severe_console_errors(browser) == []
