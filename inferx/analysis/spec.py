"""Speculative decoding, SRAM draft machines and MoE expert coverage: numbers and figure builders.

Speculative decoding (the article's §10): a draft model proposes k tokens, one target pass verifies them,
and E[accept] = (1 − α^(k+1)) / (1 − α) tokens come out per round, so
ITL_eff = (k·δ + t_verify) / E[accept]. δ is the draft model's step on its own device, taken as one read of
its weights (bandwidth-bound, the same for any batch). Two verify models:

- "article": a compute-bound prefill of k tokens per request, B · t_prefill(k); it reproduces the article's
  table (0.012 ms at B = 1 on 8×H200) but leaves out the weight read a target pass makes;
- "roofline": one target step that reads the weights and the B requests' KV once and computes B·k tokens,
  plus the all-reduce of B·k tokens' activations. It is the slower, physical verify pass.

The baseline is the engine's ITL at the same batch size; the speed-up is baseline / ITL_eff.
"""

from __future__ import annotations

import functools

import numpy as np

from inferx.physics import engine as E
from inferx.physics.models import dense_params, expected_distinct_experts, params_read_per_step
from inferx.scenario.batches import frontier_batches
from inferx.scenario.evaluation import Scenario

K = 5  # the article's draft length
ALPHA = 0.8  # and its acceptance rate
ALPHAS = (0.6, 0.7, 0.8, 0.9)
DRAFT_BYTES = 1.6e9  # the article's draft model: 1.6 B parameters in INT8
VERIFY_MODES = ("article", "roofline")
# Memories of the article's bandwidth-density table: (bandwidth bytes/s, capacity bytes).
MEMORIES = {
    "H100 HBM3": (3.35e12, 80e9),
    "MI300X HBM3": (5.30e12, 192e9),
    "Corsair SRAM (d-Matrix)": (150e12, 2e9),
}
# Draft devices: a GPU's HBM (the article's H100 figure) and an SRAM chip.
DRAFT_DEVICES = {"gpu": MEMORIES["H100 HBM3"][0], "sram": MEMORIES["Corsair SRAM (d-Matrix)"][0]}


def density_table() -> list[dict]:
    """The bandwidth-density comparison: bandwidth (TB/s), capacity (GB), density (GB/s per GB)."""
    return [
        {
            "memory": name,
            "bw_tb_s": bw / 1e12,
            "capacity_gb": cap / 1e9,
            "density_gb_s_per_gb": E.bandwidth_density(bw, cap),
        }
        for name, (bw, cap) in MEMORIES.items()
    ]


def draft_step(draft_bytes: float = DRAFT_BYTES, bw: float = DRAFT_DEVICES["gpu"]) -> float:
    """δ: one read of the draft model's weights (bytes) at the draft device's bandwidth (bytes/s), s."""
    return E.itl_floor(draft_bytes, 1.0, bw)


def verify_time(scn: Scenario, k, B, mode: str = "article") -> np.ndarray:
    """t_verify (s) of k draft tokens for each of B requests, by the article's or the roofline model."""
    if mode not in VERIFY_MODES:
        raise ValueError(f"verify mode must be one of {', '.join(VERIFY_MODES)}, not {mode!r}")
    B = np.asarray(B, dtype=float)
    k = np.asarray(k, dtype=float)
    if mode == "article":
        return B * E.t_prefill(k, scn.model, scn.compute)
    memory = E.bytes_per_step(B, scn.ctx, scn.model, scn.b_w, scn.kappa, scn.replicated) / scn.bw
    compute = 2.0 * scn.model.p_active * B * k / scn.compute
    # The all-reduce and pipeline hand-offs carry all B·k tokens' activations.
    tokens = B * k
    comm = E.t_collectives(tokens, scn.tp, scn.model, scn.b_w, scn.ic_bw, scn.ic_alpha, scn.dp, scn.ep) + E.t_pipeline(
        tokens, scn.pp, scn.model, scn.b_w, scn.pp_bw, scn.pp_alpha
    )
    return np.maximum(memory, compute) + comm


def speculative(
    scn: Scenario, k=K, alpha=ALPHA, delta: float | None = None, B=1, verify: str = "article", baseline=None
) -> dict:
    """Effective ITL and speed-up, broadcast over k, α and B (arrays): baseline_itl, verify, accepted,
    itl_eff (s) and speedup (×). `delta` defaults to the article's draft model on a GPU; `baseline` is the
    plain ITL at B when the caller has it already (a figure compares four drafts on one grid)."""
    delta = draft_step() if delta is None else float(delta)
    B = np.asarray(B, dtype=float)
    if baseline is None:
        base = scn.roofline_itl(np.atleast_1d(B).ravel())
        base = base.reshape(B.shape) if B.ndim else base[0]
    else:
        base = baseline
    t_v = verify_time(scn, k, B, verify)
    k = np.asarray(k, dtype=float)
    accepted = E.expected_accepted(k, alpha)
    eff = E.itl_speculative(k, alpha, delta, t_v, accepted)
    return {
        "baseline_itl": base,
        "verify": t_v,
        "accepted": accepted,
        "itl_eff": eff,
        "speedup": base / eff,
    }


VANISHING_POINTS = 200  # vanishing_batch's first grid: where it starts narrowing in
BATCH_POINTS = 90  # Figure 14's curves


def batch_grids(scn: Scenario) -> list[tuple[int, int]]:
    """The frontier_batches (b_max, points) pairs Figure 14 reads, for the redraw's one pass of sampling."""
    return [(max(2, scn.b_max - 1), BATCH_POINTS), (scn.b_max, VANISHING_POINTS)]


@functools.lru_cache(maxsize=8)
def vanishing_grid(scn: Scenario) -> tuple[np.ndarray, np.ndarray]:
    """`vanishing_batch`'s first grid and the plain ITL on it, shared by the four curves of Figure 14."""
    grid = frontier_batches(scn.b_max, VANISHING_POINTS)
    base = scn.roofline_itl(grid)
    base.setflags(write=False)
    return grid, base


def vanishing_batch(
    scn: Scenario, k=K, alpha=ALPHA, delta: float | None = None, verify: str = "article", first=None
) -> int | None:
    """The smallest batch size at which speculation stops paying (speed-up ≤ 1) before B_max, or None.
    `first`: the speed-up on `vanishing_grid(scn)`'s grid, where the caller has it (Figure 14 computes its
    four curves' in one pass)."""
    if scn.unfit_reason():
        return None
    grid, base = vanishing_grid(scn)
    if first is None:
        first = speculative(scn, k, alpha, delta, grid, verify, base)["speedup"]
    slow = first <= 1.0
    if not slow.any():
        return None
    i = int(np.argmax(slow))
    if i == 0:
        return int(grid[0])
    lo, hi = int(grid[i - 1]), int(grid[i])  # speeds up at lo, not at hi: narrow in passes of 64 batch sizes
    while hi - lo > 1:
        cand = np.unique(np.linspace(lo, hi, 66).astype(np.int64)[1:-1]) if hi - lo > 65 else np.arange(lo + 1, hi)
        slow = speculative(scn, k, alpha, delta, cand, verify)["speedup"] <= 1.0
        j = int(np.argmax(slow)) if slow.any() else cand.size
        lo = int(cand[j - 1]) if j else lo
        hi = int(cand[j]) if j < cand.size else hi
    return hi


# --- MoE expert coverage ------------------------------------------------------------------


def expert_coverage(model, B, b_w: float) -> dict:
    """What a decode step of B tokens reads from an MoE model, uniform routing: distinct routed experts per
    MoE layer, their share of all routed experts, and weight bytes per step beside the article's P_active·b_w
    (one token's experts) and P_total·b_w (every expert)."""
    B = np.asarray(B, dtype=float)
    distinct = expected_distinct_experts(model, B)
    return {
        "batch": B,
        "distinct_experts": distinct,
        "coverage": distinct / model.n_routed_experts if model.is_moe else np.ones_like(B),
        "bytes_read": params_read_per_step(model, B) * b_w,
        "active_bytes": model.p_active * b_w,
        "total_bytes": model.p_total * b_w,
        "dense_bytes": dense_params(model) * b_w,
    }
