"""What `/` says first, in real Chromium: its heading, what inferx is, which model the figures show with the
switch to the other (the Physics control's), the explorer one click away, and the figure index that stays in
reach on a wide screen and on a phone; /inferencex and /methods say which model the dashboard opens with."""

from __future__ import annotations

import pytest
from browser_checks import click, wait_js
from conftest import severe_console_errors
from test_a11y_browser import assert_no_serious_violations, load

from inferx.figures.registry import DASHBOARD, FIGURES
from pages._landing import LINK_FLIPS, LINK_LINES, MODE_FLIPS, MODE_LINES

pytestmark = pytest.mark.browser
FIG1 = "(document.querySelector('#fig-1 .js-plotly-plot') || {}).data"
LINE = "return document.getElementById('mode-line').textContent"
PHONE = {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": False}
WAIT_S = 180  # a failed wait says so in minutes, not in the default ten

# The cards' heights, unchanged over half a second: typeset equations and late widgets above a card move it
# after a jump to it, which a reader does not wait for either.
STILL = """
const done = arguments[arguments.length - 1];
const sizes = () => [...document.querySelectorAll('.fig-card')].map((c) => c.offsetHeight).join();
const first = sizes();
setTimeout(() => done(first === sizes()), 500);
"""


def still(browser) -> None:
    for _ in range(WAIT_S * 2):
        if browser.execute_async_script(STILL):
            return
    raise AssertionError("the cards never stopped changing size")


def open_home(browser, server, query: str = "") -> None:
    browser.get(server.url + query)
    wait_js(browser, f"return ({FIG1} || []).length > 0;", WAIT_S, what="Figure 1 drawn")
    still(browser)


def shown(browser, css: str) -> dict:
    """Where an element is in the viewport and whether it takes room."""
    return browser.execute_script(
        "const r = document.querySelector(arguments[0]).getBoundingClientRect();"
        "return {top: r.top, bottom: r.bottom, width: r.width, height: r.height, vh: innerHeight};",
        css,
    )


def test_the_page_says_what_inferx_is_under_a_visible_heading(browser, server):
    open_home(browser, server)
    h1 = browser.find_elements("css selector", "h1")
    assert len(h1) == 1 and h1[0].is_displayed() and h1[0].size["height"] > 0
    lead = browser.find_element("css selector", ".landing-lead").text
    assert lead.startswith("inferx draws") and "Controls" in lead and "explorer" in lead
    # The heading, the statement and the mode line lead the figures' column, on the first screen.
    first = browser.execute_script("return document.getElementById('figures').firstElementChild.id")
    assert first == "landing"
    assert shown(browser, "#mode-banner")["bottom"] <= shown(browser, "#fig-index")["top"] < 800


def test_the_mode_line_follows_the_mode_and_its_button_switches_it(browser, server):
    """/ opens with the ideal: the line says so first, and one click shows the expected numbers instead, as the
    Physics control would: Figure 1 is redrawn and the address says mode=calibrated."""
    try:
        open_home(browser, server)
        assert browser.execute_script(LINE) == MODE_LINES["article"]
        flip = browser.find_element("id", "mode-flip")
        assert flip.text == MODE_FLIPS["article"]
        first = browser.execute_script(f"return {FIG1}[0].y[0]")
        click(browser, flip)
        wait_js(browser, f"{LINE} === arguments[0]", WAIT_S, args=(MODE_LINES["calibrated"],), what="the line follows")
        wait_js(browser, "return new URLSearchParams(location.search).get('mode') === 'calibrated'", WAIT_S)
        wait_js(browser, f"return {FIG1}[0].y[0] !== arguments[0]", WAIT_S, args=(first,), what="Figure 1 redrawn")
        assert browser.find_element("id", "mode-flip").text == MODE_FLIPS["calibrated"]
        checked = "return document.querySelector('#ctl-mode input:checked').value"
        assert browser.execute_script(checked) == "calibrated"
        # The Physics control itself moves the line too, back to the ideal.
        click(browser, browser.find_element("css selector", "#ctl-mode input[value=article]"))
        wait_js(browser, f"{LINE} === arguments[0]", WAIT_S, args=(MODE_LINES["article"],), what="the line back")
        assert severe_console_errors(browser) == []
    finally:
        browser.get("about:blank")  # a later test's fixture may keep a page at `/`: not this one


def test_an_address_in_calibrated_mode_opens_with_the_expected(browser, server):
    try:
        open_home(browser, server, "?mode=calibrated")
        assert browser.execute_script(LINE) == MODE_LINES["calibrated"]
        assert browser.find_element("id", "mode-flip").text == MODE_FLIPS["calibrated"]
    finally:
        browser.get("about:blank")


@pytest.mark.parametrize("path", ["inferencex", "methods"])
def test_the_other_pages_say_which_model_the_dashboard_opens_with(browser, server, path):
    browser.get(server.url + path)
    wait_js(browser, "return document.getElementById('mode-line')", WAIT_S, what="the mode line")
    assert browser.execute_script(LINE) == LINK_LINES["article"]
    link = browser.find_element("id", "mode-flip")
    assert link.text == LINK_FLIPS["article"]
    href = browser.execute_script("return new URL(arguments[0].href)", link)
    assert (href["pathname"], href["search"]) == ("/", "?mode=calibrated")


def test_the_explorer_is_one_click_from_the_top(browser, server):
    open_home(browser, server)
    browser.execute_script("window.scrollTo({top: 0, behavior: 'instant'})")
    browser.find_element("css selector", ".landing-lead a[href='#card-fig6']").click()
    wait_js(browser, "const r = document.getElementById('card-fig6').getBoundingClientRect();"
            "return r.top >= 0 && r.top < innerHeight / 2;", WAIT_S, what="Figure 6's card at the top")  # fmt: skip


def test_the_index_lists_every_figure_and_stays_in_reach_as_its_links_scroll(browser, server):
    open_home(browser, server)
    links = browser.execute_script("return [...document.querySelectorAll('#fig-index a')].map(a => a.hash)")
    assert links == [f"#card-{f}" for f in DASHBOARD]
    titles = browser.execute_script("return [...document.querySelectorAll('#fig-index a')].map(a => a.title)")
    assert titles == [FIGURES[f].title for f in DASHBOARD]
    for fig in ("fig10", "fig3", "fig14"):
        browser.find_element("css selector", f"#fig-index a[href='#card-{fig}']").click()
        card = f"document.getElementById('card-{fig}').getBoundingClientRect()"
        wait_js(
            browser, f"const r = {card}; return r.top >= 0 && r.top < 200;", WAIT_S, what=f"{fig}'s card at the top"
        )
        index, card_box = shown(browser, "#fig-index"), shown(browser, f"#card-{fig}")
        # The index is still on screen, and the card's title is not under it.
        assert 0 <= index["top"] and index["bottom"] <= card_box["top"] + 1, (index, card_box)
    assert severe_console_errors(browser) == []


def test_on_a_phone_the_index_is_a_sheet_behind_a_button_always_in_reach(browser, server):
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", PHONE)
    try:
        open_home(browser, server)
        assert (
            shown(browser, "#fig-index")["top"] >= PHONE["height"]
            or not browser.find_element("id", "fig-index").is_displayed()
        )
        browser.execute_script("window.scrollTo({top: document.body.scrollHeight / 2, behavior: 'instant'})")
        toggle = browser.find_element("css selector", "[data-drawer-toggle][aria-controls=fig-index]")
        box = shown(browser, "[aria-controls=fig-index]")
        assert toggle.is_displayed() and 0 < box["top"] and box["bottom"] <= PHONE["height"], box
        toggle.click()
        wait_js(
            browser, "return document.getElementById('fig-index').classList.contains('open')", WAIT_S, what="the sheet"
        )
        explorer = browser.find_element("css selector", "#fig-index a[href='#card-fig6']")
        wait_js(browser, "return arguments[0].getBoundingClientRect().bottom <= innerHeight", WAIT_S, args=(explorer,))
        assert toggle.get_attribute("aria-expanded") == "true"
        explorer.click()
        wait_js(
            browser, "return !document.getElementById('fig-index').classList.contains('open')", WAIT_S, what="closed"
        )
        wait_js(browser, "const r = document.getElementById('card-fig6').getBoundingClientRect();"
                "return r.top >= 0 && r.top < 100;", WAIT_S, what="Figure 6's card at the top")  # fmt: skip
        # Open, the sheet passes axe too.
        toggle.click()
        wait_js(
            browser, "return document.getElementById('fig-index').classList.contains('open')", WAIT_S, what="reopened"
        )
        assert_no_serious_violations(browser, "/ at 390 px with the figure index open")
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


@pytest.mark.parametrize("width", [1440, 390])
def test_axe_finds_nothing_serious_on_the_landing(browser, server, width):
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {**PHONE, "width": width, "height": 900})
    try:
        load(browser, server, "/")
        assert_no_serious_violations(browser, f"/ at {width} px")
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


BOTH = "return [...document.querySelectorAll('#card-fig6 .readout-both')].map((e) => e.textContent)"
STALE = "return document.querySelectorAll('#card-fig6 .readout-both.readout-stale').length"


def test_the_explorers_readouts_give_the_other_models_value_and_the_expecteds_error(browser, server):
    """Under each of the six readouts: in article mode "ideal · expected … ±…", in calibrated mode "expected ±… ·
    ideal …"; a batch moved in the browser fades them until the server's answer at the new batch."""
    try:
        open_home(browser, server)
        wait_js(browser, f"{BOTH}.every((t) => t.length > 0)", WAIT_S, what="the readouts in both modes")
        texts = browser.execute_script(BOTH)
        assert len(texts) == 6 and all(t.startswith("ideal · expected ") for t in texts), texts
        assert "±" in texts[0] and "tok/s" in texts[0], texts  # throughput, with its error
        before = texts
        browser.execute_script("window.dash_clientside.set_props('ctl-batch', {value: 7})")  # B = 128
        wait_js(browser, f"{BOTH}.join() !== arguments[0] && {STALE[7:]} === 0", WAIT_S, args=(",".join(before),))
        click(browser, browser.find_element("id", "mode-flip"))
        wait_js(browser, f"{BOTH}[0].startsWith('expected ±')", WAIT_S, what="the expected first")
        texts = browser.execute_script(BOTH)
        assert all(t.startswith("expected") and " · ideal " in t for t in texts), texts
        assert severe_console_errors(browser) == []
    finally:
        browser.get("about:blank")
