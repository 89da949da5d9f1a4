"""The JSON and CSV records `inferx point` and `inferx frontier` write for a scenario."""

from __future__ import annotations

import math

import numpy as np

from inferx.analysis.answers import in_both_modes
from inferx.scenario.batches import geometric_batches
from inferx.scenario.evaluation import Scenario


def _finite(x, digits=6):
    x = float(x)
    return None if not math.isfinite(x) else float(f"{x:.{digits}g}")


def _utilisation(rho):
    """ρ to 6 significant figures, but a ρ below 1 never shown as 1: that would say the queue is saturated
    (TTFT ∞) beside a finite TTFT. B = B_max − 1 with B_max in the millions is 0.9999996."""
    shown = _finite(rho)
    return 0.999999 if shown is not None and shown >= 1 > float(rho) else shown


def rounded_json(value):
    """Floats of a JSON answer to 6 significant figures, as `point` writes them (None where not finite)."""
    if isinstance(value, float):
        return _finite(value)
    if isinstance(value, dict):
        return {k: _utilisation(v) if k == "rho" else rounded_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [rounded_json(v) for v in value]
    return value


def point_record(scn: Scenario, batch: int) -> dict:
    """The `inferx point` JSON object (times in ms, throughput in tokens/s)."""
    from inferx.analysis import economics, regimes

    r = {k: v[0] for k, v in scn.evaluate([batch]).items()}
    s = scn.summary()
    stable = bool(r["stable"])
    record = {
        "batch": int(batch),
        "throughput_tok_s": _finite(r["throughput"]),  # the instance's, as ever; per GPU beside it
        "throughput_per_gpu_tok_s": _finite(r["throughput"] / scn.params["gpus"]),
        "gpus": int(scn.params["gpus"]),
        "ttft_ms": _finite(1e3 * r["ttft"]) if stable else None,
        "itl_ms": _finite(1e3 * r["itl"]),
        "t_step_ms": _finite(1e3 * r["t_step"]),
        "t_prefill_ms": _finite(1e3 * s["t_prefill"]),
        "t_comm_ms": _finite(1e3 * r["t_comm"]),
        "rho": _utilisation(r["rho"]),
        "b_max": int(s["b_max"]),
        "b_star": _finite(s["b_star"]),
        "ridge_flop_per_byte": _finite(s["ridge"]),
        "kappa_bytes_per_token": _finite(s["kappa"]),
        "kv_headroom_gb": _finite(s["headroom"] / 1e9),
        "t_inf_tok_s": _finite(s["t_inf"]),
        "stable": stable,
        # The explorer's readouts at the same batch: the limit that binds, and cost and energy at the scenario's
        # price (its GPU's assumed one, unless --price) and power drawn.
        "regime": str(regimes.binding(scn, [batch])[0]),
    }
    econ = economics.along(scn, r["throughput"], scn.params["price"], scn.params["power"], batch)
    record |= {
        "cost_per_mtok_usd": _finite(econ["cost_per_mtok"]),
        "tokens_per_joule": _finite(econ["tokens_per_joule"]),
        "usd_per_gpu_hour": econ["usd_per_gpu_hour"],
        "price_assumed": scn.params["price"] is None,
        "power_fraction_of_tdp": _finite(econ["power_fraction"], 4),
    }
    if scn.mode == "calibrated":
        record["calibration"] = calibration_record(scn)
    if not scn.unfit_reason():
        record |= in_both_modes(scn, _point_answer(batch))
    return record


def _point_answer(batch: int):
    def answer(scn: Scenario) -> dict:
        from inferx.analysis import economics, regimes
        from inferx.analysis.breakdown import time_parts_ms

        r = {k: v[0] for k, v in scn.evaluate([batch]).items()}
        stable = bool(r["stable"])
        econ = economics.along(scn, r["throughput"], scn.params["price"], scn.params["power"], batch)
        return {
            "throughput_tok_s": _finite(r["throughput"]),
            "throughput_per_gpu_tok_s": _finite(r["throughput"] / econ["gpus"]),
            "ttft_ms": _finite(1e3 * r["ttft"]) if stable else None,
            "itl_ms": _finite(1e3 * r["itl"]),
            "b_max": int(scn.b_max),
            "regime": str(regimes.binding(scn, [batch])[0]),
            "cost_per_mtok_usd": _finite(econ["cost_per_mtok"]),
            "tokens_per_joule": _finite(econ["tokens_per_joule"]),
            # Where each output token's time goes (`breakdown.time_parts`): parts summing to itl_ms.
            "time_per_token_ms": time_parts_ms(scn, batch),
        }

    return answer


def calibration_record(scn: Scenario) -> dict:
    """Which calibration a calibrated point used and on what basis ("fitted", "stack typical", "datasheet"…)."""
    from inferx.serving.adapter import scenario_calibration
    from inferx.serving.stored import held_out_error, scenario_error

    info = scenario_calibration(scn)
    record = {k: info[k] for k in ("gpu", "framework", "precision", "basis", "fitted_on", "acceptance_source")}
    record["extrapolation"] = info["kind"]  # measured, pair, gpu_sibling, gpu_alone or model (`transfer.KIND_WORDS`)
    record["mtp"] = scn.mtp
    record["acceptance"] = _finite(info["acceptance"], 4)
    record["osl"] = scn.osl
    record["poll_iterations"] = info["poll_iterations"]  # the scheduler's look at new requests, in engine iterations
    # How far the model is from InferenceX's runs of this calibration, else of its GPU ([median, p90] of
    # |predicted / measured − 1|; `group` says which), or None; and, pooled over the measured GPUs each left out of
    # the fit, what to expect on a GPU with no runs.
    record["measured_error"] = scenario_error(info)
    if info["basis"] != "transferred":  # the transferable model's measured error is already its kind's
        record["held_out_error"] = held_out_error()
    if info["note"]:
        record["note"] = info["note"]
    return record


def frontier_records(scn: Scenario, points: int | None = None) -> list[dict]:
    """One row per batch size 1…B_max, or `points` geometric samples of that range, with the limit that binds;
    with `tput=gpu` each row also gives its throughput per GPU."""
    from inferx.analysis import regimes

    batches = np.arange(1, scn.b_max + 1) if points is None else geometric_batches(scn.b_max, points)
    r = scn.evaluate(batches)
    gpus = scn.params["gpus"]
    per_gpu = scn.params.get("tput") == "gpu"  # --tput gpu adds the column (throughput_tok_s keeps its meaning)
    return [
        {
            "batch": int(b),
            "throughput_tok_s": _finite(t),
            **({"throughput_per_gpu_tok_s": _finite(t / gpus)} if per_gpu else {}),
            "ttft_ms": _finite(1e3 * f) if ok else None,
            "itl_ms": _finite(1e3 * i),
            "rho": _utilisation(rho),
            "regime": str(limit),
        }
        for b, t, f, i, rho, ok, limit in zip(
            batches,
            r["throughput"],
            r["ttft"],
            r["itl"],
            r["rho"],
            r["stable"],
            regimes.binding(scn, batches),
            strict=True,
        )  # fmt: skip
    ]
