"""Figure 2's text stays readable on a phone: in real headless Chromium at 420 px, no two of its labels (the
ceilings' labels, legend entries, tick labels, axis titles) overlap, and no legend entry runs under the graph's
tool bar, which a touch screen keeps shown."""

from __future__ import annotations

from contextlib import contextmanager

import pytest
from browser_checks import figure_data
from conftest import severe_console_errors

from benchmarks.chromium import wait_js

pytestmark = pytest.mark.browser

# Every piece of text plotly drew in the graph, with its box on the page.
TEXT_BOXES_JS = """
const gd = document.querySelector(`#fig-${arguments[0]} .js-plotly-plot`);
const kinds = {
  annotation: '.annotation-text', legend: '.legendtext', tick: '.xtick text, .ytick text',
  title: '.g-xtitle text, .g-ytitle text', tool: '.modebar-btn',
};
const out = [];
for (const [kind, sel] of Object.entries(kinds)) {
  gd.querySelectorAll(sel).forEach((el) => {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.height > 0) out.push({kind, text: el.textContent || el.dataset.title || '',
                                               left: r.left, right: r.right, top: r.top, bottom: r.bottom});
  });
}
return out;
"""


@contextmanager
def phone(driver, scheme: str):
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride", {"width": 420, "height": 850, "deviceScaleFactor": 1, "mobile": False}
    )
    driver.execute_cdp_cmd(
        "Emulation.setEmulatedMedia", {"media": "", "features": [{"name": "prefers-color-scheme", "value": scheme}]}
    )
    try:
        yield
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "", "features": []})


def overlapping(boxes: list[dict], slack: float = 1.0) -> list[tuple[str, str]]:
    """Pairs of boxes that share more than `slack` px in both directions."""
    found = []
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            across = min(a["right"], b["right"]) - max(a["left"], b["left"])
            down = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
            if across > slack and down > slack:
                found.append((f"{a['kind']} {a['text']!r}", f"{b['kind']} {b['text']!r}"))
    return found


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_fig2_labels_do_not_overlap_on_a_phone(browser, server, scheme):
    with phone(browser, scheme):
        browser.get(server.url)
        wait_js(browser, "return document.getElementById('card-fig2')", what="Figure 2's card")
        browser.execute_script("document.getElementById('card-fig2').scrollIntoView({behavior: 'instant'})")
        figure_data(browser, 2)
        # Drawn compact (the legend above the plot, smaller type) and in the theme asked for.
        wait_js(browser, "return document.querySelector('#fig-2 .js-plotly-plot').dataset.compact === 'true'")
        wait_js(browser, f"return document.documentElement.getAttribute('data-bs-theme') === '{scheme}'")
        boxes = browser.execute_script(TEXT_BOXES_JS, 2)
        kinds = [b["kind"] for b in boxes]
        # The check sees what it checks: three ceilings' labels and three legend entries, ticks and the tool bar.
        assert kinds.count("annotation") == 3 and kinds.count("legend") == 3, boxes
        assert kinds.count("tick") >= 6 and kinds.count("tool") >= 1
        graph = browser.execute_script(
            "const r = document.querySelector('#fig-2 .js-plotly-plot').getBoundingClientRect();"
            "return {left: r.left, right: r.right};"
        )
        assert graph["right"] - graph["left"] < 420
        assert overlapping(boxes) == []
        # Every label inside the graph's width: none cut off at the phone's edge.
        outside = [b["text"] for b in boxes if b["left"] < graph["left"] - 1 or b["right"] > graph["right"] + 1]
        assert outside == []
        assert severe_console_errors(browser) == []
