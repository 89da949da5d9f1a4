"""Your own GPU from a datasheet in JSON: reading it, the catalog, the CLI, the page and every figure.

tests/fixtures/gpu_specs/gaudi3.json carries Intel's published Gaudi 3 numbers; its price is an assumption,
as the catalog's are."""

from __future__ import annotations

import dataclasses
import json
import os
import re
from pathlib import Path

import numpy as np
import pytest
from dash import no_update
from test_model_config import MIXTRAL, data_url

import app  # noqa: F401 (pages register themselves on the app)
from inferx import cli
from inferx.analysis import economics
from inferx.data.user_gpus import MAX_SPEC_BYTES, add_gpu_specs, add_gpus_from_env, gpu_from_upload, read_gpu_spec
from inferx.figures import registry
from inferx.physics.gpu_spec import GpuSpecError, gpu_from_key, gpu_from_spec, price_from_key, spec_key
from inferx.physics.hardware import GPUS, USD_PER_GPU_HOUR, Machine, machine_record
from inferx.physics.model_config import carry, config_key
from inferx.scenario.controls import PARAMS, InvalidParameter, check_param
from inferx.scenario.evaluation import Scenario
from inferx.scenario.machines import per_gpu_values
from inferx.serving import adapter as calibrated
from inferx.text import shown_value
from pages import home
from pages._callbacks import choose_uploaded_gpu
from pages._controls import GPU_CARRIED_ID, ui_config
from pages._ids import control_id
from pages._url import parse_query

GAUDI3 = Path(__file__).parent / "fixtures" / "gpu_specs" / "gaudi3.json"


@pytest.fixture
def catalog():
    """The GPU catalog and its prices, put back as they were after the test (added GPUs would leak)."""
    kept, prices = dict(GPUS), dict(USD_PER_GPU_HOUR)
    yield GPUS
    GPUS.clear()
    GPUS.update(kept)
    USD_PER_GPU_HOUR.clear()
    USD_PER_GPU_HOUR.update(prices)


def record(key: str) -> dict:
    """A catalog GPU's record as `inferx hardware --format json` prints it, the template a user edits."""
    return {**machine_record(key, Machine(GPUS[key], 1)), "usd_per_gpu_hour": economics.default_price(key)}


def test_a_datasheet_reads_in_si_units():
    key, gpu, price = read_gpu_spec(GAUDI3)
    assert (key, gpu.name, gpu.vendor, price) == ("gaudi3", "Gaudi 3 OAM", "Intel", 2.0)
    assert (gpu.hbm, gpu.bw, gpu.bf16, gpu.fp8, gpu.fp4) == (128e9, 3.7e12, 1835e12, 1835e12, None)
    # Not given: the sparse rates are the 2:4 headline, twice the dense (none where there is no dense rate).
    assert (gpu.sparse_bf16, gpu.sparse_fp8, gpu.sparse_fp4) == (3670e12, 3670e12, None)
    assert (gpu.link_bw, gpu.scale_up_gpus, gpu.power) == (1050e9, 8, 900)
    assert gpu.ridge("fp8") == pytest.approx(1835e12 / 3.7e12)


@pytest.mark.parametrize("key", sorted(GPUS))
def test_every_catalog_record_reads_back_as_its_gpu(key):
    """`inferx hardware --format json` is the format: each catalog GPU's record gives the same GPU back."""
    got_key, gpu, price = gpu_from_spec(json.loads(json.dumps(record(key))), source="unused")
    assert (got_key, price) == (key, economics.default_price(key))
    for field in dataclasses.fields(gpu):
        mine, theirs = getattr(gpu, field.name), getattr(GPUS[key], field.name)
        assert mine == (pytest.approx(theirs, rel=1e-12) if isinstance(theirs, float) else theirs), field.name


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"hbm_gbs": 141}, "unknown field 'hbm_gbs'; the fields are key, name"),
        ({"hbm_tb_s": None}, "hbm_tb_s is missing"),
        ({"usd_per_gpu_hour": None}, "usd_per_gpu_hour is missing"),
        ({"hbm_gb": 141e9}, "hbm_gb must be between 24 and 21,000 GB, not 141,000,000,000.0"),
        ({"hbm_tb_s": "4.8"}, "hbm_tb_s must be a number in TB/s, not '4.8'"),
        ({"power_w": True}, "power_w must be a number in W, not True"),
        ({"dense_bf16_tflops": float("nan")}, "dense_bf16_tflops must be a number in TFLOPS, not nan"),
        ({"hbm_gb": 10**400}, "hbm_gb must be between 24 and 21,000 GB, not 1000000000"),  # past any float
        ({"hbm_gb": -(10**400)}, "hbm_gb must be between 24 and 21,000 GB, not -1000000000"),
        ({"scale_up_gpus": 7.5}, "scale_up_gpus must be a whole number of GPUs, not 7.5"),
        ({"scale_up_gpus": 512}, "scale_up_gpus must be between 1 and 72 GPUs"),
        ({"gpus": 8}, "gpus must be 1: give one GPU's numbers"),
        ({"dense_fp4_tflops": None, "sparse_fp4_tflops": 20000}, "sparse_fp4_tflops is given without dense_fp4"),
        ({"key": "--", "name": "--"}, "its key '--' has none of the letters a-z or digits a key is made of"),
        ({"name": ["B200"]}, "name must be text of at most 200 characters"),
    ],
)
def test_a_bad_datasheet_is_refused_with_the_field_at_fault(change, why):
    spec = {**record("b200"), "key": "b200-mine", **change}
    with pytest.raises(GpuSpecError) as err:
        gpu_from_spec(spec, source="test")
    assert str(err.value).startswith(why), str(err.value)


def test_a_file_that_is_not_a_datasheet_is_refused(tmp_path):
    cases = {
        "list.json": (json.dumps([record("h200")]), "must be one JSON object"),
        "broken.json": ('{"name": ', "not JSON (Expecting value at line 1)"),
        "latin1.json": ("é".encode("latin-1"), "not UTF-8 text"),
        "huge.json": (b" " * (MAX_SPEC_BYTES + 1), "larger than 64 KiB, so not a GPU's datasheet"),
    }
    for name, (content, why) in cases.items():
        path = tmp_path / name
        (path.write_bytes if isinstance(content, bytes) else path.write_text)(content)
        with pytest.raises(GpuSpecError, match=re.escape(f"{path}: {why}")):
            read_gpu_spec(path)
    with pytest.raises(GpuSpecError, match=r"^/nowhere/gpu.json: cannot read it"):
        read_gpu_spec("/nowhere/gpu.json")


def test_added_gpus_join_the_catalog_and_a_key_means_one_gpu(catalog, tmp_path):
    assert add_gpu_specs([GAUDI3, GAUDI3]) == ["gaudi3", "gaudi3"]  # a file read twice keeps its entry
    assert economics.default_price("gaudi3") == 2.0
    one = per_gpu_values("gaudi3")  # in the controls' units: TB/s, GB, PFLOPS
    assert (one["bw"], one["hbm"], one["compute"]["fp8"]) == (3.7, 128.0, 1.835)
    clash = tmp_path / "h200.json"
    clash.write_text(json.dumps({**record("h200"), "hbm_gb": 282}))  # an edited record that kept its key
    before = dict(catalog)
    with pytest.raises(GpuSpecError, match=r"already has a GPU with the key 'h200'; give this one another `key`"):
        add_gpu_specs([clash])
    assert catalog == before
    same = tmp_path / "same.json"
    same.write_text(json.dumps(record("h200")))  # the catalog's own record: the same GPU, nothing to refuse
    assert add_gpu_specs([same]) == ["h200"] and catalog == before


def test_the_cli_names_which_of_several_datasheets_it_draws(catalog, tmp_path, capsys):
    other = tmp_path / "other.json"
    other.write_text(json.dumps({**json.loads(GAUDI3.read_text()), "name": "Other", "key": "other", "hbm_gb": 192}))
    assert cli.main(["point", "--gpu-spec", str(GAUDI3), "--gpu-spec", str(other), "--batch", "16"]) == 0
    captured = capsys.readouterr()
    assert "drawing other, from the last --gpu-spec; --gpu chooses another of gaudi3, other" in captured.err
    b_max = json.loads(captured.out)["b_max"]
    assert b_max == Scenario.from_params(gpu="other").b_max != Scenario.from_params(gpu="gaudi3").b_max
    assert cli.main(["point", "--gpu-spec", str(GAUDI3), "--gpu-spec", str(other), "--gpu", "gaudi3"]) == 0
    assert "drawing" not in capsys.readouterr().err  # chosen, so nothing to say


def test_inferx_gpus_adds_every_file_it_names(catalog):
    assert add_gpus_from_env({"INFERX_GPUS": f"{GAUDI3}{os.pathsep}"}) == ["gaudi3"]
    assert add_gpus_from_env({}) == []
    with pytest.raises(GpuSpecError, match=r"^INFERX_GPUS: /nowhere/gpu.json: cannot read it"):
        add_gpus_from_env({"INFERX_GPUS": "/nowhere/gpu.json"})


def test_the_cli_serves_and_lists_a_gpu_from_its_datasheet(catalog, capsys):
    assert cli.main(["point", "--gpu-spec", str(GAUDI3), "--batch", "16"]) == 0
    point = json.loads(capsys.readouterr().out)
    # 8 × 128 GB less DeepSeek-R1's 671 GB of FP8 weights: 353 GB for the KV cache.
    assert point["kv_headroom_gb"] == pytest.approx(8 * 128 - 671, abs=1)
    assert point["b_max"] == Scenario.from_params(gpu="gaudi3").b_max
    # --gpu still chooses; the datasheet's GPU joins the catalog beside it.
    assert cli.main(["point", "--gpu-spec", str(GAUDI3), "--gpu", "h200", "--batch", "16"]) == 0
    assert json.loads(capsys.readouterr().out)["b_max"] == Scenario.from_params(gpu="h200").b_max
    assert cli.main(["hardware", "--format", "json", "--gpu-spec", str(GAUDI3)]) == 0
    listed = {r["key"]: r for r in json.loads(capsys.readouterr().out)}
    assert listed["gaudi3"]["hbm_tb_s"] == 3.7 and listed["gaudi3"]["usd_per_gpu_hour"] == 2.0
    assert listed["h200"]["usd_per_gpu_hour"] == economics.default_price("h200")
    assert cli.main(["slo", "--gpu-spec", str(GAUDI3), "--gpus", "8"]) == 0
    slo = json.loads(capsys.readouterr().out)
    assert (slo["gpu"], slo["usd_per_gpu_hour"]) == ("gaudi3", 2.0)


def test_the_cli_refuses_a_bad_datasheet_in_one_line(catalog, capsys, tmp_path, monkeypatch):
    bad = tmp_path / "gpu.json"
    bad.write_text(json.dumps({"name": "X"}))
    with pytest.raises(SystemExit) as stop:
        cli.main(["point", "--gpu-spec", str(bad)])
    assert stop.value.code == 2
    why = f"{bad}: hbm_gb is missing (needed: name, hbm_gb"
    assert capsys.readouterr().err.strip().splitlines()[0].startswith(f"inferx point: error: {why}")
    monkeypatch.setenv("INFERX_GPUS", str(bad))
    assert cli.main(["hardware"]) == 2
    assert capsys.readouterr().err.startswith(f"inferx: INFERX_GPUS: {why}")


@pytest.mark.parametrize("mode", ["article", "calibrated"])
def test_every_figure_draws_an_added_gpu(catalog, mode):
    add_gpu_specs([GAUDI3])
    scn = Scenario.from_params(gpu="gaudi3", gpus=8, mode=mode)
    assert (scn.bw, scn.hbm) == pytest.approx((8 * 3.7e12, 8 * 128e9))
    figs = registry.build(scn)
    assert set(figs) == set(registry.FIGURES)
    for name, fig in figs.items():
        numbers = [v for t in fig["data"] for axis in ("x", "y") for v in (t.get(axis) or []) if v is not None]
        assert numbers and np.all(np.isfinite(np.asarray(numbers, dtype=float))), name
    if mode == "calibrated":  # no run was measured on it, nor on its die: the transferable model, said so
        info = calibrated.scenario_calibration(scn)
        assert (info["basis"], info["kind"]) == ("transferred", "gpu_alone")


def test_the_page_offers_an_added_gpu_and_the_browser_knows_its_numbers(catalog):
    add_gpu_specs([GAUDI3])
    page = home.layout(gpu="gaudi3", gpus="4")
    menu = next(c for c in page._traverse() if getattr(c, "id", None) == control_id("gpu"))
    assert menu.value == "gaudi3" and {"label": "Gaudi 3 OAM", "value": "gaudi3"} in menu.options
    # The browser multiplies a GPU's numbers by the count when the GPU or count changes: it has this one's.
    assert ui_config().data["gpus"]["gaudi3"] == per_gpu_values("gaudi3")


# --- A datasheet chosen in a browser: the GPU travels in its key --------------------------------------------


@pytest.mark.parametrize("key", sorted(GPUS))
def test_a_keys_gpu_is_the_datasheets(key):
    carried = spec_key(record(key))
    assert carried.startswith(f"{key}~g1") and len(carried) < 400
    # The same GPU, field by field, but for where its numbers came from (the catalog's source is not carried).
    assert dataclasses.replace(gpu_from_key(carried), source=GPUS[key].source) == GPUS[key]
    assert price_from_key(carried) == economics.default_price(carried) == economics.default_price(key)


def test_a_carried_gpu_is_a_choice_without_being_listed():
    key = spec_key(json.loads(GAUDI3.read_text()))
    assert key in GPUS and key not in PARAMS["gpu"].choices and "gaudi3" not in GPUS
    assert check_param("gpu", key.upper()) == key  # an address's choice is matched in lower case
    scn = Scenario.from_params(gpu=key, gpus=8)
    assert (scn.bw, scn.hbm) == pytest.approx((8 * 3.7e12, 8 * 128e9))
    assert cli.main(["point", "--gpu", key, "--gpus", "8"]) == 0  # the CLI reads it as the page does


def test_a_datasheet_past_a_controls_range_at_its_count_is_refused_by_the_cli_and_the_page(capsys):
    """100 TB/s a GPU is a datasheet within bounds, but 72 of them have 7,200 TB/s: past the bandwidth control's
    600, so the page could not draw it ("Could not draw these settings: bw=7200.0") while the CLI printed it."""
    fast = spec_key({**json.loads(GAUDI3.read_text()), "hbm_tb_s": 100})
    why = "72 × Gaudi 3 OAM has 7,200 TB/s of aggregate HBM bandwidth, outside the Memory bandwidth control's "
    why += "0.6 to 600 TB/s"
    said = f"gpus=72: {why}"
    with pytest.raises(InvalidParameter, match=re.escape(said)):
        Scenario.from_params(gpu=fast, gpus=72)
    with pytest.raises(SystemExit) as stop:
        cli.main(["point", "--gpu", fast, "--gpus", "72"])
    assert stop.value.code == 2 and said in capsys.readouterr().err
    assert Scenario.from_params(gpu=fast, gpus=4).bw == pytest.approx(400e12)  # 400 TB/s is within the range
    values, _, notices = parse_query({"gpu": fast, "gpus": "72", "ctx": "2048"})
    assert notices == [f"Ignored gpu={shown_value(fast)} and gpus=72: {why}."]  # only what the address gave
    _, _, notices = parse_query({"gpu": spec_key({**json.loads(GAUDI3.read_text()), "hbm_tb_s": 500})})
    assert notices[0].startswith("Ignored gpu=gaudi3~") and " and gpus" not in notices[0]  # 8 of them: 4,000 TB/s
    assert (values["gpu"], values["gpus"], values["bw"], values["ctx"]) == ("h200", 8, 38.4, 2048)  # the rest kept
    # The page's GPU menu and count set the sliders in the browser: the note under the preset says why nothing draws.
    from pages._callbacks import machine_changed  # noqa: PLC0415 (registers callbacks; the app is imported)

    assert machine_changed("h200x8", fast, 72, "fp8") == f"Cannot draw this machine: {why}."
    assert machine_changed("h200x8", fast, 4, "fp8").startswith("Drawing 4×Gaudi 3 OAM over NVLink 4.0, a machine no")
    # Compute is the datasheet's at the weights' precision: 64 of a 20 PFLOPS FP4 GPU pass 1,000 PFLOPS at FP4 only.
    big = spec_key({**json.loads(GAUDI3.read_text()), "dense_fp8_tflops": 10000, "dense_fp4_tflops": 20000})
    assert machine_changed("h200x8", big, 64, "fp8").startswith("Drawing 64×Gaudi 3 OAM")
    assert machine_changed("h200x8", big, 64, "fp4").startswith("Cannot draw this machine: 64 × Gaudi 3 OAM has 1,280")
    # The calibration line under the controls leaves such a machine to that note instead of failing the page.
    assert home.layout(gpu=fast, gpus="1", mode="calibrated") is not None


def test_a_damaged_or_foreign_gpu_key_is_refused_in_words():
    key = spec_key(json.loads(GAUDI3.read_text()))
    model = config_key(json.loads(MIXTRAL.read_text()), "mixtral")
    wrong_count = carry("x", "g1", [1, 2])
    cases = {
        key[:-4] + "aaaa": "damaged",
        key[:60]: "damaged",
        model: "not of the form name~g1",
        "x~g1" + "a" * 2000: "not of the form name~g1",
        wrong_count: "damaged (2 values, not 15)",
        carry("x", "g1", [None] * 15): "name is missing",
        carry("x", "g1", ["X", "", "", 128, 1e9, *[1] * 10]): "hbm_tb_s must be between 0.6 and 600 TB/s",
    }
    for bad, why in cases.items():
        assert bad not in GPUS and GPUS.get(bad) is None
        with pytest.raises(InvalidParameter, match=re.escape(why)) as err:
            check_param("gpu", bad)
        assert "is not a readable GPU key" in str(err.value)
    with pytest.raises(InvalidParameter, match="must be one of a100"):
        check_param("gpu", "tpu-v5")


def test_an_upload_selects_the_gpu_its_key_carries():
    body = GAUDI3.read_bytes()
    key, gpu = gpu_from_upload(data_url(body))
    assert key == spec_key(json.loads(body)) and gpu.name == "Gaudi 3 OAM"
    options, value, note, carried = choose_uploaded_gpu(data_url(body), "gaudi3.json")
    assert value == key and {"label": "Gaudi 3 OAM (datasheet)", "value": key} in options
    assert carried == {key: per_gpu_values(key)}  # what the browser multiplies by the count
    assert note.startswith("Gaudi 3 OAM: 128 GB of HBM at 3.7 TB/s, 1,835 TFLOPS BF16 and 1,835 TFLOPS FP8 (dense)")
    bad = {
        "not a file upload": (None, "gpu.json"),
        "larger than 64 KiB: not a GPU's datasheet": (data_url(b" " * MAX_SPEC_BYTES + b"{}"), "gpu.json"),
        "not a JSON file": (data_url(b"\xff\xfe"), "gpu.json"),
        "must be one JSON object": (data_url(b"[1, 2]"), "gpu.json"),
        "unknown field 'hbm'": (data_url(json.dumps({**json.loads(body), "hbm": 1}).encode()), "gpu.json"),
    }
    for why, (contents, filename) in bad.items():
        *kept, note, carried = choose_uploaded_gpu(contents, filename)
        assert kept == [no_update, no_update] and carried is no_update
        assert note.startswith(f"Could not read {filename}: ") and why in note, note


def test_a_page_whose_address_carries_a_gpu_hands_the_browser_its_numbers():
    key = spec_key(json.loads(GAUDI3.read_text()))
    page = home.layout(gpu=key, gpus="4")
    menu = next(c for c in page._traverse() if getattr(c, "id", None) == control_id("gpu"))
    assert menu.value == key and {"label": "Gaudi 3 OAM (datasheet)", "value": key} in menu.options
    store = next(c for c in page._traverse() if getattr(c, "id", None) == GPU_CARRIED_ID)
    assert store.data == {key: per_gpu_values(key)}
    listed = next(c for c in home.layout(gpu="h100")._traverse() if getattr(c, "id", None) == GPU_CARRIED_ID)
    assert listed.data is None  # the catalog's GPUs are in ui-config already
