"""Figures 1-5 of the article: the roofline, the KV-cache tax, TTFT's parts, ITL against throughput and the
preset machines' frontiers."""

from __future__ import annotations

import functools
import math

import numpy as np

from inferx.figures.curves import (
    context_refs,
    frontier_trace,
    log_range,
    log_x_if_squeezed,
    machine_label,
    other_presets,
    preset_refs,
    residual_band_traces,
    x_scale_toggle,
    x_spans_decades,
)
from inferx.figures.explorer import LABEL_HEIGHT, band_label_y, compute_bend, label_extent
from inferx.figures.style import (
    BATCH_BAND,
    CONTEXT_REFS,
    CURRENT,
    DEFAULT_BATCH,
    INTERACTIVE_BAND,
    KV,
    PREFILL,
    QUEUE,
    QUEUE_BAND,
    QUEUE_TEXT,
    RHO_BAND_LABEL,
    RHO_PRACTICAL,
    RIDGE,
    add_band,
    add_hline,
    add_note,
    add_note_above,
    add_vline,
    annotation_at,
    does_not_fit,
    json_ready,
    line_trace,
    plot_layout,
    si,
)
from inferx.palette import gpu_colour
from inferx.physics import engine as E
from inferx.physics.presets import HARDWARE
from inferx.scenario.batches import log_batches, log_spaced
from inferx.scenario.evaluation import Scenario
from inferx.scenario.frontier import CURVE_POINTS, frontier, no_curve_reason
from inferx.text import number


@json_ready
def roofline(scn: Scenario, batch: int = DEFAULT_BATCH) -> dict:
    """Throughput vs batch with no KV cache (S = 0); the ridge batch B* dashed."""
    if scn.headroom <= 0:
        return does_not_fit(scn, "Batch size B (concurrent requests)", "Decode throughput (tok/s)")
    s0 = scn.with_context(0)
    b_star, calibrated = _ridge(s0)
    B = log_batches(max(16 * b_star, 64), CURVE_POINTS)  # four doublings of plateau: room for its label
    step, comm = s0.step_and_comm(B)
    hover = "B = %{x:,.0f}<br>T = %{y:,.0f} tok/s"
    data = [line_trace("Roofline, no communication", B, E.throughput(B, step), CURRENT, "dot", 1.5, hover)]
    if comm.any():
        data[0]["meta"] = {"reference": True}  # the bound the communication lowers: a pinned A leaves it out
        data.append(
            line_trace("With TP/PP communication", B, E.throughput(B, step + comm), CURRENT, "solid", 2.5, hover)
        )
    else:
        data[0].update(line={"color": CURRENT, "dash": "solid", "width": 2.5}, name="Roofline (S = 0)")
    # Log-log: the memory-bound regime (T ∝ B) is a straight line of slope 1, the compute-bound one flat.
    layout = plot_layout(
        "Batch size B (concurrent requests)", "Decode throughput (tok/s)", xlog=True, ylog=True, xcount=True
    )
    # The curves' own span: plotly would stretch the axis to take the labels' text, past where the curves end.
    layout["xaxis"].update(range=[float(np.log10(B[0])), float(np.log10(B[-1]))], autorange=False)
    # The calibrated step's fixed cost is spread over more requests at any batch: its T rises slower than B, and
    # past B* only levels off.
    rise, plateau = ("∝ B", "flat") if scn.mode == "article" else ("rises with B", "levels off")
    tag = " (calibrated)" if calibrated else ""
    if b_star <= B[0]:  # compute-bound from the first request (a long prompt's prefill on a small GPU): no ridge
        layout["annotations"].append(
            _corner_label(layout, f"compute-bound from B = {B[0]:,.0f}{tag}: T {plateau}", float(B[0]), "left", 0.98)
        )
        return {"data": data, "layout": layout}
    add_vline(layout, float(b_star), RIDGE, f"B* = {b_star:,.0f}{tag}")
    # Left of the line, where the rising curves leave the foot empty: on its right it ran into the corner label.
    layout["annotations"][-1].update(xanchor="right", xshift=-4)
    # The regimes' names sit in the empty corners the rising line leaves: top left and bottom right.
    layout["annotations"] += [
        _corner_label(layout, f"memory-bound: T {rise}", 1, "left", 0.98),
        # From the dashed line rightwards, on two lines: the compute-bound stretch is a quarter of the axis, and a
        # label right-aligned at the axis's end ran across the line on a phone. Raised clear of the B* label.
        {
            **_corner_label(layout, f"compute-bound:<br>T {plateau}", float(b_star), "left", 0.1),
            "xshift": 4,
            "align": "left",
        },
    ]
    return {"data": data, "layout": layout}


RIDGE_SEARCH = log_spaced(1e6, 400)  # where a calibrated step can turn compute-bound: 3.5 % apart


PART = {"reference": True}  # a part of the total a figure draws: a pinned A draws the total alone (figures.compare)


@functools.lru_cache(maxsize=16)  # Figures 1 and 5 both ask, and the calibrated search is 0.13 ms
def _ridge(s0: Scenario) -> tuple[float, bool]:
    """Figure 1's ridge at S = 0, and whether it is the calibrated one: the article's B* from the datasheet, or
    in calibrated mode the batch where the calibrated step's arithmetic outlasts its HBM read (the achieved
    rates, the stalling prefills included: the split Figures 6 and 10 colour by), unless that never happens."""
    if s0.mode == "calibrated":
        bend = compute_bend(s0, RIDGE_SEARCH)
        if math.isfinite(bend):
            return bend, True
    return E.ridge_batch(s0.compute, s0.bw, s0.b_w, s0.weight_reads), False


def _corner_label(layout: dict, text: str, x: float, xanchor: str, y: float) -> dict:
    """A regime's name at data position x and paper height y."""
    return {
        "text": text,
        "x": annotation_at(layout, "xaxis", x),
        "xref": "x",
        "y": y,
        "yref": "paper",
        "showarrow": False,
        "xanchor": xanchor,
        "yanchor": "top" if y > 0.5 else "bottom",
        "font": {"size": 11, "color": "#555"},
    }


@json_ready
def kv_cache_tax(scn: Scenario, batch: int = DEFAULT_BATCH) -> dict:
    """Throughput vs batch at the current context and two reference contexts; KV ceilings dashed, each curve
    ending in a dot at B_max, which its legend entry names."""
    layout = plot_layout(
        "Batch size B (concurrent requests)", "Decode throughput (tok/s)", xlog=True, ylog=True, xcount=True
    )
    if scn.headroom <= 0:
        add_note(layout, f"No curves: {scn.unfit_reason()}")
        return {"data": [], "layout": layout}
    data, notes = [], []
    for s in [scn, *context_refs(scn)]:
        S, current = s.ctx, s is scn
        colour = CURRENT if current else CONTEXT_REFS[S]
        name = f"S = {S:,}" + (" (current)" if current else "")
        hover = f"S = {S:,} tokens<br>B = %{{x:,.0f}}<br>T = %{{y:,.0f}} tok/s"
        # The stable frontier's batches: it stops at ρ = 0.99, 1 % short of B_max, the same on a log axis.
        r = frontier(s)
        if r is None:
            notes.append(f"S = {S:,} tokens: {no_curve_reason(s)}")
            continue
        # B_max goes in the legend and the curve's end gets a dot: labels at the curves' ends ran into each other
        # and into the ceilings' labels on a phone. The entry is short enough to end before the tool bar there.
        end = {"mode": "lines+markers", "marker": {"size": [0] * (r["batch"].size - 1) + [7], "color": colour}}
        name = f"{name}, B<sub>max</sub> = {si(s.b_max)}"
        data.append(
            line_trace(name, r["batch"], r["throughput"], colour, "solid", 2.5 if current else 1.8, hover, **end)
        )
        ceiling = float(E.kv_ceiling(S, s.kappa, s.bw))
        add_hline(layout, ceiling, colour, f"T∞({S:,})<br>≈ {si(ceiling, unit='tok/s')}", xanchor="left")
        # In two short lines under the line's left end, where every curve is still far below its ceiling (in one
        # line the lowest label reached the rising curves on a phone), veiled where a close lower ceiling's
        # line runs through it.
        layout["annotations"][-1].update(yanchor="top", align="left", bgcolor="rgba(255,255,255,0.8)")
    if notes:
        add_note(layout, "<br>".join(notes))
    # A ceiling less than a label's height (about half a decade) under the one above it has its label moved
    # right, beside the other's rather than on it.
    labels = sorted((a for a in layout["annotations"] if a["text"].startswith("T∞")), key=lambda a: -a["y"])
    for above, below in zip(labels, labels[1:], strict=False):
        if above["y"] - below["y"] < 0.5 and not above.get("xshift"):
            below["xshift"] = 100
    if data:
        # Room above the highest ceiling for the graph's tool bar, which a phone keeps shown.
        low = min(float(np.min(t["y"])) for t in data)
        high = max(line["y0"] for line in layout["shapes"])
        layout["yaxis"]["range"] = [float(np.log10(low)) - 0.1, float(np.log10(high)) + 0.35]
    return {"data": data, "layout": layout}


@json_ready
def ttft_parts(scn: Scenario, batch: int = DEFAULT_BATCH) -> dict:
    """TTFT components vs batch: prefill floor, queueing term, total; ρ ≤ 0.85 band."""
    layout = plot_layout(
        "Batch size B (concurrent requests)", "Time to first token (ms)", xlog=True, ylog=True, xcount=True
    )
    r = frontier(scn)
    if r is None:
        add_note(layout, f"No frontier: {no_curve_reason(scn)}")
        return {"data": [], "layout": layout}
    B = r["batch"]
    prefill = scn.prefill
    hover = "B = %{x:,.0f}<br>%{y:,.3~r} ms"
    # The calibrated TTFT adds a fixed cost per request and the scheduler's wait to the queue.
    wait = "Queueing wait" if scn.mode == "article" else "Queueing wait and per-request costs"
    data = [
        line_trace(
            "Prefill t<sub>prefill</sub>(S<sub>in</sub>)",
            B,
            np.full(B.shape, 1e3 * prefill),
            PREFILL,
            "dash",
            2,
            hover,
            meta=PART,
        ),
        line_trace(wait, B, 1e3 * (r["ttft"] - prefill), QUEUE, "dot", 2, hover, meta=PART),
        line_trace("TTFT total", B, 1e3 * r["ttft"], CURRENT, "solid", 2.5, hover),
    ]
    # Past ρ = 0.85 the queueing wait climbs to a wall at B_max: shade that stretch, not the usable one.
    x0 = RHO_PRACTICAL * scn.b_max
    add_band(layout, x0, scn.b_max, QUEUE_BAND, f"{RHO_BAND_LABEL} →")
    layout["xaxis"]["range"] = [0, float(np.log10(scn.b_max)) + 0.02]
    # Beside the narrow band, not cut off by it, at 0.8 of the height (below the top right, where a tool bar may
    # be) unless a curve runs there: in calibrated mode TTFT climbs through it before the band. The y axis
    # autoranges, so its span is reckoned from the curves.
    axes = {
        "xaxis": layout["xaxis"],
        "yaxis": {"type": "log", "range": log_range(np.concatenate([t["y"] for t in data]), 0.05)},
    }
    band = layout["annotations"][-1]
    band.update(xanchor="right", xshift=-4, font={"size": 11, "color": QUEUE_TEXT})
    band_x = label_extent(axes, band, BAND_ARROW_SPAN)
    foot = band_label_y(axes, data, *band_x, 0.8 - LABEL_HEIGHT)
    band.update(y=foot, yanchor="bottom")
    add_vline(layout, float(scn.b_max), KV, f"B<sub>max</sub> = {si(scn.b_max)}")
    # At the foot of its line unless a curve runs there (the calibrated prefill, the lowest curve, did), and
    # clear of the band's label, which lies over the same stretch of the axis.
    b_max = layout["annotations"][-1]
    b_max.update(xanchor="right", xshift=-4)
    b_max_x = label_extent(axes, b_max, BAND_ARROW_SPAN)
    b_max["y"] = band_label_y(axes, data, *b_max_x, 0.0, [(*band_x, foot, foot + LABEL_HEIGHT)])
    return {"data": data, "layout": layout}


BAND_ARROW_SPAN = 0.25  # of Figure 3's batch axis: the width "ρ > 0.85: queue-bound →" takes on a phone

LEVEL_ROOM = 0.1  # of a linear y axis: the height a level line's label takes beside its line on a phone's plot


def curve_meets_box(
    curves, x_from: float, x_to: float, low: float, high: float, log_x: bool = False, span: list | None = None
) -> bool:
    """Whether a curve, (x, y) sequences, passes between `low` and `high` (y) from `x_from` to `x_to`, shares
    of the x axis's `span` (else the one the curves take together) on a linear or log axis: whether it meets a
    label's box there. A curve counts along its segments, so a steep climb between two samples does too, and a
    level line drawn from two points."""
    pairs = [(np.asarray(x, dtype=float), np.asarray(y, dtype=float)) for x, y in curves]
    with np.errstate(divide="ignore", invalid="ignore"):
        pairs = [(np.log10(x) if log_x else x, y) for x, y in pairs if x.size and x.shape == y.shape]
    pairs = [(x, y) for x, y in pairs if np.isfinite(x).any()]
    if not pairs:
        return False
    with np.errstate(divide="ignore", invalid="ignore"):
        if span is None:
            lo = min(np.nanmin(x[np.isfinite(x)]) for x, _ in pairs)
            hi = max(np.nanmax(x[np.isfinite(x)]) for x, _ in pairs)
        else:
            lo, hi = np.log10(span) if log_x else span
        start, end = lo + x_from * (hi - lo), lo + x_to * (hi - lo)
        for x, y in pairs:
            if np.any((x >= start) & (x <= end) & (y >= low) & (y <= high)):
                return True
            # Each segment cut to the stretch: its heights at the cut ends (a vertical one keeps both ends').
            x0, x1, y0, y1 = x[:-1], x[1:], y[:-1], y[1:]
            a, b = np.maximum(np.minimum(x0, x1), start), np.minimum(np.maximum(x0, x1), end)
            slope = np.where(x1 != x0, (y1 - y0) / (x1 - x0), 0.0)
            ya = np.where(x1 != x0, y0 + slope * (a - x0), y0)
            yb = np.where(x1 != x0, y0 + slope * (b - x0), y1)
            if np.any((a <= b) & (np.minimum(ya, yb) <= high) & (np.maximum(ya, yb) >= low)):
                return True
    return False


def _floor_label_lift(r: dict, floor: float) -> int:
    """Where Figure 4's floor label goes clear of the curve, which rises with throughput: on the line at its
    right end where the curve's right half keeps a tenth of the axis above the floor (the label takes nearly
    half a phone's plot); else lifted at the left, where the curve is lowest (the article's physics, whose curve
    hugs the floor until near full throughput)."""
    room = LEVEL_ROOM * r["itl"].max()
    return 36 if curve_meets_box([(r["throughput"], r["itl"])], 0.5, 1, -np.inf, floor + room) else 0


@json_ready
def itl_vs_throughput(scn: Scenario, batch: int = DEFAULT_BATCH) -> dict:
    """ITL vs throughput, parametric in B; the ITL floor P_active·b_w/BW dashed."""
    layout = plot_layout("Output throughput (tok/s)", "Inter-token latency (ms)")
    r = frontier(scn)
    if r is None:  # no floor either: on axes without numbers it would be a line at no particular height
        add_note(layout, f"No curve: {no_curve_reason(scn)}")
        return {"data": [], "layout": layout}
    floor = E.itl_floor(scn.model.p_active, scn.b_w, scn.bw)
    # The calibrated curve starts well above the article's floor (its fixed step cost, the achieved bandwidth).
    where = " at peak bandwidth" if scn.mode == "calibrated" else ""
    label = f"ITL floor{where} = {number(1e3 * floor)} ms"
    short = f"ITL floor = {number(1e3 * floor)} ms"
    add_hline(layout, 1e3 * floor, RIDGE, label, lift=_floor_label_lift(r, floor), short=short)
    hover = "B = %{customdata:,}<br>T = %{x:,.0f} tok/s<br>ITL = %{y:,.3~r} ms"
    trace = line_trace(
        "ITL(B) vs T(B)",
        r["throughput"],
        1e3 * r["itl"],
        CURRENT,
        "solid",
        2.5,
        hover,
        custom=r["batch"].astype(int).tolist(),
    )
    # Each point of the curve is a batch size: mark the powers of two so a reader can count along it.
    b = r["batch"].astype(np.int64)
    powers = (b & (b - 1)) == 0
    points = line_trace(
        "B = 1, 2, 4, 8, …",
        r["throughput"][powers],
        1e3 * r["itl"][powers],
        CURRENT,
        hover=hover,
        custom=r["batch"][powers].astype(int).tolist(),
        mode="markers",
        marker={"size": 6, "color": CURRENT},
    )
    layout["xaxis"]["rangemode"] = layout["yaxis"]["rangemode"] = "tozero"
    x_scale_toggle(layout, [trace])
    band = residual_band_traces(scn, r["throughput"], r["itl"], "tpot", 1e3)
    return {"data": [trace, points, *band], "layout": layout}


NARROW_BAND = 0.15  # of Figure 5's x axis: too narrow for "batch" between its edge and the wall in a 480 px frame


def _regimes(layout, scn: Scenario, r, x_end: float, x_start: float | None = None) -> None:
    """Shade the interactive (B ≤ B_split/8) and batch (B ≥ B_split) regimes, B_split = min(B*, B_max/2), with
    Figure 1's B* (the calibrated step's ridge in calibrated mode).

    The batch label hangs a line below the interactive one: a small machine beside the presets (or beside a
    pinned A) squeezes both bands into the axis's first per cent, where side by side they printed over each
    other. A batch band under NARROW_BAND of the axis (`x_end`, the traces' largest x) is labelled just right
    of it, pointing back ("← batch"), or left of it where the axis ends there: inside, the label ran across
    the curve's wall. Given `x_start` (the traces' smallest x), the axis is log and the shares are in decades."""
    split = min(_ridge(scn.with_context(0))[0], scn.b_max / 2)  # Figure 1's B*: in calibrated mode, the fitted one
    T = r["throughput"]
    x_batch = float(np.interp(split, r["batch"], T))
    if split / 8 >= r["batch"][0]:  # else no batch size is interactive (B_max under 16, or B* near 1)
        # From the first sample rather than 0, which a log x-axis (the scale toggle) cannot place.
        add_band(layout, float(T.min()), float(np.interp(split / 8, r["batch"], T)), INTERACTIVE_BAND, "interactive")
    end = float(T.max()) * 1.02
    add_band(layout, x_batch, end, BATCH_BAND, "batch", label_drop=14)
    if x_start is None:
        width, room = end - x_batch, x_end - end
        span = x_end
    else:
        width, room = np.log10(end / x_batch), np.log10(x_end / end)
        span = np.log10(x_end / x_start)
    if width < NARROW_BAND * span:
        if room > NARROW_BAND * span:
            layout["annotations"][-1].update(text="← batch", x=end, xshift=2)
        else:  # the axis ends at the band: left of it, where the curve is still low
            layout["annotations"][-1].update(text="batch →", xanchor="right", xshift=-2)


@json_ready
def preset_frontiers(scn: Scenario, batch: int = DEFAULT_BATCH) -> dict:
    """Throughput–TTFT frontier for the current settings and the other presets."""
    layout = plot_layout("Output throughput (tok/s)", "Time to first token (ms)", ylog=True)
    layout["xaxis"]["rangemode"] = "tozero"
    data, notes = [], []
    others = [HARDWARE[preset] for preset in other_presets(scn)]
    for hw, ref in zip(others, preset_refs(scn), strict=True):
        r = frontier(ref)
        if r is None:
            notes.append(f"{hw.label}: {no_curve_reason(ref)}")
        else:
            # Its own GPU count: per GPU, each machine's throughput is divided by its own (figures.units)
            data.append(
                {**frontier_trace(f"{hw.label} (preset)", r, hw.colour, "dash", 1.8), "meta": {"gpus": hw.n_gpus}}
            )
    r = frontier(scn)
    if r is None:
        notes.insert(0, f"{machine_label(scn)} (current): {no_curve_reason(scn)}")
    else:
        stable = np.isfinite(r["ttft"])
        data += residual_band_traces(scn, r["throughput"][stable], r["ttft"][stable], "ttft", 1e3)
        data.append(frontier_trace(f"{machine_label(scn)} (current)", r, gpu_colour(scn.params["gpu"]), "solid", 2.8))
        wide = x_spans_decades(data)
        x_start = min(float(np.min(t["x"])) for t in data) if wide else None
        _regimes(layout, scn, r, max(float(np.max(t["x"])) for t in data), x_start)
    if notes:
        add_note_above(layout, data, "<br>".join(notes))
    x_scale_toggle(layout, data)
    if r is not None:
        log_x_if_squeezed(layout, data[-1:], data)
    return {"data": data, "layout": layout}
