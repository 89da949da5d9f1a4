"""The log/linear x a user picks on a frontier figure stays picked in a real Chromium: across the server's redraw
after a control moves, and across a slider drag's browser-side redraws, with the pressed button matching the
axis (assets/scales.js). Without it each redraw put the axis back on the scale its data ask for."""

from __future__ import annotations

import pytest
from browser_checks import SETTLED_IN_VIEW_JS, Mouse, figure_data, press_slider, viewport, wait_figure_change
from conftest import severe_console_errors
from selenium.webdriver.common.keys import Keys
from test_figure_scales_browser import PRESS_JS, state

from benchmarks.chromium import wait_js
from pages._ids import control_id

pytestmark = pytest.mark.browser

FIG = 7  # opens on log at the defaults (tests/test_figure_scales_browser.py)
ACTIVE_JS = f"return document.querySelector('#fig-{FIG} .js-plotly-plot')._fullLayout.updatemenus[0].active"
PAINTS_JS = "return window.inferxDrag.paints"
GRAPH = f"window.dash_component_api.getLayout({{role: 'figure', fig: 'fig{FIG}'}})"
GD = f"document.querySelector('#fig-{FIG} .js-plotly-plot')"


def on(browser, want: str) -> None:
    """The figure on `want` x, its `want x` button pressed and the menu's active index saying so."""
    drawn = state(browser, FIG, want)
    assert drawn["pressed"] == f"{want} x", drawn
    assert browser.execute_script(ACTIVE_JS) == ["linear", "log"].index(want)


def test_the_picked_x_scale_survives_redraws_and_drags(browser, server):
    with viewport(browser, 800, 500):
        browser.get(server.url + f"embed/fig{FIG}")
        figure_data(browser, FIG)
        on(browser, "log")
        browser.execute_script(PRESS_JS, FIG, "linear x")
        on(browser, "linear")
        # A control moves: the server redraws the figure (on log, as its data ask), and it stays linear.
        browser.execute_script("document.getElementById('embed-settings-toggle').click()")
        before = figure_data(browser, FIG)
        press_slider(browser, control_id("bw"), Keys.END)
        wait_figure_change(browser, FIG, before)
        on(browser, "linear")
        # A drag: each step is drawn by the browser from the drag route's figures; let go, Dash redraws.
        thumb = browser.find_element("css selector", f"#{control_id('bw')} [role=slider]")
        wait_js(browser, SETTLED_IN_VIEW_JS, args=(thumb,), what="the thumb still")
        paints = browser.execute_script(PAINTS_JS)
        mouse = Mouse(browser, control_id("bw"))
        mouse.press()
        try:
            mouse.move(-20)
            wait_js(browser, f"return window.inferxDrag.paints > {paints};", what="a drag step drawn")
            on(browser, "linear")
            browser.execute_script(f"window.__shown = {GRAPH}.props.figure; window.__drawn = {GD}.layout;")
        finally:
            mouse.release()
        # Let go, the value goes to Dash, whose redraw gives the graph a new figure.
        wait_js(browser, f"return {GRAPH}.props.figure !== window.__shown && {GD}.layout !== window.__drawn;",
                what="the release's redraw drawn")  # fmt: skip
        on(browser, "linear")
        # The other button changes the choice, which then stays in turn.
        browser.execute_script(PRESS_JS, FIG, "log x")
        on(browser, "log")
        before = figure_data(browser, FIG)
        press_slider(browser, control_id("bw"), Keys.HOME)
        wait_figure_change(browser, FIG, before)
        on(browser, "log")
    assert severe_console_errors(browser) == []
