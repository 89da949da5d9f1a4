"""Controls, figure cards and the callbacks every page shares.

Dash Pages skips modules whose name starts with an underscore, so this is imported
by the page modules rather than registered as a page.
"""

from __future__ import annotations

import logging
import math

import dash_bootstrap_components as dbc
from dash import (
    ALL,
    MATCH,
    Input,
    Output,
    State,
    callback,
    clientside_callback,
    dcc,
    get_relative_path,
    html,
)

from inferx import figures
from inferx.presets import DTYPE_BYTES, HARDWARE, INTERCONNECTS
from inferx.scenario import (
    BATCH,
    PARAMS,
    InvalidParameter,
    Scenario,
    as_number,
    check_batch,
    check_param,
    default_params,
    shown_value,
)

log = logging.getLogger(__name__)
INTERNAL_ERROR = "Something went wrong on the server drawing these settings; it has been logged."

CONTROLS = tuple(PARAMS)  # preset, bw, compute, hbm, ctx, isl, wdtype, kvdtype, cv, util, tp, pp, ic, mode
LOG2_CONTROLS = ("ctx", "isl")  # sliders whose position is log2(tokens)
SLIDERS = tuple(name for name, p in PARAMS.items() if p.kind in ("float", "int"))
DEFAULT_BATCH = BATCH.default
FIGURE_ORDER = figures.FIGURES

TITLES = {
    "fig1": "Figure 1 · The decode roofline",
    "fig2": "Figure 2 · The KV-cache tax",
    "fig3": "Figure 3 · Where time to first token comes from",
    "fig4": "Figure 4 · Inter-token latency against throughput",
    "fig5": "Figure 5 · The throughput–TTFT frontier",
    "fig6": "Figure 6 · Operating-point explorer",
    "fig7": "Figure 7 · Quantization",
    "fig8": "Figure 8 · Collective communication",
    "fig9": "Figure 9 · Workload reality check",
}

# Our captions; each ends with the figure's governing equation (MathJax).
CAPTIONS = {
    "fig1": (
        "Ignore the KV cache and every decode step streams the active weights from HBM once, whatever the batch. "
        "Batching more requests into that one read buys throughput linearly, until the arithmetic units saturate "
        "at the ridge batch $B^*$ (dashed); past it more requests only queue behind the same FLOPs. With "
        "TP or PP above one, the solid line adds each step's collective cost.",
        r"T(B)=\frac{B}{\max\left(\frac{P_\text{active}\,b_w}{\text{BW}},\ \frac{2P_\text{active}B}{\text{compute}}"
        r"\right)},\qquad B^*=\frac{b_w\cdot\text{compute}}{2\,\text{BW}}",
    ),
    "fig2": (
        "Each request in the batch also reads its own KV cache every step, so bytes per step grow with $B\\cdot S$. "
        "Longer contexts bend the curve over sooner and cap it at $T_\\infty(S)$ (dashed), a ceiling that no "
        "weight format moves. Curves end at $B_\\text{max}$, where the KV headroom is full.",
        r"T_\infty(S)=\frac{\text{BW}}{S\,\kappa},\qquad \kappa=L\,(d_c+d_r)\,b_{kv}",
    ),
    "fig3": (
        "Prefill of the prompt sets a floor that batching cannot lower. On top sits the wait for a decode slot, "
        "modelled as an M/G/1 queue: small while the batch is far from the KV limit, unbounded as "
        "$\\rho=B/B_\\text{max}\\to1$. Operators aim to stay in the shaded band, $\\rho\\le0.85$.",
        r"\text{TTFT}=t_\text{prefill}(S_\text{in})+\frac{1+\text{CV}^2}{2}\cdot\frac{t_\text{step}}{1-B/B_\text{max}}",
    ),
    "fig4": (
        "Each point is one batch size. Every request gets one token per step, so ITL is the step time and ITL "
        "times throughput is exactly $B$: more throughput from batching always costs latency. Only more "
        "bandwidth lowers the floor (dashed), one read of the active weights.",
        r"\text{ITL}\times T=B,\qquad \text{ITL}_\text{min}=\frac{P_\text{active}\,b_w}{\text{BW}}",
    ),
    "fig5": (
        "Sweeping the batch traces the best TTFT this hardware can give at each throughput: nothing real sits below "
        "it. The dashed curves are the other presets under the same workload. Shading marks the interactive "
        "regime ($B\\le B_\\text{split}/8$) and the batch regime ($B\\ge B_\\text{split}$), with "
        "$B_\\text{split}=\\min(B^*, B_\\text{max}/2)$. Curves stop at $\\rho=0.99$.",
        r"T=\frac{B}{\text{ITL}(B)},\qquad \text{TTFT}(B)\ \text{as in Figure 3},\qquad 1\le B<B_\text{max}",
    ),
    "fig6": (
        "Pick a batch size and the amber dot shows where it lands on the frontier, with its throughput, TTFT, ITL and "
        "utilisation. Animate sweeps the dot from one request to the edge of the stable region; it runs in the "
        "browser, with no server round trip per frame.",
        r"\rho=\frac{B}{B_\text{max}},\qquad B_\text{max}=\left\lfloor\eta\,\frac{\text{HBM}-P_\text{total}\,b_w}"
        r"{S\,\kappa}\right\rfloor",
    ),
    "fig7": (
        "Narrower weights halve the bytes of every step and the weights' share of HBM; a narrower KV cache halves "
        "$\\kappa$ and so doubles $B_\\text{max}$. Dashed lines are the FP16 and FP8 references on the same hardware; "
        "a format whose weights do not fit is named in the note.",
        r"\text{headroom}=\text{HBM}-P_\text{total}\,b_w,\qquad \kappa\propto b_{kv}",
    ),
    "fig8": (
        "Tensor parallelism adds two all-reduces per layer to every step; pipeline parallelism adds a hop per stage "
        "boundary. On NVLink the fixed launch latency $\\alpha$ dominates, so the cost barely moves with $B$; "
        "over InfiniBand the bytes dominate and the cost grows linearly with the batch.",
        r"t_\text{AR}=2L\left(\alpha+\tfrac{k-1}{k}\cdot\tfrac{B\,d_\text{model}\,b_w}{\text{BW}_\text{IC}}\right),"
        r"\quad t_\text{PP}=(m-1)\left(\alpha+\tfrac{B\,d_\text{model}\,b_w}{\text{BW}_\text{IC}}\right)",
    ),
    "fig9": (
        "Two workload effects that no hardware removes: variable output lengths (CV) inflate the queueing term, and "
        "KV fragmentation (utilisation $\\eta$) shrinks $B_\\text{max}$ so the wall arrives sooner. The gap between "
        "the ideal and realistic curves is TTFT a production SLA must budget for.",
        r"W_q\propto\frac{1+\text{CV}^2}{2},\qquad B_\text{max}^\text{eff}=\lfloor\eta\,B_\text{max}\rfloor",
    ),
}


def navbar(active: str) -> dbc.Navbar:
    links = [
        ("dashboard", "Dashboard", "/"),
        ("inferencex", "InferenceX data", "/inferencex"),
        ("methods", "Methods & checks", "/methods"),
    ]
    return dbc.Navbar(
        dbc.Container(
            [
                dbc.NavbarBrand(
                    ["inferx", html.Span(" · the LLM serving frontier from hardware physics", className="brand-sub")],
                    href=get_relative_path("/"),
                ),
                dbc.Nav(
                    [dbc.NavLink(text, href=get_relative_path(path), active=key == active) for key, text, path in links]
                ),
            ],
            fluid=True,
        ),
        color="dark",
        dark=True,
        className="mb-3",
    )


# --- Reading the URL ----------------------------------------------------------------

MAX_NOTICES = 8  # a hostile address with thousands of bad keys still gets a page of readable length


def parse_query(query: dict) -> tuple[dict, int, list[str]]:
    """Control values and batch from URL query parameters, and a notice per bad value.

    A bad or out-of-range value is dropped (the default stays) and reported in the same words as the CLI's.
    A key given more than once (Dash hands over a list) takes its last value, and says so.
    """
    notices, single = [], {}
    for name, raw in query.items():
        if isinstance(raw, (list, tuple)):
            if not raw:
                continue
            key, last = shown_value(name), shown_value(raw[-1])
            notices.append(f"{key} was given {len(raw)} times; used the last: {key}={last}.")
            raw = raw[-1]
        single[name] = raw
    given = {}
    if single.get("preset") is not None:
        try:
            given["preset"] = check_param("preset", single["preset"])
        except InvalidParameter as err:
            notices.append(f"Ignored {err}.")
    values = default_params(given.get("preset", "h200x8"))
    batch = DEFAULT_BATCH
    for name, raw in single.items():
        if name == "preset":
            continue
        if name != "batch" and name not in PARAMS:
            notices.append(f"Ignored unknown parameter {shown_value(name)!r}.")
            continue
        try:
            if name == "batch":
                batch = check_batch(raw)
            else:
                values[name] = check_param(name, raw)
        except InvalidParameter as err:
            notices.append(f"Ignored {err}.")
    if len(notices) > MAX_NOTICES:
        notices[MAX_NOTICES - 1 :] = [f"… and {len(notices) - MAX_NOTICES + 1} more ignored."]
    return values, batch, notices


def control_values_to_params(values: list) -> dict:
    """Control values in CONTROLS order (log2 sliders converted back to tokens); raises InvalidParameter for
    anything that is not one value per control."""
    if not isinstance(values, list) or len(values) != len(CONTROLS):
        raise InvalidParameter("values", f"must be a list of {len(CONTROLS)} control values", values)
    params = dict(zip(CONTROLS, values, strict=True))
    for name in LOG2_CONTROLS:
        if params[name] is not None:
            params[name] = tokens_from_position(name, params[name])
    return params


def tokens_from_position(name: str, position) -> int:
    """A log2 slider position back to a whole count, refusing positions no slider can reach."""
    number = as_number(position)
    if number is None or not 0 <= number <= 30:
        raise InvalidParameter(name, "slider position must be log₂ of the value, from 0 to 30", position)
    return max(1, round(2**number))


# --- Controls -----------------------------------------------------------------------


def _label(name: str) -> html.Label:
    p = PARAMS[name]
    unit = html.Span(f" {p.unit}", className="unit") if p.unit else None
    return html.Label([p.label, unit], htmlFor=f"ctl-{name}", className="ctl-label")


def _value_label(name: str, value) -> html.Label:
    """A slider's label with its live value and unit, e.g. "Memory bandwidth 38.4 TB/s"."""
    value_text = html.Span(format_slider_value(name, value), id=f"ctl-{name}-value", className="ctl-value")
    return html.Label([PARAMS[name].label, value_text], htmlFor=f"ctl-{name}", className="ctl-label")


def _decimals(name: str) -> int:
    step = PARAMS[name].step
    return 0 if name in LOG2_CONTROLS or step >= 1 else -math.floor(math.log10(step))


def format_slider_value(name: str, value) -> str:
    """The same text window.inferx.sliderValues writes while the slider moves."""
    unit = PARAMS[name].unit
    return f"{value:,.{_decimals(name)}f}" + (f" {unit}" if unit else "")


def _token_marks() -> dict:
    return {e: (f"{2**e // 1024}K" if e >= 10 else str(2**e)) for e in range(7, 18, 2)}


def control(name: str, value) -> html.Div:
    p = PARAMS[name]
    cid = f"ctl-{name}"
    if name == "preset":
        options = [{"label": hw.label, "value": key} for key, hw in HARDWARE.items()]
        widget = dcc.Dropdown(id=cid, options=options, value=value, clearable=False, searchable=False)
    elif name in ("wdtype", "kvdtype"):
        options = [{"label": d.upper(), "value": d} for d in DTYPE_BYTES]
        widget = dcc.Dropdown(id=cid, options=options, value=value, clearable=False, searchable=False)
    elif name == "ic":
        options = [
            {"label": f"{ic.label} · {ic.bw / 1e9:g} GB/s, α {ic.alpha * 1e6:g} µs", "value": key}
            for key, ic in INTERCONNECTS.items()
        ]
        widget = dcc.Dropdown(id=cid, options=options, value=value, clearable=False, searchable=False)
    elif name == "mode":
        options = [{"label": " Article physics", "value": "article"}, {"label": " Calibrated", "value": "calibrated"}]
        widget = dcc.RadioItems(id=cid, options=options, value=value, inline=True, className="radio-row")
    elif p.kind == "pow2":
        options = [{"label": str(2**i), "value": 2**i} for i in range(int(math.log2(p.high)) + 1)]
        widget = dcc.RadioItems(id=cid, options=options, value=value, inline=True, className="radio-row")
    elif name in LOG2_CONTROLS:
        widget = dcc.Slider(
            id=cid,
            min=7,
            max=17,
            step=0.05,
            value=math.log2(value),
            marks=_token_marks(),
            updatemode="drag",
            allow_direct_input=False,
        )
    else:
        # The value is shown in the label: Dash hides a slider's number box in a sidebar this narrow.
        widget = dcc.Slider(
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
    label = _value_label(name, value) if name in SLIDERS else _label(name)
    return html.Div([label, widget], className="ctl", title=p.help)


def controls_panel(values: dict) -> html.Div:
    groups = {
        "Hardware": ("preset", "bw", "compute", "hbm"),
        "Workload": ("ctx", "isl", "cv", "util"),
        "Precision": ("wdtype", "kvdtype"),
        "Parallelism": ("tp", "pp", "ic"),
        "Model": ("mode",),
    }
    body = []
    for title, names in groups.items():
        body.append(html.H6(title, className="ctl-group"))
        body.extend(control(n, values[n]) for n in names)
    # The control state a redraw is asked for, and the figures it returns (assets/inferx.js: controlsChanged,
    # showFigures). The first is the output of the callback that also rewrites the address; it sits beside
    # its inputs, so prevent_initial_call holds when the router inserts the page. With it outside, a slow
    # browser rewrote the address before dcc.Location had settled, and Location pushed its stale address
    # back, re-rendering the page in a loop.
    body += [dcc.Store(id="redraw-request"), dcc.Store(id="figure-updates")]
    return html.Div(body, className="controls")


def share_buttons(fig: str | None) -> html.Div:
    """Copy-link and copy-embed-code buttons: inside a wiki iframe the address bar never changes."""
    items = [html.Span([dcc.Clipboard(id="copy-link", className="clip"), " Copy link"], className="share-btn")]
    if fig:
        items.append(embed_button(fig, " Copy embed code"))
    return html.Div(items, className="share")


def embed_button(fig: str, text: str = "") -> html.Span:
    return html.Span(
        [
            dcc.Clipboard(
                id={"role": "embed-copy", "fig": fig},
                className="clip",
                title="Copy an <iframe> of this figure with the current settings",
            ),
            text,
            html.Span(get_relative_path(f"/embed/{fig}"), id={"role": "embed-path", "fig": fig}, hidden=True),
        ],
        className="share-btn",
    )


def graph(fig: str, figure: dict, height: int = 380) -> html.Div:
    """A figure's graph. The wrapper carries the stable DOM id `fig-N`; the graph's own
    pattern-matching id lets one callback fill whichever graphs a page has."""
    return html.Div(
        dcc.Graph(
            id={"role": "figure", "fig": fig},
            figure=figure,
            config=figures.GRAPH_CONFIG,
            style={"height": f"{height}px"},
            mathjax=False,
        ),
        id=f"fig-{fig[3:]}",
        className="graph-wrap",
    )


def readouts() -> html.Div:
    cells = [("throughput", "Throughput"), ("ttft", "TTFT"), ("itl", "ITL"), ("rho", "Utilisation ρ")]
    return html.Div(
        [
            html.Div(
                [
                    html.Div(label, className="readout-label"),
                    html.Div("—", id=f"readout-{key}", className="readout-value"),
                ],
                className="readout",
            )
            for key, label in cells
        ],
        className="readouts",
    )


def explorer_controls(batch: int) -> html.Div:
    return html.Div(
        [
            html.Label(
                [
                    "Batch size B ",
                    html.Span(str(batch), id="batch-value", className="ctl-value"),
                    html.Span(" requests", className="unit"),
                ],
                htmlFor="ctl-batch",
                className="ctl-label",
            ),
            html.Div(
                [
                    html.Div(
                        dcc.Slider(
                            id="ctl-batch",
                            min=0,
                            max=14,
                            step=0.01,
                            value=math.log2(batch),
                            updatemode="drag",
                            allow_direct_input=False,
                            marks={i: f"{2**i:,}" for i in range(0, 17, 2)},
                        ),
                        className="grow",
                    ),
                    html.Button("Animate", id="btn-animate", className="btn btn-warning btn-sm"),
                ],
                className="batch-row",
            ),
        ]
    )


def initial_figures(values: dict, names, batch: int, notices: list[str]) -> dict[str, dict]:
    """The figures for the URL's state, drawn into the page layout itself: each graph paints once,
    and loading a page costs no redraw request (a busy browser spends seconds on a second paint)."""
    try:
        return figures.build(Scenario.from_params(**values), names, batch)
    except InvalidParameter as err:
        notices.append(f"Could not draw these settings: {err}")
    except Exception:  # parse_query checked every value: this is our bug, so the log gets the traceback
        log.exception("drawing the figures of %s (batch %s) failed", values, batch)
        notices.append(INTERNAL_ERROR)
    return {}


def figure_card(
    fig: str, figure: dict, batch: int = DEFAULT_BATCH, caption: bool = True, embed_copy: bool = True
) -> dbc.Card:
    """A figure with its title and caption; `embed_copy=False` where the page already has the figure's
    copy-embed-code button (an id may appear once per page)."""
    text, eq = CAPTIONS[fig]
    body = [graph(fig, figure, 440 if fig in ("fig5", "fig6") else 380)]
    if fig == "fig6":
        body += [readouts(), explorer_controls(batch)]
    if caption:
        # `$$` on lines of their own make a displayed equation; `$$…$$` within a line is typeset inline, small.
        body.append(dcc.Markdown(f"{text}\n\n$$\n{eq}\n$$", mathjax=True, className="caption"))
    title = html.H5(TITLES[fig], className="card-title")
    header = html.Div([title, embed_button(fig)] if embed_copy else [title], className="card-head")
    return dbc.Card([dbc.CardBody([header, *body])], className="fig-card", id=f"card-{fig}")


def notices_area(notices: list[str]) -> html.Div:
    return html.Div(
        [
            dbc.Alert(
                [html.Div(n) for n in notices],
                color="warning",
                dismissable=True,
                is_open=bool(notices),
                id="url-notice",
            ),
            dbc.Alert(id="runtime-notice", color="danger", is_open=False, dismissable=True),
        ],
        className="notices",
    )


def ui_config() -> dcc.Store:
    """What the browser-side callbacks need: presets and defaults (user units)."""
    presets = {key: default_params(key) for key in HARDWARE}
    sliders = {name: [PARAMS[name].unit, _decimals(name)] for name in SLIDERS}
    data = {
        "controls": list(CONTROLS),
        "log2": list(LOG2_CONTROLS),
        "sliders": sliders,
        "presets": presets,
        "batchDefault": DEFAULT_BATCH,
    }
    return dcc.Store(id="ui-config", data=data)


# --- Callbacks ----------------------------------------------------------------------

CONTROL_INPUTS = [Input(f"ctl-{name}", "value") for name in CONTROLS]


# A control change rewrites the address and asks for a redraw through the browser, which keeps one request
# in flight and sends only the newest state when it returns: a slider dragged faster than a round trip would
# otherwise have every request overtaken by the next one, and no figure would move until the drag stopped.
clientside_callback(
    "window.inferx.controlsChanged",
    Output("redraw-request", "data"),
    *CONTROL_INPUTS,
    Input("ctl-batch", "value", allow_optional=True),
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
        names, batch, scn = read_redraw(request, ids)
        figs = figures.build(scn, names, batch)
    except InvalidParameter as err:
        return {}, f"Could not redraw: {err}", True
    except Exception:  # the inputs were checked: this is our bug, so the log gets the traceback
        log.exception("redraw of %s failed", shown_value(request, 400))
        return {}, INTERNAL_ERROR, True
    return figs, None, False


def read_redraw(request, ids) -> tuple[list[str], int, Scenario]:
    """The figures to draw, the batch and the scenario of a redraw request, checked by shape and type before
    anything reads them (the request comes from the browser, so from anyone)."""
    if not isinstance(ids, list) or len(ids) > len(FIGURE_ORDER):  # each figure at most once per page
        raise InvalidParameter("figures", f"must be a list of at most {len(FIGURE_ORDER)} figure ids", ids)
    shown = []
    for i in ids:
        fig = i.get("fig") if isinstance(i, dict) else None
        if not isinstance(fig, str) or fig not in FIGURE_ORDER:
            raise InvalidParameter("figures", f"each id must name one of {', '.join(FIGURE_ORDER)}", i)
        shown.append(fig)
    if not isinstance(request, dict) or not {"values", "batch", "batchOnly"} <= request.keys():
        raise InvalidParameter("request", "must be a control state {values, batch, batchOnly}", request)
    batch_only = request["batchOnly"]
    if not isinstance(batch_only, bool):
        raise InvalidParameter("batchOnly", "must be true or false", batch_only)
    names = [n for n in shown if n == "fig6"] if batch_only else shown  # only the explorer reads the batch
    position = request["batch"]
    batch = DEFAULT_BATCH if position is None else check_batch(tokens_from_position("batch", position))
    return names, batch, Scenario.from_params(**control_values_to_params(request["values"]))


clientside_callback(
    "window.inferx.showFigures",
    Output({"role": "figure", "fig": ALL}, "figure", allow_duplicate=True),
    Input("figure-updates", "data"),
    State({"role": "figure", "fig": ALL}, "id"),
    prevent_initial_call=True,
)


clientside_callback(
    "window.inferx.applyPreset",
    [Output(f"ctl-{n}", "value", allow_duplicate=True) for n in ("bw", "compute", "hbm", "tp", "ic")],
    Input("ctl-preset", "value"),
    State("ui-config", "data"),
    prevent_initial_call=True,
)

clientside_callback(
    "window.inferx.sliderValues",
    [Output(f"ctl-{n}-value", "children") for n in SLIDERS],
    [Input(f"ctl-{n}", "drag_value") for n in SLIDERS] + [Input(f"ctl-{n}", "value") for n in SLIDERS],
    State("ui-config", "data"),
    prevent_initial_call=True,
)

clientside_callback(
    "window.inferx.explorer",
    Output("readout-throughput", "children"),
    Output("readout-ttft", "children"),
    Output("readout-itl", "children"),
    Output("readout-rho", "children"),
    Output("batch-value", "children"),
    Output("ctl-batch", "max"),
    Output("ctl-batch", "marks"),
    Output({"role": "figure", "fig": "fig6"}, "figure", allow_duplicate=True),
    Input("ctl-batch", "drag_value"),
    Input("ctl-batch", "value"),
    Input({"role": "figure", "fig": "fig6"}, "figure"),
    State("ctl-batch", "max"),
    prevent_initial_call="initial_duplicate",  # fill the readouts from the layout's figure on load
)

clientside_callback(
    "window.inferx.toggleAnimation",
    Output("btn-animate", "children"),
    Input("btn-animate", "n_clicks"),
    prevent_initial_call=True,
)

clientside_callback(
    "function(n, open) { return !open; }",
    Output("embed-settings", "is_open"),
    Input("embed-settings-toggle", "n_clicks"),
    State("embed-settings", "is_open"),
    prevent_initial_call=True,
)

clientside_callback(
    "window.inferx.copyLink", Output("copy-link", "content"), Input("copy-link", "n_clicks"), prevent_initial_call=True
)

clientside_callback(
    "window.inferx.embedCode",
    Output({"role": "embed-copy", "fig": MATCH}, "content"),
    Input({"role": "embed-copy", "fig": MATCH}, "n_clicks"),
    State({"role": "embed-path", "fig": MATCH}, "children"),
    prevent_initial_call=True,
)
