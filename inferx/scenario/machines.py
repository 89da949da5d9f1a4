"""The machine a control state describes: a preset's values, a GPU and count's datasheet values, and the
resolution of given controls over the preset's."""

from __future__ import annotations

from inferx.physics.hardware import GPUS, Machine
from inferx.physics.model_spec import DTYPE_BYTES
from inferx.physics.models import MODELS
from inferx.physics.presets import (
    HARDWARE,
    SCALE_UP,
    Interconnect,
    interconnect,
)
from inferx.scenario.controls import (
    CUSTOM,
    DTYPES,
    PARAMS,
    WORKLOADS,
    InvalidParameter,
    context_refusal,
    link,
    workload_context,
)

# SI units per user unit, for the controls whose page units differ from the engine's.
UNIT_SCALE = {"TB/s": 1e12, "PFLOPS": 1e15, "GB": 1e9}


def _user_units(name: str, si: float):
    unit = PARAMS[name].unit
    return si / UNIT_SCALE[unit] if unit in UNIT_SCALE else si


def preset_values(preset: str) -> dict:
    """The user-unit control values a hardware preset sets: each parameter declared with `preset=<attribute>`
    takes that attribute of the preset."""
    if preset == CUSTOM:  # no shortcut: the GPU, count and interconnect say what the machine is
        return {}
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


def article_machine(gpu: str, gpus: int) -> str | None:
    """The preset (the article's machine) that is `gpus` × `gpu`, or None."""
    return next((key for key, hw in HARDWARE.items() if (hw.family, hw.n_gpus) == (gpu, gpus)), None)


def shortcut_of(gpu: str, gpus: int, ic: str) -> str | None:
    """The preset whose GPU, count and interconnect these are (the machine picker's named shortcut), or None."""
    key = article_machine(gpu, gpus)
    return key if key is not None and HARDWARE[key].ic == ic else None


def default_link(gpu: str) -> str:
    """The interconnect a GPU takes unless one is chosen: the article's (NVLink 4.0's figure) on the article's
    GPUs, so each of its machines is one answer however it is reached; the GPU's own scale-up link otherwise."""
    return next((hw.ic for hw in HARDWARE.values() if hw.family == gpu), SCALE_UP)


def machine_tp(gpus: int) -> int:
    """The TP a machine of `gpus` GPUs takes unless one is chosen: the largest power of two within the count
    (every preset's TP is its count)."""
    return 1 << (int(gpus).bit_length() - 1)


def machine_values(gpu: str, gpus: int, wdtype: str) -> dict:
    """The controls declared `machine=True` (bw, compute, hbm) for `gpus` × `gpu`: the article's numbers when
    it is one of the article's machines (so its figures reproduce, whichever control chose it), else the
    catalog's, with dense compute at the weight dtype's precision. One machine, one answer."""
    key = article_machine(gpu, gpus)
    if key is not None:
        values = preset_values(key)
        return {name: values[name] for name, p in PARAMS.items() if p.machine}
    return datasheet_values(gpu, gpus, wdtype)


def datasheet_values(gpu: str, gpus: int, wdtype: str) -> dict:
    """bw, compute and hbm of `gpus` × `gpu` from the catalog, with dense compute at the weight dtype's precision."""
    one = per_gpu_values(gpu)
    values = {"bw": one["bw"], "hbm": one["hbm"], "compute": one["compute"][wdtype]}
    return {name: values[name] * gpus for name, p in PARAMS.items() if p.machine}


def default_params(preset: str = "h200x8") -> dict:
    """Every control's default, with the preset's machine; CUSTOM's base is the default preset's machine (a
    custom machine's GPU, count and interconnect are given with it)."""
    values = {name: p.default for name, p in PARAMS.items()}
    values.update(preset_values(PARAMS["preset"].default if preset == CUSTOM else preset))
    values["preset"] = preset
    return values


def resolve_params(checked: dict, base: dict | None = None) -> dict:
    """Every control's value from checked user-unit values: a preset (given, or the base's) sets its
    controls; a GPU or count sets the machine's (bw, compute, hbm), its default link (`default_link`) and TP
    (`machine_tp`); a named workload sets isl and osl, and ctx = isl + osl/2; explicit values win over all.
    The preset then names the machine: its shortcut where it is one of the article's, else CUSTOM. A context
    shorter than the input is not refused here (the Python API draws it as asked): `context_refusal` and
    `fitted_context` are the entry points' check."""
    if base is None:
        values = default_params(checked.get("preset", PARAMS["preset"].default))
    elif "preset" in checked:
        values = {**base, **preset_values(checked["preset"])}
    else:
        values = dict(base)
    values.update(checked)
    if "gpu" in checked or "gpus" in checked:
        machine = machine_values(values["gpu"], values["gpus"], values["wdtype"])
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
            values["tp"] = machine_tp(values["gpus"])
        if "ic" not in checked and "gpu" in checked:
            values["ic"] = default_link(values["gpu"])
    if values["preset"] == CUSTOM or any(name in checked for name in ("gpu", "gpus", "ic")):
        # The machine under its shortcut's name, whatever preset the address started from; CUSTOM where it is none
        # of the article's machines (one machine, one name: the menu shows what is drawn).
        values["preset"] = shortcut_of(values["gpu"], values["gpus"], values["ic"]) or CUSTOM
    _resolve_workload(checked, values)
    return values


def _resolve_workload(checked: dict, values: dict) -> None:
    """A named workload's isl and osl, and its context unless ctx is given; a workload whose lengths the given
    isl or osl change is custom."""
    named = checked.get("workload")
    if named is not None and named != CUSTOM:
        isl, osl = WORKLOADS[named]
        values["isl"], values["osl"] = checked.get("isl", isl), checked.get("osl", osl)
        if "ctx" not in checked:
            values["ctx"] = workload_context(values["isl"], values["osl"])
    if values["workload"] != CUSTOM and (values["isl"], values["osl"]) != WORKLOADS[values["workload"]]:
        values["workload"] = CUSTOM


def checked_context(values: dict, ctx_given: bool) -> tuple[dict, str]:
    """The CLI's rule: a context given explicitly that is shorter than the input is refused (InvalidParameter,
    with the context a workload of these lengths has); one left to its default is raised as `fitted_context`
    does, and the note says so."""
    refusal = context_refusal(values["ctx"], values["isl"])
    if refusal and ctx_given:
        derived = workload_context(values["isl"], values["osl"])
        raise InvalidParameter("ctx", f"{refusal}; isl + osl/2 = {derived:,} tokens, or leave ctx out", values["ctx"])
    return fitted_context(values)


def fitted_context(values: dict) -> tuple[dict, str]:
    """`values` with a context shorter than the input raised to isl + osl/2 (within the control's range), and
    the warning that says so; `values` and "" where the context holds the input. The page draws the corrected
    value and shows the warning; the CLI refuses (`context_refusal`)."""
    ctx, isl = values["ctx"], values["isl"]
    if not context_refusal(ctx, isl):
        return values, ""
    fixed = min(max(workload_context(isl, values["osl"]), isl), int(PARAMS["ctx"].high))
    note = (
        f"Context {ctx:,} tokens is shorter than the input ({isl:,} tokens), whose KV stays in the cache: "
        f"drawn at ctx = {fixed:,} tokens (isl + osl/2)."
    )
    return {**values, "ctx": fixed}, note


def borrowed_link(values: dict) -> tuple[Interconnect, Interconnect] | None:
    """(the link used, the GPU's own) where one of the article's GPUs takes the article's link (its default,
    `default_link`) and its own link differs (B200's NVLink 5); None otherwise."""
    gpu = values["gpu"]
    if gpu not in GPUS or default_link(gpu) == SCALE_UP or values["ic"] != default_link(gpu):
        return None
    used, own = link(values), interconnect(SCALE_UP, GPUS[gpu])
    return (used, own) if used.bw != own.bw else None


def layout_note(values: dict, expected: bool | None = None) -> str:
    """What the parallel-layout switches (`ep`, `dp`) do in a control state where that is not what they say, in
    words the page and the CLI show (empty where they act as named): expert parallelism on a dense model or either
    at TP 1 changes nothing; and where the expected (calibrated) answer is given (`expected`, else calibrated mode),
    expert parallelism has no fitted term of its own there. The physics is `engine.t_collectives`."""
    ep, dp, tp = values.get("ep") == "1", values.get("dp") == "1", values.get("tp") or 1
    model = MODELS.get(values.get("model"))
    notes = []
    if ep and model is not None and not model.is_moe:
        notes.append(f"Expert parallelism has no effect: {model.name} is dense, with no experts to spread.")
    elif ep and tp <= 1:
        notes.append("Expert parallelism has no effect at TP 1: one GPU holds every expert.")
    elif ep and (values.get("mode") == "calibrated" if expected is None else expected):
        notes.append(
            "The calibrated model has no fitted term for expert parallelism: it moves only the collectives' time "
            "(the all-to-alls)."
        )
    if dp and tp <= 1:
        notes.append("Attention data parallelism has no effect at TP 1: one GPU runs all the attention.")
    return " ".join(notes)
