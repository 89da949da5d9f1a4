"""The calibrated model's formulas, fit, continuity and validation, on hand-worked numbers and synthetic rows."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from inferx.data.measured import MEAN_LENGTH_FRACTION, load_measured
from inferx.physics import engine as E
from inferx.physics.hardware import GPUS
from inferx.physics.models import DEEPSEEK_R1 as R1
from inferx.scenario.evaluation import Scenario
from inferx.serving import adapter
from inferx.serving import fit as F
from inferx.serving import model as C
from inferx.serving import report as R
from inferx.serving import stored as stored_

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
ROWS = FIXTURES / "fidelity_rows.csv"


def _generator():
    spec = importlib.util.spec_from_file_location("make_fidelity_fixture", FIXTURES / "make_fidelity_fixture.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GEN = _generator()
CAL = C.Calibration(0.5, 0.25, 0.2, 0.01, 0.05, 1e-3, 0.6)


# --- Formulas against hand-worked numbers ---------------------------------------------------


def test_decode_step_by_hand():
    # One H200 at FP8: 4.8e12 B/s, 1.979e15 FLOP/s; f_bw 0.5, f_c 0.25, t_0 10 ms; B = 1, S = 1000, one KV copy.
    m = C.Instance(bw=4.8e12, compute=1.979e15, gpus=1, tp=1, kv_copies=1)
    expert = 3 * 7168 * 2048  # one routed expert of DeepSeek R1
    dense = 671e9 - 58 * 256 * expert
    weights = dense + 58 * expert * 8  # one token touches 8 experts per MoE layer
    kv = 1000 * 61 * (512 + 64)  # latent + rope per layer per token, 1 byte each
    flops = 2 * 37e9 + 2 * 61 * 128 * 1000 * (576 + 512)
    expected = 0.01 + (weights + kv) / (0.5 * 4.8e12) + flops / (0.25 * 1.979e15)
    assert R1.p_total == 671e9 and R1.p_active == 37e9
    got = C.decode_time(CAL, m, 1.0, 1000.0)  # tp = 1: no all-reduce
    assert float(got) == pytest.approx(expected, rel=2e-3)


def test_prefill_and_ttft_by_hand():
    m = C.Instance(bw=8 * 4.8e12, compute=8 * 1.979e15, gpus=8, tp=8, kv_copies=8)
    isl, osl, B = 1024.0, 1024.0, 32.0
    t_pf = 671e9 / (0.5 * 8 * 4.8e12) + (2 * 37e9 * isl + 4 * 61 * 128 * 128 * isl**2) / (0.2 * 8 * 1.979e15)
    r = C.at_batch(CAL, m, B, isl, osl)
    assert float(r["t_prefill"]) == pytest.approx(t_pf, rel=1e-3)
    t_dec = float(r["t_decode"])
    stall = B / osl * t_pf  # 32 of 1,024-token answers finish per 1,024 steps: 1/32 prefill per step each
    tpot = t_dec + stall
    u = stall / tpot
    ttft = 0.05 + 1e-3 * B + t_pf + t_dec / 2 + u * t_pf / (2 * (1 - u))
    assert float(r["tpot"]) == pytest.approx(tpot, rel=1e-9)
    assert float(r["ttft"]) == pytest.approx(ttft, rel=1e-9)


def test_mtp_uses_expected_accepted_tokens():
    assert float(E.expected_accepted(3, 0.5)) == pytest.approx(1.875)  # (1 − 0.5⁴) / 0.5
    m = C.instance("h200", 8)
    plain = C.decode_time(CAL, m, 1.0, 1536.0)
    sure = C.decode_time(C.Calibration(**{**CAL.__dict__, "acceptance": 0.999}), m, 1.0, 1536.0, mtp=True)
    never = C.decode_time(C.Calibration(**{**CAL.__dict__, "acceptance": 0.001}), m, 1.0, 1536.0, mtp=True)
    assert never > plain  # drafts that are always rejected only cost time
    assert 2.5 < plain / sure < 4  # nearly k + 1 = 4 tokens per verify, each verify a little dearer


def test_closed_loop_obeys_littles_law():
    m = C.instance("b200", 8, "fp4")
    r = C.closed_loop(CAL, m, np.array([1.0, 16.0, 256.0]), 8192, 1024)
    decoding = 1024 * r["tpot"]
    assert r["batch"] == pytest.approx(np.array([1.0, 16.0, 256.0]) * decoding / (r["ttft"] + decoding), rel=1e-6)
    assert r["throughput_per_gpu"] == pytest.approx(np.array([1.0, 16.0, 256.0]) * 1024 / r["e2e"] / 8)
    assert r["e2e"] == pytest.approx(r["ttft"] + 1024 * r["tpot"])


def test_fp4_halves_weight_bytes_and_uses_the_fp4_rate():
    fp8, fp4 = C.instance("b300", 8, "fp8"), C.instance("b300", 8, "fp4")
    assert fp4.b_w == 0.5 and fp4.compute == pytest.approx(8 * 13_500e12)
    assert C.instance("h200", 8, "fp4").compute == pytest.approx(8 * 1_979e12)  # no FP4 cores: FP8 rate
    assert C.decode_time(CAL, fp4, 4.0, 1536.0) < C.decode_time(CAL, fp8, 4.0, 1536.0)


def test_typical_is_the_geometric_mean():
    a = C.Calibration(0.4, 0.1, 0.1, 0.004, 0.1, 1e-3, 0.5)
    b = C.Calibration(0.9, 0.4, 0.4, 0.016, 0.1, 1e-3, 0.5)
    t = stored_.typical([a, b])
    assert t.bw_fraction == pytest.approx(0.6) and t.step_overhead_s == pytest.approx(0.008)
    assert t.compute_fraction == pytest.approx(0.2)


def test_a_gpu_without_rows_gets_the_geometric_mean_of_the_stacks_fits_queue_terms_included():
    # Prompt admission is no longer one recipe's exception once the scheduler's polling is modelled: the queue
    # terms transfer like every other parameter (f_q √(0.05·0.01), t_adm √(4e-3·1e-4)).
    queues = C.Calibration(0.4, 0.1, 0.1, 0.004, 0.1, 4e-3, 0.5, prefill_queue=0.05)
    batches = C.Calibration(0.9, 0.4, 0.4, 0.016, 0.1, 1e-4, 0.5, prefill_queue=0.01)
    fits = {"b200/sglang/fp8": queues, "h200/sglang/fp8": batches}
    t, basis = stored_.calibration_for("mi355x", "sglang", fits)
    assert basis == "stack typical" and t == stored_.typical([queues, batches])
    assert t.bw_fraction == pytest.approx(0.6) and t.prefill_queue == pytest.approx(np.sqrt(0.05 * 0.01))
    assert t.admission_s == pytest.approx(np.sqrt(4e-3 * 1e-4))


def test_calibration_for_says_where_numbers_come_from():
    other = C.Calibration(0.9, 0.5, 0.3, 0.02, 0.1)
    fits = {"h200/sglang/fp8": CAL, "b200/trt/fp8": CAL, "b200/trt/fp4": other, "b200/sglang/fp8": CAL}
    assert stored_.calibration_for("h200", "sglang", fits) == (CAL, "fitted")
    assert stored_.calibration_for("b200", "trt", fits, "fp4") == (other, "fitted")
    assert stored_.calibration_for("h200", "sglang", fits, "fp4") == (CAL, "fitted at other precision")
    # trt on B200 at both precisions, on H200's datasheet
    assert stored_.calibration_for("h200", "dynamo-trt", fits, "fp4") == (
        stored_.typical([CAL, other]),
        "stack typical",
    )
    assert stored_.calibration_for("h200", "dynamo-trt", fits)[1] == "stack typical"  # trt on B200, H200's datasheet
    assert stored_.calibration_for("b200", "vllm", fits)[1] == "GPU typical"
    assert stored_.calibration_for("mi355x", "vllm", fits)[1] == "datasheet"
    assert stored_.calibration_for("h200", None, fits)[1] == "fitted"  # no stack given: sglang
    for gpu in GPUS:  # every catalog GPU answers from the stored calibration
        cal, _ = stored_.calibration_for(gpu)
        r = C.closed_loop(cal, C.instance(gpu, 8), 64.0, 1024, 1024)
        assert np.isfinite(r["tpot"]) and r["tpot"] > 0


# --- Continuity and monotonicity -------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    isl=st.integers(1, 32768),
    osl=st.integers(1, 32768),
    batch=st.floats(1, 1024),
    gpu=st.sampled_from(sorted(GPUS)),
    framework=st.sampled_from(["sglang", "trt", "vllm", "atom"]),
    wdtype=st.sampled_from(["fp8", "fp4"]),
)
# B200 SGLang's recipe changes its scheduler polling at 16 users: the page and the CLI must not step there.
@example(isl=1024, osl=1024, batch=16.0, gpu="b200", framework="sglang", wdtype="fp4")
def test_runtime_model_is_continuous_and_monotone(isl, osl, batch, gpu, framework, wdtype):
    # What the page and `inferx point` draw: continuous in the batch on both sides, with the stack's settings.
    scn = Scenario.from_params(gpu=gpu, gpus=8, tp=8, mode="calibrated", framework=framework, wdtype=wdtype,
                               isl=max(isl, 128), osl=max(osl, 128))  # fmt: skip
    here = adapter.scenario_point(scn, batch)
    for nudged in (batch * 1.001, batch / 1.001):
        there = adapter.scenario_point(scn, nudged)
        for k in ("step", "ttft"):
            assert abs(float(there[k]) / float(here[k]) - 1) < 0.01, (k, nudged)
    cal, _ = stored_.calibration_for(gpu, framework, None, wdtype)
    m = C.instance(gpu, 8, wdtype)
    base = C.at_batch(cal, m, batch, isl, osl)
    for changed in ({"isl": isl * 1.001}, {"osl": osl * 1.001}, {"B": batch * 1.001}):  # a 0.1 % nudge
        args = {"B": batch, "isl": isl, "osl": osl, **changed}
        r = C.at_batch(cal, m, args["B"], args["isl"], args["osl"])
        for k in ("tpot", "ttft"):
            assert abs(float(r[k]) / float(base[k]) - 1) < 0.01, (k, changed)
    bigger = C.at_batch(cal, m, batch * 2, isl, osl)
    assert bigger["tpot"] >= base["tpot"] and bigger["ttft"] >= base["ttft"]  # more work per step
    longer = C.at_batch(cal, m, batch, isl * 2, osl)
    assert longer["ttft"] > base["ttft"]
    loop = C.closed_loop(cal, m, np.array([batch, batch * 2]), isl, osl)
    # More users never lower the throughput (once the KV cache is full it stays flat).
    assert loop["throughput_per_gpu"][1] >= loop["throughput_per_gpu"][0] * (1 - 1e-9)


def test_scenario_output_length_has_no_jump_at_the_input_length():
    # The context used to set OSL = 2·(ctx − isl): ctx 1,024 → 1,025 went from 2,869 to 51 tok/s.
    a = Scenario.from_params(mode="calibrated", ctx=1024, isl=1024).evaluate([64])
    b = Scenario.from_params(mode="calibrated", ctx=1025, isl=1024).evaluate([64])
    c = Scenario.from_params(mode="calibrated", ctx=900, isl=1024).evaluate([64])
    for k in ("throughput", "ttft", "itl"):
        assert float(b[k][0]) == pytest.approx(float(a[k][0]), rel=1e-3)
        assert np.isfinite(c[k][0])


# --- Cache and imports -----------------------------------------------------------------------


def test_stored_calibration_is_read_once(tmp_path):
    path = tmp_path / "calibration.json"
    path.write_text(stored_.CALIBRATION_FILE.read_text())
    first = stored_.load_stored(path)
    path.write_text("not json any more")  # a second read would fail
    assert stored_.load_stored(path) is first
    assert stored_.load_calibration(path) == first.fitted


def test_runtime_model_does_not_import_pandas():
    code = (
        "import sys; from inferx.scenario.evaluation import Scenario; "
        "Scenario.from_params(mode='calibrated').evaluate([1, 8]); print('pandas' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


# --- Fit and validation on synthetic rows ----------------------------------------------------


def test_fixture_is_what_its_script_writes():
    assert ROWS.read_text() == GEN.rows_text()


@pytest.fixture(scope="module")
def rows():
    return load_measured(ROWS)


@pytest.fixture(scope="module")
def fits(rows):
    return F.fit_all(rows)


def test_fit_recovers_known_parameters(fits):
    assert set(fits) == set(GEN.TRUTH)
    for key, (cal, sigma, n) in fits.items():
        truth = GEN.TRUTH[key]
        assert n == 30
        assert cal.dp_wait_steps == 0 and "dp_wait_steps" not in sigma  # no attention-DP rows to fit it on
        for field in sigma:
            got, want = getattr(cal, field), getattr(truth, field)
            # Within three of the fit's own standard errors, or 6 % where those are tighter than the noise.
            allowed = max(3 * sigma[field], 0.06)
            assert abs(np.log(got / want)) < allowed, (key, field, got, want, sigma[field])
        # The well-determined parameters are determined: overhead, bandwidth, prefill, fixed TTFT cost.
        for field in ("bw_fraction", "prefill_fraction", "step_overhead_s", "request_overhead_s", "acceptance"):
            assert sigma[field] < 0.1, (key, field)


def test_a_parameter_the_rows_do_not_determine_is_said_to_be_so(rows, fits):
    """Six copies of one run fix its three numbers, not the seven parameters behind them: a perfect fit there
    has zero residuals, and the pseudo-inverse alone gave every parameter "± 0 %"."""
    from inferx.cli.calibration import format_calibrations

    one = rows[rows["spec_method"].ne("mtp")].iloc[[0] * 6].reset_index(drop=True)
    cal, sigma = F.fit(one)
    assert sigma and all(np.isnan(s) or np.isinf(s) for s in sigma.values()), sigma
    row = format_calibrations({"h200/sglang/fp8": (cal, sigma, 6)}).splitlines()[2]
    assert "undet." in row and "0%" not in row
    # Thirty distinct runs determine them all (the well-kept fit above).
    assert not any(np.isnan(s) for _, sigma, _ in fits.values() for s in sigma.values())


def test_record_round_trips_through_the_loader(fits, tmp_path):
    record = F.calibration_record(fits, "fidelity_rows.csv")
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(record))
    stored = stored_.load_stored(path)
    assert set(stored.fitted) == set(fits)
    key = "h200/sglang/fp8"
    assert stored.uncertainty[key]["bw_fraction"] == pytest.approx(fits[key][1]["bw_fraction"], rel=1e-3)


def test_band_spread_per_calibration_key_with_the_pooled_one_where_rows_are_few(rows, fits, tmp_path):
    cals = F.calibrations(fits)
    by_key = R.residual_spread_by_key(rows, cals, min_rows=30)
    assert set(by_key) == set(fits)  # 30 rows each in the fixture
    assert not R.residual_spread_by_key(rows, cals, min_rows=31)  # too few rows: no key of its own
    for spread in by_key.values():
        p10, p90 = spread["ttft"]
        assert -0.2 < p10 < 0 < p90 < 0.2  # 3 % noise around the truth
    path = tmp_path / "calibration.json"
    path.write_text(json.dumps(F.calibration_record(fits, "fidelity_rows.csv", R.residual_spread(rows, cals), by_key)))
    key = "h200/sglang/fp8"
    assert stored_.residual_spread("ttft", key, path) == (tuple(by_key[key]["ttft"]), key)
    pooled = stored_.residual_spread("ttft", "b300/trt/fp4", path)
    assert pooled[1] == "pooled" and pooled[0] != by_key[key]["ttft"]
    low, high = stored_.residual_band([100.0], "ttft", key, path)
    assert low[0] == pytest.approx(100 * np.exp(-by_key[key]["ttft"][1]))
    assert high[0] == pytest.approx(100 * np.exp(-by_key[key]["ttft"][0]))


def test_validation_scores_every_gpu_and_cross_validates(rows, fits):
    tables = R.validation_table(rows, F.calibrations(fits))
    table, held = tables["calibrated"], tables["leave-one-GPU-out"]
    for gpu in ("h200", "b200", "mi325x"):
        assert table.loc[f"GPU {gpu}", "rows"] > 0
        for metric in ("tpot", "ttft", "throughput_per_gpu", "e2e", "interactivity"):
            assert table.loc[f"GPU {gpu}", f"{metric}_median"] < 0.05  # the fixture's noise is 3 %
            assert np.isfinite(held.loc[f"GPU {gpu}", f"{metric}_median"])
    # Held out, each GPU is predicted from another stack's fractions on its own datasheet: worse, not absurd.
    assert (held.loc["single-node", "tpot_median"] > table.loc["single-node", "tpot_median"]) and (
        held.loc["single-node", "tpot_median"] < 1.0
    )


def test_energy_is_scored_on_the_rows_that_report_power(rows, fits):
    """Power drawn and joules per output token, at TDP and by load, against rows that say what they drew: here
    0.6 × TDP on the first ten single-node rows, J/token that over their measured tok/s."""
    cals = F.calibrations(fits)
    assert R.validation_table(rows, cals, cross_validate=False)["energy"].empty  # the fixture reports no power
    powered = rows.copy()
    some = powered.index[~powered["disagg"] & ~powered["is_multinode"]][:10]
    board = powered.loc[some, "hardware"].map(lambda gpu: GPUS[gpu].power)
    powered.loc[some, "avg_power_w"] = 0.6 * board
    powered.loc[some, "joules_per_output_token"] = 0.6 * board / powered.loc[some, "output_tput_per_gpu_tok_s"]
    table = R.validation_table(powered, cals, cross_validate=False)["energy"]
    tput = R.predict_calibrated(powered.loc[some], cals)["throughput_per_gpu_calibrated"]
    measured = powered.loc[some, "output_tput_per_gpu_tok_s"]
    draw = stored_.load_stored().power
    by_load = draw.fraction(F.busy_shares(powered.loc[some], cals))
    for name, fraction in (("TDP (article physics)", 1.0), ("by load (calibrated)", by_load)):
        r = table.loc[name]
        power = (fraction / 0.6 - 1) * np.ones(10)
        joules = (fraction / 0.6 * measured / tput - 1).abs()
        assert r["rows"] == 10 and r["fraction"] == pytest.approx(np.median(fraction * np.ones(10)))
        assert r["power_median"] == pytest.approx(np.median(np.abs(power)))
        assert r["joules_median"] == pytest.approx(joules.median())
        assert r["joules_p90"] == pytest.approx(joules.quantile(0.9))
    text = R.format_validation(R.validation_table(powered, cals, cross_validate=False))
    assert "TDP (article physics)             10   1.00 |  66.7%  66.7%" in text


def test_calibrate_table_keeps_its_columns_for_long_keys_and_huge_spreads():
    from inferx.cli.calibration import format_calibrations

    cal = stored_.calibration_for("b200", "sglang", None, "fp8")[0]
    fields = list(cal.__dict__)
    wild = {fields[0]: float("inf"), fields[1]: 1.0e4, fields[2]: 12.58, fields[3]: 0.25}
    fits = {"b200/sglang/fp8": (cal, {fields[3]: 0.25}, 15), "mi355x/sglang/fp4": (cal, wild, 13)}
    lines = format_calibrations(fits).splitlines()
    table = [lines[0], *lines[2:-1]]
    assert len({len(line) for line in table}) == 1, table  # every row as wide as the header
    assert lines[1] == "-" * len(lines[0])
    row = lines[-2]
    assert row.startswith("mi355x/sglang/fp4 ") and "±  bound" in row and "± >100×" in row and "± 1258%" in row


def test_validate_table_keeps_its_columns_for_huge_errors():
    """A run measured at 1e-300 ms is off by 10^300 %: the cell says ">1000%" in the column's six characters."""
    cells = {f"{m}_{q}": v for m in R.METRIC_NAMES for q, v in (("median", 0.123), ("p90", 9.9996))}  # 1000.0%
    rows = [{"rows": 8, **cells}, {"rows": 2, **cells, "ttft_median": float("nan"), "ttft_p90": 1e300}]
    table = pd.DataFrame(rows, index=["a", "b"])
    lines = R.format_summary(table, "title").splitlines()
    assert len({len(line) for line in lines[1:]}) == 1, lines
    assert lines[4].count(" 12.3% >1000%") == len(R.METRIC_NAMES) and "     —" in lines[5]


def test_validate_names_its_speculation_groups_once():
    rows = pd.DataFrame(
        {
            "disagg": [False, False],
            "is_multinode": [False, False],
            "spec_method": ["mtp", "none"],
            "hardware": ["b200", "b200"],
            "precision": ["fp8", "fp8"],
            "framework": ["sglang", "sglang"],
            "isl": [1024, 1024],
            "osl": [1024, 1024],
        }
    )
    names = [name for name, sel in R._groups(rows) if sel.any()]
    assert {"MTP", "no MTP", "fp8 MTP", "fp8 no MTP", "GPU b200"} <= set(names), names
    assert not any("MTP MTP" in n or "MTP no" in n for n in names), names


def test_validate_cli_on_a_gpu_it_never_saw(tmp_path):
    only = tmp_path / "mi325x.csv"
    lines = ROWS.read_text().splitlines()
    only.write_text("\n".join([lines[0], *(x for x in lines[1:] if x.startswith("mi325x"))]) + "\n")
    out = subprocess.run(
        [sys.executable, "-m", "inferx", "validate", "--measured", str(only)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert any(line.startswith("GPU mi325x") and line.count("%") == 10 for line in out.stdout.splitlines())
    assert "mi325x   sglang         fp8  stack typical" in out.stdout  # sglang's typical fit on the MI325X datasheet


# --- The Scenario, the CLI and disaggregated serving -------------------------------------------


def test_point_prints_the_calibrated_ttft_and_prefill_the_page_uses():
    args = ["--preset", "b200x8", "--mode", "calibrated", "--wdtype", "fp4", "--isl", "8192", "--ctx", "8704"]
    out = subprocess.run(
        [sys.executable, "-m", "inferx", "point", *args, "--batch", "32"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    record = json.loads(out.stdout)
    scn = Scenario.from_params(preset="b200x8", mode="calibrated", wdtype="fp4", isl=8192, ctx=8704)
    point = adapter.scenario_point(scn, 32.0)
    assert record["ttft_ms"] == pytest.approx(1e3 * float(point["ttft"]), rel=1e-5)
    assert record["t_prefill_ms"] == pytest.approx(1e3 * float(point["t_prefill"]), rel=1e-5)
    # FP4 weights on a B200: the B200/SGLang/FP4 calibration and the FP4 tensor rate (twice FP8).
    cal, m, *_ = adapter._scenario_inputs(scn)
    assert cal == stored_.calibration_for("b200", "sglang", None, "fp4")[0]
    assert m.compute == pytest.approx(8 * 9_000e12)


def test_all_to_all_by_hand():
    from inferx.serving.disagg import NETWORK_BW, all_to_all

    # 64 tokens × 8 experts × 7,168 FP8 bytes, dispatched and combined, over 8 GPUs of one NVLink 5 domain.
    per_gpu = 2 * 64 * 8 * 7168 / 8
    expected = 58 * (per_gpu / 900e9 + 2 * 10e-6)
    got = all_to_all(np.array([64.0]), np.array([8.0]), np.array(["b200"]))
    assert float(got[0]) == pytest.approx(expected)
    across = all_to_all(np.array([64.0]), np.array([16.0]), np.array(["b200"]))  # 16 GPUs: two nodes
    assert float(across[0]) == pytest.approx(58 * (2 * 64 * 8 * 7168 / 16 / NETWORK_BW + 2 * 10e-6))


def test_disaggregated_decode_has_no_prefill_stall(rows):
    from inferx.serving.disagg import predict_disaggregated

    single = rows[(rows["hardware"] == "h200") & (rows["spec_method"] == "none")].head(5).copy()
    disagg = single.assign(disagg=True, is_multinode=True, num_prefill_gpu_raw=8.0, num_decode_gpu_raw=8.0,
                           prefill_tp=8.0, prefill_ep=1.0, decode_tp=8.0, decode_ep=1.0)  # fmt: skip
    cal = GEN.TRUTH["h200/sglang/fp8"]
    split = predict_disaggregated(cal, disagg)
    joint = F.predict_single(cal, single)
    # Prefills move to their own pool: decode is faster, and throughput per decode GPU is higher.
    assert (split["tpot"] < joint["tpot"]).all()
    assert np.all(np.isfinite(split["ttft"])) and (split["ttft"] > 0).all()
    mean_osl = MEAN_LENGTH_FRACTION * single["osl"].to_numpy()
    assert split["e2e"] == pytest.approx(split["ttft"] + mean_osl * split["tpot"])


def test_a_disaggregated_request_pays_the_fixed_cost_in_both_engines(rows):
    from inferx.serving.disagg import ENGINES_PER_REQUEST, predict_disaggregated

    single = rows[(rows["hardware"] == "h200") & (rows["spec_method"] == "none")].head(1)
    disagg = single.assign(disagg=True, is_multinode=True, num_prefill_gpu_raw=8.0, num_decode_gpu_raw=8.0,
                           prefill_tp=8.0, prefill_ep=1.0, decode_tp=8.0, decode_ep=1.0, concurrency=1)  # fmt: skip
    cal = C.Calibration(**{**GEN.TRUTH["h200/sglang/fp8"].__dict__, "admission_s": 0.0, "prefill_queue": 0.0})
    slower = C.Calibration(**{**cal.__dict__, "request_overhead_s": cal.request_overhead_s + 0.05})
    # The prefill worker's engine and then the decode worker's each take the request in: 50 ms more per engine.
    assert ENGINES_PER_REQUEST == 2
    gap = predict_disaggregated(slower, disagg)["ttft"] - predict_disaggregated(cal, disagg)["ttft"]
    np.testing.assert_allclose(gap, 2 * 0.05, rtol=1e-2)


def test_a_prompt_of_two_chunks_waits_one_more_iteration():
    m = C.instance("h200", 8)
    one = C.at_batch(CAL, m, 8.0, C.PREFILL_CHUNK_TOKENS, 1024)
    two = C.at_batch(CAL, m, 8.0, 2 * C.PREFILL_CHUNK_TOKENS, 1024)
    plain = dict(CAL.__dict__, request_overhead_s=0.0, admission_s=0.0)
    # Everything else in TTFT, recomputed for the longer prompt: only the chunk term is new.
    r = C.at_batch(C.Calibration(**plain), m, 8.0, 2 * C.PREFILL_CHUNK_TOKENS, 1024)
    u, t_pf = float(r["prefill_share"]), float(r["t_prefill"])
    base = t_pf + float(r["t_decode"]) / 2 + u * t_pf / (2 * (1 - u))
    assert float(r["ttft"]) == pytest.approx(base + float(r["t_decode"]))
    assert float(two["ttft"]) > float(one["ttft"])


def test_prefill_attention_runs_at_bf16_whatever_the_weights():
    # 8 B200: FP8 4.5 PFLOP/s, FP4 9 PFLOP/s, BF16 2.25 PFLOP/s dense each; f_bw 0.5, f_pf 0.2.
    isl = 8192.0
    gemm, attention = 2 * 37e9 * isl, 4 * 61 * 128 * 128 * isl**2
    for precision, b_w, rate in (("fp8", 1.0, 4500e12), ("fp4", 0.5, 9000e12)):
        m = C.instance("b200", 8, precision)
        assert m.attention_speed == pytest.approx(2250e12 / rate)
        expected = b_w * 671e9 / (0.5 * 8 * 8e12) + gemm / (0.2 * 8 * rate) + attention / (0.2 * 8 * 2250e12)
        assert float(C.prefill_time(CAL, m, isl)) == pytest.approx(expected, rel=1e-3)


def test_with_mtp_the_first_token_waits_one_more_iteration():
    m = C.instance("h200", 8)
    plain = C.Calibration(**dict(CAL.__dict__, request_overhead_s=0.0, admission_s=0.0))
    r = C.at_batch(plain, m, 8.0, 1024.0, 1024.0, mtp=True)
    u, t_pf = float(r["prefill_share"]), float(r["t_prefill"])
    iteration = float(r["t_decode"]) * E.expected_accepted(C.MTP_DRAFTS, plain.acceptance)
    assert float(r["ttft"]) == pytest.approx(t_pf + 1.5 * iteration + u * t_pf / (2 * (1 - u)))
    # A stack whose MTP rows fit m = 2 iterations before the first token: half an iteration in flight plus two.
    two = C.Calibration(**dict(plain.__dict__, first_token_steps=2.0))
    r2 = C.at_batch(two, m, 8.0, 1024.0, 1024.0, mtp=True)
    assert float(r2["ttft"]) == pytest.approx(t_pf + 2.5 * iteration + u * t_pf / (2 * (1 - u)))
    assert float(r2["tpot"]) == float(r["tpot"])  # only the first token waits


def test_a_saturated_prefill_pool_paces_the_disaggregated_closed_loop(rows):
    from inferx.serving.disagg import predict_disaggregated

    single = rows[(rows["hardware"] == "h200") & (rows["spec_method"] == "none") & (rows["isl"] == 1024)].head(3)
    # One 8-GPU prefill worker for 4,096 users of 8k prompts, 64 decode GPUs: prefill is the bottleneck.
    disagg = single.assign(disagg=True, is_multinode=True, num_prefill_gpu_raw=8.0, num_decode_gpu_raw=64.0,
                           prefill_tp=8.0, prefill_ep=1.0, decode_tp=8.0, decode_ep=1.0, isl=8192,
                           concurrency=4096)  # fmt: skip
    cal = GEN.TRUTH["h200/sglang/fp8"]
    r = predict_disaggregated(cal, disagg)
    m = C.Instance(bw=8 * 4.8e12, compute=8 * 1.979e15, gpus=8, tp=8, kv_copies=8, attention_speed=0.5)
    isl = MEAN_LENGTH_FRACTION * 8192
    per_request = float(C.prefill_time(cal, m, isl)) - 671e9 / (cal.bw_fraction * 8 * 4.8e12)  # weights once a batch
    # Little's law: requests complete at the pool's capacity, so E2E = concurrency × per-request prefill time.
    np.testing.assert_allclose(r["e2e"], 4096 * per_request, rtol=1e-3)


def test_validate_lists_rows_it_cannot_model(tmp_path):
    lines = ROWS.read_text().splitlines()
    odd = lines[1].replace("h200,", "tpu-v5,", 1)
    path = tmp_path / "mixed.csv"
    path.write_text("\n".join([lines[0], lines[1], odd]) + "\n")
    out = subprocess.run(
        [sys.executable, "-m", "inferx", "validate", "--measured", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    # Left out of the tables and their counts, and named on stderr with how to score it.
    assert "left out 1 row of GPUs not in the catalog ('tpu-v5')" in out.stderr and "tpu-v5" not in out.stdout
    assert any(line.split()[:2] == ["single-node", "1"] for line in out.stdout.splitlines()), out.stdout[:400]


def _rerun(rows, key, tpot_factor):
    """A key's non-MTP rows twice: an older run with TPOT × tpot_factor, then the newest run as measured."""
    part = rows[(F.stack_key(rows) == key) & rows["spec_method"].ne("mtp")]
    old, new = part.copy(), part.copy()
    old["date"], new["date"] = "2025-12-01", "2026-02-01"
    old["median_tpot_ms"] *= tpot_factor
    return old, new


def test_the_newest_run_of_a_configuration_weighs_most(rows, monkeypatch):
    old, new = _rerun(rows, "h200/sglang/fp8", 1.5)
    both = pd.concat([old, new], ignore_index=True)
    assert F.newest_run(both).tolist() == [False] * len(old) + [True] * len(new)
    assert F.run_weights(both).tolist() == [F.OLDER_RUN_WEIGHT] * len(old) + [1.0] * len(new)
    truth = GEN.TRUTH["h200/sglang/fp8"].step_overhead_s
    weighted, _ = F.fit(both)
    monkeypatch.setattr(F, "OLDER_RUN_WEIGHT", 1.0)
    alike, _ = F.fit(both)
    # The stale runs' slower steps pull a fit that weighs every run alike further from today's.
    assert abs(np.log(weighted.step_overhead_s / truth)) < abs(np.log(alike.step_overhead_s / truth))
    newest = R.validation_table(both, {"h200/sglang/fp8": weighted}, cross_validate=False)["newest"]
    assert newest.loc["single-node", "rows"] == len(new)


def test_a_new_prompt_waits_behind_a_share_of_the_prefills_in_flight(monkeypatch):
    m = C.Instance(bw=8 * 4.8e12, compute=8 * 1.979e15, gpus=8, tp=8, kv_copies=8)
    queued = C.Calibration(**dict(CAL.__dict__, prefill_queue=0.05))
    for isl, B in ((1024.0, 1.0), (1024.0, 64.0), (8192.0, 64.0)):
        plain, r = C.at_batch(CAL, m, B, isl, 1024.0), C.at_batch(queued, m, B, isl, 1024.0)
        # f_q · (B − 1) · t_pf: nothing for a lone request, 8k prompts wait ~8×+ longer than 1k ones.
        extra = 0.05 * (B - 1.0) * float(r["t_prefill"])
        assert float(r["ttft"] - plain["ttft"]) == pytest.approx(extra, rel=1e-9, abs=1e-12)
        assert float(r["tpot"]) == float(plain["tpot"])
    # The page and `inferx point` (scenario_point) add the same wait.
    scn = Scenario.from_params(mode="calibrated", isl=8192, osl=1024)
    points = []
    for cal in (CAL, queued):
        monkeypatch.setattr(adapter, "calibration_for", lambda *a, cal=cal, **k: (cal, "fitted"))
        points.append(adapter.scenario_point(scn, np.array([1.0, 64.0])))
    extra = points[1]["ttft"] - points[0]["ttft"]
    assert extra == pytest.approx(0.05 * np.array([0.0, 63.0]) * points[1]["t_prefill"], rel=1e-9, abs=1e-12)


def test_a_run_that_stalled_once_reports_less_throughput_by_hand():
    # 4 users send 40 prompts of E2E 8 s: 80 s in steady state. A 74 s wait before the first tokens stretches the
    # run to 154 s, so 58 tok/s per GPU in steady state are reported as 58 · 80 / 154 = 30.13.
    assert C.run_throughput(58.0, 8.0, 74.0) == pytest.approx(58.0 * 80.0 / 154.0)
    assert C.run_throughput(58.0, 8.0, 0.0) == 58.0
    # The stall is the run's p99 TTFT beyond its median; a row without a p99, or with none beyond, has none.
    rows = pd.DataFrame({"p99_ttft_ms": [73_476.0, np.nan, 100.0], "median_ttft_ms": [225.0, 300.0, 150.0]})
    np.testing.assert_allclose(F.startup_stall(rows), [73.251, 0.0, 0.0])
    assert F.startup_stall(rows.drop(columns="p99_ttft_ms")).tolist() == [0.0, 0.0, 0.0]


def test_a_stalled_run_moves_the_predicted_throughput_not_the_latencies(rows):
    from inferx.serving.disagg import predict_disaggregated

    cal = GEN.TRUTH["h200/sglang/fp8"]
    single = rows[(rows["hardware"] == "h200") & (rows["spec_method"] == "none")].head(4)
    stalled = single.assign(p99_ttft_ms=single["median_ttft_ms"] + 70_000.0)
    steady, run = F.predict_single(cal, single), F.predict_single(cal, stalled)
    for metric in ("tpot", "ttft", "e2e"):
        np.testing.assert_allclose(run[metric], steady[metric])
    expected = steady["throughput_per_gpu"] * 10 * steady["e2e"] / (10 * steady["e2e"] + 70.0)
    np.testing.assert_allclose(run["throughput_per_gpu"], expected)
    # The same in the disaggregated model, per decode GPU.
    layout = dict(disagg=True, is_multinode=True, num_prefill_gpu_raw=8.0, num_decode_gpu_raw=8.0, prefill_tp=8.0,
                  prefill_ep=1.0, decode_tp=8.0, decode_ep=1.0)  # fmt: skip
    split = predict_disaggregated(cal, single.assign(**layout))
    split_run = predict_disaggregated(cal, stalled.assign(**layout))
    np.testing.assert_allclose(split_run["ttft"], split["ttft"])
    assert (split_run["throughput_per_gpu"] < 0.9 * split["throughput_per_gpu"]).all()


def test_a_new_request_waits_for_the_schedulers_next_look_at_its_queue():
    # One look every N iterations while others decode: N/2 iterations on average instead of the half in flight.
    every = C.Instance(bw=8 * 4.8e12, compute=8 * 1.979e15, gpus=8, tp=8, kv_copies=8)
    tenth = C.Instance(**{**every.__dict__, "poll_iterations": 10.0})
    # The busy share 1 − e^(−(B − 1)/8) of the N/2 − 1/2 = 4.5 iterations more: 0.12 of them at B = 2, 0.58 at
    # 8, all but 4e-4 at 64.
    for B in (2.0, 8.0, 64.0):
        one, ten = C.at_batch(CAL, every, B, 1024.0, 1024.0), C.at_batch(CAL, tenth, B, 1024.0, 1024.0)
        busy = 1.0 - np.exp(-(B - 1.0) / 8.0)
        assert float(ten["ttft"] - one["ttft"]) == pytest.approx(busy * 4.5 * float(one["t_decode"]), rel=1e-9)
        assert float(ten["tpot"]) == float(one["tpot"])
    # A lone request finds the server idle: it is taken at once, and the wait grows continuously from there.
    assert float(C.at_batch(CAL, tenth, 1.0, 1024.0, 1024.0)["ttft"]) == float(
        C.at_batch(CAL, every, 1.0, 1024.0, 1024.0)["ttft"]
    )
    near = [float(C.at_batch(CAL, tenth, b, 1024.0, 1024.0)["ttft"]) for b in (1.0, 1.001)]
    assert near[1] / near[0] - 1 < 0.01


def test_poll_intervals_are_the_recipes():
    conc = np.array([4.0, 8.0, 16.0, 64.0])
    eight = np.full(4, 8.0)
    assert list(C.poll_interval("b200", "sglang", "fp4", conc, eight)) == [10, 10, 30, 30]  # --scheduler-recv-interval
    assert list(C.poll_interval("b200", "sglang", "fp8", conc, np.full(4, 4.0))) == [10, 10, 10, 10]  # TP4 recipe
    assert list(C.poll_interval("mi355x", "sglang", "fp8", conc, eight)) == [4] * 4  # --num-continuous-decode-steps
    assert list(C.poll_interval("mi300x", "sglang", "fp8", conc, eight)) == [4] * 4
    for gpu, stack in (("h200", "sglang"), ("b200", "trt"), ("mi355x", "atom"), ("b300", "sglang")):
        assert list(C.poll_interval(gpu, stack, "fp8", conc, eight)) == [1] * 4
    # The fit's instances carry them per row.
    rows = pd.DataFrame({"hardware": ["b200", "b200", "h200"], "framework": ["sglang", "sglang", "sglang"],
                         "precision": ["fp4", "fp4", "fp8"], "n_gpus": [8, 8, 8], "concurrency": [8, 32, 32],
                         "decode_dp_attention": [False] * 3})  # fmt: skip
    assert list(F.row_machine(rows).poll_iterations) == [10, 30, 1]


def test_the_page_and_point_wait_for_the_stacks_scheduler_at_one_interval(monkeypatch):
    scn = Scenario.from_params(preset="b200x8", mode="calibrated", framework="sglang", isl=1024, osl=1024)
    B = np.array([1.0, 8.0, 15.0, 16.0, 32.0])
    polled = adapter.scenario_point(scn, B)
    assert adapter.scenario_calibration(scn)["poll_iterations"] == 30.0
    # One value per GPU, stack and precision, whatever the GPU count (the calibration line follows those three);
    # stacks that look at every iteration wait half of one.
    four = Scenario.from_params(gpu="b200", gpus=4, tp=4, mode="calibrated", framework="sglang", wdtype="fp8")
    assert adapter.scenario_calibration(four)["poll_iterations"] == 30.0
    for gpu, stack in (("h200", "sglang"), ("b200", "trt"), ("mi355x", "atom")):
        other = Scenario.from_params(gpu=gpu, gpus=8, tp=8, mode="calibrated", framework=stack)
        assert adapter.scenario_calibration(other)["poll_iterations"] == 1.0
    monkeypatch.setattr(C, "poll_interval", lambda *a, **k: 1.0)
    every = adapter.scenario_point(scn, B)
    # B200 SGLang's recipe looks every 30 iterations from 16 users up; a scenario keeps that at every batch (a
    # recipe's concurrency is not the scenario's batch), so up to 14.5 iterations more as others decode (the busy
    # share 1 − e^(−(B − 1)/8)), none for a lone request. An iteration is a decode step with its collectives, as in
    # `at_batch` (prefills run apart).
    waits = 14.5 * (1.0 - np.exp(-(B - 1.0) / C.POLL_BUSY_USERS))
    iteration = every["step"] - B / scn.osl * every["t_prefill"] + scn.comm_time(B)
    assert polled["ttft"] - every["ttft"] == pytest.approx(waits * iteration, rel=1e-9)
    assert np.array_equal(polled["step"], every["step"])


def test_point_and_the_page_line_name_the_scheduler_interval(capsys):
    from inferx import cli
    from pages._controls import calibration_line
    from pages._url import parse_query

    assert cli.main(["point", "--mode", "calibrated", "--preset", "b200x8", "--framework", "sglang"]) == 0
    assert json.loads(capsys.readouterr().out)["calibration"]["poll_iterations"] == 30.0
    values, _, _ = parse_query({"mode": "calibrated", "preset": "b200x8", "framework": "sglang"})
    assert "scheduler looks for new requests every 30 iterations" in str(calibration_line(values))
    values, _, _ = parse_query({"mode": "calibrated", "framework": "trt"})
    assert "scheduler looks for new requests every iteration" in str(calibration_line(values))


SCENARIO_BATCHES = np.unique(np.concatenate([np.arange(1.0, 65.0), np.geomspace(1.0, 1024.0, 120)]))


@pytest.mark.parametrize("wdtype", ["fp8", "fp4"])
@pytest.mark.parametrize("framework", ["sglang", "trt", "vllm", "atom"])
def test_page_and_point_are_continuous_in_the_batch_for_every_gpu_and_stack(framework, wdtype):
    """What the page and `inferx point` draw never steps in B: 0.1 % less batch moves no output by 1 %, at every
    whole batch up to 64 (where recipes change a setting with the users) and across the slider's range, on every
    catalog GPU with every stack and weight precision (the recipes' settings included)."""
    for gpu in sorted(GPUS):
        scn = Scenario.from_params(gpu=gpu, gpus=8, tp=8, mode="calibrated", framework=framework, wdtype=wdtype)
        here = adapter.scenario_point(scn, SCENARIO_BATCHES)
        below = adapter.scenario_point(scn, SCENARIO_BATCHES * (1 - 1e-3))
        for k in ("step", "ttft"):
            jump = np.abs(below[k] / here[k] - 1)
            assert np.all(np.isfinite(here[k])) and jump.max() < 0.01, (gpu, k, SCENARIO_BATCHES[jump.argmax()])


def test_with_attention_data_parallelism_a_prompts_attention_runs_on_its_rank_alone():
    # MLA projections per layer: q down 7168·1536, q up 1536·128·(128+64), kv down 7168·(512+64), kv up
    # 512·128·(128+128), out 128·128·7168; 61 layers.
    per_layer = 7168 * 1536 + 1536 * 128 * 192 + 7168 * 576 + 512 * 128 * 256 + 128 * 128 * 7168
    assert C.attention_projection_params() == 61 * per_layer
    ranks = C.instance("b200", 8, "fp4", dp_attention=True)
    spread = C.Instance(**{**ranks.__dict__, "dp_attention": False})  # the same KV copies, attention over 8
    isl = 8192.0
    work = 2 * 61 * per_layer * isl + 4 * 61 * 128 * 128 * isl**2 * 9000e12 / 2250e12  # attention at BF16
    alone = 7 * work / (CAL.prefill_fraction * 8 * 9000e12)  # on 1 GPU instead of 8
    assert float(C.rank_attention_time(CAL, ranks, isl)) == pytest.approx(alone, rel=1e-9)
    assert float(C.rank_attention_time(CAL, spread, isl)) == 0.0
    # CAL has no balancing wait (w_dp 0): only the prompt's own prefill grows; the engine's stall does not.
    a, b = C.at_batch(CAL, spread, 64.0, isl, 1024.0), C.at_batch(CAL, ranks, 64.0, isl, 1024.0)
    assert float(b["ttft"] - a["ttft"]) == pytest.approx(alone, rel=1e-6)
    assert float(b["tpot"]) == pytest.approx(float(a["tpot"]), rel=1e-9) and float(b["t_prefill"]) == float(
        a["t_prefill"]
    )
