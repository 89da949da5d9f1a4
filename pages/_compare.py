"""Pin as A: the current settings kept as scenario A, drawn dashed beside the current ones on every figure.

A lives in the page's `pinned` store as its compact controls (the preset and what differs from it), the
form the address's `a=` carries; the browser adds it to every redraw request (window.inferx.controlsChanged),
and the server checks it like any control before registry.build merges A's figures in.
"""

from __future__ import annotations

from dash import Input, Output, State, callback, clientside_callback, ctx, dcc, html, no_update

from inferx.figures import compare, registry
from inferx.scenario.controls import InvalidParameter
from inferx.scenario.evaluation import Scenario
from pages._ids import BATCH_ID, control_id
from pages._url import control_values_to_params, controls, pinned_values

PINNED_ID = "pinned"
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
