"""Goodput under a latency target: the part of a frontier that meets a TTFT and a TPOT target.

TPOT is the engine's ITL (steady decode, no speculation). Along a frontier both TTFT and ITL grow with the
batch size B (ITL = t_step + t_comm is non-decreasing in B; TTFT adds a queue wait that grows with ρ = B/B_max),
so the batches that meet both targets are 1…B_slo, and throughput B / ITL(B) also grows with B: the
largest batch that meets the targets is the best throughput that does. `largest_batch` relies on that order
and finds B_slo exactly with a few vectorised passes, however large B_max is.
"""

from __future__ import annotations

import numpy as np

from inferx.analysis import economics, regimes
from inferx.analysis.answers import expected_error
from inferx.physics.gpu import MAX_GPUS
from inferx.physics.hardware import GPUS
from inferx.physics.presets import SCALE_UP, TIERED
from inferx.scenario.controls import PARAMS, InvalidParameter, check_value
from inferx.scenario.evaluation import Scenario
from inferx.scenario.machines import per_gpu_values
from inferx.serving.adapter import scenario_calibration
from inferx.text import number

TTFT_MS = 500.0  # a common interactive target for the first token
TPOT_MS = 50.0  # 20 tokens/s per user, about reading speed
HARDWARE_CONTROLS = ("preset", *(name for name, p in PARAMS.items() if p.preset), "pp")  # each candidate sets them
# Batch sizes evaluated per refinement pass: a pass costs numpy's per-call overhead more than its arithmetic
# (1,024 sizes take half again the time of 64), so a wide pass finds B_slo in one pass up to 1,025 and in two up
# to a million, where 64 took three.
_PASS = 1024
_STEPS = np.arange(1, _PASS + 1)
LIMITED_BY = {"ttft": "TTFT target", "tpot": "TPOT target", "b_max": "KV capacity (B_max)"}  # `limited_by` in words


def check_target(name: str, value) -> float:
    """A latency target in ms: a positive finite number."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = float("nan")
    if not (np.isfinite(number) and number > 0):
        raise InvalidParameter(name, "must be a positive number of milliseconds", value)
    return number


def meets(ttft_s, itl_s, ttft_target_s: float, tpot_target_s: float) -> np.ndarray:
    """Boolean mask: TTFT ≤ target and ITL ≤ target (∞ TTFT, past ρ = 1, never meets)."""
    return (np.asarray(ttft_s) <= ttft_target_s) & (np.asarray(itl_s) <= tpot_target_s)


def frontier_mask(scn: Scenario, B, ttft_ms: float = TTFT_MS, tpot_ms: float = TPOT_MS) -> np.ndarray:
    """Which of the batch sizes B meet both targets, for shading a frontier."""
    r = scn.evaluate(np.atleast_1d(B))
    return meets(r["ttft"], r["itl"], ttft_ms / 1e3, tpot_ms / 1e3)


def largest_batch(scn: Scenario, ttft_ms: float = TTFT_MS, tpot_ms: float = TPOT_MS) -> int:
    """The largest batch size meeting both targets, 0 when even B = 1 misses one (or nothing fits)."""
    return 0 if scn.unfit_reason() else _search(scn, ttft_ms, tpot_ms)[0]


def _search(scn: Scenario, ttft_ms: float, tpot_ms: float) -> tuple[int, dict | None, dict | None]:
    """`largest_batch`, with the engine's values at it and at one above it where a pass evaluated them
    (None where not: B = 0, or B_max), so that `goodput` need not evaluate them again."""
    lo, hi = 0, scn.b_max  # lo meets (0 trivially); hi misses (ρ = 1: TTFT is ∞)
    at_lo = at_hi = None
    while hi - lo > 1:
        # Every batch size between, or _PASS spread evenly (strictly rising, their step above 1).
        cand = np.arange(lo + 1, hi) if hi - lo <= _PASS + 1 else lo + _STEPS * (hi - lo) // (_PASS + 1)
        r = scn.evaluate(cand)
        ok = meets(r["ttft"], r["itl"], ttft_ms / 1e3, tpot_ms / 1e3)
        n = cand.size if ok.all() else int(np.argmin(ok))  # the first miss; all before it meet
        if n:
            lo, at_lo = int(cand[n - 1]), {k: v[n - 1] for k, v in r.items()}
        if n < cand.size:
            hi, at_hi = int(cand[n]), {k: v[n] for k, v in r.items()}
    return lo, at_lo, at_hi


def goodput(
    scn: Scenario,
    ttft_ms: float = TTFT_MS,
    tpot_ms: float = TPOT_MS,
    usd_per_gpu_hour: float | None = None,
    power_fraction: float | None = None,
) -> dict:
    """The best operating point that meets both targets, in user units (ms, tok/s, $/M tokens, tok/J).

    `batch` is 0 and the numbers None when no batch size meets them; `limited_by` says which target (or
    "b_max") stops the batch from growing one more.
    """
    ttft_ms, tpot_ms = check_target("ttft_ms", ttft_ms), check_target("tpot_ms", tpot_ms)
    out = {"ttft_target_ms": ttft_ms, "tpot_target_ms": tpot_ms, "b_max": scn.b_max}
    reason = scn.unfit_reason()
    if reason:
        return out | {"batch": 0, "reason": reason}
    b, at_b, nxt = _search(scn, ttft_ms, tpot_ms)
    if nxt is None:  # b + 1 is B_max, which no pass evaluates
        nxt = {k: v[0] for k, v in scn.evaluate([b + 1]).items()}
    if b + 1 >= scn.b_max:
        limited = "b_max"
    elif nxt["ttft"] > ttft_ms / 1e3:
        limited = "ttft"
    else:
        limited = "tpot"
    out["limited_by"] = limited
    if b == 0 and scn.b_max == 1:
        return out | {"batch": 0, "reason": "B_max is 1: one request fills the KV room, so its queue never drains"}
    if b == 0:
        return out | {
            "batch": 0,
            "reason": f"B = 1 misses: TTFT {number(1e3 * nxt['ttft'])} ms, TPOT {number(1e3 * nxt['itl'])} ms",
        }
    r = {k: float(v) for k, v in at_b.items()}
    econ = economics.along(scn, r["throughput"], usd_per_gpu_hour, power_fraction, b)
    return out | {
        "batch": b,
        "throughput_tok_s": r["throughput"],
        "throughput_per_gpu_tok_s": r["throughput"] / econ["gpus"],
        "ttft_ms": 1e3 * r["ttft"],
        "itl_ms": 1e3 * r["itl"],
        "rho": r["rho"],
        "regime": str(regimes.binding(scn, [b])[0]),
        "cost_per_mtok_usd": float(econ["cost_per_mtok"]),
        "tokens_per_joule": float(econ["tokens_per_joule"]),
        "gpu": econ["gpu"],
        "gpus": econ["gpus"],
        "usd_per_gpu_hour": econ["usd_per_gpu_hour"],
        "power_fraction_of_tdp": float(econ["power_fraction"]),
    }


def catalog_counts(gpu: str) -> list[int]:
    """The GPU counts a search tries for one catalog GPU: the powers of two that one scale-up domain (NVLink,
    Infinity Fabric) holds, since the engine's collectives run over that link: 1–8, or 1–64 in an NVL72 rack."""
    limit = min(GPUS[gpu].scale_up_gpus, MAX_GPUS)
    return [1 << k for k in range(limit.bit_length())]


def _search_count(value) -> int:
    """A GPU count given to the search: a power of two, as the TP that spans it is."""
    count = check_value("gpus", PARAMS["gpus"], value)
    if count & (count - 1):
        raise InvalidParameter("gpus", "must be a power of two for --search (TP spans the count)", value)
    return count


MACHINE_OPTIONS = ("gpu", "gpus", "tp", "pp", "ic")  # what a row names of its machine, besides its figures


def candidates(base: dict) -> list[dict]:
    """The configurations a search tries: every catalog GPU (or `base`'s `gpu`), at every power-of-two count
    its scale-up domain holds (or `base`'s `gpus`), as tensor parallelism across the count, or, past one domain,
    across the domain with a pipeline stage per domain, with the other controls from `base` (user units). A
    pipeline within a domain is not offered: the article's model charges PP only its hand-offs, not the stages
    a request's token passes one after another, so it would rank every PP split above TP (4×MI355X at TP 1,
    PP 4 came first) on a latency no pipeline has. Each takes its datasheet's
    HBM, bandwidth and dense compute at the weight dtype times the count, so that GPUs compare on one
    footing (the article's 8×H200 and 8×B200 presets quote sparse FP8; here they are dense), over the GPU's own
    scale-up link; past one domain TP stays on it and the pipeline's hand-offs cross InfiniBand (`ic=tiered`)."""
    rest = {k: v for k, v in base.items() if k not in HARDWARE_CONTROLS and v is not None}
    wdtype = check_value("wdtype", PARAMS["wdtype"], rest.get("wdtype", PARAMS["wdtype"].default))
    gpus = list(GPUS) if base.get("gpu") is None else [check_value("gpu", PARAMS["gpu"], base["gpu"])]
    given = None if base.get("gpus") is None else [_search_count(base["gpus"])]
    out = []
    for gpu in gpus:
        one = per_gpu_values(gpu)
        for n in given or catalog_counts(gpu):
            machine = {"gpu": gpu, "gpus": n, "bw": n * one["bw"], "hbm": n * one["hbm"],
                       "compute": n * one["compute"][wdtype],
                       "ic": SCALE_UP if n <= GPUS[gpu].scale_up_gpus else TIERED}  # fmt: skip
            tp = min(n, 1 << (min(GPUS[gpu].scale_up_gpus, MAX_GPUS).bit_length() - 1))  # the domain's TP
            tp = max(tp, n // PARAMS["pp"].high)  # a small domain at a large count: no more stages than PP has
            out.append({**rest, **machine, "tp": tp, "pp": n // tp})
    return out


def search(
    base: dict,
    ttft_ms: float = TTFT_MS,
    tpot_ms: float = TPOT_MS,
    usd_per_gpu_hour: float | None = None,
    power_fraction: float | None = None,
) -> list[dict]:
    """`goodput` of every candidate (`candidates`), cheapest per million tokens first; those that meet nothing
    last. Each row names its machine ("8×H200 SXM"), GPU, count, TP, PP, link (`ic`) and the datasheet's
    bandwidth, compute and HBM it used (TB/s, PFLOPS, GB): with those, `inferx point` gives the same numbers (with
    the first five alone, the preset's own machine takes the preset's figures, sparse compute included), and in
    calibrated mode where its calibration comes from (`calibration_basis`: "fitted" or "transferred") and how far
    it may be off (`error`, `answers.expected_error`); a price given applies to every GPU, else each takes its own
    assumed price."""
    rows = []
    for params in candidates(base):
        scn = Scenario.from_params(**params)
        row = {"machine": f"{params['gpus']}×{GPUS[params['gpu']].name}"}
        row.update((k, params[k]) for k in (*MACHINE_OPTIONS, "bw", "compute", "hbm"))
        if scn.mode == "calibrated":  # where its parameters come from, and so how far it may be off
            row["calibration_basis"] = scenario_calibration(scn)["basis"]
            row["error"] = expected_error(scn)
        rows.append(row | goodput(scn, ttft_ms, tpot_ms, usd_per_gpu_hour, power_fraction))
    return sorted(rows, key=lambda r: (r["batch"] == 0, r.get("cost_per_mtok_usd", 0.0)))
