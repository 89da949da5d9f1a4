"""Figure data for measured InferenceX points beside the models, as plain plotly dicts.

No Dash here: each builder returns `{"data": [...], "layout": {...}}` (or a list of
traces) that a page can hand to dcc.Graph or append to Figures 4 and 5. A run's colour is
its GPU's (`inferx.palette.GPU`) and its marker its serving stack's (`FRAMEWORK_SYMBOL`).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict

import numpy as np
import pandas as pd

from inferx import palette as P
from inferx.data.measured import MEAN_LENGTH_FRACTION, apply_filters, instance_output_throughput, validation_rows
from inferx.figures.style import AXIS, decade_ticks, round_sig, unnumbered_if_empty
from inferx.figures.units import unit_words
from inferx.physics import engine as E
from inferx.physics.hardware import GPUS, memory_fit_message
from inferx.physics.presets import HARDWARE
from inferx.scenario.batches import log_batches
from inferx.serving import adapter
from inferx.serving import model as C
from inferx.serving import report as R
from inferx.serving.stored import band_label, calibration_for, residual_band
from inferx.text import number, percent

# One marker symbol per serving stack (open: disaggregated with Dynamo or MoRI), the same on every figure; the
# colour is the GPU's (`palette.GPU`), as on every figure that draws a machine. A stack not named here takes a
# spare symbol chosen by its name, so it keeps its symbol whichever runs are shown.
FRAMEWORK_SYMBOL = {
    "sglang": "circle",
    "dynamo-sglang": "circle-open",
    "mori-sglang": "diamond-open",
    "trt": "square",
    "dynamo-trt": "square-open",
    "vllm": "diamond",
    "atom": "triangle-up",
}
SPARE_SYMBOLS = ("x", "cross", "star", "hexagon", "triangle-down", "pentagon", "star-open", "hourglass")
# The ideal (the article's physics) and the expected (the calibrated model): black and the guides' grey, no GPU's
# hue, so neither curve reads as a machine.
MODEL_COLOUR = {"calibrated": P.CURRENT, "article": P.GUIDE}
MAX_CONCURRENCY = 512
MAX_OTHER_COUNTS = 3  # GPU counts besides the most common one that get their own curve
# Traces /inferencex's text alternative states one by one: up to five model curves, the band, and the runs of
# every GPU and serving stack shown.
SUMMARY_TRACES = 16
# The marker each symbol is, in words a hover can carry.
SYMBOL_SIGN = {
    "circle": "●", "circle-open": "○", "diamond": "◆", "diamond-open": "◇", "square": "■", "square-open": "□",
    "triangle-up": "▲", "x": "✕", "cross": "✚", "star": "★", "hexagon": "⬢", "triangle-down": "▼",
    "pentagon": "⬟", "star-open": "☆", "hourglass": "⧗",
}  # fmt: skip
STACK = "stack %{customdata[2]}"  # followed, in a trace of one stack, by its marker's sign
HOVER = (
    "%{fullData.name}<br>concurrency %{customdata[0]}<br>date %{customdata[1]}<br>"
    f"{STACK} · %{{customdata[4]}} GPUs<br>run: %{{customdata[3]}}<extra></extra>"
)


def framework_symbol(framework: str) -> str:
    """The marker symbol of a serving stack on every figure: its own, else a spare one fixed by its name."""
    if framework in FRAMEWORK_SYMBOL:
        return FRAMEWORK_SYMBOL[framework]
    return SPARE_SYMBOLS[sum(str(framework).encode()) % len(SPARE_SYMBOLS)]


def gpu_name(key: str) -> str:
    return GPUS[key].name if key in GPUS else str(key)


def _customdata(rows: pd.DataFrame, unit: bool = False) -> list:
    """Per run: concurrency, date, stack, run link, GPU count and, with `unit`, the unit of its instance's
    throughput ("per instance (8 GPUs)", `units.unit_words`)."""
    cols = [rows[c] for c in ("concurrency", "date", "framework", "run_url", "n_gpus")]
    out = [[int(c), str(d), str(f), str(u), int(g)] for c, d, f, u, g in zip(*cols, strict=True)]
    if unit:
        for row in out:
            row.append(unit_words(False, row[4]))
    return out


def plot_layout(title_x: str, title_y: str, **extra) -> dict:
    layout = {
        "xaxis": {"title": {"text": title_x}, **AXIS},
        "yaxis": {"title": {"text": title_y}, **AXIS},
        "margin": {"l": 64, "r": 16, "t": 16, "b": 52},
        "legend": {"orientation": "h", "y": -0.22, "x": 0, "font": {"size": 11}},
        "hovermode": "closest",
        "template": "plotly_white",
        "uirevision": "keep",
        "annotations": [],
    }
    layout.update(extra)
    return layout


def point_hover(values: str) -> str:
    """A measured point's hover: its trace's name, `values` (the plotted values, each with its unit), the run."""
    return "%{fullData.name}<br>" + values + "<br>" + HOVER.split("<br>", 1)[1]


def _point_traces(rows: pd.DataFrame, x, y, values: str, unit: bool = False) -> list[dict]:
    """One marker trace per GPU and serving stack, named "H200 SXM · sglang": the GPU's colour (`palette.GPU`,
    as on every figure), the stack's symbol (`framework_symbol`; the hover says "stack sglang ●"). `values`
    is the hover's line of the plotted values, in units; `unit`: the runs' customdata carry their instance's unit
    (as customdata[5])."""
    traces = []
    for (gpu, framework), part in rows.groupby(["hardware", "framework"], sort=True):
        symbol = framework_symbol(framework)
        traces.append(
            {
                "type": "scatter",
                "mode": "markers",
                "name": f"{gpu_name(gpu)} · {framework}",
                "legendgroup": f"measured {gpu}",  # a GPU's stacks in one column of the legend
                "x": np.asarray(x.loc[part.index], dtype=float).tolist(),
                "y": np.asarray(y.loc[part.index], dtype=float).tolist(),
                "customdata": _customdata(part, unit),
                "hovertemplate": point_hover(values).replace(STACK, f"{STACK} {SYMBOL_SIGN.get(symbol, '')}"),
                "marker": {
                    "color": P.gpu_colour(gpu),
                    "symbol": symbol,
                    "size": 8,
                    "line": {"width": 1, "color": "#333333"},
                },
                "meta": {"measured": True, "framework": framework, "hardware": gpu},
            }
        )
    return traces


def workload(scn, filters: dict | None) -> tuple[int, int]:
    """(ISL, OSL) of the figure: a single value in the filters wins, else the scenario's.

    Otherwise the scenario's own OSL (`model.DEFAULT_OSL`, 1,024 tokens, for a scenario
    without one); it is no longer inferred from the context, which jumped at ctx = ISL.
    """
    filters = filters or {}

    def single(value):
        if isinstance(value, list | tuple | set):
            value = list(value)
            return int(value[0]) if len(value) == 1 else None
        return int(value) if value not in (None, "", "all") else None

    isl = single(filters.get("isl")) or int(scn.isl)
    osl = single(filters.get("osl")) or int(getattr(scn, "osl", C.DEFAULT_OSL))
    return isl, osl


def model_curves(scn, gpus: int, isl: int, osl: int, calibrations=None) -> dict:
    """Both models over concurrency for the scenario's GPU on `gpus` GPUs.

    Per-GPU bandwidth and compute come from the scenario (its sliders) divided by its GPU count, so the curve
    follows the controls and matches the GPU count of the measured points. The calibration is the one the
    dashboard's calibrated mode uses for the scenario (`adapter.scenario_calibration`: its GPU, stack and
    precision), unless `calibrations` replaces the stored fit. Returns interactivity (tok/s/user) and output
    tokens/s per GPU for each model, with the concurrency grid.
    """
    _, machine, _, _, mtp, info = adapter._scenario_inputs(scn)
    gpu, precision = info["gpu"], info["precision"]
    count = scn.params.get("gpus") or HARDWARE[scn.hardware].n_gpus
    bw_gpu, article_gpu, dense_gpu = scn.bw / count, scn.compute / count, machine.compute / count
    # Concurrency stops where the KV cache of the batch no longer fits beside the weights.
    hbm = scn.hbm / count * gpus
    kv_per_request = E.kv_bytes_per_token(scn.model, scn.b_kv) * (isl + osl) * gpus
    unfit = memory_fit_message(scn.weight_bytes, hbm)  # no curve at all: one point of a machine that cannot load
    fit_limit = max(1, int((hbm - scn.weight_bytes) // kv_per_request)) if unfit is None else 1
    batch = log_batches(min(MAX_CONCURRENCY, fit_limit), 48)
    cal = info["calibration"]
    if calibrations is not None:
        cal, _ = calibration_for(gpu, info["framework"], calibrations, precision)
        if getattr(scn, "acceptance", None) is not None:
            cal = C.Calibration(**{**cal.__dict__, "acceptance": scn.acceptance})
    # InferenceX's requests average 0.9 of the nominal lengths: the curves model the runs as they were made.
    mean_isl, mean_osl = MEAN_LENGTH_FRACTION * isl, MEAN_LENGTH_FRACTION * osl
    calib = C.predict_closed_loop(cal, gpu, batch, mean_isl, mean_osl, gpus, False, scn.model, bw_gpu, dense_gpu,
                                  precision=precision, mtp=mtp)  # fmt: skip
    art = C.predict_article(gpu, batch, mean_isl, mean_osl, gpus, scn.model, bw_gpu, article_gpu)
    return {
        "batch": batch,
        "gpu": gpu,
        "unfit": unfit,
        "spread_key": info["spread_key"],
        "calibrated": {"interactivity": 1.0 / calib["tpot"], "throughput_per_gpu": calib["throughput_per_gpu"]},
        "article": {"interactivity": 1.0 / art["tpot"], "throughput_per_gpu": art["throughput_per_gpu"]},
    }


def shown_rows(scn, df: pd.DataFrame | None, filters: dict | None = None) -> tuple[pd.DataFrame, int, int]:
    """The measured rows `inferencex_figure` plots, and the ISL and OSL of its curves.

    `filters` are `filter_measured` keywords. Unset ones default to what the model
    describes: the scenario's hardware family and weight dtype, no speculative
    decoding, single node, its ISL and OSL (pass "all" to lift a default).
    """
    gpu = adapter.scenario_calibration(scn)["gpu"]  # the GPU control's choice, else the preset's GPU
    spec = "mtp" if getattr(scn, "mtp", False) else "none"
    defaults = {"hardware": gpu, "precision": scn.params.get("wdtype"), "spec_method": spec, "topology": "single"}
    filters = {**defaults, **(filters or {})}
    isl, osl = workload(scn, filters)
    filters.setdefault("isl", isl)
    filters.setdefault("osl", osl)
    rows = apply_filters(df, filters) if df is not None and not df.empty else pd.DataFrame()
    return (rows[rows["output_tput_per_gpu_tok_s"].notna()] if not rows.empty else rows), isl, osl


SCORED_SIZE = 32  # selections whose scores are kept: a slider's drag redraws the chart over the same runs
_scored: OrderedDict = OrderedDict()
_scored_lock = threading.Lock()  # gunicorn's threads share it


def scored(rows: pd.DataFrame) -> dict | None:
    """`report.shown_errors` of the rows, kept by their contents (scoring 72 runs takes ~20 ms, every
    run of the file ~200 ms; the controls move the curves, not the runs' own predictions)."""
    digest = hashlib.blake2b(pd.util.hash_pandas_object(rows, index=False).to_numpy().tobytes(), digest_size=16)
    key = (digest.digest(), len(rows))
    with _scored_lock:
        if key in _scored:
            _scored.move_to_end(key)
            return _scored[key]
    found = R.shown_errors(rows)
    with _scored_lock:
        _scored[key] = found
        if len(_scored) > SCORED_SIZE:
            _scored.popitem(last=False)
    return found


MIN_P90_RUNS = 10  # below this a p90 is one of the few runs, not a tail


def _spread(found: dict) -> str:
    """ "4.7 % and 4.1 % at the median, 6.3 % and 7.8 % at p90": the two quantities, the p90 from 10 runs up."""
    (tput, tput90), (inter, inter90) = (found[m] for m in R.SHOWN_METRICS)
    text = f"{percent(tput)} and {percent(inter)} at the median"
    return text + (f", {percent(tput90)} and {percent(inter90)} at p90" if found["runs"] >= MIN_P90_RUNS else "")


def scored_text(rows: pd.DataFrame) -> str:
    """How far the calibrated model is from the runs shown, in a sentence ("" where it predicts none of them)."""
    found = scored(rows) if not rows.empty else None
    if found is None:
        return ""
    runs, unfitted, newest = found["runs"], found["unfitted"], found["newest"]
    text = (
        "Run by run, the calibrated model (at each run's own GPU, stack, precision, lengths and concurrency, as "
        f"inferx validate scores it) is off in output tok/s/GPU and interactivity by {_spread(found)}, over "
        f"{'this run' if runs == 1 else f'these {runs:,} runs'}; in sample for runs it was fitted to."
    )
    if newest:  # a configuration run again on newer software: what to expect of today's
        text += f" On the newest run of each configuration ({newest['runs']:,} runs): {_spread(newest)}."
    if unfitted:
        verb = "is" if unfitted == 1 else "are"
        text += (
            f" {unfitted:,} of them {verb} predicted from a typical fit scaled to the datasheet,"
            " as no fit has their GPU and stack."
        )
    return text


def inferencex_figure(scn, df: pd.DataFrame | None, filters: dict | None = None, calibrations=None, shown=None) -> dict:
    """Output tokens/s per GPU against interactivity, measured points (`shown_rows`) over the model's curves.
    `shown`: `shown_rows(scn, df, filters)` where the caller has it already (the page scores the same runs)."""
    gpu = adapter.scenario_calibration(scn)["gpu"]
    rows, isl, osl = shown or shown_rows(scn, df, filters)
    own = scn.params.get("gpus") or HARDWARE[scn.hardware].n_gpus
    gpus = int(rows["n_gpus"].mode().iloc[0]) if not rows.empty else own
    curves = model_curves(scn, gpus, isl, osl, calibrations)
    machine = f"{GPUS[gpu].name}, {isl}/{osl}"
    # Throughput per GPU depends on the count: points at another count get the selected model at theirs.
    counts = [] if rows.empty else [int(n) for n in rows["n_gpus"].value_counts().index]  # most runs first
    others = [n for n in counts if n != gpus][:MAX_OTHER_COUNTS]
    at_counts = [(gpus, curves)] + [(n, model_curves(scn, n, isl, osl, calibrations)) for n in others]
    # A count that cannot load the weights has no model curve, only the reason.
    unfit = [f"{n}×{GPUS[gpu].name} {c['unfit']}" for n, c in at_counts if c["unfit"]]
    fits = not curves["unfit"]
    modes = ("article", "calibrated") if fits else ()
    data = [_model_trace(curves, mode, gpus, machine, mode == scn.mode) for mode in modes]
    data += [_model_trace(c, scn.mode, n, machine, True, dash="dot") for n, c in at_counts[1:] if not c["unfit"]]
    key = curves["spread_key"]
    band = residual_band(curves["calibrated"]["throughput_per_gpu"], "throughput_per_gpu", key) if fits else None
    if band is not None:  # where 80 % of the fit's measurements fell around the calibrated curve
        x = _rounded(curves["calibrated"]["interactivity"])
        edge = {"color": "rgba(0, 0, 0, 0)", "width": 0}
        common = {"type": "scatter", "mode": "lines", "x": x, "line": edge, "hoverinfo": "skip"}
        data += [
            {**common, "y": _rounded(band[0]), "showlegend": False, "name": "band low", "meta": {"band": "low"}},
            {**common, "y": _rounded(band[1]), "fill": "tonexty", "fillcolor": "rgba(0, 0, 0, 0.12)",
             "name": band_label("throughput_per_gpu", key), "meta": {"band": "high", "metric": "throughput_per_gpu"}},
        ]  # fmt: skip
    if not rows.empty:
        values = f"%{{x:,.3~r}} tok/s/user · %{{y:,.4~r}} tok/s {unit_words(True, None)}"
        data += _point_traces(rows, rows["interactivity_tok_s_user"], rows["output_tput_per_gpu_tok_s"], values)
    layout = plot_layout("Interactivity (tok/s per user = 1000 / TPOT ms)", "Output throughput per GPU (tok/s/GPU)")
    # One column per GPU (its legend group), its stacks in order; a click hides one GPU's stack, not all its runs.
    layout["legend"].update(groupclick="toggleitem", traceorder="grouped")
    # Log axes: the article's curve sits about ten times above and to the right of the measured points, and on
    # linear axes it pressed them and the calibrated curve flat against the corner.
    layout["xaxis"]["type"] = layout["yaxis"]["type"] = "log"
    if rows.empty and df is not None:  # without data the page says how to load some, above the figure
        layout["annotations"].append(
            {"text": "no measured points match the filters", "xref": "paper", "yref": "paper", "x": 0.5, "y": 0.95,
             "showarrow": False}
        )  # fmt: skip
    for k, text in enumerate(unfit):
        note = {"text": f"No model curve: {text}", "xref": "paper", "yref": "paper", "x": 0.5, "y": 0.85 - 0.08 * k}
        layout["annotations"].append({**note, "showarrow": False})
    fig = {"data": _named_if_drawn(data), "layout": layout}
    decade_ticks(fig)  # as the dashboard's log axes: decades labelled, not "2 5 2 5" between them
    return unnumbered_if_empty(fig)


def _drawn(trace: dict) -> bool:
    x, y = (np.asarray(trace.get(k) or [], dtype=float) for k in ("x", "y"))
    return x.size == y.size and bool(np.any(np.isfinite(x) & np.isfinite(y) & (x > 0) & (y > 0)))  # log axes


def _named_if_drawn(data: list) -> list:
    """The traces, each left out of the legend unless it draws something (a point or a line inside the log axes);
    a band's entry is its upper edge's, drawn only where its lower edge is too."""
    out, low = [], None
    for t in data:
        drawn = _drawn(t) and ((t.get("meta") or {}).get("band") != "high" or (low is not None and _drawn(low)))
        if (t.get("meta") or {}).get("band") == "low":
            low = t
        out.append(t if drawn or t.get("showlegend") is False else {**t, "showlegend": False})
    return out


def _model_trace(curves: dict, mode: str, gpus: int, machine: str, selected: bool, dash: str = "solid") -> dict:
    """One model's curve of `model_curves` at `gpus` GPUs; the selected mode's drawn bold, the other dashed.
    A dotted curve (another GPU count) is always the selected mode's, so its name does not say so."""
    c = curves[mode]
    tag = " · selected" if selected and dash != "dot" else ""
    return {
        "type": "scatter",
        "mode": "lines",
        "name": f"{mode} model ({gpus}×{machine}){tag}",
        "x": _rounded(c["interactivity"]),
        "y": _rounded(c["throughput_per_gpu"]),
        "customdata": curves["batch"].astype(int).tolist(),
        "hovertemplate": f"{mode} model, {gpus} GPUs<br>concurrency %{{customdata:,}}<br>%{{x:,.3~r}} tok/s/user"
        f"<br>%{{y:,.4~r}} tok/s {unit_words(True, None)}<extra></extra>",
        "line": {"color": MODEL_COLOUR[mode], "width": 3 if selected else 1.5, "dash": dash if selected else "dash"},
        "meta": {"model": mode, "gpus": gpus},
    }


def _rounded(values) -> list:
    """4 significant figures for a compact payload; measured rows can hold ±∞, which come out NaN."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return round_sig(values)


def overlay_traces(df: pd.DataFrame | None, kind: str) -> list[dict]:
    """Measured points as marker traces to append to Figure 4 or Figure 5.

    Both figures put the instance's output throughput (tok/s) on x, so per-GPU
    throughput is multiplied by the GPUs that produced it (the decode GPUs for
    disaggregated rows, when known). Figure 4's y is the inter-token latency, taken
    as median TPOT (ms); Figure 5's y is median TTFT (ms).
    """
    if kind not in ("fig4", "fig5"):
        raise ValueError(f"kind must be 'fig4' or 'fig5', got {kind!r}")
    if df is None or df.empty:
        return []
    y_column = "median_tpot_ms" if kind == "fig4" else "median_ttft_ms"
    x = instance_output_throughput(df)
    rows = df[x.notna() & df[y_column].notna() & (df[y_column] > 0)]
    y_name = "TPOT" if kind == "fig4" else "TTFT"
    plotted = f"{y_name} %{{y:,.3~r}} ms"
    # The axis is per instance of the current machine's GPUs; a run's own instance may have another count, which
    # its hover says (customdata[5]).
    traces = _point_traces(rows, x, df[y_column], f"%{{x:,.4~r}} tok/s %{{customdata[5]}} · {plotted}", unit=True)
    # Each run's throughput per GPU too, for a figure drawn per GPU (`tput=gpu`): assets/measured.js swaps in
    # the x values and the hover that says so.
    per_gpu = df["output_tput_per_gpu_tok_s"].where(df["output_tput_per_gpu_tok_s"].notna(), x / df["n_gpus"])
    values = f"%{{x:,.4~r}} tok/s {unit_words(True, None)} · {plotted}"
    for trace, same in zip(traces, _point_traces(rows, per_gpu, df[y_column], values), strict=True):
        trace["meta"].update(xPerGpu=same["x"], hoverPerGpu=same["hovertemplate"])
        del trace["legendgroup"]  # one GPU's runs: its stacks in the figure's own legend, each hidden on its own
    return traces


DIVERGENCE_TITLE = "The article's model, the calibrated model and the measurements"


def divergence_figure(df: pd.DataFrame | None, calibrations=None) -> dict:
    """Where the models and reality part: measured TPOT / predicted TPOT against concurrency.

    One colour per hardware; open markers for the article's ITL, filled for the
    calibrated model. A ratio of 1 is a perfect prediction. Its text alternative (`layout.meta.summary`)
    counts each trace's runs and states their ratios at the measured concurrencies, not the nudged ones drawn.
    """
    layout = plot_layout("Concurrency (requests in flight)", "Measured TPOT / model TPOT")
    layout["xaxis"]["type"] = "log"
    layout["yaxis"]["type"] = "log"
    layout["shapes"] = [
        {
            "type": "line",
            "xref": "paper",
            "x0": 0,
            "x1": 1,
            "y0": 1,
            "y1": 1,
            "line": {"color": "#777777", "dash": "dot"},
        }
    ]
    data: list[dict] = []
    said = [DIVERGENCE_TITLE + ": measured over predicted time per output token against concurrency."]
    layout["meta"] = {"summary": ""}
    rows = pd.DataFrame() if df is None or df.empty else validation_rows(df, C.FAMILIES)
    if rows.empty:
        layout["meta"]["summary"] = " ".join([*said, "No measured run to show."])
        return {"data": data, "layout": layout}
    pred = R.predict_rows(rows, calibrations)
    for family, part in rows.groupby("hardware", sort=True):
        for mode, symbol in (("article", "circle-open"), ("calibrated", "circle")):
            ratio = part["median_tpot_ms"] / pred.loc[part.index, f"tpot_{mode}_ms"]
            name = f"{GPUS[family].name} · {mode} model"  # the GPU as the catalog names it, not its key
            said.append(_divergence_text(name, part["concurrency"], ratio))
            # Spread points at the same concurrency a little so both models stay visible.
            jitter = 1.06 if mode == "calibrated" else 1 / 1.06
            data.append(
                {
                    "type": "scatter",
                    "mode": "markers",
                    "name": name,
                    "x": (part["concurrency"].to_numpy(float) * jitter).tolist(),
                    "y": _rounded(ratio),
                    "customdata": _customdata(part),
                    "hovertemplate": "%{fullData.name}<br>measured/model %{y:,.3~r}<br>" + HOVER.split("<br>", 1)[1],
                    "marker": {"color": P.gpu_colour(family), "symbol": symbol, "size": 7, "opacity": 0.8},
                    "meta": {"model": mode, "hardware": family},
                }
            )
    layout["meta"]["summary"] = " ".join(said)
    fig = {"data": data, "layout": layout}
    decade_ticks(fig)
    return fig


def _divergence_text(name: str, concurrency: pd.Series, ratio: pd.Series) -> str:
    """E.g. "B200 · article model: 42 runs at concurrency 4 to 256, measured/model 0.712 to 9.80, median 6.10."."""
    c, r = concurrency.to_numpy(float), ratio.to_numpy(float)
    runs = f"{len(r):,} run{'s' if len(r) != 1 else ''}"
    span = f"{number(c.min())} to {number(c.max())}" if c.min() < c.max() else number(c.min())
    return (
        f"{name}: {runs} at concurrency {span}, measured/model {number(r.min())} to {number(r.max())}, "
        f"median {number(float(np.median(r)))}."
    )
