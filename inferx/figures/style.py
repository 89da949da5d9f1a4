"""Figure builders: pure functions from a Scenario, through the engine, to plotly dicts.

Each builder, `name(scn, batch)`, returns `{"data": [...], "layout": {...}}` as plain lists and dicts
(`inferx.figure_registry` lists them with their titles and what they depend on):
validated `go.Figure` objects cost milliseconds each, and the dashboard redraws
ten figures per slider step. Colours come from `inferx.palette`: a limit's colour marks only that limit, and a
reference curve keeps its series colour on every figure.
"""

from __future__ import annotations

import functools
import re
import threading
from collections import OrderedDict

import numpy as np
import orjson

from inferx import palette as P
from inferx.analysis.regimes import RHO_BAND, RHO_QUEUE
from inferx.scenario.controls import BATCH
from inferx.scenario.evaluation import Scenario

CURRENT = P.CURRENT
AMBER = P.REGIME["queue"]  # the explorer's dot before its binding limit colours it (beyond.explorer)
# Reference curves are values of an ordered parameter: they take the grey ramp (inferx.palette.RAMP), light for the
# smallest value, never a hue (a hue is a GPU's or a limit's); each is dashed and named.
_R3 = P.ramp(3)
CONTEXT_REFS = dict(zip((1024, 8192, 32768), _R3, strict=True))  # S, shortest lightest
_BYTES = P.ramp(4)  # the dtype pairs by the bytes a step reads: FP4+FP8, FP8+FP8, FP8+FP16, FP16+FP16
QUANT_REFS = {("fp16", "fp16"): _BYTES[3], ("fp8", "fp8"): _BYTES[1]}  # the article's two references
# Stand-ins, in order, for a reference that equals the current settings (it would hide under the current line).
QUANT_SPARES = {("fp8", "fp16"): _BYTES[2], ("fp4", "fp8"): _BYTES[0]}
WORKLOAD_REFS = {"ideal": (_R3[0], 0.0, 100.0), "realistic": (_R3[2], 1.0, 87.0)}  # by the CV
COMM_REFS = {  # by the GPUs the collectives span: TP 4, TP 8, TP 4 × PP 4; InfiniBand dashed
    "TP 4, NVLink 4": (_R3[0], dict(tp=4, pp=1, ic="nvlink"), "solid"),
    "TP 8, NVLink 4": (_R3[1], dict(tp=8, pp=1, ic="nvlink"), "solid"),
    "TP 4, InfiniBand": (_R3[0], dict(tp=4, pp=1, ic="infiniband"), "dash"),
    "TP 4 + PP 4, InfiniBand": (_R3[2], dict(tp=4, pp=4, ic="infiniband"), "dash"),
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
QUEUE_BAND = P.tint(P.REGIME["queue"], 0.16)  # the ρ band (analysis.regimes.RHO_BAND): where the queue binds
RHO_PRACTICAL = RHO_QUEUE  # one constant: analysis.regimes
RHO_BAND_LABEL = RHO_BAND
READOUT_DIGITS = 6
DEFAULT_BATCH = BATCH.default  # the explorer's batch when none is given
# Plotly's config for every graph. Its tool bar shows on hover; where the device has no hover (touch screens,
# headless Chromium) plotly keeps it shown. No "Share chart" button: plotly.js 3 offers by default to upload the
# figure to Plotly Cloud, which a page embedded in an internal wiki must not suggest.
GRAPH_CONFIG = {"displaylogo": False, "responsive": True, "showSendToCloud": False}


def round_sig(values, digits: int = 4) -> list:
    """Round to `digits` significant figures for a compact JSON payload."""
    return rounded(np.asarray(values, dtype=float), digits).tolist()


def rounded(a: np.ndarray, digits: int = 4) -> np.ndarray:
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
    ("x"/"y": the traces' array values already joined, as `json_ready` has them) spares joining them again;
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
            if spec.get("autorange") is False:  # a fixed range shows only itself: a curve off it (Figure 14's
                parts = []  # 100× speed-up) takes no ticks
            parts.append(10.0 ** np.asarray(spec["range"], dtype=float))
        if "autorangeoptions" in spec:  # a note's headroom (`add_note_above`)
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


def json_ready(builder):
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


def plot_layout(title_x: str, title_y: str, xlog=False, ylog=False, xcount=False, **extra) -> dict:
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


def line_trace(name, x, y, colour, dash="solid", width=2.0, hover="", custom=None, digits=None, **extra) -> dict:
    """A line trace. Its x and y stay arrays, for `json_ready` to round with the figure's other traces,
    unless `digits` asks for them rounded now."""
    # No copy: json_ready rounds them into lists.
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


def add_note(layout: dict, text: str, y: float = 0.5) -> None:
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


NOTE_CLEARANCE = 0.6  # of a log y axis the curves keep under a note at its top left: a small frame's three lines


def add_note_above(layout: dict, data: list, text: str) -> None:
    """A note at the top left of a frontier's log-y plot, where no curve runs (a frontier rises to its wall at
    the right): it hangs from the plot's top edge, and plotly's autorange reaches a little higher than the
    curves, which fill the lower NOTE_CLEARANCE of the axis. Only that little: the axis follows the data drawn
    (a note once stretched Figure 7's TTFT axis to 10⁶ ms over curves under 2,300 ms: now 10⁵, room for a
    480×360 frame's three lines of note). Autorange, not a fixed range, so a pinned A's curves still widen the
    axis."""
    ys = [np.asarray(t["y"], dtype=float) for t in data if t.get("y") is not None]
    y = np.concatenate(ys) if ys else np.zeros(0)
    y = y[(y > 0) & np.isfinite(y)]
    if not y.size:
        add_note(layout, text, y=0.9)
        return
    add_note(layout, text, y=1.0)
    # Under the tool bar, which straddles the top edge; left-aligned from the y axis, away from the walls.
    layout["annotations"][-1].update(yanchor="top", yshift=-12, x=0.01, xanchor="left", align="left")
    lo, hi = np.log10(y.min()), np.log10(y.max())
    keep_in_lower_share(layout, lo, lo + max(hi - lo, 0.5), NOTE_CLEARANCE)


def keep_in_lower_share(layout: dict, lo: float, hi: float, share: float) -> None:
    """Let plotly's log-y autorange reach high enough that [10^lo, 10^hi] fills only the lower `share` of the
    axis, leaving room above for text autorange does not see (a note, a point's label)."""
    layout["yaxis"]["autorangeoptions"] = {"include": [float(10.0 ** (lo + (hi - lo) / share))]}


def does_not_fit(scn: Scenario, title_x: str, title_y: str) -> dict:
    """Empty axes with the sentence saying why the model does not fit the machine."""
    layout = plot_layout(title_x, title_y)
    add_note(layout, f"{scn.model.name} does not fit: {scn.unfit_reason()}")
    return {"data": [], "layout": layout}


def annotation_at(layout: dict, axis: str, value: float) -> float:
    """An annotation's position on `axis`: plotly places annotations on a log axis by log10 of the value
    (shapes take the value itself), so a raw B* = 247 would stretch the axis to 10^247."""
    return float(np.log10(value)) if layout[axis].get("type") == "log" else value


def x_extent(data: list) -> list[float] | None:
    """[lowest, highest] x of the traces' numbers, where a level line drawn as a trace spans; None if none."""
    xs = [x for t in data if isinstance(t.get("x"), list) for x in t["x"] if isinstance(x, (int, float))]
    return [min(xs), max(xs)] if xs else None


def level_lines(layout: dict) -> list[tuple[str, dict]]:
    """A figure's level lines (`add_hline`: an ITL floor, a throughput ceiling, a latency target), each as its
    label on one line ("level" where none is found) and its shape."""
    notes = layout.get("annotations") or []
    found = []
    for shape in layout.get("shapes") or []:
        if not (shape.get("type") == "line" and shape.get("xref") == "paper" and shape.get("y0") == shape.get("y1")):
            continue
        at = annotation_at(layout, "yaxis", shape["y0"]) if "yaxis" in layout else shape["y0"]
        note = next((n for n in notes if n.get("xref") == "paper" and n.get("y") == at), {})
        found.append((re.sub(r"\s*<br>\s*", " ", str(note.get("text", "level"))), shape))
    return found


def add_vline(layout, x, colour, label) -> None:
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
            "x": annotation_at(layout, "xaxis", x),
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


def add_hline(layout, y, colour, label, xanchor="right", lift: int = 0, below: bool = False, short: str = "") -> None:
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
            "y": annotation_at(layout, "yaxis", y),
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


def add_band(layout, x0, x1, colour, label="", xref="x", label_drop: int = 0) -> None:
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
                "x": annotation_at(layout, "xaxis", x0) if xref == "x" else x0,
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
