"""The dashboard in real headless Chromium against gunicorn: render, redraw, URL state, animation, embeds."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from urllib.parse import parse_qs

import pytest
from browser_checks import click, wait_js
from conftest import ROOT, reset_browser, severe_console_errors

from inferx.figures import registry
from inferx.physics.models import MODELS
from inferx.scenario.controls import PARAMS, slider_position
from inferx.scenario.evaluation import Scenario
from pages._url import parse_query

pytestmark = pytest.mark.browser
SHOTS = ROOT / "screenshots"
FIGS = list(registry.DASHBOARD)  # the cards of `/`


def traces(fig: str) -> str:
    return f"(document.querySelector('#fig-{fig[3:]} .js-plotly-plot') || {{}}).data"


def open_page(browser, server, path: str, figs):
    browser.get(server.url.rstrip("/") + path)
    drawn = " && ".join(f"({traces(f)} || []).length > 0" for f in figs)
    wait_js(browser, f"return {drawn};", what=f"{figs} drawn on {path}")


@pytest.fixture
def home(chromium, server):
    """The session's Chromium showing `/`, loaded once for the tests in a row that need the whole
    dashboard (ten figures and their equations take long to paint on a small machine)."""
    # A page left with a pinned A (another module's test) draws A's traces last, where these tests read the
    # current ones, and one left in calibrated mode draws other curves: such a page is loaded again.
    shown = chromium.execute_script("return [location.origin + location.pathname, location.search]")
    if shown[0] != server.url or {"a", "mode"} & set(parse_qs(shown[1].lstrip("?"))):
        reset_browser(chromium)
        open_page(chromium, server, "/", FIGS)
    return chromium


def cli_point(*args) -> dict:
    out = subprocess.run([sys.executable, "-m", "inferx", "point", *args], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_dashboard_renders_all_figures_without_console_errors(home):
    browser = home
    for fig in FIGS:
        assert browser.execute_script(f"return document.querySelectorAll('#fig-{fig[3:]} .main-svg').length") > 0
    assert severe_console_errors(browser) == []
    SHOTS.mkdir(exist_ok=True)
    browser.save_screenshot(str(SHOTS / "home-1280.png"))


def assert_fits_window(browser, timeout: float = 180) -> None:
    """Nothing on the page is wider than the window. Plotly redraws each graph at a new width on its own
    schedule, so wait for the page to settle before naming what sticks out."""
    fits = "return document.documentElement.scrollWidth <= document.documentElement.clientWidth;"
    try:
        wait_js(browser, fits, timeout=timeout, what="the page to fit its window")
    except TimeoutError:
        wide = browser.execute_script(
            "const W = document.documentElement.clientWidth; return [...document.querySelectorAll('body *')]"
            ".filter(e => e.getBoundingClientRect().right > W + 1).slice(0, 5)"
            ".map(e => e.tagName + '.' + e.getAttribute('class'));"
        )
        pytest.fail(f"wider than the {browser.get_window_size()['width']}-px window: {wide}")


def test_dashboard_fits_iframe_width(home):
    """At 420 px the page reflows into one column: nothing (a long equation, say) widens it sideways."""
    browser = home
    browser.set_window_size(420, 700)
    try:
        assert_fits_window(browser)
        browser.execute_script("window.scrollTo({top: 0, behavior: 'instant'})")
        browser.save_screenshot(str(SHOTS / "home-420x700.png"))
        browser.execute_script("document.getElementById('card-fig1').scrollIntoView({behavior: 'instant'})")
        browser.save_screenshot(str(SHOTS / "home-420x700-fig1.png"))
    finally:
        browser.set_window_size(1280, 800)


TOP = "window.scrollTo({top: 0, behavior: 'instant'})"  # Bootstrap scrolls smoothly: a test must not wait for it


def test_moving_a_control_redraws(home):
    browser = home
    browser.execute_script(TOP)  # Figure 1 in view: it is redrawn with the change, not later
    browser.execute_script("window.dash_clientside.set_props('ctl-bw', {value: Math.log2(100)})")
    # The roofline's memory-bound slope is BW / (P_active·b_w): 100 TB/s / 37 GB at B = 1.
    wait_js(
        browser,
        f"return Math.abs({traces('fig1')}[0].y[0] / (100e12 / 37e9) - 1) < 1e-3",
        what="Figure 1 redrawn after the bandwidth change",
    )
    wait_js(browser, "return new URLSearchParams(location.search).get('bw') === '100'", what="the address")
    assert severe_console_errors(browser) == []


def test_a_control_change_paints_each_figure_once(home):
    """The server's figures arrive with the explorer's dot already at the chosen batch: the browser must not
    move it again and repaint Figure 6 a second time (about 40 ms of every change)."""
    browser = home
    browser.execute_script(
        "window.__paints = {}; window.__lastPaint = performance.now();"
        " document.querySelectorAll('.graph-wrap .js-plotly-plot').forEach(gd => {"
        " const id = gd.closest('.graph-wrap').id; gd.on('plotly_afterplot', () => {"
        " window.__paints[id] = (window.__paints[id] || 0) + 1; window.__lastPaint = performance.now(); }); });"
    )
    # A freshly loaded page still repaints graphs as equations and fonts settle its widths: wait for quiet.
    wait_js(browser, "return performance.now() - window.__lastPaint > 1500", what="the page to stop repainting")
    browser.execute_script("window.__paints = {}; window.dash_clientside.set_props('ctl-util', {value: 91});")
    # Those out of view are drawn once the page is idle (assets/inferx.js, `lazy`): a minute is ample, and a
    # page that never draws one fails here rather than after wait_js's ten.
    painted = f"return Object.keys(window.__paints).length === {len(FIGS)}"
    wait_js(browser, painted, 60, what="every figure repainted")
    time.sleep(2)  # room for a late second paint
    paints = browser.execute_script("return window.__paints")
    assert sorted(paints.values()) == [1] * len(FIGS), paints
    # The explorer still follows the new frontier: the dot is one of its samples.
    on_curve = browser.execute_script(
        f"const t = {traces('fig6')}; const i = t[0].customdata.findIndex(c => c[0] === t[1].customdata[0][0]);"
        " return i >= 0 && t[0].x[i] === t[1].x[0] && t[0].y[i] === t[1].y[0];"
    )
    assert on_curve
    assert severe_console_errors(browser) == []


REDRAW_SPY = """
window.__asked = [];
if (!window.__realFetch) window.__realFetch = window.fetch;
window.fetch = function (url, init) {
  const body = init && typeof init.body === 'string' ? init.body : '';
  if (body.includes('"redraw-request.data"')) window.__asked.push(JSON.parse(body).inputs[0].value.figures);
  return window.__realFetch.apply(this, arguments);
};
"""


def shown_state(browser) -> Scenario:
    """The scenario of the page's address (written once the controls rest)."""
    query = dict(browser.execute_script("return [...new URLSearchParams(location.search)]"))
    values, _, notices = parse_query(query)
    assert not notices, notices
    return Scenario.from_params(**values)


def test_a_redraw_asks_for_the_graphs_in_view_and_the_others_when_scrolled_into_view(home):
    browser = home
    browser.execute_script(f"{TOP}; window.inferxLazy.idleMs = 600000")  # no idle drawing here
    browser.execute_script(REDRAW_SPY)
    current = f"JSON.stringify({traces('fig9')}.at(-1).y)"  # the current settings' curve
    try:
        before = browser.execute_script(f"return {current}")
        browser.execute_script("window.dash_clientside.set_props('ctl-bw', {value: Math.log2(55)})")
        wait_js(browser, f"return Math.abs({traces('fig1')}[0].y[0] - 55e12 / 37e9) < 1", what="Figure 1 redrawn")
        asked = browser.execute_script("return window.__asked")
        assert asked and "fig1" in asked[0] and "fig9" not in asked[0], asked  # built for the view only
        assert browser.execute_script("return window.inferxLazy.stale.has('fig9')")
        time.sleep(1)
        assert browser.execute_script(f"return {current}") == before  # out of view: not drawn, not asked for
        browser.execute_script("document.getElementById('card-fig9').scrollIntoView({behavior: 'instant'})")
        wait_js(browser, f"return {current} !== {json.dumps(before)}", what="Figure 9 redrawn in view")
        assert ["fig9"] in [sorted(set(a) & {"fig9", "fig1"}) for a in browser.execute_script("return window.__asked")]
        assert not browser.execute_script("return window.inferxLazy.stale.has('fig9')")
        # It shows the new state: the figure the server builds for the address's controls.
        wait_js(browser, "return new URLSearchParams(location.search).get('bw') === '55'", what="the address")
        expected = registry.build(shown_state(browser), ["fig9"])["fig9"]["data"][-1]["y"]
        assert browser.execute_script(f"return {traces('fig9')}.at(-1).y") == expected
    finally:
        browser.execute_script(f"window.fetch = window.__realFetch; window.inferxLazy.idleMs = 600; {TOP}")
    # Left alone, the page asks for and draws every stale graph once nothing new has come for a while.
    current = f"JSON.stringify({traces('fig8')}.at(-1).y)"
    before = browser.execute_script(f"return {current}")
    browser.execute_script("window.dash_clientside.set_props('ctl-pp', {value: 2})")
    settled = "window.inferxLazy.waiting.size === 0 && window.inferxLazy.stale.size === 0"
    wait_js(browser, f"return {current} !== {json.dumps(before)} && {settled}", what="every stale graph drawn")
    assert severe_console_errors(browser) == []


def test_a_dragged_slider_keeps_one_redraw_in_flight_and_ends_on_its_last_value(home):
    browser = home
    browser.execute_script("window.scrollTo({top: 0, behavior: 'instant'})")
    result = browser.execute_async_script(
        """
        const done = arguments[0], calls = [], realFetch = window.fetch;
        window.fetch = function (url, init) {
          const redraw = init && typeof init.body === 'string' && init.body.includes('"redraw-request.data"');
          const call = {start: performance.now(), end: null};
          if (redraw) calls.push(call);
          return realFetch.apply(this, arguments).finally(() => { call.end = performance.now(); });
        };
        const gd = document.querySelector('#fig-1 .js-plotly-plot');
        let paints = 0; gd.on('plotly_afterplot', () => { paints += 1; });
        const t0 = performance.now(); let bw = 0;
        const step = () => {
          bw = 20 + (Math.round((performance.now() - t0) / 10) % 1000) / 10;  // 20 to 120 TB/s and round again
          window.dash_clientside.set_props('ctl-bw', {value: Math.log2(bw), drag_value: Math.log2(bw)});
          // At least 2 s (~250 inputs here, past Chrome's limit) and four answered redraws, on a slow machine too.
          const answered = calls.filter(c => c.end).length, t = performance.now() - t0;
          if ((t < 2000 || answered < 4) && t < 300000) return setTimeout(step, 4);
          const settled = () => Math.abs(gd.data[0].y[0] / (bw * 1e12 / 37e9) - 1) < 1e-3 && calls.every(c => c.end)
            ? (window.fetch = realFetch, done({calls, paints, bw})) : setTimeout(settled, 20);
          settled();
        };
        step();
        """
    )
    calls = sorted(result["calls"], key=lambda c: c["start"])
    assert len(calls) >= 3, result  # the figures followed the drag, not only its end
    overlaps = [(a, b) for a, b in zip(calls, calls[1:], strict=False) if b["start"] < a["end"] - 1]
    assert overlaps == [], overlaps  # never two redraws in flight
    assert result["paints"] >= 3
    address = f"return new URLSearchParams(location.search).get('bw') === '{result['bw']:g}'"
    wait_js(browser, address, what="the address after the drag")
    # Chrome ignores replaceState past ~200 calls in 10 s, and warns: the address is written once controls rest.
    logs = browser.get_log("browser")
    assert not [e for e in logs if "Throttling navigation" in e["message"]]
    assert [e for e in logs if e["level"] == "SEVERE"] == []


def test_a_refused_state_shows_a_notice_and_the_next_change_still_redraws(browser, server):
    open_page(browser, server, "/embed/fig1", ["fig1"])
    browser.execute_script("window.dash_clientside.set_props('ctl-util', {value: 0})")  # outside 50–100 %
    wait_js(browser, "return document.getElementById('runtime-notice').textContent.includes('util')", what="notice")
    # The server answered the refused state, so the browser is not left waiting to send the next one.
    browser.execute_script(
        "window.dash_clientside.set_props('ctl-util', {value: 90});"
        "window.dash_clientside.set_props('ctl-bw', {value: Math.log2(44)})"
    )
    wait_js(browser, f"return Math.abs({traces('fig1')}[0].y[0] - 44e12 / 37e9) < 1", what="Figure 1 redrawn")
    assert not browser.execute_script("return window.inferxRedraws.inFlight")


def test_a_lost_answer_does_not_hold_back_the_newest_state(browser, server):
    open_page(browser, server, "/embed/fig1", ["fig1"])
    browser.execute_script("window.inferxRedraws.giveUpMs = 1500")
    # The first change's request fails on the way; the second waits behind it for an answer that never comes.
    browser.execute_cdp_cmd("Network.enable", {})
    browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": ["*_dash-update-component*"]})
    try:
        browser.execute_script("window.dash_clientside.set_props('ctl-bw', {value: Math.log2(30)})")
        wait_js(browser, "return window.inferxRedraws.inFlight", what="the first redraw sent")
        browser.execute_script("window.dash_clientside.set_props('ctl-bw', {value: Math.log2(55)})")
        assert browser.execute_script("return window.inferxRedraws.next.values") is not None
    finally:
        browser.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})
    # No further input: the waiting state goes out once the lost one is given up.
    wait_js(browser, f"return Math.abs({traces('fig1')}[0].y[0] - 55e12 / 37e9) < 1", what="Figure 1 at 55 TB/s")
    assert browser.execute_script("return window.inferxRedraws.next") is None
    browser.get_log("browser")  # the blocked request's console error is this test's own doing


def test_animate_moves_dot_without_server_requests(home):
    browser = home
    wait_js(browser, "return document.getElementById('readout-rho').textContent !== '—'")
    browser.execute_script("performance.clearResourceTimings(); performance.setResourceTimingBufferSize(10000)")
    x0 = browser.execute_script(f"return {traces('fig6')}[1].x[0]")
    # A slow sweep, so that it is surely still running when the test presses Stop.
    browser.execute_script("window.inferxAnimation.seconds = 300")
    button = browser.find_element("id", "btn-animate")
    click(browser, button)
    # requestAnimationFrame stamps a frame with the time it began, which can precede the click's own clock
    # reading: frames stamped "before the start" must still draw (they once threw and froze the sweep).
    browser.execute_script("window.inferxAnimation.start = performance.now() + 2000")
    wait_js(browser, "return window.inferxAnimation.frames >= 3", timeout=120, what="three animation frames")
    state = browser.execute_script(
        f"const a = window.inferxAnimation; return {{running: a.running, frames: a.frames, last: a.last,"
        f" x: {traces('fig6')}[1].x[0], rho: document.getElementById('readout-rho').textContent,"
        " requests: performance.getEntriesByType('resource')"
        ".filter(e => e.name.includes('_dash-update-component')).length};"
    )
    assert state["running"] and state["x"] != x0 and state["rho"] != "—", state
    assert state["requests"] == 0, state  # every frame is drawn in the browser
    click(browser, button)  # stop
    wait_js(
        browser,
        "return !window.inferxAnimation.running && document.getElementById('btn-animate').textContent === 'Animate'",
        what="stopped",
    )
    assert severe_console_errors(browser) == []


def test_a_control_change_while_animating_keeps_the_sweep_on_the_new_frontier(home):
    browser = home
    wait_js(browser, "return document.getElementById('readout-rho').textContent !== '—'")
    browser.execute_script("window.inferxAnimation.seconds = 300")
    button = browser.find_element("id", "btn-animate")
    click(browser, button)
    wait_js(browser, "return window.inferxAnimation.frames >= 3", timeout=120, what="three animation frames")
    before = browser.execute_script(f"return JSON.stringify({traces('fig6')}[0].x)")
    browser.execute_script("window.dash_clientside.set_props('ctl-bw', {value: Math.log2(20)})")
    wait_js(browser, f"return JSON.stringify({traces('fig6')}[0].x) !== {json.dumps(before)}", what="Figure 6 redrawn")
    frames = browser.execute_script("return window.inferxAnimation.frames")
    wait_js(browser, f"return window.inferxAnimation.frames > {frames} + 3", what="more frames after the redraw")
    # The dot is on the new frontier: its point is one of the redrawn curve's samples.
    on_curve = browser.execute_script(
        f"const t = {traces('fig6')}; const b = t[1].customdata[0][0];"
        " const i = t[0].customdata.findIndex(c => c[0] === b); return i >= 0 && t[0].x[i] === t[1].x[0];"
    )
    assert on_curve
    assert browser.find_element("id", "btn-animate").text == "Stop"
    click(browser, button)
    wait_js(
        browser,
        "return !window.inferxAnimation.running && document.getElementById('btn-animate').textContent === 'Animate'",
    )
    assert severe_console_errors(browser) == []


def test_a_preset_sets_the_hardware_controls(home):
    browser = home
    browser.execute_script("window.dash_clientside.set_props('ctl-preset', {value: 'mi300x4'})")
    shown = {name: f"ctl-{name}-value" for name in ("bw", "compute", "hbm")}
    wait_js(browser, f"return document.getElementById('{shown['bw']}').textContent === '21.2 TB/s'", what="bandwidth")
    texts = {n: browser.execute_script(f"return document.getElementById('{i}').textContent") for n, i in shown.items()}
    assert texts == {"bw": "21.2 TB/s", "compute": "10.46 PFLOPS", "hbm": "768 GB"}
    # Figure 1's memory-bound slope follows: BW / (P_active·b_w) at B = 1.
    wait_js(browser, f"return Math.abs({traces('fig1')}[0].y[0] - 21.2e12 / 37e9) < 1", what="Figure 1 redrawn")
    wait_js(browser, "return location.search.includes('preset=mi300x4')", what="the preset in the address")


def test_url_state_round_trip_matches_cli(browser, server):
    # The explorer's embed page carries the same controls, readouts and URL sync as `/`, and paints faster.
    open_page(browser, server, "/embed/explorer?preset=mi300x4&ctx=8192&batch=64", ["fig6"])
    expected = cli_point("--preset", "mi300x4", "--ctx", "8192", "--batch", "64")
    wait_js(browser, "return document.getElementById('readout-throughput').textContent.includes('tok/s')")
    shown = browser.execute_script("return document.getElementById('readout-throughput').textContent")
    assert shown == f"{round(expected['throughput_tok_s']):,} tok/s per instance"  # the unit of the axis
    ttft = browser.execute_script("return document.getElementById('readout-ttft').textContent")
    number = ttft.split()[0].replace(",", "")
    decimals = len(number.partition(".")[2])
    assert float(number) == round(expected["ttft_ms"], decimals), (ttft, expected["ttft_ms"])
    assert browser.execute_script("return document.getElementById('ctl-ctx-value').textContent") == "8,192 tokens"
    dot = browser.execute_script(f"return {traces('fig6')}[1].customdata[0][0]")
    assert dot == 64
    # A control change rewrites the address without a reload or a new history entry.
    history = browser.execute_script("window.__marker = 1; return history.length")
    browser.execute_script("window.dash_clientside.set_props('ctl-util', {value: 95})")
    wait_js(browser, "return location.search.includes('util=95')", what="util in the address bar")
    assert browser.execute_script("return history.length") == history
    assert browser.execute_script("return window.__marker") == 1  # same document: no reload
    search = browser.execute_script("return location.search")
    assert "preset=mi300x4" in search and "ctx=8192" in search and "batch=64" in search
    assert_embed_chrome(browser)


def assert_embed_chrome(browser):
    """An embed page holds one graph and no navigation bar, and logs no errors."""
    assert browser.execute_script("return document.querySelectorAll('.js-plotly-plot').length") == 1
    assert browser.execute_script("return document.querySelector('.navbar')") is None
    assert severe_console_errors(browser) == []


def test_bad_query_value_is_ignored_with_notice(browser, server):
    open_page(browser, server, "/embed/fig1?bw=999&ctx=banana&tp=3", ["fig1"])
    assert_embed_chrome(browser)
    notice = browser.execute_script("return document.getElementById('url-notice').textContent")
    assert "bw=999" in notice and "ctx" in notice and "tp" in notice
    assert browser.execute_script(f"return {traces('fig1')}[0].y[0]") == pytest.approx(38.4e12 / 37e9, rel=1e-3)


def test_embed_screenshot_at_iframe_width(browser, server):
    SHOTS.mkdir(exist_ok=True)
    browser.set_window_size(420, 700)
    try:
        open_page(browser, server, "/embed/fig5?preset=b200x8", ["fig5"])
        assert_embed_chrome(browser)
        # Nothing spills sideways out of a narrow frame.
        assert browser.execute_script("return document.documentElement.scrollWidth") <= 420
        out = SHOTS / "embed-fig5-420x700.png"
        browser.save_screenshot(str(out))
        assert out.stat().st_size > 10_000
    finally:
        browser.set_window_size(1280, 800)


EMBED_REDRAW = {"moe-coverage": ("wdtype", "fp4"), "speculative": ("compute", 50)}


@pytest.mark.parametrize("name", [*FIGS, "explorer"])
def test_each_embed_page_renders_its_figure_alone(browser, server, name):
    fig = registry.by_name(name).key
    open_page(browser, server, f"/embed/{name}?preset=mi300x4", [fig])
    assert_embed_chrome(browser)
    expected = registry.build(Scenario.from_params(preset="mi300x4"), names=(fig,))[fig]
    shown = browser.execute_script(f"return {traces(fig)}.map(t => t.name)")
    assert shown == [t["name"] for t in expected["data"]]
    # Its folded-away controls redraw it (TP moves every figure: communication enters each one).
    ys = f"JSON.stringify({traces(fig)}.map(t => t.y))"
    before = browser.execute_script(f"return {ys}")
    # Two figures read no collectives: the MoE one reads the model and the weight bytes, and speculative
    # decoding at B = 1 (the article's verify) the compute.
    control, value = EMBED_REDRAW.get(registry.by_name(name).name, ("tp", 8))
    position = slider_position(PARAMS[control], value)  # compute's slider is log2 of the value
    browser.execute_script(f"window.dash_clientside.set_props('ctl-{control}', {{value: {json.dumps(position)}}})")
    wait_js(browser, f"return {ys} !== {json.dumps(before)}", what=f"{name} redrawn at {control} {value}")
    assert severe_console_errors(browser) == []


@pytest.mark.parametrize(
    ("path", "shown"), [("/nope", "No page at this address"), ("/embed/nope", "No figure called 'nope'")]
)
def test_an_unknown_address_draws_its_page_from_a_404(browser, server, path, shown):
    """The server answers 404; the browser still draws the page that says so, with nothing else failing."""
    browser.get(server.url.rstrip("/") + path)
    wait_js(browser, f"return document.body.innerText.includes({json.dumps(shown)})", what=f"{path} drawn", timeout=30)
    errors = severe_console_errors(browser)
    assert len(errors) == 1 and f"{path} - Failed to load resource" in errors[0] and "404" in errors[0], errors


PAGE_READY = {
    "/inferencex": "return document.querySelectorAll('#fig-ix .main-svg').length > 0",
    "/methods": "return !!document.getElementById('check') && !!document.querySelector('mjx-container')",
}


@pytest.mark.parametrize("width", [1280, 420])
@pytest.mark.parametrize("path", PAGE_READY)
def test_other_pages_fit_the_window(browser, server, path, width):
    browser.set_window_size(width, 800)
    try:
        browser.get(server.url.rstrip("/") + path)
        wait_js(browser, PAGE_READY[path], what=f"{path} drawn")
        assert_fits_window(browser)
        assert severe_console_errors(browser) == []
        browser.save_screenshot(str(SHOTS / f"{path.strip('/')}-{width}.png"))
    finally:
        browser.set_window_size(1280, 800)


def test_copy_buttons_put_the_link_and_the_iframe_on_the_clipboard(browser, server):
    """Inside a wiki's iframe the address bar never changes: these buttons are how a reader shares."""
    path = "/embed/fig5?preset=b200x8&ctx=8192"
    open_page(browser, server, path, ["fig5"])
    origin = browser.execute_script("return location.origin")
    browser.execute_cdp_cmd(
        "Browser.grantPermissions", {"permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"], "origin": origin}
    )
    read = "const done = arguments[0]; navigator.clipboard.readText().then(done, e => done('error: ' + e));"
    url = origin + path
    click(browser, browser.find_element("id", "copy-link"))
    link = wait_for_clipboard(browser, read, lambda text: text == url)
    assert link == url
    click(browser, browser.find_element("css selector", "[id*='embed-copy']"))
    code = wait_for_clipboard(browser, read, lambda text: text.startswith("<iframe"))
    assert f'src="{url}"' in code and 'title="inferx figure"' in code
    assert 'allow="clipboard-write"' in code  # the embed's own copy buttons work inside the wiki's page


def wait_for_clipboard(browser, read: str, ok, timeout: float = 120) -> str:
    deadline = time.monotonic() + timeout
    while True:
        text = browser.execute_async_script(read)
        if ok(text) or time.monotonic() > deadline:
            return text
        time.sleep(0.2)


def test_switching_model_and_gpu_redraws_and_a_copied_link_restores_them(browser, server):
    open_page(browser, server, "/embed/fig1", ["fig1"])
    llama = MODELS["llama-3.3-70b"]
    browser.execute_script("window.dash_clientside.set_props('ctl-model', {value: 'llama-3.3-70b'})")
    # Figure 1 at B = 1 is memory-bound: BW / (P_active·b_w), now with the 70B model's active parameters.
    slope = f"Math.abs({traces('fig1')}[0].y[0] / (38.4e12 / {llama.p_active}) - 1) < 1e-3"
    wait_js(browser, f"return {slope}", what="Figure 1 redrawn for Llama-3.3-70B")
    # A GPU chosen by hand sets bandwidth, compute and HBM from the catalog: 8 × B300.
    browser.execute_script("window.dash_clientside.set_props('ctl-gpu', {value: 'b300'})")
    wait_js(browser, "return document.getElementById('ctl-bw-value').textContent === '64.0 TB/s'", what="8×B300 bw")
    assert browser.execute_script("return document.getElementById('ctl-hbm-value').textContent") == "2,304 GB"
    b300 = f"Math.abs({traces('fig1')}[0].y[0] / (64e12 / {llama.p_active}) - 1) < 1e-3"
    wait_js(browser, f"return {b300}", what="Figure 1 redrawn for 8×B300")
    wait_js(browser, "return location.search.includes('gpu=b300')", what="the GPU in the address")
    link = browser.execute_script("return location.href")
    assert "model=llama-3.3-70b" in link
    open_page(browser, server, link.removeprefix(server.url.rstrip("/")), ["fig1"])
    assert browser.execute_script(f"return {b300}")
    assert "Llama-3.3-70B" in browser.execute_script("return document.querySelector('#ctl-model').textContent")
    assert severe_console_errors(browser) == []


NAV_HREF = "return document.querySelector('#nav-methods.active') && document.getElementById(arguments[0]).href;"


def test_the_dashboard_link_brings_back_the_settings_after_another_page(browser, server):
    """An address opened as it is, with A pinned, survives visits to /methods and /inferencex: the InferenceX link
    carries the settings without A (that page does not take it), and a control moved there comes back too, as
    does the explorer's batch, which /inferencex has no control for."""
    open_page(browser, server, "/?util=70&batch=16&a=preset:mi300x4", ["fig1"])
    click(browser, browser.find_element("id", "nav-methods"))
    wait_js(browser, f"{NAV_HREF[:-1]}.includes('util=70');", args=("nav-dashboard",), what="/methods, its links")
    dashboard, inferencex = (browser.execute_script(NAV_HREF, i) for i in ("nav-dashboard", "nav-inferencex"))
    assert "a=preset:mi300x4" in dashboard and "util=70" in inferencex and "a=" not in inferencex, inferencex
    click(browser, browser.find_element("id", "nav-inferencex"))
    wait_js(browser, "return location.pathname === '/inferencex' && location.search.includes('util=70');")
    browser.execute_script("window.dash_clientside.set_props('ctl-ctx', {value: 12})")  # log2(4,096 tokens)
    wait_js(browser, "return location.search.includes('ctx=4096');", what="/inferencex's address written")
    assert "batch=16" in browser.execute_script("return location.search")
    click(browser, browser.find_element("id", "nav-dashboard"))
    wait_js(browser, "return location.pathname === '/' && location.search.includes('ctx=4096');", what="back on /")
    assert "batch=16" in browser.execute_script("return location.search")
    util = "window.dash_component_api.getLayout('ctl-util').props.value === 70"
    pinned = f"({traces('fig1')} || []).some((t) => (t.name || '').startsWith('A: '))"
    wait_js(browser, f"return {util} && {pinned};", what="utilisation at 70 % and A drawn again")
    assert severe_console_errors(browser) == []


def test_a_change_just_before_a_navbar_link_is_carried(browser, server):
    """The address waits 150 ms for the controls to rest; a navbar link followed within that time still carries
    the last change."""
    open_page(browser, server, "/", ["fig1"])
    browser.execute_script(
        "window.dash_clientside.set_props('ctl-isl', {value: 12});"  # log2(4,096 tokens)
        "window.setTimeout(() => document.getElementById('nav-methods').click(), 20);"
    )
    wait_js(browser, f"{NAV_HREF[:-1]}.includes('isl=4096');", args=("nav-dashboard",), what="/methods, its links")
    assert severe_console_errors(browser) == []


def test_the_methods_link_carries_the_selected_model(home):
    browser = home
    browser.execute_script("window.dash_clientside.set_props('ctl-model', {value: 'llama-3-8b'})")
    wait_js(browser, "return document.getElementById('nav-methods').href.endsWith('?model=llama-3-8b')", what="link")
    click(browser, browser.find_element("id", "nav-methods"))
    shown = "const p = document.getElementById('methods-model'); return p && p.textContent.includes('Llama-3-8B');"
    wait_js(browser, shown, what="/methods for Llama-3-8B")
    assert severe_console_errors(browser) == []


# The page's fetch, made to fail once with a broken connection when armed: installed before any of the page's
# scripts, so the page's own retry (assets/inferx.js) wraps it as it would wrap the browser's.
BROKEN_ONCE = """
window.__broken = 0;
const real = window.fetch.bind(window);
window.fetch = function (input, init) {
  const redraw = typeof input === "string" && new URL(input, location.href).pathname.endsWith("_dash-update-component")
    && init
    && String(init.body).includes("figure-updates");
  if (redraw && window.__armed && !window.__broken) {
    window.__broken += 1;
    return Promise.reject(new TypeError("Failed to fetch"));
  }
  return real(input, init);
};
"""


def test_a_redraw_whose_connection_breaks_is_asked_for_again(browser, server):
    script = browser.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": BROKEN_ONCE})
    try:
        open_page(browser, server, "/", ["fig1"])
        browser.execute_script(TOP + "; window.__armed = true")
        browser.execute_script("window.dash_clientside.set_props('ctl-bw', {value: Math.log2(100)})")
        wait_js(
            browser,
            f"return Math.abs({traces('fig1')}[0].y[0] / (100e12 / 37e9) - 1) < 1e-3",
            what="Figure 1 redrawn after its first request broke",
        )
        assert browser.execute_script("return window.__broken") == 1
        assert severe_console_errors(browser) == []
    finally:
        browser.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", {"identifier": script["identifier"]})
        browser.get("about:blank")
