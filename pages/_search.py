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
from inferx.analysis.answers import ANSWER_MEANING, ANSWER_OF_MODE, error_brief
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
# Each row's cost in both answers side by side (ideal beside expected), its own answer's first.
HEADERS = ("Machine", "{ours}: $ per M tokens", "{theirs}: $ per M tokens", "TP × PP", "Largest batch",
           "{theirs}: largest batch", "tok/s per GPU", "tok/J", "Stopped by")  # fmt: skip
OFF_BY = "Expected tok/s per GPU off by"  # the calibrated answer's error on the runs nearest its kind


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


def result_table(rows: list[dict], params: dict, other_rows: list[dict] = ()) -> list:
    """How many configurations meet the targets, the cheapest of each GPU as a table (cheapest first), and the
    GPUs none of whose configurations does, each with the reason of its largest. `other_rows`: the same search
    under the other model, whose answer for each machine the last two columns give (ideal beside expected)."""
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
    # Each row says how far its expected throughput may be off, and which kind of extrapolation that is: that is
    # how far to trust it. The error is the calibrated search's, whichever answer leads.
    calibrated = params["mode"] == "calibrated"
    ours, theirs = ANSWER_OF_MODE[params["mode"]], ANSWER_OF_MODE["article" if calibrated else "calibrated"]
    other = {tuple(r[k] for k in slo.MACHINE_OPTIONS): r for r in other_rows}
    twins = {r["gpu"]: other.get(tuple(r[k] for k in slo.MACHINE_OPTIONS), {}) for r in best.values()}
    names = {"ours": ours.capitalize(), "theirs": theirs.capitalize()}
    headers = [h.format(**names) for h in HEADERS if other or "{theirs}" not in h]
    head = html.Thead(html.Tr([html.Th(h, scope="col") for h in (*headers, OFF_BY)]))
    body = html.Tbody(
        [
            html.Tr(
                [
                    html.Th(r["machine"], scope="row"),
                    html.Td(money(r["cost_per_mtok_usd"])),
                    *([_other_cost(twins[r["gpu"]])] if other else []),
                    html.Td(f"{r['tp']} × {r['pp']}"),
                    html.Td(f"{r['batch']:,}"),
                    *([_other_batch(twins[r["gpu"]])] if other else []),
                    html.Td(si(r["throughput_per_gpu_tok_s"])),
                    html.Td(number(r["tokens_per_joule"])),
                    html.Td(slo.LIMITED_BY[r["limited_by"]]),
                    html.Td(error_brief((r if calibrated else twins[r["gpu"]]).get("error"))),
                ]
            )
            for r in best.values()
        ]
    )
    # The sentence above the table, not its caption: inside the table's scroll box a phone would cut it off.
    caption = html.Caption("The cheapest configuration of each GPU within the targets", className="visually-hidden")
    table = dbc.Table([caption, head, body], size="sm", className="search-table")
    whose = f"The numbers are the {ours} answer ({ANSWER_MEANING[ours]})" + (
        f"; the columns headed {theirs.capitalize()} give the {theirs} answer ({ANSWER_MEANING[theirs]}) on the "
        "same machine."
        if other
        else "."
    ) + (f" {OFF_BY}: the median (and p90) of |predicted / measured − 1| on runs held out of the calibrated "
         "model's fit as the same kind of extrapolation, and which kind it is.")  # fmt: skip
    out = [
        html.P(said),
        html.P(whose, className="small"),
        scroll_box(table, "The cheapest configuration of each GPU within the targets"),
    ]
    missed = {}  # each GPU that serves in no configuration: its largest count, with the reason
    for r in rows:
        if r["gpu"] not in best and (r["gpu"] not in missed or r["gpus"] > missed[r["gpu"]]["gpus"]):
            missed[r["gpu"]] = r
    if missed:
        why = "; ".join(f"{r['machine']} ({r['reason']})" for r in missed.values())
        out.append(html.P(f"No configuration serves it on {why}."))
    return out


def _other_cost(twin: dict):
    return html.Td(money(twin["cost_per_mtok_usd"]) if twin.get("batch") else "none meets them")


def _other_batch(twin: dict):
    return html.Td(f"{twin['batch']:,}" if twin.get("batch") else "—")


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
        given = {name: params[name] for name in SEARCH_INPUTS}
        rows, other = (
            slo.search({**given, "mode": mode}, params["ttft"], params["tpot"], price, params["power"])
            for mode in (params["mode"], "article" if params["mode"] == "calibrated" else "calibrated")
        )
        return result_table(rows, params, other)
    except InvalidParameter as err:
        return html.P(f"Could not search: {err}", className="text-danger")
    except Exception:  # the inputs were checked: this is our bug, so the log gets the traceback
        log.exception("catalog search failed")
        return html.P(INTERNAL_ERROR, className="text-danger")
