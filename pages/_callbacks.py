"""The callbacks every page with controls shares: the redraw, presets, slider labels, the explorer, the notes.

Importing this module registers them (pages import it for that); the inputs come from the parameters'
declarations, so a new parameter is an input of every one that reads the controls.
"""

from __future__ import annotations

import logging

from dash import ALL, Input, Output, State, callback, clientside_callback, no_update, set_props

from inferx.analysis.economics import default_price
from inferx.data.user_gpus import gpu_from_upload
from inferx.data.user_models import model_from_upload
from inferx.figures import registry
from inferx.physics.gpu_spec import GpuSpecError
from inferx.physics.model_config import ModelConfigError
from inferx.scenario.controls import BATCH, InvalidParameter, check_batch, check_param
from inferx.scenario.evaluation import Scenario
from inferx.scenario.machines import fitted_context, layout_note, per_gpu_values
from inferx.text import shown_value
from pages._cards import INTERNAL_ERROR, PRINT_SETTINGS_ID
from pages._compare import COMPARE_CARD_ID, PINNED_ID, TABLE_ID, pinned_scenario, table_update
from pages._controls import (
    CALIBRATION_INPUTS,
    CALIBRATION_LINE_ID,
    CONTEXT_NOTE_ID,
    GPU_CARRIED_ID,
    GPU_NOTE_ID,
    GPU_UPLOAD_ID,
    LAYOUT_NOTE_ID,
    MACHINE_NOTE_ID,
    MODEL_NOTE_ID,
    MODEL_UPLOAD_ID,
    assumed_id,
    assumed_text,
    assumed_text_id,
    assumed_values,
    by_load,
    calibration_line,
    choice_options,
    gpu_summary,
    machine_controls,
    machine_note,
    model_summary,
    preset_controls,
    reset_id,
    resettable,
)
from pages._ids import BATCH_ID, control_id
from pages._landing import MODE_BANNER_ID, MODE_FLIP_ID, MODE_LINE_ID
from pages._url import control_values_to_params, controls, scenario_line, value_from_position

log = logging.getLogger(__name__)
LAYOUT_NOTE_INPUTS = ("ep", "dp", "tp", "model", "mode")  # what `layout_note` reads

CONTROL_INPUTS = [Input(control_id(name), "value") for name in controls()]
# The explorer's graph: the one figure that reads the batch.
EXPLORER = next(key for key, f in registry.FIGURES.items() if f.reads_batch)


# A control change writes the moved sliders' value labels, rewrites the address and asks for a redraw through
# the browser, which keeps one request in flight and sends only the newest state when it returns: a slider
# dragged faster than a round trip would otherwise have every request overtaken by the next one, and no figure
# would move until the drag stopped.
clientside_callback(
    "window.inferx.controlsChanged",
    Output("redraw-request", "data"),
    *CONTROL_INPUTS,
    Input(BATCH_ID, "value", allow_optional=True),
    Input(PINNED_ID, "data", allow_optional=True),  # Pin as A or Unpin: redraw with or without A
    State("ui-config", "data"),
    prevent_initial_call=True,  # the layout already holds the figures for the URL's state
)


@callback(
    Output("figure-updates", "data"),
    Output("runtime-notice", "children"),
    Output("runtime-notice", "is_open"),
    Input("redraw-request", "data"),
    State({"role": "figure", "fig": ALL}, "id"),
    prevent_initial_call=True,
)
def redraw(request, ids):
    """One engine pass per control state: {"fig1": figure, …} for the figures the page shows. Always answers
    (an empty dict after an error), since the browser waits for an answer before it asks again."""
    try:
        figs = redraw_figures(request, ids)
    except InvalidParameter as err:
        return {}, f"Could not redraw: {err}", True
    except Exception:  # the inputs were checked: this is our bug, so the log gets the traceback
        log.exception("redraw of %s failed", shown_value(request, 400))
        return {}, INTERNAL_ERROR, True
    if not request["batchOnly"]:  # in the same answer: a callback of its own was a second request per state
        try:
            follow_the_state(request)
        except Exception:  # the figures stand without it; the log gets the traceback
            log.exception("the state's table and print line for %s failed", shown_value(request, 400))
    return figs, None, False


def follow_the_state(request: dict) -> None:
    """What the page shows of the state besides the figures: the printout's settings line and, with A pinned, the
    table of A beside B (pages/_compare.py). An id the page lacks is passed over by the browser."""
    scn = Scenario.from_params(**control_values_to_params(request["values"]))
    set_props(PRINT_SETTINGS_ID, {"children": scenario_line(scn.params)})
    table = table_update(request)
    set_props(TABLE_ID, {"children": table["children"]})
    set_props(COMPARE_CARD_ID, {"hidden": table["hidden"]})


@callback(
    Output(CALIBRATION_LINE_ID, "children"),
    [Input(control_id(name), "value") for name in CALIBRATION_INPUTS],
    prevent_initial_call=True,  # the layout already holds the line for the URL's state
)
def calibration_basis(*values):
    """The calibration line under the controls, for the controls that choose the calibration."""
    try:
        return calibration_line(dict(zip(CALIBRATION_INPUTS, values, strict=True)))
    except InvalidParameter as err:
        return f"Calibration: {err}"


@callback(
    [Output(assumed_id(name), "data-assumed") for name in resettable()]
    + [Output(assumed_text_id(name), "children") for name in resettable()],
    Input(control_id("gpu"), "value"),
    Input(control_id("framework"), "value"),
    Input(control_id("wdtype"), "value"),
    Input(control_id("mode"), "value"),
    prevent_initial_call=True,  # the layout already holds them for the URL's state
)
def assumed_changed(gpu, framework, wdtype, mode):
    """What the unset sliders stand for on the machine, stack and physics the controls now give
    (`assumed_values`): for the arrow keys (`data-assumed`) and in the labels."""
    try:
        given = {"gpu": gpu, "framework": framework, "wdtype": wdtype, "mode": mode}
        values = {name: check_param(name, v) for name, v in given.items()}
    except InvalidParameter:
        return [""] * 2 * len(resettable())  # an arrow key then starts from the thumb, as before
    assumed = assumed_values(values)
    texts = [assumed_text(name, assumed[name], by_load(name, values["mode"])) for name in resettable()]
    return [str(assumed[name]) for name in resettable()] + texts


@callback(
    Output(MACHINE_NOTE_ID, "children"),
    Input(control_id("preset"), "value"),
    Input(control_id("gpu"), "value"),
    Input(control_id("gpus"), "value"),
    Input(control_id("wdtype"), "value"),  # compute is the datasheet's at the weights' precision
    Input(control_id("ic"), "value"),  # whether the GPU still has the preset's link
    prevent_initial_call=True,  # the layout already holds the note for the URL's state
)
def machine_changed(preset, gpu, gpus, wdtype="fp8", ic="nvlink"):
    """The note under the preset menu, for the machine the controls now give."""
    given = {"preset": preset, "gpu": gpu, "gpus": gpus, "wdtype": wdtype, "ic": ic}
    try:
        return machine_note({name: check_param(name, value) for name, value in given.items()})
    except InvalidParameter:
        return ""


@callback(
    Output(CONTEXT_NOTE_ID, "children"),
    Input(control_id("ctx"), "value"),
    Input(control_id("isl"), "value"),
    Input(control_id("osl"), "value"),
    prevent_initial_call=True,  # the layout already holds the note for the URL's state
)
def context_changed(ctx_position, isl_position, osl_position):
    """The warning under the workload when the context is shorter than the input, with the context drawn, from
    the three log2 sliders' positions."""
    try:
        lengths = {n: value_from_position(n, v) for n, v in (("ctx", ctx_position), ("isl", isl_position),
                                                             ("osl", osl_position))}  # fmt: skip
    except InvalidParameter:
        return ""
    return fitted_context(lengths)[1]


@callback(
    Output(LAYOUT_NOTE_ID, "children"),
    *(Input(control_id(name), "value") for name in LAYOUT_NOTE_INPUTS),
    prevent_initial_call=True,  # the layout already holds the note for the URL's state
)
def layout_changed(*given):
    """The note under the parallel-layout switches: where expert or attention data parallelism has no effect (a
    dense model, TP 1), or no calibrated term of its own. A value the controls would refuse gets no note: the redraw
    says why."""
    try:
        values = {name: value if value is None else check_param(name, value)
                  for name, value in zip(LAYOUT_NOTE_INPUTS, given, strict=True)}  # fmt: skip
    except InvalidParameter:
        return ""
    return layout_note(values)


def could_not_read(filename, err: Exception) -> str:
    """The note under a drop zone when its file is refused, naming the file (as the browser sent its name)."""
    shown = filename[:80] if isinstance(filename, str) else "the file"
    return f"Could not read {shown}: {err}"


@callback(
    Output(control_id("model"), "options"),
    Output(control_id("model"), "value"),
    Output(MODEL_NOTE_ID, "children"),
    Input(MODEL_UPLOAD_ID, "contents"),
    State(MODEL_UPLOAD_ID, "filename"),
    prevent_initial_call=True,
)
def choose_uploaded_model(contents, filename):
    """A config.json chosen in the browser selects its model, by a key that carries it (so the address, a pinned
    A and every redraw hold the model; the server keeps nothing). Any other file leaves the model as it was."""
    try:
        key, spec = model_from_upload(contents, filename)
    except ModelConfigError as err:
        return no_update, no_update, could_not_read(filename, err)
    return choice_options("model", key), key, model_summary(spec)


@callback(
    Output(control_id("gpu"), "options"),
    Output(control_id("gpu"), "value"),
    Output(GPU_NOTE_ID, "children"),
    Output(GPU_CARRIED_ID, "data"),
    Input(GPU_UPLOAD_ID, "contents"),
    State(GPU_UPLOAD_ID, "filename"),
    prevent_initial_call=True,
)
def choose_uploaded_gpu(contents, filename):
    """A GPU datasheet chosen in the browser selects its GPU, by a key that carries it, as a config.json does a
    model, and hands the browser its numbers (`carried_gpu`), from which the menu's change sets bandwidth, compute
    and HBM for the count chosen. Any other file leaves the GPU as it was."""
    try:
        key, gpu = gpu_from_upload(contents)
    except GpuSpecError as err:
        return no_update, no_update, could_not_read(filename, err), no_update
    return choice_options("gpu", key), key, gpu_summary(gpu, default_price(key)), {key: per_gpu_values(key)}


# A GPU the address carries, or a datasheet read, joins the browser's GPU table (for the address's arithmetic).
clientside_callback(
    "window.inferx.learnGpus",
    Output("ui-config", "data", allow_duplicate=True),
    Input(GPU_CARRIED_ID, "data"),
    State("ui-config", "data"),
    prevent_initial_call="initial_duplicate",
)


def redraw_figures(request, ids) -> dict:
    """{"fig1": figure, …} of a redraw request (checked by `read_redraw`): what the redraw callback answers
    and what the drag route (pages/_drag.py) answers for a drag's step."""
    names, batch, scn = read_redraw(request, ids)
    return registry.build(scn, names, batch, pinned=pinned_scenario(request.get("pinned")))


def read_redraw(request, ids) -> tuple[list[str], int, Scenario]:
    """The figures to draw, the batch and the scenario of a redraw request, checked by shape and type before
    anything reads them (the request comes from the browser, so from anyone). The request's optional
    `figures` narrows the page's graphs to those the browser has in view; without it every graph is drawn."""
    known = registry.FIGURES
    if not isinstance(ids, list) or len(ids) > len(known):  # each figure at most once per page
        raise InvalidParameter("figures", f"must be a list of at most {len(known)} figure ids", ids)
    shown = []
    for i in ids:
        fig = i.get("fig") if isinstance(i, dict) else None
        if not isinstance(fig, str) or fig not in known:
            raise InvalidParameter("figures", f"each id must name one of {', '.join(known)}", i)
        shown.append(fig)
    if not isinstance(request, dict) or not {"values", "batch", "batchOnly"} <= request.keys():
        raise InvalidParameter("request", "must be a control state {values, batch, batchOnly}", request)
    batch_only = request["batchOnly"]
    if not isinstance(batch_only, bool):
        raise InvalidParameter("batchOnly", "must be true or false", batch_only)
    names = [n for n in shown if known[n].reads_batch] if batch_only else shown
    if "figures" in request:  # the browser asks only for the graphs in or near its viewport
        wanted = request["figures"]
        ok = isinstance(wanted, list) and len(wanted) <= len(known)
        if not (ok and all(isinstance(w, str) and w in known for w in wanted)):
            raise InvalidParameter("figures", f"must be a list of at most {len(known)} of {', '.join(known)}", wanted)
        names = [n for n in names if n in wanted]
    position = request["batch"]
    batch = BATCH.default if position is None else check_batch(value_from_position("batch", position))
    return names, batch, Scenario.from_params(**control_values_to_params(request["values"]))


clientside_callback(
    "window.inferx.showFigures",
    Output({"role": "figure", "fig": ALL}, "figure", allow_duplicate=True),
    Input("figure-updates", "data"),
    State({"role": "figure", "fig": ALL}, "id"),
    prevent_initial_call=True,
)


# A shortcut sets its machine's controls; a GPU, count and link picked by hand that are one of the article's
# machines select its shortcut (one callback both ways: Dash allows a loop within one callback only).
clientside_callback(
    "window.inferx.applyPreset",
    [Output(control_id(n), "value", allow_duplicate=True) for n in preset_controls()],
    Output(control_id("preset"), "value", allow_duplicate=True),
    Input(control_id("preset"), "value"),
    Input(control_id("gpu"), "value"),
    Input(control_id("gpus"), "value"),
    Input(control_id("ic"), "value"),
    State("ui-config", "data"),
    prevent_initial_call=True,
)

# A GPU or count chosen by hand sets bandwidth, compute and HBM from the catalog (scenario.machine_values).
clientside_callback(
    "window.inferx.applyMachine",
    [Output(control_id(n), "value", allow_duplicate=True) for n in machine_controls()],
    Input(control_id("gpu"), "value"),
    Input(control_id("gpus"), "value"),
    State(control_id("preset"), "value"),
    State(control_id("wdtype"), "value"),
    State("ui-config", "data"),
    State(GPU_CARRIED_ID, "data"),
    prevent_initial_call=True,
)

# Every page's Dashboard and InferenceX links carry the scenario last shown in the tab (assets/inferx.js).
clientside_callback(
    "window.inferx.scenarioLinks",
    Output("nav-dashboard", "href"),
    Output("nav-inferencex", "href"),
    Input("nav-dashboard", "id"),
)

# A weight format chosen after the GPU sets that GPU's dense compute at the format, as choosing it before does.
clientside_callback(
    "window.inferx.formatCompute",
    Output(control_id("compute"), "value", allow_duplicate=True),
    Input(control_id("wdtype"), "value"),
    State(control_id("gpu"), "value"),
    State(control_id("gpus"), "value"),
    State(control_id("preset"), "value"),
    State("ui-config", "data"),
    State(GPU_CARRIED_ID, "data"),
    prevent_initial_call=True,
)

# A GPU chosen by hand sets the interconnect to its default link (scenario.machines.default_link): the article's
# on the article's GPUs, else its own scale-up link (presets.SCALE_UP), as an address naming a GPU and no `ic`.
clientside_callback(
    "window.inferx.ownLink",
    Output(control_id("ic"), "value", allow_duplicate=True),
    Input(control_id("gpu"), "value"),
    State(control_id("preset"), "value"),
    State("ui-config", "data"),
    prevent_initial_call=True,
)

# A GPU count chosen by hand sets TP to the largest power of two within it (scenario.machines.machine_tp), as
# the server's resolve_params.
clientside_callback(
    "window.inferx.fitTp",
    Output(control_id("tp"), "value", allow_duplicate=True),
    Input(control_id("gpus"), "value"),
    State(control_id("tp"), "value"),
    prevent_initial_call=True,
)

# A named workload sets the input, output and context sliders; input or output moved away from it makes it custom.
# One callback, both ways (Dash allows a loop within one callback only).
clientside_callback(
    "window.inferx.workloadChanged",
    Output(control_id("workload"), "value", allow_duplicate=True),
    Output(control_id("isl"), "value", allow_duplicate=True),
    Output(control_id("osl"), "value", allow_duplicate=True),
    Output(control_id("ctx"), "value", allow_duplicate=True),
    Input(control_id("workload"), "value"),
    Input(control_id("isl"), "value"),
    Input(control_id("osl"), "value"),
    State("ui-config", "data"),
    prevent_initial_call=True,
)

# The button beside a slider that may stay unset (MTP acceptance) gives the value back to the model: the slider
# goes empty (the redraw then sends no value, so the address drops it) and controlsChanged writes the unset word
# in its label.
for _name in resettable():
    clientside_callback(
        "function () { return null; }",
        Output(control_id(_name), "value", allow_duplicate=True),
        Input(reset_id(_name), "n_clicks"),
        prevent_initial_call=True,
    )
    # While unset, the label gives the assumed value and the button, which would change nothing, is hidden. A
    # keyboard user who pressed it goes on from the slider's thumb, not from the top of the page.
    clientside_callback(
        """function (value, hidden) {
            const unset = value === null || value === undefined;
            if (hidden === unset) throw window.dash_clientside.PreventUpdate;
            const button = document.getElementById("RESET");
            const thumb = document.querySelector("#SLIDER [role=slider]");
            if (unset && thumb && document.activeElement === button) thumb.focus();
            return [!unset, unset];
        }""".replace("RESET", reset_id(_name)).replace("SLIDER", control_id(_name)),
        Output(assumed_text_id(_name), "hidden"),
        Output(reset_id(_name), "hidden"),
        Input(control_id(_name), "value"),
        State(reset_id(_name), "hidden"),
        prevent_initial_call=True,
    )

clientside_callback(
    "window.inferx.explorer",
    Output("readout-throughput", "children"),
    Output("readout-ttft", "children"),
    Output("readout-itl", "children"),
    Output("readout-rho", "children"),
    Output("batch-value", "children"),
    Output(BATCH_ID, "max"),
    Output(BATCH_ID, "marks"),
    Output({"role": "figure", "fig": EXPLORER}, "figure", allow_duplicate=True),
    Output("readout-cost", "children"),
    Output("readout-energy", "children"),
    Output("readout-price", "children"),
    Output("readout-regime", "children"),
    Output("readout-goodput", "children"),
    Input(BATCH_ID, "drag_value"),
    Input(BATCH_ID, "value"),
    Input({"role": "figure", "fig": EXPLORER}, "figure"),
    State(BATCH_ID, "max"),
    prevent_initial_call="initial_duplicate",  # fill the readouts from the layout's figure on load
)

clientside_callback(
    "window.inferx.toggleAnimation",
    Output("btn-animate", "children"),
    Input("btn-animate", "n_clicks"),
    State("ui-config", "data"),
    prevent_initial_call=True,
)


# The line over the figures says which model they show; its button sets the Physics control to the other.
clientside_callback(
    "window.inferx.modeBanner",
    Output(MODE_LINE_ID, "children"),
    Output(MODE_FLIP_ID, "children"),
    Input(control_id("mode"), "value"),
    State(MODE_BANNER_ID, "data-lines"),
    State(MODE_BANNER_ID, "data-flips"),
    prevent_initial_call=True,
)
clientside_callback(
    "window.inferx.flipMode",
    Output(control_id("mode"), "value", allow_duplicate=True),
    Input(MODE_FLIP_ID, "n_clicks"),
    State(control_id("mode"), "value"),
    prevent_initial_call=True,
)
