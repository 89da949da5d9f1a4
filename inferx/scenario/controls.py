"""A serving scenario: the shared controls, validated, and the model evaluated on it.

`PARAMS` is the one list of controls. Its names are the CLI options, the URL query
parameters and the dashboard's control ids (`ctl-<name>`); values are in user
units (TB/s, PFLOPS, GB, tokens, percent). `Scenario` holds the same in SI units.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable, Collection
from dataclasses import dataclass

import numpy as np

from inferx.physics.gpu import MACHINE_RANGES, MAX_GPUS
from inferx.physics.hardware import GPUS
from inferx.physics.model_spec import DTYPE_BYTES
from inferx.physics.models import MODELS
from inferx.physics.presets import (
    HARDWARE,
    INTERCONNECTS,
    SCALE_UP,
    TIERED,
    Interconnect,
    interconnect,
)
from inferx.text import shown_value

MODES = ("article", "calibrated")
# Software stacks with a calibration or a typical one to fall back on (stored.calibration_for says which).
FRAMEWORK_LABELS = {"sglang": "SGLang", "trt": "TensorRT-LLM", "vllm": "vLLM", "atom": "ATOM"}
FRAMEWORKS = tuple(FRAMEWORK_LABELS)


class InvalidParameter(ValueError):
    """A value outside its parameter's domain. The message names both, the same words for the CLI, the URL,
    the page controls and the Python API: `bw=999: must be from 1 to 200 TB/s`."""

    def __init__(self, name: str, message: str, value=None):
        self.name, self.reason = name, message
        self.shown = None if value is None else shown_value(value)
        super().__init__(f"{name if self.shown is None else f'{name}={self.shown}'}: {message}")


GROUPS = (
    "Hardware",
    "Workload",
    "Precision",
    "Parallelism",
    "Model",
    "Targets & cost",
)  # the controls' headings, in page order

# Named workloads: (input tokens, output tokens), as InferenceX names its runs ("8k/1k": 8,192 in, 1,024 out).
# "custom" names none: isl, osl and ctx are taken as given.
CUSTOM = "custom"
WORKLOADS = {"1k1k": (1024, 1024), "8k1k": (8192, 1024), "1k8k": (1024, 8192)}
# The machine menu's entry for a GPU × count × interconnect that is none of the article's machines.
MACHINE_CUSTOM_LABEL = "Custom (not an article machine)"
WORKLOAD_LABELS = {CUSTOM: " Custom", **{key: f" {key[:2]}/{key[2:]}" for key in WORKLOADS}}
# Throughput per instance (the article's figures: one instance's tokens/s) or per GPU (InferenceX's).
TPUT_UNITS = ("instance", "gpu")
SWITCH, SWITCH_LABELS = ("0", "1"), {"0": " Off", "1": " On"}  # an on/off control: `ep=1` in the URL, `--ep 1`


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


class _MachineChoices:
    """The machine menu's choices: each preset of the (live) hardware catalog, then CUSTOM."""

    def __iter__(self):
        return iter((*HARDWARE, CUSTOM))

    def __contains__(self, key) -> bool:
        return key == CUSTOM or key in HARDWARE

    def __len__(self) -> int:
        return len(HARDWARE) + 1


def _switch(label: str, help: str) -> Param:
    """An off/on parallel-layout switch ("0" the article's layout, "1" on), drawn as radio buttons."""
    return Param(label, "", "choice", "0", options=SWITCH, label_of=SWITCH_LABELS.get, radio=True, help=help,
                 group="Parallelism", overlay=False)  # fmt: skip


PARAMS: dict[str, Param] = {
    "preset": Param(
        "Machine shortcut",
        "",
        "choice",
        "h200x8",
        options=_MachineChoices(),
        label_of=lambda key: MACHINE_CUSTOM_LABEL if key == CUSTOM else HARDWARE[key].label,
        help="one of the article's machines, a shortcut: sets gpu, gpus and ic (and so bw, compute, hbm, tp); "
        "custom: a GPU, count and interconnect that are none of them",
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
    "ic": Param(
        "Interconnect",
        "",
        "choice",
        None,
        options=(*INTERCONNECTS, SCALE_UP, TIERED),
        label_of=_interconnect_label,
        group="Hardware",
        preset="ic",
        help="the link TP's all-reduces (and PP's hand-offs) take: with the GPU and its count, the machine",
        overlay=False,
    ),
    # How throughput is stated: it changes no number of the scenario, only the unit its figures and readouts
    # give throughput in (an instance's tokens/s divided by its GPU count).
    "tput": Param(
        "Throughput shown",
        "",
        "choice",
        "instance",
        options=TPUT_UNITS,
        label_of={"instance": " Per instance", "gpu": " Per GPU"}.get,
        radio=True,
        help="throughput per instance (all its GPUs) or per GPU, as InferenceX gives it",
        group="Hardware",
        overlay=False,
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
        *MACHINE_RANGES["bw"],
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
        *MACHINE_RANGES["compute"],
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
        *MACHINE_RANGES["hbm"],
        0.01,
        log2=True,
        decimals=0,
        help="aggregate HBM capacity",
        group="Hardware",
        preset="hbm",
        machine=True,
    ),
    "workload": Param(
        "Workload",
        "",
        "choice",
        CUSTOM,
        options=(CUSTOM, *WORKLOADS),
        label_of=WORKLOAD_LABELS.get,
        radio=True,
        help="a named input/output pair (input k / output k tokens): sets isl and osl, and ctx = isl + osl/2 unless"
        " ctx is given; custom: isl, osl and ctx as given",
    ),
    "isl": Param("Input length", "tokens", "int", 1024, 1, 131072, 0.05, log2=True, help="S_in: prompt tokens"),
    # ctx stays the KV context of a decode step in both models (and sets B_max); osl is how many tokens a request
    # emits before it is replaced, so the calibrated model's prefill stall (B/OSL prefills per step) and its
    # closed-loop curves on /inferencex read it, and in either mode Figure 12's E2E = TTFT + osl · ITL. A named
    # workload sets isl and osl and derives ctx = isl + osl/2; a ctx below isl is refused or corrected where a
    # user gives it (scenario.machines.checked_context, fitted_context).
    "osl": Param(
        "Output length",
        "tokens",
        "int",
        1024,
        1,
        131072,
        0.05,
        log2=True,
        help="S_out: output tokens per request (E2E; calibrated mode: prefill stall, closed loop)",
    ),
    "ctx": Param(
        "Context length",
        "tokens",
        "int",
        1024,
        1,
        131072,
        0.05,
        log2=True,
        help="S: mean tokens of KV per request during decode (isl + osl/2 for a workload); at least isl",
    ),
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
    # Two switches, "0" (the article's layout: every layer split across the TP group) or "1"; see the physics of
    # each in physics/engine.py (t_collectives, t_alltoall, t_prefill_rank) and models.replicated_params.
    "ep": _switch(
        "Expert parallelism",
        "whole experts spread over the TP group's GPUs, all-to-all dispatch and combine (MoE models, TP > 1)",
    ),
    "dp": _switch(
        "Attention data parallelism",
        "each GPU of the TP group runs attention for its own requests, keeping only their KV cache (TP > 1)",
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
    # --- The calibrated model's (the article's frontiers read none of these three; see docs/calibration.md) ----
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


def workload_context(isl: int, osl: int) -> int:
    """The context S a workload of `isl` input and `osl` output tokens gives: the mean KV length over a
    request's decode, isl + osl/2 (as the calibrated model and the measured rows read InferenceX's runs)."""
    return int(isl + osl // 2)


def workload_of(isl: int, osl: int) -> str:
    """The named workload of an input and output length, or CUSTOM."""
    return next((key for key, pair in WORKLOADS.items() if pair == (isl, osl)), CUSTOM)


def context_refusal(ctx: int, isl: int) -> str:
    """Why a context is refused against the input length (empty where it is not): the prompt's own KV is held
    through the decode, so the mean context cannot be shorter than it."""
    if ctx >= isl:
        return ""
    return f"must be at least the input length isl={isl:,} tokens (the prompt's KV stays in the cache)"


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
        if p.options == SWITCH and isinstance(value, (bool, int, np.integer)):
            value = str(int(value))  # the Python API's dp=1 or dp=True
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
