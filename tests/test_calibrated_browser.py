"""In calibrated mode, switching the software stack or the output length redraws with the new calibration."""

from __future__ import annotations

import pytest
from browser_checks import figure_data, wait_figure_change, wait_js
from conftest import severe_console_errors

from inferx.serving.stored import load_error_tables

pytestmark = pytest.mark.browser

LINE = "(document.getElementById('calibration-basis') || {}).textContent || ''"


def test_switching_stack_and_output_length_redraws_figure_4_in_calibrated_mode(browser, server):
    browser.get(server.url.rstrip("/") + "/embed/fig4?mode=calibrated")
    before = figure_data(browser, 4)
    assert "p10–p90" in before  # the residual band is drawn with the curve
    wait_js(browser, f"return {LINE}.includes('h200 · sglang · fp8: fitted')", what="the calibration line")

    browser.execute_script("window.dash_clientside.set_props('ctl-framework', {value: 'trt'})")
    after_stack = wait_figure_change(browser, 4, before)
    wait_js(browser, f"return {LINE}.includes('h200 · trt · fp8')", what="the line naming TensorRT-LLM")
    # and the stack's own measured error, from the stored tables
    own = next(r for r in load_error_tables()["tables"]["GPU/stack/precision"] if r["group"] == "h200/trt/fp8")
    runs = f"{own['rows']:,} InferenceX runs of this calibration"
    wait_js(browser, f"return {LINE}.includes('{runs} (h200 · trt · fp8')", what="the measured error of TRT on H200")

    browser.execute_script("window.dash_clientside.set_props('ctl-osl', {value: 13})")  # log2(8,192)
    wait_figure_change(browser, 4, after_stack)
    wait_js(browser, "return document.getElementById('ctl-osl-value').textContent === '8,192 tokens'", what="label")
    wait_js(browser, "return location.search.includes('osl=8192') && location.search.includes('framework=trt')",
            what="stack and output length in the address")  # fmt: skip
    assert severe_console_errors(browser) == []


def test_the_fitted_button_gives_the_acceptance_back_to_the_calibration(browser, server):
    browser.get(server.url.rstrip("/") + "/embed/fig4?mode=calibrated&mtp=on&acceptance=90")
    wait_js(browser, f"return {LINE}.includes('α 90% (set)')", what="the line with the acceptance set")
    wait_js(browser, "return document.getElementById('ctl-acceptance-value').textContent === '90 %'", what="label")
    before = figure_data(browser, 4)

    browser.execute_script("document.getElementById('ctl-acceptance-reset').click()")
    wait_figure_change(browser, 4, before)  # the fitted α (below 90 %) redraws the curve
    wait_js(browser, f'return {LINE}.includes("(the calibration\'s)")', what="the line back on the fitted α")
    wait_js(browser, "return document.getElementById('ctl-acceptance-value').textContent === 'fitted'", what="label")
    wait_js(browser, "return !location.search.includes('acceptance') && location.search.includes('mtp=on')",
            what="the address without the acceptance")  # fmt: skip
    assert severe_console_errors(browser) == []


NOTE = (
    "const label = document.querySelector(`label[for=${arguments[0]}]`);"
    "return label ? getComputedStyle(label, '::after').content : null;"
)


def test_controls_the_article_model_does_not_read_say_so_in_article_mode_only(browser, server):
    """Under Article physics, the stack, MTP and acceptance carry "read in calibrated mode only" under their labels
    (moving them changes nothing there); the output length, which Figure 12 reads, does not."""
    browser.get(server.url.rstrip("/") + "/")
    said = '"read in calibrated mode only"'
    for name in ("ctl-framework", "ctl-mtp", "ctl-acceptance"):
        shown = f"const c = (() => {{ {NOTE} }})(); return c !== null && c !== 'none' && c;"
        assert wait_js(browser, shown, args=(name,), what=f"{name}'s note") == said
    assert browser.execute_script(NOTE, "ctl-osl") == "none"
    assert browser.execute_script(NOTE, "ctl-cv") == "none"
    browser.execute_script("window.dash_clientside.set_props('ctl-mode', {value: 'calibrated'})")
    wait_js(browser, f"const c = (() => {{ {NOTE} }})(); return c === 'none';", args=("ctl-mtp",), what="no note")
    # The other way round: the calibrated model does not read the output length's CV.
    assert browser.execute_script(NOTE, "ctl-cv") == '"read in article mode only"'
    assert severe_console_errors(browser) == []
