"""Comparing against a pinned scenario A: its figures merged into the current ones, dashed and muted.

The merge works on any figure dict, so no builder knows about A. A's traces go after the current ones (the
explorer's readouts and animation read traces 0 and 1), each drawn dashed at half opacity under the name
"A: …", all in one legend group, so one click on the legend hides A; the legend's title names A. A trace of A
that coincides with a current one (a reference curve the change did not move) keeps its place but is not drawn:
the current one shows it, and a faded copy over it only changed its colour.

A draws its main curve only (`main_of_a`): where a figure draws reference curves beside the current settings'
(other contexts, presets, formats, parallelisms, workloads), the current one is named "… (current)", and A brings
that one alone, without its level lines; pieces of one curve (Figure 10's runs by binding limit, `meta.part`)
come joined as one line; a backdrop (Figure 10's band where the targets are met, `meta.backdrop`) stays the
current figure's, and a curve a builder marks `meta.reference` (Figure 1's bound without communication, Figure
3's parts of TTFT, Figures 13 and 14's other acceptance rates and verify model) is left out.
"""

from __future__ import annotations

import math
import re

import numpy as np

from inferx.figures.article import LEVEL_ROOM, curve_meets_box
from inferx.figures.curves import log_x_if_squeezed
from inferx.figures.explorer import (
    BAND_LABEL,
    BEND_LABEL,
    LABEL_SPAN,
    axis_shares,
    band_label_clear,
    band_label_y,
    bend_label_place,
)
from inferx.figures.studies import LABEL_BOX, LABEL_ROOM, PEAK_LABEL, labels_apart
from inferx.figures.style import decade_ticks, level_lines, x_extent
from inferx.physics.hardware import GPUS
from inferx.scenario.controls import ARTICLE_ONLY, CALIBRATED_ONLY, PARAMS
from inferx.scenario.evaluation import Scenario
from inferx.scenario.machines import default_link, default_params, machine_tp, machine_values
from inferx.text import counted

PINNED_GROUP = "pinned-A"
PINNED_OPACITY = 0.5
# A's line style for each style of the current figure's line: solid becomes dashed, and a dashed reference
# curve changes pattern so it stays told apart from the current figure's own.
PINNED_DASH = {"solid": "dash", "dash": "dot", "dot": "dashdot", "dashdot": "dot", "longdash": "dot"}


def compact_params(values: dict) -> dict:
    """The preset and every control that differs from that preset's value: what the `a=` parameter carries
    (the same rule as the address of the current state)."""
    base = default_params(values["preset"])
    return {"preset": values["preset"]} | {
        name: v for name, v in values.items() if name != "preset" and v is not None and v != base.get(name)
    }


def machine_label(scn: Scenario) -> str:
    """A scenario's machine in a few characters, e.g. "8×H200"."""
    p = scn.params
    return f"{p['gpus']}×{GPUS[p['gpu']].name}"


def _own_settings(scn: Scenario, among=None, machine_said: bool = True) -> dict:
    """The controls that set a scenario apart from its preset (or those named `among`, at the scenario's values),
    its machine (preset, GPU, count) aside, and while `machine_said`, bandwidth, compute and HBM where they are
    that machine's (the label's "5×B300" says them)."""
    p = scn.params
    # What the machine gives: its bandwidth, compute and HBM, and the TP and link a GPU and count take.
    machine = machine_values(p["gpu"], p["gpus"], p["wdtype"]) | {
        "tp": machine_tp(p["gpus"]),
        "ic": default_link(p["gpu"]),
    }
    # A control the scenario's model does not read: naming it would say A differs where it does not.
    unread = ("preset", "gpu", "gpus", *(CALIBRATED_ONLY if scn.mode == "article" else ARTICLE_ONLY))
    values = compact_params(p) if among is None else {k: p[k] for k in among}
    return {
        k: v
        for k, v in values.items()
        if k not in unread and v is not None and not (machine_said and k in machine and _same(v, machine[k]))
    }  # 5e-3: a slider's value is the machine's rounded to 3 significant figures


def _same(value, machine) -> bool:
    if isinstance(value, str) or isinstance(machine, str):
        return value == machine
    return math.isclose(value, machine, rel_tol=5e-3)


def _setting(name: str, value) -> str:
    """One control as A's labels name it, in its unit: "ctx 8,192 tokens", "bw 40 TB/s", "ic scale-up"; a model
    by its name ("model Llama-3.3-70B"), not its key, which for a config.json's model is a long code."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f"{name} {counted(f'{value:,g}', PARAMS[name].unit)}"
    return f"{name} {PARAMS[name].label_of(value) if name == 'model' else value}"


def _described(scn: Scenario, settings: dict) -> str:
    shown = ", ".join(_setting(k, v) for k, v in settings.items())
    return f"{machine_label(scn)} · {shown}" if shown else machine_label(scn)


def describe(scn: Scenario) -> str:
    """A's machine and the controls that set it apart from its preset, e.g. "8×H200 · ctx 8192, tp 4"."""
    return _described(scn, _own_settings(scn))


LEGEND_SETTINGS = 3  # A's settings a legend names at most; the pin bar above the controls names them all


def legend_label(pinned: Scenario, current: Scenario) -> str:
    """A as the figures' legends name it: its machine, and its values of the settings where the two part, its
    own ("8×H200 SXM · ctx 4,096 tokens" beside a current 8×H200 at 8,192) and those the current one moved from
    the preset A kept ("8×H200 SXM · ctx 1,024 tokens"): the machine alone said nothing. Bandwidth, compute and
    HBM are named where both labels name one machine, which then does not say them apart."""
    mine = current.params
    either = [k for k in PARAMS if k in _own_settings(pinned).keys() | _own_settings(current).keys()]
    one_machine = machine_label(pinned) == machine_label(current)
    differ = {k: v for k, v in _own_settings(pinned, either, not one_machine).items() if mine.get(k) != v}
    if pinned.mode != current.mode:  # first: it changes every number (the default mode is in no address)
        differ = {"mode": pinned.mode, **differ}
    if len(differ) <= LEGEND_SETTINGS:
        return _described(pinned, differ)
    return _described(pinned, dict(list(differ.items())[:LEGEND_SETTINGS])) + ", …"


CURRENT = " (current)"  # how a figure with reference curves names the current settings' own
JOINED_COLOUR = "#000000"  # pieces coloured by role (Figure 10's limits) joined: A's line has no role to show


def _references_drawn(data: list) -> bool:
    return any(CURRENT in str(t.get("name", "")) for t in data)


def _joined(pieces: list[dict], name: str) -> dict:
    """Pieces of one curve as one line: each piece starts where the one before it ended, so that point is kept
    once."""
    first = pieces[0]
    x, y, custom = list(first.get("x") or []), list(first.get("y") or []), list(first.get("customdata") or [])
    for piece in pieces[1:]:
        skip = 1 if x and list(piece.get("x") or [])[:1] == x[-1:] else 0
        x += list(piece.get("x") or [])[skip:]
        y += list(piece.get("y") or [])[skip:]
        custom += list(piece.get("customdata") or [])[skip:]
    line = {**(first.get("line") or {}), "color": JOINED_COLOUR}
    joined = {k: v for k, v in first.items() if k not in ("legendgroup", "showlegend", "meta")}
    return {**joined, "name": name, "x": x, "y": y, "line": line, "hovertemplate": (first.get("hovertemplate") or "")
            .split("<extra>")[0] + f"<extra>{name}</extra>", **({"customdata": custom} if custom else {})}  # fmt: skip


def main_of_a(data: list) -> list:
    """The traces of A's figure that a comparison draws: its main curve, not its reference curves (see above)."""
    if _references_drawn(data):
        return [t for t in data if CURRENT in str(t.get("name", ""))]
    kept, pieces = [], {}
    for t in data:
        meta = t.get("meta") if isinstance(t.get("meta"), dict) else {}
        if meta.get("backdrop") or meta.get("reference"):
            continue
        part = meta.get("part")
        if part is None:
            kept.append(t)
        elif part in pieces:
            pieces[part].append(t)
        else:
            pieces[part] = [t]
            kept.append(part)  # the joined curve takes its first piece's place
    return [_joined(pieces[t], t) if isinstance(t, str) else t for t in kept]


def _restyled(trace: dict, same: bool) -> dict:
    """One of A's traces as drawn beside the current figure (a new dict: A's figures are memoised); `same`:
    it coincides with a current trace, so it is not drawn."""
    # "A: 8×H200", not "A: 8×H200 (current)": A is the pinned state, the current one is the other.
    name = f"A: {trace.get('name', '')}".replace(" (current)", "")
    t = {**trace, "name": name, "opacity": PINNED_OPACITY, "legendgroup": PINNED_GROUP}
    if (trace.get("meta") or {}).get("short"):  # a crowded legend's name says "A:" too
        t["meta"] = {**trace["meta"], "short": f"A: {trace['meta']['short']}"}
    mode = t.get("mode", "lines")
    if "lines" in mode:
        line = dict(t.get("line") or {})
        line["dash"] = PINNED_DASH.get(line.get("dash") or "solid", "dash")
        t["line"] = line
    if "markers" in mode:
        marker = dict(t.get("marker") or {})
        symbol = marker.get("symbol", "circle")
        if isinstance(symbol, str) and not symbol.endswith("-open"):
            marker["symbol"] = f"{symbol}-open"
        t["marker"] = marker
    if "text" in mode:  # labels twice over are unreadable; A's points keep their hover
        t["mode"] = "+".join(m for m in mode.split("+") if m != "text") or "markers"
        t.pop("text", None)
    if same:
        t["visible"] = False
    return t


def _same_points(a: dict, b: dict) -> bool:
    return a.get("x") == b.get("x") and a.get("y") == b.get("y")


def _union_range(current: dict, pinned: dict) -> dict:
    """The current axis widened to take A's range, where both set one (else A's curve would be cut off)."""
    a, b = current.get("range"), pinned.get("range")
    both = isinstance(a, list) and isinstance(b, list) and len(a) == len(b) == 2
    if not both or current.get("type") != pinned.get("type"):
        return current
    return {**current, "range": [min(a[0], b[0]), max(a[1], b[1])]}


def _pinned_levels(layout: dict, pinned: dict, data: list) -> list[dict]:
    """A's level lines where the current figure has none of that colour at that height, as faded dotted traces
    across the traces' x extent, each named in the legend by its label ("A: ITL floor = 0.964 ms"). They are
    shapes in A's figure, which `merge` would drop (Figure 4 showed no floor for A's curve); as traces they
    take their label into the legend, where it meets no curve, and hide with the rest of A."""

    def key(shape: dict) -> tuple:  # a height and a colour: two contexts' ceilings may meet at one height
        return shape["y0"], (shape.get("line") or {}).get("color")

    ours = {key(shape) for _, shape in level_lines(layout)}
    levels = [(text, shape) for text, shape in level_lines(pinned) if key(shape) not in ours]
    span = x_extent(data)
    if not levels or span is None:
        return []
    return [
        {
            "type": "scatter",
            "mode": "lines",
            "name": f"A: {text}",
            "x": span,
            "y": [shape["y0"]] * 2,
            "line": {**(shape.get("line") or {}), "dash": "dot"},
            "opacity": PINNED_OPACITY,
            "legendgroup": PINNED_GROUP,
            "hovertemplate": f"A: {text}<extra></extra>",
        }  # fmt: skip
        for text, shape in levels
    ]


PHONE_CHAR = LABEL_SPAN / len("ρ > 0.85: queue-bound")  # a character's share of a phone's plot width


def _keep_labels_inside(layout: dict, data: list) -> None:
    """A label set to end at a mark on the x axis (xanchor right) falls off the plot's left edge once A has
    widened the axis and left the mark near that edge, or too near it for the label's width on a phone: such
    a label starts at its mark instead, where there is more room. The explorer's
    compute-bound label is placed again for the widened axes (`figures.bend_label_place`), and its "ρ > 0.85"
    label at a height clear of A's curves as well as the current ones (`figures.band_label_clear`)."""
    span = layout.get("xaxis", {}).get("range")
    if not (isinstance(span, list) and len(span) == 2 and span[1] > span[0]):
        return

    def kept(note: dict) -> dict:
        if note.get("name") == BEND_LABEL:
            return {**note, **bend_label_place(*axis_shares(layout, note["x"], note["y"]))}
        if note.get("xref") != "x" or note.get("xanchor") != "right" or note.get("showarrow"):
            return note
        left, right = note.get("x", span[0]) - span[0], span[1] - note.get("x", span[0])
        # Its width on a phone: Figure 12's "peak … req/s at C = …" ran off the left edge from a third along.
        # (The explorer's band label is placed again below, clear of the curves, wherever it starts.)
        chars = 0 if note.get("name") == BAND_LABEL else len(str(note.get("text", "")))
        width = PHONE_CHAR * chars * (span[1] - span[0])
        if left < 0.15 * (span[1] - span[0]) or (left < width and right > left):
            note = {**note, "xanchor": "left", "xshift": abs(note.get("xshift", 0))}
        return note

    layout["annotations"] = [kept(note) for note in layout.get("annotations") or []]
    band_label_clear(layout, data)


PHONE_PLOT = 150  # px: a phone's plot height, over which a lifted label's pointer is reckoned


def _level_label_box(note: dict, level: float, top: float) -> tuple[float, float, float, float]:
    """The box a level line's label takes on a phone: from and to (shares of the x axis), low and high (y, in
    the axis's units, which start at zero), for its text alone where it is lifted off the line."""
    lines = [re.sub(r"<[^>]+>", "", line) for line in str(note.get("text", "")).split("<br>")]
    width = min(1.0, PHONE_CHAR * max(len(line) for line in lines))
    start = note.get("x", 0)
    x_from, x_to = (start - width, start) if note.get("xanchor") == "right" else (start, start + width)
    height = LEVEL_ROOM * len(lines) * top
    if note.get("yanchor") == "top":
        return x_from, x_to, level - height, level - 3 / PHONE_PLOT * top
    # A lifted label's pointer crosses the curves under it by design: its text alone counts. On the line, a
    # line within 3 px of it (A's floor beside the current one) passes under the text.
    lift = -note.get("ay", 0) / PHONE_PLOT * top if note.get("showarrow") else 3 / PHONE_PLOT * top
    return x_from, x_to, level + lift, level + lift + height


def _level_labels_to_legend(layout: dict, data: list, added: list) -> list:
    """A level line's label (Figure 4's floor) is placed clear of the current curves; on the axes A widens, A's
    curves may run through it. Such a line then becomes a trace named in the legend, as A's own level lines
    are, and leaves the plot: moved within the plot, the label met A somewhere else on a phone. Linear y axes
    from zero; labels on a backing (Figure 13's plain ITL) stay where they are, A's curves pass behind them.
    Returns the current traces with those lines after them."""
    if layout.get("yaxis", {}).get("type", "linear") != "linear":
        return data
    ours = _drawn_lines(data)
    lines = ours + _drawn_lines(added)
    try:
        curves = [(np.asarray(t["x"], dtype=float), np.asarray(t["y"], dtype=float)) for t in lines]
    except (TypeError, ValueError):  # not numbers on both axes: no level line to place
        return data
    theirs = curves[len(ours) :]
    top = max((float(np.nanmax(y)) for _, y in curves if np.isfinite(y).any()), default=0.0)
    if not theirs or top <= 0:
        return data
    log_x = layout.get("xaxis", {}).get("type") == "log"
    notes, shapes, moved = list(layout.get("annotations") or []), list(layout.get("shapes") or []), []
    for text, shape in level_lines(layout):
        note = next((n for n in notes if n.get("xref") == "paper" and n.get("y") == shape["y0"]), None)
        if note is None or note.get("bgcolor"):
            continue
        x_from, x_to, low, high = _level_label_box(note, shape["y0"], top)
        if curve_meets_box(theirs, max(x_from, 0), min(x_to, 1), low, high, log_x, x_extent(lines)):
            notes.remove(note)
            shapes.remove(shape)
            moved.append(
                {
                    "type": "scatter",
                    "mode": "lines",
                    "name": text,
                    "x": x_extent(data + added),
                    "y": [shape["y0"]] * 2,
                    "line": shape.get("line") or {},
                    "hovertemplate": f"{text}<extra></extra>",
                    **({"meta": {"short": shape["name"]}} if shape.get("name") else {}),
                }  # fmt: skip
            )
    if moved:
        layout.update(annotations=notes, shapes=shapes)
        if "pinned" in (layout.get("meta") or {}):  # where A's traces start, for the browser
            layout["meta"]["pinned"]["first"] += len(moved)
    return data + moved


def _log_shares(values, low: float, high: float) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return (np.log10(np.asarray(values, dtype=float)) - low) / (high - low)


def _drawn_lines(traces: list) -> list:
    return [t for t in traces if "lines" in t.get("mode", "lines") and t.get("visible", True) is not False
            and t.get("x") and t.get("y")]  # fmt: skip


def _log_spans(layout: dict, traces: list) -> tuple | None:
    """Both axes' spans in decades, where both are log and x's range is set: y's is the traces' and what
    autorange is told to include (Figure 12)."""
    x_axis, y_axis = layout.get("xaxis", {}), layout.get("yaxis", {})
    span = x_axis.get("range")
    if x_axis.get("type") != "log" or y_axis.get("type") != "log" or not isinstance(span, list):
        return None
    include = (y_axis.get("autorangeoptions") or {}).get("include") or []
    tall = np.concatenate([np.asarray(t.get("y") or [], dtype=float) for t in traces] + [np.asarray(include, float)])
    tall = tall[np.isfinite(tall) & (tall > 0)]
    if not tall.size or tall.max() <= tall.min():
        return None
    return span, (math.log10(tall.min()), math.log10(tall.max()))


def _peak_label_clear(layout: dict, data: list, added: list) -> list:
    """Figure 12's peak label sits between the current TTFT and E2E curves, where A's curves may run: then it
    goes to the height clearest of every curve over the width it takes on a phone. Where no height is clear
    (A's steep climb to its own peak across the label's width) its words go to the legend, beside a swatch of
    the peak line, which stays on the plot. Returns the current traces, with that entry after them."""
    notes = layout.get("annotations") or []
    at = next((i for i, note in enumerate(notes) if note.get("name") == PEAK_LABEL), None)
    spans = _log_spans(layout, data + _drawn_lines(added)) if at is not None else None
    if spans is None:
        return data
    (x0, x1), (y0, y1) = spans
    note = notes[at]
    width = PHONE_CHAR * len(str(note.get("text", ""))) * (x1 - x0)
    # Clear of the curves' last samples, at the peak line, where the text is 4 px short of it
    left = note["x"] - width - 0.02 * (x1 - x0) if note.get("xanchor") == "right" else note["x"] + 0.02 * (x1 - x0)
    now = (note["y"] - y0) / (y1 - y0) - LABEL_ROOM / 2  # LABEL_ROOM: a label's height in a 360 px frame
    axes, x_from, x_to = {"yaxis": {"range": [y0, y1], "type": "log"}}, 10**left, 10 ** (left + width)
    ours = [_traced(t, (x0, x1), (y0, y1)) for t in _drawn_lines(data)]
    if band_label_y(axes, ours, x_from, x_to, now, height=LABEL_ROOM) != now:  # meets the current ones: not A's doing
        return data
    every = ours + [_traced(t, (x0, x1), (y0, y1)) for t in _drawn_lines(added)]
    avoid = _point_label_boxes(data, (x0, x1), (y0, y1))
    if band_label_y(axes, every, x_from, x_to, now, avoid, LABEL_ROOM) == now:  # clear where it is
        return data
    foot = band_label_y(axes, every, x_from, x_to, now, avoid, LABEL_ROOM, clear_only=True)
    if foot != now:
        notes[at] = {**note, "y": y0 + foot * (y1 - y0), "yanchor": "bottom"}
        return data
    # The peak line: the vertical one at the label's x (the note's x is in decades on the log axis).
    walls = [s for s in layout.get("shapes") or [] if s.get("xref") == "x" and s.get("x0") == s.get("x1")]
    line = next((s.get("line") for s in walls if s["x0"] > 0 and math.isclose(math.log10(s["x0"]), note["x"])), {})
    layout["annotations"] = notes[:at] + notes[at + 1 :]
    if "pinned" in (layout.get("meta") or {}):  # where A's traces start, for the browser
        layout["meta"]["pinned"]["first"] += 1
    # One gap, not no point: plotly leaves a trace without points out of the legend.
    entry = {"type": "scatter", "mode": "lines", "name": note.get("text", ""), "x": [None], "y": [None],
             "line": line or {}, "hoverinfo": "skip", "meta": {"statement": True}}  # fmt: skip
    return data + [entry]


def _traced(trace: dict, span: tuple, y_span: tuple, step: float = 0.01) -> dict:
    """A line's points with more put in along each segment, at most `step` of either log axis apart: a climb
    drawn from two samples covers every height between them."""
    x = np.log10(np.asarray(trace["x"], dtype=float))
    y = np.log10(np.asarray(trace["y"], dtype=float))
    keep = np.isfinite(x) & np.isfinite(y)
    x, y = x[keep], y[keep]
    if x.size < 2:
        return {"x": (10**x).tolist(), "y": (10**y).tolist()}
    apart = np.maximum(np.abs(np.diff(x)) / (span[1] - span[0]), np.abs(np.diff(y)) / (y_span[1] - y_span[0]))
    pieces = np.maximum(1, np.ceil(apart / step)).astype(int)
    segment = np.repeat(np.arange(pieces.size), pieces)
    within = np.arange(segment.size) - np.repeat(np.cumsum(pieces) - pieces, pieces)
    at = np.r_[segment + within / pieces[segment], x.size - 1]
    where = np.arange(x.size)
    return {"x": 10 ** np.interp(at, where, x), "y": 10 ** np.interp(at, where, y)}


def _label_box(x: float, y: float, right: bool) -> tuple[float, float, float, float]:
    """The box (left, right, low, high, in shares of the axes) a point label takes on a phone (LABEL_BOX), for a
    point at shares (x, y): "bottom right" of it, or "top left"."""
    width, height = LABEL_BOX
    return (x, x + width, y - height, y) if right else (x - width, x, y, y + height)


def _point_label_boxes(data: list, span: tuple, y_span: tuple) -> list[tuple]:
    """The boxes (x from, x to in the axis's units; low, high in shares) the point labels of `data` take on a
    phone, beside their points as their text position says; both axes log."""
    boxes = []
    for t in data:
        if "text" not in t.get("mode", ""):
            continue
        place = t.get("textposition")
        points = zip(_log_shares(t["x"], *span), _log_shares(t["y"], *y_span), t.get("text") or [], strict=False)
        for k, (x, y, text) in enumerate(points):
            if text:
                left, right, low, high = _label_box(
                    x, y, (place[k] if isinstance(place, list) else place) == "bottom right"
                )
                boxes.append((*(10 ** (span[0] + share * (span[1] - span[0])) for share in (left, right)), low, high))
    return boxes


def _labels_clear_of(layout: dict, data: list, added: list) -> list:
    """Point labels set "top left" (Figure 12's concurrencies, up and left of each point on the rising E2E
    curve), placed for the current figure's own axes. An A that widens them draws the points closer together:
    `rate.labels_apart` thins the labels again for the merged axes ("64128256" beside a far faster A). They
    also land on A's faded curve where A runs just above the current one: a slower A. Such a label moves to
    "bottom right", which a rising curve leaves clear too, where its box there (a phone's, LABEL_BOX) meets
    neither A's lines, nor a vertical marker line (the peak rate), nor another of the trace's points. On a
    rising curve a label below and right of its point never meets one above and left of a later point, so the
    spacing `rate.labels_apart` chose holds. Both axes log, x's range set; y's span is the traces' and what
    autorange is told to include."""
    labelled = [i for i, t in enumerate(data) if t.get("textposition") == "top left" and "text" in t.get("mode", "")]
    lines = _drawn_lines(added)
    spans = _log_spans(layout, data + lines) if labelled and lines else None
    if spans is None:
        return data
    span, y_span = spans
    curves = [(cx, cy, np.nanmin(cx), np.nanmax(cx))
              for cx, cy in ((_log_shares(t["x"], *span), _log_shares(t["y"], *y_span)) for t in lines)]  # fmt: skip
    walls = [_log_shares(s["x0"], *span) for s in layout.get("shapes") or []
             if s.get("xref") == "x" and s.get("x0") == s.get("x1") and s.get("x0", 0) > 0]  # fmt: skip

    def met(x: float, y: float, right: bool, points) -> bool:
        left, end, low, high = _label_box(x, y, right)
        if any(left <= px <= end and low <= py <= high for px, py in points if (px, py) != (x, y)):
            return True
        # The text starts past the marker's edge: a third more room, or "512" printed over the peak line.
        room = (end - left) / 3
        if any(left - room <= wall <= end + room for wall in walls):
            return True
        along = np.linspace(left, end, 9)
        for cx, cy, first, last in curves:
            heights = np.interp(along[(along >= first) & (along <= last)], cx, cy)
            if np.any((heights >= low) & (heights <= high)):
                return True
        return False

    out = list(data)
    for i in labelled:
        t = data[i]
        text = list(t.get("text") or [])
        said = [k for k, label in enumerate(text) if label]
        if said:
            x, y = np.asarray(t["x"], dtype=float)[said], np.asarray(t["y"], dtype=float)[said]
            for k, kept in zip(said, labels_apart(x, y, span, y_span), strict=True):
                text[k] = text[k] if kept else ""
        points = list(zip(_log_shares(t["x"], *span), _log_shares(t["y"], *y_span), strict=True))
        places = ["bottom right" if label and met(x, y, False, points) and not met(x, y, True, points)
                  else "top left" for (x, y), label in zip(points, text, strict=True)]  # fmt: skip
        if "bottom right" in places or text != t.get("text"):
            out[i] = {**t, "text": text, "textposition": places if "bottom right" in places else "top left"}
    return out


def merge(current: dict, pinned: dict, label: str) -> dict:
    """`current` with A's traces (from `pinned`, the same figure for scenario A) after its own; neither input
    is changed. `layout.meta.pinned` tells the browser where A's traces start, A's label and A's own meta
    (the explorer's price and power), so its readouts can show the differences."""
    data = list(current.get("data") or [])
    layout = dict(current.get("layout") or {})
    theirs = main_of_a(pinned.get("data") or [])
    meta = layout.get("meta")
    if data and (meta is None or isinstance(meta, dict)):
        a_meta = pinned.get("layout", {}).get("meta")
        layout["meta"] = {**(meta or {}), "pinned": {**(a_meta or {}), "label": label, "first": len(data)}}
    if not data:  # the current settings do not fit: the figure says why, and that A waits for them
        if theirs:  # a line of the figure's own note, so the two never overlap however the note wraps
            text = f"A ({label}) is drawn again once the current settings fit"
            notes = list(layout.get("annotations") or [])
            if notes:
                notes[-1] = {
                    **notes[-1],
                    "text": f"{notes[-1].get('text', '')}<br><span style='font-size:0.85em'>{text}</span>",
                }
            else:
                notes = [{"text": text, "xref": "paper", "yref": "paper", "x": 0.5, "y": 0.5, "showarrow": False}]
            layout["annotations"] = notes
        return {**current, "layout": layout}
    if not theirs:  # said above the plot, where a note over it ran into the curves and labels at its top
        # (the explorer, with no legend, says it in its readouts: assets/compare.js)
        title = {"text": f"A = {label}: does not fit its machine, not drawn", "side": "top"}
        layout["legend"] = {**layout.get("legend", {}), "title": title}
        return {"data": data, "layout": layout}
    added = [_restyled(t, any(_same_points(t, c) for c in data)) for t in theirs]
    # The legend says once what A is and that its curves are faded (dashed, or dotted where the current one is
    # dashed), as a definition rather than a heading over the current entries too. A's entries flow on after the
    # current ones (a legend group would stack them in a column), and clicking any of them still shows or hides
    # all of A. The title goes on top: beside the entries ("top left") plotly stopped wrapping them and the row
    # ran off the figure.
    layout.pop("showlegend", None)  # a figure without a legend (the explorer) gets one: A's curves need names
    for axis in ("xaxis", "yaxis"):
        if axis in layout and axis in pinned.get("layout", {}):
            layout[axis] = _union_range(layout[axis], pinned["layout"][axis])
    if not _references_drawn(pinned.get("data") or []):  # a level line there belongs to a reference too
        added += _pinned_levels(layout, pinned.get("layout") or {}, data + added)
    # Where every curve of A coincides with a current one (Figure 5 draws each preset), none is drawn: say so.
    drawn = any(t.get("visible", True) is not False and t.get("showlegend", True) is not False for t in added)
    title = f"A = {label} (faded)" if drawn else f"A = {label} (its curves coincide with these)"
    layout["legend"] = {**layout.get("legend", {}), "traceorder": "normal", "title": {"text": title, "side": "top"}}
    log_x_if_squeezed(layout, data, data + added)
    _keep_labels_inside(layout, data + added)
    data = _level_labels_to_legend(layout, data, added)
    data = _labels_clear_of(layout, data, added)
    data = _peak_label_clear(layout, data, added)
    merged = {"data": data + added, "layout": layout}
    decade_ticks(merged, redo=True)  # the current ticks may not reach A's values
    return merged
