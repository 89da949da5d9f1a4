"""A serving scenario: the shared controls, validated, and the model evaluated on it.

`PARAMS` is the one list of controls. Its names are the CLI options, the URL query
parameters and the dashboard's control ids (`ctl-<name>`); values are in user
units (TB/s, PFLOPS, GB, tokens, percent). `Scenario` holds the same in SI units.
"""

from __future__ import annotations

import difflib
import functools
import math
import operator
import re
import reprlib
from collections.abc import Callable, Collection
from dataclasses import dataclass, field, fields, replace
from types import SimpleNamespace

import numpy as np

from . import engine as E
from . import models as M
from .hardware import GPUS, MAX_GPUS, Machine, memory_fit_message
from .models import MODELS
from .presets import (
    DTYPE_BYTES,
    HARDWARE,
    INTERCONNECTS,
    SCALE_UP,
    TIERED,
    Interconnect,
    ModelSpec,
    interconnect,
    pipeline_interconnect,
)

MODES = ("article", "calibrated")
# Software stacks with a calibration or a typical one to fall back on (calibrated.calibration_for says which).
FRAMEWORK_LABELS = {"sglang": "SGLang", "trt": "TensorRT-LLM", "vllm": "vLLM", "atom": "ATOM"}
FRAMEWORKS = tuple(FRAMEWORK_LABELS)


class InvalidParameter(ValueError):
    """A value outside its parameter's domain. The message names both, the same words for the CLI, the URL,
    the page controls and the Python API: `bw=999: must be from 1 to 200 TB/s`."""

    def __init__(self, name: str, message: str, value=None):
        self.name, self.reason = name, message
        self.shown = None if value is None else shown_value(value)
        super().__init__(f"{name if self.shown is None else f'{name}={self.shown}'}: {message}")


_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxdict, _SHORT.maxlist, _SHORT.maxtuple = 3, 4, 4, 4


def shown_value(value, limit: int = 40) -> str:
    """A value as a message may quote it: short, and cheap and safe for any input (reprlib stops at a few
    levels and items; an integer past Python's 4,300-digit limit cannot even be printed)."""
    try:
        printable = isinstance(value, str) and value.isprintable()  # control characters are shown escaped
        text = value if printable else _SHORT.repr(value)
    except (ValueError, RecursionError):
        text = f"a very long {type(value).__name__}"
    return text if len(text) <= limit else text[: limit - 1] + "…"


GROUPS = (
    "Hardware",
    "Workload",
    "Precision",
    "Parallelism",
    "Model",
    "Targets & cost",
)  # the controls' headings, in page order


@dataclass(frozen=True)
class Param:
    """One control, declared once: the page's widget, the URL parameter, the CLI option and the check of its
    value all read this."""

    label: str
    unit: str
    kind: str  # "float", "int", "pow2" (a whole power of two) or "choice"
    default: object = None  # None: taken from the hardware preset
    low: float = 0.0  # the one domain, low <= x <= high: the CLI, the URL, the sliders and the API all use it
    high: float = 0.0
    step: float = 0.0  # a slider's drag step, in slider units (log2 units on a log2 slider); keys: keyboard_step
    log2: bool = False  # the slider's position is log2 of the value
    decimals: int | None = None  # decimals the value is shown (and a dragged value rounded) with; None: the step's
    options: Collection[str] = ()  # a choice's allowed values; a catalog dict stays live (a new entry is a choice)
    label_of: Callable[[str], str] = str.upper  # what the page shows for each choice
    radio: bool = False  # a choice shown as a row of radio buttons rather than a dropdown
    help: str = ""
    group: str = "Workload"  # one of GROUPS
    preset: str = ""  # the preset's attribute that sets it ("": a preset does not)
    machine: bool = False  # choosing a GPU and a count sets it (from the hardware catalog)
    overlay: bool = True  # shown on /inferencex (it moves the model curve over the measured points)
    unset: str = ""  # a word the URL and CLI may give for "no value" (None: the model picks, e.g. "fitted")

    @property
    def choices(self) -> tuple[str, ...]:
        return tuple(self.options)


KEY_PRESSES = 100  # arrow presses that cross any slider's range, at most (PageUp/PageDown move ten: ten presses)
# An arrow key on a log2 slider of a physical quantity (bandwidth, compute, HBM): the first of these fractions
# of a doubling that is whole drag steps and crosses the range in KEY_PRESSES (a tenth, 7 %, for bandwidth and
# HBM; 0.15, 11 %, for compute's 13.3 doublings); PageUp/PageDown ten of them. A count's log2 slider (tokens)
# moves a doubling per arrow.
LOG_KEY_STEPS = (0.1, 0.15, 0.2, 0.25, 0.5, 1.0)
SIGNIFICANT = 12  # digits a log2 slider's position gives back of a value put there (log2, then 2**, lose ~1e-15)
SHOWN_RESOLUTION = 0.02  # a log2 quantity is shown, and a drag or key rounded, to 2 % of its value or finer


def keyboard_step(p: Param) -> float:
    """An arrow key's step on `p`'s slider, in slider units: on a log2 slider one doubling for a count and
    one of LOG_KEY_STEPS for a quantity; else the drag step where KEY_PRESSES cross the range, or the smallest
    1-2-2.5-5 multiple of it that does (0.01 PFLOPS per press took 99,990 presses). The drag step stays as
    fine as before, so every value the URL accepts keeps its place."""
    if p.log2 and p.kind == "int":
        return 1.0
    if p.log2:
        span = math.log2(p.high / p.low)
        return next(
            key
            for key in LOG_KEY_STEPS
            if span / key <= KEY_PRESSES + 1e-9 and abs(key / p.step - round(key / p.step)) < 1e-9
        )
    need = max(p.step, (p.high - p.low) / KEY_PRESSES)
    for exponent in range(-3, 7):
        for mantissa in (1, 2, 2.5, 5):
            key = mantissa * 10.0**exponent
            if key >= need - 1e-12 and abs(key / p.step - round(key / p.step)) < 1e-9:
                return key
    raise ValueError(f"no keyboard step for {p.label}: range {p.low}-{p.high}, step {p.step}")


def decimals(p: Param, value=None) -> int:
    """Decimals a slider's value is shown with: the declared ones, else the drag step's (none on a log2 slider
    or a step of 1 or more). A log2 quantity's `value` gets more where its own are coarser than SHOWN_RESOLUTION
    of it ("1.07 TB/s", "0.312 PFLOPS"): an arrow key there moves a few per cent, less than 0.1 of 1 TB/s."""
    places = p.decimals if p.decimals is not None else 0 if p.log2 or p.step >= 1 else -math.floor(math.log10(p.step))
    if p.log2 and p.kind == "float" and value is not None and value > 0:
        places = max(places, math.ceil(-math.log10(SHOWN_RESOLUTION * value) - 1e-9))
    return places


def slider_position(p: Param, value) -> float:
    """Where `value` sits on `p`'s slider: log2 of it on a log2 slider, else the value itself."""
    return math.log2(value) if p.log2 else value


def value_at(p: Param, position: float):
    """The value a position of `p`'s slider stands for, in the parameter's units (the browser's twin:
    `fromPosition` in assets/inferx.js). A log2 slider gives 2**position: a count rounded to a whole number;
    a quantity rounded as it is shown (`decimals`) where the position is on the drag step's grid (a drag, an
    arrow key), else to SIGNIFICANT digits, which gives back exactly the value (an address's, a preset's) that
    put the slider there."""
    if not p.log2:
        return position
    value = 2.0**position
    if p.kind == "int":
        return max(1, round(value))
    on_grid = abs(position / p.step - round(position / p.step)) < 1e-6
    return round(value, decimals(p, value)) if on_grid else float(f"{value:.{SIGNIFICANT}g}")


DTYPES = tuple(DTYPE_BYTES)


def link(values: dict) -> Interconnect:
    """The interconnect of a control state (TP's, when `ic` names two): `ic`, read against its GPU when it names
    the GPU's own link."""
    return interconnect(values["ic"], GPUS[values["gpu"]])


def borrowed_link(values: dict) -> tuple[Interconnect, Interconnect] | None:
    """(the link used, the GPU's own) where a GPU other than the preset's still has the preset's link, as an
    address or a command naming a GPU and no `ic` gives it (the page's GPU menu switches to the own link), and
    the two differ; None otherwise."""
    preset = default_params(values["preset"])
    if values["gpu"] == preset["gpu"] or values["ic"] != preset["ic"] or values["gpu"] not in GPUS:
        return None
    used, own = link(values), interconnect(SCALE_UP, GPUS[values["gpu"]])
    return (used, own) if used.bw != own.bw else None


def _interconnect_label(key: str) -> str:
    if key == SCALE_UP:  # its bandwidth follows the GPU menu
        return "The GPU's own link (datasheet)"  # short: the sidebar's menu shows ~30 characters; Figure 8 names it
    if key == TIERED:
        return "Own link for TP, InfiniBand for PP"
    ic = INTERCONNECTS[key]
    return f"{ic.label} · {ic.bw / 1e9:g} GB/s, α {ic.alpha * 1e6:g} µs"


def _catalog_choice(label: str, catalog: dict, shown: str, default, **more) -> Param:
    """A choice among a catalog's keys (live: a new entry is a new choice), shown by each entry's `shown`."""
    return Param(
        label, "", "choice", default, options=catalog, label_of=lambda key: getattr(catalog[key], shown), **more
    )


PARAMS: dict[str, Param] = {
    "preset": _catalog_choice(
        "Hardware preset",
        HARDWARE,
        "label",
        "h200x8",
        help="a named machine: sets gpu, gpus, bw, compute, hbm, tp, ic",
        group="Hardware",
    ),
    "gpu": _catalog_choice(
        "GPU",
        GPUS,
        "name",
        None,
        help="sets bw, compute and hbm with gpus, from the hardware catalog",
        group="Hardware",
        preset="family",
    ),
    "gpus": Param(
        "GPU count",
        "GPUs",
        "int",
        None,
        1,
        MAX_GPUS,
        1,
        help="GPUs serving one model instance",
        group="Hardware",
        preset="n_gpus",
    ),
    # Wide enough for every catalog machine up to 72 GPUs (72 × 8 TB/s, 72 × 13.5 PFLOPS of FP4, 72 × 288 GB),
    # and low enough for one A100 at BF16 (0.31 PFLOPS) and one L40S (48 GB at 0.86 TB/s). On log2 sliders (drag
    # step: a hundredth of a doubling, 0.7 %), so one GPU and 72 GPUs both have room on either side. Bandwidth and
    # HBM span under ten doublings, so an arrow key moves a tenth of one (keyboard_step); their low ends are no
    # power of two, so no address value near one lies on the drag grid.
    "bw": Param(
        "Memory bandwidth",
        "TB/s",
        "float",
        None,
        0.6,
        600,
        0.01,
        log2=True,
        decimals=1,
        help="aggregate HBM bandwidth",
        group="Hardware",
        preset="bw",
        machine=True,
    ),
    "compute": Param(
        "Compute",
        "PFLOPS",
        "float",
        None,
        0.1,
        1000,
        0.01,
        log2=True,
        decimals=2,
        help="aggregate peak FLOP/s",
        group="Hardware",
        preset="compute",
        machine=True,
    ),
    "hbm": Param(
        "HBM",
        "GB",
        "float",
        None,
        24,
        21000,
        0.01,
        log2=True,
        decimals=0,
        help="aggregate HBM capacity",
        group="Hardware",
        preset="hbm",
        machine=True,
    ),
    "ctx": Param(
        "Context length", "tokens", "int", 1024, 128, 131072, 0.05, log2=True, help="S: tokens of KV per request"
    ),
    "isl": Param("Input length", "tokens", "int", 1024, 128, 131072, 0.05, log2=True, help="S_in: prompt tokens"),
    "wdtype": Param("Weight dtype", "", "choice", "fp8", options=DTYPES, group="Precision"),
    "kvdtype": Param("KV dtype", "", "choice", "fp8", options=DTYPES, group="Precision"),
    "cv": Param(
        "Output length CV",
        "",
        "float",
        0.0,
        0,
        2,
        0.05,
        help="coefficient of variation of output length",
        overlay=False,
    ),
    "util": Param(
        "KV utilisation", "%", "float", 87.0, 50, 100, 1, help="η: usable share of KV headroom", overlay=False
    ),
    "tp": Param("TP degree", "GPUs", "pow2", None, 1, 64, group="Parallelism", preset="tp", overlay=False),
    "pp": Param("PP degree", "stages", "pow2", 1, 1, 16, group="Parallelism", overlay=False),
    "ic": Param(
        "Interconnect",
        "",
        "choice",
        None,
        options=(*INTERCONNECTS, SCALE_UP, TIERED),
        label_of=_interconnect_label,
        group="Parallelism",
        preset="ic",
        overlay=False,
    ),
    "model": _catalog_choice(
        "Model",
        MODELS,
        "name",
        "deepseek-r1",
        help="the model served, from the model catalog",
        group="Model",
    ),
    "mode": Param(
        "Physics",
        "",
        "choice",
        "article",
        options=MODES,
        label_of={"article": " Article physics", "calibrated": " Calibrated"}.get,
        radio=True,
        help="article physics or calibrated to measurements",
        group="Model",
    ),
    # --- The calibrated model's (the article's frontiers read none of these four; see docs/calibration.md) -----
    # ctx stays the KV context of a decode step in both models (and sets B_max); osl is how many tokens a request
    # emits before it is replaced, so the calibrated model's prefill stall (B/OSL prefills per step) and its
    # closed-loop curves on /inferencex read it, and in either mode Figure 12's E2E = TTFT + osl · ITL. Every pair
    # of ctx, isl and osl is allowed: none derives another.
    "osl": Param(
        "Output length",
        "tokens",
        "int",
        1024,
        128,
        131072,
        0.05,
        log2=True,
        help="S_out: output tokens per request (E2E; calibrated mode: prefill stall, closed loop)",
    ),
    "framework": Param(
        "Software stack",
        "",
        "choice",
        "sglang",
        options=FRAMEWORKS,
        label_of=FRAMEWORK_LABELS.get,
        help="serving software whose calibration is used (calibrated mode)",
        group="Model",
    ),
    "mtp": Param(
        "MTP speculative decoding",
        "",
        "choice",
        "off",
        options=("off", "on"),
        label_of={"off": " Off", "on": " On (3 drafts)"}.get,
        radio=True,
        help="multi-token prediction, 3 draft tokens per step (calibrated mode)",
        group="Model",
    ),
    "acceptance": Param(
        "MTP acceptance α",
        "%",
        "float",
        None,
        0,
        95,
        1,
        help="chance each draft token is accepted; unset or 'fitted': the calibration's fitted value",
        group="Model",
        unset="fitted",
    ),
    # Service targets and economics: read by the goodput, cost and energy readouts and figures, not by the
    # frontiers themselves (so they never move a curve, only what is marked on it).
    "ttft": Param(
        "TTFT target",
        "ms",
        "float",
        500.0,
        10,
        10000,
        10,
        help="time-to-first-token target of the SLO",
        group="Targets & cost",
        overlay=False,
    ),
    "tpot": Param(
        "TPOT target",
        "ms",
        "float",
        50.0,
        1,
        500,
        1,
        help="time-per-output-token (ITL) target of the SLO",
        group="Targets & cost",
        overlay=False,
    ),
    "price": Param(
        "Price",
        "$/GPU-h",
        "float",
        None,
        0.05,
        50,
        0.05,
        help="rental price per GPU-hour; unset or 'assumed': the GPU's assumed price (an assumption, not measured)",
        group="Targets & cost",
        overlay=False,
        unset="assumed",
    ),
    "power": Param(
        "Power drawn",
        "× TDP",
        "float",
        None,
        0.1,
        1,
        0.05,
        help="share of board power drawn, for tokens per joule; unset or 'default': all of it (TDP) in article"
        " physics, in calibrated mode the draw InferenceX measured, by load",
        group="Targets & cost",
        overlay=False,
        unset="default",
    ),
}
CALIBRATED_ONLY = ("framework", "mtp", "acceptance")  # controls the article's model does not read
# The calibrated TTFT queues prefills of one prompt length (M/D/1): the output length's spread does not enter it.
ARTICLE_ONLY = ("cv",)
# The explorer's batch size: not a property of the scenario, but read by the URL, the page and `inferx point`
# under the same rules. 2^30 is the top of the batch slider's log2 scale.
BATCH = Param(
    "Batch size", "requests", "int", 8, 1, 2**30, 0.01, log2=True, help="decode batch size B (concurrent requests)"
)


# SI units per user unit, for the controls whose page units differ from the engine's.
UNIT_SCALE = {"TB/s": 1e12, "PFLOPS": 1e15, "GB": 1e9}


def _user_units(name: str, si: float):
    unit = PARAMS[name].unit
    return si / UNIT_SCALE[unit] if unit in UNIT_SCALE else si


def preset_values(preset: str) -> dict:
    """The user-unit control values a hardware preset sets: each parameter declared with `preset=<attribute>`
    takes that attribute of the preset."""
    hw = HARDWARE[preset]
    return {name: _user_units(name, getattr(hw, p.preset)) for name, p in PARAMS.items() if p.preset}


# A weight format's precision on the tensor cores, and the wider ones to fall back to where a GPU lacks it.
PRECISION_ORDER = ("fp4", "fp8", "bf16")
_PRECISION_OF_BYTES = {0.5: "fp4", 1.0: "fp8", 2.0: "bf16"}


def dense_compute(machine: Machine, wdtype: str) -> float:
    """Dense peak FLOP/s of `machine` at the weight dtype's precision, or the next wider one it supports."""
    start = PRECISION_ORDER.index(_PRECISION_OF_BYTES[DTYPE_BYTES[wdtype]])
    return next(peak for p in PRECISION_ORDER[start:] if (peak := machine.peak(p)) is not None)


def per_gpu_values(gpu: str) -> dict:
    """One GPU's bandwidth and HBM, and its dense compute per weight dtype, in user units: a machine's values
    are these times its count (the browser multiplies the same numbers, so both sides agree to the bit)."""
    one = Machine(GPUS[gpu], 1)
    return {
        "bw": _user_units("bw", one.bw),
        "hbm": _user_units("hbm", one.hbm),
        "compute": {w: _user_units("compute", dense_compute(one, w)) for w in DTYPES},
    }


def machine_values(preset: str, gpu: str, gpus: int, wdtype: str) -> dict:
    """The controls declared `machine=True` (bw, compute, hbm) for `gpus` × `gpu`: the preset's own numbers
    when the preset is that machine (so the article's presets stay exact), else the catalog's, with dense
    compute at the weight dtype's precision."""
    hw = HARDWARE[preset]
    if (gpu, gpus) == (hw.family, hw.n_gpus):
        values = preset_values(preset)
        return {name: values[name] for name, p in PARAMS.items() if p.machine}
    return datasheet_values(gpu, gpus, wdtype)


def datasheet_values(gpu: str, gpus: int, wdtype: str) -> dict:
    """bw, compute and hbm of `gpus` × `gpu` from the catalog, with dense compute at the weight dtype's precision."""
    one = per_gpu_values(gpu)
    values = {"bw": one["bw"], "hbm": one["hbm"], "compute": one["compute"][wdtype]}
    return {name: values[name] * gpus for name, p in PARAMS.items() if p.machine}


def default_params(preset: str = "h200x8") -> dict:
    values = {name: p.default for name, p in PARAMS.items()}
    values["preset"] = preset
    values.update(preset_values(preset))
    return values


def resolve_params(checked: dict, base: dict | None = None) -> dict:
    """Every control's value from checked user-unit values: a preset (given, or the base's) sets its
    controls; a GPU or count sets the machine's (bw, compute, hbm) and lowers TP to the count; explicit values
    win over both."""
    if base is None:
        values = default_params(checked.get("preset", PARAMS["preset"].default))
    elif "preset" in checked:
        values = {**base, **preset_values(checked["preset"])}
    else:
        values = dict(base)
    values.update(checked)
    if "gpu" in checked or "gpus" in checked:
        machine = machine_values(values["preset"], values["gpu"], values["gpus"], values["wdtype"])
        machine = {name: v for name, v in machine.items() if name not in checked}
        for name, v in machine.items():  # a datasheet within its bounds can still pass a control's at a count
            p = PARAMS[name]
            if not p.low <= v <= p.high:
                amount = f"{v:,.0f}" if v >= 1000 else f"{v:.4g}"
                what = f"{values['gpus']} × {GPUS[values['gpu']].name} has {amount} {p.unit} of {p.help}"
                span = f"{p.low:,g} to {p.high:,g} {p.unit}"
                raise InvalidParameter("gpus", f"{what}, outside the {p.label} control's {span}", values["gpus"])
        values.update(machine)
        if "tp" not in checked:
            values["tp"] = fitted_tp(values["tp"], values["gpus"])
    return values


def context_note(ctx: int, isl: int) -> str:
    """Said when a prompt is longer than the context: B_max and each step's KV read take `ctx` tokens a request
    and the prefill `isl`, so such a pair draws requests whose cache could not hold their own prompt."""
    if isl <= ctx:
        return ""
    return (
        f"The input ({isl:,} tokens) is longer than the context ({ctx:,} tokens): B_max and each step's KV read "
        f"count {ctx:,} tokens a request, the prefill {isl:,}."
    )


def fitted_tp(tp: int, gpus: int) -> int:
    """TP kept within a GPU count chosen by hand: the largest power of two up to the count where TP exceeds it
    (the browser's `fitTp` does the same). A TP set explicitly is left alone: the article's model reads TP only
    as the all-reduce's width, so a wider one is a what-if, not an error."""
    return tp if tp <= gpus else 1 << (gpus.bit_length() - 1)


def domain(p: Param) -> str:
    """The allowed values in words, e.g. "a number from 1 to 200 TB/s" or "a power of two from 1 to 16 GPUs"."""
    if p.kind == "choice":
        return f"one of {', '.join(p.choices)}"
    unit = f" {p.unit}" if p.unit else ""
    what = {"float": "a number ", "int": "a whole number ", "pow2": "a power of two "}[p.kind]
    unset = f", or {p.unset}" if p.unset else ""
    return f"{what}from {p.low:,g} to {p.high:,.0f}{unit}{unset}"  # every domain ends on a whole number


def check_param(name: str, value):
    """Return `value` coerced to the parameter's type, or raise InvalidParameter."""
    p = PARAMS.get(name)
    if p is None:
        raise InvalidParameter(name, f"unknown parameter; known: {', '.join(PARAMS)}")
    return check_value(name, p, value)


def check_batch(value) -> int:
    """The explorer's (and `inferx point`'s) batch size, checked like a control."""
    return check_value("batch", BATCH, value)


def check_value(name: str, p: Param, value):
    """`value` checked against `p`: a choice must be one of its strings; a number may come as a number or as
    text (the URL, the CLI), must be finite, within [low, high], and whole (a power of two) where asked."""
    if p.unset and (value is None or isinstance(value, str) and value.strip().lower() == p.unset):
        return None  # a parameter that may stay unset: the model picks its value
    if p.kind == "choice":
        text = value.strip().lower() if isinstance(value, str) else None
        if text not in p.options:
            refusal = getattr(p.options, "refusal", None)  # the model catalog explains a damaged model key
            said = (refusal and refusal(text)) or f"must be {domain(p)}{near_miss(text, p.choices)}"
            raise InvalidParameter(name, said, value)
        return text
    number = as_number(value)
    # NaN fails every comparison, and ±inf lies outside every domain.
    if number is None or not p.low <= number <= p.high:
        raise InvalidParameter(name, f"must be {domain(p)}", value)
    if p.kind == "float":
        return number + 0.0  # -0.0 is 0
    whole = int(number)
    if whole != number or (p.kind == "pow2" and whole & (whole - 1)):
        raise InvalidParameter(name, f"must be {domain(p)}", value)
    return whole


def near_miss(text, known) -> str:
    """The suffix ' (did you mean llama-3-8b?)' where `text` looks like a misspelling of one or two of `known`,
    else ''."""
    close = difflib.get_close_matches(text, list(known), n=2, cutoff=0.75) if isinstance(text, str) and text else []
    return f" (did you mean {' or '.join(close)}?)" if close else ""


# Numeric text as people write it in a URL or on a command line: float() also takes "1_000", "١٢" and "nan",
# which would let two spellings of one value make two addresses.
_DECIMAL = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)


def as_number(value) -> float | None:
    """A float from a number or plain decimal text, or None: booleans, containers, other text ("1_000", "inf"),
    and integers too large for a float (10**400 would raise OverflowError) are not numbers here."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str, np.integer, np.floating)):
        return None
    if isinstance(value, str) and (len(value) > 100 or not _DECIMAL.fullmatch(value.strip())):
        return None  # 100: no control needs more, and it keeps the match cheap on hostile text
    try:
        return float(value)
    except (ValueError, OverflowError):
        return None


@dataclass(frozen=True)
class Scenario:
    """Validated controls in SI units. Build with `Scenario.from_params`."""

    params: dict = field(compare=False)  # user-unit values, as in the URL
    model: ModelSpec
    bw: float
    compute: float
    hbm: float
    ctx: int
    isl: int
    b_w: float
    b_kv: float
    cv: float
    eta: float
    tp: int
    pp: int
    ic_bw: float  # TP's all-reduces
    ic_alpha: float
    pp_bw: float  # PP's hand-offs: the same link, or the one between scale-up domains (presets.TIERED)
    pp_alpha: float
    mode: str = "article"
    hardware: str = "h200x8"  # calibration family (the preset's GPU)
    # Read by the calibrated model only.
    osl: int = 1024
    framework: str = "sglang"
    mtp: bool = False
    acceptance: float | None = None  # per-draft α as a fraction; None: the calibration's fitted value

    def __hash__(self) -> int:
        # Scenarios key the figures' memos, looked up dozens of times a redraw; the generated hash would
        # rebuild a tuple of every field (and the model's) each time.
        return self._hash

    @functools.cached_property
    def _hash(self) -> int:
        return hash(_compared_fields(self))

    @classmethod
    def from_params(cls, **given) -> Scenario:
        """Scenario from user-unit values; missing ones come from the preset (and the GPU and count, when
        given), then defaults."""
        checked = {name: check_param(name, value) for name, value in given.items() if value is not None}
        return cls._from_checked(resolve_params(checked))

    @classmethod
    def _from_checked(cls, values: dict) -> Scenario:
        preset = values["preset"]
        ic, pp_link = link(values), pipeline_interconnect(values["ic"], GPUS[values["gpu"]])
        return cls(
            params=values,
            model=MODELS[values["model"]],
            bw=values["bw"] * 1e12,
            compute=values["compute"] * 1e15,
            hbm=values["hbm"] * 1e9,
            ctx=values["ctx"],
            isl=values["isl"],
            b_w=DTYPE_BYTES[values["wdtype"]],
            b_kv=DTYPE_BYTES[values["kvdtype"]],
            cv=values["cv"],
            eta=values["util"] / 100.0,
            tp=values["tp"],
            pp=values["pp"],
            ic_bw=ic.bw,
            ic_alpha=ic.alpha,
            pp_bw=pp_link.bw,
            pp_alpha=pp_link.alpha,
            mode=values["mode"],
            hardware=preset,
            osl=values["osl"],
            framework=values["framework"],
            mtp=values["mtp"] == "on",
            acceptance=None if values["acceptance"] is None else values["acceptance"] / 100.0,
        )

    def with_params(self, **changes) -> Scenario:
        """A copy with some user-unit controls changed; only the changes are checked again. A new preset
        brings its hardware controls, a new GPU or count its machine's, unless the changes set them too."""
        checked = {name: check_param(name, value) for name, value in changes.items()}
        return Scenario._from_checked(resolve_params(checked, self.params))

    def with_context(self, ctx: int) -> Scenario:
        return replace(self, ctx=int(ctx), params={**self.params, "ctx": int(ctx)})

    # --- Scalars of the scenario --------------------------------------------------

    @functools.cached_property
    def kappa(self) -> float:
        """κ at this context: layers with a sliding window stop growing past it, and a recurrent state is spread over
        the context's tokens (at S = 0, every KV layer and no state)."""
        by_context = (self.model.sliding_window or self.model.state_layers) and self.ctx > 0
        return float(M.kv_bytes_per_token(self.model, self.b_kv, self.ctx if by_context else None))

    @functools.cached_property  # these three are asked for dozens of times a redraw; the fields are frozen
    def weight_bytes(self) -> float:
        return M.weight_bytes(self.model, self.b_w)

    @functools.cached_property
    def headroom(self) -> float:
        return E.kv_headroom(self.hbm, self.model, self.b_w)

    @functools.cached_property
    def prefill_time(self) -> float:
        """The article's t_prefill(S_in), s (the calibrated model has its own: `prefill`)."""
        return E.t_prefill(self.isl, self.model, self.compute)

    @functools.cached_property
    def prefill(self) -> float:
        """One prompt's prefill, s, in the selected model mode: the TTFT's floor."""
        if self.mode == "calibrated":
            return float(_calibrated_point(self, 1.0)["t_prefill"])
        return float(self.prefill_time)

    @functools.cached_property
    def kv_copies(self) -> float:
        """Copies of each request's KV cache the machine holds: one in the article's model; in the calibrated
        model, as its tensor-parallel group keeps them (`models.kv_copies`), which its step reads and B_max
        divides the headroom among."""
        return M.kv_copies(self.model, self.tp) if self.mode == "calibrated" else 1.0

    @functools.cached_property
    def request_bytes(self) -> float:
        """Bytes one request of this context holds: its KV cache (each copy) and its recurrent state."""
        return float(M.request_bytes(self.model, self.b_kv, self.ctx, self.kv_copies))

    @functools.cached_property
    def b_max(self) -> int:
        return int(E.b_max(self.headroom, self.ctx, self.request_bytes / self.ctx, self.eta))

    def unfit_reason(self) -> str | None:
        """Why no frontier exists, in words a page can show, or None if one does."""
        return self._unfit

    @functools.cached_property
    def _unfit(self) -> str | None:
        if self.headroom <= 0:
            return memory_fit_message(self.weight_bytes, self.hbm)
        if self.b_max < 1:
            need = self.request_bytes / self.eta / 1e9
            copies = f" ({self.kv_copies:g} copies, one a GPU of TP {self.tp})" if self.kv_copies > 1 else ""
            return (
                f"no request fits: one {self.ctx:,}-token KV cache{copies} needs {need:,.2f} GB "
                f"of the {self.headroom / 1e9:,.2f} GB headroom at {self.eta:.0%} utilisation"
            )
        return None

    # --- Curves over batch size ---------------------------------------------------

    def step_and_comm(self, B):
        """(t_step, t_comm) in seconds for batch sizes B, in the selected model mode."""
        B = np.asarray(B, dtype=float)
        if self.mode == "calibrated":
            point = _calibrated_point(self, B)
            return point["step"], point["comm"]
        return _step(self, B), _comm(self, B)

    def roofline_itl(self, B):
        """The article's ITL (s) at batch sizes B in either mode: its roofline step with the collectives."""
        B = np.asarray(B, dtype=float)
        return E.itl(_step(self, B), _comm(self, B))

    def resource_times(self, B):
        """(HBM, arithmetic) seconds of a step at batch sizes B, in the selected model mode: the article's two
        roofline terms, or the calibrated model's (per output token, prefill stall included)."""
        B = np.asarray(B, dtype=float)
        if self.mode == "calibrated":
            from .calibrated import scenario_resource_times  # calibrated imports this module

            return scenario_resource_times(self, B)
        memory = E.bytes_per_step(B, self.ctx, self.model, self.b_w, self.kappa) / self.bw
        return memory, 2.0 * self.model.p_active * B / self.compute

    def comm_time(self, B):
        """t_comm (s) per output token for batch sizes B: the all-reduces and pipeline hand-offs of one step; with
        MTP (calibrated mode), those of a verify step over B·(k + 1) tokens and its drafts, spread over the
        tokens accepted, as the calibrated step is."""
        B = np.asarray(B, dtype=float)
        if self.mode == "calibrated" and self.mtp:
            from .calibrated import MTP_DRAFTS, scenario_mtp_share  # calibrated imports this module

            return _comm(self, B * (MTP_DRAFTS + 1)) * scenario_mtp_share(self)
        return _comm(self, B)

    def evaluate(self, B) -> dict:
        """Every per-batch quantity, as arrays aligned with B (TTFT is ∞ where ρ ≥ 1)."""
        return evaluate_all([self], [np.atleast_1d(B)])[0]

    def summary(self) -> dict:
        """Scenario-level scalars, SI units."""
        return {
            "kappa": self.kappa,
            "weight_bytes": self.weight_bytes,
            "headroom": self.headroom,
            "b_max": self.b_max,
            "b_star": E.ridge_batch(self.compute, self.bw, self.b_w),
            "ridge": E.ridge_intensity(self.compute, self.bw),
            "t_inf": float(E.kv_ceiling(self.ctx, self.kappa, self.bw)),
            "t_prefill": self.prefill,
            "itl_floor": E.itl_floor(self.model.p_active, self.b_w, self.bw),
            "unfit": self.unfit_reason(),
        }


_compared_fields = operator.attrgetter(*(f.name for f in fields(Scenario) if f.compare))


# The per-batch formulas take either a Scenario (scalars) or the columns evaluate_all builds (arrays).
def _step(p, B):
    return E.t_step(B, p.ctx, p.model, p.b_w, p.kappa, p.bw, p.compute)


def _comm(p, B):
    return E.t_allreduce(B, p.tp, p.model, p.b_w, p.ic_bw, p.ic_alpha) + E.t_pipeline(
        B, p.pp, p.model, p.b_w, p.pp_bw, p.pp_alpha
    )


def _calibrated_point(scn: Scenario, B) -> dict:
    """The calibrated model's step (s per output token, without comms), TTFT and prefill time."""
    from .calibrated import scenario_point  # calibrated imports this module

    return scenario_point(scn, B)


_COLUMNS = (
    "ctx", "isl", "kappa", "b_w", "bw", "compute", "tp", "pp", "ic_bw", "ic_alpha", "pp_bw", "pp_alpha", "b_max", "cv"
)  # fmt: skip


def _columns(scenarios: list[Scenario], names, repeats) -> SimpleNamespace:
    """The scenarios' parameters as arrays: each repeated `repeats` times (a list: one count per scenario),
    or as column vectors when `repeats` is None, to broadcast against a row of batch sizes."""
    model = scenarios[0].model
    if any(s.model is not model for s in scenarios):
        raise ValueError("scenarios evaluated together must share one model")
    # One row per parameter, each contiguous in memory: numpy's fast loops need that (a column of a row-per-
    # scenario table is strided).
    table = np.array([[getattr(s, name) for s in scenarios] for name in names], dtype=float)
    table = table[:, :, None] if repeats is None else np.repeat(table, repeats, axis=1)
    return SimpleNamespace(model=model, **dict(zip(names, table, strict=True)))


def comm_times(scenarios: list[Scenario], B) -> np.ndarray:
    """t_AR + t_PP (s) of several scenarios at the same batch sizes, one row each, in one numpy pass."""
    cols = _columns(scenarios, ("tp", "pp", "b_w", "ic_bw", "ic_alpha", "pp_bw", "pp_alpha"), None)
    return _comm(cols, np.asarray(B, dtype=float)[None, :])


def evaluate_all(scenarios: list[Scenario], grids: list, read_only: bool = False) -> list[dict]:
    """`Scenario.evaluate` of several scenarios (one batch grid each) in one numpy pass; with `read_only`,
    every array returned is read-only.

    A redraw evaluates about ten frontiers of ~90 batch sizes; at that size numpy's per-call
    cost, not the arithmetic, sets the time. So each scenario's parameters are repeated into
    columns aligned with all the grids end to end, and every formula runs once.
    """
    sizes = [len(g) for g in grids]
    one = len(scenarios) == 1  # a point or a search (slo, spec) asks for one scenario, many times a redraw
    B = np.array(grids[0], dtype=float) if one else np.concatenate(grids).astype(float)
    # One scenario's parameters stay scalars: numpy broadcasts them without reading a column per formula.
    cols = scenarios[0] if one else _columns(scenarios, _COLUMNS, sizes)
    ends = sizes if one else np.cumsum(sizes).tolist()
    spans = list(zip([0, *ends[:-1]], ends, strict=True))
    step, comm = _step(cols, B), _comm(cols, B)
    calibrated = {}
    for s, (a, b) in zip(scenarios, spans, strict=True):
        if s.mode == "calibrated":  # its own step, and with MTP its collectives spread over the tokens accepted
            calibrated[a, b] = _calibrated_point(s, B[a:b])
            step[a:b], comm[a:b] = calibrated[a, b]["step"], calibrated[a, b]["comm"]
    itl = E.itl(step, comm)
    rho = E.utilisation(B, cols.b_max)
    out = {
        "batch": B,
        "t_step": step,
        "t_comm": comm,
        "itl": itl,
        "throughput": E.throughput(B, itl),
        "ttft": E.ttft(
            scenarios[0].prefill_time if one else E.t_prefill(cols.isl, cols.model, cols.compute), rho, itl, cols.cv
        ),
        "rho": rho,
        "stable": rho < 1.0,
    }
    for (a, b), point in calibrated.items():  # the calibrated TTFT: its own prefill and closed-loop queue
        out["ttft"][a:b] = np.where(out["stable"][a:b], point["ttft"], np.inf)
    if read_only:  # before the split: each scenario's slices are views, read-only with their whole arrays
        for values in out.values():
            values.setflags(write=False)
    return [out] if one else [{key: values[a:b] for key, values in out.items()} for a, b in spans]


def frontier_batches(b_max: int, points: int | None = None) -> np.ndarray:
    """Batch sizes 1..b_max: every integer, or about `points` samples.

    Samples are geometric in B (the interactive end) and in B_max − B (the queue
    knee, where TTFT turns upward), so both ends of the frontier stay smooth. Every
    power of two is a sample too: the explorer reads those batches (its default, its
    slider marks, typical URLs) exactly instead of between two samples.
    """
    if b_max < 1:
        return np.zeros(0, dtype=int)
    if points is None or points >= b_max:
        return np.arange(1, b_max + 1)
    return _sampled_batches(int(b_max), int(points))


_GRIDS: dict[tuple[int, int], np.ndarray] = {}  # frontier_batches' samples by (b_max, points), read-only
_SPAN = 2**40  # sample_grids sorts every grid at once, each in its own span of whole numbers (B_max is far below)


def _sampled_batches(b_max: int, points: int) -> np.ndarray:
    grid = _GRIDS.get((b_max, points))
    return sample_grids([(b_max, points)])[b_max, points] if grid is None else grid


def sample_grids(pairs) -> dict[tuple[int, int], np.ndarray]:
    """frontier_batches' samples for (b_max, points) pairs with points < b_max, read-only and kept; those not
    kept yet are computed together in one numpy pass (a redraw asks for about ten, each for its own B_max,
    and one grid took about fifteen numpy calls)."""
    found = {pair: _GRIDS.get(pair) for pair in pairs}
    todo = [pair for pair, grid in found.items() if grid is None]
    if not todo:
        return found
    steps, spans, counts, powers = [], [], [], []
    for b_max, points in todo:
        twos = _powers_of_two(b_max.bit_length())  # 1, 2, 4, … ≤ b_max
        budget = max(4, points - len(twos) - 1)  # the powers and b_max come out of the requested count
        n_low = max(2, budget * 2 // 3)
        n_high = max(2, budget - n_low)
        # Geometric in B (low) and in b_max − B (high): log_spaced(b_max, n) and b_max − log_spaced(b_max, n),
        # written 0 + 1·e and b_max + (−1)·e, which round the same.
        steps += [_unit_steps(n_low), _unit_steps(n_high)]
        log = math.log(b_max)
        spans += [(log, 0.0, 1.0), (log, float(b_max), -1.0)]
        counts += [n_low, n_high]
        powers.append(twos)
    # Each stretch's (log b_max, offset, sign) repeated along it, in one call for the three.
    logs, offsets, signs = np.repeat(np.array(spans).T, counts, axis=1)
    spaced = offsets + signs * np.exp(np.concatenate(steps) * logs)
    ends = np.array([b_max for b_max, _ in todo], dtype=float)
    which = np.arange(len(todo))
    sizes = [a + b for a, b in zip(counts[::2], counts[1::2], strict=True)]
    # The grid each value belongs to: its stretches, then its powers of two, then its end (np.tile costs more).
    owner = np.repeat(np.arange(3 * len(todo)) % len(todo), [*sizes, *(len(p) for p in powers), *[1] * len(todo)])
    grid = np.rint(np.concatenate([spaced, *powers, ends]))
    grid = np.minimum(np.maximum(grid, 1), ends[owner]).astype(np.int64)
    keyed = owner * _SPAN + grid
    keyed.sort()  # by grid, then value: np.unique of each, without its overhead
    keyed = keyed[np.concatenate(([True], keyed[1:] != keyed[:-1]))]
    bounds = np.searchsorted(keyed, which * _SPAN).tolist() + [keyed.size]
    values = keyed & (_SPAN - 1)  # the grids' own values, side by side; made read-only once, as are their slices
    values.setflags(write=False)
    if len(_GRIDS) > 512:  # a long session visits many B_max; a redraw needs only its own
        _GRIDS.clear()
    for k, pair in enumerate(todo):
        found[pair] = _GRIDS[pair] = values[bounds[k] : bounds[k + 1]]
    return found


@functools.lru_cache(maxsize=64)
def _powers_of_two(n: int) -> np.ndarray:
    powers = 2.0 ** np.arange(n)
    powers.setflags(write=False)
    return powers


def geometric_batches(b_max: int, n: int) -> np.ndarray:
    """Exactly min(n, b_max) whole batch sizes from 1 to b_max, geometric in B.

    Rounding a geometric grid to whole numbers repeats the small ones; each sample is
    raised to at least one above the last instead, so the low end runs 1, 2, 3, … until
    the geometric step exceeds one (the largest is still b_max).
    """
    if n >= b_max:
        return np.arange(1, b_max + 1)
    k = np.arange(n)
    rounded = np.rint(log_spaced(b_max, n)) - k
    return (np.maximum.accumulate(rounded) + k).astype(int)


def log_batches(end: float, n: int) -> np.ndarray:
    """About n whole batch sizes from 1 to `end`, evenly spaced in log (Figures 1 and 8)."""
    return np.unique(np.rint(log_spaced(end, n)))


def log_spaced(end: float, n: int) -> np.ndarray:
    """n points from 1 to `end`, evenly spaced in log: np.geomspace(1, end, n) without its input checks, which
    took a fifth of a redraw (it builds a dozen such grids)."""
    return np.exp(_unit_steps(n) * math.log(end))


@functools.lru_cache(maxsize=16)
def _unit_steps(n: int) -> np.ndarray:
    steps = np.linspace(0.0, 1.0, n)
    steps.setflags(write=False)
    return steps
