"""Each figure card's downloads: its data as CSV, the figure as JSON, and a PNG or SVG image at a chosen size,
all named after the scenario (inferx.export.file_name).

The row is one Dash component: an empty element whose `data-export` spec (labels, sizes, where to ask) the
browser turns into plain buttons and a size menu, with one listener for every card (assets/export.js). Every
Dash component re-checks its props on each update of Dash's store, many times per step of a slider drag; a
row of sixteen components on each of fourteen cards was a third of the page.

A download asks the `_export` route with the page's controls, as a redraw does, so a CSV equals what
`inferx frontier --figure N --format csv` writes for the same settings. For an image the route answers the file
name and the scenario line (`image_scenario`); assets/export.js then has Plotly draw the graph at the chosen size
in the browser, headed by the figure's title and that line, with the page's address as its source under it and
without the graph's own buttons.
"""

from __future__ import annotations

import json
import logging
from urllib.parse import parse_qs

from dash import get_relative_path, hooks, html
from flask import Response, jsonify

from inferx.figures import compare, export, registry
from inferx.scenario.controls import BATCH, InvalidParameter, check_batch
from inferx.scenario.evaluation import Scenario
from pages._compare import PINNED_ID, pinned_scenario
from pages._url import control_values_to_params, json_body, parse_query, scenario_line, value_from_position

log = logging.getLogger(__name__)

EXPORT_ROUTE = "_export"  # under the app's prefix, beside Dash's own routes
# Each button: the file kind, its text, and what it saves (the end of its accessible name).
BUTTONS = (("csv", "CSV", "data as CSV"), ("json", "JSON", "data as JSON"),
           ("png", "PNG", "as a PNG image"), ("svg", "SVG", "as an SVG image"))  # fmt: skip
IMAGE_KINDS = ("png", "svg")
MEDIA_TYPES = {"csv": "text/csv", "json": "application/json"}
# Image sizes in CSS pixels (width × height); the first is the default.
IMAGE_SIZES = ((1200, 675), (800, 450), (1600, 900), (1920, 1080), (720, 520))


def size_select_id(fig: str) -> str:
    """The size menu's DOM id (no Dash component has it)."""
    return f"image-size-{fig}"


def export_spec(fig: str) -> dict:
    """What assets/export.js builds a card's row from: each control's text and accessible name, the sizes,
    the route to ask and the store that holds the pinned scenario A."""
    title = registry.FIGURES[fig].title.split(" · ")[0]  # "Figure 4"
    return {
        "fig": fig,
        "title": registry.FIGURES[fig].title,  # an image's heading: the card's stays outside the graph
        "url": get_relative_path(f"/{EXPORT_ROUTE}"),
        "pinned": PINNED_ID,
        "buttons": [{"kind": k, "text": text, "label": f"Download {title} {what}"} for k, text, what in BUTTONS],
        "sizes": {
            "id": size_select_id(fig),
            "label": f"Image size of {title}",
            "options": [{"value": f"{w}x{h}", "text": f"{w}×{h} px"} for w, h in IMAGE_SIZES],
        },
    }


def export_tools(fig: str) -> html.Div:
    """The download row under a figure: one element, filled in the browser with keyboard-reachable buttons,
    each named for a screen reader."""
    return html.Div(className="export-tools", **{"data-export": json.dumps(export_spec(fig), ensure_ascii=False)})


def page_state(values, batch_pos, pinned, search) -> tuple[Scenario, int, Scenario | None]:
    """The scenario, batch and A of the page a download was asked on: its controls where it has them, else its
    address (/methods draws for the model in its address). Raises InvalidParameter for a bad value."""
    if not isinstance(values, list):
        raise InvalidParameter("values", "must be a list of control values", values)
    if any(v is not None for v in values):
        scn = Scenario.from_params(**control_values_to_params(values))
    else:
        query = parse_qs((search or "").lstrip("?")) if isinstance(search, str) else {}
        checked, _, _ = parse_query({k: v[-1] for k, v in query.items() if k in ("model",)})
        scn = Scenario.from_params(**checked)
    batch = BATCH.default if batch_pos is None else check_batch(value_from_position("batch", batch_pos))
    return scn, batch, pinned_scenario(pinned)


def export_file(fig: str, kind: str, scn: Scenario, batch: int, pinned: Scenario | None) -> tuple[str, str]:
    """Figure `fig` as `kind` (csv or json), what the graph shows, A included: (file name, text)."""
    figure = registry.build(scn, [fig], batch, pinned=pinned)[fig]
    name = export.file_name(scn, fig, kind, pinned)
    if kind == "csv":
        return name, export.figure_csv(figure)
    return name, json.dumps(export.figure_record(fig, figure))


def image_scenario(scn: Scenario, pinned: Scenario | None) -> str:
    """An image's subtitle: the page's scenario line, and A's machine and settings where A is pinned."""
    line = scenario_line(scn.params)
    return line if pinned is None else f"{line} · beside A: {compare.describe(pinned)}"


def _refuse(text: str, status: int = 400) -> Response:
    return Response(f"Could not export: {text}", status, mimetype="text/plain")


@hooks.route(EXPORT_ROUTE, methods=("POST",))
def export_route() -> Response:
    """POST {fig, kind, values, batch, pinned, search}: a CSV or JSON file, or {"filename", "scenario"} for an
    image; a 400 with the reason for a bad request."""
    body = json_body()  # each field is checked before use
    if not isinstance(body, dict):
        return _refuse("the request must be a JSON object")
    fig, kind = body.get("fig"), body.get("kind")
    if not (isinstance(fig, str) and fig in registry.FIGURES):
        return _refuse(f"fig must be one of {', '.join(registry.FIGURES)}")
    if not (isinstance(kind, str) and kind in export.FILE_KINDS):
        return _refuse(f"kind must be one of {', '.join(export.FILE_KINDS)}")
    try:
        scn, batch, a = page_state(body.get("values"), body.get("batch"), body.get("pinned"), body.get("search"))
        if kind in IMAGE_KINDS:
            return jsonify(filename=export.file_name(scn, fig, kind, a), scenario=image_scenario(scn, a))
        name, text = export_file(fig, kind, scn, batch, a)
    except InvalidParameter as err:
        return _refuse(str(err))
    except Exception:  # the inputs were checked: our bug, so the log gets the traceback
        log.exception("export of %s as %s failed", fig, kind)
        return _refuse("something went wrong on the server; it has been logged.", 500)
    return Response(text, mimetype=MEDIA_TYPES[kind], headers={"Content-Disposition": f'attachment; filename="{name}"'})
