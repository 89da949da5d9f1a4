"""Request rate ↔ concurrency: the frontier on an arrival-rate axis.

Benchmarks such as InferenceX hold the concurrency fixed (a closed loop: each of C clients sends its next
request when the last one ends). Little's law, C = λ · E2E, turns each such point into a request rate
λ = C / E2E(C). Reading the engine's batch B as the concurrency, every frontier point becomes a rate, and
TTFT (prefill plus the M/G/1 wait at ρ = B / B_max) and E2E = TTFT + N_out · ITL become curves against it.

As B nears B_max the wait grows without bound, so λ(B) rises to a peak and falls again: past the peak more
concurrency completes fewer requests. Only the rising branch is an operating curve; the peak is the highest
rate the machine sustains under this model.
"""

from __future__ import annotations

import numpy as np

from inferx.physics import engine as E
from inferx.scenario.evaluation import Scenario
from inferx.scenario.frontier import frontier

N_OUT = 1024  # output tokens per request: InferenceX's 1k/1k workload
CONCURRENCIES = (4, 8, 16, 32, 64, 128, 256, 512)  # fixed-concurrency points a benchmark sweep publishes
POINTS = 160  # the frontier's samples (figures.frontier stops them at ρ = 0.99)


def little_rate(concurrency, e2e_s):
    """λ = C / E2E: requests per second a closed loop of C clients completes."""
    return np.asarray(concurrency, dtype=float) / np.asarray(e2e_s, dtype=float)


def little_concurrency(rate, e2e_s):
    """C = λ · E2E: requests in flight at rate λ (req/s)."""
    return np.asarray(rate, dtype=float) * np.asarray(e2e_s, dtype=float)


def rate_curve(scn: Scenario, n_out: int = N_OUT, B=None) -> dict | None:
    """The rising branch of λ(B), as arrays aligned on batch size: batch, rate (req/s), ttft, itl, e2e (s),
    throughput (tok/s); plus peak_rate and peak_batch. None when nothing fits."""
    if n_out < 1:
        raise ValueError(f"n_out must be at least 1 output token, not {n_out!r}")
    if scn.unfit_reason():
        return None
    if B is None:  # the frontier's own samples, which a redraw has evaluated with every other curve
        r = frontier(scn, POINTS)
        if r is None:
            return None
        B = r["batch"]
    else:
        B = np.atleast_1d(np.asarray(B))
        B = B[(B >= 1) & (B < scn.b_max)]
        if B.size == 0:
            return None
        r = scn.evaluate(B)
    e2e = E.e2e_latency(r["ttft"], n_out, r["itl"])
    lam = little_rate(B, e2e)
    peak = int(np.argmax(lam))
    keep = slice(0, peak + 1)
    return {
        "batch": B[keep].astype(float),
        "rate": lam[keep],
        "ttft": r["ttft"][keep],
        "itl": r["itl"][keep],
        "e2e": e2e[keep],
        "throughput": r["throughput"][keep],
        "peak_rate": float(lam[peak]),
        "peak_batch": int(B[peak]),
        "n_out": int(n_out),
    }


def concurrency_at_rate(scn: Scenario, rate, n_out: int = N_OUT) -> np.ndarray:
    """The concurrency (fractional batch) that sustains each request rate on the rising branch; NaN past the
    peak rate or when nothing fits."""
    rate = np.asarray(rate, dtype=float)
    c = rate_curve(scn, n_out, np.arange(1, scn.b_max) if scn.b_max <= 20_000 else None)
    if c is None:
        return np.full(rate.shape, np.nan)
    return np.where(
        (rate >= 0) & (rate <= c["peak_rate"]),
        np.interp(rate, np.r_[0.0, c["rate"]], np.r_[0.0, c["batch"]]),
        np.nan,
    )
