"""The calibrated model's own controls: output length, software stack, MTP and its acceptance, and what the
CLI and the page say about the calibration they use."""

from __future__ import annotations

import json

import numpy as np
import pytest

from inferx import cli
from inferx.scenario.controls import PARAMS, InvalidParameter
from inferx.scenario.evaluation import Scenario
from inferx.serving import transfer as T
from inferx.serving.adapter import scenario_point
from inferx.serving.stored import CALIBRATION_FILE, load_error_tables, measured_error_text
from pages._controls import calibration_line
from pages._url import parse_query

STORED = json.loads(CALIBRATION_FILE.read_text())["parameters"]
GROUPINGS = ["GPU", "precision", "ISL/OSL", "concurrency", "GPU/stack/precision", "GPU held out"]


def point(capsys, *args) -> dict:
    assert cli.main(["point", *args]) == 0
    return json.loads(capsys.readouterr().out)


def calibrated(**given) -> Scenario:
    return Scenario.from_params(mode="calibrated", **given)


# --- Output length -------------------------------------------------------------------------------------------


def test_osl_is_a_url_parameter_a_cli_option_and_a_scenario_field(capsys):
    values, _, notices = parse_query({"osl": "4096"})
    assert not notices and values["osl"] == 4096
    assert Scenario.from_params(osl=4096).osl == 4096
    assert Scenario.from_params().osl == PARAMS["osl"].default
    _, _, notices = parse_query({"osl": "0"})
    assert notices == ["Ignored osl=0: must be a whole number from 1 to 131,072 tokens."]
    assert parse_query({"osl": "16"})[0]["osl"] == 16  # a classification's or a tool call's few tokens
    short = point(capsys, "--mode", "calibrated", "--osl", "128")
    long = point(capsys, "--mode", "calibrated", "--osl", "8192")
    assert (short["calibration"]["osl"], long["calibration"]["osl"]) == (128, 8192)
    # Short answers bring a new prompt's prefill into the engine more often: slower tokens.
    assert short["itl_ms"] > long["itl_ms"]


def test_osl_leaves_the_article_model_alone(capsys):
    a = point(capsys, "--osl", "128")
    b = point(capsys, "--osl", "8192")
    # Only the expected answer, the calibrated model's, reads the output length.
    assert a.pop("expected") != b.pop("expected") and a == b and "calibration" not in a


BATCHES = np.array([1.0, 8.0, 64.0])


def _outputs(scn: Scenario, B=BATCHES) -> np.ndarray:
    r = scenario_point(scn, B)
    return np.concatenate([r["step"], r["ttft"], r["t_prefill"] * np.ones_like(B)])


@pytest.mark.parametrize("name", ["osl", "isl", "ctx"])
def test_calibrated_outputs_are_continuous_in_every_length(name):
    """One token more never moves a calibrated output by more than a fraction of a percent, from 128 tokens (below,
    one token is a large share of the length itself) across the range and at the old trouble spot ctx = isl (ctx <
    isl included)."""
    p = PARAMS[name]
    starts = {int(v) for v in np.geomspace(max(p.low, 128), p.high - 1, 40)} | {1023, 1024, 1025}
    for preset in ("h200x8", "mi300x4"):
        for v in sorted(starts):
            here = _outputs(calibrated(preset=preset, **{name: v}))
            there = _outputs(calibrated(preset=preset, **{name: v + 1}))
            assert np.all(np.isfinite(here)) and np.all(here > 0), (preset, name, v)
            assert np.max(np.abs(there / here - 1)) < 5e-3, (preset, name, v)


def test_calibrated_outputs_move_the_way_physics_says():
    lengths = [128, 512, 2048, 8192, 32768, 131072]
    step_by_osl = [scenario_point(calibrated(osl=n), 16.0)["step"] for n in lengths]
    ttft_by_isl = [scenario_point(calibrated(isl=n), 16.0)["ttft"] for n in lengths]
    step_by_ctx = [scenario_point(calibrated(ctx=n), 16.0)["step"] for n in lengths]
    assert np.all(np.diff(step_by_osl) < 0)  # fewer prefills per step
    assert np.all(np.diff(ttft_by_isl) > 0)  # longer prompts take longer to prefill
    assert np.all(np.diff(step_by_ctx) > 0)  # more KV read per step


# --- Software stack and the calibration's basis ------------------------------------------------------------


def _expected_basis(gpu: str, framework: str, precision: str) -> str:
    """DeepSeek-R1 on a stack and GPU with runs of their own at that precision uses their fit; anything else the
    transferable model."""
    return "fitted" if (gpu, framework, precision) in [tuple(k.split("/")) for k in STORED] else "transferred"


@pytest.mark.parametrize(
    "gpu, framework, wdtype",
    [
        ("h200", "sglang", "fp8"),
        ("h200", "trt", "fp8"),
        ("mi300x", "atom", "fp8"),
        ("b200", "vllm", "fp4"),
        ("b300", "vllm", "fp8"),
        ("mi355x", "sglang", "fp4"),
    ],  # fmt: skip
)
def test_point_says_which_calibration_it_used(capsys, gpu, framework, wdtype):
    out = point(capsys, "--mode", "calibrated", "--gpu", gpu, "--gpus", "8", "--tp", "8", "--wdtype", wdtype,
                "--framework", framework)  # fmt: skip
    record = out["calibration"]
    assert (record["gpu"], record["framework"], record["precision"]) == (gpu, framework, wdtype)
    assert record["basis"] == _expected_basis(gpu, framework, wdtype)
    fitted = record["basis"] == "fitted"
    assert record["fitted_on"] == ("DeepSeek-R1" if fitted else "DeepSeek-R1 runs and published tables")
    assert "note" not in record


def test_the_stack_moves_the_calibrated_model_only(capsys):
    sglang = point(capsys, "--mode", "calibrated", "--framework", "sglang")
    trt = point(capsys, "--mode", "calibrated", "--framework", "trt")
    assert sglang["itl_ms"] != trt["itl_ms"] and sglang["ttft_ms"] != trt["ttft_ms"]
    article = [point(capsys, "--framework", stack) for stack in ("trt", "sglang")]
    assert article[0].pop("expected") != article[1].pop("expected") and article[0] == article[1]


def test_an_unknown_stack_is_refused_in_the_same_words_everywhere(capsys):
    with pytest.raises(InvalidParameter, match="framework=tgi: must be one of sglang, trt"):
        Scenario.from_params(framework="tgi")
    _, _, notices = parse_query({"framework": "tgi"})
    assert notices[0].startswith("Ignored framework=tgi: must be one of sglang, trt")
    with pytest.raises(SystemExit):
        cli.main(["point", "--framework", "tgi"])
    assert "framework=tgi: must be one of sglang, trt" in capsys.readouterr().err


# --- MTP -----------------------------------------------------------------------------------------------------


def test_mtp_uses_the_fitted_acceptance_unless_one_is_set(capsys):
    fitted = STORED["h200/sglang/fp8"]["acceptance"]
    off = point(capsys, "--mode", "calibrated", "--batch", "4")
    on = point(capsys, "--mode", "calibrated", "--batch", "4", "--mtp", "on")
    auto = point(capsys, "--mode", "calibrated", "--batch", "4", "--mtp", "on", "--acceptance", "fitted")
    assert on == auto and on["calibration"]["acceptance_source"] == "calibration"
    assert on["calibration"]["acceptance"] == pytest.approx(fitted, rel=1e-3)
    assert on["itl_ms"] < off["itl_ms"]  # at a small batch, drafts more than pay for themselves
    by_alpha = [
        point(capsys, "--mode", "calibrated", "--batch", "4", "--mtp", "on", "--acceptance", str(a))["itl_ms"]
        for a in (0, 30, 60, 90)
    ]
    assert by_alpha == sorted(by_alpha, reverse=True) and len(set(by_alpha)) == 4
    assert point(capsys, "--mode", "calibrated", "--acceptance", "90")["calibration"]["acceptance"] == 0.9


def test_acceptance_is_refused_outside_its_range():
    for bad in ("96", "-1", "auto-ish", "nan"):
        with pytest.raises(InvalidParameter, match="acceptance=.*: must be a number from 0 to 95 %, or fitted"):
            Scenario.from_params(acceptance=bad)
    assert Scenario.from_params(acceptance="Fitted").acceptance is None
    assert Scenario.from_params(acceptance="40").acceptance == pytest.approx(0.4)


# --- Another model than the one the calibration was fitted on ------------------------------------------------


def test_cli_and_page_say_another_model_is_transferred(capsys):
    other = point(capsys, "--mode", "calibrated", "--model", "qwen3-235b-a22b")["calibration"]
    assert other["basis"] == "transferred" and other["fitted_on"] == "DeepSeek-R1 runs and published tables"
    assert other["extrapolation"] == "measured"  # TensorRT-LLM's table measured it, on H200 among others
    assert "note" not in other and "note" not in point(capsys, "--mode", "calibrated")["calibration"]
    values, _, _ = parse_query({"mode": "calibrated", "model": "qwen3-235b-a22b"})
    text = str(calibration_line(values))
    assert "Transferable model for Qwen3" in text
    assert "Transferable" not in str(calibration_line(parse_query({"mode": "calibrated"})[0]))  # R1's own fit
    assert calibration_line(parse_query({"model": "qwen3-235b-a22b"})[0]) == []  # article mode: nothing


def test_the_page_line_names_the_basis_and_the_acceptance():
    values, _, _ = parse_query({"mode": "calibrated", "framework": "trt", "mtp": "on", "acceptance": "70"})
    text = str(calibration_line(values))
    assert "h200 · trt · fp8: " + _expected_basis("h200", "trt", "fp8") in text
    assert "α 70% (set)" in text
    fitted = STORED["h200/trt/fp8"]["acceptance"]
    values, _, _ = parse_query({"mode": "calibrated", "framework": "trt", "mtp": "on"})
    assert f"α {fitted:.0%} (the calibration's)" in str(calibration_line(values))


def test_the_model_error_on_the_runs_is_said_in_words():
    """Hand-made tables: three metrics' median and p90 as percentages, in the reader's words and order, from the
    calibration's own runs, else its GPU's, else a GPU held out of the fit."""
    gpu_row = {"group": "h200", "rows": 1234, "tpot": [0.05, 0.2], "ttft": [0.1, 0.254],
               "throughput_per_gpu": [0.0344, 0.126], "e2e": [0.9, 0.9]}  # fmt: skip
    tables = {"tables": {"GPU": [gpu_row]}}
    h200 = {"gpu": "h200", "spread_key": "h200/sglang/fp8"}
    errors = ("5.0\u00a0% in TPOT, 10.0\u00a0% in TTFT and 3.4\u00a0% in output tok/s per GPU; at p90 20\u00a0%, "
              "25\u00a0% and 13\u00a0%.")  # fmt: skip
    assert measured_error_text(h200, tables) == (
        "Against DeepSeek-R1's 1,234 InferenceX runs on this GPU (h200, its measured stacks; in sample), the "
        "model's median error is " + errors
    )
    tables["tables"]["GPU/stack/precision"] = [{**gpu_row, "group": "h200/sglang/fp8", "rows": 12}]
    assert measured_error_text(h200, tables) == (
        "Against DeepSeek-R1's 12 InferenceX runs of this calibration (h200 · sglang · fp8; in sample), the "
        "model's median error is " + errors
    )
    b300 = {"gpu": "b300", "spread_key": "b300/sglang/fp8"}
    assert measured_error_text(b300, tables) == "No InferenceX runs on this GPU to score the model against."
    tables["tables"]["GPU held out"] = [{"group": "all", "rows": 9, "tpot": [0.191, 0.457], "ttft": [0.2, 0.5],
                                         "throughput_per_gpu": [0.174, 0.567]}]  # fmt: skip
    assert measured_error_text(b300, tables) == (
        "No InferenceX runs on this GPU. With each measured GPU left out of the fit in turn, the model's median "
        "error on the left-out GPU's runs was 19.1\u00a0% in TPOT, 20.0\u00a0% in TTFT and 17.4\u00a0% in output "
        "tok/s per GPU; at p90 46\u00a0%, 50\u00a0% and 57\u00a0%. Expect errors of that size here."
    )


def test_the_page_line_and_the_cli_give_the_stored_error_of_the_calibration_shown(capsys):
    tables = load_error_tables()["tables"]
    stored = {entry["group"]: entry for entry in tables["GPU/stack/precision"] + tables["GPU"]}
    for query, group in (({}, "h200/sglang/fp8"), ({"preset": "mi300x4"}, "mi300x/sglang/fp8")):
        text = calibration_line(parse_query({"mode": "calibrated", **query})[0])[-1].children  # its last sentence
        assert f"{stored[group]['rows']:,} InferenceX runs" in text, query
        assert f"{100 * stored[group]['ttft'][0]:.1f}\u00a0% in TTFT" in text, query
    assert point(capsys, "--mode", "calibrated")["calibration"]["measured_error"] == stored["h200/sglang/fp8"]
    # A stack InferenceX never ran on this GPU, and a GPU it never ran: the transferable model, with the error
    # of the runs held out as that kind.
    for query, kind in (({"framework": "vllm"}, "measured"), ({"gpu": "b300"}, "gpu_sibling")):
        error = T.kind_error(kind)
        text = calibration_line(parse_query({"mode": "calibrated", **query})[0])[-1].children
        assert text.startswith(f"Transferable model, {T.KIND_WORDS[kind]}: against {error['rows']:,} measured runs")
        assert f"{100 * error['tpot'][0]:.1f}\u00a0% in TPOT" in text
        args = [f"--{k}={v}" for k, v in query.items()]
        record = point(capsys, "--mode", "calibrated", *args)["calibration"]
        assert record["measured_error"] == {"group": T.KIND_WORDS[kind], **error} and "held_out_error" not in record


# --- Uncertainty bands and error tables ------------------------------------------------------------------------

SPREAD = json.loads(CALIBRATION_FILE.read_text())["residual_spread"]  # pooled over every fitted row
SPREAD_BY_KEY = json.loads(CALIBRATION_FILE.read_text())["residual_spread_by_key"]


def _band(fig: dict) -> tuple[dict, dict]:
    low = next(t for t in fig["data"] if (t.get("meta") or {}).get("band") == "low")
    high = next(t for t in fig["data"] if (t.get("meta") or {}).get("band") == "high")
    return low, high


def _assert_band_around(curve_y, low, high, metric, key="h200/sglang/fp8", band=None):
    p10, p90 = band or (SPREAD_BY_KEY[key][metric] if key else SPREAD[metric])
    y = np.asarray(curve_y, dtype=float)
    np.testing.assert_allclose(low["y"], y * np.exp(-p90), rtol=2e-3)
    np.testing.assert_allclose(high["y"], y * np.exp(-p10), rtol=2e-3)
    assert high["fill"] == "tonexty" and np.all(np.asarray(high["y"]) > np.asarray(low["y"]))


def test_figures_4_and_5_carry_the_residual_band_in_calibrated_mode_only():
    from inferx.figures import registry

    figs = registry.build(calibrated(), ["fig4", "fig5"])
    curve = figs["fig4"]["data"][0]
    _assert_band_around(curve["y"], *_band(figs["fig4"]), "tpot")
    current = figs["fig5"]["data"][-1]
    _assert_band_around(current["y"], *_band(figs["fig5"]), "ttft")
    article = registry.build(Scenario.from_params(), ["fig4", "fig5"])
    for fig in article.values():
        assert not any("band" in (t.get("meta") or {}) for t in fig["data"])


def test_each_calibration_has_its_own_band_and_one_without_enough_rows_the_pooled_one():
    from inferx.figures import registry

    assert len(SPREAD_BY_KEY) > 1 and SPREAD_BY_KEY["b200/trt/fp8"] != SPREAD_BY_KEY["h200/sglang/fp8"]
    widths = {key: s["ttft"][1] - s["ttft"][0] for key, s in SPREAD_BY_KEY.items()}
    assert max(widths.values()) > 1.5 * min(widths.values()), widths  # one pooled width would not fit them all
    b200 = registry.build(calibrated(preset="b200x8", framework="trt"), ["fig5"])["fig5"]
    _assert_band_around(b200["data"][-1]["y"], *_band(b200), "ttft", "b200/trt/fp8")
    assert "b200/trt/fp8 rows" in _band(b200)[1]["name"]
    # No fit of its own (B300 has no rows): the transferable model's band for a GPU whose sibling was measured,
    # from the runs held out as that kind, and its legend says so.
    b300 = registry.build(calibrated(gpu="b300", gpus=8, framework="trt"), ["fig5"])["fig5"]
    assert "b300/trt/fp8" not in SPREAD_BY_KEY
    _assert_band_around(b300["data"][-1]["y"], *_band(b300), "ttft", band=T.kind_band("gpu_sibling", "ttft"))
    assert "held out" in _band(b300)[1]["name"]


def test_the_inferencex_curve_carries_its_band_and_follows_stack_and_mtp():
    from inferx.figures.measured import inferencex_figure

    def calibrated_curve(fig):
        return next(t for t in fig["data"] if (t.get("meta") or {}).get("model") == "calibrated")

    base = inferencex_figure(calibrated(), None)
    _assert_band_around(calibrated_curve(base)["y"], *_band(base), "throughput_per_gpu")
    for change in ({"framework": "trt"}, {"mtp": "on"}, {"osl": 4096}):
        moved = inferencex_figure(calibrated(**change), None)
        assert calibrated_curve(moved)["y"] != calibrated_curve(base)["y"], change


def test_stored_error_tables_cover_every_grouping_and_partition_the_same_rows():
    from inferx.serving.stored import load_error_tables

    tables = load_error_tables()["tables"]
    assert list(tables) == GROUPINGS
    _assert_partitions(tables)
    for rows in tables.values():
        for r in rows:
            for m in ("tpot", "ttft", "throughput_per_gpu", "e2e"):
                median, p90 = r[m]
                assert 0 <= median <= p90, (r["group"], m)


def _assert_partitions(tables: dict) -> None:
    """Each grouping splits the same rows; the held-out table's GPUs, no more rows than they have in sample,
    add up to its pooled "all" row."""
    totals = {name: sum(r["rows"] for r in rows) for name, rows in tables.items() if name != "GPU held out"}
    assert len(set(totals.values())) == 1 and totals["GPU"] > 0, totals
    *gpus, pooled = tables["GPU held out"]
    in_sample = {r["group"]: r["rows"] for r in tables["GPU"]}
    assert pooled["group"] == "all" and sum(r["rows"] for r in gpus) == pooled["rows"] > 0
    assert all(0 < r["rows"] <= in_sample[r["group"]] for r in gpus)


def test_methods_shows_the_error_tables():
    from conftest import layout_text

    import app  # noqa: F401  (pages register with the app)
    from inferx.serving.stored import load_error_tables
    from pages import methods

    text = layout_text(methods.layout())
    tables = load_error_tables()["tables"]
    for grouping, rows in tables.items():
        assert (methods.HELD_OUT_TEXT if grouping == methods.HELD_OUT_GROUPING else f"By {grouping}") in text
        for r in rows:
            assert f"{r['tpot'][0]:.0%} / {r['tpot'][1]:.0%}" in text and r["group"] in text


def test_the_calibration_line_callback_answers_for_the_controls():
    import app as inferx_app

    client = inferx_app.server.test_client()
    deps = client.get("/_dash-dependencies").get_json()
    dep = next(d for d in deps if d["output"].startswith("calibration-basis."))
    values = {"mode": "calibrated", "preset": "h200x8", "gpu": "h200", "gpus": 8, "wdtype": "fp8",
              "framework": "trt", "model": "kimi-k2", "mtp": "off", "acceptance": None}  # fmt: skip
    body = {
        "output": dep["output"],
        "outputs": {"id": "calibration-basis", "property": "children"},
        "inputs": [{"id": i["id"], "property": i["property"], "value": values[i["id"][4:]]} for i in dep["inputs"]],
        "changedPropIds": ["ctl-framework.value"],
    }
    out = client.post("/_dash-update-component", json=body).get_json()
    text = json.dumps(out)
    assert "h200 \\u00b7 trt \\u00b7 fp8" in text and "Transferable model for Kimi-K2" in text


def test_validate_writes_error_tables_of_aggregates_only(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    fixture = root / "tests" / "fixtures" / "synthetic_measured.csv"
    out = tmp_path / "errors.json"
    run = subprocess.run(
        [sys.executable, "-m", "inferx", "validate", "--measured", str(fixture), "--error-tables", str(out)],
        cwd=root, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    written = json.loads(out.read_text())
    assert written["source"] == fixture.name
    assert list(written["tables"]) == GROUPINGS
    _assert_partitions(written["tables"])
    assert all(set(r) == {"group", "rows", "tpot", "ttft", "throughput_per_gpu", "interactivity", "e2e"}
               for rows in written["tables"].values() for r in rows)  # fmt: skip


@pytest.mark.parametrize("where", ["missing-dir/errors.json", ".", "measured.csv"])
def test_validate_refuses_an_error_tables_path_it_cannot_write_before_any_work(tmp_path, where):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    fixture = tmp_path / "measured.csv"  # a copy: `measured.csv` names it as the output too
    fixture.write_bytes((root / "tests" / "fixtures" / "synthetic_measured.csv").read_bytes())
    out = tmp_path / where
    run = subprocess.run(
        [sys.executable, "-m", "inferx", "validate", "--measured", str(fixture), "--error-tables", str(out)],
        cwd=root, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert run.returncode == 2 and run.stderr.startswith("inferx: --error-tables ") and "Traceback" not in run.stderr
    assert run.stdout == ""  # refused before the tables were computed and printed
    # The rows are where they were: writing the tables over them lost the file.
    assert fixture.read_bytes() == (root / "tests" / "fixtures" / "synthetic_measured.csv").read_bytes()


def test_the_unread_note_is_on_the_dashboard_not_on_inferencex():
    """`/inferencex` draws the calibrated curve in either mode, so there the stack and MTP are read: no note.
    The output length's CV, which the calibrated model does not read, is marked the other way."""
    from inferx.scenario.controls import ARTICLE_ONLY, CALIBRATED_ONLY
    from inferx.scenario.machines import default_params
    from pages._controls import control_groups

    def noted(overlay_only, kind):
        groups = control_groups(default_params(), overlay_only=overlay_only)
        divs = [c for g in groups for c in ([g] + list(getattr(g, "_traverse", lambda: [])()))]
        marked = [c for c in divs if kind in (getattr(c, "className", "") or "").split()]
        every = {f"ctl-{name}" for name in PARAMS}
        return {x.id for c in marked for x in c._traverse() if getattr(x, "id", None) in every}

    assert noted(False, "calibrated-only") == {f"ctl-{name}" for name in CALIBRATED_ONLY}
    assert noted(False, "article-only") == {f"ctl-{name}" for name in ARTICLE_ONLY} == {"ctl-cv"}
    assert noted(True, "calibrated-only") == noted(True, "article-only") == set()
