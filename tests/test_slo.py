"""Goodput under TTFT/TPOT targets: the boundary batch against hand-found ones, and `inferx slo`."""

import json
from pathlib import Path

import numpy as np
import pytest
from cli_checks import run_inferx

from inferx.analysis import economics, slo
from inferx.physics import hardware
from inferx.physics.gpu_spec import spec_key
from inferx.scenario.controls import InvalidParameter
from inferx.scenario.evaluation import Scenario

# DeepSeek R1, 8×H200 preset, FP8, S = S_in = 1024, TP = 1 (no communication), CV = 0, η = 0.87.
KV_PER_REQUEST = 61 * 576 * 1024
BW, COMPUTE, P_ACTIVE, B_MAX = 38.4e12, 31.664e15, 37e9, 11050

GAUDI3 = Path(__file__).parent / "fixtures" / "gpu_specs" / "gaudi3.json"


def hand_itl(B):
    return max((P_ACTIVE + B * KV_PER_REQUEST) / BW, 2 * P_ACTIVE * B / COMPUTE)


def hand_ttft(B):
    prefill = (2 * P_ACTIVE * 1024 + 4 * 61 * 128 * 128 * 1024**2) / COMPUTE
    return prefill + 0.5 * hand_itl(B) / (1 - B / B_MAX)


@pytest.fixture(scope="module")
def tp1():
    return Scenario.from_params(tp=1)


def test_tpot_boundary_by_hand(tp1):
    # Memory-bound: (37e9 + B·35,979,264) / 38.4e12 ≤ 1.5 ms  →  B ≤ 20.6e9 / 35,979,264 = 572.55.
    assert (1.5e-3 * BW - P_ACTIVE) / KV_PER_REQUEST == pytest.approx(572.55, abs=0.01)
    g = slo.goodput(tp1, ttft_ms=1e6, tpot_ms=1.5)
    assert g["batch"] == 572 and g["limited_by"] == "tpot"
    assert g["itl_ms"] == pytest.approx(1e3 * hand_itl(572))
    assert g["throughput_tok_s"] == pytest.approx(572 / hand_itl(572))


def test_ttft_boundary_by_hand(tp1):
    # The largest B with t_prefill + ½·ITL(B)/(1 − B/B_max) ≤ 100 ms, found by walking every batch size.
    expected = max(B for B in range(1, B_MAX) if hand_ttft(B) <= 0.1)
    g = slo.goodput(tp1, ttft_ms=100, tpot_ms=1e6)
    assert g["batch"] == expected and g["limited_by"] == "ttft"
    assert g["ttft_ms"] == pytest.approx(1e3 * hand_ttft(expected))
    assert hand_ttft(expected + 1) > 0.1


def test_largest_batch_is_the_best_throughput_that_meets_both():
    scn = Scenario.from_params(ctx=8192, preset="mi300x4")
    B = np.arange(1, scn.b_max + 1)
    r = scn.evaluate(B)
    ok = slo.meets(r["ttft"], r["itl"], 0.5, 0.05)
    g = slo.goodput(scn)
    assert ok[: g["batch"]].all() and not ok[g["batch"] :].any()  # the batches that meet form 1…B_slo
    assert g["throughput_tok_s"] == pytest.approx(r["throughput"][ok].max())
    np.testing.assert_array_equal(slo.frontier_mask(scn, B), ok)


@pytest.mark.parametrize(
    "params", [{}, {"preset": "mi300x4", "ctx": 8192}, {"tp": 1}, {"preset": "b200x8", "ctx": 131072}]
)
@pytest.mark.parametrize("ttft_ms, tpot_ms", [(500, 50), (100, 1e6), (1e6, 20), (1e5, 1e5)])
def test_goodput_states_a_fresh_evaluation_at_its_batch(params, ttft_ms, tpot_ms):
    """goodput takes B_slo's numbers, and B_slo + 1's, from its search's passes: they must be what evaluating
    those batch sizes alone gives, and the limit it names must be the one that B_slo + 1 breaks."""
    scn = Scenario.from_params(**params)
    g = slo.goodput(scn, ttft_ms, tpot_ms)
    b = g["batch"]
    assert b > 0
    at = {k: float(v[0]) for k, v in scn.evaluate([b]).items()}
    assert (g["throughput_tok_s"], g["ttft_ms"], g["itl_ms"], g["rho"]) == (
        at["throughput"],
        1e3 * at["ttft"],
        1e3 * at["itl"],
        at["rho"],
    )
    nxt = scn.evaluate([b + 1])
    if b + 1 == scn.b_max:
        assert g["limited_by"] == "b_max"
    else:
        assert not slo.meets(nxt["ttft"], nxt["itl"], ttft_ms / 1e3, tpot_ms / 1e3)[0]
        assert g["limited_by"] == ("ttft" if nxt["ttft"][0] > ttft_ms / 1e3 else "tpot")


def test_goodput_reports_cost_and_energy_at_the_point():
    g = slo.goodput(Scenario.from_params(), usd_per_gpu_hour=2.0, power_fraction=0.5)
    T = g["throughput_tok_s"]
    assert g["cost_per_mtok_usd"] == pytest.approx(16 / (3600 * T / 1e6))  # 8 GPUs × $2/h
    assert g["tokens_per_joule"] == pytest.approx(T / (8 * 700 * 0.5))
    assert g["throughput_per_gpu_tok_s"] == pytest.approx(T / 8)


def test_capacity_limits_a_loose_target():
    scn = Scenario.from_params(preset="b200x8", ctx=131072)
    g = slo.goodput(scn, ttft_ms=1e5, tpot_ms=1e5)
    assert g["batch"] == scn.b_max - 1 and g["limited_by"] == "b_max"


def test_nothing_meets_a_target_below_one_request():
    g = slo.goodput(Scenario.from_params(), ttft_ms=0.1)
    assert g["batch"] == 0 and g["limited_by"] == "ttft" and g["reason"].startswith("B = 1 misses: TTFT 3.6")


def test_a_single_request_machine_has_no_stable_point():
    # 690 GB of HBM at 50 % utilisation leaves room for one 131,072-token FP16 KV cache: ρ = 1 at B = 1.
    scn = Scenario.from_params(preset="mi300x4", ctx=131072, kvdtype="fp16", hbm=690, util=50)
    assert scn.b_max == 1
    g = slo.goodput(scn)
    assert g["batch"] == 0 and g["limited_by"] == "b_max" and g["reason"].startswith("B_max is 1")


def test_unfit_scenario_says_why():
    g = slo.goodput(Scenario.from_params(wdtype="fp16"))
    assert g["batch"] == 0 and "GB of weights; the machine has" in g["reason"]


@pytest.mark.parametrize("value", [0, -5, "abc", float("nan"), None])
def test_bad_target_is_refused(value):
    with pytest.raises(InvalidParameter, match="must be a positive number of milliseconds"):
        slo.goodput(Scenario.from_params(), ttft_ms=value)


def test_search_covers_the_catalog_at_every_count_with_tp_across_it():
    rows = slo.search({"ctx": 1024}, tpot_ms=20)
    found = {(r["gpu"], r["gpus"], r["tp"], r["pp"]) for r in rows}
    # Nine GPUs in 8-GPU domains at 1, 2, 4 and 8 GPUs; GB200's NVL72 rack at 1 to 64. One layout each: TP across
    # the count (the article's model charges a pipeline only its hand-offs, so a PP split would always win).
    assert len(rows) == len(found) == 9 * 4 + 7
    assert all(pp == 1 and tp == n for _, n, tp, pp in found)
    met = [r for r in rows if r["batch"]]
    assert [r["cost_per_mtok_usd"] for r in met] == sorted(r["cost_per_mtok_usd"] for r in met)
    assert rows[: len(met)] == met  # those that meet nothing come last, each with its reason
    assert all(r["reason"] for r in rows[len(met) :])
    one = next(r for r in rows if (r["gpu"], r["gpus"]) == ("h200", 1))
    assert one["reason"] == "needs 671 GB of weights; the machine has 141 GB" and one["machine"] == "1×H200 SXM"


def test_a_candidate_is_its_datasheet_machine():
    # 8 × H200 from the catalog: 8 × 4.8 TB/s, 8 × 141 GB and 8 × 1,979 TFLOPS of dense FP8, half the sparse
    # 31,664 TFLOPS the article's preset quotes, so every GPU in a search stands on its dense datasheet.
    params = next(c for c in slo.candidates({}) if (c["gpu"], c["gpus"], c["tp"]) == ("h200", 8, 8))
    scn = Scenario.from_params(**params)
    assert (scn.bw, scn.hbm, scn.compute) == pytest.approx((38.4e12, 1128e9, 15.832e15))
    assert scn.compute == pytest.approx(Scenario.from_params().compute / 2, rel=1e-3)
    assert scn.b_max == B_MAX  # the preset's HBM, so the preset's KV room
    row = next(r for r in slo.search({}) if (r["gpu"], r["gpus"], r["tp"]) == ("h200", 8, 8))
    assert row["batch"] == slo.goodput(scn)["batch"] and row["usd_per_gpu_hour"] == 3.5


def test_search_narrows_to_a_gpu_and_a_count():
    rows = slo.search({"gpu": "b300", "wdtype": "fp4"}, tpot_ms=20, usd_per_gpu_hour=7)
    assert {(r["gpus"], r["tp"], r["pp"]) for r in rows} == {(n, n, 1) for n in (1, 2, 4, 8)}
    assert {r["usd_per_gpu_hour"] for r in rows if r["batch"]} == {7}  # a price given is every GPU's
    # DeepSeek-R1 at FP4 is 671e9 × 0.5 bytes: one 288 GB B300 cannot hold it.
    assert rows[-1]["gpus"] == 1 and rows[-1]["reason"] == "needs 336 GB of weights; the machine has 288 GB"
    counts = slo.search({"gpus": "4", "mode": "calibrated"})
    assert {r["gpus"] for r in counts} == {4} and {r["gpu"] for r in counts} == set(hardware.GPUS)
    assert {r["calibration_basis"] for r in counts if r["gpu"] == "h200"} == {"fitted"}
    assert {r["calibration_basis"] for r in counts if r["gpu"] == "mi325x"} == {"transferred"}
    across = slo.candidates({"gpu": "h200", "gpus": 16})  # two 8-GPU NVLink domains: TP within, a stage each
    assert [(c["tp"], c["pp"], c["ic"]) for c in across] == [(8, 2, "tiered")]
    assert {c["ic"] for c in slo.candidates({})} == {"scale-up"}
    # A datasheet's 2-GPU domain at 64 GPUs: 32 stages would pass PP's 16, so TP widens to 4.
    pair = spec_key({**json.loads(GAUDI3.read_text()), "scale_up_gpus": 2})
    assert [(c["tp"], c["pp"]) for c in slo.candidates({"gpu": pair, "gpus": 64})] == [(4, 16)]
    with pytest.raises(InvalidParameter, match="gpus=6: must be a power of two for --search"):
        slo.candidates({"gpus": 6})


def test_cli_slo_matches_the_library():
    out = run_inferx("slo", "--ttft-ms", "100", "--tpot-ms", "1.5", "--tp", "1")
    assert out.returncode == 0, out.stderr
    rec = json.loads(out.stdout)
    assert rec["batch"] == 572 and rec["limited_by"] == "tpot"
    assert rec["scenario"]["tp"] == 1 and rec["ttft_target_ms"] == 100
    library = slo.goodput(Scenario.from_params(tp=1), 100, 1.5)
    assert rec["throughput_tok_s"] == float(f"{library['throughput_tok_s']:.6g}")
    assert all(float(f"{v:.6g}") == v for v in rec.values() if isinstance(v, float))
    assert rec["itl_ms"] != library["itl_ms"]  # the library's own float has more figures than the 6 written
    # Unset, the power drawn is the article's TDP; in calibrated mode the draw at the best point's load.
    assert rec["power_fraction_of_tdp"] == 1.0
    calibrated = json.loads(run_inferx("slo", "--mode", "calibrated").stdout)
    scn = Scenario.from_params(mode="calibrated")
    share = float(economics.drawn_fraction(scn, None, calibrated["batch"]))
    assert calibrated["power_fraction_of_tdp"] == pytest.approx(share, rel=1e-5) and 0.37 < share < 0.64
    assert calibrated["tokens_per_joule"] == pytest.approx(calibrated["throughput_tok_s"] / (8 * 700 * share), rel=1e-5)
    given = json.loads(run_inferx("slo", "--bw", "38.41234567").stdout)["scenario"]
    assert given["bw"] == 38.41234567  # the scenario echoes the inputs as given
    # …under the options' own names, so each number's unit comes beside them: all but the CV's (a ratio).
    units = rec["scenario_units"]
    assert (units["bw"], units["compute"], units["hbm"], units["ctx"], units["ttft"]) == (
        "TB/s", "PFLOPS", "GB", "tokens", "ms"
    )  # fmt: skip
    numbers = {k for k, v in rec["scenario"].items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    assert numbers - set(units) == {"cv"}, numbers - set(units)


def test_cli_slo_search_and_failures():
    rec = json.loads(run_inferx("slo", "--search", "--tpot-ms", "20").stdout)
    assert rec["best"] == rec["candidates"][0] and rec["best"]["batch"] > 0
    # The machine's numbers keep the options' names; their units come beside the rows.
    assert {k: rec["units"][k] for k in ("bw", "compute", "hbm")} == {"bw": "TB/s", "compute": "PFLOPS", "hbm": "GB"}
    library = slo.search({}, tpot_ms=20)
    assert [r["batch"] for r in rec["candidates"]] == [r["batch"] for r in library]
    calibrated = {tuple(r[k] for k in slo.MACHINE_OPTIONS): r for r in slo.search({"mode": "calibrated"}, tpot_ms=20)}
    for got, want in zip(rec["candidates"], library, strict=True):
        # Each row also answers in both models, its own (ideal) first, the other matched by machine.
        assert list(got)[-2:] == ["ideal", "expected"]
        ideal, expected = got.pop("ideal"), got.pop("expected")
        assert ideal["batch"] == want["batch"]
        twin = calibrated[tuple(want[k] for k in slo.MACHINE_OPTIONS)]
        assert expected["batch"] == twin["batch"]
        assert got.keys() == want.keys()
        for key, value in want.items():  # the same numbers, to the 6 significant figures written
            assert got[key] == (float(f"{value:.6g}") if isinstance(value, float) else value), key
    narrowed = json.loads(run_inferx("slo", "--search", "--gpu", "gb200", "--gpus", "64").stdout)["candidates"]
    assert [(r["machine"], r["tp"], r["pp"]) for r in narrowed] == [("64×GB200", 64, 1)]
    # A row names all a point needs: `inferx point` with its GPU, count, TP, PP, link and figures gives its
    # numbers, on the preset's own machine (8×H200, whose preset quotes sparse compute) and past one domain too.
    rows = json.loads(run_inferx("slo", "--search", "--gpu", "h200").stdout)["candidates"]
    rows += json.loads(run_inferx("slo", "--search", "--gpu", "h200", "--gpus", "16").stdout)["candidates"]
    for row in [rec["best"], *(r for r in rows if r["gpus"] in (8, 16))]:
        at = [f"--{k}={row[k]}" for k in ("gpu", "gpus", "tp", "pp", "ic", "bw", "compute", "hbm")]
        point = json.loads(run_inferx("point", *at, f"--batch={row['batch']}").stdout)
        assert (point["throughput_tok_s"], point["itl_ms"]) == (row["throughput_tok_s"], row["itl_ms"]), row
    assert [r["ic"] for r in rows[-1:]] == ["tiered"] and rec["best"]["ic"] == "scale-up"
    odd = run_inferx("slo", "--search", "--gpus", "6")
    assert odd.returncode == 2 and "gpus=6: must be a power of two for --search" in odd.stderr
    miss = run_inferx("slo", "--tpot-ms", "1")  # 8×H200's ITL is 2.2 ms at B = 1
    assert miss.returncode == 1 and json.loads(miss.stdout)["batch"] == 0
    none = run_inferx("slo", "--search", "--gpu", "a100", "--tpot-ms", "1")  # no A100 count holds R1 that fast
    assert none.returncode == 1 and json.loads(none.stdout)["best"] is None
    unfit = run_inferx("slo", "--wdtype", "fp16")  # 1,342 GB of weights on 1,128 GB: as `point` says it
    assert unfit.returncode == 2 and unfit.stdout == "" and "needs 1,342 GB of weights" in unfit.stderr
    # Each of slo's own options has the range of the scenario option it stands for (--ttft 10–10,000 ms, …).
    for option, value, message in (
        ("--tpot-ms", "-1", "--tpot-ms=-1: must be a number from 1 to 500 ms"),
        ("--ttft-ms", "5", "--ttft-ms=5: must be a number from 10 to 10,000 ms"),
        ("--usd-per-gpu-hour", "free", "--usd-per-gpu-hour=free: must be a number from 0.05 to 50 $/GPU-h, or assumed"),
        ("--power-fraction", "1.5", "--power-fraction=1.5: must be a number from 0.1 to 1 × TDP"),
    ):
        bad = run_inferx("slo", option, value)
        assert bad.returncode == 2 and message in bad.stderr, (option, bad.stderr)
