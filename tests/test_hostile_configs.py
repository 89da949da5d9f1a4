"""Hostile model configs, GPU datasheets, carried keys and pinned scenarios: each gets a sentence, none a 500 or a
traceback. The cases are those a robustness pass found past the fuzz tests (JSON nested thousands deep, a field
of the wrong shape, values that are valid one by one but not together)."""

from __future__ import annotations

import base64
import json
import zlib

import pytest
from test_gpu_spec import catalog, record  # noqa: F401 (the fixture restores the GPU catalog)
from test_model_config import config, data_url

import app  # noqa: F401 (pages register themselves on the app)
from inferx import cli
from inferx.data import fetch
from inferx.data.user_files import read_json_file
from inferx.data.user_gpus import gpu_from_upload
from inferx.data.user_models import model_from_upload
from inferx.physics.gpu_spec import GpuSpecError, gpu_from_spec, spec_key
from inferx.physics.model_config import ModelConfigError, spec_from_config
from inferx.scenario.controls import PARAMS, InvalidParameter, check_param
from inferx.scenario.evaluation import Scenario
from pages import home
from pages._url import parse_pinned

DEEP = b"[" * 20_000 + b"]" * 20_000


def deep_key(fmt: str) -> str:
    """A carried key (name~fmt payload) whose payload is JSON nested 20,000 deep: 100-odd characters."""
    return "x~" + fmt + base64.b32encode(zlib.compress(DEEP, 9)).decode().rstrip("=").lower()


def test_json_nested_too_deeply_is_refused_in_words(tmp_path):
    path = tmp_path / "deep.json"
    path.write_bytes(DEEP)
    with pytest.raises(ModelConfigError, match="deep.json: JSON nested too deeply, so not a config.json"):
        read_json_file(path, 1 << 20, ModelConfigError, "a config.json")
    with pytest.raises(ModelConfigError, match="nested too deeply"):
        model_from_upload(data_url(DEEP), "config.json")
    with pytest.raises(GpuSpecError, match="nested too deeply"):
        gpu_from_upload(data_url(DEEP))
    for name, fmt in (("model", "1"), ("gpu", "g1")):
        with pytest.raises(InvalidParameter, match=r"damaged \(nested too deeply\)"):
            check_param(name, deep_key(fmt))
    page = home.layout(model=deep_key("1"), a=f"gpu:{deep_key('g1')}")  # the page says so instead of a 500
    assert "nested too deeply" in str(page)


def test_the_cli_refuses_a_deeply_nested_config_in_one_line(tmp_path, capsys):
    path = tmp_path / "deep.json"
    path.write_bytes(DEEP)
    for option in ("--model-config", "--gpu-spec"):
        with pytest.raises(SystemExit) as exit_:
            cli.main(["point", option, str(path)])
        assert exit_.value.code == 2
        err = capsys.readouterr().err
        assert "nested too deeply" in err and "Traceback" not in err


@pytest.mark.parametrize("bad", [5, [[1]], [True], "0,1", {"0": 1}])
def test_mlp_only_layers_must_be_a_list_of_layer_numbers(bad):
    qwen = config("Qwen3-235B-A22B")
    assert spec_from_config({**qwen, "mlp_only_layers": [0, 1]}, "q").n_moe_layers == qwen["num_hidden_layers"] - 2
    with pytest.raises(ModelConfigError, match="mlp_only_layers = .*: expected a list of layer numbers"):
        spec_from_config({**qwen, "mlp_only_layers": bad}, "q")


@pytest.mark.parametrize("change", [{"head_dim": 0}, {"hidden_size": 8, "head_dim": None}])
def test_a_head_without_dimensions_is_refused(change):
    broken = {k: v for k, v in {**config("Meta-Llama-3-8B"), **change}.items() if v is not None}
    with pytest.raises(ModelConfigError, match="head_dim = 0: a head needs at least one dimension"):
        spec_from_config(broken, "x")


def test_a_datasheet_without_vendor_or_link_uploads_as_the_cli_reads_it(catalog):  # noqa: F811
    sheet = {k: v for k, v in record("h200").items() if k not in ("vendor", "link")}
    _, from_file, _ = gpu_from_spec(sheet, source="test")
    key, uploaded = gpu_from_upload(data_url(json.dumps({**sheet, "name": "Mine"}).encode()))
    assert (from_file.vendor, from_file.link) == (uploaded.vendor, uploaded.link) == ("other", "scale-up link")
    assert Scenario.from_params(gpu=key).params["gpu"] == key  # its key reads back (the vendor and link absent)


def test_a_datasheet_lies_on_the_sliders_at_a_count_of_one():
    for field, param, scale in (("hbm_tb_s", "bw", 1), ("hbm_gb", "hbm", 1), ("dense_bf16_tflops", "compute", 1e3)):
        for outside in (PARAMS[param].low * scale * 0.99, PARAMS[param].high * scale * 1.01):
            with pytest.raises(GpuSpecError, match=f"^{field} must be between"):
                gpu_from_spec({**record("h200"), field: outside}, source="test")


def test_a_pinned_gpu_count_past_the_sliders_is_a_notice_not_a_500():
    big = spec_key({**record("b200"), "name": "Big", "hbm_tb_s": 500})  # two of them: 1,000 TB/s, past 600
    assert parse_pinned(f"gpu:{big},gpus:1")[0] == {"gpu": big, "gpus": 1}
    pinned, notices = parse_pinned(f"gpu:{big},gpus:2")
    said = "gpus=2: 2 × Big has 1,000 TB/s of aggregate HBM bandwidth, outside the Memory bandwidth control's"
    assert pinned is None and notices == [f"Nothing is pinned: A's settings give {said} 0.6 to 600 TB/s."]
    assert f"Nothing is pinned: A's settings give {said}" in str(home.layout(a=f"gpu:{big},gpus:2"))


def test_one_request_that_fits_is_said_in_every_figure_not_none(capsys):
    one = ["--gpu", "l40s", "--gpus", "1", "--model", "llama-3-8b", "--wdtype", "fp16", "--kvdtype", "fp16"]
    one += ["--ctx", "131072", "--isl", "131072"]
    assert Scenario.from_params(**{a[2:]: v for a, v in zip(one[::2], one[1::2], strict=True)}).b_max == 1
    for figure in (4, 6, 9, 10, 11, 12):
        assert cli.main(["frontier", *one, "--figure", str(figure)]) == 2
        err = capsys.readouterr().err
        assert "only one request fits (B_max = 1), which keeps the queue full (ρ = 1)" in err, (figure, err)
        assert "None" not in err and "<br>" not in err, (figure, err)


@pytest.mark.parametrize(("base", "why"), [("http://[::1", "base URL is not a URL"), ("", "base URL must be http")])
def test_a_base_url_that_is_not_one_is_refused(base, why):
    with pytest.raises(fetch.FetchError, match=why):
        fetch.benchmarks_url("DeepSeek-R1-0528", base)


def test_a_key_given_twice_is_refused_naming_it(tmp_path, capsys):
    """Python's json keeps the last of two values for one key without a word: a datasheet that gave its
    bandwidth twice was read with whichever came second."""
    twice = b'{"name": "X", "hbm_tb_s": 4.8, "hbm_tb_s": 8}'
    path = tmp_path / "gpu.json"
    path.write_bytes(twice)
    with pytest.raises(GpuSpecError, match='gpu.json: not JSON \\(the key "hbm_tb_s" appears twice in one object\\)'):
        read_json_file(path, 1 << 16, GpuSpecError, "a GPU's datasheet")
    with pytest.raises(GpuSpecError, match='"hbm_tb_s" appears twice'):
        gpu_from_upload(data_url(twice))
    nested = json.dumps(config("Qwen3-235B-A22B"))[:-1] + ', "text_config": {"a": 1, "a": 1}}'
    with pytest.raises(ModelConfigError, match='"a" appears twice'):
        model_from_upload(data_url(nested.encode()), "config.json")
    with pytest.raises(SystemExit):
        cli.main(["point", "--gpu-spec", str(path)])
    err = capsys.readouterr().err
    assert '"hbm_tb_s" appears twice' in err and "Traceback" not in err
