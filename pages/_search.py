"""The catalog search on `/`: which catalog machine serves the current model and workload within the latency
targets for the least per token (`inferx.slo.search`, the same rows as `inferx slo --search`).

The search runs on the button, then again whenever a control it reads moves; the hardware controls are not
among them (the search tries every machine itself), and before the first click no control change asks the
server for anything.
"""

from __future__ import annotations

import logging

import dash_bootstrap_components as dbc
from dash import Input, Output, State, callback, clientside_callback, dcc, html

from inferx.analysis import slo
from inferx.figures.beyond import money
from inferx.figures.style import si
from inferx.physics.models import MODELS
from inferx.scenario.controls import InvalidParameter
from inferx.scenario.evaluation import Scenario
from inferx.text import number
from pages._cards import INTERNAL_ERROR, scroll_box
from pages._ids import control_id
from pages._url import control_values_to_params, controls

log = logging.getLogger(__name__)

BUTTON_ID = "catalog-search"
RESULT_ID = "catalog-search-result"
AGAIN_ID = "catalog-search-again"  # written in the browser when a control the search reads moves after a search
# The controls the search reads: all but the machine's, which each candidate sets.
SEARCH_INPUTS = tuple(name for name in controls() if name not in slo.HARDWARE_CONTROLS)
TITLE = "Which machine meets the targets for the least?"
# Output tokens throughout (the sentence above the table says so); "Stopped by": what keeps the batch from growing.
# The cost, which orders the rows, next to the machine: on a phone the table scrolls sideways past the rest.
HEADERS = ("Machine", "$ per M tokens", "TP × PP", "Largest batch", "tok/s per GPU", "tok/J", "Stopped by")


def search_card() -> dbc.Card:
    body = [
        html.Div(html.H3(TITLE, className="card-title"), className="card-head"),  # under "Beyond the article"
        html.P(
            "Every catalog GPU at each power-of-two count its scale-up domain holds, tensor-parallel across it, "
            "serving this model and workload under the TTFT and TPOT targets: the cheapest configuration of each "
            "GPU, cheapest per million output tokens first.",
            className="fig-subtitle",
        ),
        html.Button(
            "Search the catalog",
            id=BUTTON_ID,
            className="btn btn-outline-primary btn-sm",
            **{"aria-label": "Search the catalog for the machines that meet the latency targets for the least"},
        ),
        dcc.Store(id=AGAIN_ID),
        html.Div(id=RESULT_ID, className="search-result mt-2", role="status", **{"aria-live": "polite"}),
        html.P(
            "Each machine is its datasheet (dense compute at the weight format, HBM bandwidth and capacity) over its "
            "scale-up link, so 8×H200 and 8×B200 have half the compute of the article's presets, which quote sparse "
            "FP8. Prices are the Price control, or each GPU's assumed rental rate. Pipeline splits are left out: the "
            "article's model charges a pipeline only its hand-offs, not the stages each token passes in turn, so "
            "it would rank every one above TP on a latency no pipeline has.",
            className="caption small",
        ),
    ]
    return dbc.Card([dbc.CardBody(body)], className="fig-card", id="card-search")


def result_table(rows: list[dict], params: dict) -> list:
    """How many configurations meet the targets, the cheapest of each GPU as a table (cheapest first), and the
    GPUs none of whose configurations does, each with the reason of its largest."""
    targets = f"TTFT ≤ {params['ttft']:,.6g} ms and TPOT ≤ {params['tpot']:,.6g} ms"
    model = MODELS[params["model"]].name
    met = [r for r in rows if r["batch"]]
    if not met:
        return [html.P(f"None of the {len(rows)} configurations serves {model} within {targets}.")]
    best = {}
    for r in met:  # cheapest first, so each GPU's first row is its cheapest
        best.setdefault(r["gpu"], r)
    said = (
        f"{len(met)} of {len(rows)} configurations serve {model} within {targets}. The cheapest of each GPU, "
        "per million output tokens:"
    )
    # In calibrated mode each row says where its calibration comes from (fitted, or predicted for a GPU never
    # measured: "stack typical", "datasheet", …), since that is how far to trust it.
    calibrated = params["mode"] == "calibrated"
    head = html.Thead(html.Tr([html.Th(h, scope="col") for h in (*HEADERS, *(["Calibration"] if calibrated else []))]))
    body = html.Tbody(
        [
            html.Tr(
                [
                    html.Th(r["machine"], scope="row"),
                    html.Td(money(r["cost_per_mtok_usd"])),
                    html.Td(f"{r['tp']} × {r['pp']}"),
                    html.Td(f"{r['batch']:,}"),
                    html.Td(si(r["throughput_per_gpu_tok_s"])),
                    html.Td(number(r["tokens_per_joule"])),
                    html.Td(slo.LIMITED_BY[r["limited_by"]]),
                    *([html.Td(r["calibration_basis"])] if calibrated else []),
                ]
            )
            for r in best.values()
        ]
    )
    # The sentence above the table, not its caption: inside the table's scroll box a phone would cut it off.
    caption = html.Caption("The cheapest configuration of each GPU within the targets", className="visually-hidden")
    table = dbc.Table([caption, head, body], size="sm", className="search-table")
    out = [html.P(said), scroll_box(table, "The cheapest configuration of each GPU within the targets")]
    missed = {}  # each GPU that serves in no configuration: its largest count, with the reason
    for r in rows:
        if r["gpu"] not in best and (r["gpu"] not in missed or r["gpus"] > missed[r["gpu"]]["gpus"]):
            missed[r["gpu"]] = r
    if missed:
        why = "; ".join(f"{r['machine']} ({r['reason']})" for r in missed.values())
        out.append(html.P(f"No configuration serves it on {why}."))
    return out


# A control the search reads moved after a search: run it again (no request at all before the first click).
clientside_callback(
    "window.inferx.searchAgain",
    Output(AGAIN_ID, "data"),
    *[Input(control_id(name), "value") for name in SEARCH_INPUTS],
    State(BUTTON_ID, "n_clicks"),
    prevent_initial_call=True,
)


@callback(
    Output(RESULT_ID, "children"),
    Input(BUTTON_ID, "n_clicks"),
    Input(AGAIN_ID, "data"),
    *[State(control_id(name), "value") for name in controls()],
    prevent_initial_call=True,
)
def search(_clicks, _again, *values):
    try:
        given = control_values_to_params(list(values))
        # Every value the search reads, checked once in the CLI's words and in the engine's spelling.
        params = Scenario.from_params(**{name: given[name] for name in SEARCH_INPUTS}).params
        price = params["price"]  # None: each GPU's assumed price
        rows = slo.search({name: params[name] for name in SEARCH_INPUTS}, params["ttft"], params["tpot"], price,
                          params["power"])  # fmt: skip
        return result_table(rows, params)
    except InvalidParameter as err:
        return html.P(f"Could not search: {err}", className="text-danger")
    except Exception:  # the inputs were checked: this is our bug, so the log gets the traceback
        log.exception("catalog search failed")
        return html.P(INTERNAL_ERROR, className="text-danger")
