"""Pin as A: the current settings kept as scenario A, drawn dashed beside the current ones on every figure.

A lives in the page's `pinned` store as its compact controls (the preset and what differs from it), the
form the address's `a=` carries; the browser adds it to every redraw request (window.inferx.controlsChanged),
and the server checks it like any control before registry.build merges A's figures in.
"""

from __future__ import annotations

import functools

from dash import Input, Output, State, callback, clientside_callback, ctx, dcc, html, no_update

from inferx.analysis.comparison import ANSWERS, SIDES, answer, comparison_rows, error_basis, meanings
from inferx.figures import compare, registry
from inferx.scenario.controls import InvalidParameter
from inferx.scenario.evaluation import Scenario
from pages._ids import BATCH_ID, control_id
from pages._url import control_values_to_params, controls, pinned_values

PINNED_ID = "pinned"
TABLE_ID = "compare-table"
COMPARE_CARD_ID = "compare-card"
EXPLORER = next(key for key, f in registry.FIGURES.items() if f.reads_batch)
NOT_PINNED = "Nothing pinned: Pin as A keeps these settings to compare against."


def pinned_text(scn: Scenario | None) -> str:
    return NOT_PINNED if scn is None else f"A: {compare.describe(scn)} (faded lines)"


def pinned_scenario(compact) -> Scenario | None:
    """A as a Scenario from the store's or request's compact controls (None: nothing pinned); raises
    InvalidParameter for anything else."""
    return None if compact is None else Scenario.from_params(**pinned_values(compact))


def pin_bar(compact: dict | None) -> html.Div:
    """The Pin and Unpin buttons, what is pinned, and the store the redraw reads A from."""
    scn = pinned_scenario(compact)
    return html.Div(
        [
            html.Button(
                "Pin as A",
                id="pin-a",
                className="btn btn-outline-primary btn-sm",
                title="Keep the current settings as A; as the controls move, A stays drawn dashed",
                **{"aria-label": "Pin as A: keep the current settings as scenario A"},
            ),
            html.Button(
                "Unpin",
                id="unpin-a",
                className="btn btn-outline-secondary btn-sm",
                disabled=scn is None,
                **{"aria-label": "Unpin: drop scenario A"},
            ),
            html.Span(pinned_text(scn), id="pinned-label", className="pinned-label", role="status"),
            dcc.Store(id=PINNED_ID, data=compact),
        ],
        className="compare-bar",
    )


@callback(
    Output(PINNED_ID, "data"),
    Output("pinned-label", "children"),
    Output("unpin-a", "disabled"),
    Input("pin-a", "n_clicks"),
    Input("unpin-a", "n_clicks"),
    [State(control_id(name), "value") for name in controls()],
    prevent_initial_call=True,
)
def pin(_pin, _unpin, *values):
    """Pin the controls' values as A (checked like a redraw's), or clear A."""
    if ctx.triggered_id == "unpin-a":
        return None, pinned_text(None), True
    try:
        scn = Scenario.from_params(**control_values_to_params(list(values)))
    except InvalidParameter as err:
        return no_update, f"Could not pin these settings: {err}", no_update
    return compare.compact_params(scn.params), pinned_text(scn), False


# The explorer's readouts against A at the dot's batch (assets/compare.js): A's frontier rides in the explorer's
# figure after the current one, where layout.meta.pinned says.
READOUTS = ("throughput", "ttft", "itl", "rho", "cost", "energy")
clientside_callback(
    "window.inferxCompare.differences",
    [Output(f"readout-{key}-a", "children") for key in READOUTS],
    Input(BATCH_ID, "drag_value"),
    Input(BATCH_ID, "value"),
    Input({"role": "figure", "fig": EXPLORER}, "figure"),
)


# --- A beside B: the numbers that decide, as a table (inferx.analysis.comparison, as `inferx compare` prints) ---


@functools.lru_cache(maxsize=32)
def _answer(params: tuple) -> dict:
    # A stays put while the controls move: its answers are computed once per pinned state.
    return answer(Scenario.from_params(**dict(params)))


def _answer_of(scn: Scenario) -> dict:
    return _answer(tuple(sorted(scn.params.items())))


def _cell(entry: dict, side: str, which: str) -> html.Td:
    value = entry[side][which]
    if which == "ideal" or not entry[side]["error"]:
        return html.Td(value)
    return html.Td([value, html.Br(), html.Span(entry[side]["error"], className="compare-error")])


def comparison_table(pinned: Scenario, current: Scenario) -> list:
    """The table's caption, its rows (A's and B's ideal and expected numbers, the unit in each row's header) and
    what each answer and each error means."""
    record = {"a": _answer_of(pinned), "b": _answer_of(current)}
    names = {"a": f"A: {compare.describe(pinned)}", "b": f"B (current): {compare.describe(current)}"}
    head = [
        html.Tr(
            [html.Td()] + [html.Th(names[side], colSpan=len(ANSWERS), scope="colgroup") for side in SIDES],
        ),
        html.Tr(
            [html.Th("Metric (unit)", scope="col")]
            + [html.Th(f"{which}" + (" ± error" if which == "expected" else ""), scope="col")
               for _ in SIDES for which in ANSWERS]
        ),
    ]  # fmt: skip
    body = [
        html.Tr(
            [html.Th([row["label"], html.Span(f" ({row['unit']})", className="compare-unit")], scope="row")]
            + [_cell(row, side, which) for side in SIDES for which in ANSWERS]
        )
        for row in comparison_rows(record)
    ]
    caption = (
        "Each scenario at its best batch under its own TTFT and TPOT targets. Ideal: "
        f"{meanings()['ideal']}. Expected: {meanings()['expected']}."
    )
    notes = [html.Li(f"{side.upper()} expected: {error_basis(record[side]['expected']['error'])}.") for side in SIDES]
    # The table scrolls sideways in its box on a phone, the words around it wrap.
    table = html.Table(
        [html.Caption("A beside B", className="visually-hidden"), html.Thead(head), html.Tbody(body)],
        className="table table-sm compare-numbers",
    )
    scroller = html.Div(
        table, className="table-responsive", tabIndex="0", role="region", **{"aria-label": "A beside B, by metric"}
    )
    return [html.P(caption, className="compare-intro"), scroller, html.Ul(notes, className="compare-notes")]


def comparison_card(compact: dict | None, values: dict) -> html.Section:
    """The table of A beside the current settings, hidden while nothing is pinned; each redraw refills it
    (`table_update`)."""
    children = []
    try:
        pinned, current = pinned_scenario(compact), Scenario.from_params(**values)
        if pinned is not None and not (pinned.unfit_reason() or current.unfit_reason()):
            children = comparison_table(pinned, current)
    except InvalidParameter:  # the notices say why; the table waits for settings that draw
        children = []
    return html.Section(
        [html.H2("A beside B: the numbers that decide", className="card-title h5"), html.Div(children, id=TABLE_ID)],
        id=COMPARE_CARD_ID,
        className="card compare-card",
        hidden=not children,
        **{"aria-label": "Scenario A beside the current settings B"},
    )


def table_update(request: dict) -> dict:
    """The table's children and whether it is hidden, for a redraw request's state (pages/_callbacks.redraw sends
    them with the figures: one request per state, as the browser keeps one in flight). Raises InvalidParameter
    for a bad state, which the redraw reports."""
    pinned = pinned_scenario(request.get("pinned")) if isinstance(request, dict) else None
    if pinned is None or not isinstance(request.get("values"), list):
        return {"children": [], "hidden": True}
    current = Scenario.from_params(**control_values_to_params(request["values"]))
    if current.unfit_reason() or pinned.unfit_reason():
        return {"children": [], "hidden": True}
    return {"children": comparison_table(pinned, current), "hidden": False}
