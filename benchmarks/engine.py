"""1. Engine: every figure's data built by inferx against the same curves evaluated one batch size at a time in
plain Python (LoopModel) and through the engine's own functions per point (EngineLoopModel); the dense sweep; and
the figures built through plotly's validated graph objects."""

from __future__ import annotations

import math
import time

import numpy as np

from benchmarks.common import FIGS, pct, states
from benchmarks.report import Row
from inferx.figures import registry
from inferx.figures.style import COMM_REFS, CONTEXT_REFS, QUANT_REFS, WORKLOAD_REFS
from inferx.physics.presets import HARDWARE
from inferx.scenario import frontier
from inferx.scenario.batches import frontier_batches, log_batches
from inferx.scenario.evaluation import Scenario
from inferx.scenario.machines import default_params

# --- 1. Engine -----------------------------------------------------------------------------------


def _sig(v: float) -> float:
    """4 significant figures, as figures.style.round_sig rounds the vectorised payload."""
    return float(f"{v:.4g}")


class LoopModel:
    """The article-mode formulas evaluated one batch size at a time in plain Python (the baseline)."""

    def __init__(self, s: Scenario):
        m = s.model
        self.s = s
        self.weights = m.p_active * s.b_w
        self.kv = s.ctx * s.kappa
        self.flop = 2.0 * m.p_active
        self.b_max = s.b_max if s.ctx else 0  # S = 0 (Figure 1): no KV, no queue
        self.ar = (m.n_layers * 2, (s.tp - 1) / s.tp, m.d_model * s.b_w / s.ic_bw) if s.tp > 1 else None
        self.pp = (s.pp - 1, m.d_model * s.b_w / s.ic_bw) if s.pp > 1 else None
        self.prefill = (2.0 * m.p_active * s.isl + 4.0 * m.n_layers * m.n_q_heads * m.d_head * s.isl**2) / s.compute
        self.queue = (1.0 + s.cv**2) / 2.0

    def step(self, B: float) -> float:
        s = self.s
        return max((self.weights + B * self.kv) / s.bw, self.flop * B / s.compute)

    def comm(self, B: float) -> float:
        alpha, total = self.s.ic_alpha, 0.0
        if self.ar:
            two_l, share, per_b = self.ar
            total += two_l * (alpha + share * B * per_b)
        if self.pp:
            stages, per_b = self.pp
            total += stages * (alpha + B * per_b)
        return total

    def point(self, B: float) -> tuple[float, float, float, float]:
        """(throughput, TTFT, ITL, ρ) at batch B."""
        itl = self.step(B) + self.comm(B)
        rho = B / self.b_max if self.b_max > 0 else math.inf
        ttft = self.prefill + self.queue * itl / (1.0 - rho) if rho < 1.0 else math.inf
        return B / itl, ttft, itl, rho


class EngineLoopModel(LoopModel):
    """The same loop with each batch size sent through the engine's own numpy functions: what the figures
    would cost if the engine were called once per point instead of once per redraw."""

    def step(self, B: float) -> float:
        return float(self.s.step_and_comm(B)[0])

    def comm(self, B: float) -> float:
        return float(self.s.step_and_comm(B)[1])

    def point(self, B: float) -> tuple[float, float, float, float]:
        r = self.s.evaluate(B)
        return tuple(float(r[k][0]) for k in ("throughput", "ttft", "itl", "rho"))


def _loop_grid(s: Scenario, points: int = frontier.CURVE_POINTS, extra=()) -> list[int] | None:
    if s.unfit_reason():
        return None
    end = max(1, int(frontier.RHO_CURVE_END * s.b_max))
    grid = np.union1d(frontier_batches(end, points), np.asarray(extra, dtype=int))
    grid = [int(b) for b in grid if 1 <= b < s.b_max]
    return grid or None


def _loop_frontier(s: Scenario, points=frontier.CURVE_POINTS, extra=(), model=LoopModel) -> dict | None:
    grid = _loop_grid(s, points, extra)
    if grid is None:
        return None
    m = model(s)
    out = {"B": grid, "T": [], "TTFT": [], "ITL": [], "rho": []}
    for B in grid:
        T, ttft, itl, rho = m.point(float(B))
        out["T"].append(_sig(T))
        out["TTFT"].append(_sig(1e3 * ttft))
        out["ITL"].append(_sig(1e3 * itl))
        out["rho"].append(_sig(rho))
    return out


def loop_build(scn: Scenario, batch: int = 8, model=LoopModel) -> dict:
    """The numbers of every figure for one state, per batch size in plain Python (no layouts). Like the
    engine, it evaluates the current frontier once for the five figures that draw it."""

    def curve(s, points=frontier.CURVE_POINTS, extra=()):
        return _loop_frontier(s, points, extra, model)

    out = {}
    s0 = scn.with_context(0)
    b_star = scn.b_w * scn.compute / (2.0 * scn.bw)
    grid = log_batches(max(8 * b_star, 64), frontier.CURVE_POINTS).tolist()
    m0 = model(s0)
    out["fig1"] = [[_sig(B / m0.step(B)) for B in grid], [_sig(B / (m0.step(B) + m0.comm(B))) for B in grid]]
    cur = curve(scn)
    contexts = [curve(scn.with_context(S)) for S in CONTEXT_REFS if S != scn.ctx][:2]
    out["fig2"] = [r["T"] for r in (cur, *contexts) if r]
    out["fig3"] = [[_sig(y - 1e3 * model(scn).prefill) for y in cur["TTFT"]], cur["TTFT"]] if cur else []
    out["fig4"] = [cur["T"], cur["ITL"]] if cur else []
    out["fig5"] = [curve(scn.with_params(preset=p)) for p in HARDWARE if p != scn.hardware] + [cur]
    out["fig6"] = curve(scn, frontier.EXPLORER_POINTS, [*range(1, 65), int(batch)])
    out["fig7"] = [curve(scn.with_params(wdtype=w, kvdtype=kv)) for w, kv in QUANT_REFS] + [cur]
    grid = log_batches(max(1024, scn.b_max), frontier.CURVE_POINTS).tolist()
    comms = [model(scn.with_params(**cfg)) for _, cfg, _ in COMM_REFS.values()] + [model(scn)]
    out["fig8"] = [[_sig(1e3 * m.comm(B)) for B in grid] for m in comms]
    out["fig9"] = [curve(scn.with_params(cv=cv, util=u)) for _, cv, u in WORKLOAD_REFS.values()] + [cur]
    return out


def check_agreement(scn: Scenario) -> None:
    """The baseline computes the same numbers as the engine (else the ratio would be meaningless)."""
    fast, loop = registry.build(scn), loop_build(scn)
    cur = fast["fig5"]["data"][-1]
    ref = loop["fig5"][-1]
    if not (np.allclose(cur["x"], ref["T"], rtol=2e-3) and np.allclose(cur["y"], ref["TTFT"], rtol=2e-3)):
        raise AssertionError("loop baseline disagrees with inferx.figures on Figure 5")
    dot = fast["fig6"]["data"][0]
    if not np.allclose(dot["y"], loop["fig6"]["TTFT"], rtol=2e-3):
        raise AssertionError("loop baseline disagrees with inferx.figures on Figure 6")
    for got, want in zip(fast["fig2"]["data"], loop["fig2"], strict=True):
        if not np.allclose(got["y"], want, rtol=2e-3):
            raise AssertionError("loop baseline disagrees with inferx.figures on Figure 2")
    if loop_build(scn, model=EngineLoopModel) != loop:
        raise AssertionError("the per-point engine loop disagrees with the plain loop")


def bench_engine(quick: bool) -> list[Row]:
    n = 20 if quick else 400
    todo = states(n + 5)
    build = lambda p: registry.build(Scenario.from_params(**p))  # noqa: E731
    loop = lambda p: loop_build(Scenario.from_params(**p))  # noqa: E731
    check_agreement(Scenario.from_params(**todo[0]))
    for p in todo[:5]:  # warm up imports and caches of numpy itself
        build(p), loop(p)
    fast_t, loop_t, per_point_t = [], [], []
    for i, p in enumerate(todo[5:]):
        t0 = time.perf_counter()
        build(p)
        t1 = time.perf_counter()
        if i % 4 == 0 or quick:  # the loop is slow: a quarter of the states is plenty for its median
            loop(p)
            loop_t.append(time.perf_counter() - t1)
        if i % 20 == 0:  # slower still
            t2 = time.perf_counter()
            loop_build(Scenario.from_params(**p), model=EngineLoopModel)
            per_point_t.append(time.perf_counter() - t2)
        fast_t.append(t1 - t0)
    fast, slow, per_point = 1e3 * pct(fast_t, 50), 1e3 * pct(loop_t, 50), 1e3 * pct(per_point_t, 50)
    return [
        Row(
            "Engine",
            f"all figure data, one state (p50 of {len(fast_t)})",
            fast,
            "ms",
            f"plain per-batch Python loop {slow:,.1f} ms",
            slow / fast,
            "≤ 2 ms and ≥ 50×",
            fast <= 2.0 and slow / fast >= 50,
        ),
        Row("Engine", "all figure data, p95", 1e3 * pct(fast_t, 95), "ms", "", None, "", None),
        Row(
            "Engine",
            "all figure data, one state (as above)",
            fast,
            "ms",
            f"the engine's numpy functions called per batch size {per_point:,.0f} ms",
            per_point / fast,
            "— (what vectorising buys)",
            None,
        ),
        bench_dense(quick),
    ]


def bench_dense(quick: bool) -> Row:
    """The vectorisation itself: one frontier at every whole batch size, numpy against the per-batch loop.

    The figures sample each curve at about 90 batch sizes, so at their size numpy's per-call cost, not the
    arithmetic, sets the time; a dense sweep shows what evaluating the formulas as arrays buys.
    """
    scn = Scenario.from_params(**{**default_params(), "ctx": 1024})
    B = np.arange(1, scn.b_max)
    m = LoopModel(scn)
    fast_t, loop_t = [], []
    for _ in range(3 if quick else 30):
        t0 = time.perf_counter()
        scn.evaluate(B)
        t1 = time.perf_counter()
        for b in B.tolist():
            m.point(float(b))
        loop_t.append(time.perf_counter() - t1)
        fast_t.append(t1 - t0)
    fast, slow = 1e3 * pct(fast_t, 50), 1e3 * pct(loop_t, 50)
    return Row(
        "Engine",
        f"one frontier at every batch 1…B_max ({B.size:,} sizes, p50)",
        fast,
        "ms",
        f"plain per-batch Python loop {slow:,.1f} ms",
        slow / fast,
        "≥ 50× (vectorised)",
        slow / fast >= 50,
    )


def bench_validated(quick: bool) -> Row:
    """The same figures built through plotly's validated graph objects, in-process."""
    import plotly.graph_objects as go

    n = 5 if quick else 60
    todo = states(n + 2)
    plain_t, go_t = [], []
    for i, p in enumerate(todo):
        scn = Scenario.from_params(**p)
        t0 = time.perf_counter()
        figs = registry.build(scn, FIGS)
        t1 = time.perf_counter()
        validated = [go.Figure(f) for f in figs.values()]
        t2 = time.perf_counter()
        assert len(validated) == len(FIGS)
        if i >= 2:
            plain_t.append(t1 - t0)
            go_t.append(t2 - t0)
    plain, valid = 1e3 * pct(plain_t, 50), 1e3 * pct(go_t, 50)
    return Row(
        "Server",
        f"figures via validated go.Figure, in-process (p50 of {len(go_t)})",
        valid,
        "ms",
        f"plain dicts {plain:,.2f} ms",
        valid / plain,
        "documents the plain-dict choice",
        None,
    )
