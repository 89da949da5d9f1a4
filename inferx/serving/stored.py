"""The stored calibration (`calibration.json`) and its error tables (`calibration_errors.json`): read once,
looked up by GPU, stack and precision, and put in words."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from inferx.physics.model_spec import KEY_MARK
from inferx.serving.model import DEFAULT_FRAMEWORK, Calibration, base_framework
from inferx.serving.transfer import KIND_WORDS, kind_band, kind_error
from inferx.text import percent

CALIBRATION_FILE = Path(__file__).with_name("calibration.json")

# Error tables of the stored calibration on InferenceX's rows (aggregates; `inferx validate --error-tables`).
ERROR_TABLES_FILE = Path(__file__).with_name("calibration_errors.json")


@dataclass(frozen=True)
class Stored:
    """calibration.json as read: fitted calibrations by "gpu/framework" key, with their provenance."""

    fitted: dict  # key -> Calibration
    uncertainty: dict  # key -> {parameter: relative 1σ}
    rows: dict  # key -> rows fitted
    residual_spread: dict  # metric -> (p10, p90) of log(predicted / measured) over all fitted rows (pooled)
    spread_by_key: dict = None  # "gpu/stack/precision" -> metric -> (p10, p90), keys with enough rows only
    power: PowerDraw | None = None  # the draw by load, where rows reported power


def _parse(data: dict) -> Stored:
    fitted = {key: Calibration(**values) for key, values in data["parameters"].items()}
    power = PowerDraw(**data["power"]) if data.get("power") else None
    return Stored(fitted, data.get("uncertainty", {}), data.get("rows", {}), data.get("residual_spread", {}),
                  data.get("residual_spread_by_key", {}), power)  # fmt: skip


@functools.lru_cache(maxsize=4)
def _load(path: str) -> Stored:
    return _parse(json.loads(Path(path).read_text()))


def load_stored(path: Path | str = CALIBRATION_FILE) -> Stored:
    """The stored calibration, read once per process (figures redraw with it many times)."""
    return _load(str(path))


def spread_key(gpu: str, framework: str | None, precision: str) -> str:
    """The calibration key "gpu/stack/precision" a band is looked up under."""
    return f"{gpu}/{base_framework(framework or DEFAULT_FRAMEWORK)}/{precision}"


TRANSFER_KEY = "transferred:"  # a band key naming a kind of extrapolation of the transferable model


def residual_spread(metric: str, key: str | None = None, path: Path | str = CALIBRATION_FILE):
    """((p10, p90), source) of log(predicted / measured) for `metric`, or None when the file holds none.

    source is the calibration key when that key's own rows gave the spread (enough of them were fitted),
    else "pooled": the spread over every fitted row, which a GPU or stack without its own fit, or with few
    rows, falls back to.
    """
    if key and key.startswith(TRANSFER_KEY):
        band = kind_band(key[len(TRANSFER_KEY) :], metric)
        return (tuple(band), key) if band else None
    stored = load_stored(path)
    own = (stored.spread_by_key or {}).get(key or "", {}).get(metric)
    if own:
        return tuple(own), key
    pooled = stored.residual_spread.get(metric)
    return (tuple(pooled), "pooled") if pooled else None


def band_label(metric: str, key: str | None = None, path: Path | str = CALIBRATION_FILE) -> str:
    """Legend words of a band: whose rows its p10–p90 comes from. Short: plotly gives every item of a legend
    that wraps the widest item's width, so one long name put a legend of eight in a single column."""
    found = residual_spread(metric, key, path)
    if found is not None and found[1].startswith(TRANSFER_KEY):
        return f"measured p10–p90 (held out: {KIND_WORDS[found[1][len(TRANSFER_KEY) :]]})"
    source = "all fits pooled" if found is None or found[1] == "pooled" else f"{found[1]} rows"
    return f"measured p10–p90 ({source})"


def residual_band(predicted, metric: str, key: str | None = None, path: Path | str = CALIBRATION_FILE):
    """(low, high): where 80 % of measurements fell around a calibrated prediction of `metric`.

    The stored spread is the fit's p10 and p90 of log(predicted / measured) over the rows of calibration
    `key` (`residual_spread`, pooled over every key where it has too few), so measured values lay between
    predicted · e^(−p90) and predicted · e^(−p10). None when the file holds no spread for it.
    """
    found = residual_spread(metric, key, path)
    if found is None:
        return None
    predicted = np.asarray(predicted, dtype=float)
    (p10, p90), _ = found
    return predicted * np.exp(-p90), predicted * np.exp(-p10)


@functools.lru_cache(maxsize=2)
def load_error_tables(path: Path | str = ERROR_TABLES_FILE) -> dict:
    """The stored error tables: {"note", "source", "tables": {grouping: [{group, rows, metric: [median, p90]}]}}."""
    return json.loads(Path(path).read_text())


# The metrics a measured error states, in the words a reader knows them by.
ERROR_METRICS = {"tpot": "TPOT", "ttft": "TTFT", "throughput_per_gpu": "output tok/s per GPU"}

# Two of the error tables' groupings (`report.error_tables`): by calibration key ("b200/trt/fp4"), and
# each GPU's runs predicted by a fit without them, with their pooled row, HELD_OUT_POOLED.
STACK_GROUPING = "GPU/stack/precision"

HELD_OUT_GROUPING = "GPU held out"

HELD_OUT_POOLED = "all"


def measured_error(group: str, tables: dict | None = None, grouping: str = "GPU") -> dict | None:
    """A row of the stored error tables ({"group", "rows", metric: [median, p90]}), by default a GPU's; None where
    the grouping has no such group (a GPU with no InferenceX runs)."""
    rows = (tables or load_error_tables())["tables"].get(grouping, [])
    return next((entry for entry in rows if entry["group"] == group), None)


def scenario_error(info: dict, tables: dict | None = None) -> dict | None:
    """The closest measured error for a `scenario_calibration`: its calibration key's runs, else its GPU's; for the
    transferable model, the runs held out as its kind of extrapolation."""
    if info.get("basis") == "transferred":
        gpu = info["gpu"].partition(KEY_MARK)[0]
        return {"group": KIND_WORDS[info["kind"]], **kind_error(info["kind"], info.get("model"), gpu=gpu)}
    own = measured_error(info["spread_key"], tables, STACK_GROUPING)
    return own or measured_error(info["gpu"].partition(KEY_MARK)[0], tables)


def held_out_error(tables: dict | None = None) -> dict | None:
    """The pooled errors of every measured GPU predicted by a fit without its runs: what to expect on a GPU with
    no runs of its own."""
    return measured_error(HELD_OUT_POOLED, tables, HELD_OUT_GROUPING)


def measured_error_text(info: dict, tables: dict | None = None) -> str:
    """How far the calibrated model is from InferenceX's runs of this calibration (else of its GPU), in one sentence
    for the page: what a reader can expect of its numbers. A GPU with no runs gets the errors of a GPU held out of
    the fit."""
    entry = scenario_error(info, tables)
    if info.get("basis") == "transferred":
        held = "in sample" if info["kind"] == "measured" else "predicted by fits that held that kind out"
        return (f"Transferable model, {KIND_WORDS[info['kind']]}: against {entry.get('rows', 0):,} measured runs "
                f"of that kind ({held}), its median error is {_errors(entry)}.")  # fmt: skip
    if entry is not None:
        which = entry["group"].replace("/", " · ")
        own = "/" in entry["group"]  # a calibration key's runs, not only its GPU's
        runs = f"of this calibration ({which}" if own else f"on this GPU ({which}, its measured stacks"
        return (f"Against DeepSeek-R1's {entry['rows']:,} InferenceX runs {runs}; in sample), the model's median "
                f"error is {_errors(entry)}.")  # fmt: skip
    held_out = held_out_error(tables)
    if held_out is None:
        return "No InferenceX runs on this GPU to score the model against."
    return (f"No InferenceX runs on this GPU. With each measured GPU left out of the fit in turn, the model's "
            f"median error on the left-out GPU's runs was {_errors(held_out)}. Expect errors of that size "
            "here.")  # fmt: skip


def _errors(entry: dict) -> str:
    """ "3.4 % in TPOT, 8.1 % in TTFT and 4.0 % in output tok/s per GPU; at p90 11 %, 25 % and 13 %" (the metrics
    the entry has)"""
    metrics = {key: name for key, name in ERROR_METRICS.items() if key in entry}
    medians = _listed([f"{percent(entry[key][0])} in {name}" for key, name in metrics.items()])
    p90s = _listed([percent(entry[key][1], 0) for key in metrics])
    return f"{medians}; at p90 {p90s}"


def _listed(parts: list[str]) -> str:
    """ "a, b and c" """
    return ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else "".join(parts)


def load_calibration(path: Path | str = CALIBRATION_FILE) -> dict[str, Calibration]:
    """Fitted calibrations by "gpu/framework" key."""
    return dict(load_stored(path).fitted)


def typical(calibrations) -> Calibration:
    """The geometric mean of several calibrations: fractions of peak and overheads are scale factors.

    A parameter some stacks do not have (0: e.g. no attention-DP wait) averages over those that do.
    """
    vectors = np.array([c.vector() for c in calibrations])
    if not len(vectors):
        raise ValueError("typical() needs at least one calibration")
    mean = [np.exp(np.mean(np.log(col[col > 0]))) if (col > 0).any() else 0.0 for col in vectors.T]
    return Calibration.from_vector(mean)


def _parts(key: str) -> tuple:
    gpu, framework, precision = (key.split("/") + [None, None])[:3]
    return gpu, framework, precision


def calibration_for(gpu: str, framework: str | None = None, calibrations: dict | None = None, precision: str = "fp8"):
    """(Calibration, basis) for a GPU, software stack and weight precision ("gpu/stack/precision" keys).

    basis says where the numbers come from, first match wins: "fitted" (rows of this GPU, stack
    and precision), "fitted at other precision" (this GPU and stack), "stack typical" (this
    stack's fits on other GPUs at either precision, applied to this GPU's datasheet: in
    leave-one-GPU-out tests the stack's fits on more GPUs transfer better than one GPU's at
    the same precision),
    "GPU typical" (this GPU's fits with other stacks) or "datasheet" (the typical fit of every
    GPU and stack, applied to this GPU's datasheet).
    """
    fits = load_calibration() if calibrations is None else calibrations
    framework = base_framework(framework or DEFAULT_FRAMEWORK)
    rules = (
        ("fitted", lambda g, f, p: (g, f, p) == (gpu, framework, precision)),
        ("fitted at other precision", lambda g, f, p: (g, f) == (gpu, framework)),
        ("stack typical", lambda g, f, p: f == framework),
        ("GPU typical", lambda g, f, p: g == gpu),
        ("datasheet", lambda g, f, p: True),
    )
    for basis, rule in rules:
        found = [cal for key, cal in fits.items() if rule(*_parts(key))]
        if found:
            return (found[0] if len(found) == 1 else typical(found)), basis
    raise ValueError("no calibration to predict from")


@dataclass(frozen=True)
class PowerDraw:
    """What a GPU draws while serving, of its board power: `floor` plus `slope` × its busy share (`busy_share`),
    fitted on the measured rows that report power (`fit.fit_power`)."""

    floor: float
    slope: float
    rows: int = 0

    def fraction(self, busy):
        return np.clip(self.floor + self.slope * np.asarray(busy, dtype=float), 0.0, 1.0)
