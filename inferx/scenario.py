"""A serving scenario: the shared controls, validated, and the model evaluated on it.

`PARAMS` is the one list of controls. Its names are the CLI options, the URL query
parameters and the dashboard's control ids (`ctl-<name>`); values are in user
units (TB/s, PFLOPS, GB, tokens, percent). `Scenario` holds the same in SI units.
"""

from __future__ import annotations

import functools
import math
import operator
from dataclasses import dataclass, field, fields, replace
from types import SimpleNamespace

import numpy as np

from . import engine as E
from .presets import DEEPSEEK_R1, DTYPE_BYTES, HARDWARE, INTERCONNECTS, ModelSpec

MODES = ("article", "calibrated")


class InvalidParameter(ValueError):
    """A control value outside its allowed domain; the message names both."""

    def __init__(self, name: str, message: str):
        super().__init__(f"{name}: {message}")
        self.name = name


@dataclass(frozen=True)
class Param:
    label: str
    unit: str
    kind: str  # "float", "int", "pow2" or "choice"
    default: object = None  # None: taken from the hardware preset
    ui_min: float = 0.0  # slider range (URL values outside it are refused)
    ui_max: float = 0.0
    step: float = 0.0
    log: bool = False
    choices: tuple = ()
    lower: float = 0.0  # validity domain: lower < x <= upper (lower <= x for ints and closed_lower)
    upper: float = math.inf
    closed_lower: bool = False
    help: str = ""


DTYPES = tuple(DTYPE_BYTES)
PARAMS: dict[str, Param] = {
    "preset": Param(
        "Hardware preset", "", "choice", "h200x8", choices=tuple(HARDWARE), help="sets bw, compute, hbm, tp"
    ),
    # Upper bounds far beyond any machine, so that no unit conversion or batch count overflows.
    "bw": Param("Memory bandwidth", "TB/s", "float", None, 1, 200, 0.1, upper=1e6, help="aggregate HBM bandwidth"),
    "compute": Param("Compute", "PFLOPS", "float", None, 1, 200, 0.01, upper=1e6, help="aggregate peak FLOP/s"),
    "hbm": Param("HBM", "GB", "float", None, 80, 4096, 1, upper=1e6, help="aggregate HBM capacity"),
    "ctx": Param(
        "Context length",
        "tokens",
        "int",
        1024,
        128,
        131072,
        1,
        log=True,
        lower=1,
        upper=1e9,
        help="S: tokens of KV per request",
    ),
    "isl": Param(
        "Input length", "tokens", "int", 1024, 128, 131072, 1, log=True, lower=1, upper=1e9, help="S_in: prompt tokens"
    ),
    "wdtype": Param("Weight dtype", "", "choice", "fp8", choices=DTYPES),
    "kvdtype": Param("KV dtype", "", "choice", "fp8", choices=DTYPES),
    "cv": Param(
        "Output length CV",
        "",
        "float",
        0.0,
        0,
        2,
        0.05,
        closed_lower=True,
        help="coefficient of variation of output length",
    ),
    "util": Param("KV utilisation", "%", "float", 87.0, 50, 100, 1, upper=100, help="η: usable share of KV headroom"),
    "tp": Param("TP degree", "GPUs", "pow2", None, 1, 16, lower=1),
    "pp": Param("PP degree", "stages", "pow2", 1, 1, 16, lower=1),
    "ic": Param("Interconnect", "", "choice", None, choices=tuple(INTERCONNECTS)),
    "mode": Param(
        "Model", "", "choice", "article", choices=MODES, help="article physics or calibrated to measurements"
    ),
}


def preset_values(preset: str) -> dict:
    """The user-unit control values a hardware preset sets."""
    hw = HARDWARE[preset]
    return {"bw": hw.bw / 1e12, "compute": hw.compute / 1e15, "hbm": hw.hbm / 1e9, "tp": hw.tp, "ic": hw.ic}


def default_params(preset: str = "h200x8") -> dict:
    values = {name: p.default for name, p in PARAMS.items()}
    values["preset"] = preset
    values.update(preset_values(preset))
    return values


def check_param(name: str, value):
    """Return `value` coerced to the parameter's type, or raise InvalidParameter."""
    p = PARAMS.get(name)
    if p is None:
        raise InvalidParameter(name, f"unknown parameter; known: {', '.join(PARAMS)}")
    if p.kind == "choice":
        value = str(value).strip().lower()
        if value not in p.choices:
            raise InvalidParameter(name, f"{value!r} is not one of {', '.join(p.choices)}")
        return value
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise InvalidParameter(name, f"{value!r} is not a number") from None
    unit = f" {p.unit}" if p.unit else ""
    if math.isnan(number) or math.isinf(number):
        raise InvalidParameter(name, f"must be a finite number{unit}")
    if p.kind in ("int", "pow2"):
        least = max(int(p.lower), 1)
        if number != int(number) or not least <= number <= p.upper:
            most = "" if math.isinf(p.upper) else f" and ≤ {p.upper:,.0f}"
            raise InvalidParameter(name, f"must be a whole number ≥ {least}{most}{unit}, got {value}")
        return int(number)
    above = p.lower <= number if p.closed_lower else p.lower < number
    if not (above and number <= p.upper):
        if math.isinf(p.upper):
            bounds = f"{'≥' if p.closed_lower else '>'} {p.lower:g}{unit}"
        else:
            bounds = f"in {'[' if p.closed_lower else '('}{p.lower:g}, {p.upper:,.0f}]{unit}"
        raise InvalidParameter(name, f"must be {bounds}, got {value}")
    return number


def in_ui_range(name: str, value) -> bool:
    """Whether a valid value also lies on the control's slider (used for URL input)."""
    p = PARAMS[name]
    if p.kind == "choice":
        return True
    if p.kind == "pow2" and value & (value - 1):
        return False
    return p.ui_min <= value <= p.ui_max


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
    ic_bw: float
    ic_alpha: float
    mode: str = "article"
    hardware: str = "h200x8"  # calibration family (the preset's GPU)

    def __hash__(self) -> int:
        # Scenarios key the figures' memos, looked up dozens of times a redraw; the generated hash would
        # rebuild a tuple of every field (and the model's) each time.
        return self._hash

    @functools.cached_property
    def _hash(self) -> int:
        return hash(_compared_fields(self))

    @classmethod
    def from_params(cls, model: ModelSpec = DEEPSEEK_R1, **given) -> Scenario:
        """Scenario from user-unit values; missing ones come from the preset, then defaults."""
        preset = check_param("preset", given.get("preset") or "h200x8")
        values = default_params(preset)
        for name, value in given.items():
            if value is not None:
                values[name] = check_param(name, value)
        return cls._from_checked(model, values)

    @classmethod
    def _from_checked(cls, model: ModelSpec, values: dict) -> Scenario:
        preset = values["preset"]
        ic = INTERCONNECTS[values["ic"]]
        return cls(
            params=values,
            model=model,
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
            mode=values["mode"],
            hardware=preset,
        )

    def with_params(self, **changes) -> Scenario:
        """A copy with some user-unit controls changed; only the changes are checked again. A new preset
        brings its hardware controls (bw, compute, hbm, tp, ic) unless the changes set them too."""
        checked = {name: check_param(name, value) for name, value in changes.items()}
        base = {**self.params, **preset_values(checked["preset"])} if "preset" in checked else self.params
        return Scenario._from_checked(self.model, {**base, **checked})

    def with_context(self, ctx: int) -> Scenario:
        return replace(self, ctx=int(ctx), params={**self.params, "ctx": int(ctx)})

    # --- Scalars of the scenario --------------------------------------------------

    @property
    def kappa(self) -> float:
        return E.kv_bytes_per_token(self.model, self.b_kv)

    @property
    def weight_bytes(self) -> float:
        return self.model.p_total * self.b_w

    @property
    def headroom(self) -> float:
        return E.kv_headroom(self.hbm, self.model, self.b_w)

    @functools.cached_property  # a redraw asks for it dozens of times; the fields are frozen
    def b_max(self) -> int:
        return int(E.b_max(self.headroom, self.ctx, self.kappa, self.eta))

    def unfit_reason(self) -> str | None:
        """Why no frontier exists, in words a page can show, or None if one does."""
        if self.headroom <= 0:
            return f"weights {self.weight_bytes / 1e9:,.0f} GB exceed HBM {self.hbm / 1e9:,.0f} GB"
        if self.b_max < 1:
            need = self.ctx * self.kappa / self.eta / 1e9
            return (
                f"no request fits: one {self.ctx:,}-token KV cache needs {need:,.2f} GB "
                f"of the {self.headroom / 1e9:,.2f} GB headroom at {self.eta:.0%} utilisation"
            )
        return None

    # --- Curves over batch size ---------------------------------------------------

    def step_and_comm(self, B):
        """(t_step, t_comm) in seconds for batch sizes B, in the selected model mode."""
        B = np.asarray(B, dtype=float)
        return _calibrated_point(self, B)["step"] if self.mode == "calibrated" else _step(self, B), _comm(self, B)

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
            "t_prefill": float(_calibrated_point(self, 1.0)["t_prefill"])
            if self.mode == "calibrated"
            else float(E.t_prefill(self.isl, self.model, self.compute)),
            "itl_floor": E.itl_floor(self.model.p_active, self.b_w, self.bw),
            "unfit": self.unfit_reason(),
        }


_compared_fields = operator.attrgetter(*(f.name for f in fields(Scenario) if f.compare))


# The per-batch formulas take either a Scenario (scalars) or the columns evaluate_all builds (arrays).
def _step(p, B):
    return E.t_step(B, p.ctx, p.model, p.b_w, p.kappa, p.bw, p.compute)


def _comm(p, B):
    return E.t_allreduce(B, p.tp, p.model, p.b_w, p.ic_bw, p.ic_alpha) + E.t_pipeline(
        B, p.pp, p.model, p.b_w, p.ic_bw, p.ic_alpha
    )


def _calibrated_point(scn: Scenario, B) -> dict:
    """The calibrated model's step (s per output token, without comms), TTFT and prefill time."""
    from .calibrated import scenario_point  # calibrated imports this module

    return scenario_point(scn, B)


_COLUMNS = ("ctx", "isl", "kappa", "b_w", "bw", "compute", "tp", "pp", "ic_bw", "ic_alpha", "b_max", "cv")


def _columns(scenarios: list[Scenario], names, repeats) -> SimpleNamespace:
    """The scenarios' parameters as arrays: each repeated `repeats` times (a list: one count per scenario),
    or as column vectors when `repeats` is None, to broadcast against a row of batch sizes."""
    model = scenarios[0].model
    if any(s.model is not model for s in scenarios):
        raise ValueError("scenarios evaluated together must share one model")
    table = np.array([[getattr(s, name) for name in names] for s in scenarios], dtype=float)
    table = table[:, :, None] if repeats is None else np.repeat(table, repeats, axis=0)
    return SimpleNamespace(model=model, **dict(zip(names, table.swapaxes(0, 1), strict=True)))


def comm_times(scenarios: list[Scenario], B) -> np.ndarray:
    """t_AR + t_PP (s) of several scenarios at the same batch sizes, one row each, in one numpy pass."""
    cols = _columns(scenarios, ("tp", "pp", "b_w", "ic_bw", "ic_alpha"), None)
    return _comm(cols, np.asarray(B, dtype=float)[None, :])


def evaluate_all(scenarios: list[Scenario], grids: list) -> list[dict]:
    """`Scenario.evaluate` of several scenarios (one batch grid each) in one numpy pass.

    A redraw evaluates about ten frontiers of ~90 batch sizes; at that size numpy's per-call
    cost, not the arithmetic, sets the time. So each scenario's parameters are repeated into
    columns aligned with all the grids end to end, and every formula runs once.
    """
    sizes = [len(g) for g in grids]
    B = np.concatenate(grids).astype(float)
    # One scenario's parameters stay scalars: numpy broadcasts them without reading a column per formula.
    cols = scenarios[0] if len(scenarios) == 1 else _columns(scenarios, _COLUMNS, sizes)
    ends = np.cumsum(sizes).tolist()
    spans = list(zip([0, *ends[:-1]], ends, strict=True))
    step = _step(cols, B)
    calibrated = {}
    for s, (a, b) in zip(scenarios, spans, strict=True):
        if s.mode == "calibrated":
            calibrated[a, b] = _calibrated_point(s, B[a:b])
            step[a:b] = calibrated[a, b]["step"]
    comm = _comm(cols, B)
    itl = E.itl(step, comm)
    rho = E.utilisation(B, cols.b_max)
    out = {
        "batch": B,
        "t_step": step,
        "t_comm": comm,
        "itl": itl,
        "throughput": E.throughput(B, itl),
        "ttft": E.ttft(E.t_prefill(cols.isl, cols.model, cols.compute), rho, itl, cols.cv),
        "rho": rho,
        "stable": rho < 1.0,
    }
    for (a, b), point in calibrated.items():  # the calibrated TTFT: its own prefill and closed-loop queue
        out["ttft"][a:b] = np.where(out["stable"][a:b], point["ttft"], np.inf)
    return [{key: values[a:b] for key, values in out.items()} for a, b in spans]


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


@functools.lru_cache(maxsize=256)
def _sampled_batches(b_max: int, points: int) -> np.ndarray:
    """frontier_batches' samples, read-only and cached: one redraw asks for the same grid several times."""
    powers = 2 ** np.arange(int(np.log2(b_max)) + 1)
    budget = max(4, points - len(powers) - 1)  # the powers and b_max come out of the requested count
    low = log_spaced(b_max, max(2, budget * 2 // 3))
    high = b_max - log_spaced(b_max, max(2, budget - len(low)))
    grid = np.unique(np.clip(np.rint(np.concatenate([low, high, powers, [b_max]])), 1, b_max).astype(int))
    grid.setflags(write=False)
    return grid


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
