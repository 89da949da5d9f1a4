"""The redraw a slider drag asks for on its way, outside Dash's callback machinery.

While a control slider is dragged, assets/inferx.js posts each newest state here and hands the answer to
Plotly itself: through Dash, a step cost about eight updates of its store and a repaint about 25, each
re-checked by every component of the page. On release the slider's value goes to Dash once, and the usual
redraw (pages/_callbacks.redraw) leaves the page, its address and its stores as any change does. Both read
the request and build the figures with the same `redraw_figures`, so a figure drawn here has the numbers
the release's redraw draws.
"""

from __future__ import annotations

import logging

from dash import hooks
from flask import Response
from plotly.io.json import to_json_plotly

from inferx.figures import registry
from inferx.scenario.controls import InvalidParameter
from inferx.text import shown_value
from pages._callbacks import redraw_figures
from pages._cards import INTERNAL_ERROR
from pages._controls import DRAG_ROUTE
from pages._url import json_body

log = logging.getLogger(__name__)

EVERY_FIGURE = [{"fig": key} for key in registry.FIGURES]  # the request's `figures` picks among them


def _refuse(text: str, status: int = 400) -> Response:
    return Response(text, status, mimetype="text/plain")


@hooks.route(DRAG_ROUTE, methods=("POST",))
def drag_route() -> Response:
    """POST {values, batch, figures, pinned?}: {"fig1": figure, …} as the redraw callback returns them, or a
    400 with the reason for a bad request."""
    body = json_body()  # read_redraw checks each field
    if not isinstance(body, dict):
        return _refuse("Could not redraw: the request must be a JSON object")
    if "figures" not in body:  # a drag names the graphs in view; it never asks for every figure
        return _refuse("Could not redraw: figures must name the graphs to draw")
    try:
        figs = redraw_figures({**body, "batchOnly": False}, EVERY_FIGURE)
    except InvalidParameter as err:
        return _refuse(f"Could not redraw: {err}")
    except Exception:  # the inputs were checked: our bug, so the log gets the traceback
        log.exception("drag redraw of %s failed", shown_value(body, 400))
        return _refuse(INTERNAL_ERROR, 500)
    # Dash's own encoder, so the browser gets the JSON a redraw callback's answer carries.
    return Response(to_json_plotly(figs), mimetype="application/json")
