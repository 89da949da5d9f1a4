"""The dashboard in real headless Chromium against gunicorn: render, redraw, URL state, animation, embeds."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import ROOT, make_driver, severe_console_errors

pytestmark = pytest.mark.browser
SHOTS = ROOT / "screenshots"
FIGS = [f"fig{i}" for i in range(1, 10)]


@pytest.fixture(scope="module")
def driver(server):
    d = make_driver()
    d.set_page_load_timeout(120)
    yield d
    d.quit()


def wait_for(driver, script: str, timeout: float = 60.0, message: str = ""):
    """Poll a JavaScript expression until it returns something truthy."""
    deadline = time.monotonic() + timeout
    while True:
        value = driver.execute_script(f"return ({script});")
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {message or script}")
        time.sleep(0.2)


def traces(fig: str) -> str:
    return f"(document.querySelector('#fig-{fig[3:]} .js-plotly-plot') || {{}}).data"


def rendered(figs) -> str:
    return " && ".join(f"({traces(f)} || []).length > 0" for f in figs)


def open_page(driver, server, path: str, figs):
    driver.get(server.url.rstrip("/") + path)
    wait_for(driver, rendered(figs), message=f"{figs} drawn on {path}")


def cli_point(*args) -> dict:
    out = subprocess.run([sys.executable, "-m", "inferx", "point", *args], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def test_dashboard_renders_all_figures_without_console_errors(driver, server):
    open_page(driver, server, "/", FIGS)
    for fig in FIGS:
        assert driver.execute_script(f"return document.querySelectorAll('#fig-{fig[3:]} .main-svg').length") > 0
    assert severe_console_errors(driver) == []
    SHOTS.mkdir(exist_ok=True)
    driver.save_screenshot(str(SHOTS / "home-1280.png"))


def test_moving_a_control_redraws(driver, server):
    open_page(driver, server, "/", FIGS)
    before = driver.execute_script(f"return {traces('fig1')}[0].y.slice(0, 3)")
    driver.execute_script("window.dash_clientside.set_props('ctl-bw', {value: 100})")
    wait_for(
        driver,
        f"JSON.stringify({traces('fig1')}[0].y.slice(0, 3)) !== '{json.dumps(before)}'",
        message="Figure 1 redrawn after the bandwidth change",
    )
    # The roofline's memory-bound slope is BW / (P_active·b_w): 100 TB/s / 37 GB at B = 1.
    y0 = driver.execute_script(f"return {traces('fig1')}[0].y[0]")
    assert y0 == pytest.approx(100e12 / 37e9, rel=1e-3)
    assert "bw=100" in driver.execute_script("return location.search")
    assert severe_console_errors(driver) == []


def test_url_state_round_trip_matches_cli(driver, server):
    open_page(driver, server, "/?preset=mi300x4&ctx=8192&batch=64", FIGS)
    expected = cli_point("--preset", "mi300x4", "--ctx", "8192", "--batch", "64")
    wait_for(driver, "document.getElementById('readout-throughput').textContent.includes('tok/s')")
    shown = driver.execute_script("return document.getElementById('readout-throughput').textContent")
    assert shown == f"{round(expected['throughput_tok_s']):,} tok/s"
    ttft = driver.execute_script("return document.getElementById('readout-ttft').textContent")
    assert float(ttft.split()[0].replace(",", "")) == pytest.approx(expected["ttft_ms"], rel=2e-3)
    assert driver.execute_script("return document.getElementById('ctl-ctx-tokens').textContent") == "8,192 tokens"
    dot = driver.execute_script(f"return {traces('fig6')}[1].customdata[0][0]")
    assert dot == 64
    # A control change rewrites the address without a reload or a new history entry.
    history = driver.execute_script("window.__marker = 1; return history.length")
    driver.execute_script("window.dash_clientside.set_props('ctl-util', {value: 95})")
    wait_for(driver, "location.search.includes('util=95')", message="util in the address bar")
    assert driver.execute_script("return history.length") == history
    assert driver.execute_script("return window.__marker") == 1  # same document: no reload
    search = driver.execute_script("return location.search")
    assert "preset=mi300x4" in search and "ctx=8192" in search and "batch=64" in search


def test_bad_query_value_is_ignored_with_notice(driver, server):
    open_page(driver, server, "/?bw=999&ctx=banana&tp=3", ["fig1"])
    notice = driver.execute_script("return document.getElementById('url-notice').textContent")
    assert "bw=999" in notice and "ctx" in notice and "tp" in notice
    assert driver.execute_script(f"return {traces('fig1')}[0].y[0]") == pytest.approx(38.4e12 / 37e9, rel=1e-3)


def test_animate_moves_dot_without_server_requests(driver, server):
    open_page(driver, server, "/", ["fig6"])
    wait_for(driver, "document.getElementById('readout-rho').textContent !== '—'")
    driver.execute_script("performance.clearResourceTimings(); performance.setResourceTimingBufferSize(10000)")
    x0 = driver.execute_script(f"return {traces('fig6')}[1].x[0]")
    driver.find_element("id", "btn-animate").click()
    wait_for(driver, "window.inferxAnimation.running", message="animation started")
    time.sleep(2.5)
    x1 = driver.execute_script(f"return {traces('fig6')}[1].x[0]")
    rho = driver.execute_script("return document.getElementById('readout-rho').textContent")
    callbacks = driver.execute_script(
        "return performance.getEntriesByType('resource').filter(e => e.name.includes('_dash-update-component')).length"
    )
    assert x1 != x0 and callbacks == 0
    assert driver.execute_script("return window.inferxAnimation.frames") > 10
    driver.find_element("id", "btn-animate").click()  # stop
    wait_for(
        driver,
        "!window.inferxAnimation.running && document.getElementById('btn-animate').textContent === 'Animate'",
        message="stopped",
    )
    assert rho != "—"
    assert severe_console_errors(driver) == []


@pytest.mark.parametrize("name", [*FIGS, "explorer"])
def test_embed_page_renders_alone(driver, server, name):
    fig = "fig6" if name == "explorer" else name
    open_page(driver, server, f"/embed/{name}?preset=b200x8", [fig])
    assert driver.execute_script("return document.querySelectorAll('.js-plotly-plot').length") == 1
    assert driver.execute_script("return document.querySelector('.navbar')") is None  # minimal chrome
    assert severe_console_errors(driver) == []


def test_screenshots_at_desktop_and_iframe_widths(server):
    SHOTS.mkdir(exist_ok=True)
    for width, height in ((1280, 800), (420, 700)):
        d = make_driver(width, height)
        try:
            d.set_page_load_timeout(120)
            for path, figs, name in (("/", FIGS, "home"), ("/embed/fig5?preset=b200x8", ["fig5"], "embed-fig5")):
                open_page(d, server, path, figs)
                time.sleep(1)
                out = Path(SHOTS / f"{name}-{width}x{height}.png")
                d.save_screenshot(str(out))
                assert out.stat().st_size > 10_000
        finally:
            d.quit()
