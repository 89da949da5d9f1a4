"""The expert-parallel and attention-data-parallel switches in real headless Chromium: a switch redraws the
frontiers and the address carries it; on a dense model the note under them says that EP has no effect."""

from __future__ import annotations

import pytest
from browser_checks import click, element, figure_data, wait_figure_change
from conftest import severe_console_errors

from benchmarks.chromium import wait_js

pytestmark = pytest.mark.browser

NOTE = "return document.getElementById('layout-note').textContent;"


def test_attention_dp_redraws_and_goes_in_the_address(browser, server):
    browser.get(server.url)
    before = figure_data(browser, 4)
    assert browser.execute_script(NOTE) == ""
    click(browser, element(browser, "#ctl-dp input[value='1']"))
    wait_js(browser, "return new URLSearchParams(location.search).get('dp') === '1';", what="dp=1 in the address")
    after = wait_figure_change(browser, 4, before)
    assert after != before
    # Its name and value are the radio's own words; the control's title says what it does.
    box = element(browser, "#ctl-dp").find_element("xpath", "..")
    assert "Attention data parallelism" in box.text and "On" in box.text
    assert "KV cache" in box.get_attribute("title")
    click(browser, element(browser, "#ctl-dp input[value='0']"))
    wait_js(browser, "return !new URLSearchParams(location.search).has('dp');", what="dp gone from the address")
    wait_figure_change(browser, 4, after)
    assert severe_console_errors(browser) == []


def test_expert_parallelism_on_a_dense_model_says_it_has_no_effect(browser, server):
    browser.get(f"{server.url}?model=llama-3.3-70b")
    figure_data(browser, 4)
    click(browser, element(browser, "#ctl-ep input[value='1']"))
    wait_js(browser, "return new URLSearchParams(location.search).get('ep') === '1';", what="ep=1 in the address")
    wait_js(browser, f"{NOTE.removesuffix(';')}.includes('is dense');", what="the note under the switches")
    assert "no effect" in browser.execute_script(NOTE)
    # The switches are described by that note (assets/a11y.js: data-note), as the machine's are by theirs.
    radios = browser.execute_script("return [...document.querySelectorAll('#ctl-ep input, #ctl-dp input')]"
                                    ".map(r => r.getAttribute('aria-describedby'));")  # fmt: skip
    assert radios == ["layout-note"] * 4
    assert severe_console_errors(browser) == []
