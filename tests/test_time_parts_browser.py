"""Where the time goes, under the explorer on `/`, in real Chromium: the two bars are drawn, each sums to the ITL
the explorer's readouts state (the ideal's and the expected's), the chosen model's on top, and moving the batch or
the Physics control redraws them with the explorer; while the sweep moves the dot they fade."""

from __future__ import annotations

import pytest
from browser_checks import click, wait_js
from conftest import severe_console_errors
from test_landing_browser import WAIT_S, open_home

from inferx.figures.breakdown import BAR_NAMES

pytestmark = pytest.mark.browser

GD = "document.querySelector('#time-parts .js-plotly-plot')"
# What the page shows: the bars as drawn (their rectangles' widths), the parts' sums per bar, the totals at the
# bars' ends, the text alternative, and the explorer's ITL readout with the other model's under it.
STATE = f"""
const gd = {GD};
if (!gd || !gd.data || !gd.data.length || !gd.querySelector('.main-svg') || !gd.layout.meta) return null;
const rows = gd.layout.yaxis.categoryarray;
const parts = gd.data.filter((t) => !(t.meta && t.meta.overlapped));
const sums = rows.map((r, k) => parts.reduce((s, t) => s + t.x[k], 0));
const widths = [...gd.querySelectorAll('.barlayer .point path')].map((p) => p.getBoundingClientRect().width);
return {{
  batch: gd.layout.meta.batch, rows, sums, drawn: widths.filter((w) => w > 0.5).length,
  ends: [...gd.querySelectorAll('.annotation-text')].map((a) => a.textContent).filter((t) => / ms/.test(t)),
  names: [...gd.querySelectorAll('.annotation-text')].map((a) => a.textContent).filter((t) => !/ ms/.test(t)),
  text: document.getElementById('time-parts-text').textContent,
  stale: document.getElementById('time-parts').classList.contains('readout-stale'),
  itl: document.getElementById('readout-itl').textContent,
  other: document.getElementById('readout-itl-both').textContent,
  dot: document.querySelector('#fig-6 .js-plotly-plot').data[1].customdata[0][0],
}};
"""


def ms_in(text: str) -> float:
    """The first "12.3 ms" number of a readout's words."""
    words = text.split()
    return float(words[words.index("ms") - 1].replace(",", ""))


def check(state: dict, first: str) -> None:
    """The bars are drawn, the chosen model's on top, and each sums to the ITL its readout states."""
    second = "expected" if first == "ideal" else "ideal"
    assert state["rows"] == [BAR_NAMES[first], BAR_NAMES[second]] == state["names"], state
    assert state["drawn"] >= 4, state  # the ideal's parts and the expected's, as rectangles with a width
    assert state["batch"] == state["dot"] and not state["stale"], state
    mine, theirs = ms_in(state["itl"]), ms_in(state["other"].split(" · ")[1])
    assert state["sums"][0] == pytest.approx(mine, rel=5e-3), (state["sums"], state["itl"])
    assert state["sums"][1] == pytest.approx(theirs, rel=5e-3), (state["sums"], state["other"])
    assert [ms_in(e) for e in state["ends"]] == pytest.approx(state["sums"], rel=5e-3), state["ends"]
    assert state["text"].startswith(f"Where an output token's time goes at B = {state['batch']:,},"), state["text"]


def test_the_bars_follow_the_batch_and_the_model(browser, server):
    try:
        open_home(browser, server)
        before = wait_js(browser, STATE, WAIT_S, what="the time bars drawn")
        check(before, "ideal")
        browser.execute_script("window.dash_clientside.set_props('ctl-batch', {value: 7})")  # B = 128
        after = wait_js(browser, f"const s = (() => {{ {STATE} }})(); return s && s.batch === 128 && s;", WAIT_S,
                        what="the bars at B = 128")  # fmt: skip
        check(after, "ideal")
        assert after["sums"][0] != before["sums"][0] and after["sums"][1] != before["sums"][1], (before, after)
        assert after["text"] != before["text"]
        click(browser, browser.find_element("id", "mode-flip"))  # the Physics control: calibrated
        flipped = wait_js(
            browser,
            f"const s = (() => {{ {STATE} }})();"
            " return s && s.rows[0] === arguments[0] && s.itl !== arguments[1] && s;",
            WAIT_S,
            what="the expected bar on top",
            args=(BAR_NAMES["expected"], after["itl"]),
        )
        check(flipped, "expected")
        # The same two numbers, the other way round.
        assert flipped["sums"] == pytest.approx(after["sums"][::-1], rel=1e-5)
        # The sweep moves the dot with no server: the bars fade, then follow the batch it stops at.
        browser.execute_script("window.inferxAnimation.seconds = 8")
        click(browser, browser.find_element("id", "btn-animate"))
        wait_js(browser, "return document.querySelector('#time-parts.readout-stale')", WAIT_S, what="faded bars")
        click(browser, browser.find_element("id", "btn-animate"))  # Stop
        stopped = wait_js(
            browser,
            f"const s = (() => {{ {STATE} }})(); return s && !window.inferxAnimation.running && s.batch !== 128"
            " && s.batch === s.dot && !s.stale && s;",
            WAIT_S,
            what="the bars at the batch the sweep stopped at",
        )
        check(stopped, "expected")
        assert severe_console_errors(browser) == []
    finally:
        browser.get("about:blank")
