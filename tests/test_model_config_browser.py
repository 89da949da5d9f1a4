"""A model from a config.json and a GPU from a datasheet, served: INFERX_MODELS and INFERX_GPUS on gunicorn, the
page, its embed and a redraw in Chromium."""

from __future__ import annotations

import json

import pytest
from browser_checks import element, figure_data, press_slider, wait_figure_change, wait_js
from conftest import Server, severe_console_errors
from selenium.webdriver.common.keys import Keys
from test_gpu_spec import GAUDI3
from test_gpu_spec import catalog as gpu_catalog  # noqa: F401 (the fixture puts the GPU catalog back)
from test_model_config import MIXTRAL, catalog  # noqa: F401 (the fixture puts the catalog back)

from inferx.data.user_gpus import add_gpu_specs
from inferx.data.user_models import add_model_configs
from inferx.figures import registry
from inferx.physics.gpu_spec import spec_key
from inferx.physics.model_config import config_key
from inferx.scenario.evaluation import Scenario
from pages._ids import control_id, value_id

pytestmark = pytest.mark.browser

QUERY = "model=mixtral-8x7b-v0.1&gpu=h100&gpus=2"


@pytest.fixture(scope="module")
def with_mixtral():
    srv = Server(env={"INFERX_MODELS": str(MIXTRAL), "INFERX_GPUS": str(GAUDI3)})
    yield srv
    srv.stop()


def trace_names(data: str) -> list[str]:
    return [name for name, _, _ in json.loads(data)]


def test_a_model_from_inferx_models_is_drawn_and_redrawn(with_mixtral, browser, catalog):  # noqa: F811
    (key,) = add_model_configs([MIXTRAL])  # the same model in this process, for the numbers to expect
    expected = registry.build(Scenario.from_params(model=key, gpu="h100", gpus=2), ["fig2"])["fig2"]

    browser.get(with_mixtral.url + "embed/fig2?" + QUERY)
    drawn = figure_data(browser, 2)
    assert trace_names(drawn) == [t.get("name") for t in expected["data"]]  # its B_max in the legend
    line = element(browser, "#embed-scenario").text
    assert "2×H100 SXM" in line and "Mixtral-8x7B-v0.1" in line, line

    browser.get(with_mixtral.url + "?" + QUERY)
    before = figure_data(browser, 2)
    menu = element(browser, f"#{control_id('model')}")
    wait_js(browser, "return arguments[0].textContent.includes('Mixtral-8x7B-v0.1')", what="the menu", args=(menu,))
    press_slider(browser, control_id("ctx"), Keys.ARROW_RIGHT)  # a redraw: the worker checks the model's key
    wait_figure_change(browser, 2, before)
    assert not browser.find_elements("id", "runtime-notice")  # the alert is drawn only when it has something to say
    assert severe_console_errors(browser) == []


def test_a_gpu_from_inferx_gpus_is_a_choice_and_sets_the_machine(with_mixtral, browser, gpu_catalog):  # noqa: F811
    (key,) = add_gpu_specs([GAUDI3])
    expected = registry.build(Scenario.from_params(gpu=key, gpus=6), ["fig2"])["fig2"]
    browser.get(with_mixtral.url + "?gpu=gaudi3&gpus=6")  # 768 GB: DeepSeek-R1's 671 GB of weights fit
    assert trace_names(figure_data(browser, 2)) == [t.get("name") for t in expected["data"]]
    menu = element(browser, f"#{control_id('gpu')}")
    wait_js(browser, "return arguments[0].textContent.includes('Gaudi 3 OAM')", what="the GPU menu", args=(menu,))
    shows = "return document.getElementById(arguments[0]).textContent === arguments[1];"
    wait_js(browser, shows, args=(value_id("bw"), "22.2 TB/s"), what="6 × 3.7 TB/s")
    # The browser sets the machine from the GPU's numbers as the count moves, as for a catalog GPU.
    browser.execute_script("window.dash_clientside.set_props(arguments[0], {value: 8})", control_id("gpus"))
    wait_js(browser, shows, args=(value_id("hbm"), "1,024 GB"), what="HBM of 8 × Gaudi 3")
    wait_js(browser, shows, args=(value_id("bw"), "29.6 TB/s"), what="bandwidth of 8 × Gaudi 3")
    assert severe_console_errors(browser) == []


def test_a_config_json_chosen_in_the_browser_becomes_the_model(server, browser, tmp_path):
    browser.get(server.url)
    before = figure_data(browser, 2)
    upload = element(browser, "#model-upload input[type=file]")
    upload.send_keys(str(MIXTRAL))  # what choosing the file in the dialog does
    after = wait_figure_change(browser, 2, before)
    key = config_key(json.loads(MIXTRAL.read_text()), "mixtral 46.7B")  # a bare config.json: kind and size
    names = trace_names(after)
    assert names == [t.get("name") for t in registry.build(Scenario.from_params(model=key), ["fig2"])["fig2"]["data"]]
    note = element(browser, "#model-upload-note").text
    expected = "mixtral 46.7B: 46.7 billion parameters, 12.7 billion read per token (2 of 8 experts a token)"
    assert note.startswith(expected), note
    assert f"model={key}" in browser.current_url.replace("%7E", "~")
    # The address holds the model: opened afresh (a colleague's browser), the page draws it again.
    browser.get(browser.current_url)
    assert trace_names(figure_data(browser, 2)) == names
    menu = element(browser, f"#{control_id('model')}")
    wait_js(browser, "return arguments[0].textContent.includes('mixtral 46.7B (config.json)')", args=(menu,))
    # A JSON file that is not a model's config leaves the model alone and says why.
    bad = tmp_path / "tokenizer_config.json"
    bad.write_text('{"model_max_length": 4096}')
    upload = element(browser, "#model-upload input[type=file]")
    upload.send_keys(str(bad))
    wait_js(browser, "return document.getElementById('model-upload-note').textContent.includes('Could not read')", 120)
    assert trace_names(figure_data(browser, 2)) == names
    assert severe_console_errors(browser) == []


def test_a_gpu_datasheet_chosen_in_the_browser_becomes_the_gpu(server, browser, tmp_path):
    browser.get(server.url)  # 8 × H200; 8 × Gaudi 3 holds DeepSeek-R1 as well
    before = figure_data(browser, 2)
    upload = element(browser, "#gpu-upload input[type=file]")
    upload.send_keys(str(GAUDI3))
    key = spec_key(json.loads(GAUDI3.read_text()))
    shows = "return document.getElementById(arguments[0]).textContent === arguments[1];"
    # The menu's change sets the machine from the datasheet and the count, in the browser, as for a catalog GPU.
    wait_js(browser, shows, args=(value_id("bw"), "29.6 TB/s"), what="8 × 3.7 TB/s")
    wait_js(browser, shows, args=(value_id("hbm"), "1,024 GB"), what="8 × 128 GB")
    after = wait_figure_change(browser, 2, before)
    expected = registry.build(Scenario.from_params(gpu=key, gpus=8), ["fig2"])["fig2"]
    assert trace_names(after) == [t.get("name") for t in expected["data"]]
    note = element(browser, "#gpu-upload-note").text
    assert note.startswith("Gaudi 3 OAM: 128 GB of HBM at 3.7 TB/s, 1,835 TFLOPS BF16 and 1,835 TFLOPS FP8"), note
    assert "$2.00/GPU-hour (assumed)" in note
    wait_js(browser, "return location.href.replace(/%7E/gi, '~').includes(arguments[0])", args=(f"gpu={key}",))
    # The address holds the GPU: opened afresh, the page draws it, names it, and still scales it with the count.
    browser.get(browser.current_url)
    assert trace_names(figure_data(browser, 2)) == trace_names(after)
    menu = element(browser, f"#{control_id('gpu')}")
    wait_js(browser, "return arguments[0].textContent.includes('Gaudi 3 OAM (datasheet)')", args=(menu,))
    browser.execute_script("window.dash_clientside.set_props(arguments[0], {value: 6})", control_id("gpus"))
    wait_js(browser, shows, args=(value_id("hbm"), "768 GB"), what="6 × 128 GB")
    wait_js(browser, shows, args=(value_id("bw"), "22.2 TB/s"), what="6 × 3.7 TB/s")
    # A file that is not a datasheet leaves the GPU alone and says why.
    bad = tmp_path / "gpu.json"
    bad.write_text('{"name": "X", "hbm_gb": 141e9}')
    element(browser, "#gpu-upload input[type=file]").send_keys(str(bad))
    wait_js(browser, "return document.getElementById('gpu-upload-note').textContent.includes('Could not read')", 120)
    assert "Could not read gpu.json: hbm_tb_s is missing" in element(browser, "#gpu-upload-note").text
    wait_js(browser, shows, args=(value_id("bw"), "22.2 TB/s"), what="the GPU kept")
    assert severe_console_errors(browser) == []


def test_a_file_the_drop_zone_refuses_by_itself_is_said_to_be_refused(server, browser, tmp_path):
    """A file past a zone's size limit, or not of its type, is dropped by the browser's drop zone before any
    request: the page said nothing at all. Each zone now says why, where the server's refusals go."""
    browser.get(server.url)
    table = tmp_path / "runs.csv"
    table.write_text("a,b\n1,2\n")
    big = tmp_path / "big_gpu.json"  # a datasheet the server would take, padded past the zone's 64 KiB
    big.write_text(json.dumps({**json.loads(GAUDI3.read_text()), "padding": "x" * 70_000}))
    binary = tmp_path / "trace.bin"
    binary.write_bytes(b"\x00\x01")
    too_big = "the file is 69 KiB; at most 64 KiB is accepted"
    cases = (
        ("model-upload", table, "model-upload-note", "Could not read runs.csv: not a .json file."),
        ("gpu-upload", big, "gpu-upload-note", f"Could not read big_gpu.json: {too_big}."),
        ("measured-upload", binary, "measured-alert", "Could not load trace.bin: not a .csv or .json file."),
    )
    said = "return document.getElementById(arguments[0]).textContent;"
    for zone, path, note, expected in cases:
        element(browser, f"#{zone} input[type=file]").send_keys(str(path))
        wait_js(browser, f"return ({said[7:-1]}).includes('Could not');", args=(note,), what=f"{zone}'s refusal")
        assert " ".join(browser.execute_script(said, note).split()) == expected
    assert severe_console_errors(browser) == []
