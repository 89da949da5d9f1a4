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
import sys
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from inferx.data.user_files import json_problem

MEASURED_ENV = "INFERX_MEASURED"
# InferenceX draws each request's lengths uniformly between 0.8 and 1 times the nominal ISL and OSL, so a request
# averages 0.9 of them (its rows: (E2E − TTFT) / TPOT ≈ 0.90 · OSL, median over all rows). A model of its runs
# reads the mean lengths, not the nominal ones.
MEAN_LENGTH_FRACTION = 0.9

# Columns a file must have; cells of the metric columns may be blank (not measured).
KEY_COLUMNS = ("hardware", "precision", "framework", "isl", "osl", "concurrency", "n_gpus")
METRIC_COLUMNS = ("median_tpot_ms", "output_tput_per_gpu_tok_s")
REQUIRED = KEY_COLUMNS + METRIC_COLUMNS

# A run's layout: its tensor- and expert-parallel widths, and the GPUs of its prefill and decode pools.
LAYOUT_COLUMNS = ("decode_tp", "decode_ep", "prefill_tp", "prefill_ep", "num_prefill_gpu_raw", "num_decode_gpu_raw")
# Optional numeric columns, kept when present (NaN otherwise).
NUMERIC_OPTIONAL = (
    *LAYOUT_COLUMNS,
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

# Every loader ends in `load_measured_bytes`: a file on disk, a browser upload and raw API JSON bytes fetched
# server-side all take the same checks and bounds.
MAX_ROWS = 100_000  # InferenceX's full export is a few thousand rows; more is refused before parsing
_CHUNK_ROWS = 10_000  # rows parsed at a time: a text cell costs ~60 B, so a chunk of text stays ~20 MB

# Integer columns: (smallest, largest) accepted. Bounds are far beyond any real deployment, but well inside int64
# and exact in a float, so a value is never wrapped or rounded on the way in.
INT_RANGES = {
    "isl": (1, 10_000_000),
    "osl": (1, 10_000_000),
    "concurrency": (1, 10_000_000),
    "n_gpus": (1, 1_000_000),
    "decode_tp": (1, 1_000_000),
    "decode_ep": (1, 1_000_000),
    "prefill_tp": (1, 1_000_000),
    "prefill_ep": (1, 1_000_000),
    "num_prefill_gpu_raw": (0, 1_000_000),
    "num_decode_gpu_raw": (0, 1_000_000),
}
FLOAT_MAX = 1e12  # ms, tokens/s, W, J: larger is a corrupt cell, not a measurement
_JSON_METRIC_LIST = [(key, column, factor) for key, (column, factor) in _JSON_METRICS.items()]
_WANTED = set(COLUMNS) | set(TEXT_OPTIONAL) | set(BOOL_COLUMNS) | {"decode_num_workers", "prefill_num_workers"}


def measured_path_from_env() -> str | None:
    """The file named by $INFERX_MEASURED, or None."""
    return os.environ.get(MEASURED_ENV) or None


def display_name(filename, default: str = "upload") -> str:
    """A file name safe to print and to send back as JSON: no surrogates or control characters, ≤ 80 chars."""
    if not isinstance(filename, str) or not filename.strip():
        return default
    clean = filename.encode("utf-8", "replace").decode("utf-8")
    clean = "".join(c if c.isprintable() else "?" for c in clean).strip()
    return clean[:77] + "..." if len(clean) > 80 else clean


def load_measured(path: str | os.PathLike) -> pd.DataFrame:
    """Read a measured CSV or API JSON file into the normalised DataFrame."""
    if isinstance(path, str) and not path.strip():  # Path("") is the current folder
        raise MeasuredDataError("no file name given")
    path = Path(path)
    try:
        content = path.read_bytes()
    except OSError as err:
        raise MeasuredDataError(f"{path}: cannot read ({err.strerror or err})") from None
    try:
        return load_measured_bytes(content, path.name)
    except MeasuredDataError as err:  # a command line may name several files: say which one, folder and all
        said = str(err)
        said = said.removeprefix(path.name) if said.startswith(f"{path.name}:") else f": {said}"
        raise MeasuredDataError(f"{path}{said}") from None


def parse_upload(contents, filename="", max_bytes: int | None = None) -> pd.DataFrame:
    """Parse a dcc.Upload `contents` string ("data:<mime>;base64,<payload>"); a file over `max_bytes` is refused
    before it is decoded."""
    if not isinstance(contents, str):
        raise MeasuredDataError(f"expected a data URL, got {type(contents).__name__}")
    if max_bytes is not None:
        _check_size((len(contents) - contents.find(",") - 1) * 3 // 4 - 2, max_bytes)
    name = filename if isinstance(filename, str) else ""
    return load_measured_bytes(decode_data_url(contents), name, max_bytes)


def _check_size(size: int, max_bytes: int) -> None:
    if size > max_bytes:
        raise MeasuredDataError(f"the file is {size / 2**20:,.1f} MB; at most {max_bytes / 2**20:,.0f} MB is accepted")


def decode_data_url(contents: str) -> bytes:
    """The bytes of a base64 data URL, decoded a slice at a time so no second copy of the text is made."""
    start = contents.find(",") + 1
    if not contents.startswith("data:") or start == 0:
        raise MeasuredDataError("not a base64 data URL")
    out = bytearray()
    step = 4 * 2**18  # a multiple of 4, so each slice is whole base64 quanta
    try:
        for i in range(start, len(contents), step):
            out += base64.b64decode(contents[i : i + step], validate=True)
    except ValueError:
        raise MeasuredDataError("not a base64 data URL") from None
    return bytes(out)


def parse_measured(content: bytes | str, filename: str = "") -> pd.DataFrame:
    """Parse file content given as bytes or text (see `load_measured_bytes`)."""
    return load_measured_bytes(content.encode("utf-8") if isinstance(content, str) else content, filename)


def load_measured_bytes(data: bytes, filename: str = "", max_bytes: int | None = None) -> pd.DataFrame:
    """Parse a measured file's raw bytes (CSV or API JSON); the shape is taken from the extension, else from the
    first character. Raises MeasuredDataError naming the row and column at fault, or when the file is larger than
    `max_bytes` or has more than `MAX_ROWS` rows."""
    label = display_name(filename, "file")
    if not isinstance(data, bytes | bytearray):
        raise MeasuredDataError(f"{label}: expected bytes, got {type(data).__name__}")
    if max_bytes is not None:
        _check_size(len(data), max_bytes)
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    head = data[:4096].lstrip()
    if not head:
        raise MeasuredDataError(f"{label}: the file is empty")
    name = filename.lower() if isinstance(filename, str) else ""
    looks_json = head[:1] in (b"[", b"{")
    if name.endswith(".json") or (not name.endswith(".csv") and looks_json):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as err:
            raise MeasuredDataError(f"{label}: not UTF-8 text (byte {err.start})") from None
        del data
        parts = []
        for frame in _frames_from_json(text):
            _derive_gpu_counts(frame)
            parts.append(_normalise(frame, "item"))
        return pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0].reset_index(drop=True)
    return _frame_from_csv(data, label)


def _frame_from_csv(data: bytes, label: str) -> pd.DataFrame:
    # A bound on rows before any parsing: one line a row, and a refusal costs a byte count.
    lines = data.count(b"\n") + (not data.endswith(b"\n"))
    if lines - 1 > MAX_ROWS:
        raise MeasuredDataError(f"{label}: {lines - 1:,} data lines; at most {MAX_ROWS:,} rows are accepted")
    try:
        header = pd.read_csv(io.BytesIO(data), nrows=0, encoding="utf-8", skipinitialspace=True).columns
        _check_columns([str(c).strip() for c in header])
        # Text first, so a bad cell is reported rather than silently coerced; only the columns we read, a chunk at
        # a time, each chunk normalised to numbers before the next is read (peak memory is one chunk of text).
        reader = pd.read_csv(
            io.BytesIO(data),
            dtype=str,
            keep_default_na=False,
            skipinitialspace=True,
            encoding="utf-8",
            usecols=lambda c: str(c).strip() in _WANTED,
            chunksize=_CHUNK_ROWS,
        )
        parts = []
        for chunk in reader:
            if not isinstance(chunk.index, pd.RangeIndex):  # pandas makes the surplus leading fields the index
                raise MeasuredDataError(f"{label}: a row has more fields than the header names")
            if len(chunk) and chunk.index[-1] >= MAX_ROWS:  # rows not ended by \n escaped the line count
                raise MeasuredDataError(f"{label}: more than {MAX_ROWS:,} rows; at most {MAX_ROWS:,} are accepted")
            chunk.columns = [str(c).strip() for c in chunk.columns]
            parts.append(_normalise(chunk, "row"))
    except UnicodeDecodeError as err:
        raise MeasuredDataError(f"{label}: not UTF-8 text ({err.reason})") from None
    except (pd.errors.ParserError, ValueError) as err:
        if isinstance(err, MeasuredDataError):
            raise
        raise MeasuredDataError(f"CSV could not be parsed: {err}") from None
    except pd.errors.EmptyDataError:
        raise MeasuredDataError(f"{label}: the file is empty") from None
    if not parts:
        raise MeasuredDataError("the file has a header but no data rows")
    return pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0].reset_index(drop=True)


def _skip_ws(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def _iter_json_array(text: str):
    """The items of the top-level array (or of the first array value of a top-level object, tolerating
    {"data": [...]} wrappers), decoded one at a time so only one item's objects exist at once."""
    decoder = json.JSONDecoder()
    i = _skip_ws(text, 0)
    wrapped = text[i : i + 1] == "{"
    if wrapped:
        i = _skip_ws(text, i + 1)
        while text[i : i + 1] == '"':
            _, i = decoder.raw_decode(text, i)
            i = _skip_ws(text, i)
            if text[i : i + 1] != ":":
                raise json.JSONDecodeError("expected ':'", text, i)
            i = _skip_ws(text, i + 1)
            if text[i : i + 1] == "[":
                break
            _, i = decoder.raw_decode(text, i)
            i = _skip_ws(text, i)
            if text[i : i + 1] == ",":
                i = _skip_ws(text, i + 1)
        else:
            raise MeasuredDataError("JSON must be an array of benchmark objects")
    if text[i : i + 1] != "[":
        try:
            decoder.decode(text)
        except json.JSONDecodeError:
            raise
        raise MeasuredDataError("JSON must be an array of benchmark objects")
    i = _skip_ws(text, i + 1)
    while text[i : i + 1] != "]":
        item, i = decoder.raw_decode(text, i)
        yield item
        i = _skip_ws(text, i)
        if text[i : i + 1] == ",":
            i = _skip_ws(text, i + 1)
        elif text[i : i + 1] != "]":
            raise json.JSONDecodeError("expected ',' or ']'", text, i)
    end = _skip_ws(text, i + 1)
    if not wrapped and end < len(text):  # a wrapper's other keys may follow its array; nothing follows a file's
        raise json.JSONDecodeError("text after the array", text, end)


def _json_scalar(value):
    """A JSON value as a cell: integers as float (one too large for a float becomes inf, refused later as out of
    range), booleans as the text the CSV would have (so a number column refuses them), a list or object as its type
    name (refused as not a number); text, floats and null as they are."""
    kind = type(value)
    if kind is str:
        if not value.isascii():  # a lone surrogate (U+D800) is no text: JSON and printing refuse it
            value = value.encode("utf-8", "replace").decode("utf-8")
        return sys.intern(value)  # the same hardware, framework or date in every item is then one object
    if kind is float or value is None:
        return value
    if kind is int:
        try:
            return float(value)
        except OverflowError:
            return math.inf
    if kind is bool:
        return "true" if value else "false"
    return f"<{kind.__name__}>"


def _frames_from_json(text: str):
    """The items as DataFrames of at most `_CHUNK_ROWS` rows, indexed by item number; each block is built and handed
    on before the next is decoded, so the decoded objects of one block at most are alive at once."""
    records, start = [], 0
    try:
        for index, item in enumerate(_iter_json_array(text)):
            if index >= MAX_ROWS:
                raise MeasuredDataError(f"more than {MAX_ROWS:,} items; at most {MAX_ROWS:,} are accepted")
            if not isinstance(item, dict):
                raise MeasuredDataError(f"item [{index}]: expected an object, got {type(item).__name__}")
            metrics = item.get("metrics")
            if not isinstance(metrics, dict):
                raise MeasuredDataError(f"item [{index}], column 'metrics': missing or not an object")
            record = {_JSON_TOP.get(k, k): _json_scalar(v) for k, v in item.items() if _JSON_TOP.get(k, k) in _WANTED}
            for key, column, factor in _JSON_METRIC_LIST:
                value = _json_scalar(metrics.get(key))
                record[column] = value * factor if type(value) is float else value
            records.append(record)
            if len(records) == _CHUNK_ROWS:
                yield pd.DataFrame.from_records(records, index=range(start, start + len(records)))
                records, start = [], index + 1
    except RecursionError:
        raise MeasuredDataError("JSON is nested too deeply to be a benchmark file") from None
    except json.JSONDecodeError as err:
        raise MeasuredDataError(f"invalid JSON at line {err.lineno}, column {err.colno}: {err.msg}") from None
    except ValueError as err:  # e.g. an integer of more than 4,300 digits
        if isinstance(err, MeasuredDataError):
            raise
        raise MeasuredDataError(f"invalid JSON: {json_problem(err)}") from None
    if records:
        yield pd.DataFrame.from_records(records, index=range(start, start + len(records)))
    elif start == 0:
        raise MeasuredDataError("JSON array is empty")


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
    disagg = frame.get("disagg", pd.Series(False, index=frame.index)).astype(str).str.strip().str.lower()
    disagg = disagg.map(BOOLEAN_TEXT).eq(True)  # as `_boolean` reads it (which refuses what is neither, later)
    workers = number("decode_num_workers").fillna(0) + number("prefill_num_workers").fillna(0)
    legacy = disagg & (workers == 0)
    frame["n_gpus"] = np.where(disagg & ~legacy, pre + dec, tp)
    per_gpu = number("output_tput_per_gpu_tok_s")
    decode_gpus = np.where(disagg, dec, tp)
    frame["output_tput_total_tok_s"] = np.where(legacy, np.nan, per_gpu * decode_gpus)


def _check_columns(columns) -> None:
    missing = [c for c in REQUIRED if c not in columns]
    if missing:
        raise MeasuredDataError(f"missing required column(s): {', '.join(missing)}")


def _normalise(frame: pd.DataFrame, row_label: str) -> pd.DataFrame:
    """Check and convert one block of rows; the frame's index is the 0-based data row (CSV) or item index (JSON)."""
    if frame.empty:
        raise MeasuredDataError("the file has a header but no data rows")
    _check_columns(frame.columns)

    def where(i: int) -> str:
        # CSV: 1-based data row (the header is not counted); JSON: the array index.
        n = int(frame.index[i])
        return f"row {n + 1}" if row_label == "row" else f"item [{n}]"

    out = pd.DataFrame(index=frame.index)
    for column in ("hardware", "precision", "framework"):
        text = frame[column].astype(object).fillna("").astype(str).str.strip()
        blank = text == ""
        if blank.any():
            raise MeasuredDataError(f"{where(int(np.argmax(blank.to_numpy())))}, column '{column}': value is blank")
        out[column] = text.str.lower()
    for column in ("isl", "osl", "concurrency", "n_gpus") + METRIC_COLUMNS + NUMERIC_OPTIONAL:
        out[column] = _numeric(frame, column, where, required=column in KEY_COLUMNS)
    for column in LATENCY_COLUMNS + ("output_tput_per_gpu_tok_s",):
        bad = out[column] < 0
        if bad.any():
            i = int(np.argmax(bad.to_numpy()))
            raise MeasuredDataError(f"{where(i)}, column '{column}': negative value {out[column].iloc[i]:g}")
    for column in ("isl", "osl", "concurrency", "n_gpus"):
        out[column] = out[column].astype(np.int64)  # exact: _numeric checked range and integrality
    for column in BOOL_COLUMNS:
        out[column] = _boolean(frame, column, where)
    spec = frame["spec_method"] if "spec_method" in frame else pd.Series("", index=frame.index)
    out["spec_method"] = spec.fillna("").astype(str).str.strip().str.lower().replace({"": "none", "nan": "none"})
    for column in ("model", "image", "date", "run_url"):
        out[column] = frame[column].fillna("").astype(str) if column in frame else ""
    # Only web links: the page turns run_url into a link a user clicks.
    out["run_url"] = out["run_url"].where(out["run_url"].str.match(r"https?://", case=False), "")
    # Interactivity is 1000 / TPOT by definition; derive it where the file left it out.
    with np.errstate(divide="ignore"):
        derived = 1e3 / out["median_tpot_ms"].where(out["median_tpot_ms"] > 0)
    out["interactivity_tok_s_user"] = out["interactivity_tok_s_user"].fillna(derived)
    out["decode_tp"] = out["decode_tp"].fillna(out["n_gpus"])
    for column in ("hardware", "precision", "framework") + TEXT_OPTIONAL:
        out[column] = _shared_strings(out[column])
    return out


def _shared_strings(text: pd.Series) -> pd.Series:
    """The column with one string object per distinct value: a file at the row limit repeats a few names in every
    row, and a string per cell held ~50 MB of a worker while the rest of the file was parsed."""
    codes, uniques = pd.factorize(text)
    return pd.Series(uniques.take(codes), index=text.index, dtype=text.dtype, name=text.name)


def _numeric(frame: pd.DataFrame, column: str, where, required: bool = False) -> pd.Series:
    """A column as float64, every value checked before it is used: a number, finite, within the column's range and,
    for counts, a whole number. The first bad cell is named; nothing is clamped, rounded or wrapped."""
    if column not in frame:
        return pd.Series(np.nan, index=frame.index, dtype=float)
    raw = frame[column]
    values = pd.to_numeric(raw, errors="coerce").astype(float)
    missing = values.isna()
    if missing.any():  # only the cells that did not parse are looked at as text: blank is allowed, the rest is not
        text = raw[missing].astype(object).fillna("").astype(str).str.strip()
        blank = text.isin(("", "nan", "NaN", "None", "null"))
        if required and blank.any():
            raise MeasuredDataError(f"{where(frame.index.get_loc(blank.idxmax()))}, column '{column}': value is blank")
        if not blank.all():
            i = frame.index.get_loc((~blank).idxmax())
            raise MeasuredDataError(f"{where(i)}, column '{column}': {str(raw.iloc[i])[:40]!r} is not a number")
    lo, hi = INT_RANGES.get(column, (-FLOAT_MAX, FLOAT_MAX))
    out_of_range = values.notna() & ~values.between(lo, hi)
    if out_of_range.any():
        i = int(np.argmax(out_of_range.to_numpy()))
        raise MeasuredDataError(
            f"{where(i)}, column '{column}': {str(raw.iloc[i])[:40]} is outside {lo:,} … {hi:,}"
            if np.isfinite(values.iloc[i])
            else f"{where(i)}, column '{column}': value is not a finite number (or too large)"
        )
    if column in INT_RANGES:
        fractional = values.notna() & (values != np.floor(values))
        if fractional.any():
            i = int(np.argmax(fractional.to_numpy()))
            raise MeasuredDataError(f"{where(i)}, column '{column}': {str(raw.iloc[i])[:40]} is not a whole number")
    return values


BOOLEAN_TEXT = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False, "": False}


def _boolean(frame: pd.DataFrame, column: str, where) -> pd.Series:
    if column not in frame:
        return pd.Series(False, index=frame.index)
    text = frame[column].map(lambda v: "" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v))
    values = text.str.strip().str.lower().map(BOOLEAN_TEXT)
    bad = values.isna()
    if bad.any():
        i = int(np.argmax(bad.to_numpy()))
        raise MeasuredDataError(f"{where(i)}, column '{column}': {str(frame[column].iloc[i])[:40]!r} is not true/false")
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
