"""`/inferencex`: measured InferenceX points over the model's curve, in InferenceX's own axes."""

import contextlib
import logging

import dash
import dash_bootstrap_components as dbc
from dash import Input, Output, callback, clientside_callback, dcc, get_relative_path, html, no_update, set_props
from dash.exceptions import MissingCallbackContextException

from inferx.data.measured import filter_options
from inferx.figures import style as figures
from inferx.figures.measured import SUMMARY_TRACES, inferencex_figure, scored_text, shown_rows
from inferx.figures.text import with_summary
from inferx.physics.models import catalog_key
from inferx.scenario.controls import InvalidParameter
from inferx.scenario.evaluation import Scenario
from pages._callbacks import CONTROL_INPUTS
from pages._cards import (
    FIGURES_ID,
    PRINT_SETTINGS_ID,
    described_graph,
    navbar,
    notices_area,
    page_title,
    print_head,
    share_buttons,
)
from pages._controls import control_groups
from pages._drawer import drawer_head, drawer_toggle
from pages._landing import mode_link
from pages._measured import StoreError, env_measured, measured_frame, upload_panel
from pages._url import control_values_to_params, parse_query, scenario_line

dash.register_page(__name__, path="/inferencex", title="inferx · InferenceX measurements", order=1)
log = logging.getLogger(__name__)

# Filter dropdowns: id suffix -> (label, placeholder when cleared = the model's default).
FILTERS = {
    "hardware": ("Hardware", "preset"),
    "precision": ("Precision", "weights"),
    "workload": ("ISL / OSL", "workload"),
    "framework": ("Framework", "all"),
    "spec_method": ("Speculation", "none"),
    "topology": ("Topology", "single node"),
}
TOPOLOGY_LABELS = {"single": "single node", "disagg": "disaggregated"}

CAPTION = """
InferenceX plots each benchmark run as one point: how fast a single user receives tokens
(interactivity, 1000 / TPOT) against how many output tokens each GPU produces per second. The
lines are the two models over concurrency for the GPU the controls set (with its weight format, stack and
MTP) at the selected ISL/OSL, on as many GPUs as most of the runs shown: the article's roofline (grey) and
the calibrated model (black), which also pays for every expert a batch routes to, a fixed cost per step and the
prefills that interrupt decoding (see [Methods]({methods})). Runs on another GPU count (up to three, the most
common first) get the selected model at their count, dotted, since throughput per GPU depends on it. A run's
colour is its GPU's, as on every figure here, and its marker its serving stack's (open: disaggregated); the
legend names each GPU and stack, one column per GPU. The Hardware,
Precision, Framework and Speculation filters choose the runs shown, not the curves: set the controls to match
them. Both axes are logarithmic, because the article's curve lies about ten times above and to the right of
the measured runs. Cleared filters follow the model: the chosen GPU, its weight format, no speculative
decoding, single node. Hover a point for its values, concurrency, date and stack; click it for the link
to its run.
"""


def sidebar(values: dict) -> html.Div:
    # The controls that move the model curve (Param.overlay); the others are there but hidden.
    body = [share_buttons(None), *control_groups(values, overlay_only=True), upload_panel()]
    # The output of the browser's callback that writes the sliders' labels and the address (assets/inferx.js:
    # controlsChanged), beside its inputs as on `/`; this page redraws its one figure through its own callback.
    body.append(dcc.Store(id="redraw-request"))
    # A drawer below 768 px, as on / (the Controls button is in the layout).
    return html.Div(
        [drawer_head("Controls", "controls-drawer"), html.Div(body, className="controls")],
        id="controls-drawer",
        className="sidebar drawer-md",
        role="region",
        **{"aria-label": "Controls"},
    )


def filter_row() -> dbc.Row:
    # Disabled until there is data: fill_filters runs when an upload lands, not when the page opens without one
    # (the store's loader answers no_update then), and an empty menu opened to a blank sliver.
    no_data = env_measured()[0] is None
    cols = []
    for key, (label, placeholder) in FILTERS.items():
        dropdown = dcc.Dropdown(
            id=f"ix-{key}", placeholder=placeholder, clearable=True, searchable=False, disabled=no_data
        )
        # Six across only from 1400 px: at 1280 a sixth of the card cut "1,024 / 1,024" to "1,024 …".
        label_for = html.Label(label, htmlFor=f"ix-{key}", className="ctl-label")
        cols.append(dbc.Col([label_for, dropdown], md=4, xxl=2))
    return dbc.Row(cols, className="g-2 mb-2")


FILTERS_ID = "ix-filters"


def filters_panel() -> html.Div:
    """The filters above the figure; below 768 px a bottom sheet behind the Filters button (as the controls are),
    so a phone shows the figure first."""
    return html.Div(
        [drawer_head("Filters", FILTERS_ID), filter_row()],
        id=FILTERS_ID,
        className="ix-filters drawer-md",
        role="region",
        **{"aria-label": "Filters"},
    )


TITLE = "Throughput per GPU against interactivity, measured and modelled"


def _command(text: str) -> html.Code:
    return html.Code(text, className="text-nowrap")  # a phone broke "--model" after its dashes


EMPTY_ID = "ix-empty"


def empty_state() -> html.Section:
    """What the page is for and the three ways to give it data, while it has none (hidden once it has)."""
    return html.Section(
        [
            html.H3("No measured runs loaded yet", className="h6"),
            html.P(
                "This page sets InferenceX's benchmark runs, one point per run (output tokens per second per GPU "
                "against the tokens per second each user receives), beside the ideal (article) and expected "
                "(calibrated) curves for the GPU the controls set: how far each model sits from what serving "
                "stacks measured. The curves are drawn below; the runs appear once there is data, in any of "
                "three ways:"
            ),
            html.Ol(
                [
                    html.Li(
                        [
                            "Fetch InferenceX's latest results: ",
                            _command("inferx fetch -o results.json"),
                            " (add ",
                            _command("--model gpt-oss-120b"),
                            " for another model), then load the file as in 2.",
                        ]
                    ),
                    html.Li(
                        [
                            "Load an InferenceX CSV or API JSON into this tab (kept in its memory only): ",
                            html.Button(
                                "Choose a file",
                                id="ix-empty-choose",
                                className="btn btn-outline-primary btn-sm",
                                **{"data-upload": "measured-upload"},  # assets/measured.js opens that upload
                            ),
                            " or drop it on Measured data in the Controls.",
                        ]
                    ),
                    html.Li(
                        [
                            "Serve a file to every visitor: start the server with ",
                            _command("INFERX_MEASURED=results.json"),
                            " set.",
                        ]
                    ),
                ]
            ),
        ],
        id=EMPTY_ID,
        className="ix-empty",
        hidden=env_measured()[0] is not None,
        **{"aria-label": "No measured data: how to load some"},
    )


def layout(**query):
    values, _batch, notices = parse_query(query)
    graph = described_graph(
        "fig-ix", dcc.Graph(id="ix-graph", config=figures.GRAPH_CONFIG, style={"height": "520px"}), None
    )
    card = dbc.Card(
        dbc.CardBody(
            [
                html.Div(
                    [
                        html.H2(TITLE, className="card-title"),
                        drawer_toggle(
                            "Filters", FILTERS_ID, className="drawer-toggle-inline btn btn-outline-secondary btn-sm"
                        ),
                    ],
                    className="card-head",
                ),
                empty_state(),
                filters_panel(),
                graph,
                html.Div(
                    [
                        html.Span(id="ix-summary", className="unit"),
                        html.A(id="ix-run-link", target="_blank", rel="noopener", hidden=True, className="ms-3"),
                    ]
                ),
                dcc.Markdown(CAPTION.format(methods=get_relative_path("/methods")), className="caption"),
            ]
        ),
        className="fig-card",
        id="card-ix",
    )
    return html.Div(
        [
            navbar("inferencex"),
            dbc.Container(
                [
                    print_head(values),  # on paper only, and first there
                    page_title("InferenceX measurements beside the model"),
                    mode_link(values["mode"]),
                    # Shown (fixed, bottom right) on a narrow screen only: first in the page's tab order, not
                    # after every figure.
                    drawer_toggle("Controls", "controls-drawer", className="drawer-toggle-md btn btn-primary"),
                    dbc.Row(
                        [
                            dbc.Col(sidebar(values), lg=3, md=4, className="sidebar-col"),
                            dbc.Col([notices_area(notices), card], lg=9, md=8, id=FIGURES_ID),
                        ]
                    ),
                ],
                fluid=True,
                tag="main",
                className="with-toggle",  # room under the page for the fixed toggle (style.css)
            ),
        ]
    )


# --- Callbacks ----------------------------------------------------------------------


def _options(values, label=str) -> list[dict]:
    return [{"label": "all", "value": "all"}] + [{"label": label(v), "value": v} for v in values]


@callback(
    [Output(f"ix-{key}", "options") for key in FILTERS] + [Output(f"ix-{key}", "disabled") for key in FILTERS],
    Input("measured-data", "data"),
    # The store is the app shell's: without an input in the page, Dash would not run this as the page opens, and
    # the filters would stay empty for the server's file or an upload made before a visit to another page.
    Input(FILTERS_ID, "id"),
)
def fill_filters(data, _panel=None):
    """Dropdown choices from the values present in the data, then whether each is disabled: without data all
    are (an empty menu opened to a blank sliver)."""
    try:
        df, _ = measured_frame(data)
    except StoreError:  # the status line under the upload says what is wrong
        df = None
    if df is None:
        return [[] for _ in FILTERS] + [True for _ in FILTERS]
    opts = filter_options(df)
    pairs = sorted({(int(i), int(o)) for i, o in zip(df["isl"], df["osl"], strict=True)})
    workloads = [{"label": f"{i:,} / {o:,}", "value": f"{i}/{o}"} for i, o in pairs]
    options = [
        _options(opts["hardware"], str.upper),
        _options(opts["precision"], str.upper),
        [{"label": "all", "value": "all"}, *workloads],
        _options(opts["framework"]),
        _options(opts["spec_method"]),
        _options(opts["topology"], lambda t: TOPOLOGY_LABELS.get(t, t)),
    ]
    return options + [False for _ in FILTERS]


def filters_from_values(hardware, precision, workload, framework, spec_method, topology) -> dict:
    """Dropdown values -> `filter_measured` keywords; a cleared dropdown is left out so the figure's default applies."""
    filters = {"hardware": hardware, "precision": precision, "spec_method": spec_method, "topology": topology}
    if framework not in (None, "all"):
        filters["framework"] = framework
    if workload == "all":
        filters.update(isl="all", osl="all")
    elif workload:
        isl, _, osl = str(workload).partition("/")
        filters.update(isl=int(isl), osl=int(osl))
    return {k: v for k, v in filters.items() if v is not None}


@callback(
    Output("ix-graph", "figure"),
    Output("ix-summary", "children"),
    *CONTROL_INPUTS,
    *[Input(f"ix-{key}", "value") for key in FILTERS],
    Input("measured-data", "data"),
)
def draw(*args):
    """The InferenceX-style figure for the controls, the filters and the data (upload, else the server's file)."""
    values, filter_values, data = args[: len(CONTROL_INPUTS)], args[len(CONTROL_INPUTS) : -1], args[-1]
    try:
        scn = Scenario.from_params(**control_values_to_params(list(values)))
        with contextlib.suppress(MissingCallbackContextException):  # called as a function (the tests)
            set_props(PRINT_SETTINGS_ID, {"children": scenario_line(scn.params)})  # the printout's head
        df, source = measured_frame(data)
        scn, about = rows_model(scn, df)
        shown = shown_rows(scn, df, filters_from_values(*filter_values))
        fig = with_summary(TITLE, inferencex_figure(scn, df, shown=shown), SUMMARY_TRACES)
    except (InvalidParameter, ValueError, KeyError, TypeError, OverflowError, ZeroDivisionError) as err:
        # Every input here came from the browser; a value of the wrong type or size gets a sentence, not a 500.
        return no_update, f"Could not draw: {err}"
    points = sum(len(t["x"]) for t in fig["data"] if (t.get("meta") or {}).get("measured"))
    if df is None:
        return fig, NO_DATA
    try:
        score = scored_text(shown[0])
    except Exception:  # the chart stands without its score; the log gets the traceback
        log.exception("scoring the calibrated model on the runs shown failed")
        score = ""
    return fig, f"{points:,} of {len(df):,} measured points shown ({source}). {about} {score}".rstrip()


NO_DATA = [
    "No measured data loaded: the two models' curves alone. The box above says how to add runs (",
    _command("inferx fetch -o results.json"),
    ", an upload, or ",
    _command("INFERX_MEASURED"),
    ").",
]


@callback(
    Output(EMPTY_ID, "hidden"),
    Input("measured-data", "data"),
    Input(EMPTY_ID, "id"),  # the store is the app shell's: an input in the page runs this as the page opens
)
def show_empty_state(data, _section=None) -> bool:
    """The empty state while there is no data (an upload, else the server's file): hidden once there is."""
    try:
        df, _ = measured_frame(data)
    except StoreError:  # the status line under the upload says what is wrong; there is no data to show
        df = None
    return df is not None


def rows_model(scn: Scenario, df) -> tuple[Scenario, str]:
    """The scenario with the model the measured rows ran, where the catalog has it, and a sentence saying which
    model the curves are for: a curve of one model over the points of another compares nothing."""
    names = sorted({n for n in df["model"] if n}) if df is not None else []
    if len(names) != 1:
        return scn, f"Curves: {scn.model.name}."
    key = catalog_key(names[0])
    if key is None:
        return scn, f"The rows are of {names[0]}, which the model catalog lacks; curves: {scn.model.name}."
    if key != scn.params["model"]:
        scn = scn.with_params(model=key)
    return scn, f"Curves: {scn.model.name}, the model of the measured rows."


clientside_callback(
    "window.inferxMeasured.runLink",
    Output("ix-run-link", "children"),
    Output("ix-run-link", "href"),
    Output("ix-run-link", "hidden"),
    Input("ix-graph", "clickData"),
    prevent_initial_call=True,
)
