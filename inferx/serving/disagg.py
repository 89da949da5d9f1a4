"""Disaggregated serving: a prefill pool and a decode pool, with the KV cache sent between them.

A row names the GPUs of each pool and each worker's TP/EP size. The concurrency C is
spread evenly over the decode workers; each decode step pays the calibrated step of its
GPU and stack (no prefills in it) plus an expert-parallel all-to-all: every MoE layer
dispatches each token's hidden state to its k experts and combines the results, over the
scale-up link when the worker fits one domain and over the network (NETWORK_BW per GPU)
otherwise. A request's TTFT is the fixed cost twice (it is taken in by two engines: the
prefill worker's, then the decode worker's, which schedules it again after a hand-shake for its
KV cache), its prefill on one prefill worker, an M/D/1 wait behind the prefills queued on that
worker, the transfer of its KV cache, and its admission into the decode batch (as single node:
t_adm and f_q of a prefill per request in flight, half an iteration, one more with MTP).
Closed loop as in single node: decode batch = C · OSL·TPOT / (TTFT + OSL·TPOT), capped by the
decode worker's KV cache, the other users waiting for a slot; and when the prefill pool cannot
keep up, requests complete at its capacity and the users wait for it (Little's law again).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from inferx.physics import engine as E
from inferx.physics import model_spec
from inferx.physics.hardware import GPUS
from inferx.physics.models import DEEPSEEK_R1
from inferx.physics.models import weight_bytes as model_weight_bytes
from inferx.serving import fit as F
from inferx.serving import model as C

NETWORK_BW = 50e9  # bytes/s per GPU across nodes: one 400 Gb/s NIC per GPU
ALL_TO_ALL_LATENCY = 10e-6  # s per collective
# A request passes through two engines, each paying the stack's per-request fixed cost t_req (receiving and
# scheduling it, the hop to it): the prefill worker's, then the decode worker's, which takes the request in again
# and agrees with the prefill worker where its KV cache goes. At concurrency ≤ 16, where queues are short, the
# measured TTFT exceeds the model with one t_req by 63–201 ms (median per orchestrator and length), the size of
# one more t_req (55–135 ms on these stacks).
ENGINES_PER_REQUEST = 2


def _worker_size(tp, ep, pool, gpu_keys, b_w):
    """GPUs per worker: its TP/EP size, or the whole pool when the weights would not fit in that many."""
    size = np.maximum(np.nan_to_num(tp, nan=1.0), np.nan_to_num(ep, nan=1.0))
    hbm = np.array([GPUS[g].hbm for g in gpu_keys])
    weights = model_weight_bytes(DEEPSEEK_R1, 1.0) * b_w
    return np.where(weights > 0.9 * hbm * size, np.maximum(pool, size), size)


def all_to_all(B, worker, gpu_keys, model=DEEPSEEK_R1):
    """Dispatch + combine of B tokens' hidden states (FP8) to k experts in every MoE layer, s per step."""
    scale_up = np.array([GPUS[g].scale_up_gpus for g in gpu_keys])
    link = np.array([GPUS[g].link_bw_per_direction for g in gpu_keys])
    bw = np.where(worker > scale_up, NETWORK_BW, link)
    per_gpu = 2.0 * B * model.experts_per_token * model.d_model / worker  # bytes each GPU sends per MoE layer
    return np.where(worker > 1, model.n_moe_layers * (per_gpu / bw + 2 * ALL_TO_ALL_LATENCY), 0.0)


def predict_disaggregated(cal: C.Calibration, rows: pd.DataFrame, model=DEEPSEEK_R1, iterations=40) -> dict:
    """TPOT, TTFT, E2E (s), output tok/s per decode GPU and interactivity of disaggregated rows."""
    gpu_keys = rows["hardware"].to_numpy()
    b_w = rows["precision"].map(model_spec.DTYPE_BYTES).to_numpy(float)
    n_pre, n_dec = rows["num_prefill_gpu_raw"].to_numpy(float), rows["num_decode_gpu_raw"].to_numpy(float)
    w_pre = _worker_size(rows["prefill_tp"].to_numpy(float), rows["prefill_ep"].to_numpy(float), n_pre, gpu_keys, b_w)
    w_dec = _worker_size(rows["decode_tp"].to_numpy(float), rows["decode_ep"].to_numpy(float), n_dec, gpu_keys, b_w)
    workers_pre, workers_dec = np.maximum(n_pre / w_pre, 1.0), np.maximum(n_dec / w_dec, 1.0)
    bw = np.array([C.resources(g, p)[0] for g, p in zip(gpu_keys, rows["precision"], strict=True)])
    peak = np.array([C.resources(g, p)[1] for g, p in zip(gpu_keys, rows["precision"], strict=True)])
    dp = rows["decode_dp_attention"].to_numpy(bool)
    hbm = np.array([GPUS[g].hbm for g in gpu_keys])
    decode = C.Instance(bw * w_dec, peak * w_dec, w_dec, np.where(dp, 1, w_dec), np.where(dp, 1.0, w_dec), b_w, dp,
                        hbm * w_dec)  # fmt: skip
    speed = np.array([C.attention_speed(g, p) for g, p in zip(gpu_keys, rows["precision"], strict=True)])
    prefill = C.Instance(bw * w_pre, peak * w_pre, w_pre, w_pre, w_pre, b_w, attention_speed=speed)
    isl, osl = F.lengths(rows)
    conc = rows["concurrency"].to_numpy(float)
    mtp = rows["spec_method"].eq("mtp").to_numpy()
    t_pf = C.prefill_time(cal, prefill, isl, model)
    kv = isl * E.kv_bytes_per_token(model, C.FP8_BYTES) / (NETWORK_BW * np.minimum(w_pre, w_dec))
    S = isl + osl / 2.0
    expert_parallel = rows["decode_ep"].fillna(1).to_numpy(float) > 1  # else the MoE is tensor-parallel: all-reduce
    C_worker = conc / workers_dec
    cap = C.kv_capacity(decode, isl + osl, model)  # requests one decode worker's KV cache holds
    B = np.minimum(C_worker, cap)
    for _ in range(iterations + 1):
        step = np.where(
            mtp, C.decode_time(cal, decode, B, S, model, True), C.decode_time(cal, decode, B, S, model, False)
        )
        per_token = np.where(mtp, 1.0 / E.expected_accepted(C.MTP_DRAFTS, cal.acceptance), 1.0)
        tpot = step + all_to_all(B, w_dec, gpu_keys, model) * expert_parallel * per_token
        arrival = conc / (osl * tpot) / workers_pre  # requests/s per prefill worker, B ≈ C in decode
        u = np.minimum(arrival * t_pf, 0.95)
        # After its KV arrives a request joins the decode worker's batch as single-node admission does: the
        # scheduler's pass over the B in flight, half an iteration, and with MTP one more before the first token.
        iteration = tpot / per_token
        # The single-node fit splits the TTFT a stack adds per request in flight into t_adm and f_q · t_pf (its
        # prompts queued one after another); both are kept here, the prefill being the prefill worker's.
        joining = cal.admission_s * B + iteration * (0.5 + np.where(mtp, cal.first_token_steps, 0.0))
        queue = cal.prefill_queue * np.maximum(B - 1.0, 0.0) * t_pf
        ttft = ENGINES_PER_REQUEST * cal.request_overhead_s + t_pf + kv + u * t_pf / (2.0 * (1.0 - u)) + joining + queue
        decoding = osl * tpot
        B = 0.5 * B + 0.5 * np.minimum(C_worker * decoding / (ttft + decoding), cap)
    ttft = np.maximum(ttft, C_worker * decoding / B - decoding)  # users waiting for a decode slot
    # A saturated prefill pool sets the closed loop's pace: requests finish at its capacity (its workers each
    # prefilling a full batch, the weights read once per batch), and by Little's law the users not decoding
    # wait for it.
    weights = C.weight_bytes(np.inf, model, prefill.b_w) / (cal.bw_fraction * prefill.bw)
    capacity = workers_pre / np.maximum(t_pf - weights, 1e-9)  # requests/s
    ttft = np.maximum(ttft, conc / capacity - decoding)
    e2e = ttft + osl * tpot
    return {
        "tpot": tpot,
        "ttft": ttft,
        "e2e": e2e,
        "throughput_per_gpu": C.run_throughput(conc * osl / e2e / n_dec, e2e, F.startup_stall(rows)),
        "interactivity": 1.0 / tpot,
        "batch": B,
    }
