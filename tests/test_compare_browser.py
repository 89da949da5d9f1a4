"""Pin as A and the download buttons in real headless Chromium against gunicorn."""

from __future__ import annotations

import json
import re
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

import pytest
from browser_checks import click, element, press_slider
from conftest import ROOT, reset_browser, severe_console_errors
from selenium.webdriver.common.keys import Keys
from test_dashboard_browser import FIGS, SHOTS, open_page, traces

from benchmarks.chromium import wait_js
from inferx.figures import compare, export, registry
from inferx.scenario.controls import PARAMS
from inferx.scenario.evaluation import Scenario
from pages._url import encode_pinned

pytestmark = pytest.mark.browser
A_TRACES = "({t}).filter(t => (t.name || '').startsWith('A: '))"


def a_traces(fig: str) -> str:
    return A_TRACES.format(t=f"{traces(fig)} || []")


def wait_until(browser, script: str, what: str):
    return wait_js(browser, script, what=what)


def test_pin_move_a_slider_see_a_dashed_and_the_differences(browser, server):
    open_page(browser, server, "/?batch=64", FIGS)
    pin = element(browser, "#pin-a")
    assert pin.get_attribute("aria-label") and pin.tag_name == "button"
    assert browser.find_element("id", "unpin-a").get_attribute("disabled") is not None  # nothing to unpin yet
    # Keyboard: the button takes focus and Enter presses it.
    browser.execute_script("arguments[0].focus()", pin)
    assert browser.execute_script("return document.activeElement.id") == "pin-a"
    pin.send_keys(Keys.ENTER)
    wait_until(browser, "return document.getElementById('pinned-label').textContent.startsWith('A: 8×H200')", "pin")
    wait_until(browser, "return new URLSearchParams(location.search).get('a') === 'preset:h200x8'", "a= written")
    # Move the context slider by keyboard: the current curves move, A's stay where they were pinned.
    before = browser.execute_script(f"return {traces('fig4')}[0].x.slice()")
    press_slider(browser, "ctl-ctx", Keys.END)
    wait_until(browser, f"return {a_traces('fig4')}.length > 0", "A's traces on Figure 4")
    as_js = json.dumps(before, separators=(",", ":"))  # JSON.stringify's spelling
    wait_until(browser, f"return JSON.stringify({traces('fig4')}[0].x) !== {json.dumps(as_js)}", "the redraw")
    for fig in FIGS:  # every figure of / draws A (the off-screen ones once scrolled to)
        browser.execute_script(
            f"document.getElementById('card-{fig}').scrollIntoView({{block: 'center', behavior: 'instant'}})"
        )
        wait_until(browser, f"return {a_traces(fig)}.length > 0", f"A's traces on {fig}")
        # The legend, with A's entries and title, wraps inside the figure.
        inside = browser.execute_script(
            f"const g = document.querySelector('#fig-{fig[3:]} .js-plotly-plot');"
            "const box = g.querySelector('.main-svg').getBoundingClientRect();"
            "const legend = g.querySelector('.legend');"
            "if (!legend) return true; const r = legend.getBoundingClientRect();"
            "return r.left >= box.left - 1 && r.right <= box.right + 1;"
        )
        assert inside, fig
    fig4 = browser.execute_script(f"return {traces('fig4')}")
    mine = next(t for t in fig4 if not t["name"].startswith("A: "))
    theirs = next(t for t in fig4 if t["name"] == f"A: {mine['name']}")
    assert theirs["line"]["dash"] == "dash" and theirs["opacity"] < 1 and mine["x"] != theirs["x"]
    assert theirs["x"] == before  # A is the pinned state
    legend = browser.execute_script(
        "return Array.from(document.querySelectorAll('#fig-4 .legendtext, #fig-4 .legendtitletext'))"
        ".map(e => e.textContent)"
    )
    # A kept the preset's context where the current one moved it to the end: the title says A's.
    named = compare.legend_label(Scenario.from_params(), Scenario.from_params(ctx=PARAMS["ctx"].high))
    assert named == "8×H200 SXM · ctx 1,024 tokens"
    assert f"A = {named} (faded)" in legend and f"A: {mine['name']}" in legend
    # The explorer's readouts show the difference from A, with units and a signed per cent.
    browser.execute_script(
        "document.getElementById('card-fig6').scrollIntoView({block: 'center', behavior: 'instant'})"
    )
    diff = r"^[+−±][\d.,]+ % vs A: .+$"
    wait_until(browser, "return document.getElementById('readout-throughput-a').textContent.includes('vs A')", "diff")
    texts = {
        key: browser.execute_script(f"return document.getElementById('readout-{key}-a').textContent")
        for key in ("throughput", "ttft", "itl", "rho", "cost", "energy")
    }
    assert all(re.match(diff, t) for t in texts.values()), texts
    assert texts["throughput"].endswith(" tok/s per instance")  # the unit of the axis and the readout above
    assert texts["ttft"].endswith(" ms") and "tok/J" in texts["energy"]
    assert not texts["throughput"].startswith("±")  # a 128× longer context changes the throughput at B = 64
    # Shared: the address holds both, and opening it shows the same two scenarios.
    wait_until(browser, "return new URLSearchParams(location.search).get('ctx') !== null", "ctx in the address")
    shared = browser.execute_script("return location.pathname + location.search")
    SHOTS.mkdir(exist_ok=True)
    for width in (1440, 800):
        browser.set_window_size(width, 1000)
        for card in ("fig5", "fig6", "fig10"):
            browser.execute_script(
                "document.querySelectorAll('.sidebar, .sidebar-col').forEach(e => { e.scrollTop = 0; });"
                f"document.getElementById('card-{card}').scrollIntoView({{block: 'start', behavior: 'instant'}})"
            )
            time.sleep(1.5)  # Plotly redraws each graph at the new width in its own time
            browser.save_screenshot(str(SHOTS / f"compare-{card}-{width}.png"))
    reset_browser(browser)
    open_page(browser, server, shared, ["fig4"])
    wait_until(browser, f"return {a_traces('fig4')}.length > 0", "A from the shared address")
    assert browser.execute_script(f"return {a_traces('fig4')}[0].x") == before
    # Unpin from the keyboard: A leaves the figures and the address, and focus goes to Pin as A (the disabled
    # Unpin would drop it to the page's start).
    browser.execute_script("document.getElementById('unpin-a').focus()")
    browser.switch_to.active_element.send_keys(Keys.ENTER)
    wait_until(browser, f"return {a_traces('fig4')}.length === 0", "A gone")
    wait_until(browser, "return !new URLSearchParams(location.search).has('a')", "a= gone")
    wait_until(browser, "return document.getElementById('unpin-a').disabled", "Unpin disabled")
    assert browser.execute_script("return document.activeElement.id") == "pin-a"
    assert severe_console_errors(browser) == []


@pytest.fixture
def downloads(chromium):
    """Chromium saving downloads into a fresh folder."""
    with tempfile.TemporaryDirectory(prefix="inferx-downloads-") as folder:
        chromium.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": folder})
        try:
            yield Path(folder)
        finally:  # the session's Chromium outlives the folder
            chromium.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "default"})


def wait_file(folder: Path, name: str, timeout: float = 300) -> Path:
    deadline = time.monotonic() + timeout
    path = folder / name
    while not (path.is_file() and path.stat().st_size > 0 and not list(folder.glob("*.crdownload"))):
        if time.monotonic() > deadline:
            raise AssertionError(f"{name} not downloaded; the folder has {[p.name for p in folder.iterdir()]}")
        time.sleep(0.25)
    return path


def test_download_buttons_save_the_csv_the_cli_writes_and_a_sized_image(browser, server, downloads):
    open_page(browser, server, "/embed/fig4?ctx=4096", ["fig4"])
    click(browser, element(browser, "#embed-settings-toggle"))  # an embed keeps its downloads in the drawer
    scn = Scenario.from_params(ctx=4096)
    csv_button = element(browser, "[aria-label='Download Figure 4 data as CSV']")
    click(browser, csv_button)
    csv = wait_file(downloads, export.file_name(scn, "fig4", "csv"))
    assert csv.name == "inferx_fig4_h200x8_tp8_ctx4096.csv"
    cli = subprocess.run(
        [sys.executable, "-m", "inferx", "frontier", "--figure", "4", "--format", "csv", "--ctx", "4096"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert csv.read_text() == cli.stdout
    # An image at the size chosen beside the buttons, by keyboard.
    select = browser.find_element("id", "image-size-fig4")
    select.send_keys("8")  # the first option starting with 8: 800×450 px
    assert select.get_attribute("value") == "800x450"
    png_button = browser.find_element("css selector", "[aria-label='Download Figure 4 as a PNG image']")
    browser.execute_script("arguments[0].focus()", png_button)
    png_button.send_keys(Keys.ENTER)
    png = wait_file(downloads, export.file_name(scn, "fig4", "png"))
    head = png.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", head[16:24]) == (800, 450)
    assert severe_console_errors(browser) == []


def test_an_image_has_the_figures_title_and_its_legend_under_the_axis_title(browser, server, downloads):
    """The legend's place is set for the graph's height on screen; in a 1200×675 image it stood some 70 px
    below the x-axis title. It is placed for the image's height, as close as on screen."""
    open_page(browser, server, "/?ctx=2048", ["fig4"])  # a dashboard card's graph is some 450 px tall
    assert browser.find_element("id", "image-size-fig4").get_attribute("value") == "1200x675"
    browser.execute_script("document.getElementById('card-fig4').scrollIntoView({block: 'center'})")
    click(browser, element(browser, "[aria-label='Download Figure 4 as an SVG image']"))
    svg = wait_file(downloads, export.file_name(Scenario.from_params(ctx=2048), "fig4", "svg")).read_text()
    title = float(re.search(r'class="xtitle"[^>]*? y="([\d.]+)"', svg)[1])  # the title's baseline
    legend = float(re.search(r'<g class="legend"[^>]*?translate\([\d.]+,\s*([\d.]+)\)', svg)[1])  # its top
    assert 0 < legend - title < 30, (title, legend)
    # The image heads itself with the figure's title, which on the page stands outside the graph.
    assert re.search(r'class="gtitle"[^>]*>Figure 4 · Inter-token latency against throughput<', svg)
    assert severe_console_errors(browser) == []


def test_an_embedded_comparison_downloads_both_scenarios(browser, server, downloads):
    a = Scenario.from_params(preset="mi300x4")
    open_page(browser, server, f"/embed/fig5?a={encode_pinned({'preset': 'mi300x4'})}", ["fig5"])
    assert browser.execute_script(f"return {a_traces('fig5')}.length") == len(  # A's main curve alone
        compare.main_of_a(registry.build(a, ["fig5"])["fig5"]["data"])
    )
    click(browser, element(browser, "#embed-settings-toggle"))
    click(browser, element(browser, "[aria-label='Download Figure 5 data as JSON']"))
    name = export.file_name(Scenario.from_params(), "fig5", "json", a)
    assert name == "inferx_fig5_h200x8_tp8_ctx1024_vs_mi300x4_tp4_ctx1024.json"
    record = wait_file(downloads, name).read_text()
    names = re.findall(r'"name": ?"([^"]*)"', record.encode().decode("unicode_escape"))
    assert "A: 4×MI300X" in names and "8×H200 (current)" in names, names  # both scenarios' own curves
    assert severe_console_errors(browser) == []


def test_a_s_dot_and_the_differences_follow_a_drag_and_the_animation(browser, server):
    a = {"preset": "h200x8", "ctx": 8192}
    open_page(browser, server, f"/?batch=16&a={encode_pinned(a)}", ["fig6"])
    browser.execute_script(
        "document.getElementById('card-fig6').scrollIntoView({block: 'center', behavior: 'instant'})"
    )
    a_dot = f"({traces('fig6')}).find(t => t.name === 'A: Operating point')"
    wait_until(browser, f"return !!{a_dot}", "A's dot on Figure 6")
    read = "return [document.getElementById('readout-throughput-a').textContent, " + a_dot + ".customdata[0][0]]"
    wait_until(browser, "return document.getElementById('readout-throughput-a').textContent.includes('vs A')", "diff")
    text, b = browser.execute_script(read)
    assert b == 16
    # A drag of the batch slider moves A's dot with the current one, before any redraw.
    browser.execute_script("window.dash_clientside.set_props('ctl-batch', {drag_value: 6})")
    wait_until(browser, f"return {a_dot}.customdata[0][0] === 64", "A's dot at B = 64 during the drag")
    wait_until(
        browser, f"return document.getElementById('readout-throughput-a').textContent !== {json.dumps(text)}", "new"
    )
    assert "vs A" in browser.execute_script(read)[0]
    # The animation sweeps both dots and rewrites the differences frame by frame.
    browser.execute_script(
        "window.dash_clientside.set_props('ctl-batch', {value: 4}); window.inferxAnimation.seconds = 4"
    )
    wait_until(browser, f"return {a_dot}.customdata[0][0] === 16", "back at B = 16")
    click(browser, browser.find_element("id", "btn-animate"))
    wait_until(browser, "return window.inferxAnimation.frames >= 5", "five frames")
    seen = set()
    for _ in range(20):
        seen.add(tuple(browser.execute_script(read)))
        time.sleep(0.1)
    assert len({b for _, b in seen}) >= 3 and len({t for t, _ in seen}) >= 3, seen
    wait_until(browser, "return !window.inferxAnimation.running", "the sweep's end")
    last = browser.execute_script("return window.inferxAnimation.last")
    final_text, final_b = browser.execute_script(read)
    edge = max(r[0] for r in browser.execute_script(f"return {a_traces('fig6')}[0].customdata"))
    assert final_b == min(last, edge)
    assert final_text.startswith("A stops at") == (last > edge)
    assert severe_console_errors(browser) == []
    browser.get("about:blank")  # the session's next test must not find A pinned on `/`


def test_a_pinned_a_that_does_not_fit_is_said_above_the_plots_and_in_the_readouts(browser, server):
    """A whose model does not fit its machine draws nothing. A note at the top of each plot said so and ran over
    the curves and labels there (Figure 1's regime label, Figure 12's concurrency labels); the legend's title
    says it now, in lines a phone's graph holds, and the explorer, which has no legend, says it in its readouts."""
    address = "/?" + urlencode({"a": "model:llama-3.1-405b,gpu:l40s,gpus:1"})
    browser.set_window_size(420, 900)
    try:
        open_page(browser, server, address, ["fig1", "fig6"])
        browser.execute_script("document.getElementById('card-fig1').scrollIntoView({behavior: 'instant'})")
        title = wait_until(
            browser,
            "const t = document.querySelector('#fig-1 .legendtitletext'); return t && t.getBoundingClientRect();",
            "Figure 1's legend title",
        )
        words = browser.execute_script("return document.querySelector('#fig-1 .legendtitletext').textContent")
        assert words.startswith("A = 1×L40S") and "fititsmachine" in words.replace(" ", "")  # lines join unspaced
        plot = browser.execute_script("return document.querySelector('#fig-1 .main-svg').getBoundingClientRect()")
        assert plot["left"] - 1 <= title["left"] and title["right"] <= plot["right"] + 1, (title, plot)
        tools = browser.execute_script(
            "return Array.from(document.querySelectorAll('#fig-1 .modebar-btn'), (b) => b.getBoundingClientRect())"
        )
        assert tools and all(t["right"] <= title["left"] or t["bottom"] <= title["top"] for t in tools), tools
        assert not browser.execute_script(
            "return document.querySelector('#fig-1 .js-plotly-plot').layout.annotations"
            ".some((a) => a.text.includes('does not fit'))"
        )
        browser.execute_script("document.getElementById('card-fig6').scrollIntoView({behavior: 'instant'})")
        wait_until(
            browser,
            "return document.getElementById('readout-throughput-a').textContent === 'A does not fit its machine'",
            "the explorer's readout",
        )
    finally:
        reset_browser(browser)
    assert severe_console_errors(browser) == []
