"""Figures 7-9 of the article: the frontier under other dtypes, parallel layouts and workloads, each reference
drawn apart from the current curve where it would hide under it."""

from __future__ import annotations

import functools
from types import SimpleNamespace

import numpy as np

from inferx import palette as P
from inferx.figures.curves import (
    frontier_trace,
    machine_label,
    quant_ref_colours,
    quant_refs,
    workload_refs,
    x_scale_toggle,
    x_spans_decades,
)
from inferx.figures.style import (
    COMM_REFS,
    DEFAULT_BATCH,
    WORKLOAD_REFS,
    add_note_above,
    does_not_fit,
    json_ready,
    keep_in_lower_share,
    line_trace,
    memoised,
    plot_layout,
)
from inferx.palette import gpu_colour
from inferx.physics.presets import INTERCONNECTS
from inferx.scenario.batches import log_batches
from inferx.scenario.controls import link
from inferx.scenario.evaluation import Scenario, comm_times
from inferx.scenario.frontier import CURVE_POINTS, frontier, no_curve_reason


@json_ready
def quantization(scn: Scenario, batch: int = DEFAULT_BATCH) -> dict:
    """Quantization: the current frontier beside FP16+FP16 and FP8+FP8 on the same hardware; a reference whose
    frontier runs on the current one (where communication, not the bytes read, sets the step) drawn as markers."""
    layout = plot_layout("Output throughput (tok/s)", "Time to first token (ms)", ylog=True)
    layout["xaxis"]["rangemode"] = "tozero"  # from 0, as Figures 4, 5, 6 and 9
    refs, notes = [], []
    for ((w, kv), colour), ref in zip(quant_ref_colours(scn).items(), quant_refs(scn), strict=True):
        name = f"{w.upper()} weights + {kv.upper()} KV"
        r = frontier(ref)
        if r is None:
            notes.append(f"{name}: {no_curve_reason(ref)}")
        else:
            refs.append(frontier_trace(name, r, colour, "dash", 1.8))
    r = frontier(scn)
    p = scn.params
    name = f"{machine_label(scn)} (current): {p['wdtype'].upper()} weights + {p['kvdtype'].upper()} KV"
    if r is None:
        notes.insert(0, f"{name}: {no_curve_reason(scn)}")
    current = None if r is None else frontier_trace(name, r, gpu_colour(p["gpu"]), "solid", 2.8)
    data = _apart(refs, current, x_spans_decades([*refs, current] if current else refs), True)
    if notes:
        add_note_above(layout, data, "<br>".join(notes))
    x_scale_toggle(layout, data)
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
        out[-1]["meta"]["on"] = traces[host]["name"]  # the line it is drawn on (Figure 8's direct labels)
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
    return scn.model, scn.b_w, scn.tp, scn.pp, scn.dp, scn.ep, *links, fit, max(1024, scn.b_max), labels


# Shorter words for a crowded legend (a phone's, a small frame's): the usual abbreviation, the caption's symbol.
CROWDED_WORDS = {"InfiniBand": "IB", "utilisation ": "η "}


def _crowded(label: str) -> dict:
    """A trace's `meta.short` (`short_name`): `label` in `CROWDED_WORDS`' shorter words."""
    for word, short in CROWDED_WORDS.items():
        label = label.replace(word, short)
    return {"meta": {"short": label}}


@memoised(_communication_reads)
@json_ready
def communication(scn: Scenario, batch: int = DEFAULT_BATCH) -> dict:
    """Collective overhead t_AR + t_PP vs batch for four configurations and the current one; a configuration
    whose curve coincides with another's is drawn as markers on it."""
    # Log-log: NVLink's flat launch-latency floor and InfiniBand's linear growth both stay readable.
    if scn.headroom <= 0:
        return does_not_fit(scn, "Batch size B (concurrent requests)", "Communication per step (ms)")
    layout = plot_layout(
        "Batch size B (concurrent requests)", "Communication per step (ms)", xlog=True, ylog=True, xcount=True
    )
    B = log_batches(max(1024, scn.b_max), CURVE_POINTS)
    hover = "B = %{x:,.0f}<br>t_comm = %{y:,.3~r} ms"
    comms = 1e3 * comm_times([*_comm_configs(scn), scn], B)
    # In a crowded legend the current curve drops the machine's name (the page gives it): with their full names,
    # a 480×360 frame gave the legend a row each, over a 70 px plot.
    refs = [
        line_trace(name, B, comm, colour, dash, 1.8, hover) | _crowded(name)
        for (name, (colour, _, dash)), comm in zip(COMM_REFS.items(), comms[:-1], strict=True)
    ]
    p = scn.params
    layout_words = ", EP" * scn.ep + ", attention DP" * scn.dp  # the current layout's collectives (engine)
    setting = f"TP {p['tp']}{layout_words}, PP {p['pp']}, {link(p).label}"
    name = f"{machine_label(scn)} (current): {setting}"
    colour = gpu_colour(p["gpu"])
    current = line_trace(name, B, comms[-1], colour, "solid", 2.8, hover) | _crowded(f"Current: {setting}")
    data = _apart(refs, current if comms[-1].any() else None, True, True)
    if not comms[-1].any():
        data.append(current)
        # Short, on one line in a 480 px frame: the legend names the machine.
        add_note_above(layout, data, f"No communication at TP {p['tp']}, PP {p['pp']} (current)")
    direct_labels(layout, data)
    return {"data": data, "layout": layout}


SYMBOL_GLYPH = {"diamond": "◆", "square": "■", "triangle-up": "▲", "circle": "●"}
CHAR_SHARE, ROW_SHARE = 0.0125, 0.075  # a label's character and row as shares of a small plot's width and height


def direct_labels(layout: dict, data: list) -> None:
    """Each line of a log-log figure named beside it, with the configurations drawn as markers on it, in place
    of a legend: Figure 8's five entries for two visible lines read as a puzzle. A label goes at the first of
    the line's end (above, then below, to the left) and its start (above, then below, to the right) whose box
    meets no other curve and no label placed before, the least crowded of them where none is clear; the y axis
    gets a label's room above the curves."""
    # Lines with two positive points or more (a current configuration with no communication draws zeros).
    lines = [t for t in data if t.get("mode", "lines") == "lines" and np.count_nonzero(np.asarray(t["y"]) > 0) > 1]
    if not lines:
        return
    shares = _log_shares(data)
    if shares is None:
        return
    (x_lo, x_hi), (y_lo, y_hi), points = shares
    layout["showlegend"] = False
    boxes = []
    for line in sorted(lines, key=lambda t: -max(t["y"])):
        rows = [short_name(line)]
        for t in data:
            if (t.get("meta") or {}).get("on") == line["name"]:
                glyph = SYMBOL_GLYPH.get(t["marker"]["symbol"], "●")
                same = "=" if t["name"].endswith(f"= {line['name']}") or "= current" in t["name"] else "≈"
                own = short_name(t).split(" ≈ ")[0].split(" = ")[0]
                rows.append(f"{glyph} {same} {own}")
        w = CHAR_SHARE * max(len(r) for r in rows)
        h = ROW_SHARE * len(rows)
        shown = np.flatnonzero(np.asarray(line["y"]) > 0)
        first, last = int(shown[0]), int(shown[-1])
        ends = [(line["x"][last], line["y"][last], "right"), (line["x"][first], line["y"][first], "left")]
        candidates = []
        for x, y, side in ends:
            sx = (np.log10(x) - x_lo) / (x_hi - x_lo)
            sy = (np.log10(y) - y_lo) / (y_hi - y_lo)
            left = sx - w if side == "right" else sx
            for above in (True, False):
                low = sy if above else sy - h
                candidates.append((left, left + w, low, low + h, x, y, side, above))
        others = [p for t, p in zip(data, points, strict=True) if t is not line and p is not None]

        def hits(c, others=others):
            x0, x1, y0, y1 = c[:4]
            n = sum(int(np.count_nonzero((px >= x0) & (px <= x1) & (py >= y0) & (py <= y1))) for px, py in others)
            n += sum(1 for b in boxes if b[0] < x1 and x0 < b[1] and b[2] < y1 and y0 < b[3])
            return n + (100 if y0 < 0 or x0 < 0 or x1 > 1 else 0)

        best = min(candidates, key=hits)  # the first of the least crowded
        boxes.append(best[:4])
        x, y, side, above = best[4:]
        layout["annotations"].append(
            {
                "text": "<br>".join(rows),
                "x": float(np.log10(x)),
                "y": float(np.log10(y)),
                "xref": "x",
                "yref": "y",
                "showarrow": False,
                "xanchor": side,
                "yanchor": "bottom" if above else "top",
                "align": side,
                "yshift": 3 if above else -3,
                "font": {"size": 11, "color": P.text(line["line"]["color"])},
                "name": "direct-label",
            }
        )
    top = max(b[3] for b in boxes)
    if top > 1:
        keep_in_lower_share(layout, y_lo, y_hi, 1 / top)


def _log_shares(data: list):
    """The x and y spans (decades) of the traces' positive points, and each trace's points as shares of them,
    densified along the trace (a few points between samples, so a steep segment counts), None for none."""
    pts = []
    for t in data:
        try:
            x, y = np.asarray(t.get("x"), dtype=float), np.asarray(t.get("y"), dtype=float)
        except (TypeError, ValueError):
            pts.append(None)
            continue
        ok = (x > 0) & (y > 0) & np.isfinite(x) & np.isfinite(y) if x.shape == y.shape else np.zeros(0, bool)
        pts.append((np.log10(x[ok]), np.log10(y[ok])) if ok.any() else None)
    found = [p for p in pts if p is not None]
    if not found:
        return None
    xs, ys = np.concatenate([p[0] for p in found]), np.concatenate([p[1] for p in found])
    span = (float(xs.min()), float(xs.max()) or 1.0), (float(ys.min()), float(ys.max()))
    (x_lo, x_hi), (y_lo, y_hi) = span
    dx, dy = (x_hi - x_lo) or 1.0, (y_hi - y_lo) or 1.0
    out = []
    for p in pts:
        if p is None:
            out.append(None)
            continue
        s = np.linspace(0, len(p[0]) - 1, 4 * len(p[0]))
        idx = np.arange(len(p[0]))
        out.append(((np.interp(s, idx, p[0]) - x_lo) / dx, (np.interp(s, idx, p[1]) - y_lo) / dy))
    return ((x_lo, x_lo + dx), (y_lo, y_lo + dy), out)


@json_ready
def workload_reality(scn: Scenario, batch: int = DEFAULT_BATCH) -> dict:
    """Workload reality check: ideal (CV 0, η 100 %), current, realistic (CV 1, η 87 %); the gap between ideal
    and realistic shaded, and a reference that coincides with the current curve drawn as markers on it."""
    layout = plot_layout("Output throughput (tok/s)", "Time to first token (ms)", ylog=True)
    layout["xaxis"]["rangemode"] = "tozero"  # from 0, as Figures 4 to 7
    data, notes, current = [], [], f"{machine_label(scn)} (current)"
    ideal, realistic = (frontier(ref) for ref in workload_refs(scn))
    if ideal is not None and realistic is not None:
        # The gap between ideal and realistic is the TTFT a real workload costs on this hardware.
        gap = line_trace(
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
            refs.append(frontier_trace(label, r, colour, "dash", 1.8) | _crowded(label))
    r = frontier(scn)
    if r is None:
        notes.insert(0, f"{current}: {no_curve_reason(scn)}")
        line = None
    else:
        setting = f"{f'CV {scn.cv:g}, ' * read_cv}utilisation {100 * scn.eta:g} %"
        line = frontier_trace(f"{current}: {setting}", r, gpu_colour(scn.params["gpu"]), "solid", 2.8) | _crowded(
            f"Current: {setting}"
        )
    data += _apart(refs, line, x_spans_decades([*refs, line] if line else refs), True)
    if notes:
        add_note_above(layout, data, "<br>".join(notes))
    x_scale_toggle(layout, data)
    return {"data": data, "layout": layout}
