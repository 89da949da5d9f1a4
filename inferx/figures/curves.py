"""What several frontier figures draw: their reference scenarios, the calibrated band, the machine's name, the
frontier trace, and the log-or-linear x axis."""

from __future__ import annotations

import functools

import numpy as np

from inferx.figures.style import CONTEXT_REFS, CURRENT, QUANT_REFS, QUANT_SPARES, WORKLOAD_REFS, line_trace
from inferx.physics.hardware import GPUS
from inferx.physics.presets import HARDWARE
from inferx.scenario.evaluation import Scenario
from inferx.serving.adapter import scenario_calibration
from inferx.serving.stored import band_label, residual_band


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
    return [scn.with_params(wdtype=w, kvdtype=kv) for w, kv in quant_ref_colours(scn)]


@functools.lru_cache(maxsize=16)
def workload_refs(scn: Scenario) -> list[Scenario]:
    return [scn.with_params(cv=cv, util=util) for _, cv, util in WORKLOAD_REFS.values()]


def quant_ref_colours(scn: Scenario) -> dict[tuple[str, str], str]:
    """The dtype pairs Figure 7 draws beside the current one, with their colours: the article's two, with a
    reference that equals the current settings swapped for the next spare."""
    current = (scn.params["wdtype"], scn.params["kvdtype"])
    spares = [(pair, colour) for pair, colour in QUANT_SPARES.items() if pair != current]
    return dict(spares.pop(0) if pair == current else (pair, colour) for pair, colour in QUANT_REFS.items())


BAND_FILL = "rgba(0, 0, 0, 0.12)"


def residual_band_traces(scn: Scenario, x, y, metric: str, scale: float = 1.0) -> list[dict]:
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
    lower = line_trace(name, x, low, CURRENT, showlegend=False, meta={"band": "low"}) | hidden
    upper = line_trace(
        name, x, high, CURRENT, fill="tonexty", fillcolor=BAND_FILL, meta={"band": "high", "metric": metric}
    )
    return [lower, upper | hidden]


def machine_label(scn: Scenario) -> str:
    """The machine the current settings describe, for a legend to name: the preset's label ("8×H200") when it
    is the preset's machine, else the catalog's ("4×H100 SXM")."""
    gpu, count = GPUS[scn.params["gpu"]], scn.params["gpus"]
    hw = HARDWARE.get(scn.hardware)
    return hw.label if hw and hw.machine.gpu == gpu and hw.n_gpus == count else f"{count}×{gpu.name}"


def _hover_frontier() -> str:
    return "B = %{customdata:,}<br>T = %{x:,.0f} tok/s<br>TTFT = %{y:,.3~r} ms"


def frontier_trace(name, r, colour, dash="solid", width=2.0) -> dict:
    return line_trace(
        name,
        r["throughput"],
        1e3 * r["ttft"],
        colour,
        dash,
        width,
        _hover_frontier(),
        custom=r["batch"].astype(int).tolist(),
    )


LOG_SPAN = 100.0  # x data spanning this factor (two decades) or more opens on log x: on linear it fills a corner


def x_spans_decades(data: list, factor: float | None = None) -> bool:
    """Whether the drawn traces' positive x values span `factor` (LOG_SPAN) or more (hidden traces do not
    count)."""
    factor = LOG_SPAN if factor is None else factor
    xs = [_positive(t.get("x")) for t in data if t.get("visible", True) is True]
    xs = np.concatenate(xs) if xs else np.empty(0)
    return bool(xs.size) and float(np.maximum.reduce(xs)) >= factor * float(np.minimum.reduce(xs))


def x_scale_toggle(layout: dict, data: list | None = None) -> None:
    """Buttons above the graph that switch its x-axis between linear and log, with no callback: plotly's
    relayout sets the axis type and moves the annotations placed on x, which plotly reads as log10 of the
    value on a log axis. Every frontier figure has them (Figures 4–7, 9, 10). Given the figure's `data`, the
    axis opens on log where those span two decades or more (`x_spans_decades`): on linear, the small batches'
    points gathered in the corner by the y axis. The layout's annotations are placed on a linear axis."""
    on_x = [(k, a["x"]) for k, a in enumerate(layout["annotations"]) if a.get("xref") == "x"]
    # Null gives linear its own ticks back.
    linear = {"xaxis.type": "linear", "xaxis.autorange": True, "xaxis.dtick": None, "xaxis.minor.showgrid": False}
    linear |= {"xaxis.tickmode": None, "xaxis.tickvals": None}
    if "rangemode" in layout["xaxis"]:  # plotly reads it on a linear axis only
        linear["xaxis.rangemode"] = layout["xaxis"]["rangemode"]
    linear |= {f"annotations[{k}].x": x for k, x in on_x}
    set_scale_buttons(layout, linear, _log_x(layout), active=0)
    if data is not None and x_spans_decades(data):
        open_on_log(layout)


def _log_x(layout: dict) -> dict:
    """The relayout that puts a linear x axis on log: whole decades only (as every log axis here), and each
    annotation placed on x at log10 of its value, where plotly reads it on a log axis."""
    on_x = {f"annotations[{k}].x": _log10(a["x"]) for k, a in enumerate(layout["annotations"]) if a.get("xref") == "x"}
    return {"xaxis.type": "log", "xaxis.autorange": True, "xaxis.dtick": 1, "xaxis.minor.showgrid": True} | on_x


def _log10(x: float) -> float:
    return float(np.log10(x)) if x > 0 else 0.0


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
        axis.update(range=log_range(xs, pad=0.03), type="log", dtick=1)
    layout["xaxis"] = axis
    open_on_log(layout, keep_axis=fixed)


def open_on_log(layout: dict, keep_axis: bool = False) -> None:
    """A linear x axis put on log as its log button would (`keep_axis`: all but the axis, whose range the
    caller sets), the button shown pressed. The axis, annotations and menu are replaced, not changed in place."""
    axis = dict(layout.get("xaxis") or {})
    notes = [dict(note) for note in layout.get("annotations") or []]
    for key, value in _log_x({"annotations": notes}).items():
        if keep_axis and key.startswith("xaxis."):
            continue
        if key.startswith("annotations["):
            notes[int(key[len("annotations[") : key.index("]")])]["x"] = value
        elif key == "xaxis.minor.showgrid":  # decade_ticks sets the minor grid of a log axis
            continue
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


def log_range(values, pad: float = 0.06) -> list[float]:
    """A log axis's range (in decades) around positive `values`, padded by a share of its span."""
    lo, hi = np.log10(np.minimum.reduce(values)), np.log10(np.maximum.reduce(values))
    margin = pad * max(hi - lo, 0.5)
    return [float(lo - margin), float(hi + margin)]


def set_scale_buttons(layout: dict, linear: dict, log: dict, active: int) -> None:
    """The linear/log x buttons over a figure (`active`: 0 linear, 1 log), each a relayout to its arguments; the
    top margin makes room for them under the tool bar, which spans the top on a phone."""
    layout["margin"]["t"] = 58
    layout["updatemenus"] = [
        {
            "type": "buttons",
            "direction": "left",
            "showactive": True,
            "active": active,
            "x": 0,
            "xanchor": "left",
            "y": 1.01,
            "yanchor": "bottom",
            "pad": {"l": 0, "r": 0, "t": 0, "b": 0},
            "font": {"size": 10},
            "buttons": [
                {"label": "linear x", "method": "relayout", "args": [linear]},
                {"label": "log x", "method": "relayout", "args": [log]},
            ],
        }
    ]
