"""The log2 hardware sliders in real Chromium: the default 8×H200 sits mid-slider with its value in its unit, an
arrow key moves bandwidth by a few per cent, a pointer drag still redraws Figure 1 at the value under the
pointer, an odd address value survives the page, the browser turns positions into values as the server does,
and a GPU count chosen by hand sets TP."""

from __future__ import annotations

import math

import pytest
from browser_checks import Mouse, element, wait_js
from conftest import reset_browser, severe_console_errors
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from inferx.scenario.controls import PARAMS, decimals, value_at
from inferx.scenario.machines import datasheet_values, preset_values
from pages._controls import MACHINE_NOTE_ID, format_slider_value
from pages._ids import control_id, value_id

pytestmark = pytest.mark.browser

QUANTITIES = ("bw", "compute", "hbm")
FIG1 = "document.querySelector('#fig-1 .js-plotly-plot')"
# Figure 1 shows bandwidth arguments[0] (TB/s): its memory-bound slope at B = 1 is BW / (P_active·b_w) = BW / 37 GB.
DRAWN = f"Math.abs({FIG1}.data[0].y[0] / (arguments[0] * 1e12 / 37e9) - 1) < 1e-3"
SHOWS = f"return {DRAWN} && !window.inferxRedraws.inFlight;"

# A slider's thumb, where it sits along the track (0 to 1), what it says, and its marks' texts and boxes.
SLIDER_JS = """
const host = document.getElementById(arguments[0]);
const thumb = host.querySelector('[role=slider]'), track = host.querySelector('.dash-slider-root');
const r = track.getBoundingClientRect(), t = thumb.getBoundingClientRect();
const marks = [...host.querySelectorAll('.dash-slider-mark')].map((m) => {
  const b = m.getBoundingClientRect();
  return {text: m.textContent, left: b.left, right: b.right, width: b.width};
});
return {at: (t.left + t.width / 2 - r.left) / r.width, now: Number(thumb.getAttribute('aria-valuenow')),
        text: thumb.getAttribute('aria-valuetext'), marks};
"""


@pytest.fixture
def top(chromium, server):
    """`/` at the 8×H200 defaults with Figure 1 drawn, scrolled to the top."""
    reset_browser(chromium)
    chromium.get(server.url)
    wait_js(chromium, f"return ({FIG1} || {{}}).data && {FIG1}.data.length > 0;", what="Figure 1 drawn")
    for name in QUANTITIES:
        element(chromium, f"#{control_id(name)} .dash-slider-mark")
    chromium.execute_script("window.scrollTo({top: 0, behavior: 'instant'})")
    return chromium


def slider(browser, name: str) -> dict:
    return browser.execute_script(SLIDER_JS, control_id(name))


def label(browser, name: str) -> str:
    return browser.execute_script("return document.getElementById(arguments[0]).textContent", value_id(name))


def bandwidth(browser) -> float:
    """The bandwidth the thumb stands for, as the server reads its position."""
    return value_at(PARAMS["bw"], slider(browser, "bw")["now"])


def test_the_default_machine_sits_mid_slider_and_says_its_value_in_units(top):
    browser = top
    defaults = preset_values("h200x8")
    for name in QUANTITIES:
        state = slider(browser, name)
        # On the old linear scales 8×H200 stood at 6 % (bandwidth), 3 % (compute) and 5 % (HBM).
        assert 0.3 < state["at"] < 0.7, (name, state["at"])
        shown = format_slider_value(name, defaults[name])  # "38.4 TB/s", "31.66 PFLOPS", "1,128 GB"
        assert state["text"] == shown and label(browser, name) == shown, (name, state["text"])
        assert shown.endswith(f" {PARAMS[name].unit}")
        # The marks are readable: values (1, 3, 10, … TB/s), each clear of its neighbours.
        texts = [m["text"] for m in state["marks"]]
        assert len(texts) >= 5 and all(t.rstrip("K").replace(".", "").isdigit() for t in texts), texts
        boxes = sorted(state["marks"], key=lambda m: m["left"])
        assert all(a["right"] + 2 <= b["left"] for a, b in zip(boxes, boxes[1:], strict=False)), boxes
    assert severe_console_errors(browser) == []


def test_an_arrow_key_moves_bandwidth_by_a_small_factor_and_redraws_figure_1(top):
    browser = top
    thumb = element(browser, f"#{control_id('bw')} [role=slider]")
    browser.execute_script("arguments[0].focus();", thumb)
    before = bandwidth(browser)
    values = [before]
    moved = "return Number(arguments[0].getAttribute('aria-valuenow')) !== arguments[1];"
    for key in (Keys.ARROW_RIGHT, Keys.ARROW_RIGHT, Keys.ARROW_LEFT):
        was = slider(browser, "bw")["now"]
        ActionChains(browser).send_keys(key).perform()
        wait_js(browser, moved, args=(thumb, was), what=f"the bandwidth to move on {key!r}")
        values.append(bandwidth(browser))
    ratios = [b / a for a, b in zip(values, values[1:], strict=False)]
    # 38.4 → 39.4 (the next tenth of a doubling) → 42.2 → 39.4 TB/s: a few per cent a press, not 6 TB/s.
    assert 1 < ratios[0] < 1.08 and 1.06 < ratios[1] < 1.08 and 0.92 < ratios[2] < 0.95, values
    now = values[-1]
    assert slider(browser, "bw")["text"] == format_slider_value("bw", now) == label(browser, "bw")
    assert label(browser, "bw").endswith(" TB/s")
    wait_js(browser, SHOWS, args=(now,), what=f"Figure 1 at {now} TB/s")
    wait_js(browser, "return new URLSearchParams(location.search).get('bw') === arguments[0];", args=(f"{now:g}",))
    # PageUp moves ten arrows' worth: past the next doubling's mark.
    ActionChains(browser).send_keys(Keys.PAGE_UP).perform()
    wait_js(browser, "return Number(arguments[0].getAttribute('aria-valuenow')) >= 6;", args=(thumb,), what="PageUp")
    assert bandwidth(browser) / now > 1.4
    assert severe_console_errors(browser) == []


def test_a_pointer_drag_redraws_figure_1_at_the_value_under_the_pointer(top):
    browser = top
    wait_js(browser, "return !window.inferxRedraws.inFlight && !(window.inferxDrag || {}).inFlight;")
    start = bandwidth(browser)
    mouse = Mouse(browser, control_id("bw"))
    mouse.press()
    try:
        seen = []
        for _ in range(3):
            mouse.move(12)
            now = bandwidth(browser)
            wait_js(browser, f"return {DRAWN};", args=(now,),
                    what=f"Figure 1 at {now} TB/s during the drag")  # fmt: skip
            assert label(browser, "bw") == format_slider_value("bw", now)
            seen.append(now)
    finally:
        mouse.release()
    assert len(set(seen)) == 3 and start < seen[0] < seen[-1] < 4 * start, (start, seen)
    # A dragged value is rounded as it is shown (0.1 TB/s here), and the address carries it so.
    last = seen[-1]
    assert last == round(last, decimals(PARAMS["bw"], last))
    wait_js(browser, SHOWS, args=(last,), what="Figure 1 after the release")
    wait_js(browser, "return new URLSearchParams(location.search).get('bw') === arguments[0];", args=(f"{last:g}",))
    assert severe_console_errors(browser) == []


def test_the_browser_reads_a_position_as_the_server_does(top):
    """assets/inferx.js `fromPosition` and `shownDecimals` against inferx.scenario `value_at` and `decimals`:
    the drag grid, arrow-key positions, the ends, and positions of odd values (what an address puts there)."""
    browser = top
    cases = []
    for name in QUANTITIES:
        p = PARAMS[name]
        low, high = math.log2(p.low), math.log2(p.high)
        grid = [round(low + k * (high - low) / 97, 2) for k in range(1, 97)]  # drag positions (the step's grid)
        keys = [round(k * 0.1, 9) for k in range(math.ceil(low / 0.1), math.floor(high / 0.1) + 1)]
        odd = [math.log2(v) for v in (p.low * 1.0123, 38.45, 123.456, 999.99, p.high * 0.987) if p.low <= v <= p.high]
        cases += [(name, pos) for pos in [low, high, *grid, *keys, *odd]]
    got = browser.execute_script(
        "return arguments[0].map(([name, pos]) => { const v = window.inferx.controlValue(name, pos);"
        " const cfg = window.dash_component_api.getLayout('ui-config').props.data;"
        " return [v, window.inferx.shownDecimals(v, cfg.sliders[name][1])]; });",
        cases,
    )
    expected = [[value_at(PARAMS[n], pos), decimals(PARAMS[n], value_at(PARAMS[n], pos))] for n, pos in cases]
    mismatches = [(c, g, e) for c, g, e in zip(cases, got, expected, strict=True) if g != e]
    assert mismatches == [], mismatches[:5]


def test_an_odd_address_value_stays_as_given(browser, server):
    browser.get(server.url + "embed/fig1?bw=38.45&compute=12.345&hbm=1128.5")
    wait_js(browser, f"return ({FIG1} || {{}}).data && {FIG1}.data.length > 0;", what="Figure 1 drawn")
    assert browser.execute_script(SHOWS, 38.45)
    # Another control moves: the address is written again, with the three values as they came.
    browser.execute_script("window.dash_clientside.set_props(arguments[0], {value: 90})", control_id("util"))
    wait_js(browser, "return location.search.includes('util=90');", what="the address rewritten")
    query = browser.execute_script("return Object.fromEntries(new URLSearchParams(location.search))")
    assert (query["bw"], query["compute"], query["hbm"]) == ("38.45", "12.345", "1128.5"), query
    assert label(browser, "bw") == format_slider_value("bw", 38.45)
    assert severe_console_errors(browser) == []


def test_a_gpu_count_chosen_by_hand_sets_tp_and_the_machine(browser, server):
    browser.get(server.url + "embed/fig8")
    wait_js(browser, "return (document.querySelector('#fig-8 .js-plotly-plot') || {}).data;", what="Figure 8")
    tp = "return window.dash_component_api.getLayout(arguments[0]).props.value"
    assert browser.execute_script(tp, control_id("tp")) == 8
    browser.execute_script("window.dash_clientside.set_props(arguments[0], {value: 4})", control_id("gpus"))
    wait_js(browser, f"{tp} === 4;", args=(control_id("tp"),), what="TP lowered to the 4 GPUs")
    hbm = "return document.getElementById(arguments[0]).textContent === arguments[1];"
    wait_js(browser, hbm, args=(value_id("hbm"), "564 GB"), what="HBM of 4 × H200")
    # The address leaves out the TP the count gives, so a count edited in a copied link sets TP again.
    wait_js(browser, "return location.search.includes('gpus=4');", what="the count in the address")
    assert "tp=" not in browser.execute_script("return location.search")
    # More GPUs: TP the largest power of two within them, as the server's machine_tp (one machine, one TP).
    browser.execute_script("window.dash_clientside.set_props(arguments[0], {value: 72})", control_id("gpus"))
    wait_js(browser, hbm, args=(value_id("hbm"), "10,152 GB"), what="HBM of 72 × H200")
    wait_js(browser, f"{tp} === 64;", args=(control_id("tp"),), what="TP 64 within the 72 GPUs")
    assert severe_console_errors(browser) == []


def test_the_address_leaves_out_what_the_gpu_and_count_give(browser, server):
    """6 × B200 sets bandwidth, compute and HBM from the catalog; the address keeps only gpu and gpus, so a
    reader who edits the GPU in a copied link gets that GPU's numbers, not the old ones written in. A value
    moved away from the machine's is written."""
    browser.get(server.url + "embed/fig1?gpu=b200&gpus=6")
    wait_js(browser, "return (document.querySelector('#fig-1 .js-plotly-plot') || {}).data;", what="Figure 1")
    browser.execute_script("window.dash_clientside.set_props(arguments[0], {value: 2})", control_id("tp"))
    wait_js(browser, "return location.search.includes('tp=2');", what="the address written")
    query = browser.execute_script("return location.search")
    assert "gpu=b200" in query and "gpus=6" in query, query
    assert not any(f"{name}=" in query for name in ("bw", "compute", "hbm")), query
    browser.execute_script("window.dash_clientside.set_props(arguments[0], {value: Math.log2(20)})", control_id("bw"))
    wait_js(browser, "return location.search.includes('bw=20');", what="a bandwidth of one's own in the address")
    assert severe_console_errors(browser) == []


def test_a_weight_format_chosen_after_the_gpu_sets_its_compute_as_before_it_does(browser, server):
    """6 × B200 chosen by hand, then FP4: compute is the B200's FP4 peak times 6, what the address (which leaves
    compute out) gives back; back on the preset's own machine a format change keeps the preset's compute."""
    browser.get(server.url + "embed/fig1?gpu=b200&gpus=6")
    wait_js(browser, "return (document.querySelector('#fig-1 .js-plotly-plot') || {}).data;", what="Figure 1")
    shows = "return document.getElementById(arguments[0]).textContent === arguments[1];"
    fp8 = format_slider_value("compute", datasheet_values("b200", 6, "fp8")["compute"])
    fp4 = format_slider_value("compute", datasheet_values("b200", 6, "fp4")["compute"])
    assert fp8 != fp4 and browser.execute_script(shows, value_id("compute"), fp8)
    pick = "window.dash_clientside.set_props(arguments[0], {value: arguments[1]})"
    browser.execute_script(pick, control_id("wdtype"), "fp4")
    wait_js(browser, shows, args=(value_id("compute"), fp4), what="the B200's FP4 compute × 6")
    wait_js(browser, "return location.search.includes('wdtype=fp4');", what="the format in the address")
    assert "compute=" not in browser.execute_script("return location.search")
    # The preset's machine again: its compute, which a format change leaves alone.
    browser.execute_script(pick, control_id("gpu"), "h200")
    browser.execute_script(pick, control_id("gpus"), 8)
    article = format_slider_value("compute", preset_values("h200x8")["compute"])
    wait_js(browser, shows, args=(value_id("compute"), article), what="the preset's compute")
    browser.execute_script(pick, control_id("wdtype"), "fp8")
    wait_js(browser, "return location.search.includes('wdtype=') === false;", what="the preset's format")
    assert browser.execute_script(shows, value_id("compute"), article)
    assert severe_console_errors(browser) == []


def test_a_gpu_chosen_by_hand_takes_its_default_link_and_an_article_machine_its_shortcut(browser, server):
    """An address naming B200 (8 of them, the 8×H200 preset's count) is the article's 8×B200: its shortcut, its
    NVLink 4.0, no note. An L40S picked then communicates over its own PCIe link (ic=scale-up, its default, so
    the address need not say it), and the note names the machine no shortcut names; the H200 picked again gives
    back the 8×H200 shortcut and its NVLink 4.0."""
    browser.get(server.url + "embed/fig8?gpu=b200")
    wait_js(browser, "return (document.querySelector('#fig-8 .js-plotly-plot') || {}).data;", what="Figure 8")
    ic = "return window.dash_component_api.getLayout(arguments[0]).props.value"
    assert browser.execute_script(ic, control_id("ic")) == "nvlink"
    assert browser.execute_script(ic, control_id("preset")) == "b200x8"
    note = f"return document.getElementById('{MACHINE_NOTE_ID}').textContent === arguments[0];"
    assert browser.execute_script(note, "")
    pick = "window.dash_clientside.set_props(arguments[0], {value: arguments[1]})"
    browser.execute_script(pick, control_id("gpu"), "l40s")
    wait_js(browser, f"{ic} === 'scale-up';", args=(control_id("ic"),), what="the L40S's own link")
    wait_js(browser, "return location.search.includes('gpu=l40s') && !location.search.includes('ic=');",
            what="the GPU in the address, its default link left out")  # fmt: skip
    wait_js(browser, note, args=("Drawing 8×L40S over PCIe Gen4 x16 (L40S), a machine no shortcut names.",))
    browser.execute_script(pick, control_id("gpu"), "h200")
    wait_js(browser, f"{ic} === 'nvlink';", args=(control_id("ic"),), what="the article's link again")
    wait_js(browser, f"{ic} === 'h200x8';", args=(control_id("preset"),), what="the 8×H200 shortcut")
    wait_js(browser, "return !location.search.includes('ic=') && !location.search.includes('gpu=');",
            what="the shortcut alone in the address")  # fmt: skip
    wait_js(browser, note, args=("",), what="no note on the shortcut's machine")
    assert severe_console_errors(browser) == []
