"""Figure 6, the operating-point explorer: the frontier with its batch dot, the compute bend and the queue band,
and the label placement they share with a pinned scenario's."""

from __future__ import annotations

import math

import numpy as np

from inferx import palette as P
from inferx.figures.curves import log_range, set_scale_buttons, x_spans_decades
from inferx.figures.style import (
    AMBER,
    CURRENT,
    DEFAULT_BATCH,
    QUEUE_BAND,
    QUEUE_TEXT,
    READOUT_DIGITS,
    RHO_BAND_LABEL,
    RHO_PRACTICAL,
    add_band,
    add_note,
    annotation_at,
    json_ready,
    line_trace,
    plot_layout,
    rounded,
)
from inferx.physics import engine as E
from inferx.scenario.evaluation import Scenario
from inferx.scenario.frontier import EXPLORER_POINTS, frontier, no_curve_reason


@json_ready
def explorer(scn: Scenario, batch: int = DEFAULT_BATCH) -> dict:
    """Operating-point explorer: the frontier, where it turns compute-bound and the ρ band (RHO_BAND_LABEL)
    marked, and a dot at the chosen batch.

    customdata carries [B, ITL ms, ρ] for every sample so the browser can move the dot and the readouts
    without asking the server. The axes' ranges are fixed from the whole frontier: the animation moves the dot
    from end to end, and autorange would rescale the axes (and show or hide the 0 tick) with every frame.
    """
    layout = plot_layout("Output throughput (tok/s)", "Time to first token (ms)", ylog=True)
    # Every B up to 64 plus the chosen one, so the dot sits on exact engine values.
    r = frontier(scn, EXPLORER_POINTS, int(batch))
    if r is None:
        add_note(layout, f"No frontier: {no_curve_reason(scn)}")
        return {"data": [], "layout": layout}
    # The readouts print these samples, so they keep more digits than a curve needs: rows [B, ITL ms, ρ].
    custom = np.empty((3, r["batch"].size))
    custom[0], custom[1], custom[2] = r["batch"], 1e3 * r["itl"], r["rho"]
    custom[1:] = rounded(custom[1:], READOUT_DIGITS)
    custom = custom.T.tolist()
    ttft_ms = 1e3 * r["ttft"]
    line = line_trace(
        "Frontier",
        r["throughput"],
        ttft_ms,
        CURRENT,
        "solid",
        2.5,
        "B = %{customdata[0]:,.0f}<br>T = %{x:,.0f} tok/s<br>TTFT = %{y:,.3~r} ms<br>"
        "ITL = %{customdata[1]:,.3~r} ms<br>ρ = %{customdata[2]:.3f}",
        custom=custom,
        digits=READOUT_DIGITS,
    )
    i = min(int(np.searchsorted(r["batch"], batch)), r["batch"].size - 1)
    dot = {
        "type": "scatter",
        "mode": "markers",
        "name": "Operating point",
        "x": [line["x"][i]],
        "y": [line["y"][i]],
        "customdata": [custom[i]],
        "marker": {"color": AMBER, "size": 15, "line": {"color": CURRENT, "width": 1.5}},
        "hovertemplate": line["hovertemplate"].replace("<extra>Frontier", "<extra>operating point"),
        "cliponaxis": False,  # at either end of the sweep the dot overhangs the plot area rather than be cut
    }
    # Fixed ranges for either scale, log where the frontier spans two decades (the small batches' end of the
    # curve, where the dot starts, sat in the corner of a linear axis).
    ranges = {
        "linear": [0.0, 1.04 * float(np.maximum.reduce(r["throughput"]))],
        "log": log_range(r["throughput"], 0.03),
    }
    scale = "log" if x_spans_decades([line]) else "linear"
    layout["xaxis"].update(type=scale, range=ranges[scale], autorange=False, **({"dtick": 1} if scale == "log" else {}))
    layout["yaxis"].update(range=log_range(ttft_ms), autorange=False)
    _explorer_marks(layout, scn, r, ttft_ms)
    band_label_clear(layout, [line])
    fixed_x_toggle(layout, ranges)
    layout["showlegend"] = False
    return {"data": [line, dot], "layout": layout}


def fixed_x_toggle(layout: dict, ranges: dict) -> None:
    """The log/linear x buttons of every frontier figure (`curves.x_scale_toggle`) on an axis with a fixed range
    for each scale (`ranges`): the animation keeps the explorer's axes still. Annotations on x move with it."""
    log = layout["xaxis"]["type"] == "log"
    on_x = [(k, a["x"]) for k, a in enumerate(layout["annotations"]) if a.get("xref") == "x"]
    data_x = [(k, 10.0**x if log else x) for k, x in on_x]
    linear = {"xaxis.type": "linear", "xaxis.range": ranges["linear"], "xaxis.dtick": None}
    linear |= {"xaxis.minor.showgrid": False} | {f"annotations[{k}].x": x for k, x in data_x}
    as_log = {"xaxis.type": "log", "xaxis.range": ranges["log"], "xaxis.dtick": 1, "xaxis.minor.showgrid": True}
    as_log |= {f"annotations[{k}].x": float(np.log10(x)) if x > 0 else 0.0 for k, x in data_x}
    set_scale_buttons(layout, linear, as_log, active=int(log))


def axis_end(layout: dict, axis: str = "xaxis") -> float:
    """The high end of an axis's fixed range in the data's units (a log axis's range is in decades)."""
    end = layout[axis]["range"][1]
    return float(10.0**end) if layout[axis].get("type") == "log" else float(end)


def compute_bend(scn: Scenario, batches) -> float:
    """The batch size from which the step's arithmetic outlasts its HBM read (inf if never within `batches`):
    the article's B_c in closed form, or where the calibrated step's two times cross (`Scenario.resource_times`,
    the split Figure 10 colours by), interpolated between the sampled `batches`."""
    if scn.mode != "calibrated":
        return float(E.compute_bound_batch(scn.ctx, scn.model, scn.b_w, scn.kappa, scn.bw, scn.compute,
                                           scn.replicated))  # fmt: skip
    b = np.asarray(batches, dtype=float)
    memory, compute = scn.resource_times(b)
    lead = compute - memory
    over = np.flatnonzero(lead > 0)
    if over.size == 0:
        return math.inf
    j = int(over[0])
    if j == 0:
        return float(b[0])
    return float(b[j - 1] + (b[j] - b[j - 1]) * -lead[j - 1] / (lead[j] - lead[j - 1]))


LABEL_SPAN = 0.4  # of the explorer's throughput axis: the width "ρ > 0.85: queue-bound" takes on a phone

BEND_LABEL = "bend"  # the `name` of the explorer's compute-bound label, which compare.merge may turn


def bend_label_place(x_share: float, y_share: float) -> dict:
    """Where the compute-bound label goes from its mark, at `x_share` and `y_share` of the explorer's axes. The
    frontier rises to the right, so above and left of the mark, and below and right of it, are clear. Up and to
    the left; within LABEL_SPAN of the y axis (whose title the words covered at B = 15) up and to the right,
    higher, since the frontier rises under the words; there, in the top 40 % (where up ran off a short plot),
    down and to the right."""
    if x_share > LABEL_SPAN:
        # Past the middle the words end at the arrow's tail: centred there, a phone's plot cut them at its edge.
        return {"ax": -30, "ay": -42, "xanchor": "right" if x_share > 0.5 else "auto", "yanchor": "auto"}
    if y_share < 0.6:
        return {"ax": 20, "ay": -70, "xanchor": "left", "yanchor": "auto"}
    return {"ax": 20, "ay": 36, "xanchor": "left", "yanchor": "top"}


BAND_LABEL = "rho-band"  # the `name` of the explorer's ρ band label, which compare.merge may move

LABEL_HEIGHT = 0.08  # of the explorer's plot: one line of 11 px type in a short embed's


def band_label_y(
    layout: dict,
    data: list,
    x_from: float,
    x_to: float,
    now: float,
    avoid=(),
    height: float = LABEL_HEIGHT,
    clear_only: bool = False,
) -> float:
    """Where (the share of the plot at its foot) a one-line label `height` tall over x_from…x_to on the x axis
    is clearest of every trace's points there and of the `avoid` boxes (x_from, x_to, low, high share) it meets:
    at `now` while none lies under it, else at the height whose nearest point is furthest, the nearest to `now`
    among equals; with `clear_only`, at `now` unless that height meets nothing."""
    y0, y1 = layout["yaxis"]["range"]
    log = layout["yaxis"].get("type") == "log"
    heights = []
    for trace in data:
        try:
            x, y = np.asarray(trace.get("x"), dtype=float), np.asarray(trace.get("y"), dtype=float)
        except (TypeError, ValueError):  # no numbers (a level line's labels)
            continue
        if x.ndim != 1 or x.shape != y.shape:
            continue
        with np.errstate(divide="ignore", invalid="ignore"):
            y = np.log10(y) if log else y
        heights.append(((y - y0) / (y1 - y0))[(x >= x_from) & (x <= x_to) & np.isfinite(y)])
    heights += [np.arange(low, high, 0.01) for left, right, low, high in avoid if left <= x_to and right >= x_from]
    heights = np.concatenate(heights) if heights else np.empty(0)
    if not heights.size:
        return now

    def clearance(foot):
        return float(np.min(np.maximum(0.0, np.maximum(foot - heights, heights - foot - height))))

    if clearance(now) > 0:
        return now
    feet = np.round(np.arange(0.02, 0.86, 0.02), 2)
    best = float(max(feet, key=lambda foot: (round(clearance(foot), 3), -abs(foot - now))))
    return now if clear_only and clearance(best) == 0 else best


def label_extent(layout: dict, note: dict, share: float = LABEL_SPAN) -> tuple[float, float]:
    """The x a label set at a mark takes on a phone (`share` of the axis, on the side its anchor puts it), in
    the data's units; the x axis must set its range."""
    span = layout["xaxis"]["range"]
    width = share * (span[1] - span[0])
    ends = (note["x"], note["x"] + width) if note.get("xanchor") == "left" else (note["x"] - width, note["x"])
    return (10 ** ends[0], 10 ** ends[1]) if layout["xaxis"].get("type") == "log" else ends


def band_label_clear(layout: dict, data: list) -> None:
    """The explorer's "ρ > 0.85" label moved, where it meets the curves or the compute-bound label's words, to
    the clearest height (`band_label_y`). The words hang a fixed number of pixels from their mark, 36 below or
    70 above: up to 0.45 or 0.65 of a short plot (a phone's, a small frame's), over which they met the label."""
    notes = layout.get("annotations") or []
    bend = next((note for note in notes if note.get("name") == BEND_LABEL), None)
    avoid = []
    if bend is not None:
        mark = axis_shares(layout, bend["x"], bend["y"])[1]
        words = (mark - 0.45, mark) if bend["ay"] > 0 else (mark, mark + 0.65)
        avoid.append((*label_extent(layout, bend), *words))
    for i, note in enumerate(notes):
        if note.get("name") == BAND_LABEL:
            foot = note["y"] if note.get("yanchor") == "bottom" else note["y"] - 0.05  # about a line's height
            y = band_label_y(layout, data, *label_extent(layout, note), foot, avoid)
            notes[i] = {**note, "y": y, "yanchor": "bottom"}


def axis_shares(layout: dict, x: float, y: float) -> tuple[float, float]:
    """How far along its x and y axes a point is (0 at the low end, 1 at the high), as drawn: x in the axis's
    units, y as an annotation gives it (log10 on a log axis). The axes must set their ranges."""
    (x0, x1), (y0, y1) = layout["xaxis"]["range"], layout["yaxis"]["range"]
    return (x - x0) / (x1 - x0), (y - y0) / (y1 - y0)


def _explorer_marks(layout: dict, scn: Scenario, r: dict, ttft_ms: np.ndarray) -> None:
    """The bend where the step turns compute-bound (more batch stops buying throughput for free; the article
    puts it at B*, which leaves out the KV reads) and the band past ρ = 0.85 (where the queue, and TTFT with
    it, runs away), on the explorer's throughput axis; `ttft_ms` is r's TTFT in ms."""
    b_unstable = RHO_PRACTICAL * scn.b_max
    if r["batch"][-1] > b_unstable:
        x0 = float(np.interp(b_unstable, r["batch"], r["throughput"]))
        add_band(layout, x0, axis_end(layout), QUEUE_BAND, RHO_BAND_LABEL)
        # Left of the band where no curve runs (halfway up, the calibrated curve ran through the words). Throughput
        # and TTFT rise together, so nothing lies above and left of where the frontier enters the band: there,
        # unless that is near the top, where the tool bar and the compute-bound label may be; then at the foot if
        # the frontier stays clear of it over the label's width (about a third of the axis, on a phone), else
        # above all the same while there is room.
        low, high = layout["yaxis"]["range"]
        height = (np.log10(ttft_ms) - low) / (high - low)
        entry = float(np.interp(b_unstable, r["batch"], height))
        on_x = np.log10(r["throughput"]) if layout["xaxis"]["type"] == "log" else r["throughput"]
        across = axis_shares(layout, on_x, 0.0)[0]
        x0_share = axis_shares(layout, annotation_at(layout, "xaxis", x0), 0.0)[0]
        foot_clear = np.minimum.reduce(height[across >= x0_share - LABEL_SPAN]) > 0.12
        if entry < 0.8 or (not foot_clear and entry < 0.93):
            y = {"y": entry + 0.02, "yanchor": "bottom"}
        else:
            y = {"y": 0.02, "yanchor": "bottom"} if foot_clear else {"y": 0.5}
        label = {"xanchor": "right", "xshift": -4, **y, "font": {"size": 11, "color": QUEUE_TEXT}, "name": BAND_LABEL}
        layout["annotations"][-1].update(label)
    b_bend = compute_bend(scn, r["batch"])
    if r["batch"][0] <= b_bend <= r["batch"][-1]:
        x = float(np.interp(b_bend, r["batch"], r["throughput"]))
        y = float(np.interp(b_bend, r["batch"], ttft_ms))
        layout["annotations"].append(
            {
                "text": f"step compute-bound from B = {b_bend:,.0f}",
                "x": annotation_at(layout, "xaxis", x),
                "y": annotation_at(layout, "yaxis", y),
                "xref": "x",
                "yref": "y",
                "showarrow": True,
                "arrowhead": 2,
                "arrowwidth": 1.2,
                "arrowcolor": P.REGIME["compute"],  # the mark of the compute limit, as prefill is on Figure 3
                "name": BEND_LABEL,
                **bend_label_place(
                    *axis_shares(layout, annotation_at(layout, "xaxis", x), annotation_at(layout, "yaxis", y))
                ),
                "font": {"size": 11, "color": P.TEXT["compute"]},
                "bgcolor": "rgba(255,255,255,0.85)",
            }
        )
