"""The engine, the scenario and every figure against `reference.py`, a scalar re-implementation written from
the article, over random scenarios (every control of the article's model; the calibrated model is checked
against hand-worked numbers in test_fidelity.py)."""

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import BYTES, INTERCONNECTS, PRESETS, Reference

from inferx.figures import registry as figure_registry
from inferx.scenario.evaluation import Scenario

ROOT = Path(__file__).resolve().parents[1]
MACHINES = {"h200x8": "8×H200", "mi300x4": "4×MI300X", "b200x8": "8×B200"}  # the legends' names of the presets
# A preset's GPUs over another link than the article's NVLink are no longer its machine: the legends name them
# as the catalog does.
CATALOG = {"h200x8": "8×H200 SXM", "mi300x4": "4×MI300X", "b200x8": "8×B200"}


def current_machine(ref: Reference) -> str:
    return MACHINES[ref.preset] if ref.p["ic"] == "nvlink" else CATALOG[ref.preset]


LINKS = {"nvlink": "NVLink 4.0", "infiniband": "InfiniBand HDR200", "roce": "RoCE v2 (100 GbE)"}  # the article's

tokens = st.floats(7, 17).map(lambda e: round(2**e))  # log-uniform over the sliders' 128 … 131,072
pow2 = st.sampled_from([1, 2, 4, 8, 16])


@st.composite
def controls(draw):
    """User-unit controls on the sliders' ranges; the preset's hardware is kept or overridden at random."""
    params = {
        "preset": draw(st.sampled_from(sorted(PRESETS))),
        "ctx": draw(tokens),
        "isl": draw(tokens),
        "wdtype": draw(st.sampled_from(sorted(BYTES))),
        "kvdtype": draw(st.sampled_from(sorted(BYTES))),
        "cv": draw(st.floats(0, 2)),
        "util": draw(st.floats(50, 100)),
        "pp": draw(pow2),
    }
    for name, low, high in (("bw", 1, 200), ("compute", 1, 200), ("hbm", 80, 4096)):
        if draw(st.booleans()):
            params[name] = draw(st.floats(low, high))
    if draw(st.booleans()):
        params["tp"] = draw(pow2)
    if draw(st.booleans()):
        params["ic"] = draw(st.sampled_from(sorted(INTERCONNECTS)))
    return params


def batches(b_max: int, extra: int) -> list[int]:
    """Both ends, the queue knee on either side of B_max, and one drawn size."""
    return sorted({1, 2, 3, 64, max(1, b_max // 2), max(1, b_max - 1), max(1, b_max), b_max + 1, extra})


def close(a, b, rel=1e-9):
    return a == b or (math.isfinite(a) and math.isfinite(b) and abs(a - b) <= rel * max(abs(a), abs(b)))


@settings(max_examples=150, deadline=None)
@given(params=controls(), extra=st.integers(1, 10**6))
def test_every_engine_output_matches_the_reference(params, extra):
    ref = Reference(**params)
    scn = Scenario.from_params(**params)
    s = scn.summary()
    assert s["b_max"] == ref.b_max
    for key, expected in (
        ("kappa", ref.kappa),
        ("headroom", ref.headroom),
        ("b_star", ref.b_star),
        ("ridge", ref.ridge),
        ("t_inf", ref.t_inf),
        ("t_prefill", ref.t_prefill),
        ("itl_floor", ref.itl_floor),
    ):
        assert close(s[key], expected), (key, s[key], expected)
    B = batches(ref.b_max, extra)
    r = scn.evaluate(B)
    for i, b in enumerate(B):
        want = ref.point(b)
        for key, expected in want.items():
            assert close(float(r[key][i]), expected), (key, b, float(r[key][i]), expected)
        assert bool(r["stable"][i]) == (want["rho"] < 1)


changes = st.fixed_dictionaries(
    {},
    optional={
        "preset": st.sampled_from(sorted(PRESETS)),
        "ctx": tokens,
        "cv": st.floats(0, 2),
        "pp": pow2,
        "tp": pow2,
        "wdtype": st.sampled_from(sorted(BYTES)),
    },
)


@settings(max_examples=60, deadline=None)
@given(params=controls(), change=changes)
def test_a_changed_scenario_matches_the_reference_of_its_new_controls(params, change):
    # A new preset brings its own hardware (bw, compute, hbm, tp, ic) unless the change sets them too.
    hardware = ("bw", "compute", "hbm", "tp", "ic") if "preset" in change else ()
    ref = Reference(**{**{k: v for k, v in params.items() if k not in hardware}, **change})
    scn = Scenario.from_params(**params).with_params(**change)
    assert scn.b_max == ref.b_max
    for b in (1, 37, max(1, ref.b_max - 1)):
        want = ref.point(b)
        got = scn.evaluate([b])
        for key, expected in want.items():
            assert close(float(got[key][0]), expected), (key, b)


# --- Figures -------------------------------------------------------------------------------


def trace(fig, name, prefix=False):
    """The one trace called `name` (with `prefix`, whose name starts with it: a reference drawn as markers on a
    curve it coincides with is named with that curve too)."""
    found = [t for t in fig["data"] if t["name"] == name or prefix and t["name"].startswith(name)]
    assert len(found) == 1, (name, [t["name"] for t in fig["data"]])
    return found[0]


def assert_samples(xs, ys, f, rel=6e-4, exact_x=True):
    """Each (x, y) of a trace against y = f(x). Traces carry 4 significant figures; an x rounded from a whole
    batch size above 9,999 moves a curve that is at most linear in B by at most as much again."""
    assert len(xs) == len(ys) > 0
    for x, y in zip(xs, ys, strict=True):
        tol = rel if exact_x or x < 1e4 else 2.2 * rel
        expected = f(x)
        assert abs(y - expected) <= tol * abs(expected), (x, y, expected)


def assert_frontier(t, ref):
    """A throughput–TTFT trace (customdata = whole batch sizes) against the reference, and its end at ρ = 0.99."""
    B = t["customdata"]
    assert B == sorted(B) and (B[0] == 1 or t["mode"] == "markers")  # markers on another curve: a sample of it
    assert_samples(B, t["x"], lambda b: ref.point(b)["throughput"])
    assert_samples(B, t["y"], lambda b: 1e3 * ref.point(b)["ttft"])
    # The last sample is the largest B with B/B_max ≤ 0.99 (whole-number arithmetic, no rounding).
    assert 100 * B[-1] <= 99 * ref.b_max < 100 * (B[-1] + 1)


def workload(params):
    return {k: v for k, v in params.items() if k not in ("preset", "bw", "compute", "hbm", "tp", "ic")}


def check_figures(params, batch):
    ref = Reference(**params)
    scn = Scenario.from_params(**params)
    figs = figure_registry.build(scn, batch=batch)
    fits = ref.b_max >= 2

    # Figure 1: the roofline at S = 0, with and without communication; B* dashed.
    # Weights that do not fit the machine: every figure says so instead of drawing.
    if ref.headroom <= 0:
        for name, fig in figs.items():
            notes = " ".join(a["text"] for a in fig["layout"]["annotations"])
            assert "GB of weights; the machine has" in notes, name
        return
    f1 = figs["fig1"]
    comm_any = ref.t_comm(1) > 0
    bare = trace(f1, "Roofline, no communication" if comm_any else "Roofline (S = 0)")
    assert_samples(bare["x"], bare["y"], lambda b: b / ref.t_step(b, ctx=0), exact_x=False)
    if comm_any:
        full = trace(f1, "With TP/PP communication")
        assert_samples(full["x"], full["y"], lambda b: b / (ref.t_step(b, ctx=0) + ref.t_comm(b)), exact_x=False)
    assert close(f1["layout"]["shapes"][0]["x0"], ref.b_star)

    # Figure 2: throughput against batch at the current context and two references; T∞ dashed.
    f2 = figs["fig2"]
    if ref.headroom > 0:
        ceilings = [sh["y0"] for sh in f2["layout"]["shapes"]]
        for t in f2["data"]:
            S = int(t["name"].split(" ")[2].strip(",").replace(",", ""))  # "S = 8,192, B<sub>max</sub> = 1.38k"
            at = Reference(**{**params, "ctx": S})
            assert_samples(t["x"], t["y"], lambda b, at=at: at.point(b)["throughput"], exact_x=False)
            assert any(close(c, at.t_inf) for c in ceilings), (S, ceilings)
        assert trace(f2, f"S = {ref.ctx:,} (current), B<sub>max</sub> = ", prefix=True) if fits else True

    # Figure 3: the prefill floor at the input length, the queueing wait and their sum.
    f3 = figs["fig3"]
    if fits:
        prefill, queue, total = f3["data"]
        assert prefill["name"].startswith("Prefill") and total["name"] == "TTFT total"
        assert_samples(prefill["x"], prefill["y"], lambda b: 1e3 * ref.t_prefill)
        exact = [i for i, x in enumerate(total["x"]) if x < 1e4]  # a rounded B moves the queue knee
        B = [total["x"][i] for i in exact]
        assert_samples(B, [queue["y"][i] for i in exact], lambda b: 1e3 * (ref.point(b)["ttft"] - ref.t_prefill))
        assert_samples(B, [total["y"][i] for i in exact], lambda b: 1e3 * ref.point(b)["ttft"])
        knee, b_max = f3["layout"]["shapes"][:2]  # ρ > 0.85 shaded up to B_max, and B_max itself
        assert close(knee["x0"], 0.85 * ref.b_max) and knee["x1"] == b_max["x0"] == ref.b_max
    else:
        assert not f3["data"]

    # Figure 4: ITL against throughput, parametric in B; the ITL floor dashed.
    f4 = figs["fig4"]
    assert close(f4["layout"]["shapes"][0]["y0"], 1e3 * ref.itl_floor)
    if fits:
        t, powers = f4["data"]  # the curve, and markers at the power-of-two batches on it
        for tr in (t, powers):
            assert_samples(tr["customdata"], tr["x"], lambda b: ref.point(b)["throughput"])
            assert_samples(tr["customdata"], tr["y"], lambda b: 1e3 * ref.point(b)["itl"])
        assert all(b & (b - 1) == 0 for b in powers["customdata"])

    # Figure 5: the current frontier and the other presets under the same workload.
    f5 = figs["fig5"]
    if fits:
        assert_frontier(trace(f5, f"{current_machine(ref)} (current)"), ref)
    for preset, label in MACHINES.items():
        other = Reference(preset=preset, **workload(params))
        if preset != ref.preset and other.b_max >= 2:
            assert_frontier(trace(f5, f"{label} (preset)"), other)

    # Figure 6: the explorer's frontier with [B, ITL, ρ] per sample, and the dot at the chosen batch.
    f6 = figs["fig6"]
    if fits:
        line, dot = f6["data"]
        B = [c[0] for c in line["customdata"]]
        assert_samples(B, line["x"], lambda b: ref.point(b)["throughput"], rel=1e-5)
        assert_samples(B, line["y"], lambda b: 1e3 * ref.point(b)["ttft"], rel=1e-5)
        assert_samples(B, [c[1] for c in line["customdata"]], lambda b: 1e3 * ref.point(b)["itl"], rel=1e-5)
        assert_samples(B, [c[2] for c in line["customdata"]], lambda b: ref.point(b)["rho"], rel=1e-5)
        assert set(range(1, min(65, ref.b_max))) <= set(B)
        if batch < ref.b_max:
            assert dot["customdata"][0][0] == batch
            assert close(dot["x"][0], ref.point(batch)["throughput"], 1e-5)

    # Figure 7: FP16+FP16 and FP8+FP8 references on the same hardware; one equal to the current settings gives
    # way to the first spare (FP8 weights + FP16 KV, then FP4 weights + FP8 KV) that is not the current one.
    f7 = figs["fig7"]
    current = (scn.params["wdtype"], scn.params["kvdtype"])
    spares = [pair for pair in (("fp8", "fp16"), ("fp4", "fp8")) if pair != current]
    for pair in (("fp16", "fp16"), ("fp8", "fp8")):
        w, kv = spares.pop(0) if pair == current else pair
        other = Reference(**{**params, "wdtype": w, "kvdtype": kv})
        if other.b_max >= 2:
            assert_frontier(trace(f7, f"{w.upper()} weights + {kv.upper()} KV", prefix=True), other)

    # Figure 8: t_AR + t_PP of four fixed configurations and of the current one.
    f8 = figs["fig8"]
    configs = {
        "TP 4, NVLink 4": dict(tp=4, pp=1, ic="nvlink"),
        "TP 8, NVLink 4": dict(tp=8, pp=1, ic="nvlink"),
        "TP 4, InfiniBand": dict(tp=4, pp=1, ic="infiniband"),
        "TP 4 + PP 4, InfiniBand": dict(tp=4, pp=4, ic="infiniband"),
        f"{current_machine(ref)} (current): TP {ref.tp}, PP {ref.pp}, {LINKS[ref.p['ic']]}": {},
    }
    for name, config in configs.items():
        other = Reference(**{**params, **config})
        t = trace(f8, name, prefix=bool(config))
        assert_samples(t["x"], t["y"], lambda b, o=other: 1e3 * o.t_comm(b), exact_x=False)

    # Figure 9: ideal (CV 0, η 100 %) and realistic (CV 1, η 87 %) workloads.
    f9 = figs["fig9"]
    for name, cv, util in (("Ideal", 0, 100), ("Realistic", 1, 87)):
        other = Reference(**{**params, "cv": cv, "util": util})
        if other.b_max >= 2:
            assert_frontier(trace(f9, f"{name} (CV {cv}, utilisation {util} %)", prefix=True), other)
    if fits:
        current = [t for t in f9["data"] if t["name"].startswith(f"{current_machine(ref)} (current)")]
        assert len(current) == 1
        assert_frontier(current[0], ref)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(params=controls(), batch=st.integers(1, 2000))
def test_every_figure_matches_the_reference(params, batch):
    check_figures(params, batch)


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"preset": "mi300x4", "ctx": 8192, "isl": 300, "cv": 0.5, "pp": 4, "ic": "infiniband"},
        {"preset": "b200x8", "wdtype": "fp16", "kvdtype": "fp4", "tp": 2, "pp": 2, "ctx": 4096},
        {"preset": "mi300x4", "ctx": 1500, "isl": 1024, "cv": 1.5},
        {"hbm": 700, "ctx": 131072},  # nothing fits: figures become notes
    ],
)
def test_figures_of_chosen_scenarios_match_the_reference(params):
    check_figures(params, 64)


def test_point_command_matches_the_reference():
    # The CLI prints 6 significant figures; the reference's values must round to them.
    args = ["--preset", "mi300x4", "--ctx", "6000", "--isl", "2000", "--cv", "0.7", "--pp", "2", "--batch", "40"]
    out = subprocess.run([sys.executable, "-m", "inferx", "point", *args], capture_output=True, text=True, cwd=ROOT,
                         timeout=60)  # fmt: skip
    assert out.returncode == 0, out.stderr
    rec = json.loads(out.stdout)
    ref = Reference(preset="mi300x4", ctx=6000, isl=2000, cv=0.7, pp=2)
    p = ref.point(40)
    expected = {
        "throughput_tok_s": p["throughput"],
        "ttft_ms": 1e3 * p["ttft"],
        "itl_ms": 1e3 * p["itl"],
        "t_step_ms": 1e3 * p["t_step"],
        "t_prefill_ms": 1e3 * ref.t_prefill,
        "t_comm_ms": 1e3 * p["t_comm"],
        "rho": p["rho"],
        "b_max": ref.b_max,
        "b_star": ref.b_star,
        "kappa_bytes_per_token": ref.kappa,
        "kv_headroom_gb": ref.headroom / 1e9,
        "t_inf_tok_s": ref.t_inf,
    }
    for key, value in expected.items():
        assert rec[key] == pytest.approx(value, rel=1e-5), key
