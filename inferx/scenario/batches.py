"""Batch-size grids: every batch up to a frontier's end or geometric samples of it, sorted in one pass for
many grids at once, and log-spaced sweeps."""

from __future__ import annotations

import functools
import math

import numpy as np


def frontier_batches(b_max: int, points: int | None = None) -> np.ndarray:
    """Batch sizes 1..b_max: every integer, or about `points` samples.

    Samples are geometric in B (the interactive end) and in B_max − B (the queue
    knee, where TTFT turns upward), so both ends of the frontier stay smooth. Every
    power of two is a sample too: the explorer reads those batches (its default, its
    slider marks, typical URLs) exactly instead of between two samples.
    """
    if b_max < 1:
        return np.zeros(0, dtype=int)
    if points is None or points >= b_max:
        return np.arange(1, b_max + 1)
    return _sampled_batches(int(b_max), int(points))


_SPAN = 2**40  # sample_grids sorts every grid at once, each in its own span of whole numbers (B_max is far below)


def _sampled_batches(b_max: int, points: int) -> np.ndarray:
    grid = _GRIDS.get((b_max, points))
    return sample_grids([(b_max, points)])[b_max, points] if grid is None else grid


def sample_grids(pairs) -> dict[tuple[int, int], np.ndarray]:
    """frontier_batches' samples for (b_max, points) pairs with points < b_max, read-only and kept; those not
    kept yet are computed together in one numpy pass (a redraw asks for about ten, each for its own B_max,
    and one grid took about fifteen numpy calls)."""
    found = {pair: _GRIDS.get(pair) for pair in pairs}
    todo = [pair for pair, grid in found.items() if grid is None]
    if not todo:
        return found
    steps, spans, counts, powers = [], [], [], []
    for b_max, points in todo:
        twos = _powers_of_two(b_max.bit_length())  # 1, 2, 4, … ≤ b_max
        budget = max(4, points - len(twos) - 1)  # the powers and b_max come out of the requested count
        n_low = max(2, budget * 2 // 3)
        n_high = max(2, budget - n_low)
        # Geometric in B (low) and in b_max − B (high): log_spaced(b_max, n) and b_max − log_spaced(b_max, n),
        # written 0 + 1·e and b_max + (−1)·e, which round the same.
        steps += [_unit_steps(n_low), _unit_steps(n_high)]
        log = math.log(b_max)
        spans += [(log, 0.0, 1.0), (log, float(b_max), -1.0)]
        counts += [n_low, n_high]
        powers.append(twos)
    # Each stretch's (log b_max, offset, sign) repeated along it, in one call for the three.
    logs, offsets, signs = np.repeat(np.array(spans).T, counts, axis=1)
    spaced = offsets + signs * np.exp(np.concatenate(steps) * logs)
    ends = np.array([b_max for b_max, _ in todo], dtype=float)
    which = np.arange(len(todo))
    sizes = [a + b for a, b in zip(counts[::2], counts[1::2], strict=True)]
    # The grid each value belongs to: its stretches, then its powers of two, then its end (np.tile costs more).
    owner = np.repeat(np.arange(3 * len(todo)) % len(todo), [*sizes, *(len(p) for p in powers), *[1] * len(todo)])
    grid = np.rint(np.concatenate([spaced, *powers, ends]))
    grid = np.minimum(np.maximum(grid, 1), ends[owner]).astype(np.int64)
    keyed = owner * _SPAN + grid
    keyed.sort()  # by grid, then value: np.unique of each, without its overhead
    keyed = keyed[np.concatenate(([True], keyed[1:] != keyed[:-1]))]
    bounds = np.searchsorted(keyed, which * _SPAN).tolist() + [keyed.size]
    values = keyed & (_SPAN - 1)  # the grids' own values, side by side; made read-only once, as are their slices
    values.setflags(write=False)
    if len(_GRIDS) > 512:  # a long session visits many B_max; a redraw needs only its own
        _GRIDS.clear()
    for k, pair in enumerate(todo):
        found[pair] = _GRIDS[pair] = values[bounds[k] : bounds[k + 1]]
    return found


@functools.lru_cache(maxsize=64)
def _powers_of_two(n: int) -> np.ndarray:
    powers = 2.0 ** np.arange(n)
    powers.setflags(write=False)
    return powers


def geometric_batches(b_max: int, n: int) -> np.ndarray:
    """Exactly min(n, b_max) whole batch sizes from 1 to b_max, geometric in B.

    Rounding a geometric grid to whole numbers repeats the small ones; each sample is
    raised to at least one above the last instead, so the low end runs 1, 2, 3, … until
    the geometric step exceeds one (the largest is still b_max).
    """
    if n >= b_max:
        return np.arange(1, b_max + 1)
    k = np.arange(n)
    rounded = np.rint(log_spaced(b_max, n)) - k
    return (np.maximum.accumulate(rounded) + k).astype(int)


def log_batches(end: float, n: int) -> np.ndarray:
    """About n whole batch sizes from 1 to `end`, evenly spaced in log (Figures 1 and 8)."""
    return np.unique(np.rint(log_spaced(end, n)))


def log_spaced(end: float, n: int) -> np.ndarray:
    """n points from 1 to `end`, evenly spaced in log: np.geomspace(1, end, n) without its input checks, which
    took a fifth of a redraw (it builds a dozen such grids)."""
    return np.exp(_unit_steps(n) * math.log(end))


@functools.lru_cache(maxsize=16)
def _unit_steps(n: int) -> np.ndarray:
    steps = np.linspace(0.0, 1.0, n)
    steps.setflags(write=False)
    return steps


_GRIDS: dict[tuple[int, int], np.ndarray] = {}  # frontier_batches' samples by (b_max, points), read-only
