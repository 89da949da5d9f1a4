"""Measured InferenceX data in the app: the $INFERX_MEASURED file, per-user uploads, and the overlays.

Two sources, the upload winning when both exist:

* the file named by $INFERX_MEASURED, read once per process and kept server-side (a bad
  file is logged and the app runs without it);
* a file the user uploads. It stays in that user's browser, in a memory `dcc.Store`
  (`measured-data`, in the app layout so it survives page changes), as compact
  column lists with only the columns the figures read, signed with the server's key
  (HMAC-SHA256, `INFERX_SECRET_KEY`). It is sent back with the callbacks that need it
  and never kept on the server, so any worker or replica that shares the key can
  answer any request. A store that does not verify (altered, or signed by another key)
  is refused with a notice; at most `STORE_MAX_BYTES` of it go back and forth.

Figures 4 and 5 get measured points without touching the shared `redraw`: a server
callback turns the switch, the data and the preset into marker traces in a Store
(`OVERLAY_ID`), and a clientside callback appends them whenever a figure or the
Store changes (`assets/measured.js`). A slider move therefore costs one JS merge, not
a larger redraw request.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import logging
import zlib
from functools import lru_cache

import dash_bootstrap_components as dbc
import numpy as np
import pandas as pd
from dash import ALL, Input, Output, State, callback, clientside_callback, dcc, get_relative_path, html, no_update

from inferx.data.measured import (
    INT_RANGES,
    LAYOUT_COLUMNS,
    MeasuredDataError,
    display_name,
    load_measured,
    measured_path_from_env,
    parse_upload,
)
from inferx.deploy import Settings, secret_key
from inferx.figures.measured import overlay_traces
from inferx.physics.hardware import GPUS
from inferx.serving.model import PRESET_FAMILY
from pages._ids import control_id

log = logging.getLogger("inferx.measured")

# What inferencex_figure, overlay_traces and the filters read, and the layout of each run that scoring the
# calibrated model on the runs shown needs (report.shown_errors); everything else stays behind.
TEXT_COLUMNS = ("model", "hardware", "precision", "framework", "spec_method", "date", "run_url")
INT_COLUMNS = ("isl", "osl", "concurrency", "n_gpus")
BOOL_COLUMNS = ("disagg", "is_multinode", "decode_dp_attention", "prefill_dp_attention")
FLOAT_COLUMNS = (
    "output_tput_per_gpu_tok_s",
    "output_tput_total_tok_s",
    "interactivity_tok_s_user",
    "median_tpot_ms",
    "median_ttft_ms",
    "p99_ttft_ms",
    *LAYOUT_COLUMNS,
)
UPLOAD_MAX_BYTES = Settings.from_env().max_upload_bytes
STORE_VERSION = 2
# What one measured-data callback may carry to and from the browser, and the most points the figures draw (SVG
# markers: more would slow every repaint). Past either bound the store keeps the file's first points and says how
# many the file had. InferenceX's full export for a model is a few thousand points.
STORE_MAX_BYTES = 1_000_000
STORE_MAX_POINTS = 20_000
_STORE_MAX_JSON = 64 * STORE_MAX_BYTES  # decompressed; a signed body never comes near it


class StoreError(ValueError):
    """A measured-data store that came back from the browser and is not one this server (or a replica) wrote."""


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


def _sign(body: str) -> str:
    message = f"v{STORE_VERSION}:{body}".encode("utf-8", "surrogatepass")
    return hmac.new(secret_key(), message, hashlib.sha256).hexdigest()


def _encode(df: pd.DataFrame, source: str, total: int) -> str:
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
    body = {"source": source, "rows": len(df), "total": total, "columns": columns, "vocab": vocab}
    text = json.dumps(body, separators=(",", ":"), allow_nan=False).encode()
    # Compressed (columns of numbers shrink 3-5 times) and in URL-safe base64, which JSON carries without escapes.
    return base64.urlsafe_b64encode(zlib.compress(text, 6)).decode("ascii")


def to_store(df: pd.DataFrame, source: str = "") -> dict:
    """Compact, signed, JSON-ready columns: text dictionary-encoded, floats to 5 significant figures, NaN as null.

    `body` is the columns as compressed JSON in base64 and `sig` its HMAC; `rows` and `source` repeat what the body
    says for readers of the store, and are never trusted on the way back. A file with more than `STORE_MAX_POINTS`
    points, or too large for `STORE_MAX_BYTES`, keeps its first points (the body's `total` says how many it had)."""
    source = display_name(source, "")
    total = len(df)
    n = min(total, STORE_MAX_POINTS)
    body = _encode(df.iloc[:n], source, total)
    while len(body) > STORE_MAX_BYTES:
        n = max(1, int(n * STORE_MAX_BYTES / len(body) * 0.95))
        body = _encode(df.iloc[:n], source, total)
    return {"v": STORE_VERSION, "source": source, "rows": n, "body": body, "sig": _sign(body)}


def _verified(data) -> tuple[pd.DataFrame, str, int] | None:
    """(frame, source, points in the file) of a store, None for no store; StoreError for anything else: wrong shape,
    a signature that does not verify, or a body that does not decode to columns of the right types and lengths."""
    if data is None or data == {} or data == "":
        return None
    if not isinstance(data, dict) or data.get("v") != STORE_VERSION:
        raise StoreError("not a measured-data store of this version")
    body, sig = data.get("body"), data.get("sig")
    if not isinstance(body, str) or not isinstance(sig, str) or len(body) > STORE_MAX_BYTES:
        raise StoreError("the measured-data store is malformed")
    if not hmac.compare_digest(_sign(body).encode(), sig.encode("utf-8", "surrogatepass")):
        raise StoreError("the measured-data store does not carry this server's signature")
    return _decode(body, sig)


def from_store(data) -> pd.DataFrame | None:
    """The DataFrame `to_store` encoded (the columns the figures need), or None for no store; raises StoreError
    for a store this server did not write."""
    verified = _verified(data)
    return None if verified is None else verified[0]


@lru_cache(maxsize=8)
def _decode(body: str, sig: str) -> tuple[pd.DataFrame, str, int]:  # sig: one entry per store, whatever key signed it
    """A verified body to (frame, source, points in the file); cached because one upload feeds several callbacks.
    Callers only filter the frame."""
    try:
        inflate = zlib.decompressobj()
        text = inflate.decompress(base64.urlsafe_b64decode(body.encode("ascii")), _STORE_MAX_JSON)
        if inflate.unconsumed_tail:
            raise StoreError("the measured-data store is too large")
        data = json.loads(text)
        rows, cols, vocab = int(data["rows"]), data["columns"], data["vocab"]
        frame = {}
        for c in TEXT_COLUMNS:
            words = np.asarray(vocab[c], dtype=object)
            codes = np.asarray(cols[c], dtype=np.int64)
            if (
                codes.shape != (rows,)
                or not all(isinstance(w, str) for w in words)
                or (codes.size and (codes.min() < 0 or codes.max() >= len(words)))
            ):
                raise StoreError(f"column {c} does not decode")
            frame[c] = words[codes] if rows else np.asarray([], dtype=object)
        for c in INT_COLUMNS:
            values = np.asarray(cols[c], dtype=np.int64)
            lo, hi = INT_RANGES[c]
            if values.shape != (rows,) or (values.size and (values.min() < lo or values.max() > hi)):
                raise StoreError(f"column {c} does not decode")
            frame[c] = values
        for c in BOOL_COLUMNS:
            values = np.asarray(cols[c], dtype=np.int64)
            if values.shape != (rows,) or not np.isin(values, (0, 1)).all():
                raise StoreError(f"column {c} does not decode")
            frame[c] = values.astype(bool)
        for c in FLOAT_COLUMNS:
            values = np.asarray([np.nan if v is None else v for v in cols[c]], dtype=float)
            if values.shape != (rows,) or np.isinf(values).any():
                raise StoreError(f"column {c} does not decode")
            frame[c] = values
        source, total = str(data["source"]), int(data["total"])
    except StoreError:
        raise
    except (ValueError, TypeError, KeyError, OverflowError, AttributeError, zlib.error, binascii.Error) as err:
        raise StoreError(f"the measured-data store does not decode ({type(err).__name__})") from None
    return pd.DataFrame(frame), source, total


def measured_frame(data) -> tuple[pd.DataFrame | None, str]:
    """The data the page should show, and where it came from: the user's upload, else the env file.

    Raises StoreError when the browser sent a store that does not verify."""
    verified = _verified(data)
    if verified is not None:
        df, source, total = verified
        note = f", first {len(df):,} of its {total:,} points" if len(df) < total else ""
        return df, f"upload {source}{note}".strip()
    df, _ = env_measured()
    return (df, "server file ($INFERX_MEASURED)") if df is not None else (None, "")


def status_text(data) -> str:
    try:
        df, source = measured_frame(data)
    except StoreError as err:
        return f"The uploaded data in this page could not be used ({err}): upload the file again."
    if df is not None:
        return f"{len(df):,} measured points from the {source}."
    _, error = env_measured()
    note = f" The server's $INFERX_MEASURED file could not be read: {error}." if error else ""
    return "No measured data loaded: upload an InferenceX CSV or API JSON." + note


# --- Components ---------------------------------------------------------------------


def stores() -> dcc.Store:
    """The per-user upload; memory only (gone on reload), never a cookie or localStorage."""
    return dcc.Store(id="measured-data", storage_type="memory")


def refusals_said(upload: dcc.Upload) -> html.Div:
    """The upload in a box that tells assets/uploads.js where to say a file the browser refuses by itself (past
    the size limit, or not CSV or JSON): the alert, which says what the server refuses."""
    return html.Div(upload, **{"data-max-bytes": UPLOAD_MAX_BYTES, "data-note": "measured-alert", "data-alert": "true",
                               "data-verb": "load"})  # fmt: skip


def upload_panel(switch: bool = False) -> html.Div:
    """Upload, its result, and on the dashboard the switch for the Figure 4/5 overlays."""
    items = [html.H3("Measured data", className="ctl-group")]
    if switch:
        items.append(
            dcc.Checklist(
                id=control_id("measured"),
                options=[{"label": " Show measured points on Figures 4 and 5", "value": "on"}],
                value=[],
                className="radio-row",
            )
        )
    items += [
        refusals_said(
            dcc.Upload(
                html.Div(["Drop or ", html.Span("choose", className="file-choose"), " an InferenceX CSV / API JSON"]),
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
            )
        ),
        # The alert first: a refused file's reason sits right under the box it was dropped on.
        dbc.Alert(id="measured-alert", is_open=False, dismissable=True, className="mt-1 mb-1 small"),
        html.Div(id="measured-status", className="unit", style={"fontSize": "0.8rem"}),
    ]
    if switch:
        items.append(
            html.Div(
                [
                    "Points match the chosen GPU; filter them on the ",
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
    name = display_name(filename)
    try:
        df = parse_upload(contents, filename if isinstance(filename, str) else "", max_bytes=UPLOAD_MAX_BYTES)
    except MeasuredDataError as err:
        return no_update, f"Could not load {name}: {err}", "danger", True
    store = to_store(df, name)
    note = (
        ""
        if store["rows"] == len(df)
        else f" The figures use its first {store['rows']:,} (a page keeps at most {STORE_MAX_POINTS:,} points, "
        f"{STORE_MAX_BYTES / 1e6:g} MB)."
    )
    return store, f"Loaded {len(df):,} measured points from {name}.{note}", "success", True


@callback(
    Output("measured-status", "children"),
    Input("measured-data", "data"),
    Input("measured-upload", "id"),  # as the page opens too (the store is the app shell's, not the page's)
)
def show_status(data, _upload=None):
    return status_text(data)


@callback(
    Output(OVERLAY_ID, "data"),
    Input(control_id("measured"), "value"),
    Input("measured-data", "data"),
    Input(control_id("preset"), "value"),
    Input(control_id("gpu"), "value"),
)
def overlay(switch, data, preset, gpu):
    """Marker traces for Figures 4 and 5: the measured points on the GPU control's GPU (else the preset's).
    Runs on the switch, new data or a new machine only, never on a slider move."""
    if not switch:
        return None
    try:
        df, _ = measured_frame(data)
    except StoreError:  # the status line says what is wrong
        df = None
    # Either value can be anything a request sends (a list, an object): only a known key selects rows.
    chosen = next((v for v in (gpu, PRESET_FAMILY.get(preset) if isinstance(preset, str) else None)
                   if isinstance(v, str) and v in GPUS), None)  # fmt: skip
    if df is None or chosen is None:
        return {"fig4": [], "fig5": []}
    rows = df[df["hardware"] == chosen]
    out = {}
    for kind in ("fig4", "fig5"):
        traces = overlay_traces(rows, kind)
        for t in traces:
            t["name"] = f"measured {t['name']}"  # "measured H200 SXM · sglang ●"
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
