"""The operating-point explorer's animation in real headless Chromium: the slider follows the dot, the axes
hold still, the readouts say which limit binds and warn past ρ = 0.85."""

from __future__ import annotations

import pytest
from browser_checks import click, wait_js
from conftest import reset_browser, severe_console_errors

from inferx.figures import registry

pytestmark = pytest.mark.browser

GD = "document.querySelector('#fig-6 .js-plotly-plot')"
THUMB = "document.querySelector('#card-fig6 [role=slider]')"
STATE = f"""
const gd = {GD}, thumb = {THUMB};
return {{
  frames: window.inferxAnimation.frames,
  now: thumb.getAttribute('aria-valuenow'),
  left: thumb.parentElement.style.left,
  x: gd.layout.xaxis.range.slice(), y: gd.layout.yaxis.range.slice(),
  fullX: gd._fullLayout.xaxis.range.slice(), fullY: gd._fullLayout.yaxis.range.slice(),
  dot: gd.data[1].x[0],
}};
"""


@pytest.fixture
def explorer(chromium, server):
    reset_browser(chromium)
    chromium.get(server.url + "embed/fig6")
    rho = "(document.getElementById('readout-rho') || {}).textContent"
    wait_js(chromium, f"return {rho} && {rho} !== '—' && {GD} && {GD}.data", what="the explorer")
    return chromium


def test_the_slider_follows_the_animation_and_the_axes_hold_still(explorer):
    browser = explorer
    browser.execute_script("window.inferxAnimation.seconds = 6")
    click(browser, browser.find_element("id", "btn-animate"))
    wait_js(browser, "return window.inferxAnimation.frames >= 3", timeout=120, what="three animation frames")
    first = browser.execute_script(STATE)
    wait_js(
        browser,
        f"return window.inferxAnimation.frames >= {first['frames']} + 10"
        f" && {THUMB}.getAttribute('aria-valuenow') !== {first['now']!r}",
        timeout=120,
        what="ten more frames",
    )
    second = browser.execute_script(STATE)
    assert float(second["now"]) > float(first["now"]) and second["left"] != first["left"], (first, second)
    assert second["dot"] > first["dot"]
    # The ranges the builder fixed are the ones drawn, at both times: no rescaling per frame.
    for key in ("x", "y"):
        assert first[key] == second[key] == first["full" + key.upper()] == second["full" + key.upper()]
    wait_js(browser, "return !window.inferxAnimation.running", timeout=120, what="the sweep's end")
    # The sweep ends at the edge of the stable frontier: ρ = 0.99, past 0.85, so the utilisation readout warns;
    # the batch has its thousands separator, and the dot's limit is named beside it.
    end = browser.execute_script(
        "const rho = document.getElementById('readout-rho');"
        "return {warn: rho.parentElement.classList.contains('readout-warn'),"
        " batch: document.getElementById('batch-value').textContent,"
        " chip: document.getElementById('batch-regime').textContent, last: window.inferxAnimation.last};"
    )
    assert end["warn"] and end["chip"] == "KV-capacity-bound", end
    assert end["batch"] == f"{end['last']:,}" and end["last"] >= 1000, end
    assert severe_console_errors(browser) == []


def test_the_utilisation_label_keeps_its_greek_rho(explorer):
    """The readout labels are set in capitals by CSS; ρ must not become a Latin-looking capital P."""
    shown = explorer.execute_script(
        "return document.getElementById('readout-rho').parentElement.querySelector('.readout-label').innerText"
    )
    assert shown.endswith("ρ") and shown.startswith("UTILISATION")


def test_the_utilisation_readout_stays_in_plain_digits_and_below_one_until_the_wall(explorer):
    cases = {7.2e-7: "< 0.0001 (< 0.01 %)", 0.0012: "0.0012 (0.12 %)", 0.1234: "0.123 (12 %)",
             0.995: "0.995 (99.5 %)", 0.99991: "0.999 (99.99 %)"}  # fmt: skip
    shown = explorer.execute_script(f"return {list(cases)}.map(window.inferx.formats.rho)")
    assert dict(zip(cases, shown, strict=True)) == cases


def test_every_displayed_equation_fits_a_420_px_phone(chromium, server):
    """No caption's equation is wider than its caption at 420 px (before, Figure 10's was 766 px in 347)."""
    browser = chromium
    reset_browser(browser)
    browser.get(server.url)
    equations = "[...document.querySelectorAll('.caption mjx-container[display=\"true\"]')]"
    wait_js(browser, f"return {equations}.length === {len(registry.DASHBOARD)}", what="every equation typeset")
    browser.set_window_size(420, 800)
    wait_js(browser, "return document.documentElement.clientWidth <= 420", what="the phone width")
    wide = f"return {equations}.filter(m => m.scrollWidth > m.clientWidth + 1).map(m => m.closest('.fig-card').id);"
    try:
        wait_js(browser, f"const w = (() => {{ {wide} }})(); return w.length === 0;", timeout=60, what="the fit")
    except TimeoutError:
        pytest.fail(f"equations wider than their captions at 420 px: {browser.execute_script(wide)}")


@pytest.mark.parametrize("query", [{}, {"preset": "mi300x4"}, {"mode": "calibrated", "ctx": "4096"}])
def test_the_dot_between_samples_reads_what_the_model_gives_there(chromium, server, query):
    """During a drag the dot and readouts come from Figure 6's samples (no request): between two of them the
    point follows the model's shape (ITL linear, throughput B / ITL, TTFT · (1 − ρ) linear), not a straight
    line through the samples, which put TTFT 1.2 % and throughput 0.8 % off near B_max."""
    from urllib.parse import urlencode

    from inferx.scenario.evaluation import Scenario
    from pages._url import parse_query

    reset_browser(chromium)
    chromium.get(server.url + "embed/fig6?" + urlencode(query))
    wait_js(chromium, f"return {GD} && {GD}.data && {GD}.data[0].customdata", what="the explorer")
    batches = chromium.execute_script(f"return {GD}.data[0].customdata.map((r) => r[0]);")
    scn = Scenario.from_params(**parse_query(query)[0])
    # Midway between the samples of the top tenth of the curve, where TTFT bends up to the wall.
    between = [(a + b) // 2 for a, b in zip(batches, batches[1:], strict=False) if b - a > 1 and a > 0.6 * batches[-1]]
    assert len(between) >= 3, batches
    got = chromium.execute_script(
        f"const t = {GD}.data[0]; return arguments[0].map((b) => window.inferx.pointAt(t, b));", between
    )
    exact = scn.evaluate(between)
    for k, (p, b) in enumerate(zip(got, between, strict=True)):
        assert p["b"] == b
        assert p["x"] == pytest.approx(exact["throughput"][k], rel=2e-3), (b, "throughput")
        assert p["y"] == pytest.approx(1e3 * exact["ttft"][k], rel=2e-3), (b, "TTFT")
        assert p["itl"] == pytest.approx(1e3 * exact["itl"][k], rel=2e-3), (b, "ITL")


def test_with_reduced_motion_animate_steps_between_a_few_stops(chromium, server):
    """A reader who asks for reduced motion still gets the sweep Animate promises, as a few held stops rather
    than a glide, and no CSS transition."""
    reset_browser(chromium)
    chromium.execute_cdp_cmd(
        "Emulation.setEmulatedMedia", {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]}
    )
    try:
        chromium.get(server.url + "embed/fig6")
        wait_js(chromium, f"return {GD} && {GD}.data && {GD}.data[0].customdata", what="the explorer")
        assert chromium.execute_script("return matchMedia('(prefers-reduced-motion: reduce)').matches")
        chromium.execute_script(
            "window.inferxAnimation.seconds = 2; window.seen = new Set();"
            f"window.watch = setInterval(() => window.seen.add({GD}.data[1].x[0]), 20);"
        )
        click(chromium, chromium.find_element("id", "btn-animate"))
        wait_js(chromium, "return window.inferxAnimation.frames > 0 && !window.inferxAnimation.running;", what="end")
        seen = chromium.execute_script("clearInterval(window.watch); return window.seen.size;")
        frames = chromium.execute_script("return window.inferxAnimation.frames;")
        assert 3 <= seen <= 10 and frames <= 9, (seen, frames)  # 8 stops and the end, against ~120 glided frames
        assert chromium.execute_script("return window.inferxAnimation.last;") >= 1000  # it still reaches the wall
        thumb = chromium.execute_script(f"return getComputedStyle({THUMB}).transitionDuration;")
        assert set(thumb.replace(" ", "").split(",")) == {"0s"}, thumb
    finally:
        chromium.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})


def test_beside_a_far_larger_a_the_explorer_opens_on_log_x_and_the_sweep_keeps_it_still(chromium, server):
    """Two L40S beside 8×H200 pinned as A: on the linear axis the current frontier was a stroke against the y
    axis, under 2 % of the plot's width. The axis opens on log, fixed, where the frontier spans a good part of
    the plot; Animate moves the dot along it, and the ranges hold still frame after frame."""
    reset_browser(chromium)
    chromium.get(server.url + "embed/fig6?model=gemma-3-27b&gpu=l40s&gpus=2&tp=2&a=preset:h200x8")
    wait_js(chromium, f"return {GD} && {GD}.data && {GD}.data.length > 2 && !!{GD}._fullLayout", what="A beside it")
    drawn = chromium.execute_script(
        f"""const gd = {GD};
            const path = gd.querySelectorAll('.scatterlayer .trace')[0].querySelector('path.js-line');
            const plot = gd.querySelector('.nsewdrag').getBoundingClientRect();
            return {{type: gd._fullLayout.xaxis.type, share: path.getBoundingClientRect().width / plot.width}};"""
    )
    assert drawn["type"] == "log" and drawn["share"] > 0.3, drawn
    chromium.execute_script("window.inferxAnimation.seconds = 4")
    click(chromium, chromium.find_element("id", "btn-animate"))
    wait_js(chromium, "return window.inferxAnimation.frames >= 3", timeout=120, what="three animation frames")
    first = chromium.execute_script(STATE)
    # The dot moves when the batch does, which the sweep's first stretch changes slowly: wait for it.
    wait_js(chromium, f"return {GD}.data[1].x[0] > {first['dot']}", timeout=120, what="the dot moved right")
    second = chromium.execute_script(STATE)
    assert second["frames"] > first["frames"], (first, second)
    for key in ("x", "y"):
        assert first[key] == second[key] == first["full" + key.upper()] == second["full" + key.upper()]
    assert severe_console_errors(chromium) == []
