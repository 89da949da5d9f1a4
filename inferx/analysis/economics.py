"""Cost per million output tokens and tokens per joule along a frontier.

Prices are ASSUMPTIONS, not catalog data: rough on-demand cloud rental rates per GPU-hour in US dollars
for 2025, rounded, for a sensible default that a user is expected to overwrite with their own rate. They
sit here rather than in the hardware catalog, whose numbers are all from datasheets.

Power is board power (TDP/TBP) × GPU count × a power fraction: 1.0 reproduces the article's
"throughput / TDP" token efficiency, the article physics' default; calibrated mode defaults to the draw
InferenceX measured, which grows with the load (`stored.PowerDraw`): about 0.4 of board power at a few
users, 0.6 near full occupancy.
"""

from __future__ import annotations

import numpy as np

from inferx.physics import engine as E
from inferx.physics.engine import POWER_FRACTION
from inferx.physics.hardware import GPUS, USD_PER_GPU_HOUR, Machine
from inferx.scenario.evaluation import Scenario
from inferx.serving.adapter import power_draw, scenario_busy_share

PRICE_NOTE = "assumed rental $/GPU-hour, not measured: set your own"


def drawn_fraction(scn: Scenario, power_fraction: float | None, batch):
    """The share of board power the scenario's GPUs draw at decode batches `batch`: `power_fraction` where given;
    else all of it (TDP, the article's convention) in article physics, and in calibrated mode the measured draw
    at each batch's load (`adapter.scenario_busy_share`), or TDP where the calibration has no draw."""
    if power_fraction is not None:
        return _check_positive("power_fraction", power_fraction)
    draw = power_draw() if scn.mode == "calibrated" else None
    if draw is None:
        return POWER_FRACTION
    if batch is None:
        raise ValueError("the power drawn by load needs the batch sizes it is drawn at")
    return draw.fraction(scenario_busy_share(scn, np.asarray(batch, dtype=float)))


def machine_of(scn: Scenario) -> tuple[str, Machine]:
    """The catalog GPU key and the machine a scenario runs on (its `gpu` and `gpus` controls)."""
    gpu = scn.params["gpu"]
    return gpu, Machine(GPUS[gpu], scn.params["gpus"])


def default_price(gpu: str) -> float:
    """The assumed $/GPU-hour of a catalog GPU key."""
    if gpu not in USD_PER_GPU_HOUR:
        raise ValueError(f"gpu must be one of {', '.join(GPUS)}, not {gpu!r}")
    return USD_PER_GPU_HOUR[gpu]


def _check_positive(name: str, value: float) -> float:
    value = float(value)
    if not (np.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a positive finite number, not {value!r}")
    return value


def cost_per_mtok(tokens_per_s, usd_per_gpu_hour: float, gpus: int):
    """$ per million output tokens: ($/GPU-hour × GPUs) / (3600 s/h × T / 10⁶)."""
    return E.cost_per_million_tokens(usd_per_gpu_hour * gpus, tokens_per_s)


def tokens_per_joule(tokens_per_s, watts_per_gpu: float, gpus: int, power_fraction: float = POWER_FRACTION):
    """Output tokens per joule (= tok/s per W) at board power × GPUs × power fraction."""
    return E.tokens_per_joule(tokens_per_s, watts_per_gpu * gpus * power_fraction)


def along(
    scn: Scenario,
    throughput,
    usd_per_gpu_hour: float | None = None,
    power_fraction: float | None = None,
    batch=None,
) -> dict[str, np.ndarray]:
    """Economics of throughputs (tok/s, any shape) at decode batches `batch` (the same shape; read by calibrated
    mode's draw by load) on the scenario's machine, as arrays: cost_per_mtok ($/M tokens), tokens_per_joule
    (tok/J), throughput_per_usd_hour (tok/s per $/h of the whole machine) and throughput_per_mw (tok/s per MW
    drawn); plus the price and machine used, the power fraction and watts drawn (`drawn_fraction`), and
    price_note, which a readout shows beside a default price."""
    gpu, machine = machine_of(scn)
    price = default_price(gpu) if usd_per_gpu_hour is None else _check_positive("usd_per_gpu_hour", usd_per_gpu_hour)
    power_fraction = drawn_fraction(scn, power_fraction, batch)
    T = np.asarray(throughput, dtype=float)
    watts = machine.power * power_fraction
    usd_per_hour = price * machine.count
    return {
        "cost_per_mtok": cost_per_mtok(T, price, machine.count),
        "tokens_per_joule": tokens_per_joule(T, machine.gpu.power, machine.count, power_fraction),
        "throughput_per_usd_hour": T / usd_per_hour,
        "throughput_per_mw": T / (watts / 1e6),
        "gpu": gpu,
        "gpus": machine.count,
        "usd_per_gpu_hour": price,
        "price_note": PRICE_NOTE if usd_per_gpu_hour is None else "price given",
        "usd_per_hour": usd_per_hour,
        "watts": watts,
        "power_fraction": power_fraction,
    }


def frontier_economics(
    scn: Scenario, B, usd_per_gpu_hour: float | None = None, power_fraction: float | None = None
) -> dict:
    """`along` the scenario's throughput at batch sizes B, with the batch sizes and throughput beside it."""
    B = np.atleast_1d(np.asarray(B, dtype=float))
    T = E.throughput(B, np.add(*scn.step_and_comm(B)))
    return {"batch": B, "throughput": T, **along(scn, T, usd_per_gpu_hour, power_fraction, B)}
