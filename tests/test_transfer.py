"""The transferable serving model: each new term against a hand-worked number, the published data with its
provenance, the held-out bands, and the shipped fit against what it promises."""

import dataclasses
import json
import os

import numpy as np
import pandas as pd
import pytest

from inferx.analysis.breakdown import PARTS, time_parts, time_parts_ms
from inferx.data import published
from inferx.physics.hardware import GPUS
from inferx.physics.models import DEEPSEEK_R1, MODELS
from inferx.scenario.evaluation import Scenario
from inferx.serving import model as C
from inferx.serving import transfer as T
from inferx.serving import transfer_fit as TF

LLAMA_70B = MODELS["llama-3.3-70b"]


def toy_transfer(**changes) -> T.Transfer:
    stack = {"layer_s": 2e-5, "collective_s": 3e-5, "prefill": 1.5, "request_s": 0.05, "queue": 0.01,
             "dp_wait_steps": 40.0}  # fmt: skip
    tr = T.Transfer(
        silicon={
            "hopper": {"bw": 0.9, "fp8": 0.4, "fp4": 0.0},
            "blackwell": {"bw": 0.8, "fp8": 0.3, "fp4": 0.25},
            "cdna4": {"bw": 0.6, "fp8": 0.3, "fp4": 0.2},
        },  # fmt: skip
        stack={"trt": stack, "sglang": {**stack, "layer_s": 4e-5}},
        expert_rate=0.25,
        mtp={"acceptance": 0.6, "first_token_steps": 1.0},
    )
    return dataclasses.replace(tr, **changes)


# --- The step's new terms -------------------------------------------------------------------------------------


def test_routed_experts_run_at_the_expert_rate():
    # DeepSeek-R1: 58 MoE layers × 8 experts a token × 44.04e6 parameters each are routed; at a rate of 0.25 each of
    # their FLOPs takes four times as long, so a token costs 3 × 2 × 58 × 8 × 44.04e6 FLOPs more.
    routed = 58 * 8 * DEEPSEEK_R1.expert_params
    extra = C.decode_work(16, 4096, DEEPSEEK_R1, expert_rate=0.25) - C.decode_flops(16, 4096, DEEPSEEK_R1)
    assert extra == pytest.approx(16 * 2 * routed * 3, rel=1e-12)
    assert C.decode_work(16, 4096, LLAMA_70B, expert_rate=0.25) == C.decode_flops(16, 4096, LLAMA_70B)  # dense
    assert C.decode_work(16, 4096, DEEPSEEK_R1) == C.decode_flops(16, 4096, DEEPSEEK_R1)  # the per-stack fits'


def test_a_chunked_prefill_shares_the_weight_pass_with_the_batch():
    cal = C.Calibration(0.5, 0.3, 0.3, 0.0)
    m = C.instance("h200", 1)
    weights = LLAMA_70B.p_total * 1.0 / (0.5 * 4.8e12)  # every weight read once at half the datasheet bandwidth
    alone = C.prefill_time(cal, m, 1024, LLAMA_70B, B=8)
    shared = C.prefill_time(dataclasses.replace(cal, chunked_prefill=1.0), m, 1024, LLAMA_70B, B=8)
    assert alone - shared == pytest.approx(weights * 7 / 8, rel=1e-9)  # each of the 8 pays an eighth


def test_the_fixed_step_cost_follows_layers_and_collectives():
    tr = toy_transfer()
    # Llama 3.3 70B: 80 layers; on one GPU no collective, on eight two a layer.
    one = T.calibration(tr, "h200", "trt", "fp8", LLAMA_70B, 1).step_overhead_s
    eight = T.calibration(tr, "h200", "trt", "fp8", LLAMA_70B, 8).step_overhead_s
    assert one == pytest.approx(80 * 2e-5) and eight == pytest.approx(80 * 2e-5 + 160 * 3e-5)
    assert T.calibration(tr, "h200", "sglang", "fp8", LLAMA_70B, 1).step_overhead_s == pytest.approx(80 * 4e-5)


def test_efficiencies_come_from_the_die_then_the_vendor_then_every_die():
    tr = toy_transfer()
    assert T.silicon_params(tr, "h100", "fp8") == ({"bw": 0.9, "compute": 0.4}, "silicon")  # H200's die
    assert T.silicon_params(tr, "b300", "fp4") == ({"bw": 0.8, "compute": 0.25}, "silicon")
    # MI300X's die was not measured: MI355X's (the only AMD die) stands in for it.
    assert T.silicon_params(tr, "mi300x", "fp8") == ({"bw": 0.6, "compute": 0.3}, "vendor typical")
    # H100 at FP4 has no FP4 tensor cores: its weights are widened to FP8, at Hopper's FP8 share.
    assert T.calibration(tr, "h100", "trt", "fp4", LLAMA_70B, 1).compute_fraction == 0.4
    # A GPU of an unknown maker takes the geometric mean of every die.
    bw, _ = T.silicon_params(tr, "gaudi3", "fp8")
    assert bw["bw"] == pytest.approx((0.9 * 0.8 * 0.6) ** (1 / 3))
    assert T.stack_params(tr, "vllm")[1] == "stack typical" and T.stack_params(tr, "dynamo-trt")[1] == "stack"


def test_an_engine_at_full_load_runs_the_batch_its_cache_and_scheduler_allow():
    m = T.instance(GPUS["h200"], 1, "fp8", LLAMA_70B)
    kappa = 80 * 2 * 8 * 128 * 1.0  # bytes per token: 80 layers × K and V × 8 heads × 128, FP8
    free = 0.95 * (141e9 - LLAMA_70B.p_total)
    held = kappa * (2048 + 2048 / 2)  # prompt and half the answer
    assert T.offline_batch(m, 2048, 2048, LLAMA_70B) == pytest.approx(free / held, rel=1e-9)
    assert T.offline_batch(m, 128, 128, LLAMA_70B) == 2048  # the scheduler's largest batch
    # Llama 3 8B's cache is small enough that 8,192 tokens an iteration bind first: B · (1 + 2048/128) ≤ 8,192.
    small = T.instance(GPUS["h200"], 1, "fp8", MODELS["llama-3-8b"])
    assert T.offline_batch(small, 2048, 128, MODELS["llama-3-8b"]) == pytest.approx(8192 / 17)
    cal = T.calibration(toy_transfer(), "h200", "trt", "fp8", LLAMA_70B, 1)
    r = T.offline_throughput(cal, m, 2048, 2048, LLAMA_70B)
    assert r["throughput"] == pytest.approx(r["batch"] / r["tpot"])


def test_a_stack_holds_the_cache_its_scheduler_reserves_at_admission():
    # TensorRT-LLM (GUARANTEED_NO_EVICT) reserves prompt + whole answer; vLLM, SGLang, ATOM page per token.
    assert [T.kv_reserve(s) for s in ("trt", "dynamo-trt", "sglang", "mori-sglang", "atom", "vllm", None)] == [
        "full", "full", "token", "token", "token", "token", "token"]  # fmt: skip
    m = T.instance(GPUS["h200"], 1, "fp8", LLAMA_70B)
    kappa = 80 * 2 * 8 * 128 * 1.0  # bytes per token: 80 layers × K and V × 8 heads × 128, FP8
    free = 0.95 * (141e9 - LLAMA_70B.p_total)
    full = T.offline_batch(m, 2048, 2048, LLAMA_70B, answer_reserved=1.0)
    token = T.offline_batch(m, 2048, 2048, LLAMA_70B, answer_reserved=0.5)
    assert full == pytest.approx(free / (kappa * 4096), rel=1e-9)  # 2,048 + 2,048 tokens a request: B ≈ 100
    assert token == pytest.approx(free / (kappa * 3072), rel=1e-9)  # 2,048 + 1,024 on average: B ≈ 133
    # The stack's calibration carries its policy into the offline throughput.
    tr = toy_transfer()
    trt, sglang = (T.calibration(tr, "h200", s, "fp8", LLAMA_70B, 1) for s in ("trt", "sglang"))
    assert (trt.answer_reserved, sglang.answer_reserved) == (1.0, 0.5)
    assert T.offline_throughput(trt, m, 2048, 2048, LLAMA_70B)["batch"] == pytest.approx(full, rel=1e-12)
    assert T.offline_throughput(sglang, m, 2048, 2048, LLAMA_70B)["batch"] == pytest.approx(token, rel=1e-12)


def test_a_closed_loop_fills_the_cache_the_stack_reserves():
    # 10^6 users on one H200 with Llama 3.3 70B at 1024/1024: the batch is what the cache holds (η = 0.85).
    m = C.instance("h200", 1)
    kappa = 80 * 2 * 8 * 128 * 1.0
    free = 0.85 * (141e9 - LLAMA_70B.p_total)
    cal = T.calibration(toy_transfer(), "h200", "trt", "fp8", LLAMA_70B, 1)
    full = C.closed_loop(cal, m, 1e6, 1024, 1024, LLAMA_70B)["batch"]
    token = C.closed_loop(dataclasses.replace(cal, answer_reserved=0.5), m, 1e6, 1024, 1024, LLAMA_70B)["batch"]
    assert full == pytest.approx(free / (kappa * 2048), rel=1e-6)
    assert token == pytest.approx(free / (kappa * 1536), rel=1e-6)
    # The per-stack fits reserve the whole answer, as before the term existed.
    assert C.Calibration(0.5, 0.3, 0.3, 0.0).answer_reserved == 1.0


def test_the_scheduler_cap_is_per_attention_dp_rank():
    # DeepSeek-R1 on 4 B200 at 128/2048, a cap of 512 a scheduler: one scheduler under tensor parallelism, one per
    # GPU under attention data parallelism (cache and token budget allow more: about 9,000 and 8,192 / (1 + 1/16)).
    tp = T.instance(GPUS["b200"], 4, "fp4", DEEPSEEK_R1)
    dp = T.instance(GPUS["b200"], 4, "fp4", DEEPSEEK_R1, dp_attention=True)
    assert T.offline_batch(tp, 128, 2048, DEEPSEEK_R1, max_batch=512) == 512
    assert T.offline_batch(dp, 128, 2048, DEEPSEEK_R1, max_batch=512) == 4 * 512
    # With the default cap (2,048 a rank) the token budget binds first on the DP instance: 8,192 / (1 + 128/2048).
    assert T.offline_batch(dp, 128, 2048, DEEPSEEK_R1) == pytest.approx(8192 / (1 + 1 / 16))


def test_tensor_parallel_gqa_keeps_one_copy_of_the_cache():
    assert T.instance(GPUS["h200"], 8, "fp8", LLAMA_70B).kv_copies == 1.0  # 8 KV heads over 8 GPUs
    assert T.instance(GPUS["h200"], 8, "fp8", DEEPSEEK_R1).kv_copies == 8.0  # MLA's latent on every GPU
    assert T.instance(GPUS["h200"], 8, "fp8", DEEPSEEK_R1, dp_attention=True).kv_copies == 1.0


# --- Kinds of extrapolation and their bands -------------------------------------------------------------------


RECORD = {
    "measured": {"gpus": ["b200", "h200", "mi355x"], "models": ["deepseek-r1", "llama-3.3-70b"]},
    "bands": {"measured": {"tpot": [-0.1, 0.2]}, "model": {"throughput_per_gpu": [-0.3, 0.4]}},
    "scores": {
        "kind": [
            {"group": "model · published", "rows": 9, "throughput": [0.2, 0.5]},
            {"group": "gpu_sibling · inferencex", "rows": 7, "tpot": [0.1, 0.3]},
            {"group": "gpu_sibling · published", "rows": 5, "throughput": [0.15, 0.4]},
        ],  # fmt: skip
        "in-sample model": [{"group": "llama-3.3-70b", "rows": 4, "throughput": [0.05, 0.1]}],
    },
}


@pytest.mark.parametrize(
    "gpu, model, kind",
    [
        ("h200", "deepseek-r1", "measured"),
        ("h100", "deepseek-r1", "gpu_sibling"),
        ("mi300x", "llama-3.3-70b", "gpu_alone"),
        ("h200", "gemma-3-27b", "model"),
        ("l40s", "gemma-3-27b", "model"),
    ],  # fmt: skip
)
def test_each_prediction_names_its_kind_of_extrapolation(gpu, model, kind):
    assert T.extrapolation(gpu, model, RECORD) == kind


# MI300X measured with DeepSeek-R1 only, Llama 3.3 70B on H200 only; B200 with both; H100 (H200's sibling) with none.
PAIRS = {**RECORD["measured"], "gpus": ["b200", "h200", "mi300x"],
         "pairs": [["b200", "deepseek-r1"], ["b200", "llama-3.3-70b"], ["h200", "llama-3.3-70b"],
                   ["mi300x", "deepseek-r1"]]}  # fmt: skip


@pytest.mark.parametrize(
    "gpu, model, kind",
    [
        ("b200", "llama-3.3-70b", "measured"),
        ("mi300x", "deepseek-r1", "measured"),
        ("mi300x", "llama-3.3-70b", "pair"),  # each measured, never together
        ("h200", "deepseek-r1", "pair"),
        ("h100", "llama-3.3-70b", "gpu_sibling"),
        ("mi355x", "llama-3.3-70b", "gpu_alone"),  # cdna4: no measured GPU of its die
        ("mi300x", "gemma-3-27b", "model"),
    ],  # fmt: skip
)
def test_a_gpu_and_model_measured_apart_are_a_pair(gpu, model, kind):
    record = {**RECORD, "measured": PAIRS}
    assert T.extrapolation(gpu, model, record) == kind
    # A record from before the pairs were stored cannot tell: a measured GPU and model are "measured", as then.
    older = {**RECORD, "measured": {k: v for k, v in PAIRS.items() if k != "pairs"}}
    assert T.extrapolation(gpu, model, older) == ("measured" if kind == "pair" else kind)


def test_a_pairs_error_is_read_from_the_pairs_held_out():
    kinds = [*RECORD["scores"]["kind"],
             {"group": "pair · inferencex", "rows": 106, "tpot": [0.12, 0.3], "throughput_per_gpu": [0.2, 0.5]},
             {"group": "pair · amd-vllm-mi300x", "rows": 8, "throughput": [0.6, 0.7]},
             {"group": "pair · trtllm-perf-overview", "rows": 40, "throughput": [0.1, 0.2]}]  # fmt: skip
    record = {**RECORD, "scores": {**RECORD["scores"], "kind": kinds}}
    # InferenceX's first, for every metric it has; the in-sample model's own rows are a "measured" answer's only.
    assert T.kind_error("pair", "llama-3.3-70b", record) == {"rows": 106, "tpot": [0.12, 0.3],
                                                              "throughput_per_gpu": [0.2, 0.5]}  # fmt: skip
    # Without InferenceX's: the largest published source, TensorRT-LLM's 40 rows over AMD's 8.
    kinds = [k for k in kinds if k["group"] != "pair · inferencex"]
    record = {**RECORD, "scores": {**RECORD["scores"], "kind": kinds}}
    assert T.kind_error("pair", None, record) == {"rows": 40, "throughput_per_gpu": [0.1, 0.2]}


def test_a_measured_pair_states_its_own_rows_error():
    pairs = [{"group": "mi300x · llama-3.3-70b", "rows": 4, "throughput": [0.27, 0.3]}]
    record = {**RECORD, "scores": {**RECORD["scores"], "in-sample pair": pairs}}
    own, everywhere = {"rows": 4, "throughput_per_gpu": [0.27, 0.3]}, {"rows": 4, "throughput_per_gpu": [0.05, 0.1]}
    assert T.kind_error("measured", "llama-3.3-70b", record, gpu="mi300x") == own
    # Another GPU's answer: the model's own rows on every GPU; a record without pairs' scores reads the same.
    assert T.kind_error("measured", "llama-3.3-70b", record, gpu="h200") == everywhere
    assert T.kind_error("measured", "llama-3.3-70b", RECORD, gpu="mi300x") == everywhere


def test_a_pair_is_held_out_by_source_and_scored_where_gpu_and_model_stay_measured():
    ix = pd.DataFrame({"hardware": ["h200", "h200", "mi300x"]})
    llama, qwen = "llama-3.3-70b", "qwen3-235b-a22b"
    pub = pd.DataFrame({"source": ["a", "a", "a", "b", "b", "c"],
                        "gpu": ["h200", "mi300x", "h100", "h200", "h100", "b200"],
                        "model": [llama, llama, llama, llama, qwen, llama]})  # fmt: skip
    got = {name: (len(rest_ix), len(rest_pub), list(score_ix.index), list(score_pub.index))
           for name, rest_ix, rest_pub, score_ix, score_pub in TF.pair_holdouts(ix, pub)}  # fmt: skip
    # InferenceX's H200: DeepSeek-R1 on H200 measured nowhere else, both measured elsewhere. Its MI300X: the GPU
    # stays measured in source a, so it is scored too. Source a: its H200 row is still measured in b; MI300X with
    # Llama 70B becomes a pair (row 1); H100 with Llama 70B too (H100 stays in b, Llama in b and c). Source b:
    # H200 with Llama stays measured in a, and Qwen leaves with it: nothing scored, no fit. Source c: B200 leaves
    # with it.
    assert got == {"inferencex h200": (1, 6, [0, 1], []), "inferencex mi300x": (2, 6, [2], []),
                   "a": (3, 3, [], [1, 2])}  # fmt: skip


def test_a_model_scored_on_throughput_reflects_that_band_for_tpot():
    assert T.kind_band("model", "throughput_per_gpu", RECORD) == [-0.3, 0.4]
    assert T.kind_band("model", "tpot", RECORD) == [-0.4, 0.3]  # TPOT = batch / throughput at a fixed batch
    assert T.kind_band("model", "ttft", RECORD) is None  # never measured for a held-out model
    assert T.kind_band("measured", "tpot", RECORD) == [-0.1, 0.2]


def test_a_kinds_error_prefers_inferencex_and_a_models_own_rows():
    assert T.kind_error("gpu_sibling", None, RECORD) == {"rows": 7, "tpot": [0.1, 0.3],
                                                          "throughput_per_gpu": [0.15, 0.4]}  # fmt: skip
    assert T.kind_error("measured", "llama-3.3-70b", RECORD) == {"rows": 4, "throughput_per_gpu": [0.05, 0.1]}
    # Without InferenceX rows, each metric comes from the largest source that measured it, whatever its name.
    kinds = [{"group": "model · a-small", "rows": 8, "throughput": [0.3, 0.4]},
             {"group": "model · b-large", "rows": 165, "throughput": [0.13, 0.35]},
             {"group": "model · c-loaded", "rows": 9, "throughput": [0.2, 0.2], "ttft": [0.25, 0.9]}]  # fmt: skip
    record = {**RECORD, "scores": {**RECORD["scores"], "kind": kinds}}
    assert T.kind_error("model", None, record) == {"rows": 165, "throughput_per_gpu": [0.13, 0.35], "ttft": [0.25, 0.9]}


def _held(groups: dict) -> pd.DataFrame:
    rows = [(g, e) for g, errors in groups.items() for e in errors]
    return pd.DataFrame({"kind": "gpu_sibling", "metric": "tpot", "held_out": [g for g, _ in rows],
                         "log_error": [e for _, e in rows], "source": "x"})  # fmt: skip


def test_bands_are_widened_until_they_hold_most_of_a_group_they_did_not_see():
    # Three GPUs, each off by its own offset: a band from the other two misses much of the third.
    rng = np.random.default_rng(1)
    groups = {g: offset + 0.05 * rng.standard_normal(40) for g, offset in (("a", -0.2), ("b", 0.0), ("c", 0.25))}
    found = TF.widening(_held(groups))["gpu_sibling"]
    assert found["unwidened"] < TF.COVERAGE_TARGET <= found["widened"] and found["widened_by"] > 1
    held = _held(groups)
    covered = float(np.mean(TF._inside(held, found["widened_by"])))
    assert covered == found["widened"]
    assert float(np.mean(TF._inside(held, found["widened_by"] - 0.05))) < TF.COVERAGE_TARGET  # the smallest
    # Every GPU's errors alike: a band from the others already holds about 80 % of each; next to nothing to widen.
    same = {g: 0.05 * rng.standard_normal(200) for g in "abc"}
    assert TF.widening(_held(same))["gpu_sibling"]["widened_by"] <= 1.1


def test_the_sibling_lookup_copies_the_same_run_from_the_same_die():
    pub = pd.DataFrame({"source": "s", "model": "m", "gpu": ["h100", "h200", "b200"], "gpus": [2, 1, 1],
                        "precision": "fp8", "isl": 128.0, "osl": 128.0,
                        "out_tok_s_total": [3000.0, 2000.0, 5000.0]})  # fmt: skip
    got = TF.sibling_lookup(pub).set_index("gpu")["log_error"]
    # H100: 1,500 per GPU, copied from H200's 2,000; H200 from H100's 1,500. B200 has no sibling here.
    assert got.to_dict() == pytest.approx({"h100": np.log(2000 / 1500), "h200": np.log(1500 / 2000)})


# --- Published measurements -----------------------------------------------------------------------------------


def test_every_published_source_says_where_it_comes_from_and_what_it_measured():
    for source in published.sources().values():
        for field in ("title", "url", "publisher", "licence", "read", "stack", "stack_version", "load"):
            assert source[field], field
        assert {"load", "isl, osl"} <= set(source["definitions"])
    rows = published.load_published()
    assert tuple(rows.columns) == published.COLUMNS and len(rows) == sum(
        len(pd.read_csv(published.PUBLIC_DIR / s["file"])) for s in published.sources().values()
    )
    assert set(rows["model"]) <= set(MODELS) and set(rows["gpu"]) <= set(GPUS)
    moe_dp = rows["model"].map(lambda k: MODELS[k].is_moe) & rows["gpus"].gt(1)
    by_rule = rows["source"].map(lambda s: published.sources()[s]["attention_dp"] == "moe")
    assert rows["dp_attention"].eq(moe_dp & by_rule).all()


def test_the_fit_recovers_known_parameters_from_offline_rows():
    """Rows drawn from a known transferable model are fitted back to it (offline rows fix the efficiencies and the
    experts' rate; TTFT's parameters are left as found)."""
    truth = toy_transfer(stack={"trt": toy_transfer().stack["trt"]})
    rows = published.load_published(only=["trtllm-perf-overview"])
    rows = rows[rows["gpu"].isin(["h200", "b200"])].reset_index(drop=True)
    rows["out_tok_s_total"] = TF.predict_published(truth, rows)
    got = TF.fit_transfer(_no_inferencex(), rows, truth.mtp)
    for die, field in (("hopper", "bw"), ("hopper", "fp8"), ("blackwell", "fp4")):
        assert got.silicon[die][field] == pytest.approx(truth.silicon[die][field], rel=0.05), (die, field)
    assert got.expert_rate == pytest.approx(truth.expert_rate, rel=0.05)
    assert np.allclose(TF.predict_published(got, rows), rows["out_tok_s_total"], rtol=0.02)


def _no_inferencex() -> pd.DataFrame:
    return pd.DataFrame(columns=["hardware", "framework", "precision", "n_gpus", "decode_dp_attention"])


# --- Where the time goes ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["article", "calibrated"])
@pytest.mark.parametrize("params", [{}, {"mtp": "on"}, {"model": "llama-3.3-70b", "gpu": "h200", "gpus": 1}])
def test_the_parts_of_a_token_sum_to_its_latency(mode, params):
    scn = Scenario.from_params(mode=mode, **params)
    B = np.array([1, 16, 128])
    parts = time_parts(scn, B)
    assert np.allclose(sum(parts[p] for p in PARTS), scn.evaluate(B)["itl"], rtol=1e-12)


def test_the_articles_parts_are_the_roofline_that_binds():
    scn = Scenario.from_params(model="llama-3.3-70b", gpu="h200", gpus=1)
    one = time_parts_ms(scn, 1)
    # One sequence: HBM binds; the weights' read is P·b_w / BW = 70.6 GB / 4.8 TB/s, the arithmetic runs under it.
    assert one["weights_ms"] == pytest.approx(1e3 * LLAMA_70B.p_active / 4.8e12, rel=1e-4)
    assert one["compute_ms"] == 0 and one["overlapped_ms"] == pytest.approx(1e3 * 2 * LLAMA_70B.p_active / scn.compute,
                                                                             rel=1e-3)  # fmt: skip
    assert one["sum_ms"] == pytest.approx(one["weights_ms"] + one["kv_ms"], abs=2e-4)


# --- The shipped fit --------------------------------------------------------------------------------------------


STORED = T.load_transfer_record()


def test_the_shipped_fit_is_what_its_record_says():
    tr = T.load_transfer()
    assert set(tr.silicon) == {T.silicon_of(g) for g in STORED["measured"]["gpus"]}
    assert set(STORED["bands"]) == {"measured", "pair", "gpu_sibling", "gpu_alone", "model"}
    assert ["mi300x", "deepseek-r1"] in STORED["measured"]["pairs"]
    for kind, c in STORED["coverage"].items():
        if isinstance(c, dict):  # widened bands hold the target share of the runs they did not see
            assert c["widened"] >= STORED["coverage"]["target"] > 0.5, kind
    assert json.dumps(STORED).count("NaN") == 0


def test_a_dense_model_on_one_gpu_runs_near_its_weight_bound():
    """Llama 3.3 70B FP8 on one H200 at B = 1: TPOT within 1.35× of the weights over the datasheet bandwidth."""
    scn = Scenario.from_params(mode="calibrated", model="llama-3.3-70b", gpu="h200", gpus=1)
    tpot = scn.evaluate([1])["itl"][0]
    assert tpot / (LLAMA_70B.p_total / 4.8e12) < 1.35


def test_the_shipped_fit_meets_its_published_targets():
    """TensorRT-LLM's table in sample ≤ 15 % median; each model held out ≤ 20 % overall."""
    kinds = {e["group"]: e for e in STORED["scores"]["kind"]}
    assert kinds["measured · trtllm-perf-overview"]["throughput"][0] <= 0.15
    assert kinds["model · trtllm-perf-overview"]["throughput"][0] <= 0.20


REAL = pytest.mark.skipif(
    not os.environ.get("INFERX_TEST_MEASURED_DIR"),
    reason="transfer.json's held-out pairs are InferenceX's rows' fit: set INFERX_TEST_MEASURED_DIR",
)


def _without_amds_table() -> tuple[dict, pd.DataFrame]:
    """The shipped record as if AMD's vLLM table had not measured its pairs, and that table's Llama 3.3 70B rows."""
    rows = published.load_published(only=["amd-vllm-mi300x"])
    amd = set(zip(rows["gpu"], rows["model"], strict=True))
    measured = {**STORED["measured"], "pairs": [p for p in STORED["measured"]["pairs"] if tuple(p) not in amd]}
    return {**STORED, "measured": measured}, rows[rows["model"].eq("llama-3.3-70b")].reset_index(drop=True)


@REAL
def test_llama_70b_on_mi300x_states_about_the_error_its_rows_have():
    """MI300X was measured with DeepSeek-R1 (InferenceX), Llama 3.3 70B on NVIDIA GPUs, and the two together in
    AMD's vLLM table alone. As shipped the pair is measured and states its own rows' error (not the ±6 % of Llama
    3.3 70B's rows on every GPU), within 1.5× of the shipped fit's error on them; without AMD's table it is a pair."""
    assert T.extrapolation("h100", "deepseek-r1") == "pair"  # H100 measured with Llama, DeepSeek-R1 on H200, B200…
    assert T.extrapolation("mi300x", "llama-3.3-70b") == "measured"
    record, rows = _without_amds_table()
    assert T.extrapolation("mi300x", "llama-3.3-70b", record) == "pair"
    off = np.median(np.abs(TF.predict_published(T.load_transfer(), rows) / rows["out_tok_s_total"] - 1.0))
    stated = T.kind_error("measured", "llama-3.3-70b", gpu="mi300x")["throughput_per_gpu"][0]
    assert off / 1.5 <= stated <= off * 1.5, (stated, off)
    everywhere = T.kind_error("measured", "llama-3.3-70b")["throughput_per_gpu"][0]
    assert not off / 1.5 <= everywhere <= off * 1.5, (everywhere, off)  # what it stated before


@REAL
@pytest.mark.xfail(strict=True, reason="the pair kind states 35 % (InferenceX's MI300X runs held out); AMD's rows "
                   "held out were 61 % off: 1.74×, docs/calibration.md")  # fmt: skip
def test_a_pair_held_out_states_about_the_error_its_rows_had():
    """With AMD's table held out, Llama 3.3 70B on MI300X is a pair: the kind's stated median error within 1.5× of
    what the fit without that table was off by on the table's rows."""
    held = {e["group"]: e for e in STORED["scores"]["held-out pair"]}["amd-vllm-mi300x"]["throughput"][0]
    stated = T.kind_error("pair", "llama-3.3-70b")["throughput_per_gpu"][0]
    assert held / 1.5 <= stated <= held * 1.5, (stated, held)
