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

from . import engine as E
from . import palette as P
from .figure_text import number
from .figures import _json_ready, _layout, _line, _note, _vline, frontier, keep_in_lower_share, no_curve_reason
from .scenario import Scenario

N_OUT = 1024  # output tokens per request: InferenceX's 1k/1k workload
CONCURRENCIES = (4, 8, 16, 32, 64, 128, 256, 512)  # fixed-concurrency points a benchmark sweep publishes
LABEL_ROOM = 0.18  # share of a log axis's height kept over the last labelled point: a label's height in a 360 px frame
PEAK_LABEL = "peak"  # the `name` of the peak rate's label, which compare.merge may move off A's curves
PEAK_ROOM = 1.6  # the rate axis ends this far past the peak rate, for the peak line's label
# A point label's width and height ("512" at 12 px) as shares of the axes of the smallest plot it is drawn in,
# a phone's (about 320 × 150 px): labels this close would run together.
LABEL_BOX = (22 / 320, 13 / 150)
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


def labels_apart(rate, latency, x_range, y_range) -> list[bool]:
    """Which points on the rising E2E curve (rate and latency both increasing) get a label, left to right,
    placed up and to the left of each: those whose label stays clear of the last one kept. Positions are
    log10 shares of the axes' `x_range` and `y_range`; near the peak rate, where concurrency doubles for a few
    per cent more rate, this drops every other label or more."""
    x = (np.log10(rate) - x_range[0]) / (x_range[1] - x_range[0])
    y = (np.log10(latency) - y_range[0]) / (y_range[1] - y_range[0])
    width, height = LABEL_BOX
    kept, last = [], None
    for xi, yi in zip(x, y, strict=True):
        clear = last is None or xi - x[last] >= width or yi - y[last] >= height
        kept.append(bool(clear))
        if clear:
            last = len(kept) - 1
    return kept


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


@_json_ready
def fig_rate(scn: Scenario, n_out: int = N_OUT, concurrencies=CONCURRENCIES) -> dict:
    """TTFT and E2E (ms) against the request rate (req/s), both axes log, the fixed-concurrency points marked."""
    # Log rate: the benchmark's concurrencies double, so their points fall evenly along the axis.
    layout = _layout("Request rate λ (req/s)", "Latency (ms)", xlog=True, ylog=True)
    c = rate_curve(scn, n_out)
    if c is None:
        _note(layout, f"No curve: {no_curve_reason(scn)}")
        return {"data": [], "layout": layout}
    hover = "λ = %{x:,.3~r} req/s<br>%{y:,.4~r} ms<br>C = %{customdata:,}"
    custom = c["batch"].astype(int).tolist()
    data = [
        _line("TTFT", c["rate"], 1e3 * c["ttft"], P.VIOLET, hover=hover, custom=custom),
        _line(f"E2E ({n_out:,} output tokens)", c["rate"], 1e3 * c["e2e"], P.CRIMSON, hover=hover, custom=custom),
    ]
    marks = np.array([b for b in concurrencies if b <= c["peak_batch"]], dtype=float)
    if marks.size:
        at = np.searchsorted(c["batch"], marks)
        if np.array_equal(c["batch"][np.minimum(at, c["batch"].size - 1)], marks):  # powers of two: samples
            e2e = c["e2e"][at]
        else:
            r = scn.evaluate(marks)
            e2e = E.e2e_latency(r["ttft"], n_out, r["itl"])
        lo = np.log10(1e3 * min(c["ttft"].min(), c["e2e"].min()))
        top = np.log10(1e3 * e2e[-1])
        x_range = (np.log10(c["rate"][0]), np.log10(c["peak_rate"] * PEAK_ROOM))
        y_range = (lo, lo + (top - lo) / (1 - LABEL_ROOM))
        labelled = labels_apart(little_rate(marks, e2e), 1e3 * e2e, x_range, y_range)
        data.append(
            _line(
                "fixed concurrency C, labelled (λ = C / E2E)",
                little_rate(marks, e2e),
                1e3 * e2e,
                "#000000",
                hover=hover,
                custom=marks.astype(int).tolist(),
                mode="markers+text",
                text=[f"{int(b)}" if shown else "" for b, shown in zip(marks, labelled, strict=True)],
                # Up and to the left of its point: E2E rises with the rate, so the curve there lies below the
                # label, and the peak line to the right of it. (Centred above or below, a label near the peak,
                # where the curve climbs steeply, sat on the curve or on the line.)
                textposition="top left",
                marker={"size": 7, "color": "#000000"},
            )
        )
        # Room over the last point for its label, which sits above it: plotly's autorange pads markers, not
        # text, and the E2E curve ends just above that point when the peak lies near it.
        keep_in_lower_share(layout, lo, top, 1 - LABEL_ROOM)
    _vline(layout, c["peak_rate"], "#555555", f"peak {number(c['peak_rate'])} req/s at C = {c['peak_batch']:,}")
    # Left of the line (the curves end at it), in the gap between TTFT and E2E where the label runs: their
    # geometric mean at half the peak rate (the axis is log), wherever the mode puts the two curves.
    half = np.log10(c["peak_rate"] / 2)
    gap = [np.interp(half, np.log10(c["rate"]), np.log10(1e3 * c[k])) for k in ("ttft", "e2e")]
    layout["annotations"][-1].update(
        xanchor="right", xshift=-4, y=float(np.mean(gap)), yref="y", yanchor="middle", name=PEAK_LABEL
    )
    # Fixed: the labels' text would otherwise widen plotly's autorange far past the peak.
    layout["xaxis"]["range"] = [float(np.log10(c["rate"][0])), float(np.log10(c["peak_rate"] * PEAK_ROOM))]
    return {"data": data, "layout": layout}
