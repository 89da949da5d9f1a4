"""Measured InferenceX points: load, check, filter, and map to the model's quantities.

Two shapes are accepted and normalised to one DataFrame whose columns and units are
those of the tidy CSV (latencies in ms, throughputs in tokens/s):

* the tidy CSV (one row per measured point, the columns of `COLUMNS`);
* the InferenceX API JSON: an array of objects with a `metrics` dict whose
  latencies are in seconds (`/api/v1/benchmarks?model=...`).

The rows themselves never live in this repository; users supply the file (upload,
`--measured PATH` or the `INFERX_MEASURED` environment variable).
"""

from __future__ import annotations

import base64
import io
import json
import math
import os
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

MEASURED_ENV = "INFERX_MEASURED"

# Columns a file must have; cells of the metric columns may be blank (not measured).
KEY_COLUMNS = ("hardware", "precision", "framework", "isl", "osl", "concurrency", "n_gpus")
METRIC_COLUMNS = ("median_tpot_ms", "output_tput_per_gpu_tok_s")
REQUIRED = KEY_COLUMNS + METRIC_COLUMNS

# Optional numeric columns, kept when present (NaN otherwise).
NUMERIC_OPTIONAL = (
    "decode_tp",
    "decode_ep",
    "prefill_tp",
    "prefill_ep",
    "num_prefill_gpu_raw",
    "num_decode_gpu_raw",
    "tput_per_gpu_tok_s",
    "input_tput_per_gpu_tok_s",
    "output_tput_total_tok_s",
    "interactivity_tok_s_user",
    "median_ttft_ms",
    "p99_ttft_ms",
    "mean_ttft_ms",
    "median_itl_ms",
    "p99_itl_ms",
    "median_e2e_ms",
    "p99_e2e_ms",
    "avg_power_w",
    "joules_per_output_token",
)
LATENCY_COLUMNS = tuple(c for c in METRIC_COLUMNS + NUMERIC_OPTIONAL if c.endswith("_ms"))
BOOL_COLUMNS = ("disagg", "is_multinode", "decode_dp_attention", "prefill_dp_attention")
TEXT_OPTIONAL = ("model", "spec_method", "image", "date", "run_url")
COLUMNS = KEY_COLUMNS + ("spec_method",) + BOOL_COLUMNS + METRIC_COLUMNS + NUMERIC_OPTIONAL + ("date", "run_url")

# API JSON field -> (CSV column, factor to the CSV unit). Latencies come in seconds.
_JSON_METRICS = {
    "median_tpot": ("median_tpot_ms", 1e3),
    "output_tput_per_gpu": ("output_tput_per_gpu_tok_s", 1.0),
    "tput_per_gpu": ("tput_per_gpu_tok_s", 1.0),
    "input_tput_per_gpu": ("input_tput_per_gpu_tok_s", 1.0),
    "median_intvty": ("interactivity_tok_s_user", 1.0),
    "median_ttft": ("median_ttft_ms", 1e3),
    "p99_ttft": ("p99_ttft_ms", 1e3),
    "mean_ttft": ("mean_ttft_ms", 1e3),
    "median_itl": ("median_itl_ms", 1e3),
    "p99_itl": ("p99_itl_ms", 1e3),
    "median_e2el": ("median_e2e_ms", 1e3),
    "p99_e2el": ("p99_e2e_ms", 1e3),
    "avg_power_w": ("avg_power_w", 1.0),
    "joules_per_output_token": ("joules_per_output_token", 1.0),
}
_JSON_TOP = {
    "conc": "concurrency",
    "num_prefill_gpu": "num_prefill_gpu_raw",
    "num_decode_gpu": "num_decode_gpu_raw",
}


class MeasuredDataError(ValueError):
    """A measured file that cannot be used; the message names the row and column at fault."""


# --- Loading ---------------------------------------------------------------------


def measured_path_from_env() -> str | None:
    """The file named by $INFERX_MEASURED, or None."""
    return os.environ.get(MEASURED_ENV) or None


def load_measured(path: str | os.PathLike) -> pd.DataFrame:
    """Read a measured CSV or API JSON file into the normalised DataFrame."""
    path = Path(path)
    try:
        content = path.read_bytes()
    except OSError as err:
        raise MeasuredDataError(f"{path}: cannot read ({err.strerror or err})") from None
    return parse_measured(content, path.name)


def parse_upload(contents: str, filename: str = "") -> pd.DataFrame:
    """Parse a dcc.Upload `contents` string ("data:<mime>;base64,<payload>")."""
    _, _, payload = (contents or "").partition(",")
    try:
        raw = base64.b64decode(payload, validate=True)
    except ValueError:
        raise MeasuredDataError(f"{filename or 'upload'}: not a base64 data URL") from None
    return parse_measured(raw, filename)


def parse_measured(content: bytes | str, filename: str = "") -> pd.DataFrame:
    """Parse file content; the shape is taken from the extension, else from the first character."""
    if isinstance(content, bytes):
        try:
            content = content.decode("utf-8-sig")
        except UnicodeDecodeError as err:
            raise MeasuredDataError(f"{filename or 'file'}: not UTF-8 text (byte {err.start})") from None
    if not content.strip():
        raise MeasuredDataError(f"{filename or 'file'}: the file is empty")
    name = filename.lower()
    looks_json = content.lstrip()[:1] in ("[", "{")
    if name.endswith(".json") or (not name.endswith(".csv") and looks_json):
        frame, row_label = _frame_from_json(content), "item"
    else:
        frame, row_label = _frame_from_csv(content), "row"
    return _normalise(frame, row_label)


def _frame_from_csv(text: str) -> pd.DataFrame:
    try:
        # Everything as text first, so a bad cell is reported rather than silently coerced.
        frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False, skipinitialspace=True)
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as err:
        raise MeasuredDataError(f"CSV could not be parsed: {err}") from None
    frame.columns = [str(c).strip() for c in frame.columns]
    return frame


def _frame_from_json(text: str) -> pd.DataFrame:
    try:
        items = json.loads(text)
    except json.JSONDecodeError as err:
        raise MeasuredDataError(f"invalid JSON at line {err.lineno}, column {err.colno}: {err.msg}") from None
    if isinstance(items, dict):  # tolerate {"data": [...]} wrappers
        items = next((v for v in items.values() if isinstance(v, list)), None)
    if not isinstance(items, list):
        raise MeasuredDataError("JSON must be an array of benchmark objects")
    records = []
    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise MeasuredDataError(f"item [{index}]: expected an object, got {type(item).__name__}")
        metrics = item.get("metrics")
        if not isinstance(metrics, dict):
            raise MeasuredDataError(f"item [{index}], column 'metrics': missing or not an object")
        record = {_JSON_TOP.get(k, k): v for k, v in item.items() if k not in ("metrics", "workers")}
        for key, (column, factor) in _JSON_METRICS.items():
            value = metrics.get(key)
            if value is not None and not isinstance(value, bool) and isinstance(value, int | float):
                value = value * factor
            record[column] = value
        records.append(record)
    if not records:
        raise MeasuredDataError("JSON array is empty")
    frame = pd.DataFrame.from_records(records)
    _derive_gpu_counts(frame)
    return frame


def _derive_gpu_counts(frame: pd.DataFrame) -> None:
    """n_gpus and total output throughput the way the tidy CSV defines them.

    Single node: n_gpus = decode TP. Disaggregated: prefill + decode GPUs, except legacy
    rows whose prefill/decode counts both repeat the TP size (no worker counts), where
    n_gpus = TP and the total is left blank as ambiguous.
    """
    if "n_gpus" in frame:
        return

    def number(column: str) -> pd.Series:
        values = frame[column] if column in frame else pd.Series(np.nan, index=frame.index)
        return pd.to_numeric(values, errors="coerce")

    tp, pre, dec = number("decode_tp"), number("num_prefill_gpu_raw"), number("num_decode_gpu_raw")
    disagg = frame.get("disagg", pd.Series(False, index=frame.index)).astype(str).str.lower() == "true"
    workers = number("decode_num_workers").fillna(0) + number("prefill_num_workers").fillna(0)
    legacy = disagg & (workers == 0)
    frame["n_gpus"] = np.where(disagg & ~legacy, pre + dec, tp)
    per_gpu = number("output_tput_per_gpu_tok_s")
    decode_gpus = np.where(disagg, dec, tp)
    frame["output_tput_total_tok_s"] = np.where(legacy, np.nan, per_gpu * decode_gpus)


def _normalise(frame: pd.DataFrame, row_label: str) -> pd.DataFrame:
    if frame.empty:
        raise MeasuredDataError("the file has a header but no data rows")
    missing = [c for c in REQUIRED if c not in frame.columns]
    if missing:
        raise MeasuredDataError(f"missing required column(s): {', '.join(missing)}")

    def where(i: int) -> str:
        # CSV: 1-based data row (the header is not counted); JSON: the array index.
        return f"row {i + 1}" if row_label == "row" else f"item [{i}]"

    out = pd.DataFrame(index=frame.index)
    for column in KEY_COLUMNS:
        values = frame[column]
        blank = values.isna() | (values.astype(str).str.strip() == "")
        if blank.any():
            raise MeasuredDataError(f"{where(int(np.argmax(blank.to_numpy())))}, column '{column}': value is blank")
    for column in ("hardware", "precision", "framework"):
        out[column] = frame[column].astype(str).str.strip().str.lower()
    for column in ("isl", "osl", "concurrency", "n_gpus") + METRIC_COLUMNS + NUMERIC_OPTIONAL:
        out[column] = _numeric(frame, column, where)
    for column in ("isl", "osl", "concurrency", "n_gpus"):
        bad = out[column] < 1
        if bad.any():
            i = int(np.argmax(bad.to_numpy()))
            raise MeasuredDataError(f"{where(i)}, column '{column}': must be ≥ 1, got {out[column].iloc[i]:g}")
        out[column] = out[column].astype(int)
    for column in LATENCY_COLUMNS + ("output_tput_per_gpu_tok_s",):
        bad = out[column] < 0
        if bad.any():
            i = int(np.argmax(bad.to_numpy()))
            raise MeasuredDataError(f"{where(i)}, column '{column}': negative value {out[column].iloc[i]:g}")
    for column in BOOL_COLUMNS:
        out[column] = _boolean(frame, column, where)
    spec = frame["spec_method"] if "spec_method" in frame else pd.Series("", index=frame.index)
    out["spec_method"] = spec.fillna("").astype(str).str.strip().str.lower().replace({"": "none", "nan": "none"})
    for column in ("model", "image", "date", "run_url"):
        out[column] = frame[column].fillna("").astype(str) if column in frame else ""
    # Interactivity is 1000 / TPOT by definition; derive it where the file left it out.
    out["interactivity_tok_s_user"] = out["interactivity_tok_s_user"].fillna(1e3 / out["median_tpot_ms"])
    out["decode_tp"] = out["decode_tp"].fillna(out["n_gpus"])
    return out.reset_index(drop=True)


def _numeric(frame: pd.DataFrame, column: str, where) -> pd.Series:
    if column not in frame:
        return pd.Series(np.nan, index=frame.index, dtype=float)
    raw = frame[column]
    text = raw.astype(str).str.strip()
    blank = raw.isna() | text.isin(("", "nan", "None", "null"))
    values = pd.to_numeric(raw.where(~blank), errors="coerce")
    bad = values.isna() & ~blank
    if bad.any():
        i = int(np.argmax(bad.to_numpy()))
        raise MeasuredDataError(f"{where(i)}, column '{column}': {raw.iloc[i]!r} is not a number")
    values = values.astype(float)
    infinite = ~np.isfinite(values) & values.notna()
    if infinite.any():
        i = int(np.argmax(infinite.to_numpy()))
        raise MeasuredDataError(f"{where(i)}, column '{column}': value is not finite")
    return values


def _boolean(frame: pd.DataFrame, column: str, where) -> pd.Series:
    if column not in frame:
        return pd.Series(False, index=frame.index)
    mapping = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False, "": False}
    text = frame[column].map(lambda v: "" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v))
    values = text.str.strip().str.lower().map(mapping)
    bad = values.isna()
    if bad.any():
        i = int(np.argmax(bad.to_numpy()))
        raise MeasuredDataError(f"{where(i)}, column '{column}': {frame[column].iloc[i]!r} is not true/false")
    return values.astype(bool)


# --- Filters ----------------------------------------------------------------------

TOPOLOGIES = ("single", "disagg")


def _as_set(value) -> set | None:
    if value is None or (isinstance(value, str) and value.lower() in ("", "all", "any")):
        return None
    if isinstance(value, str | int | float):
        value = [value]
    values = {str(v).lower() for v in value}
    return values or None


def filter_measured(
    df: pd.DataFrame,
    hardware=None,
    precision=None,
    isl=None,
    osl=None,
    framework=None,
    spec_method=None,
    topology: str | None = None,
) -> pd.DataFrame:
    """Rows matching every given filter. Each filter is a value or a list of values; None/"all" keeps all.

    `topology` is "single" (single-node, not disaggregated) or "disagg" (disaggregated
    prefill/decode, possibly multi-node).
    """
    keep = pd.Series(True, index=df.index)
    for column, wanted in (
        ("hardware", hardware),
        ("precision", precision),
        ("isl", isl),
        ("osl", osl),
        ("framework", framework),
        ("spec_method", spec_method),
    ):
        wanted = _as_set(wanted)
        if wanted is not None:
            keep &= df[column].astype(str).str.lower().isin(wanted)
    if topology not in (None, "", "all"):
        if topology not in TOPOLOGIES:
            raise ValueError(f"topology must be one of {TOPOLOGIES} or None, got {topology!r}")
        single = ~df["disagg"] & ~df["is_multinode"]
        keep &= single if topology == "single" else ~single
    return df[keep]


def apply_filters(df: pd.DataFrame, filters: dict | None) -> pd.DataFrame:
    """`filter_measured` with a dict of the same keyword names (unknown keys are an error)."""
    return filter_measured(df, **(filters or {}))


def filter_options(df: pd.DataFrame) -> dict[str, list]:
    """Distinct values present in each filterable column, for dropdowns."""
    options = {c: sorted(df[c].dropna().unique().tolist()) for c in ("hardware", "precision", "framework")}
    options["spec_method"] = sorted(df["spec_method"].unique().tolist())
    options["isl"] = sorted(int(v) for v in df["isl"].unique())
    options["osl"] = sorted(int(v) for v in df["osl"].unique())
    options["topology"] = [t for t in TOPOLOGIES if not filter_measured(df, topology=t).empty]
    return options


def validation_rows(df: pd.DataFrame, hardware: Iterable[str] | None = None, precision: str = "fp8") -> pd.DataFrame:
    """The rows the models are judged on: single-node FP8, no speculative decoding, TPOT and throughput present."""
    rows = filter_measured(df, hardware=hardware, precision=precision, spec_method="none", topology="single")
    return rows[rows["median_tpot_ms"].gt(0) & rows["output_tput_per_gpu_tok_s"].gt(0)]


# --- Row -> model quantities ------------------------------------------------------


def model_quantities(df: pd.DataFrame) -> pd.DataFrame:
    """What each measured row means to the frontier model.

    * batch B = concurrency: the closed-loop client keeps that many requests in flight,
      so the decode batch is at most C (a few are in prefill at any time; see docs).
    * context S = isl + osl/2: the mean KV length over a request's decode phase.
    * tp = n_gpus for single-node rows (the instance is one TP group); for disaggregated
      rows the decode pool's TP size.
    * gpus = GPUs whose throughput the per-GPU numbers divide by (n_gpus).
    * dp_attention: attention is data-parallel, so each GPU holds only its share of
      the KV cache instead of a full copy.
    """
    single = ~df["disagg"] & ~df["is_multinode"]
    return pd.DataFrame(
        {
            "batch": df["concurrency"].astype(float),
            "context": df["isl"] + df["osl"] / 2.0,
            "tp": np.where(single, df["n_gpus"], df["decode_tp"]).astype(int),
            "gpus": df["n_gpus"].astype(int),
            "isl": df["isl"].astype(int),
            "osl": df["osl"].astype(int),
            "dp_attention": df["decode_dp_attention"].astype(bool),
        },
        index=df.index,
    )


def instance_output_throughput(df: pd.DataFrame) -> pd.Series:
    """Output tokens/s of the whole instance: the total where given, else per-GPU × n_gpus."""
    total = df["output_tput_total_tok_s"]
    return total.where(total.notna(), df["output_tput_per_gpu_tok_s"] * df["n_gpus"])
