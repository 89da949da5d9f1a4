"""`Scenario`: the checked controls in SI units, and the engine (or the calibrated model) evaluated on it, one
scenario or many at once (`evaluate_all`)."""

from __future__ import annotations

import functools
import operator
from dataclasses import dataclass, field, fields, replace
from types import SimpleNamespace

import numpy as np

from inferx.physics import engine as E
from inferx.physics import models as M
from inferx.physics.hardware import GPUS, memory_fit_message
from inferx.physics.model_spec import DTYPE_BYTES, ModelSpec
from inferx.physics.models import MODELS
from inferx.physics.presets import (
    pipeline_interconnect,
)
from inferx.scenario.controls import check_param, link
from inferx.scenario.machines import resolve_params
from inferx.serving.adapter import scenario_mtp_share, scenario_point, scenario_resource_times
from inferx.serving.model import MTP_DRAFTS


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
    # The parallel layout across the TP group, where it has an effect: attention data parallelism (TP > 1) and
    # expert parallelism (a MoE model, TP > 1). Off: the article's layout.
    dp: bool = False
    ep: bool = False

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
            dp=values["dp"] == "1" and values["tp"] > 1,
            ep=values["ep"] == "1" and values["tp"] > 1 and MODELS[values["model"]].is_moe,
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

    @functools.cached_property
    def replicated(self) -> float:
        """Parameters held and read beyond one tensor-parallel copy: the attention weights attention data
        parallelism keeps on every GPU (`models.replicated_params`); 0 in the article's layout."""
        return M.replicated_params(self.model, self.tp, self.dp)

    @property
    def weight_reads(self) -> float:
        """Parameters a step reads per parameter it computes with: 1, or (P_active + R) / P_active with attention
        data parallelism (`engine.ridge_batch`)."""
        return (self.model.p_active + self.replicated) / self.model.p_active

    @functools.cached_property  # these three are asked for dozens of times a redraw; the fields are frozen
    def weight_bytes(self) -> float:
        held = M.weight_bytes(self.model, self.b_w)
        return held + self.replicated * self.b_w if self.dp else held

    @functools.cached_property
    def headroom(self) -> float:
        return E.kv_headroom(self.hbm, self.model, self.b_w, self.replicated)

    @functools.cached_property
    def prefill_rank(self) -> float:
        """What attention data parallelism adds to one prompt's prefill (`engine.t_prefill_rank`), s; 0 without."""
        return float(E.t_prefill_rank(self.isl, self.model, self.compute, self.tp, self.dp)) if self.dp else 0.0

    @functools.cached_property
    def prefill_time(self) -> float:
        """The article's t_prefill(S_in), s, with its attention on one GPU under attention data parallelism (the
        calibrated model has its own: `prefill`)."""
        prefill = E.t_prefill(self.isl, self.model, self.compute)
        return prefill + self.prefill_rank if self.dp else prefill

    @functools.cached_property
    def prefill(self) -> float:
        """One prompt's prefill, s, in the selected model mode: the TTFT's floor."""
        if self.mode == "calibrated":
            return float(scenario_point(self, 1.0)["t_prefill"])
        return float(self.prefill_time)

    @functools.cached_property
    def kv_copies(self) -> float:
        """Copies of each request's KV cache the machine holds: one in the article's model; in the calibrated
        model, as its tensor-parallel group keeps them (`models.kv_copies`), which its step reads and B_max
        divides the headroom among, and one with attention data parallelism (each GPU keeps its own requests')."""
        return M.kv_copies(self.model, self.tp) if self.mode == "calibrated" and not self.dp else 1.0

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
            point = scenario_point(self, B)
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
            return scenario_resource_times(self, B)
        memory = E.bytes_per_step(B, self.ctx, self.model, self.b_w, self.kappa, self.replicated) / self.bw
        return memory, 2.0 * self.model.p_active * B / self.compute

    def comm_time(self, B):
        """t_comm (s) per output token for batch sizes B: the all-reduces and pipeline hand-offs of one step; with
        MTP (calibrated mode), those of a verify step over B·(k + 1) tokens and its drafts, spread over the
        tokens accepted, as the calibrated step is."""
        B = np.asarray(B, dtype=float)
        if self.mode == "calibrated" and self.mtp:
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
            "b_star": E.ridge_batch(self.compute, self.bw, self.b_w, self.weight_reads),
            "ridge": E.ridge_intensity(self.compute, self.bw),
            "t_inf": float(E.kv_ceiling(self.ctx, self.kappa, self.bw)),
            "t_prefill": self.prefill,
            "itl_floor": E.itl_floor(self.model.p_active + self.replicated, self.b_w, self.bw),
            "unfit": self.unfit_reason(),
        }


# The per-batch formulas take either a Scenario (scalars) or the columns evaluate_all builds (arrays).
def _step(p, B):
    return E.t_step(B, p.ctx, p.model, p.b_w, p.kappa, p.bw, p.compute, p.replicated)


def _comm(p, B):
    return E.t_collectives(B, p.tp, p.model, p.b_w, p.ic_bw, p.ic_alpha, p.dp, p.ep) + E.t_pipeline(
        B, p.pp, p.model, p.b_w, p.pp_bw, p.pp_alpha
    )


_COLUMNS = (
    "ctx", "isl", "kappa", "b_w", "bw", "compute", "tp", "pp", "ic_bw", "ic_alpha", "pp_bw", "pp_alpha", "b_max", "cv",
    "replicated", "dp", "ep", "prefill_rank",
)  # fmt: skip
_LAYOUT = ("replicated", "dp", "ep", "prefill_rank")  # 0 for what is not a Scenario (Figure 8's reference layouts)


def _columns(scenarios: list[Scenario], names, repeats) -> SimpleNamespace:
    """The scenarios' parameters as arrays: each repeated `repeats` times (a list: one count per scenario),
    or as column vectors when `repeats` is None, to broadcast against a row of batch sizes."""
    model = scenarios[0].model
    if any(s.model is not model for s in scenarios):
        raise ValueError("scenarios evaluated together must share one model")
    # One row per parameter, each contiguous in memory: numpy's fast loops need that (a column of a row-per-
    # scenario table is strided).
    table = np.array([[getattr(s, name, 0.0) if name in _LAYOUT else getattr(s, name) for s in scenarios]
                      for name in names], dtype=float)  # fmt: skip
    table = table[:, :, None] if repeats is None else np.repeat(table, repeats, axis=1)
    return SimpleNamespace(model=model, **dict(zip(names, table, strict=True)))


def comm_times(scenarios: list[Scenario], B) -> np.ndarray:
    """t_AR + t_PP (s) of several scenarios at the same batch sizes, one row each, in one numpy pass."""
    cols = _columns(scenarios, ("tp", "pp", "b_w", "ic_bw", "ic_alpha", "pp_bw", "pp_alpha", "dp", "ep"), None)
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
            calibrated[a, b] = scenario_point(s, B[a:b])
            step[a:b], comm[a:b] = calibrated[a, b]["step"], calibrated[a, b]["comm"]
    itl = E.itl(step, comm)
    rho = E.utilisation(B, cols.b_max)
    out = {
        "batch": B,
        "t_step": step,
        "t_comm": comm,
        "itl": itl,
        "throughput": E.throughput(B, itl),
        "ttft": E.ttft(scenarios[0].prefill_time if one else _prefill(cols), rho, itl, cols.cv),
        "rho": rho,
        "stable": rho < 1.0,
    }
    for (a, b), point in calibrated.items():  # the calibrated TTFT: its own prefill and closed-loop queue
        out["ttft"][a:b] = np.where(out["stable"][a:b], point["ttft"], np.inf)
    if read_only:  # before the split: each scenario's slices are views, read-only with their whole arrays
        for values in out.values():
            values.setflags(write=False)
    return [out] if one else [{key: values[a:b] for key, values in out.items()} for a, b in spans]


def _prefill(cols):
    """The article's t_prefill of the columns' scenarios, with attention data parallelism's where it is on."""
    prefill = E.t_prefill(cols.isl, cols.model, cols.compute)
    return prefill + cols.prefill_rank if cols.dp.any() else prefill


_compared_fields = operator.attrgetter(*(f.name for f in fields(Scenario) if f.compare))
