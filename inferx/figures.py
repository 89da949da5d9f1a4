"""Figure builders: pure functions from a Scenario, through the engine, to plotly dicts.

Each builder, `name(scn, batch)`, returns `{"data": [...], "layout": {...}}` as plain lists and dicts
(`inferx.figure_registry` lists them with their titles and what they depend on):
validated `go.Figure` objects cost milliseconds each, and the dashboard redraws
ten figures per slider step. Colours come from `inferx.palette`: a limit's colour marks only that limit, and a
reference curve keeps its series colour on every figure.
"""

from __future__ import annotations

import functools
import math
import re
import threading
from collections import OrderedDict
from types import SimpleNamespace

import numpy as np
import orjson

from . import engine as E
from . import palette as P
from .calibrated import band_label, residual_band, scenario_calibration
from .figure_text import number
from .hardware import GPUS
from .presets import HARDWARE, INTERCONNECTS
from .scenario import (
    BATCH,
    Scenario,
    comm_times,
    evaluate_all,
    frontier_batches,
    link,
    log_batches,
    log_spaced,
    sample_grids,
)

CURRENT = P.CURRENT
AMBER = P.REGIME["queue"]  # the explorer's dot before its binding limit colours it (beyond.explorer)
# Reference curves take the series colours (inferx.palette), never a limit's; each is dashed and named in its legend.
CONTEXT_REFS = {1024: P.VIOLET, 8192: P.CRIMSON, 32768: P.GREY}  # their labels take the colour: no sky
QUANT_REFS = {("fp16", "fp16"): P.CRIMSON, ("fp8", "fp8"): P.SKY}  # the article's two references
# Stand-ins, in order, for a reference that equals the current settings (it would hide under the current line).
QUANT_SPARES = {("fp8", "fp16"): P.VIOLET, ("fp4", "fp8"): P.GREY}
WORKLOAD_REFS = {"ideal": (P.SKY, 0.0, 100.0), "realistic": (P.CRIMSON, 1.0, 87.0)}
COMM_REFS = {
    "TP 4, NVLink 4": (P.SKY, dict(tp=4, pp=1, ic="nvlink"), "solid"),
    "TP 8, NVLink 4": (P.VIOLET, dict(tp=8, pp=1, ic="nvlink"), "solid"),
    "TP 4, InfiniBand": (P.GREY, dict(tp=4, pp=1, ic="infiniband"), "dash"),
    "TP 4 + PP 4, InfiniBand": (P.CRIMSON, dict(tp=4, pp=4, ic="infiniband"), "dash"),
}
# The limits' marks keep the regime colours (inferx.regimes.REGIME_COLOURS is the same dict): blue is HBM
# bandwidth (the ITL floor, the ridge B* where it stops binding), green compute (prefill), orange the queue
# (ρ > 0.85, the queueing wait), vermillion KV capacity (B_max). Black is the current settings.
RIDGE = P.REGIME["bandwidth"]
PREFILL = P.REGIME["compute"]
QUEUE = P.REGIME["queue"]
QUEUE_TEXT = P.QUEUE_TEXT
KV = P.REGIME["kv_capacity"]
# Figure 5's interactive and batch stretches are not limits: two shades of grey, named by their labels.
INTERACTIVE_BAND = "rgba(0,0,0,0.04)"
BATCH_BAND = "rgba(0,0,0,0.06)"
QUEUE_BAND = P.tint(P.REGIME["queue"], 0.16)  # ρ > 0.85: where the queue blows up
RHO_PRACTICAL = 0.85
RHO_CURVE_END = 0.99  # TTFT is 100× its residual wait here; beyond it the curve is a wall
CURVE_POINTS = 90
EXPLORER_POINTS = 160  # the explorer's frontier is denser: its dot and readouts interpolate between samples
READOUT_DIGITS = 6
DEFAULT_BATCH = BATCH.default  # the explorer's batch when none is given
# Plotly's config for every graph. Its tool bar shows on hover; where the device has no hover (touch screens,
# headless Chromium) plotly keeps it shown. No "Share chart" button: plotly.js 3 offers by default to upload the
# figure to Plotly Cloud, which a page embedded in an internal wiki must not suggest.
GRAPH_CONFIG = {"displaylogo": False, "responsive": True, "showSendToCloud": False}


def round_sig(values, digits: int = 4) -> list:
    """Round to `digits` significant figures for a compact JSON payload."""
    return _rounded(np.asarray(values, dtype=float), digits).tolist()


def _rounded(a: np.ndarray, digits: int = 4) -> np.ndarray:
    """`round_sig` as an array of any shape."""
    # |a| + (a == 0) is 1 where a is 0, so log10 never sees a zero (and needs no errstate, which costs more).
    scale = 10.0 ** (digits - 1 - np.floor(np.log10(np.abs(a) + (a == 0))))
    return np.rint(a * scale) / scale  # np.round to 0 decimals is rint, behind two wrappers


def si(value: float, digits: int = 3, unit: str = "") -> str:
    """A number to `digits` significant figures with an SI prefix: 1,067,281 -> "1.07M", or with a unit
    "1.07 M tok/s" (and 950 -> "950 tok/s")."""
    value = float(f"{value:.{digits}g}")
    number, prefix = f"{value:.{digits}g}", ""
    for scale, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= scale:
            number, prefix = f"{value / scale:.{digits}g}", suffix
            break
    if not unit:
        return number + prefix
    return f"{number} {prefix} {unit}" if prefix else f"{number} {unit}"


def decade_ticks(fig: dict, redo: bool = False, arrays: dict | None = None) -> None:
    """Label only whole decades on a log axis that spans two or more: plotly's default labels 2 and 5 between
    them too ("1 2 5 10 2 5 100"), which reads as clutter. Minor grid lines keep the scale readable. An axis
    that spans one to two decades would show one or two labels that way, so it gets 1, 2, 5, 10, 20, … in
    full instead, with a minor line at every other digit ("D1": plotly would otherwise space an array axis's
    minor lines by its smallest tick gap, thousands of them once the range outgrows the ticks). The span is
    the traces' values, the shapes drawn on the axis and any fixed range. `redo` replaces ticks set before, for
    a figure whose traces or range have since grown (a comparison merged in, a level line added). `arrays`
    ("x"/"y": the traces' array values already joined, as `_json_ready` has them) spares joining them again;
    traces whose values are lists still count."""
    for axis, key in (("xaxis", "x"), ("yaxis", "y")):
        spec = fig["layout"].get(axis, {})
        if spec.get("type") != "log":
            continue
        if redo:
            spec = {k: v for k, v in spec.items() if k not in ("minor", "dtick", "tickmode", "tickvals")}
            fig["layout"][axis] = spec
        elif "tickvals" in spec:
            continue
        # Each trace's values at once (an array, or a list where None marks a gap), not one float at a time.
        if arrays is None:
            parts = [np.asarray(t[key], dtype=float).ravel() for t in fig["data"] if t.get(key) is not None]
        else:
            parts = [arrays[key]]
            parts += [np.asarray(t[key], dtype=float).ravel() for t in fig["data"] if isinstance(t.get(key), list)]
        if isinstance(spec.get("range"), list):
            parts.append(10.0 ** np.asarray(spec["range"], dtype=float))
        if "autorangeoptions" in spec:  # a note's headroom (`_note_above`)
            parts.append(np.asarray(spec["autorangeoptions"]["include"], dtype=float))
        # Level lines on the axis, which plotly's autorange reaches too (a TTFT target far under the curve).
        lines = [s[f"{key}{i}"] for s in fig["layout"].get("shapes", ()) if s.get(f"{key}ref") == key for i in (0, 1)]
        if lines:
            parts.append(np.asarray(lines, dtype=float))
        values = np.concatenate(parts) if len(parts) > 1 else parts[0] if parts else np.zeros(0)
        # Reductions straight from the ufuncs, not through numpy's wrappers; over a mask (not a copy of the
        # shown values) only where some value is not shown: zero, negative, ±∞ or NaN (which both propagate).
        low, high = (np.minimum.reduce(values), np.maximum.reduce(values)) if values.size else (np.inf, -np.inf)
        if not (low > 0 and high < np.inf):
            shown = (values > 0) & (values < np.inf)  # NaN and ±∞ fail one of the two
            low = np.minimum.reduce(values, initial=np.inf, where=shown)
            high = np.maximum.reduce(values, initial=-np.inf, where=shown)
        if not high > low:  # also no value shown at all: low ∞, high −∞
            continue
        if high < 10 * low:
            ticks = short_log_ticks(low, high, whole=spec.get("tickformat") == COUNT_FORMAT)
            if ticks:
                spec.update(tickmode="array", tickvals=ticks)
            continue
        spec["minor"] = {"showgrid": True, "gridcolor": "rgba(0,0,0,0.035)"}
        if high >= 100 * low:
            spec["dtick"] = 1
        else:
            spec["minor"]["dtick"] = "D1"
            spec.update(tickmode="array", tickvals=one_two_five(low / 2, high * 2))


END_GAP = 0.25  # the share of a short log axis's span that may go unlabelled at either end


def short_log_ticks(low: float, high: float, whole: bool = False) -> list[float] | None:
    """Ticks for a log axis spanning under a decade, written in full: plotly labels such an axis by leading
    digits ("7 8 9 100 2 5") or, on a count axis, with fractions (a batch of 1.5). The sparsest of 1-2-5,
    1-2-3-5 and every leading digit that puts three ticks on the axis, or two where every digit would crowd
    it; of those with three to five, the sparsest that leaves no end of the axis unlabelled over a quarter of
    its span (500, 1000, 2000 over 277-2000 ms left the points under 500 without a label: 300 joins them).
    `whole` (an axis of counts) keeps whole numbers only, even one. None leaves plotly's ticks, which on a
    narrow axis step evenly (65, 70, 75)."""
    decades = range(int(np.floor(np.log10(low))), int(np.ceil(np.log10(high))) + 1)
    span = np.log10(high / low)
    two = first = None
    for digits in ((1, 2, 5), (1, 2, 3, 5), range(1, 10)):
        found = [float(f"{m}e{d}") for d in decades for m in digits if low <= m * 10.0**d <= high]
        if whole:
            found = [v for v in found if v >= 1]
        if len(found) >= 3 and not (len(found) > 5 and two):
            first = first or found
            if len(found) > 5:  # more would crowd the axis: the first that had three
                return first
            if max(np.log10(found[0] / low), np.log10(high / found[-1])) <= END_GAP * span:
                return found
        two = two or (found if len(found) == 2 else None)
    return first or two or (found if whole and found else None)  # one whole number rather than fractions


def unnumbered_if_empty(fig: dict) -> dict:
    """A figure with no curve (its note says why) keeps its axis titles, which say what it would plot, but not
    the ticks and grid plotly numbers an empty range with (−1 to 6), which read as data."""
    if fig["data"]:
        return fig
    layout = dict(fig["layout"])
    for axis in [k for k in layout if k.startswith(("xaxis", "yaxis"))]:
        layout[axis] = {**layout[axis], "showticklabels": False, "showgrid": False, "zeroline": False}
    return {**fig, "layout": layout}


def one_two_five(low: float, high: float) -> list[float]:
    """The numbers 1, 2 and 5 times a power of ten from `low` to `high`."""
    decades = range(int(np.floor(np.log10(low))), int(np.ceil(np.log10(high))) + 1)
    return [float(f"{m}e{d}") for d in decades for m in (1, 2, 5) if low <= m * 10.0**d <= high]


def _json_ready(builder):
    """A figure builder whose traces' x and y arrays come out as lists, rounded to 4 significant figures
    in one numpy call per figure: at ~90 points a trace, numpy's per-call cost, not the arithmetic, sets the
    time of a redraw, and a figure has up to five traces. Log axes then get decade ticks."""

    @functools.wraps(builder)
    def built(*args, **kwargs) -> dict:
        fig = builder(*args, **kwargs)
        arrays = [(t, k) for k in ("x", "y") for t in fig["data"] if isinstance(t.get(k), np.ndarray)]
        if not arrays:
            decade_ticks(fig)
            return fig
        joined = np.concatenate([t[k] for t, k in arrays])  # every x, then every y
        n_x = sum(t[k].size for t, k in arrays if k == "x")
        decade_ticks(fig, arrays={"x": joined[:n_x], "y": joined[n_x:]})  # while the traces are still arrays
        flat = round_sig(joined)
        start = 0
        for t, k in arrays:
            end = start + t[k].size
            t[k] = flat[start:end]
            start = end
        return fig

    return built


MEMO_SIZE = 16  # figures kept per builder: a few recent states, as a drag of one other control revisits


def memoised(reads):
    """A figure builder kept for the last `MEMO_SIZE` values of `reads(scn)`: the scenario fields and controls
    it depends on, so a control it does not read (a latency target, a price) does not rebuild it. Figures 8 and
    10–15 read fewer controls than the others.

    Kept as JSON and parsed afresh for each caller, who may change the figure (parsing is several times faster
    than copying the dicts); a figure that JSON would change (a NaN, a tuple) is not kept."""

    def wrap(builder):
        memo, lock = OrderedDict(), threading.Lock()  # gunicorn's threads share it

        @functools.wraps(builder)
        def built(scn: Scenario, batch: int = DEFAULT_BATCH) -> dict:
            key = reads(scn)
            with lock:
                kept = memo.get(key)
                if kept is not None:
                    memo.move_to_end(key)
            if kept is not None:
                return orjson.loads(kept)
            fig = builder(scn, batch)
            kept = orjson.dumps(fig, option=orjson.OPT_SERIALIZE_NUMPY)
            # JSON writes NaN and infinity as null: only then can the copy differ (the builders make no tuples,
            # which the memo's tests would catch), and parsing it back to compare costs more than the dump.
            if b"null" not in kept or orjson.loads(kept) == fig:
                with lock:
                    memo[key] = kept
                    if len(memo) > MEMO_SIZE:
                        memo.popitem(last=False)
            return fig

        built.cache_clear = memo.clear
        return built

    return wrap


# After every draw Plotly measures each tick label against the graph's edges ("hide past div"), a layout of the
# page per label: 20 ms of a 330 ms redraw of the dashboard's 14 graphs. The margins keep every label inside
# (test_theme_browser: no label reaches past its graph), so the check is off.
AXIS = {"zeroline": False, "ticklabeloverflow": "allow"}
COUNT_FORMAT = ",d"  # an axis of whole things (a batch of requests): `decade_ticks` never puts a fraction on it


def _layout(title_x: str, title_y: str, xlog=False, ylog=False, xcount=False, **extra) -> dict:
    """A figure's layout; `xcount` marks an x axis of whole numbers (batch sizes)."""
    layout = {
        "xaxis": {"title": {"text": title_x}, "type": "log" if xlog else "linear", **AXIS},
        # A few pixels between the y labels and the axis: the two axes' "0" met in the corner as "00".
        "yaxis": {
            "title": {"text": title_y},
            "type": "log" if ylog else "linear",
            **AXIS,
            "ticklabelstandoff": 4,
        },
        "margin": {"l": 64, "r": 16, "t": 16, "b": 52},
        "legend": {"orientation": "h", "y": -0.22, "x": 0, "font": {"size": 11}},
        "hovermode": "closest",
        "template": "plotly_white",
        "font": {"family": "system-ui, -apple-system, Segoe UI, Roboto, sans-serif", "size": 12},
        "uirevision": "keep",  # keep the user's zoom across redraws
        "shapes": [],
        "annotations": [],
    }
    if xcount:
        layout["xaxis"]["tickformat"] = COUNT_FORMAT
    layout.update(extra)
    return layout


def _line(name, x, y, colour, dash="solid", width=2.0, hover="", custom=None, digits=None, **extra) -> dict:
    """A line trace. Its x and y stay arrays, for `_json_ready` to round with the figure's other traces,
    unless `digits` asks for them rounded now."""
    # No copy: _json_ready rounds them into lists.
    x, y = np.asarray(x, dtype=float).ravel(), np.asarray(y, dtype=float).ravel()
    if digits is not None:
        xy = round_sig(np.concatenate([x, y]), digits)
        x, y = xy[: x.size], xy[x.size :]
    trace = {
        "type": "scatter",
        "mode": "lines",
        "name": name,
        "x": x,
        "y": y,
        "line": {"color": colour, "dash": dash, "width": width},
        "hovertemplate": hover + f"<extra>{name}</extra>",
    }
    if custom is not None:
        trace["customdata"] = custom
    trace.update(extra)
    return trace


def _note(layout: dict, text: str, y: float = 0.5) -> None:
    """A visible explanation in place of a curve that cannot exist."""
    layout["annotations"].append(
        {
            "text": text,
            "xref": "paper",
            "yref": "paper",
            "x": 0.5,
            "y": y,
            "showarrow": False,
            "font": {"size": 13, "color": "#8a2b00"},
            "bgcolor": "rgba(255,244,229,0.95)",
            "bordercolor": "#D55E00",
            "borderpad": 6,
        }
    )


NOTE_CLEARANCE = 0.45  # of a log y axis the curves keep under a note at its top: a 480×360 frame's 2-line note


def _note_above(layout: dict, data: list, text: str) -> None:
    """A note near the top of a log-y plot, over curves kept below it: it hangs from the plot's top edge and
    plotly's autorange is told to reach high enough that the curves fill only the lower NOTE_CLEARANCE of the
    axis (the presets' walls in Figure 5 ran through it when the current machine did not fit). Autorange, not a
    fixed range, so a pinned A's curves still widen the axis."""
    ys = [np.asarray(t["y"], dtype=float) for t in data if t.get("y") is not None]
    y = np.concatenate(ys) if ys else np.zeros(0)
    y = y[(y > 0) & np.isfinite(y)]
    if not y.size:
        _note(layout, text, y=0.9)
        return
    _note(layout, text, y=1.0)
    layout["annotations"][-1].update(yanchor="top", yshift=-12)  # under the tool bar, which straddles the top edge
    lo, hi = np.log10(y.min()), np.log10(y.max())
    keep_in_lower_share(layout, lo, lo + max(hi - lo, 0.5), NOTE_CLEARANCE)


def keep_in_lower_share(layout: dict, lo: float, hi: float, share: float) -> None:
    """Let plotly's log-y autorange reach high enough that [10^lo, 10^hi] fills only the lower `share` of the
    axis, leaving room above for text autorange does not see (a note, a point's label)."""
    layout["yaxis"]["autorangeoptions"] = {"include": [float(10.0 ** (lo + (hi - lo) / share))]}


def _does_not_fit(scn: Scenario, title_x: str, title_y: str) -> dict:
    """Empty axes with the sentence saying why the model does not fit the machine."""
    layout = _layout(title_x, title_y)
    _note(layout, f"{scn.model.name} does not fit: {scn.unfit_reason()}")
    return {"data": [], "layout": layout}


def _at(layout: dict, axis: str, value: float) -> float:
    """An annotation's position on `axis`: plotly places annotations on a log axis by log10 of the value
    (shapes take the value itself), so a raw B* = 247 would stretch the axis to 10^247."""
    return float(np.log10(value)) if layout[axis].get("type") == "log" else value


def x_extent(data: list) -> list[float] | None:
    """[lowest, highest] x of the traces' numbers, where a level line drawn as a trace spans; None if none."""
    xs = [x for t in data if isinstance(t.get("x"), list) for x in t["x"] if isinstance(x, (int, float))]
    return [min(xs), max(xs)] if xs else None


def level_lines(layout: dict) -> list[tuple[str, dict]]:
    """A figure's level lines (`_hline`: an ITL floor, a throughput ceiling, a latency target), each as its
    label on one line ("level" where none is found) and its shape."""
    notes = layout.get("annotations") or []
    found = []
    for shape in layout.get("shapes") or []:
        if not (shape.get("type") == "line" and shape.get("xref") == "paper" and shape.get("y0") == shape.get("y1")):
            continue
        at = _at(layout, "yaxis", shape["y0"]) if "yaxis" in layout else shape["y0"]
        note = next((n for n in notes if n.get("xref") == "paper" and n.get("y") == at), {})
        found.append((re.sub(r"\s*<br>\s*", " ", str(note.get("text", "level"))), shape))
    return found


def _vline(layout, x, colour, label) -> None:
    layout["shapes"].append(
        {
            "type": "line",
            "xref": "x",
            "yref": "paper",
            "x0": x,
            "x1": x,
            "y0": 0,
            "y1": 1,
            "line": {"color": colour, "dash": "dash", "width": 1.5},
        }
    )
    layout["annotations"].append(
        {
            "text": label,
            "x": _at(layout, "xaxis", x),
            "xref": "x",
            # At the foot of the line: the top is where the roofline plateaus and the graph's tool bar sits.
            "y": 0,
            "yref": "paper",
            "showarrow": False,
            "xanchor": "left",
            "yanchor": "bottom",
            "font": {"size": 11, "color": P.text(colour)},
            "xshift": 4,
        }
    )


def _hline(layout, y, colour, label, xanchor="right", lift: int = 0, below: bool = False, short: str = "") -> None:
    """A dashed level line across the plot, labelled at its `xanchor` end, above it or `below` it; or, `lift`
    > 0, from near its left end and that many pixels above it, with a pointer down to it: clear of a curve
    that runs just above the line. Starting there, not centred further along: in a phone's plot a long label
    centred a fifth of the way along reached past the plot's left edge onto the y axis's tick labels. `short`,
    the shape's name, is a shorter label for a crowded legend, should the line be moved there
    (`compare.merge`)."""
    layout["shapes"].append(
        {
            **({"name": short} if short else {}),
            "type": "line",
            "xref": "paper",
            "yref": "y",
            "x0": 0,
            "x1": 1,
            "y0": y,
            "y1": y,
            "line": {"color": colour, "dash": "dash", "width": 1.5},
        }
    )
    layout["annotations"].append(
        {
            "text": label,
            "xref": "paper",
            "x": 1 if xanchor == "right" else 0,
            "y": _at(layout, "yaxis", y),
            "yref": "y",
            "showarrow": False,
            "xanchor": xanchor,
            "yanchor": "top" if below else "bottom",
            "font": {"size": 11, "color": P.text(colour)},
        }
    )
    if lift:
        layout["annotations"][-1] |= {
            "x": 0.03,
            "xanchor": "left",
            "showarrow": True,
            "arrowhead": 0,
            "arrowwidth": 1,
            "arrowcolor": colour,
            "ax": 0,
            "ay": -lift,
        }


def _band(layout, x0, x1, colour, label="", xref="x", label_drop: int = 0) -> None:
    """A shaded x-range the height of the plot, its label at the top (`label_drop` px lower: a line, 14)."""
    layout["shapes"].append(
        {
            "type": "rect",
            "xref": xref,
            "yref": "paper",
            "x0": x0,
            "x1": x1,
            "y0": 0,
            "y1": 1,
            "fillcolor": colour,
            "line": {"width": 0},
            "layer": "below",
        }
    )
    if label:
        layout["annotations"].append(
            {
                "text": label,
                "x": _at(layout, "xaxis", x0) if xref == "x" else x0,
                "xref": xref,
                # At the top: every frontier starts low on the left, where a label at the foot sat on it.
                "y": 0.98,
                "yref": "paper",
                "showarrow": False,
                "xanchor": "left",
                "yanchor": "top",
                "font": {"size": 11, "color": "#555"},
                "xshift": 4,
                "yshift": -label_drop,
            }
        )


# --- Sweeps shared by several figures ---------------------------------------------


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


def _context_refs(ctx: int) -> list[int]:
    return [s for s in CONTEXT_REFS if s != ctx][:2]


# The scenarios whose frontiers a figure draws beside the current one, in legend order (cached: the
# figure registry asks for them before a redraw evaluates every frontier at once, then the builders again).
@functools.lru_cache(maxsize=16)
def context_refs(scn: Scenario) -> list[Scenario]:
    return [scn.with_context(S) for S in _context_refs(scn.ctx)]


def preset_refs(scn: Scenario) -> list[Scenario]:
    return _preset_refs(scn, scn.params["gpu"], scn.params["gpus"])


# Keyed by the GPU and count too: a Scenario compares by its SI fields, and which presets it leaves out follows
# the machine it is on.
@functools.lru_cache(maxsize=16)
def _preset_refs(scn: Scenario, gpu: str, gpus: int) -> list[Scenario]:
    return [scn.with_params(preset=preset) for preset in other_presets(scn)]


def other_presets(scn: Scenario) -> list[str]:
    """The presets Figure 5 draws beside the current settings: each but the one whose machine they are on (its
    GPU and count), so a GPU picked from the menu is set against all of them, whichever preset is selected."""
    gpu, count = GPUS[scn.params["gpu"]], scn.params["gpus"]
    return [key for key, hw in HARDWARE.items() if not (hw.machine.gpu == gpu and hw.n_gpus == count)]


def quant_refs(scn: Scenario) -> list[Scenario]:
    return _quant_ref_scenarios(scn, scn.params["wdtype"], scn.params["kvdtype"])


# Keyed by the dtype names too: FP8 and INT8 weights are both one byte, so their Scenarios compare equal while
# Figure 7 draws different references beside them.
@functools.lru_cache(maxsize=16)
def _quant_ref_scenarios(scn: Scenario, wdtype: str, kvdtype: str) -> list[Scenario]:
    return [scn.with_params(wdtype=w, kvdtype=kv) for w, kv in _quant_refs(scn)]


@functools.lru_cache(maxsize=16)
def workload_refs(scn: Scenario) -> list[Scenario]:
    return [scn.with_params(cv=cv, util=util) for _, cv, util in WORKLOAD_REFS.values()]


def _quant_refs(scn: Scenario) -> dict[tuple[str, str], str]:
    """The dtype pairs Figure 7 draws beside the current one, with their colours: the article's two, with a
    reference that equals the current settings swapped for the next spare."""
    current = (scn.params["wdtype"], scn.params["kvdtype"])
    spares = [(pair, colour) for pair, colour in QUANT_SPARES.items() if pair != current]
    return dict(spares.pop(0) if pair == current else (pair, colour) for pair, colour in QUANT_REFS.items())


BAND_FILL = "rgba(0, 0, 0, 0.12)"


def _residual_band(scn: Scenario, x, y, metric: str, scale: float = 1.0) -> list[dict]:
    """In calibrated mode, two traces that shade where 80 % of the fit's measurements fell around the curve
    (p10–p90 of its residuals for `metric` on the scenario's calibration key, calibration.json); nothing in
    article mode."""
    key = scenario_calibration(scn)["spread_key"] if scn.mode == "calibrated" else None
    band = residual_band(y, metric, key) if scn.mode == "calibrated" else None
    if band is None:
        return []
    low, high = (scale * b for b in band)
    hidden = {"line": {"color": "rgba(0, 0, 0, 0)", "width": 0}, "hoverinfo": "skip"}
    name = band_label(metric, key)
    lower = _line(name, x, low, CURRENT, showlegend=False, meta={"band": "low"}) | hidden
    upper = _line(name, x, high, CURRENT, fill="tonexty", fillcolor=BAND_FILL, meta={"band": "high", "metric": metric})
    return [lower, upper | hidden]


def machine_label(scn: Scenario) -> str:
    """The machine the current settings describe, for a legend to name: the preset's label ("8×H200") when it
    is the preset's machine, else the catalog's ("4×H100 SXM")."""
    gpu, count = GPUS[scn.params["gpu"]], scn.params["gpus"]
    hw = HARDWARE.get(scn.hardware)
    return hw.label if hw and hw.machine.gpu == gpu and hw.n_gpus == count else f"{count}×{gpu.name}"


def _hover_frontier() -> str:
    return "B = %{customdata:,}<br>T = %{x:,.0f} tok/s<br>TTFT = %{y:,.3~r} ms"


def _frontier_trace(name, r, colour, dash="solid", width=2.0) -> dict:
    return _line(
        name,
        r["throughput"],
        1e3 * r["ttft"],
        colour,
        dash,
        width,
        _hover_frontier(),
        custom=r["batch"].astype(int).tolist(),
    )


# --- Figures ------------------------------------------------------------------------


@_json_ready
def roofline(scn: Scenario, batch: int = DEFAULT_BATCH) -> dict:
    """Throughput vs batch with no KV cache (S = 0); the ridge batch B* dashed."""
    if scn.headroom <= 0:
        return _does_not_fit(scn, "Batch size B (concurrent requests)", "Decode throughput (tok/s)")
    s0 = scn.with_context(0)
    b_star, calibrated = _ridge(s0)
    B = log_batches(max(16 * b_star, 64), CURVE_POINTS)  # four doublings of plateau: room for its label
    step, comm = s0.step_and_comm(B)
    hover = "B = %{x:,.0f}<br>T = %{y:,.0f} tok/s"
    data = [_line("Roofline, no communication", B, E.throughput(B, step), CURRENT, "dot", 1.5, hover)]
    if comm.any():
        data.append(_line("With TP/PP communication", B, E.throughput(B, step + comm), CURRENT, "solid", 2.5, hover))
    else:
        data[0].update(line={"color": CURRENT, "dash": "solid", "width": 2.5}, name="Roofline (S = 0)")
    # Log-log: the memory-bound regime (T ∝ B) is a straight line of slope 1, the compute-bound one flat.
    layout = _layout(
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
    _vline(layout, float(b_star), RIDGE, f"B* = {b_star:,.0f}{tag}")
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


@functools.lru_cache(maxsize=16)  # Figures 1 and 5 both ask, and the calibrated search is 0.13 ms
def _ridge(s0: Scenario) -> tuple[float, bool]:
    """Figure 1's ridge at S = 0, and whether it is the calibrated one: the article's B* from the datasheet, or
    in calibrated mode the batch where the calibrated step's arithmetic outlasts its HBM read (the achieved
    rates, the stalling prefills included: the split Figures 6 and 10 colour by), unless that never happens."""
    if s0.mode == "calibrated":
        bend = compute_bend(s0, RIDGE_SEARCH)
        if math.isfinite(bend):
            return bend, True
    return E.ridge_batch(s0.compute, s0.bw, s0.b_w), False


def _corner_label(layout: dict, text: str, x: float, xanchor: str, y: float) -> dict:
    """A regime's name at data position x and paper height y."""
    return {
        "text": text,
        "x": _at(layout, "xaxis", x),
        "xref": "x",
        "y": y,
        "yref": "paper",
        "showarrow": False,
        "xanchor": xanchor,
        "yanchor": "top" if y > 0.5 else "bottom",
        "font": {"size": 11, "color": "#555"},
    }


@_json_ready
def kv_cache_tax(scn: Scenario, batch: int = DEFAULT_BATCH) -> dict:
    """Throughput vs batch at the current context and two reference contexts; KV ceilings dashed, each curve
    ending in a dot at B_max, which its legend entry names."""
    layout = _layout(
        "Batch size B (concurrent requests)", "Decode throughput (tok/s)", xlog=True, ylog=True, xcount=True
    )
    if scn.headroom <= 0:
        _note(layout, f"No curves: {scn.unfit_reason()}")
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
        data.append(_line(name, r["batch"], r["throughput"], colour, "solid", 2.5 if current else 1.8, hover, **end))
        ceiling = float(E.kv_ceiling(S, s.kappa, s.bw))
        _hline(layout, ceiling, colour, f"T∞({S:,})<br>≈ {si(ceiling, unit='tok/s')}", xanchor="left")
        # In two short lines under the line's left end, where every curve is still far below its ceiling (in one
        # line the lowest label reached the rising curves on a phone), veiled where a close lower ceiling's
        # line runs through it.
        layout["annotations"][-1].update(yanchor="top", align="left", bgcolor="rgba(255,255,255,0.8)")
    if notes:
        _note(layout, "<br>".join(notes))
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


@_json_ready
def ttft_parts(scn: Scenario, batch: int = DEFAULT_BATCH) -> dict:
    """TTFT components vs batch: prefill floor, queueing term, total; ρ ≤ 0.85 band."""
    layout = _layout(
        "Batch size B (concurrent requests)", "Time to first token (ms)", xlog=True, ylog=True, xcount=True
    )
    r = frontier(scn)
    if r is None:
        _note(layout, f"No frontier: {no_curve_reason(scn)}")
        return {"data": [], "layout": layout}
    B = r["batch"]
    prefill = scn.prefill
    hover = "B = %{x:,.0f}<br>%{y:,.3~r} ms"
    # The calibrated TTFT adds a fixed cost per request and the scheduler's wait to the queue.
    wait = "Queueing wait" if scn.mode == "article" else "Queueing wait and per-request costs"
    data = [
        _line(
            "Prefill t<sub>prefill</sub>(S<sub>in</sub>)", B, np.full(B.shape, 1e3 * prefill), PREFILL, "dash", 2, hover
        ),
        _line(wait, B, 1e3 * (r["ttft"] - prefill), QUEUE, "dot", 2, hover),
        _line("TTFT total", B, 1e3 * r["ttft"], CURRENT, "solid", 2.5, hover),
    ]
    # Past ρ = 0.85 the queueing wait climbs to a wall at B_max: shade that stretch, not the usable one.
    x0 = RHO_PRACTICAL * scn.b_max
    _band(layout, x0, scn.b_max, QUEUE_BAND, "ρ > 0.85 →")
    layout["xaxis"]["range"] = [0, float(np.log10(scn.b_max)) + 0.02]
    # Beside the narrow band, not cut off by it, at 0.8 of the height (below the top right, where a tool bar may
    # be) unless a curve runs there: in calibrated mode TTFT climbs through it before the band. The y axis
    # autoranges, so its span is reckoned from the curves.
    axes = {
        "xaxis": layout["xaxis"],
        "yaxis": {"type": "log", "range": _log_range(np.concatenate([t["y"] for t in data]), 0.05)},
    }
    band = layout["annotations"][-1]
    band.update(xanchor="right", xshift=-4, font={"size": 11, "color": QUEUE_TEXT})
    band_x = label_extent(axes, band, BAND_ARROW_SPAN)
    foot = band_label_y(axes, data, *band_x, 0.8 - LABEL_HEIGHT)
    band.update(y=foot, yanchor="bottom")
    _vline(layout, float(scn.b_max), KV, f"B<sub>max</sub> = {si(scn.b_max)}")
    # At the foot of its line unless a curve runs there (the calibrated prefill, the lowest curve, did), and
    # clear of the band's label, which lies over the same stretch of the axis.
    b_max = layout["annotations"][-1]
    b_max.update(xanchor="right", xshift=-4)
    b_max_x = label_extent(axes, b_max, BAND_ARROW_SPAN)
    b_max["y"] = band_label_y(axes, data, *b_max_x, 0.0, [(*band_x, foot, foot + LABEL_HEIGHT)])
    return {"data": data, "layout": layout}


BAND_ARROW_SPAN = 0.25  # of Figure 3's batch axis: the width "ρ > 0.85 →" takes on a phone


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


@_json_ready
def itl_vs_throughput(scn: Scenario, batch: int = DEFAULT_BATCH) -> dict:
    """ITL vs throughput, parametric in B; the ITL floor P_active·b_w/BW dashed."""
    layout = _layout("Output throughput (tok/s)", "Inter-token latency (ms)")
    r = frontier(scn)
    if r is None:  # no floor either: on axes without numbers it would be a line at no particular height
        _note(layout, f"No curve: {no_curve_reason(scn)}")
        return {"data": [], "layout": layout}
    floor = E.itl_floor(scn.model.p_active, scn.b_w, scn.bw)
    # The calibrated curve starts well above the article's floor (its fixed step cost, the achieved bandwidth).
    where = " at peak bandwidth" if scn.mode == "calibrated" else ""
    label = f"ITL floor{where} = {number(1e3 * floor)} ms"
    short = f"ITL floor = {number(1e3 * floor)} ms"
    _hline(layout, 1e3 * floor, RIDGE, label, lift=_floor_label_lift(r, floor), short=short)
    hover = "B = %{customdata:,}<br>T = %{x:,.0f} tok/s<br>ITL = %{y:,.3~r} ms"
    trace = _line(
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
    points = _line(
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
    _x_scale_toggle(layout)
    band = _residual_band(scn, r["throughput"], r["itl"], "tpot", 1e3)
    return {"data": [trace, points, *band], "layout": layout}


def _x_scale_toggle(layout: dict) -> None:
    """Buttons above the graph that switch its linear x-axis to log and back, with no callback: plotly's
    relayout sets the axis type and moves the annotations placed on x, which plotly reads as log10 of the
    value on a log axis. Measured throughputs, far below the frontier's, gather at x ≈ 0 on the linear scale."""
    on_x = [(k, a["x"]) for k, a in enumerate(layout["annotations"]) if a.get("xref") == "x"]
    # Null gives linear its own ticks back.
    linear = {"xaxis.type": "linear", "xaxis.autorange": True, "xaxis.dtick": None}
    linear |= {f"annotations[{k}].x": x for k, x in on_x}
    layout["margin"]["t"] = 58  # the buttons sit under the tool bar, which spans the top on a phone
    layout["updatemenus"] = [
        {
            "type": "buttons",
            "direction": "left",
            "showactive": True,
            "active": 0,
            "x": 0,
            "xanchor": "left",
            "y": 1.01,
            "yanchor": "bottom",
            "pad": {"l": 0, "r": 0, "t": 0, "b": 0},
            "font": {"size": 10},
            "buttons": [
                {"label": "linear x", "method": "relayout", "args": [linear]},
                {"label": "log x", "method": "relayout", "args": [_log_x(layout)]},
            ],
        }
    ]


def _log_x(layout: dict) -> dict:
    """The relayout that puts a linear x axis on log: whole decades only (as every log axis here), and each
    annotation placed on x at log10 of its value, where plotly reads it on a log axis."""
    on_x = {f"annotations[{k}].x": _log10(a["x"]) for k, a in enumerate(layout["annotations"]) if a.get("xref") == "x"}
    return {"xaxis.type": "log", "xaxis.autorange": True, "xaxis.dtick": 1} | on_x


def _log10(x: float) -> float:
    return float(np.log10(x)) if x > 0 else 0.0


NARROW_BAND = 0.15  # of Figure 5's x axis: too narrow for "batch" between its edge and the wall in a 480 px frame


def _regimes(layout, scn: Scenario, r, x_end: float) -> None:
    """Shade the interactive (B ≤ B_split/8) and batch (B ≥ B_split) regimes, B_split = min(B*, B_max/2), with
    Figure 1's B* (the calibrated step's ridge in calibrated mode).

    The batch label hangs a line below the interactive one: a small machine beside the presets (or beside a
    pinned A) squeezes both bands into the axis's first per cent, where side by side they printed over each
    other. A batch band under NARROW_BAND of the axis (`x_end`, the traces' largest x) is labelled just right
    of it, pointing back ("← batch"), or left of it where the axis ends there: inside, the label ran across
    the curve's wall."""
    split = min(_ridge(scn.with_context(0))[0], scn.b_max / 2)  # Figure 1's B*: in calibrated mode, the fitted one
    T = r["throughput"]
    x_batch = float(np.interp(split, r["batch"], T))
    if split / 8 >= r["batch"][0]:  # else no batch size is interactive (B_max under 16, or B* near 1)
        # From the first sample rather than 0, which a log x-axis (the scale toggle) cannot place.
        _band(layout, float(T.min()), float(np.interp(split / 8, r["batch"], T)), INTERACTIVE_BAND, "interactive")
    end = float(T.max()) * 1.02
    _band(layout, x_batch, end, BATCH_BAND, "batch", label_drop=14)
    if end - x_batch < NARROW_BAND * x_end:
        if end < (1 - NARROW_BAND) * x_end:
            layout["annotations"][-1].update(text="← batch", x=end, xshift=2)
        else:  # the axis ends at the band: left of it, where the curve is still low
            layout["annotations"][-1].update(text="batch →", xanchor="right", xshift=-2)


@_json_ready
def preset_frontiers(scn: Scenario, batch: int = DEFAULT_BATCH) -> dict:
    """Throughput–TTFT frontier for the current settings and the other presets."""
    layout = _layout("Output throughput (tok/s)", "Time to first token (ms)", ylog=True)
    layout["xaxis"]["rangemode"] = "tozero"
    data, notes = [], []
    others = [HARDWARE[preset] for preset in other_presets(scn)]
    for hw, ref in zip(others, preset_refs(scn), strict=True):
        r = frontier(ref)
        if r is None:
            notes.append(f"{hw.label}: {no_curve_reason(ref)}")
        else:
            data.append(_frontier_trace(f"{hw.label} (preset)", r, hw.colour, "dash", 1.8))
    r = frontier(scn)
    if r is None:
        notes.insert(0, f"{machine_label(scn)} (current): {no_curve_reason(scn)}")
    else:
        stable = np.isfinite(r["ttft"])
        data += _residual_band(scn, r["throughput"][stable], r["ttft"][stable], "ttft", 1e3)
        data.append(_frontier_trace(f"{machine_label(scn)} (current)", r, CURRENT, "solid", 2.8))
        _regimes(layout, scn, r, max(float(np.max(t["x"])) for t in data))
    if notes:
        _note_above(layout, data, "<br>".join(notes))
    _x_scale_toggle(layout)
    if r is not None:
        log_x_if_squeezed(layout, data[-1:], data)
    return {"data": data, "layout": layout}


SQUEEZED = 0.1  # of a linear x axis: a curve narrower than this reads as a stroke against the y axis


def _x_max(traces: list) -> float:
    top = 0.0
    for t in traces:
        x = t.get("x")
        if x is None or len(x) == 0:
            continue
        try:  # a list's max in C; an array, or a list with gaps (None), through numpy
            high = float(max(x) if isinstance(x, list) else np.nanmax(x))
        except (TypeError, ValueError):
            try:
                numbers = np.asarray(x, dtype=float)
            except (TypeError, ValueError):  # not numbers: a category axis
                continue
            if not np.isfinite(numbers).any():  # a legend entry's one gap (x = [None])
                continue
            high = float(np.nanmax(numbers))
        top = max(top, high) if np.isfinite(high) else top
    return top


def log_x_if_squeezed(layout: dict, ours: list, every: list) -> None:
    """Put a linear x axis on log where the traces `ours` would take under SQUEEZED of it as the traces `every`
    span it: a small machine beside the presets (Figure 5) or beside a far larger pinned A drew its curve as a
    stroke against the y axis. A figure with the scale toggle opens as if its log button had been pressed; a
    fixed axis (the explorer's, which the animation keeps still) gets a fixed log range around every trace's
    points. The axis, annotations and menu are replaced, not changed in place: a merge's layout shares them
    with the memo."""
    axis = layout.get("xaxis") or {}
    if axis.get("type", "linear") != "linear" or not 0 < _x_max(ours) < SQUEEZED * _x_max(every):
        return
    fixed = "range" in axis
    axis = {k: v for k, v in axis.items() if k != "rangemode"}
    if fixed:
        xs = np.concatenate([_positive(t.get("x")) for t in every])
        if not xs.size:
            return
        axis.update(range=_log_range(xs, pad=0.03), type="log", dtick=1)
    notes = [dict(note) for note in layout.get("annotations") or []]
    for key, value in _log_x({"annotations": notes}).items():
        if fixed and key.startswith("xaxis."):
            continue
        if key.startswith("annotations["):
            notes[int(key[len("annotations[") : key.index("]")])]["x"] = value
        else:
            axis[key.removeprefix("xaxis.")] = value
    layout.update(xaxis=axis, annotations=notes)
    if layout.get("updatemenus"):
        layout["updatemenus"] = [{**layout["updatemenus"][0], "active": 1}, *layout["updatemenus"][1:]]


def _positive(x) -> np.ndarray:
    """The positive numbers of a trace's x (a list with gaps, an array; none of a category axis's words)."""
    try:
        values = np.asarray(x, dtype=float).ravel()
    except (TypeError, ValueError):
        return np.empty(0)
    return values[np.isfinite(values) & (values > 0)]


def _log_range(values, pad: float = 0.06) -> list[float]:
    """A log axis's range (in decades) around positive `values`, padded by a share of its span."""
    lo, hi = np.log10(np.minimum.reduce(values)), np.log10(np.maximum.reduce(values))
    margin = pad * max(hi - lo, 0.5)
    return [float(lo - margin), float(hi + margin)]


@_json_ready
def explorer(scn: Scenario, batch: int = DEFAULT_BATCH) -> dict:
    """Operating-point explorer: the frontier, where it turns compute-bound and its unstable stretch ρ > 0.85
    marked, and a dot at the chosen batch.

    customdata carries [B, ITL ms, ρ] for every sample so the browser can move the dot and the readouts
    without asking the server. The axes' ranges are fixed from the whole frontier: the animation moves the dot
    from end to end, and autorange would rescale the axes (and show or hide the 0 tick) with every frame.
    """
    layout = _layout("Output throughput (tok/s)", "Time to first token (ms)", ylog=True)
    # Every B up to 64 plus the chosen one, so the dot sits on exact engine values.
    r = frontier(scn, EXPLORER_POINTS, int(batch))
    if r is None:
        _note(layout, f"No frontier: {no_curve_reason(scn)}")
        return {"data": [], "layout": layout}
    # The readouts print these samples, so they keep more digits than a curve needs: rows [B, ITL ms, ρ].
    custom = np.empty((3, r["batch"].size))
    custom[0], custom[1], custom[2] = r["batch"], 1e3 * r["itl"], r["rho"]
    custom[1:] = _rounded(custom[1:], READOUT_DIGITS)
    custom = custom.T.tolist()
    ttft_ms = 1e3 * r["ttft"]
    line = _line(
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
    layout["xaxis"].update(range=[0.0, 1.04 * float(np.maximum.reduce(r["throughput"]))], autorange=False)
    layout["yaxis"].update(range=_log_range(ttft_ms), autorange=False)
    _explorer_marks(layout, scn, r, ttft_ms)
    band_label_clear(layout, [line])
    layout["showlegend"] = False
    return {"data": [line, dot], "layout": layout}


def compute_bend(scn: Scenario, batches) -> float:
    """The batch size from which the step's arithmetic outlasts its HBM read (inf if never within `batches`):
    the article's B_c in closed form, or where the calibrated step's two times cross (`Scenario.resource_times`,
    the split Figure 10 colours by), interpolated between the sampled `batches`."""
    if scn.mode != "calibrated":
        return float(E.compute_bound_batch(scn.ctx, scn.model, scn.b_w, scn.kappa, scn.bw, scn.compute))
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


LABEL_SPAN = 0.35  # of the explorer's throughput axis: the width "ρ > 0.85: unstable" takes on a phone
BEND_LABEL = "bend"  # the `name` of the explorer's compute-bound label, which compare.merge may turn


def bend_label_place(x_share: float, y_share: float) -> dict:
    """Where the compute-bound label goes from its mark, at `x_share` and `y_share` of the explorer's axes. The
    frontier rises to the right, so above and left of the mark, and below and right of it, are clear. Up and to
    the left; within LABEL_SPAN of the y axis (whose title the words covered at B = 15) up and to the right,
    higher, since the frontier rises under the words; there, in the top 40 % (where up ran off a short plot),
    down and to the right."""
    if x_share > LABEL_SPAN:
        return {"ax": -30, "ay": -42, "xanchor": "auto", "yanchor": "auto"}
    if y_share < 0.6:
        return {"ax": 20, "ay": -70, "xanchor": "left", "yanchor": "auto"}
    return {"ax": 20, "ay": 36, "xanchor": "left", "yanchor": "top"}


BAND_LABEL = "unstable"  # the `name` of the explorer's "ρ > 0.85" label, which compare.merge may move
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
        _band(layout, x0, layout["xaxis"]["range"][1], QUEUE_BAND, "ρ > 0.85: unstable")
        # Left of the band where no curve runs (halfway up, the calibrated curve ran through the words). Throughput
        # and TTFT rise together, so nothing lies above and left of where the frontier enters the band: there,
        # unless that is near the top, where the tool bar and the compute-bound label may be; then at the foot if
        # the frontier stays clear of it over the label's width (about a third of the axis, on a phone), else
        # above all the same while there is room.
        low, high = layout["yaxis"]["range"]
        height = (np.log10(ttft_ms) - low) / (high - low)
        entry = float(np.interp(b_unstable, r["batch"], height))
        foot_clear = np.minimum.reduce(height[r["throughput"] >= x0 - LABEL_SPAN * layout["xaxis"]["range"][1]]) > 0.12
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
                "x": x,
                "y": _at(layout, "yaxis", y),
                "xref": "x",
                "yref": "y",
                "showarrow": True,
                "arrowhead": 2,
                "arrowwidth": 1.2,
                "arrowcolor": P.REGIME["compute"],  # the mark of the compute limit, as prefill is on Figure 3
                "name": BEND_LABEL,
                **bend_label_place(*axis_shares(layout, x, _at(layout, "yaxis", y))),
                "font": {"size": 11, "color": P.TEXT["compute"]},
                "bgcolor": "rgba(255,255,255,0.85)",
            }
        )


@_json_ready
def quantization(scn: Scenario, batch: int = DEFAULT_BATCH) -> dict:
    """Quantization: the current frontier beside FP16+FP16 and FP8+FP8 on the same hardware; a reference whose
    frontier runs on the current one (where communication, not the bytes read, sets the step) drawn as markers."""
    layout = _layout("Output throughput (tok/s)", "Time to first token (ms)", ylog=True)
    layout["xaxis"]["rangemode"] = "tozero"  # from 0, as Figures 4, 5, 6 and 9
    refs, notes = [], []
    for ((w, kv), colour), ref in zip(_quant_refs(scn).items(), quant_refs(scn), strict=True):
        name = f"{w.upper()} weights + {kv.upper()} KV"
        r = frontier(ref)
        if r is None:
            notes.append(f"{name}: {no_curve_reason(ref)}")
        else:
            refs.append(_frontier_trace(name, r, colour, "dash", 1.8))
    r = frontier(scn)
    p = scn.params
    name = f"{machine_label(scn)} (current): {p['wdtype'].upper()} weights + {p['kvdtype'].upper()} KV"
    if r is None:
        notes.insert(0, f"{name}: {no_curve_reason(scn)}")
    data = _apart(refs, None if r is None else _frontier_trace(name, r, CURRENT, "solid", 2.8), False, True)
    if notes:
        _note_above(layout, data, "<br>".join(notes))
    layout["showlegend"] = True  # the formats are in the names: plotly would hide a lone curve's legend entry
    return {"data": data, "layout": layout}


# Two curves closer than this (a share of an axis's span: about 4 px on a phone's plot) read as one line there.
# Where that is so over two fifths of a reference's length (measured across plus up), it is drawn as markers: a
# line hidden that far shows only as a sliver where it parts (TP 4 beside TP 8 over NVLink, 0.49 at defaults).
COINCIDE_TOL = 0.0125
COINCIDE_SHARE = 0.4
ON_CURVE_MARKERS = 12


_GRID = np.linspace(0.0, 1.0, 65)  # where _shares reads every curve, across the plot and up it


def _shares(curves: list[tuple], xlog: bool, ylog: bool) -> tuple[np.ndarray, list[tuple]]:
    """share[i, j]: how much of curve i's length on the plot lies within COINCIDE_TOL of curve j; and each
    curve's (x, y) in the plot's unit square (the axes spanning every curve, as autorange does).

    Every curve compared here rises in both x and y, so each is read off a common grid twice, as y at each x and
    as x at each y; a stretch is near where the vertical gap (flat stretches) or the horizontal one (steep ones,
    Figure 9's wall) is under the tolerance. This runs on every redraw of these figures, so all curves go through
    each numpy call together: side by side, curve k shifted by 2k, in one interpolation per direction."""
    n = len(curves)
    owner = np.repeat(np.arange(n), [len(x) for x, _ in curves])
    axes = [np.concatenate([c[k] for c in curves], dtype=float) for k in (0, 1)]
    with np.errstate(divide="ignore", invalid="ignore"):
        axes = [np.log10(v) if log else v for v, log in zip(axes, (xlog, ylog), strict=True)]
        ok = np.isfinite(axes[0] + axes[1])
        if not ok.all():
            axes, owner = [v[ok] for v in axes], owner[ok]
        if not owner.size:
            return np.zeros((n, n)), [(owner, owner)] * n
    # The ufuncs themselves, not the array methods that wrap them: each call here counts.
    low = [np.minimum.reduce(v) for v in axes]
    axes = [(v - lo) / ((np.maximum.reduce(v) - lo) or 1.0) for v, lo in zip(axes, low, strict=True)]
    starts = np.searchsorted(owner, np.arange(n + 1))  # curve i is [starts[i], starts[i + 1])
    first, last = np.minimum(starts[:-1], owner.size - 1), starts[1:] - 1
    drawn = (last > first)[:, None]  # curves of two points or more
    at = _grid_at(n)
    near, length = 0, 0
    for k in (0, 1):  # y read at each x, then x at each y
        v = axes[k]
        inside = (_GRID >= v[first][:, None]) & (_GRID <= v[last][:, None]) & drawn
        read = np.where(inside, np.interp(at, v + 2.0 * owner, axes[1 - k]).reshape(n, -1), np.nan)
        near = near + np.add.reduce(np.abs(read[:, None] - read[None]) < COINCIDE_TOL, axis=2)
        length = length + np.add.reduce(inside, axis=1)  # in grid steps, across plus up (read is finite there)
    bounds = starts.tolist()  # slices, not np.split: its checks cost more than the cut
    pieces = list(zip(bounds[:-1], bounds[1:], strict=True))
    return near / np.maximum(length, 1)[:, None], [(axes[0][a:b], axes[1][a:b]) for a, b in pieces]


@functools.lru_cache(maxsize=8)
def _grid_at(n: int) -> np.ndarray:
    """_GRID once for each of n curves, curve k's shifted by 2k as _shares lays the curves side by side."""
    at = (_GRID + 2.0 * np.arange(n)[:, None]).ravel()
    at.setflags(write=False)
    return at


def _arc_length(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The distance along a curve (of two points or more) from its start to each point."""
    s = np.zeros(len(x))
    np.add.accumulate(np.hypot(x[1:] - x[:-1], y[1:] - y[:-1]), out=s[1:])  # np.cumsum of np.diff, unwrapped
    return s


ON_CURVE_SYMBOLS = ("diamond", "square", "triangle-up", "circle")


def short_name(trace: dict) -> str:
    """A trace's name for a crowded legend (a phone's, a small frame's): its `meta.short`, else its name."""
    return (trace.get("meta") or {}).get("short") or trace["name"]


def _on_curve(trace: dict, points: tuple, said: tuple[str, str], k: int = 0, of: int = 1) -> dict:
    """A reference that would hide under another curve, drawn instead as markers along its own path (evenly
    spaced on the plot) and named with what it coincides with, so that every legend entry shows; `said` is
    that in full and for a crowded legend. The k-th of `of` references on the same curve takes its own symbol
    and sits between the others' markers."""
    s = _arc_length(*points)
    spacing = s[-1] / (ON_CURVE_MARKERS - 1)
    at = (np.arange(ON_CURVE_MARKERS) + k / of) * spacing
    # Its last point too: where a reference ends (the ideal workload's wall) is part of what it says.
    # Sorted already (at rises, and the last index is the largest), so only repeats go, as np.unique would.
    keep = np.concatenate((np.searchsorted(s, at[at <= s[-1]]), [len(s) - 1]))
    keep = keep[np.concatenate((keep[1:] != keep[:-1], [True]))]
    name = f"{trace['name']} {said[0]}"
    out = {key: v for key, v in trace.items() if key != "line"} | {
        "name": name,
        "meta": {**(trace.get("meta") or {}), "short": f"{short_name(trace)} {said[1]}"},
        "mode": "markers",
        "x": trace["x"][keep],
        "y": trace["y"][keep],
        "marker": {
            "symbol": ON_CURVE_SYMBOLS[k % len(ON_CURVE_SYMBOLS)],
            "size": 10,
            "color": trace["line"]["color"],
            "line": {"color": "#ffffff", "width": 1},  # a rim sets it off the line it sits on
        },
        "hovertemplate": trace["hovertemplate"].rsplit("<extra>", 1)[0] + f"<extra>{name}</extra>",
    }
    if "customdata" in trace:
        out["customdata"] = [trace["customdata"][i] for i in keep]
    return out


def _apart(refs: list[dict], current: dict | None, xlog: bool, ylog: bool) -> list[dict]:
    """The reference traces, then the current one, with every reference that would hide under the current
    line or an earlier reference's turned into markers on it ("= current settings" where it is the same curve,
    "≈ …" where it only runs within a few pixels of it). The current line stays last: the page and tests read
    the current settings there."""
    traces = [*refs, *([current] if current else [])]
    if len(traces) < 2:
        return traces
    share, pts = _shares([(t["x"], t["y"]) for t in traces], xlog, ylog)
    lines = [len(refs)] if current else []  # the curves drawn as lines so far, by index into traces
    hosts = []
    for i in range(len(refs)):
        host = next((j for j in lines if share[i, j] >= COINCIDE_SHARE), None)
        hosts.append(host)
        if host is None:
            lines.append(i)
    out = []
    for i, (t, host) in enumerate(zip(refs, hosts, strict=True)):
        if host is None:
            out.append(t)
            continue
        same = "= " if np.array_equal(t["y"], traces[host]["y"]) else "≈ "
        current_host = host == len(refs)
        said = same + ("current settings" if current_host else traces[host]["name"])
        said_short = same + ("current" if current_host else short_name(traces[host]))
        out.append(_on_curve(t, pts[i], (said, said_short), hosts[:i].count(host), hosts.count(host)))
    return out + ([current] if current else [])


def _comm_configs(scn: Scenario) -> list[SimpleNamespace]:
    """Figure 8's reference configurations, as what comm_times reads of a scenario: the model (this one, as
    comm_times requires), the weights' bytes, TP, PP and the interconnect. Not whole scenarios: checking and
    resolving four of them took a tenth of the figure each redraw."""
    return [
        SimpleNamespace(
            model=scn.model,
            b_w=scn.b_w,
            tp=c["tp"],
            pp=c["pp"],
            ic_bw=INTERCONNECTS[c["ic"]].bw,
            ic_alpha=INTERCONNECTS[c["ic"]].alpha,
            pp_bw=INTERCONNECTS[c["ic"]].bw,  # the article's references: one link for both
            pp_alpha=INTERCONNECTS[c["ic"]].alpha,
        )
        for _, c, _ in COMM_REFS.values()
    ]


def _communication_reads(scn: Scenario) -> tuple:
    """What Figure 8 reads of a scenario (its memo key): the collectives' inputs, the batch axis's end (from
    B_max, so the context, HBM and utilisation count only through it), the fit and the names in its legend.
    Bandwidth, compute and the workload's other controls do not enter: a drag of them keeps the figure."""
    p = scn.params
    fit = scn.unfit_reason() if scn.headroom <= 0 else None
    labels = (machine_label(scn), p["tp"], p["pp"], p["ic"])
    links = scn.ic_bw, scn.ic_alpha, scn.pp_bw, scn.pp_alpha
    return scn.model, scn.b_w, scn.tp, scn.pp, *links, fit, max(1024, scn.b_max), labels


# Shorter words for a crowded legend (a phone's, a small frame's): the usual abbreviation, the caption's symbol.
CROWDED_WORDS = {"InfiniBand": "IB", "utilisation ": "η "}


def _crowded(label: str) -> dict:
    """A trace's `meta.short` (`short_name`): `label` in `CROWDED_WORDS`' shorter words."""
    for word, short in CROWDED_WORDS.items():
        label = label.replace(word, short)
    return {"meta": {"short": label}}


@memoised(_communication_reads)
@_json_ready
def communication(scn: Scenario, batch: int = DEFAULT_BATCH) -> dict:
    """Collective overhead t_AR + t_PP vs batch for four configurations and the current one; a configuration
    whose curve coincides with another's is drawn as markers on it."""
    # Log-log: NVLink's flat launch-latency floor and InfiniBand's linear growth both stay readable.
    if scn.headroom <= 0:
        return _does_not_fit(scn, "Batch size B (concurrent requests)", "Communication per step (ms)")
    layout = _layout(
        "Batch size B (concurrent requests)", "Communication per step (ms)", xlog=True, ylog=True, xcount=True
    )
    B = log_batches(max(1024, scn.b_max), CURVE_POINTS)
    hover = "B = %{x:,.0f}<br>t_comm = %{y:,.3~r} ms"
    comms = 1e3 * comm_times([*_comm_configs(scn), scn], B)
    # In a crowded legend the current curve drops the machine's name (the page gives it): with their full names,
    # a 480×360 frame gave the legend a row each, over a 70 px plot.
    refs = [
        _line(name, B, comm, colour, dash, 1.8, hover) | _crowded(name)
        for (name, (colour, _, dash)), comm in zip(COMM_REFS.items(), comms[:-1], strict=True)
    ]
    p = scn.params
    setting = f"TP {p['tp']}, PP {p['pp']}, {link(p).label}"
    name = f"{machine_label(scn)} (current): {setting}"
    current = _line(name, B, comms[-1], CURRENT, "solid", 2.8, hover) | _crowded(f"Current: {setting}")
    data = _apart(refs, current if comms[-1].any() else None, True, True)
    if not comms[-1].any():
        data.append(current)
        # Short, on one line in a 480 px frame: the legend names the machine.
        _note_above(layout, data, f"No communication at TP {p['tp']}, PP {p['pp']} (current)")
    return {"data": data, "layout": layout}


@_json_ready
def workload_reality(scn: Scenario, batch: int = DEFAULT_BATCH) -> dict:
    """Workload reality check: ideal (CV 0, η 100 %), current, realistic (CV 1, η 87 %); the gap between ideal
    and realistic shaded, and a reference that coincides with the current curve drawn as markers on it."""
    layout = _layout("Output throughput (tok/s)", "Time to first token (ms)", ylog=True)
    layout["xaxis"]["rangemode"] = "tozero"  # from 0, as Figures 4 to 7
    data, notes, current = [], [], f"{machine_label(scn)} (current)"
    ideal, realistic = (frontier(ref) for ref in workload_refs(scn))
    if ideal is not None and realistic is not None:
        # The gap between ideal and realistic is the TTFT a real workload costs on this hardware.
        gap = _line(
            # Short enough to end before the tool bar a phone shows beside the legend's first row.
            "Ideal-to-realistic gap",
            np.concatenate([ideal["throughput"], realistic["throughput"][::-1]]),
            1e3 * np.concatenate([ideal["ttft"], realistic["ttft"][::-1]]),
            "rgba(0,0,0,0)",
            hover="T = %{x:,.0f} tok/s<br>TTFT = %{y:,.3~r} ms",
            fill="toself",
            # The realistic curve's tint; at 0.1 it all but vanished on the dark card.
            fillcolor=P.tint(WORKLOAD_REFS["realistic"][0], 0.16),
            hoverinfo="skip",
        )
        data.append(gap)
    refs = []
    # The calibrated TTFT does not read the CV (scenario.ARTICLE_ONLY): its labels name the utilisation alone.
    read_cv = scn.mode == "article"
    for (name, (colour, cv, util)), ref in zip(WORKLOAD_REFS.items(), workload_refs(scn), strict=True):
        r = frontier(ref)
        label = f"{name.capitalize()} ({f'CV {cv:g}, ' * read_cv}utilisation {util:g} %)"
        if r is None:
            notes.append(f"{label}: {no_curve_reason(ref)}")
        else:
            refs.append(_frontier_trace(label, r, colour, "dash", 1.8) | _crowded(label))
    r = frontier(scn)
    if r is None:
        notes.insert(0, f"{current}: {no_curve_reason(scn)}")
        line = None
    else:
        setting = f"{f'CV {scn.cv:g}, ' * read_cv}utilisation {100 * scn.eta:g} %"
        line = _frontier_trace(f"{current}: {setting}", r, CURRENT, "solid", 2.8) | _crowded(f"Current: {setting}")
    data += _apart(refs, line, False, True)
    if notes:
        _note_above(layout, data, "<br>".join(notes))
    return {"data": data, "layout": layout}
