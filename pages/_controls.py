"""The control widgets, each made from its parameter's declaration in inferx.scenario.PARAMS."""

from __future__ import annotations

import functools
import math
from dataclasses import replace

from dash import dcc, get_relative_path, html

from inferx.data.user_gpus import MAX_SPEC_BYTES
from inferx.data.user_models import MAX_CONFIG_BYTES
from inferx.figures.registry import FIGURES
from inferx.physics.gpu import GPU
from inferx.physics.hardware import GPUS
from inferx.physics.model_spec import DTYPE_BYTES, ModelSpec
from inferx.physics.models import kv_bytes_per_token
from inferx.physics.presets import HARDWARE, SCALE_UP
from inferx.scenario.controls import (
    ARTICLE_ONLY,
    BATCH,
    CALIBRATED_ONLY,
    CUSTOM,
    GROUPS,
    PARAMS,
    WORKLOADS,
    InvalidParameter,
    Param,
    decimals,
    keyboard_step,
    link,
    slider_position,
    workload_context,
)
from inferx.scenario.evaluation import Scenario
from inferx.scenario.machines import (
    article_machine,
    borrowed_link,
    datasheet_values,
    default_link,
    default_params,
    fitted_context,
    layout_note,
    per_gpu_values,
    resolve_params,
    shortcut_of,
)
from inferx.serving.adapter import power_draw
from inferx.text import counted, number
from pages._compare import PINNED_ID
from pages._ids import BATCH_ID, CONTROL_PREFIX, control_id, graph_wrapper_id, value_id

DRAG_ROUTE = "_drag"  # where a dragged slider asks for its redraws (pages/_drag.py), under the app's prefix


def sliders() -> tuple[str, ...]:
    return tuple(name for name, p in PARAMS.items() if p.kind in ("float", "int"))


def resettable() -> tuple[str, ...]:
    """Sliders that may stay unset (the model picks: MTP acceptance "fitted"), each with a button back to it."""
    return tuple(name for name in sliders() if PARAMS[name].unset)


def reset_id(name: str) -> str:
    """The id of the button that unsets slider `name`."""
    return f"{control_id(name)}-reset"


def preset_controls() -> tuple[str, ...]:
    """The controls a hardware preset sets, in PARAMS order (the browser's applyPreset fills these)."""
    return tuple(name for name, p in PARAMS.items() if p.preset)


def machine_controls() -> tuple[str, ...]:
    """The controls choosing a GPU and a count sets (the browser's applyMachine fills these)."""
    return tuple(name for name, p in PARAMS.items() if p.machine)


def _label(name: str) -> html.Label:
    p = PARAMS[name]
    unit = html.Span(f" {p.unit}", className="unit") if p.unit else None
    # Its id lets a dropdown's button (assets/a11y.js) be named by it: Dash names the button by its value alone.
    return html.Label([p.label, unit], htmlFor=control_id(name), id=label_id(name), className="ctl-label")


def label_id(name: str) -> str:
    return f"{control_id(name)}-label"


def _value_label(name: str, value, assumed=None, by_load: bool = False) -> html.Label:
    """A slider's label with its live value and unit, e.g. "Memory bandwidth 38.4 TB/s". One that may stay unset
    also holds what the unset word stands for ("Price assumed 3.50 $/GPU-h"), shown while it is unset."""
    value_text = html.Span(format_slider_value(name, value), id=value_id(name), className="ctl-value")
    parts = [PARAMS[name].label, value_text]
    if PARAMS[name].unset:
        shown = assumed_text(name, assumed, by_load)
        parts.append(html.Span(shown, id=assumed_text_id(name), className="ctl-assumed", hidden=value is not None))
    return html.Label(parts, htmlFor=control_id(name), className="ctl-label")


def _decimals(name: str) -> int:
    return decimals(PARAMS[name])


def format_slider_value(name: str, value) -> str:
    """The same text window.inferx.controlsChanged writes while the slider moves."""
    if value is None:  # a slider left unset (acceptance): the model's own value
        return PARAMS[name].unset
    return counted(f"{value:,.{decimals(PARAMS[name], value)}f}", PARAMS[name].unit)


MAX_MARKS = 7  # labels a ~200 px sidebar slider holds apart: compute's nine (0.1 … 1K) ran together


def _log2_marks(p: Param) -> dict:
    """Marks of a log2 slider at readable values: a count's every second power of two (128, 512, 2K, …), every
    fourth over more than 12 doublings (1, 16, 256, 4K, 64K tokens); a quantity's 1 and 3 of each decade (1, 3, 10,
    30, 100 TB/s, …), or its decades alone where those would be more than `MAX_MARKS`, each at its position (log2
    of it)."""
    if p.kind == "int":
        low, high = math.ceil(math.log2(p.low)), math.floor(math.log2(p.high))
        every = 2 if high - low <= 12 else 4
        return {e: (f"{2**e // 1024}K" if e >= 10 else str(2**e)) for e in range(low, high + 1, every)}
    decades = range(math.floor(math.log10(p.low)), math.ceil(math.log10(p.high)) + 1)
    shown = [(first, float(f"{first * 10.0**d:.12g}")) for d in decades for first in (1, 3)]  # 0.3, not 0.3000…04
    shown = [(first, v) for first, v in shown if p.low <= v <= p.high]
    values = [v for first, v in shown if len(shown) <= MAX_MARKS or first == 1]
    return {round(math.log2(v), 6): f"{v / 1000:g}K" if v >= 1000 else f"{v:g}" for v in values}


def assumed_values(values: dict) -> dict:
    """What each slider that may stay unset stands for while it is, in its unit: the GPU's assumed price, the
    fitted MTP acceptance of its calibration and the power drawn by default in the physics chosen. The thumb is
    drawn there and the first arrow key moves from there (assets/a11y.js), not from where Radix leaves an unset
    thumb."""
    from inferx.analysis.economics import default_price
    from inferx.physics.engine import POWER_FRACTION
    from inferx.serving.adapter import weight_precision
    from inferx.serving.stored import calibration_for

    precision = weight_precision(DTYPE_BYTES[values["wdtype"]])
    cal, _ = calibration_for(values["gpu"], values["framework"], None, precision)
    # Calibrated mode's draw grows with the load: the thumb stands at its floor, the label says "by load".
    power = power_draw().floor if by_load("power", values["mode"]) else POWER_FRACTION
    return {"price": default_price(values["gpu"]), "acceptance": round(100 * cal.acceptance, 1), "power": power}


def assumed_id(name: str) -> str:
    """The id of the box around slider `name` that carries its assumed value (`data-assumed`)."""
    return f"{control_id(name)}-box"


def assumed_text_id(name: str) -> str:
    """The id of the text in slider `name`'s label that gives its assumed value while it is unset."""
    return f"{control_id(name)}-assumed"


def assumed_text(name: str, assumed, by_load: bool = False) -> str:
    """An unset slider's assumed value as its label shows it ("3.50 $/GPU-h"), or nothing where it is unknown;
    `by_load`: a value that grows with the load from `assumed`, where the thumb stands (calibrated mode's power
    drawn), which the label says in two words: the sidebar has no room for more."""
    if assumed is None:
        return ""
    return "by load" if by_load else format_slider_value(name, assumed)


def by_load(name: str, mode: str) -> bool:
    """Whether unset slider `name` stands for a value that grows with the load: the power drawn in calibrated
    mode, where the calibration holds a draw."""
    return name == "power" and mode == "calibrated" and power_draw() is not None


def _accessible(slider: dcc.Slider, p: Param, decimals: int, key_step: float, box: dict | None = None) -> html.Div:
    """A slider inside what assets/a11y.js needs to name its thumb, say its value in its unit ("1,024 tokens",
    "38.4 TB/s", not the exponent) and move it by `key_step` per arrow key: Dash 4's Radix slider takes no aria
    props. A log2 slider's drag step and kind let the browser turn a position into the value as the server does
    (`scenario.value_at`). `box`: more attributes of the wrapper (an unset slider's assumed value)."""
    data = {"label": p.label, "unit": p.unit, "decimals": decimals, "log2": int(p.log2), "key-step": key_step}
    if p.log2:
        data |= {"step": p.step, "whole": int(p.kind == "int")}
    if p.unset:  # a slider left to the model ("assumed", "fitted") says that word, not the end its thumb sits at
        data["unset"] = p.unset
    return html.Div(slider, className="a11y-slider", **{f"data-{k}": str(v) for k, v in data.items()}, **(box or {}))


def choice_options(name: str, value=None) -> list[dict]:
    """A choice's menu: its listed values, and `value` where it is one the choice takes without listing it (a
    model from a config.json or a GPU from a datasheet, which its key carries)."""
    p = PARAMS[name]
    options = [{"label": p.label_of(key), "value": key} for key in p.choices]
    if value is not None and value not in p.choices and value in p.options:
        options.append({"label": f"{p.label_of(value)} ({p.options.file})", "value": value})
    return options


MODEL_UPLOAD_ID = "model-upload"
MODEL_NOTE_ID = "model-upload-note"
GPU_UPLOAD_ID = "gpu-upload"
GPU_NOTE_ID = "gpu-upload-note"


def file_drop(upload_id: str, note_id: str, what: str, file: str, max_size: int) -> html.Div:
    """A drop zone under a menu (pages/_callbacks reads it: the entry the file describes joins the menu), and the
    line that says what was read."""
    return html.Div(
        [
            dcc.Upload(
                html.Div([f"Your {what}: drop or ", html.Span("choose", className="file-choose"), f" its {file}"]),
                id=upload_id,
                accept=".json,application/json",
                max_size=max_size,
                multiple=False,
                className="file-drop",
            ),
            html.Div(id=note_id, className="unit file-drop-note", role="status"),
        ],
        # A file the zone refuses by itself (too large, not JSON) is said in the note: assets/uploads.js.
        **{"data-max-bytes": max_size, "data-note": note_id, "data-verb": "read"},
    )


def model_upload() -> html.Div:
    return file_drop(MODEL_UPLOAD_ID, MODEL_NOTE_ID, "model", "config.json", MAX_CONFIG_BYTES)


def gpu_upload() -> html.Div:
    return file_drop(GPU_UPLOAD_ID, GPU_NOTE_ID, "GPU", "datasheet (JSON)", MAX_SPEC_BYTES)


def model_summary(spec: ModelSpec) -> str:
    """What the page read from a config.json, in the units the controls use."""
    kind = f"{spec.experts_per_token} of {spec.n_routed_experts} experts a token" if spec.is_moe else "dense"
    return (
        f"{spec.name}: {number(spec.p_total / 1e9)} billion parameters, {number(spec.p_active / 1e9)} billion read "
        f"per token ({kind}), {kv_bytes_per_token(spec, 1.0):,.0f} bytes of KV cache per token at FP8"
        + (
            f", and {number(spec.state_bytes / 1e6)} MB of recurrent state per request in its "
            f"{len(spec.state_layers)} Mamba or linear-attention layers (held at 16 bits). "
            if spec.state_layers
            else ". "
        )
        + "The address now carries it: copy the link to share it."
    )


def gpu_summary(gpu: GPU, price: float) -> str:
    """What the page read from a GPU's datasheet, in the units the controls use."""
    fp8 = "no FP8" if gpu.fp8 is None else f"{gpu.fp8 / 1e12:,.0f} TFLOPS FP8"
    return (
        f"{gpu.name}: {gpu.hbm / 1e9:,.0f} GB of HBM at {gpu.bw / 1e12:,.3g} TB/s, {gpu.bf16 / 1e12:,.0f} TFLOPS "
        f"BF16 and {fp8} (dense), {gpu.power:,.0f} W, ${price:,.2f}/GPU-hour (assumed). "
        "The address now carries it: copy the link to share it."
    )


def _widget(name: str, p: Param, value, assumed=None):
    cid = control_id(name)
    if p.kind == "choice" and p.radio:
        return dcc.RadioItems(id=cid, options=choice_options(name), value=value, inline=True, className="radio-row")
    if p.kind == "choice":
        return dcc.Dropdown(id=cid, options=choice_options(name, value), value=value, clearable=False, searchable=False)
    if p.kind == "pow2":
        options = [{"label": str(2**i), "value": 2**i} for i in range(int(math.log2(p.high)) + 1)]
        return dcc.RadioItems(id=cid, options=options, value=value, inline=True, className="radio-row")
    if p.log2:
        slider = dcc.Slider(
            id=cid,
            min=math.log2(p.low),
            max=math.log2(p.high),
            step=p.step,
            value=slider_position(p, value),
            marks=_log2_marks(p),
            # A pointer drag of a control is assets/inferx.js's (Radix never sees it); where it leaves one to
            # Radix (/inferencex) the value, and so the overlay, follows the drag.
            updatemode="drag",
            allow_direct_input=False,
        )
    else:
        # The value is shown in the label: Dash hides a slider's number box in a sidebar this narrow.
        slider = dcc.Slider(
            id=cid,
            min=p.low,
            max=p.high,
            step=p.step,
            value=value,
            updatemode="drag",
            marks=None,
            tooltip=None,
            allow_direct_input=False,
        )
    box = {"id": assumed_id(name), "data-assumed": "" if assumed is None else str(assumed)} if p.unset else None
    return _accessible(slider, p, _decimals(name), keyboard_step(p), box)


def control(name: str, value, unread_note: bool = True, assumed=None, mode: str = "article") -> html.Div:
    p = PARAMS[name]
    label = _value_label(name, value, assumed, by_load(name, mode)) if name in sliders() else _label(name)
    if name in resettable():  # a slider cannot be dragged to "unset": this button brings the model's value back
        # The label already reads the unset word while unset: the button says what it does ("use fitted").
        reset = html.Button(
            f"use {p.unset}",
            id=reset_id(name),
            n_clicks=0,
            type="button",
            className="btn btn-link btn-sm p-0 ctl-reset",
            title=f"back to the {p.unset} value",
            hidden=value is None,  # already there: the label says so
        )
        label = html.Div([label, reset], className="d-flex justify-content-between align-items-baseline")
    # One of the two models does not read these: assets/style.css says so under their labels in the other mode.
    # Not on /inferencex (`unread_note` off), which draws the calibrated curve in either mode.
    kind = "ctl"
    if unread_note and name in CALIBRATED_ONLY:
        kind += " calibrated-only"
    elif unread_note and name in ARTICLE_ONLY:
        kind += " article-only"
    # A note the control's changes rewrite describes it (assets/a11y.js): heard with the control, not re-read as a
    # live region on every arrow-key step.
    described = {"data-note": NOTE_OF[name]} if name in NOTE_OF else {}
    return html.Div([label, _widget(name, p, value, assumed)], className=kind, title=p.help, **described)


def control_groups(values: dict, overlay_only: bool = False) -> list:
    """Every control under its group's heading. With `overlay_only` (the /inferencex page) the controls that do
    not move its model curve are still on the page, hidden, because the shared callbacks take every control."""
    shown = {name: p for name, p in PARAMS.items() if p.overlay or not overlay_only}
    assumed = assumed_values(values)
    body = []
    for group in GROUPS:
        names = [name for name, p in shown.items() if p.group == group]
        if names:
            body.append(html.H3(group, className="ctl-group"))  # under the panel's "Controls" or "Settings"
            for n in names:
                body.append(control(n, values[n], not overlay_only, assumed.get(n), values["mode"]))
                if n == "model":  # a model of one's own, right under the menu it joins
                    body.append(model_upload())
                if n == "gpu":  # and a GPU of one's own, with the store that hands the browser its numbers
                    body += [gpu_upload(), carried_gpu(values.get("gpu"))]
                if n == "preset":  # says when the GPU or count chosen by hand is no longer the preset's machine
                    note = machine_note(values)
                    body.append(html.Div(note, id=MACHINE_NOTE_ID, className="unit machine-note"))
                if n == "ctx":  # warns when the context is shorter than the prompt, with the context drawn
                    note = fitted_context(values)[1]
                    body.append(html.Div(note, id=CONTEXT_NOTE_ID, className="unit machine-note"))
                if n == "dp":  # says when EP or DP has no effect (a dense model, TP 1), or no calibrated term
                    body.append(html.Div(layout_note(values), id=LAYOUT_NOTE_ID, className="unit machine-note"))
    hidden = [control(n, values[n], False, assumed.get(n), values["mode"]) for n in PARAMS if n not in shown]
    if hidden:
        body.append(html.Div(hidden, hidden=True))
    body.append(html.Div(calibration_line(values), id=CALIBRATION_LINE_ID, className="calibration-basis small"))
    return body


MACHINE_NOTE_ID = "machine-note"
CONTEXT_NOTE_ID = "context-note"
LAYOUT_NOTE_ID = "layout-note"
NOTE_OF = {"preset": MACHINE_NOTE_ID, "gpu": MACHINE_NOTE_ID, "gpus": MACHINE_NOTE_ID, "ic": MACHINE_NOTE_ID,
           "ctx": CONTEXT_NOTE_ID, "isl": CONTEXT_NOTE_ID, "osl": CONTEXT_NOTE_ID, "ep": LAYOUT_NOTE_ID,
           "dp": LAYOUT_NOTE_ID}  # fmt: skip


def machine_note(values: dict) -> str:
    """Under the shortcut menu: the machine drawn when the GPU, count and interconnect chosen are none of the
    article's machines (the menu says Custom) and where its numbers come from; empty when they are the
    shortcut's."""
    gpu, count, ic = values["gpu"], values["gpus"], values.get("ic") or default_link(values["gpu"])
    shortcut = shortcut_of(gpu, count, ic) if gpu in GPUS else None
    if gpu not in GPUS or shortcut == values["preset"]:
        return ""
    if shortcut is not None:  # the menu catches up in the browser; an address may name the machine by its parts
        return f"Drawing the article's {HARDWARE[shortcut].label}, as its shortcut does."
    try:  # a datasheet (one's own) whose numbers at this count pass a control's range cannot be drawn
        resolve_params({name: values[name] for name in ("preset", "gpu", "gpus", "wdtype") if name in values})
    except InvalidParameter as err:
        return f"Cannot draw this machine: {err.reason}."
    over = link({"gpu": gpu, "ic": ic}).label
    if article_machine(gpu, count) is not None:  # the article's machine on another link
        note = f"Drawing {count}×{GPUS[gpu].name} over {over}: the article's machine on another link, no shortcut"
    else:
        note = f"Drawing {count}×{GPUS[gpu].name} over {over}, a machine no shortcut names"
        sparse = next((hw for key, hw in HARDWARE.items() if hw.family == gpu and _takes_the_articles_numbers(key)),
                      None)  # fmt: skip
        if sparse is not None:
            note += f": datasheet numbers (dense compute), where the article's {sparse.label} takes the article's"
    links = borrowed_link({**values, "ic": ic})
    if links:  # an address that names the GPU and no link
        used, own = links
        note += (
            f". Its collectives take the article's {used.label} ({used.bw / 1e9:,.4g} GB/s one way), not its own "
            f'{GPUS[gpu].link} ({own.bw / 1e9:,.4g} GB/s): pick "{PARAMS["ic"].label_of(SCALE_UP)}" under '
            f"{PARAMS['ic'].label}"
        )
    return note + "."


@functools.cache
def _takes_the_articles_numbers(preset: str) -> bool:
    """Whether a preset's bandwidth, compute or HBM differ from its own machine's datasheet numbers: the article
    took sparse compute for 8×H200 and 8×B200 (and 192 GB a B200), so a count moved by one halves compute, which
    the note explains rather than leave it to look like a bug."""
    values = default_params(preset)
    sheet = datasheet_values(values["gpu"], values["gpus"], values["wdtype"])
    return any(not math.isclose(values[k], v, rel_tol=5e-3) for k, v in sheet.items())


CALIBRATION_LINE_ID = "calibration-basis"
# The controls that decide which calibration a calibrated scenario uses (the line under the controls).
CALIBRATION_INPUTS = ("mode", "preset", "gpu", "gpus", "wdtype", "framework", "model", "mtp", "acceptance")


def calibration_line(values: dict) -> list:
    """In calibrated mode, which calibration the curves use and on what basis, and a plain warning when the
    selected model is not the one the calibration was fitted on; nothing in article mode."""
    if values.get("mode") != "calibrated":
        return []
    from inferx.serving.adapter import basis_text, scenario_calibration  # kept out of article pages
    from inferx.serving.stored import measured_error_text

    given = {name: values.get(name) for name in CALIBRATION_INPUTS}
    try:
        info = scenario_calibration(Scenario.from_params(**given))
    except InvalidParameter as err:
        if err.name != "gpus":
            raise
        return []  # a GPU and count no control can draw: the note under the preset says why
    source = "set" if info["acceptance_source"] == "set" else "the calibration's"
    alpha = f"; MTP α {info['acceptance']:.0%} ({source})" if values.get("mtp") == "on" else ""
    line = [html.Span(basis_text(info) + alpha, className="calibration-text")]
    line.append(html.Span(measured_error_text(info), className="calibration-error"))  # a block of its own
    if info["note"]:
        line += [html.Br(), html.Strong(info["note"], className="calibration-note")]
    return line


def controls_panel(values: dict) -> html.Div:
    body = control_groups(values)
    # The control state a redraw is asked for, and the figures it returns (assets/inferx.js: controlsChanged,
    # showFigures). The first is the output of the callback that also rewrites the address; it sits beside
    # its inputs, so prevent_initial_call holds when the router inserts the page. With it outside, a slow
    # browser rewrote the address before dcc.Location had settled, and Location pushed its stale address
    # back, re-rendering the page in a loop.
    body += [dcc.Store(id="redraw-request"), dcc.Store(id="figure-updates")]
    return html.Div(body, className="controls")


GPU_CARRIED_ID = "gpu-carried"


def carried_gpu(gpu) -> dcc.Store:
    """A GPU the address carries (a datasheet chosen in a browser), for the browser's GPU table: `ui-config` is
    built once with the app and lists the catalog's only, and the browser multiplies a GPU's numbers by the count
    chosen (assets/inferx.js learnGpus adds these)."""
    carried = isinstance(gpu, str) and gpu not in PARAMS["gpu"].choices and gpu in GPUS
    return dcc.Store(id=GPU_CARRIED_ID, data={gpu: per_gpu_values(gpu)} if carried else None)


def explorer_controls(batch: int) -> html.Div:
    return html.Div(
        [
            html.Label(
                [
                    "Batch size B ",
                    html.Span(str(batch), id="batch-value", className="ctl-value"),
                    html.Span(" requests", className="unit"),
                    # The limit binding at the dot, named by assets/inferx.js in its regime colour.
                    html.Span("", id="batch-regime", className="regime-chip"),
                ],
                htmlFor=BATCH_ID,
                className="ctl-label",
            ),
            html.Div(
                [
                    html.Div(
                        _accessible(
                            dcc.Slider(
                                id=BATCH_ID,
                                min=0,
                                max=14,
                                step=0.01,
                                value=math.log2(batch),
                                updatemode="drag",
                                allow_direct_input=False,
                                marks={i: f"{2**i:,}" for i in range(0, 17, 2)},
                            ),
                            replace(BATCH, label="Batch size B"),
                            0,
                            keyboard_step(BATCH),  # a doubling per arrow key, as on the token sliders
                        ),
                        className="grow",
                    ),
                    html.Button("Animate", id="btn-animate", className="btn btn-warning btn-sm"),
                ],
                className="batch-row",
            ),
        ]
    )


def ui_config() -> dcc.Store:
    """What the browser-side callbacks need, from the same declarations: the controls in callback order, which
    are log2 sliders (with their drag steps), the sliders' units, decimals and unset words, which controls a
    preset sets, the presets' values (user units), the controls a GPU and count set and each GPU's values, the
    interconnect a GPU chosen by hand takes (its own scale-up link), the id prefix, the explorer's graph and its
    default batch, where a drag asks for its redraws and the store that holds the pinned A."""
    data = {
        "controls": list(PARAMS),
        # A log2 slider's drag step and whether its value is a whole number (assets/inferx.js fromPosition).
        "log2": {name: [p.step, int(p.kind == "int")] for name, p in PARAMS.items() if p.log2},
        "sliders": {name: [PARAMS[name].unit, _decimals(name), PARAMS[name].unset] for name in sliders()},
        "presetControls": list(preset_controls()),
        # The presets' values; CUSTOM's (the default machine's) is the base an address of a custom machine leaves
        # values out against, and no machine's shortcut.
        "presets": {key: default_params(key) for key in (*HARDWARE, CUSTOM)},
        "custom": CUSTOM,
        "machineControls": list(machine_controls()),
        # A named workload's input, output and context (scenario.resolve_params), and each GPU's own link.
        "workloads": {key: [isl, osl, workload_context(isl, osl)] for key, (isl, osl) in WORKLOADS.items()},
        "defaultLinks": {key: default_link(key) for key in GPUS},
        "gpus": {key: per_gpu_values(key) for key in GPUS},
        "scaleUp": SCALE_UP,
        "prefix": CONTROL_PREFIX,
        "batchId": BATCH_ID,
        "explorerGraph": next(graph_wrapper_id(key) for key, f in FIGURES.items() if f.reads_batch),
        "batchDefault": BATCH.default,
        "dragUrl": get_relative_path(f"/{DRAG_ROUTE}"),
        "pinnedId": PINNED_ID,
    }
    return dcc.Store(id="ui-config", data=data)
