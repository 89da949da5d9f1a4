"""The machine a control state describes: a preset's values, a GPU and count's datasheet values, and the
resolution of given controls over the preset's."""

from __future__ import annotations

from inferx.physics.hardware import GPUS, Machine
from inferx.physics.model_spec import DTYPE_BYTES
from inferx.physics.presets import (
    HARDWARE,
    SCALE_UP,
    Interconnect,
    interconnect,
)
from inferx.scenario.controls import DTYPES, PARAMS, InvalidParameter, fitted_tp, link

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


def borrowed_link(values: dict) -> tuple[Interconnect, Interconnect] | None:
    """(the link used, the GPU's own) where a GPU other than the preset's still has the preset's link, as an
    address or a command naming a GPU and no `ic` gives it (the page's GPU menu switches to the own link), and
    the two differ; None otherwise."""
    preset = default_params(values["preset"])
    if values["gpu"] == preset["gpu"] or values["ic"] != preset["ic"] or values["gpu"] not in GPUS:
        return None
    used, own = link(values), interconnect(SCALE_UP, GPUS[values["gpu"]])
    return (used, own) if used.bw != own.bw else None
