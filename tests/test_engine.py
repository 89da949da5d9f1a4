"""The engine's formulas and the identities the article states, as properties."""

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from reference import Reference

from inferx.physics import engine as E
from inferx.physics.models import DEEPSEEK_R1, MODELS
from inferx.physics.presets import HARDWARE, INTERCONNECTS
from inferx.scenario.batches import frontier_batches, geometric_batches
from inferx.scenario.controls import PARAMS, InvalidParameter
from inferx.scenario.evaluation import Scenario, evaluate_all

presets = st.sampled_from(sorted(HARDWARE))
models = st.sampled_from(sorted(MODELS))  # a preset need not fit every model
contexts = st.integers(128, 32768)
cvs = st.floats(0, 2)
utils = st.floats(50, 100)
tps = st.sampled_from([1, 2, 4, 8, 16])
pps = st.sampled_from([1, 2, 4])
ics = st.sampled_from(sorted(INTERCONNECTS))


def scenario(**kw):
    return Scenario.from_params(**kw)


@pytest.mark.parametrize(
    "B,t_step_ms,t_ar_ms,throughput",
    [
        # 8×H200, TP 8 over NVLink, S = 1,024, FP8: t_step = (37e9 + B·1,024·35,136 B) / 38.4 TB/s (memory bound);
        # t_AR = 2·61·(10 µs + ⅞·B·7,168 B / 450 GB/s); T = B / (t_step + t_AR). The article prints ITL ≈ 2.2 ms
        # at B = 1 and a base step of ≈ 1.2 ms at B = 256.
        (1, 0.9644786, 1.2217004, 457.41908),
        (256, 1.2034034, 1.6553047, 89_550.941),
    ],
)
def test_step_collective_itl_and_throughput_worked_by_hand(B, t_step_ms, t_ar_ms, throughput):
    r = scenario().evaluate([B])
    assert 1e3 * r["t_step"][0] == pytest.approx(t_step_ms, rel=1e-6)
    assert 1e3 * r["t_comm"][0] == pytest.approx(t_ar_ms, rel=1e-6)
    assert 1e3 * r["itl"][0] == pytest.approx(t_step_ms + t_ar_ms, rel=1e-6)
    assert r["throughput"][0] == pytest.approx(throughput, rel=1e-6)


@settings(max_examples=60, deadline=None)
@given(preset=presets, model=models, ctx=contexts, util=utils, tp=tps, pp=pps, ic=ics)
def test_throughput_non_decreasing_up_to_b_max(preset, model, ctx, util, tp, pp, ic):
    # Communication is affine in B (a latency plus a per-request share), so it never bends T(B) downward.
    s = scenario(preset=preset, model=model, ctx=ctx, util=util, tp=tp, pp=pp, ic=ic)
    assume(s.b_max >= 2)
    B = frontier_batches(s.b_max)
    t = s.evaluate(B)["throughput"]
    assert np.all(np.diff(t) >= -1e-9 * t[1:])


@settings(max_examples=60, deadline=None)
@given(preset=presets, model=models, ctx=contexts, cv=cvs, util=utils, tp=tps)
def test_ttft_increasing_in_batch(preset, model, ctx, cv, util, tp):
    s = scenario(preset=preset, model=model, ctx=ctx, cv=cv, util=util, tp=tp)
    assume(s.b_max >= 2)
    B = frontier_batches(s.b_max)
    ttft = s.evaluate(B)["ttft"]
    finite = ttft[np.isfinite(ttft)]
    assert np.all(np.diff(finite) > 0)
    assert math.isinf(ttft[-1]) and B[-1] == s.b_max  # ρ = 1 at B_max: unstable


@settings(max_examples=60, deadline=None)
@given(headroom=st.floats(1e9, 5e12), ctx=contexts, eta=st.floats(0.05, 1), factor=st.integers(2, 8))
def test_b_max_proportional_to_eta_and_headroom(headroom, ctx, eta, factor):
    kappa = 61 * 576  # bytes per token: 61 layers of a 576-element latent at FP8
    base = E.b_max(headroom, ctx, kappa, eta)
    exact = eta * headroom / (ctx * kappa)
    assert base == math.floor(exact)
    # Scaling η or the headroom by k scales B_max by k, up to the flooring.
    for scaled in (E.b_max(headroom * factor, ctx, kappa, eta), E.b_max(headroom, ctx, kappa, eta * factor)):
        assert factor * base <= scaled <= factor * (base + 1)


@settings(max_examples=60, deadline=None)
@given(preset=presets, model=models, ctx=contexts, util=utils)
def test_fp16_kv_halves_b_max(preset, model, ctx, util):
    fp8 = scenario(preset=preset, model=model, ctx=ctx, util=util, kvdtype="fp8")
    fp16 = scenario(preset=preset, model=model, ctx=ctx, util=util, kvdtype="fp16")
    state = MODELS[model].state_bytes
    if not state:
        assert fp16.b_max in (fp8.b_max // 2, (fp8.b_max + 1) // 2)
    else:  # a recurrent state stays at 16 bits whatever the KV dtype: only the cache beside it doubles
        cache = fp8.request_bytes - state
        assert fp16.b_max == math.floor(fp16.eta * fp16.headroom / (2 * cache + state))
        assert fp8.b_max // 2 < fp16.b_max <= fp8.b_max


def test_allreduce_flat_on_nvlink_and_linear_on_infiniband():
    B = np.arange(1, 65)
    nv, ib = INTERCONNECTS["nvlink"], INTERCONNECTS["infiniband"]
    t_nv = E.t_allreduce(B, 8, DEEPSEEK_R1, 1.0, nv.bw, nv.alpha)
    assert t_nv[-1] / t_nv[0] < 1.1  # latency-bound over the interactive range: α dominates
    B = np.arange(1, 513)
    t_ib = E.t_allreduce(B, 8, DEEPSEEK_R1, 1.0, ib.bw, ib.alpha)
    slope = np.diff(t_ib)
    np.testing.assert_allclose(slope, slope[0], rtol=1e-9)  # exactly linear
    assert t_ib[-1] / t_ib[0] > 10  # and the bandwidth term dominates


def test_no_collective_cost_on_one_gpu_or_one_stage():
    B = np.arange(1, 10)
    assert not E.t_allreduce(B, 1, DEEPSEEK_R1, 1.0, 450e9, 1e-5).any()
    assert not E.t_pipeline(B, 1, DEEPSEEK_R1, 1.0, 450e9, 1e-5).any()
    assert scenario(tp=1, pp=1).evaluate(B)["t_comm"].sum() == 0


def test_roofline_two_regimes():
    s = scenario(preset="h200x8", tp=1)
    b_star = s.summary()["b_star"]
    assert b_star == pytest.approx(412, rel=0.005)  # the article's ridge table: B* = 412 at FP8
    step, _ = s.with_context(0).step_and_comm(np.array([1.0, b_star, 4 * b_star]))
    T = np.array([1.0, b_star, 4 * b_star]) / step
    assert T[0] == pytest.approx(38.4e12 / 37e9)  # memory bound: B·BW/(P_active·b_w) = 1,037.8 tok/s at B = 1
    assert T[2] == pytest.approx(31.664e15 / (2 * 37e9))  # compute-bound plateau: 427,892 tok/s
    assert T[1] == pytest.approx(T[2])  # the two meet at the ridge batch


@pytest.mark.parametrize(("ctx", "expected"), [(0, 412.29), (1024, 688.21), (2048, 2080.55), (2555, math.inf)])
def test_the_step_turns_compute_bound_later_than_b_star_with_kv_reads(ctx, expected):
    # 8×H200 FP8: B* = 31.664e15 / (2·38.4e12) = 412.29; with 1,024 tokens of 35,136 B each the memory term
    # grows by 35,979,264 B per request: 37e9 / (2·37e9·38.4e12/31.664e15 − 35,979,264) = 688.21. Past
    # S = 2·37e9·38.4e12 / (35,136·31.664e15) = 2,554.1 tokens the FLOPs never catch up.
    s = scenario(preset="h200x8")
    b = E.compute_bound_batch(ctx, s.model, s.b_w, s.kappa, s.bw, s.compute)
    assert b == pytest.approx(expected, rel=2e-3)
    if ctx:  # the first whole batch past it, counted one at a time up to B_max
        assert Reference(ctx=ctx).compute_bound_from == (math.ceil(b) if b < math.inf else math.inf)


@pytest.mark.parametrize("cv,ttft_ms", [(0, 3.0077974), (0.5, 3.1283681), (1, 3.4900804), (2, 4.9369292)])
def test_ttft_boxed_form_and_cv(cv, ttft_ms):
    # 8×H200, TP 1, S = S_in = 1,024, B = 1, worked by hand:
    # t_prefill = (2·37e9·1,024 + 4·61·128·128·1,024²) / 31.664e15 = 2.5255144 ms;
    # t_step = (37e9 + 1,024·35,136) / 38.4e12 = 0.96447863 ms; B_max = ⌊0.87·457e9 / (1,024·35,136)⌋ = 11,050;
    # TTFT = t_prefill + (1 + CV²)/2 · t_step / (1 − 1/11,050). CV = 0 and CV = 1 alone cannot tell CV² from CV.
    s = scenario(tp=1, cv=cv)
    assert s.summary()["t_prefill"] == pytest.approx(2.5255144e-3, rel=1e-7)
    assert s.b_max == 11_050
    assert 1e3 * s.evaluate([1])["ttft"][0] == pytest.approx(ttft_ms, rel=1e-7)
    wait = ttft_ms - 2.5255144
    assert wait / (3.0077974 - 2.5255144) == pytest.approx(1 + cv**2, rel=1e-6)  # the CV factor, M/D/1 to M/G/1


def test_e2e_cost_efficiency_and_speculation():
    assert E.e2e_latency(0.05, 500, 0.03) == pytest.approx(15.05)
    assert E.cost_per_million_tokens(36.0, 10_000) == pytest.approx(1.0)  # $36/h at 10k tok/s
    assert E.tokens_per_joule(10_000, 5_000) == pytest.approx(2.0)
    assert E.expected_accepted(5, 1.0) == 6.0
    assert E.itl_speculative(5, 0.0, 1e-3, 1e-3) == pytest.approx(6e-3)


def test_weights_that_do_not_fit_are_a_result():
    s = scenario(preset="h200x8", wdtype="fp16")
    assert s.unfit_reason() == "needs 1,342 GB of weights; the machine has 1,128 GB"
    assert s.b_max == 0
    r = s.evaluate([1, 8])
    assert np.isinf(r["ttft"]).all() and not r["stable"].any()
    assert frontier_batches(s.b_max).size == 0


def test_context_too_long_for_one_request_is_explained():
    s = scenario(preset="mi300x4", hbm=680, ctx=131072, kvdtype="fp16", util=50)
    assert s.b_max == 0
    assert "no request fits" in s.unfit_reason()


@pytest.mark.parametrize(
    "name,value,fragment",
    [
        ("bw", -1, "bw=-1: must be a number from 0.6 to 600 TB/s"),
        ("bw", 600.01, "bw=600.01: must be a number from 0.6 to 600 TB/s"),
        ("hbm", 1e308, "hbm=1e+308: must be a number from 24 to 21,000 GB"),
        ("compute", 10**400, "compute=100000000000000000...0000000000000000000: must be a number from 0.1 to 1,000"),
        ("ctx", 2e9, "ctx=2000000000.0: must be a whole number from 1 to 131,072 tokens"),
        ("hbm", float("nan"), "hbm=nan: must be a number from 24 to 21,000 GB"),
        ("hbm", float("-inf"), "hbm=-inf: must be a number"),
        ("ctx", 0, "ctx=0: must be a whole number from 1 to"),
        ("isl", 1000.5, "isl=1000.5: must be a whole number"),
        ("util", 5e-324, "util=5e-324: must be a number from 50 to 100 %"),
        ("util", 101, "util=101: must be a number from 50 to 100 %"),
        ("cv", -0.1, "cv=-0.1: must be a number from 0 to 2"),
        ("cv", -1e-301, "cv=-1e-301: must be a number from 0 to 2"),
        ("tp", 0, "tp=0: must be a power of two from 1 to 64 GPUs"),
        ("tp", 3, "tp=3: must be a power of two from 1 to 64 GPUs"),
        ("pp", 32, "pp=32: must be a power of two from 1 to 16 stages"),
        ("tp", True, "tp=True: must be a power of two"),
        ("wdtype", "fp3", "wdtype=fp3: must be one of fp16, bf16, fp8, int8, fp4, int4"),
        ("preset", "tpu", "preset=tpu: must be one of h200x8, mi300x4, b200x8"),
        ("preset", ["h200x8"], "preset=['h200x8']: must be one of"),
        ("ic", "carrier-pigeon", "ic=carrier-pigeon: must be one of nvlink, infiniband, roce, scale-up"),
        ("compute", "fast", "compute=fast: must be a number from 0.1 to 1,000 PFLOPS"),
    ],
)
def test_invalid_input_names_parameter_and_range(name, value, fragment):
    with pytest.raises(InvalidParameter) as err:
        scenario(**{name: value})
    assert fragment in str(err.value)
    assert err.value.name == name


def test_preset_sets_hardware_and_explicit_values_override():
    s = scenario(preset="mi300x4")
    assert (s.bw, s.compute, s.hbm, s.tp) == (21.2e12, 10.456e18 / 1e3, 768e9, 4)
    t = scenario(preset="mi300x4", bw=30, tp=8)
    assert (t.bw, t.hbm, t.tp) == (30e12, 768e9, 8)
    assert set(PARAMS) >= {
        "preset",
        "bw",
        "compute",
        "hbm",
        "ctx",
        "isl",
        "wdtype",
        "kvdtype",
        "cv",
        "util",
        "tp",
        "pp",
        "ic",
    }


def test_frontier_samples_cover_both_ends():
    grid = frontier_batches(10_000, 100)
    assert grid[0] == 1 and grid[-1] == 10_000
    powers = 2 ** np.arange(14)  # 1 … 8192: the explorer reads these batches exactly
    assert np.isin(powers, grid).all()
    assert len(grid) <= 100
    assert (np.diff(grid) > 0).all()
    assert (grid > 9_990).sum() >= 5  # dense near the queue knee
    np.testing.assert_array_equal(frontier_batches(5), np.arange(1, 6))


def test_a_new_preset_brings_its_hardware_and_keeps_the_workload():
    s = scenario(ctx=4096, bw=50, cv=0.5)
    t = s.with_params(preset="mi300x4")
    assert (t.bw, t.compute, t.hbm, t.tp, t.hardware) == (21.2e12, 10.456e18 / 1e3, 768e9, 4, "mi300x4")
    assert (t.ctx, t.cv) == (4096, 0.5)
    assert s.with_params(preset="mi300x4", bw=30).bw == 30e12  # unless the change sets a hardware control too
    same = scenario(preset="mi300x4", ctx=4096, cv=0.5)
    assert t == same and hash(t) == hash(same)


def test_evaluate_all_gives_each_scenario_its_own_formulas():
    # Three scenarios with different hardware, TP/PP, interconnect and CV, evaluated together: each slice
    # must be that scenario's formulas, one batch size at a time.
    scns = [scenario(), scenario(preset="mi300x4", ctx=8192, tp=1), scenario(pp=4, ic="infiniband", cv=1)]
    grids = [np.arange(1, 50), np.array([3, 700]), frontier_batches(scns[2].b_max, 40)]
    refs = [Reference(), Reference(preset="mi300x4", ctx=8192, tp=1), Reference(pp=4, ic="infiniband", cv=1)]
    for r, ref, B in zip(evaluate_all(scns, grids), refs, grids, strict=True):
        np.testing.assert_array_equal(r["batch"], B)
        for i, b in enumerate(B.tolist()):
            for key, expected in ref.point(b).items():
                assert r[key][i] == pytest.approx(expected, rel=1e-12), (key, b)


@settings(max_examples=80, deadline=None)
@given(b_max=st.integers(1, 10**7), n=st.integers(2, 3000))
def test_geometric_batches_are_exactly_n_distinct_sizes_from_1_to_b_max(b_max, n):
    B = geometric_batches(b_max, n)
    assert len(B) == min(n, b_max)
    assert B[0] == 1 and B[-1] == b_max
    assert (np.diff(B) > 0).all()
