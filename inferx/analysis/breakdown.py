"""Where the time of one output token goes, in both models: the parts that sum to its inter-token latency."""

from __future__ import annotations

import numpy as np

from inferx.scenario.evaluation import Scenario
from inferx.serving.adapter import scenario_time_parts

PARTS = ("weights", "kv", "compute", "overhead", "communication", "prefill")


def time_parts(scn: Scenario, B) -> dict:
    """{part: s per output token} at decode batches B, summing to the scenario's ITL in its mode, and, in article
    mode, `overlapped`: the roofline's other resource, whose time runs under the binding one and so adds nothing.

    The article's step is max(HBM time, arithmetic time): where HBM binds, the parts are the weights' and the KV
    cache's reads (P_active·b_w / BW and B·S·κ / BW) and the arithmetic is overlapped; where arithmetic binds, it is
    the part and the reads are overlapped. It has no fixed cost, and its prefill does not stall the decode step.
    """
    B = np.asarray(B, dtype=float)
    if scn.mode == "calibrated":
        return {**scenario_time_parts(scn, B), "overlapped": np.zeros(B.shape)}
    weights, kv, compute, memory_binds = _roofline(scn, B)
    zero = np.zeros(B.shape)
    return {
        "weights": np.where(memory_binds, weights, 0.0),
        "kv": np.where(memory_binds, kv, 0.0),
        "compute": np.where(memory_binds, 0.0, compute),
        "overhead": zero,
        "communication": scn.comm_time(B),
        "prefill": zero,
        "overlapped": np.where(memory_binds, compute, weights + kv),
    }


def overlapped_parts(scn: Scenario, B) -> dict:
    """What `time_parts`' `overlapped` is made of, s per output token at decode batches B: the arithmetic where
    HBM binds, the weights' and the KV cache's reads where arithmetic binds (each zero where it is not hidden);
    all zero in calibrated mode, whose step adds its parts."""
    B = np.asarray(B, dtype=float)
    if scn.mode == "calibrated":
        return {part: np.zeros(B.shape) for part in ("weights", "kv", "compute")}
    weights, kv, compute, memory_binds = _roofline(scn, B)
    return {
        "weights": np.where(memory_binds, 0.0, weights),
        "kv": np.where(memory_binds, 0.0, kv),
        "compute": np.where(memory_binds, compute, 0.0),
    }


def _roofline(scn: Scenario, B: np.ndarray) -> tuple:
    """The article's step times at batches B: the weights' read, the KV cache's read, the arithmetic (s), and
    where the two reads outlast the arithmetic."""
    weights = scn.model.p_active * scn.b_w / scn.bw * np.ones(B.shape)
    kv = B * scn.ctx * scn.kappa / scn.bw
    compute = 2.0 * scn.model.p_active * B / scn.compute
    return weights, kv, compute, weights + kv >= compute


def time_parts_ms(scn: Scenario, batch: int) -> dict:
    """`time_parts` at one batch, in ms, rounded for a record: the parts, their sum, and the overlapped time."""
    parts = time_parts(scn, [batch])
    out = {f"{part}_ms": round(1e3 * float(parts[part][0]), 4) for part in PARTS}
    out["sum_ms"] = round(1e3 * float(sum(parts[part][0] for part in PARTS)), 4)
    out["overlapped_ms"] = round(1e3 * float(parts["overlapped"][0]), 4)
    return out
