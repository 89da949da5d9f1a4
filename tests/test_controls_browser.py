"""The workload, throughput unit and machine picker in real headless Chromium: a named workload moves the
input, output and context sliders and the address; every throughput axis and the explorer's readout say per
instance or per GPU and follow the switch; a GPU and count that are one of the article's machines select its
shortcut."""

from __future__ import annotations

import pytest
from browser_checks import click, element, figure_data
from conftest import severe_console_errors

from benchmarks.chromium import wait_js

pytestmark = pytest.mark.browser

TITLE = "const gd = document.querySelector(`#fig-${arguments[0]} .js-plotly-plot`); return gd && gd.layout && " \
        "gd.layout.xaxis.title.text;"  # fmt: skip


def label(browser, name: str) -> str:
    return browser.execute_script(f"return document.getElementById('ctl-{name}-value').textContent;")


def test_choosing_8k1k_sets_the_sliders_and_the_address(browser, server):
    browser.get(server.url)
    figure_data(browser, 4)
    click(browser, element(browser, "#ctl-workload input[value='8k1k']"))
    wait_js(browser, "return document.getElementById('ctl-isl-value').textContent === '8,192 tokens';",
            what="the input length slider at 8,192 tokens")  # fmt: skip
    assert label(browser, "osl") == "1,024 tokens"
    assert label(browser, "ctx") == "8,704 tokens"  # isl + osl/2, the mean KV length of a decode
    wait_js(browser, "return new URLSearchParams(location.search).get('workload') === '8k1k';", what="the address")
    query = dict(browser.execute_script("return [...new URLSearchParams(location.search)]"))
    assert not {"isl", "osl", "ctx"} & set(query), query  # the workload says them
    # An input length moved by hand makes the workload custom, and the address then names the lengths.
    browser.execute_script("window.dash_clientside.set_props('ctl-isl', {value: 12})")  # log2(4,096)
    wait_js(browser, "return document.querySelector('#ctl-workload input[value=custom]').checked;",
            what="the workload back to custom")  # fmt: skip
    wait_js(browser, "return new URLSearchParams(location.search).get('isl') === '4096';", what="the address")
    assert severe_console_errors(browser) == []


def test_throughput_axes_say_their_unit_and_follow_the_switch(browser, server):
    browser.get(server.url)
    figure_data(browser, 4)
    assert browser.execute_script(TITLE, 4) == "Output throughput per instance (8\u00a0GPUs) (tok/s)"
    wait_js(browser, "return document.getElementById('readout-throughput').textContent.endsWith('tok/s per instance');",
            what="the explorer's readout per instance")  # fmt: skip
    click(browser, element(browser, "#ctl-tput input[value='gpu']"))
    per_gpu = "const gd = document.querySelector('#fig-4 .js-plotly-plot');" \
              "return gd.layout.xaxis.title.text === 'Output throughput per GPU (tok/s)';"  # fmt: skip
    wait_js(browser, per_gpu, what="Figure 4's axis per GPU")
    wait_js(browser, "return document.getElementById('readout-throughput').textContent.endsWith('tok/s per GPU');",
            what="the explorer's readout per GPU")  # fmt: skip
    wait_js(browser, "return new URLSearchParams(location.search).get('tput') === 'gpu';", what="the address")
    assert severe_console_errors(browser) == []


def test_a_gpu_and_count_of_an_article_machine_select_its_shortcut(browser, server):
    browser.get(server.url)
    figure_data(browser, 4)
    browser.execute_script("window.dash_clientside.set_props('ctl-gpu', {value: 'b200'})")
    wait_js(browser, "return new URLSearchParams(location.search).get('preset') === 'b200x8';",
            what="the 8×B200 shortcut in the address")  # fmt: skip
    query = dict(browser.execute_script("return [...new URLSearchParams(location.search)]"))
    assert query == {"preset": "b200x8", "batch": "8"}, query  # one machine: nothing else to say
    wait_js(browser, "return document.getElementById('machine-note').textContent === '';", what="no machine note")
    assert severe_console_errors(browser) == []


MENU_SHOWS = "const m = document.querySelector('#ctl-preset'); return !!m && m.textContent.includes(arguments[0]);"


def test_a_machine_no_shortcut_names_shows_custom_and_a_shortcut_brings_its_machine_back(browser, server):
    """8×MI300X is none of the article's machines (4×MI300X is): the menu said 8×H200, the last shortcut, under a
    note. It says Custom, the address carries preset=custom and the machine's parts, and a shortcut picked again
    restores it."""
    browser.get(server.url)
    figure_data(browser, 4)
    browser.execute_script("window.dash_clientside.set_props('ctl-gpu', {value: 'mi300x'})")
    wait_js(browser, MENU_SHOWS, args=("Custom",), what="the menu at Custom")
    wait_js(browser, "return new URLSearchParams(location.search).get('preset') === 'custom';", what="the address")
    query = dict(browser.execute_script("return [...new URLSearchParams(location.search)]"))
    assert query["gpu"] == "mi300x", query
    assert "MI300X" in browser.execute_script("return document.getElementById('machine-note').textContent;")
    # The address opens on the same custom machine.
    browser.get(browser.current_url)
    figure_data(browser, 4)
    wait_js(browser, MENU_SHOWS, args=("Custom",), what="the menu at Custom after reloading")
    assert "MI300X" in browser.execute_script("return document.getElementById('machine-note').textContent;")
    # A shortcut picked again: its machine, its name, no note.
    browser.execute_script("window.dash_clientside.set_props('ctl-preset', {value: 'h200x8'})")
    wait_js(browser, MENU_SHOWS, args=("8×H200",), what="the menu at 8×H200")
    wait_js(browser, "return new URLSearchParams(location.search).get('preset') === 'h200x8';", what="the address")
    wait_js(browser, "return document.getElementById('machine-note').textContent === '';", what="no machine note")
    query = dict(browser.execute_script("return [...new URLSearchParams(location.search)]"))
    assert "gpu" not in query and "gpus" not in query, query
    assert severe_console_errors(browser) == []
