"""The calibrated model read from a `Scenario`: its calibration, step, TTFT, resource times, busy share and
the GPU's power draw by load."""

from __future__ import annotations

import numpy as np

from inferx.physics import engine as E
from inferx.physics.hardware import GPUS
from inferx.physics.model_spec import KEY_MARK
from inferx.physics.presets import HARDWARE
from inferx.serving.model import (
    DEFAULT_FRAMEWORK,
    DEFAULT_OSL,
    FP8_BYTES,
    MTP_DRAFTS,
    PRESET_FAMILY,
    Calibration,
    Instance,
    attention_speed,
    busy_share,
    decode_time,
    decode_work,
    dp_balance_wait,
    kv_bytes,
    mtp_share,
    poll_wait,
    prefill_time,
    rank_attention_time,
    resource_times,
    scenario_poll_interval,
    weight_bytes,
)
from inferx.serving.stored import TRANSFER_KEY, PowerDraw, calibration_for, load_stored, spread_key
from inferx.serving.transfer import KIND_WORDS, extrapolation, load_transfer
from inferx.serving.transfer import calibration as transfer_calibration

CALIBRATED_MODEL = "deepseek-r1"  # every calibrated row is a DeepSeek-R1 run


def weight_precision(b_w: float) -> str:
    """The precision whose calibration weights of `b_w` bytes use: FP4 below FP8's byte, else FP8."""
    return "fp4" if b_w < FP8_BYTES else "fp8"


def scenario_calibration(scn) -> dict:
    """Which calibration a Scenario in calibrated mode uses, and where its numbers come from.

    The GPU is the scenario's `gpu` control (a hardware-catalog key), else its preset's GPU; the stack its
    `framework`; the precision FP4 when the weights are. DeepSeek-R1 on a GPU, stack and precision with runs of
    their own uses that fit (`calibration_for`, basis "fitted"); anything else the transferable model (`transfer`,
    basis "transferred"), its parameters those of the GPU's die, the stack and the model's structure. `kind` says
    which kind of extrapolation that is (`transfer.KIND_WORDS`), and so which measured error applies.
    """
    gpu = scn.params.get("gpu") or PRESET_FAMILY.get(scn.hardware, scn.hardware)
    framework = getattr(scn, "framework", None) or DEFAULT_FRAMEWORK
    precision = weight_precision(scn.b_w)
    model_key = scn.params.get("model", CALIBRATED_MODEL)
    catalog_gpu = gpu.partition(KEY_MARK)[0] if gpu.partition(KEY_MARK)[0] in GPUS else gpu
    cal, basis = calibration_for(gpu, framework, None, precision)
    fitted = model_key == CALIBRATED_MODEL and basis == "fitted"
    if fitted:
        kind, key = "measured", spread_key(gpu, framework, precision)
    else:
        tr = load_transfer()
        cal = transfer_calibration(tr, catalog_gpu, framework, precision, scn.model, scn.tp)
        basis = "transferred"
        kind = extrapolation(catalog_gpu, model_key)
        key = TRANSFER_KEY + kind
    acceptance = getattr(scn, "acceptance", None)
    if acceptance is not None:
        cal = Calibration(**{**cal.__dict__, "acceptance": float(acceptance)})
    note = None
    if model_key != CALIBRATED_MODEL and getattr(scn, "mtp", False):  # DeepSeek-R1 alone ships an MTP module
        note = (f"MTP is DeepSeek-R1's draft module at its acceptance; {scn.model.name} has none of its own, "
                "so read it as a draft model that predicts as well.")  # fmt: skip
    return {
        "calibration": cal,
        "gpu": gpu,
        "framework": framework,
        "precision": precision,
        "basis": basis,
        "kind": kind,
        "model": model_key,
        "model_name": scn.model.name,
        "acceptance": cal.acceptance,
        "acceptance_source": "calibration" if acceptance is None else "set",
        "fitted_on": "DeepSeek-R1" if fitted else "DeepSeek-R1 runs and published tables",
        "note": note,
        "spread_key": key,  # its band's rows (`residual_spread`)
        "poll_iterations": scenario_poll_interval(gpu, framework, precision),
    }


def basis_text(info: dict) -> str:
    """One line for the page and the CLI: "h200 · sglang · fp8: fitted (DeepSeek-R1 runs); scheduler looks for new
    requests every iteration"."""
    n = info["poll_iterations"]
    poll = "every iteration" if n == 1 else f"every {n:g} iterations"
    gpu = info["gpu"].partition(KEY_MARK)[0]  # a GPU its key carries: the key's readable part
    if info["basis"] == "transferred":
        return (f"Transferable model for {info['model_name']} on {gpu} · {info['framework']} · {info['precision']}: "
                f"its die's efficiency, the stack's overheads, the model's structure ({KIND_WORDS[info['kind']]}); "
                f"scheduler looks for new requests {poll}")  # fmt: skip
    return (f"Calibration {gpu} · {info['framework']} · {info['precision']}: {info['basis']} (DeepSeek-R1 "
            f"runs); scheduler looks for new requests {poll}")  # fmt: skip


def _scenario_inputs(scn):
    """(Calibration, Instance, isl, osl, mtp, `scenario_calibration`) of a Scenario.

    On the preset's own machine the compute slider is the article's table figure, rescaled here to dense FP8
    by the preset's ratio and to FP4 where the weights are FP4 and the GPU has FP4 tensor cores; any other
    scenario's compute is taken as the dense peak at the weights' precision.
    """
    info = scenario_calibration(scn)
    cal, gpu, precision = info["calibration"], info["gpu"], info["precision"]
    # Only the article's machines carry its (for NVIDIA, sparse) compute figure: any control that picks one of
    # them (its preset, or its GPU and count) gets the article's numbers (scenario.machines.machine_values).
    own = HARDWARE.get(scn.hardware)
    count = scn.params.get("gpus", own.n_gpus if own else None)
    preset = next((hw for hw in HARDWARE.values() if (hw.family, hw.n_gpus) == (gpu, count)), None)
    dense = scn.compute
    if preset is not None:
        dense = scn.compute * (preset.dense_fp8_per_gpu * preset.n_gpus / preset.compute)
        spec = GPUS[preset.family]
        if precision == "fp4" and spec.fp4 and spec.fp8:
            dense *= spec.fp4 / spec.fp8
    speed = attention_speed(gpu, precision) if gpu in GPUS else 1.0
    # Attention data parallelism: one KV copy (`Scenario.kv_copies`), the balancing wait and the prompt's attention
    # on its own rank (`at_batch`'s terms, read by `scenario_point`). Expert parallelism has no fitted term of its own:
    # the transferable model counts a MoE layer's dispatch and combine as the two collectives of a layer, as TP's.
    dp = bool(getattr(scn, "dp", False))
    m = Instance(scn.bw, dense, scn.tp * scn.pp, scn.tp, scn.kv_copies, scn.b_w, dp, scn.hbm, scn.b_kv, speed)
    return cal, m, scn.isl, getattr(scn, "osl", DEFAULT_OSL), bool(getattr(scn, "mtp", False)), info


def scenario_point(scn, B) -> dict:
    """`at_batch` of a Scenario: TPOT without the collectives (`step`), the collectives (`comm`, as
    `Scenario.comm_time`), TTFT and prefill time at decode batches B.

    The decode step uses the scenario's context S = ctx (its KV length) instead of ISL + OSL/2, so the
    context slider still acts; the prefill share uses its ISL and OSL.
    """
    cal, m, isl, osl, mtp, info = _scenario_inputs(scn)
    B = np.asarray(B, dtype=float)
    comm = scn.comm_time(B)  # the scenario's own interconnect, per output token as `decode_time` spreads it
    t_dec = decode_time(cal, m, B, scn.ctx, scn.model, mtp, comms=False) + comm
    # As `at_batch`: an iteration emits E[accepted] tokens per sequence with MTP; a new request waits on them.
    iteration = t_dec * (E.expected_accepted(MTP_DRAFTS, cal.acceptance) if mtp else 1.0)
    t_pf = prefill_time(cal, m, isl, scn.model, B)
    stall = B / osl * t_pf
    tpot = t_dec + stall
    u = stall / tpot
    # The stack's scheduler polling: one interval at every batch (`scenario_poll_interval`).
    wait = iteration * (poll_wait(info["poll_iterations"], B) + (cal.first_token_steps if mtp else 0.0))
    queue = cal.prefill_queue * np.maximum(B - 1.0, 0.0) * t_pf
    own = t_pf
    if m.dp_attention:  # as `at_batch`: the wait to balance the ranks, and the prompt's attention on its own rank
        wait = wait + dp_balance_wait(cal, m, B / (osl * tpot), iteration)
        own = t_pf + rank_attention_time(cal, m, isl, scn.model)
    ttft = cal.request_overhead_s + cal.admission_s * B + own + wait + u * t_pf / (2.0 * (1.0 - u)) + queue
    return {"step": tpot - comm, "comm": comm, "ttft": ttft, "t_prefill": t_pf}


def scenario_time_parts(scn, B) -> dict:
    """Where each output token's time goes in calibrated mode, s per token at decode batches B: the step's weight
    and KV reads, its arithmetic, its fixed cost, its collectives, and the prefills that stall it. They sum to the
    calibrated ITL (`scenario_point`'s step + comm). With MTP the step's parts are a verify step's, spread over the
    tokens accepted."""
    cal, m, isl, osl, mtp, _ = _scenario_inputs(scn)
    B = np.asarray(B, dtype=float)
    tokens = B * (MTP_DRAFTS + 1) if mtp else B
    share = mtp_share(cal.acceptance, scn.model) if mtp else 1.0
    bandwidth, compute = cal.bw_fraction * m.bw, cal.compute_fraction * m.compute
    return {
        "weights": share * weight_bytes(tokens, scn.model, m.b_w) / bandwidth,
        "kv": share * kv_bytes(B, scn.ctx, m.kv_copies, scn.model, m.b_kv) / bandwidth,
        "compute": share * decode_work(tokens, scn.ctx, scn.model, cal.expert_rate) / compute,
        "overhead": share * np.full(B.shape, cal.step_overhead_s),
        "communication": scn.comm_time(B),
        "prefill": B / osl * prefill_time(cal, m, isl, scn.model, B),
    }


def scenario_mtp_share(scn) -> float:
    """`mtp_share` of a Scenario in calibrated mode with MTP on (its calibration's or its own acceptance)."""
    return mtp_share(scenario_calibration(scn)["acceptance"], scn.model)


def scenario_resource_times(scn, B) -> tuple[np.ndarray, np.ndarray]:
    """`resource_times` of a Scenario at decode batches B, its context the KV length. Which is larger says
    whether bandwidth or compute binds."""
    cal, m, isl, osl, mtp, _ = _scenario_inputs(scn)
    return resource_times(cal, m, B, scn.ctx, isl, osl, scn.model, mtp)


def scenario_busy_share(scn, B):
    """`busy_share` of a Scenario in calibrated mode at decode batches B."""
    memory, compute = scenario_resource_times(scn, B)
    point = scenario_point(scn, B)
    return busy_share(memory, compute, point["step"] + point["comm"])


def calibrated_step(scn, B):
    """Seconds per output token without comms (the scenario adds them) of a Scenario in calibrated mode."""
    return scenario_point(scn, B)["step"]


def calibrated_ttft(scn, B):
    """Calibrated time to first token (s) of a Scenario at decode batches B."""
    return scenario_point(scn, B)["ttft"]


def power_draw() -> PowerDraw | None:
    """Calibrated mode's draw by load, as stored with the calibration (docs/calibration.md, Energy); None for a
    calibration fitted on rows that report no power."""
    return load_stored().power
