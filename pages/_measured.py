"""Measured InferenceX data in the app: the $INFERX_MEASURED file, per-user uploads, and the overlays.

Two sources, the upload winning when both exist:

* the file named by $INFERX_MEASURED, read once per process and kept server-side (a bad
  file is logged and the app runs without it);
* a file the user uploads. It stays in that user's browser, in a memory `dcc.Store`
  (`measured-data`, in the app layout so it survives page changes), as compact
  column lists with only the columns the figures read. It is sent back with the
  callbacks that need it and never kept on the server.

Figures 4 and 5 get measured points without touching the shared `redraw`: a server
callback turns the switch, the data and the preset into marker traces in a Store
(`OVERLAY_ID`), and a clientside callback appends them whenever a figure or the
Store changes (`assets/measured.js`). A slider move therefore costs one JS merge, not
a larger redraw request.
"""

from __future__ import annotations

import logging
from functools import lru_cache

import dash_bootstrap_components as dbc
import numpy as np
import pandas as pd
from dash import ALL, Input, Output, State, callback, clientside_callback, dcc, get_relative_path, html, no_update

from inferx.calibrated import PRESET_FAMILY
from inferx.measured import MeasuredDataError, load_measured, measured_path_from_env, parse_upload
from inferx.measured_figures import overlay_traces

log = logging.getLogger("inferx.measured")

# What inferencex_figure, overlay_traces and the filters read; everything else stays behind.
TEXT_COLUMNS = ("hardware", "precision", "framework", "spec_method", "date", "run_url")
INT_COLUMNS = ("isl", "osl", "concurrency", "n_gpus")
BOOL_COLUMNS = ("disagg", "is_multinode")
FLOAT_COLUMNS = (
    "output_tput_per_gpu_tok_s",
    "output_tput_total_tok_s",
    "interactivity_tok_s_user",
    "median_tpot_ms",
    "median_ttft_ms",
)
UPLOAD_MAX_BYTES = 20 * 2**20


# --- Data -----------------------------------------------------------------------------


@lru_cache(maxsize=4)
def _load_file(path: str) -> tuple[pd.DataFrame | None, str | None]:
    try:
        df = load_measured(path)
    except MeasuredDataError as err:
        log.error("INFERX_MEASURED=%s not loaded: %s. The app runs without measured data.", path, err)
        return None, str(err)
    log.info("Loaded %d measured points from %s", len(df), path)
    return df, None


def env_measured() -> tuple[pd.DataFrame | None, str | None]:
    """The $INFERX_MEASURED frame (None when unset or unusable) and the load error, if any."""
    path = measured_path_from_env()
    return _load_file(path) if path else (None, None)


def to_store(df: pd.DataFrame, source: str = "") -> dict:
    """Compact, JSON-ready columns: text dictionary-encoded, floats to 5 significant figures, NaN as null."""
    columns, vocab = {}, {}
    for c in TEXT_COLUMNS:
        codes, uniques = pd.factorize(df[c].astype(str))
        columns[c], vocab[c] = codes.tolist(), uniques.tolist()
    for c in INT_COLUMNS:
        columns[c] = df[c].astype(int).tolist()
    for c in BOOL_COLUMNS:
        columns[c] = df[c].astype(int).tolist()
    for c in FLOAT_COLUMNS:
        a = df[c].to_numpy(float)
        columns[c] = [None if not np.isfinite(v) else float(f"{v:.5g}") for v in a]
    return {"source": source, "rows": len(df), "columns": columns, "vocab": vocab}


def from_store(data: dict | None) -> pd.DataFrame | None:
    """The DataFrame `to_store` encoded (the columns the figures need), or None."""
    if not data or not data.get("rows"):
        return None
    cols, vocab = data["columns"], data["vocab"]
    frame = {c: np.asarray(vocab[c], dtype=object)[np.asarray(cols[c], dtype=int)] for c in TEXT_COLUMNS}
    frame |= {c: np.asarray(cols[c], dtype=int) for c in INT_COLUMNS}
    frame |= {c: np.asarray(cols[c], dtype=bool) for c in BOOL_COLUMNS}
    frame |= {c: pd.to_numeric(pd.Series(cols[c], dtype=object)).to_numpy(float) for c in FLOAT_COLUMNS}
    return pd.DataFrame(frame)


def measured_frame(data: dict | None) -> tuple[pd.DataFrame | None, str]:
    """The data the page should show, and where it came from: the user's upload, else the env file."""
    df = from_store(data)
    if df is not None:
        return df, f"upload {data.get('source') or ''}".strip()
    df, _ = env_measured()
    return (df, "server file ($INFERX_MEASURED)") if df is not None else (None, "")


def status_text(data: dict | None) -> str:
    df, source = measured_frame(data)
    if df is not None:
        return f"{len(df):,} measured points from the {source}."
    _, error = env_measured()
    note = f" The server's $INFERX_MEASURED file could not be read: {error}." if error else ""
    return "No measured data loaded: upload an InferenceX CSV or API JSON." + note


# --- Components ---------------------------------------------------------------------


def stores() -> dcc.Store:
    """The per-user upload; memory only (gone on reload), never a cookie or localStorage."""
    return dcc.Store(id="measured-data", storage_type="memory")


def upload_panel(switch: bool = False) -> html.Div:
    """Upload, its result, and on the dashboard the switch for the Figure 4/5 overlays."""
    items = [html.H6("Measured data", className="ctl-group")]
    if switch:
        items.append(
            dcc.Checklist(
                id="ctl-measured",
                options=[{"label": " Show measured points on Figures 4 and 5", "value": "on"}],
                value=[],
                className="radio-row",
            )
        )
    items += [
        dcc.Upload(
            html.Div(["Drop or ", html.A("choose", href="#"), " an InferenceX CSV / API JSON"]),
            id="measured-upload",
            accept=".csv,.json,text/csv,application/json",
            max_size=UPLOAD_MAX_BYTES,
            multiple=False,
            className="measured-upload",
            style={
                "border": "1px dashed #9aa3ad",
                "borderRadius": "6px",
                "padding": "0.4rem 0.6rem",
                "fontSize": "0.82rem",
                "textAlign": "center",
                "margin": "0.3rem 0",
            },
        ),
        html.Div(id="measured-status", className="unit", style={"fontSize": "0.8rem"}),
        dbc.Alert(id="measured-alert", is_open=False, dismissable=True, className="mt-2 mb-0 small"),
    ]
    if switch:
        items.append(
            html.Div(
                [
                    "Points match the preset's GPU; filter them on the ",
                    dcc.Link("InferenceX page", href=get_relative_path("/inferencex")),
                    ".",
                ],
                className="unit",
                style={"fontSize": "0.8rem"},
            )
        )
    return html.Div(items, className="measured-panel")


# A dict id, so the merge below can take it with ALL: pages without the store (the embed pages) then pass an
# empty list instead of Dash refusing a callback whose input is missing from the layout.
OVERLAY_ID = {"role": "measured-overlay", "page": "home"}


def overlay_store() -> dcc.Store:
    return dcc.Store(id=OVERLAY_ID, storage_type="memory")


# --- Callbacks ----------------------------------------------------------------------


@callback(
    Output("measured-data", "data"),
    Output("measured-alert", "children"),
    Output("measured-alert", "color"),
    Output("measured-alert", "is_open"),
    Input("measured-upload", "contents"),
    State("measured-upload", "filename"),
    prevent_initial_call=True,
)
def load_upload(contents, filename):
    """Parse an upload; a bad file leaves the data as it was and says what is wrong (row and column)."""
    if not contents:
        return no_update, no_update, no_update, no_update
    name = filename or "upload"
    try:
        df = parse_upload(contents, filename or "")
    except MeasuredDataError as err:
        return no_update, f"Could not load {name}: {err}", "danger", True
    return to_store(df, name), f"Loaded {len(df):,} measured points from {name}.", "success", True


@callback(Output("measured-status", "children"), Input("measured-data", "data"))
def show_status(data):
    return status_text(data)


@callback(
    Output(OVERLAY_ID, "data"),
    Input("ctl-measured", "value"),
    Input("measured-data", "data"),
    Input("ctl-preset", "value"),
)
def overlay(switch, data, preset):
    """Marker traces for Figures 4 and 5: the measured points on the preset's GPU. Runs on the
    switch, new data or a new preset only, never on a slider move."""
    if not switch:
        return None
    df, _ = measured_frame(data)
    family = PRESET_FAMILY.get(preset)
    if df is None or family is None:
        return {"fig4": [], "fig5": []}
    rows = df[df["hardware"] == family]
    out = {}
    for kind in ("fig4", "fig5"):
        traces = overlay_traces(rows, kind)
        for t in traces:
            t["name"] = f"measured {family} · {t['meta']['framework']}"
        out[kind] = traces
    return out


for _fig in ("fig4", "fig5"):
    clientside_callback(
        f"function (overlays, figure) {{ return window.inferxMeasured.merge(overlays[0], figure, '{_fig}'); }}",
        Output({"role": "figure", "fig": _fig}, "figure", allow_duplicate=True),
        Input({**OVERLAY_ID, "page": ALL}, "data"),
        Input({"role": "figure", "fig": _fig}, "figure"),
        prevent_initial_call=True,
    )


# Read the server's file at start-up, so a bad one is reported in the log straight away.
env_measured()
