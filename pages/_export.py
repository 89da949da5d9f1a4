"""Each figure card's downloads: its data as CSV, the figure as JSON, and a PNG or SVG image at a chosen size,
all named after the scenario (inferx.export.file_name).

The server builds the data from the page's controls, as a redraw does, so a CSV equals what
`inferx frontier --figure N --format csv` writes for the same settings. For an image it answers only the file
name; assets/export.js then has Plotly draw the graph at the chosen size in the browser.
"""

from __future__ import annotations

import json
import logging
from urllib.parse import parse_qs

from dash import ALL, MATCH, Input, Output, State, callback, clientside_callback, ctx, dcc, html, no_update

from inferx import export
from inferx import figure_registry as registry
from inferx.scenario import BATCH, InvalidParameter, Scenario, check_batch
from pages._compare import PINNED_ID, pinned_scenario
from pages._ids import BATCH_ID, control_id
from pages._url import control_values_to_params, controls, parse_query, tokens_from_position

log = logging.getLogger(__name__)

DATA_KINDS = {"csv": "CSV", "json": "JSON"}
IMAGE_KINDS = {"png": "PNG", "svg": "SVG"}
# Image sizes in CSS pixels (width × height); the first is the default.
IMAGE_SIZES = ((1200, 675), (800, 450), (1600, 900), (1920, 1080), (720, 520))


def size_select_id(fig: str) -> str:
    """A plain id: assets/export.js reads the chosen size from the element itself."""
    return f"image-size-{fig}"


def export_tools(fig: str) -> html.Div:
    """The download row under a figure: keyboard-reachable buttons, each named for a screen reader."""
    title = registry.FIGURES[fig].title.split(" · ")[0]  # "Figure 4"

    def button(kind: str, label: str, what: str) -> html.Button:
        return html.Button(
            label,
            id={"role": "export", "fig": fig, "kind": kind},
            className="btn btn-outline-secondary btn-sm",
            title=f"Download {title} {what}",
            **{"aria-label": f"Download {title} {what}"},
        )

    sizes = [html.Option(f"{w}×{h} px", value=f"{w}x{h}", selected=i == 0) for i, (w, h) in enumerate(IMAGE_SIZES)]
    return html.Div(
        [
            html.Span("Download", className="export-label"),
            button("csv", "CSV", "data as CSV"),
            button("json", "JSON", "data as JSON"),
            button("png", "PNG", "as a PNG image"),
            button("svg", "SVG", "as an SVG image"),
            html.Select(sizes, id=size_select_id(fig), **{"aria-label": f"Image size of {title}"}),
            html.Span("", id={"role": "export-status", "fig": fig}, className="export-status", role="status"),
            html.Span("", id={"role": "image-status", "fig": fig}, className="export-status", role="status"),
            dcc.Download(id={"role": "download", "fig": fig}),
            dcc.Store(id={"role": "image-request", "fig": fig}),
        ],
        className="export-tools",
    )


def page_state(values: list, batch_pos, pinned, search) -> tuple[Scenario, int, Scenario | None]:
    """The scenario, batch and A of the page a download was asked on: its controls where it has them, else its
    address (/methods draws for the model in its address). Raises InvalidParameter for a bad value."""
    if any(v is not None for v in values):
        scn = Scenario.from_params(**control_values_to_params(list(values)))
    else:
        query = parse_qs((search or "").lstrip("?")) if isinstance(search, str) else {}
        checked, _, _ = parse_query({k: v[-1] for k, v in query.items() if k in ("model",)})
        scn = Scenario.from_params(**checked)
    batch = BATCH.default if batch_pos is None else check_batch(tokens_from_position("batch", batch_pos))
    return scn, batch, pinned_scenario(pinned)


def download(fig: str, kind: str, scn: Scenario, batch: int, pinned: Scenario | None) -> dict:
    """dcc.Download's data for figure `fig` as `kind` (csv or json): what the graph shows, A included."""
    figure = registry.build(scn, [fig], batch, pinned=pinned)[fig]
    name = export.file_name(scn, fig, kind, pinned)
    if kind == "csv":
        return dcc.send_string(export.figure_csv(figure), name, type="text/csv")
    return dcc.send_string(json.dumps(export.figure_record(fig, figure)), name, type="application/json")


@callback(
    Output({"role": "download", "fig": MATCH}, "data"),
    Output({"role": "image-request", "fig": MATCH}, "data"),
    Output({"role": "export-status", "fig": MATCH}, "children"),
    Input({"role": "export", "fig": MATCH, "kind": ALL}, "n_clicks"),
    [State(control_id(name), "value", allow_optional=True) for name in controls()],
    State(BATCH_ID, "value", allow_optional=True),
    State(PINNED_ID, "data", allow_optional=True),
    State("_pages_location", "search", allow_optional=True),
    prevent_initial_call=True,
)
def export_figure(clicks, *state):
    # The ids and clicks come from the browser, so from anyone: each is checked before it is used.
    trigger = ctx.triggered_id if isinstance(ctx.triggered_id, dict) else {}
    fig, kind = trigger.get("fig"), trigger.get("kind")
    if not (isinstance(fig, str) and fig in registry.FIGURES and isinstance(kind, str) and kind in export.FILE_KINDS):
        return no_update, no_update, no_update
    presses = sum(c for c in clicks if isinstance(c, int)) if isinstance(clicks, list) else 0
    *values, batch_pos, pinned, search = state
    try:
        scn, batch, a = page_state(values, batch_pos, pinned, search)
        if kind in IMAGE_KINDS:
            name = export.file_name(scn, fig, kind, a)
            # The press count makes each request new, so a second press of the same button draws again.
            return no_update, {"kind": kind, "name": name.rsplit(".", 1)[0], "presses": presses}, ""
        data = download(fig, kind, scn, batch, a)
    except InvalidParameter as err:
        return no_update, no_update, f"Could not export: {err}"
    except Exception:  # the inputs were checked: our bug, so the log gets the traceback
        log.exception("export of %s as %s failed", fig, kind)
        return no_update, no_update, "Could not export: something went wrong on the server; it has been logged."
    return data, no_update, f"Downloading {data['filename']}"


clientside_callback(
    "window.inferxExport.image",
    Output({"role": "image-status", "fig": MATCH}, "children"),
    Input({"role": "image-request", "fig": MATCH}, "data"),
    State({"role": "image-request", "fig": MATCH}, "id"),
    prevent_initial_call=True,
)
