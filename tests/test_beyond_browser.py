"""The targets-and-cost controls and the figures beyond the article in real headless Chromium."""

from __future__ import annotations

import pytest
from browser_checks import wait_js
from conftest import ROOT, severe_console_errors
from test_dashboard_browser import open_page, traces

from inferx.figures import beyond, registry
from inferx.scenario.evaluation import Scenario

pytestmark = pytest.mark.browser
SHOTS = ROOT / "screenshots"
SETTLED_JS = """
const el = arguments[0];
el.scrollIntoView({block: 'start', behavior: 'instant'});
const r = el.getBoundingClientRect(), key = [r.top, r.height].join();
const settled = key === el.dataset.shotRect;
el.dataset.shotRect = key;
return settled;
"""
BEYOND = [key for key in registry.DASHBOARD if registry.FIGURES[key].number > registry.ARTICLE_FIGURES]


def text(browser, element_id: str) -> str:
    return browser.execute_script(f"return document.getElementById('{element_id}').textContent")


def test_the_ttft_target_moves_the_goodput_readout(browser, server):
    open_page(browser, server, "/embed/explorer?batch=64", ["fig6"])
    wait_js(browser, "return document.getElementById('readout-goodput').textContent.length > 0")
    before = text(browser, "readout-goodput")
    assert "TTFT ≤ 500 ms and TPOT ≤ 50 ms" in before
    assert text(browser, "readout-regime").startswith("At B = 64 this machine is ")
    assert text(browser, "readout-cost").startswith("$") and text(browser, "readout-energy").endswith("tok/J")
    assert "(assumed)" in text(browser, "readout-price") and text(browser, "ctl-price-value") == "assumed"
    browser.execute_script("window.dash_clientside.set_props('ctl-ttft', {value: 200})")
    wait_js(browser, "return document.getElementById('readout-goodput').textContent.includes('TTFT ≤ 200 ms')")
    after = text(browser, "readout-goodput")
    assert after == beyond.goodput_text(Scenario.from_params(ttft=200)) and after != before
    wait_js(browser, "return location.search.includes('ttft=200')", what="the target in the address")
    # A given price replaces the assumed one, and the cost readout follows it.
    cost = text(browser, "readout-cost")
    browser.execute_script("window.dash_clientside.set_props('ctl-price', {value: 1})")
    wait_js(browser, "return document.getElementById('readout-price').textContent.includes('(given)')")
    wait_js(browser, f"return document.getElementById('readout-cost').textContent !== {cost!r}")
    assert text(browser, "ctl-price-value") == "1.00 $/GPU-h"
    wait_js(browser, "return location.search.includes('price=1')", what="the price in the address")
    # The button beside it gives the price back to the GPU's assumed rate.
    browser.execute_script("document.getElementById('ctl-price-reset').click()")
    wait_js(browser, "return document.getElementById('readout-price').textContent.includes('(assumed)')")
    wait_js(browser, f"return document.getElementById('readout-cost').textContent === {cost!r}", what="cost back")
    wait_js(browser, "return document.getElementById('ctl-price-value').textContent === 'assumed'", what="label")
    wait_js(browser, "return !location.search.includes('price')", what="the address without the price")
    assert severe_console_errors(browser) == []


def test_the_regimes_embed_follows_its_targets(browser, server):
    open_page(browser, server, "/embed/regimes?ttft=300", ["fig10"])
    names = browser.execute_script(f"return {traces('fig10')}.map(t => t.name)")
    expected = registry.build(Scenario.from_params(ttft=300), ["fig10"])["fig10"]
    assert names == [t["name"] for t in expected["data"]]
    assert names[0].startswith("meets TTFT ≤ 300 ms") and names[-1].startswith("best under the SLO")
    browser.execute_script("window.dash_clientside.set_props('ctl-ttft', {value: 1000})")
    wait_js(browser, f"return {traces('fig10')}[0].name.startsWith('meets TTFT ≤ 1,000 ms')", what="fig10 redrawn")
    assert browser.execute_script("return document.querySelectorAll('.js-plotly-plot').length") == 1
    assert severe_console_errors(browser) == []


def test_the_regimes_embed_says_when_no_batch_size_meets_the_targets(browser, server):
    open_page(browser, server, "/embed/regimes?ttft=10&isl=8192", ["fig10"])
    wait_js(browser, "return !!document.querySelector('#fig-10 .legendtext')", what="fig10's legend")
    legend = browser.execute_script(
        "return Array.from(document.querySelectorAll('#fig-10 .legendtext'), (el) => el.textContent)"
    )
    assert legend[0] in ("no batch size meets TTFT ≤ 10 ms and TPOT ≤ 50 ms", "none meets TTFT ≤ 10, TPOT ≤ 50 ms")
    assert severe_console_errors(browser) == []


@pytest.mark.parametrize("width", [1280, 420])
def test_the_beyond_section_renders_and_fits(browser, server, width):
    browser.set_window_size(width, 900)
    try:
        browser.get(server.url)
        wait_js(browser, "return !!document.getElementById('beyond')", what="the Beyond section")
        for fig in BEYOND:
            # Graphs off screen are painted lazily: bring each into view.
            browser.execute_script(
                f"document.getElementById('card-{fig}').scrollIntoView({{block: 'start', behavior: 'instant'}})"
            )
            wait_js(browser, f"return document.querySelectorAll('#fig-{fig[3:]} .main-svg').length > 0", what=fig)
        assert severe_console_errors(browser) == []
        assert browser.execute_script("return document.documentElement.scrollWidth") <= width
        SHOTS.mkdir(exist_ok=True)
        for fig in ["fig6", *BEYOND]:
            card = browser.find_element("id", f"card-{fig}")
            # Equations above still typeset and reflow the page: shoot once the card has stopped moving.
            wait_js(browser, SETTLED_JS, what=f"{fig} to settle", args=(card,))
            card.screenshot(str(SHOTS / f"beyond-{fig}-{width}.png"))
    finally:
        browser.set_window_size(1280, 800)
