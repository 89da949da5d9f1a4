"""The frontier a redraw evaluates once and every figure reads: its batch grid, stopped at ρ = 0.99, and the
memo of (scenario, points, batch) keys that `evaluate_frontiers` fills in one numpy pass."""

from __future__ import annotations

import numpy as np

from inferx.scenario.batches import frontier_batches, sample_grids
from inferx.scenario.evaluation import Scenario, evaluate_all

RHO_CURVE_END = 0.99  # TTFT is 100× its residual wait here; beyond it the curve is a wall

CURVE_POINTS = 90

EXPLORER_POINTS = 160  # the explorer's frontier is denser: its dot and readouts interpolate between samples


def frontier(scn: Scenario, points: int = CURVE_POINTS, batch: int | None = None) -> dict | None:
    """The stable part of the frontier (ρ ≤ 0.99), or None when it cannot exist (read-only arrays).

    With `batch` (the explorer), every B up to 64 and `batch` itself are samples too.
    """
    key = (scn, points, batch)
    r = _FRONTIERS.get(key, _MISSING)
    return evaluate_frontiers([key])[key] if r is _MISSING else r


def no_curve_reason(scn: Scenario) -> str:
    """Why `frontier(scn)` is None: the scenario's unfit reason, or B_max = 1, where a batch of one fills the
    queue (ρ = B / B_max = 1) and no stable point is left."""
    return scn.unfit_reason() or f"only one request fits (B_max = {scn.b_max}), which keeps the queue full (ρ = 1)"


def _grid_end(scn: Scenario) -> int:
    return max(1, int(RHO_CURVE_END * scn.b_max))


def _frontier_grid(scn: Scenario, points: int, batch: int | None) -> np.ndarray | None:
    if scn.unfit_reason():
        return None
    B = frontier_batches(_grid_end(scn), points)
    if batch is not None:
        B = np.union1d(B, np.append(np.arange(1, 65), int(batch)))
    if B.size and (B[0] < 1 or B[-1] >= scn.b_max):  # sorted: only its ends can fall outside 1 ≤ B < B_max
        B = B[(B >= 1) & (B < scn.b_max)]
    return B if B.size else None


# Frontiers by (scenario, points, batch). Figures 2-5, 7 and 9 share the current one, and a redraw
# evaluates every frontier its figures draw in one numpy pass (scenario.evaluate_all) before they ask.
_FRONTIERS: dict = {}

_MISSING = object()


def evaluate_frontiers(keys: list[tuple], grids=()) -> dict:
    """The frontiers of several (scenario, points, batch) keys; those not known yet are evaluated together
    and kept. Returns every key's frontier (None where none exists). `grids`: other frontier_batches
    (b_max, points) pairs the figures will ask for, sampled in the same pass as the frontiers' own."""
    found = {k: _FRONTIERS.get(k, _MISSING) for k in keys}
    todo = [k for k, r in found.items() if r is _MISSING]
    ends = [(_grid_end(s), points) for s, points, _ in todo if not s.unfit_reason()]
    # In one pass: each grid took about fifteen numpy calls on its own.
    sample_grids([(end, points) for end, points in [*ends, *grids] if points is not None and 1 <= points < end])
    grids = [_frontier_grid(*k) for k in todo]
    found.update(dict.fromkeys(todo))
    fits = [(k, g) for k, g in zip(todo, grids, strict=True) if g is not None]
    if fits:
        frontiers = evaluate_all([k[0] for k, _ in fits], [g for _, g in fits], read_only=True)
        found.update((k, r) for (k, _), r in zip(fits, frontiers, strict=True))
    if len(_FRONTIERS) > 256:  # a long session visits many states; a redraw needs only its own
        _FRONTIERS.clear()
    _FRONTIERS.update((k, found[k]) for k in todo)
    return found
