"""The calibrated serving model at run time: predictions from the stored calibration (numpy only).

One decode step of B sequences at mean context S, on GPUs with total HBM bandwidth BW
and total dense compute C at the weights' precision:

    t_step = t_0 + bytes(B, S) / (f_bw · BW) + flops(B, S) / (f_c · C) + t_comm
    bytes  = b_w · (P_dense + L_moe · P_expert · D(B)) + r · B · S · κ
    D(B)   = E · (1 − (1 − k/E)^B)        expected distinct routed experts per MoE layer
    flops  = 2 · B · P_active + 2 · B · L · H · S · (2·d_c + d_r)   (weights + MLA attention)

A prefill of ISL tokens reads every weight once and does the article's prefill FLOPs, its weight
GEMMs at the weights' rate C and its attention A(ISL) at the GPU's BF16 rate C_bf16:

    t_pf = b_w · P_total / (f_bw · BW) + (2 · P_active · ISL + A(ISL) · C / C_bf16) / (f_pf · C)

With output length OSL, each decode step also carries the prefills of the B / OSL
requests that replace the finished ones, so a user's time per output token is

    TPOT = t_dec(B) + (B / OSL) · t_pf,      t_dec = t_step, or with MTP (k drafts, acceptance α)
    t_dec = (k · t_step / L + t_step(B·(k+1) tokens)) / E[accepted]

and the share of the engine's time spent in prefill is u = (B/OSL)·t_pf / TPOT < 1. A
request's time to first token is a fixed cost, an admission cost per request in flight, its own
prefill, the wait for the scheduler to take it (w_N decode iterations t_it: half the one in flight, or
N/2 when the recipe looks for new requests every N iterations, `poll_interval`; t_it is t_dec · E[accepted]
with MTP, plus m whole iterations before the first token is streamed, about one), an M/D/1 wait behind the
prefills queued before it, and a share f_q of the prefills of the other B − 1 requests in flight (a stack that
runs arriving prompts one after another rather than in one batch makes a new prompt wait behind those ahead
of it, so this wait grows with the batch and the prompt):

    TTFT = t_req + t_adm · B + t_pf + w_N · t_it [+ m · t_it with MTP] + u · t_pf / (2 (1 − u)) + f_q · (B − 1) · t_pf

A prompt longer than one prefill chunk (PREFILL_CHUNK_TOKENS) also waits (ISL/chunk − 1) · t_it
for the iterations between its chunks; with attention data parallelism a new request waits
until every rank has one, at most w_dp iterations (`dp_balance_wait`), and its attention runs on
its rank alone (`rank_attention_time`).

A closed-loop benchmark fixes the concurrency C, not B: B = C · OSL·TPOT / (TTFT + OSL·TPOT)
(Little's law), at most the requests the KV cache holds (the others wait for a slot), solved
by fixed-point iteration in `closed_loop`.
A measured run's throughput is over its wall clock: a run that lost t_stall once at its start
reports C · OSL / E2E / n · N·E2E / (N·E2E + t_stall), N prompts per user (`run_throughput`).

Per GPU, software stack and weight precision the free parameters are f_bw, f_c, f_pf, t_0,
t_req, t_adm, f_q, w_dp, the MTP acceptance α and first-token iterations m, stored in
`calibration.json` beside this file.
FP8 and FP4 runs of one stack are separate calibrations: their kernels differ. A GPU or
stack without rows is predicted from its datasheet with the typical parameters
(`calibration_for` says which). The fit lives in `calibration_fit`, scores in
`calibration_report`, the disaggregated model in `calibration_disagg`.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np

from inferx.physics import engine as E
from inferx.physics.hardware import GPUS
from inferx.physics.model_spec import DTYPE_BYTES, ModelSpec
from inferx.physics.models import (
    DEEPSEEK_R1,
    attention_params,
    expected_distinct_experts,
    layer_tokens,
    prefill_attention_flops,
    request_bytes,
)
from inferx.physics.presets import HARDWARE, INTERCONNECTS

# Scenario presets -> hardware catalog key (the calibration's GPU).
PRESET_FAMILY = {key: hw.family for key, hw in HARDWARE.items()}
FAMILY_PRESET = {family: preset for preset, family in PRESET_FAMILY.items()}
FAMILIES = tuple(FAMILY_PRESET)  # the article's three GPUs
FP8_BYTES = 1.0  # KV cache of every measured run
DEFAULT_FRAMEWORK = "sglang"  # the stack measured on every GPU; a scenario without a stack uses it
# A Scenario without its own output length uses 1,024 tokens: the OSL of two of InferenceX's three
# shapes (1k/1k, 8k/1k), so a scenario at ISL 1k or 8k reads like those runs.
DEFAULT_OSL = 1024
MTP_DRAFTS = 3  # draft tokens per verify step (the MTP setting InferenceX's DeepSeek-R1 recipes use)
DEFAULT_ACCEPTANCE = 0.6  # per-draft acceptance α when no MTP rows were fitted
# Prompts are prefilled in chunks of this many tokens, each chunk in one engine iteration beside the decode
# batch (SGLang's and vLLM's default budget; no InferenceX row has a prompt longer than one chunk).
PREFILL_CHUNK_TOKENS = 8192
# With MTP a request's first token reaches the client about one verify iteration after its prefill (the draft
# head first extends over the prompt, and the first token is streamed with the first verify's tokens): measured
# TTFT with MTP exceeds the same run without it by 1.2 such iterations at the median over matched runs. Each
# stack's MTP rows fit their own count (`Calibration.first_token_steps`); this is the default.
MTP_FIRST_TOKEN_ITERATIONS = 1.0
KV_MEMORY_FRACTION = 0.85  # share of the HBM left after the weights that a server gives the KV cache
# InferenceX sends 10 prompts per user in a run (`--num-prompts` = 10 × concurrency) and reports output tokens
# over the run's wall-clock time.
RUN_PROMPTS_PER_USER = 10


@dataclass(frozen=True)
class Calibration:
    bw_fraction: float  # f_bw: achieved share of datasheet HBM bandwidth
    compute_fraction: float  # f_c: achieved share of dense compute in decode
    prefill_fraction: float  # f_pf: achieved share of dense compute in prefill
    step_overhead_s: float  # t_0: launches, scheduling, sampling, synchronisation per step
    request_overhead_s: float = 0.0  # t_req: per-request fixed cost before the prefill (tokenise, schedule)
    admission_s: float = 0.0  # t_adm: TTFT added per request in flight (the scheduler's pass over them)
    acceptance: float = DEFAULT_ACCEPTANCE  # α: chance that each MTP draft token is accepted
    dp_wait_steps: float = 0.0  # w_dp: most iterations a new request waits to be balanced across attention-DP ranks
    prefill_queue: float = 0.0  # f_q: share of the other in-flight requests' prefills a new prompt waits behind
    first_token_steps: float = MTP_FIRST_TOKEN_ITERATIONS  # m: with MTP, iterations after the prefill before token 1
    # The two below are the transferable model's (`transfer`); their defaults give the per-stack fits' step.
    # 1: a prompt is prefilled in the decode iteration of the B − 1 others (chunked prefill), so its pass over the
    # weights is that iteration's, shared B ways; 0: every prompt reads all the weights once on its own.
    chunked_prefill: float = 0.0
    expert_rate: float = 1.0  # a routed expert's grouped GEMM (routing, permutation) over a dense GEMM's rate
    # Share of its answer's KV cache a request is counted as holding when the closed loop bounds its batch by the
    # cache (`closed_loop`): 1, the whole answer reserved at admission (TensorRT-LLM's GUARANTEED_NO_EVICT, and the
    # per-stack fits); 0.5, pages taken per token as generated, half the answer on average (vLLM, SGLang).
    answer_reserved: float = 1.0

    @classmethod
    def per_stack_fields(cls) -> tuple[str, ...]:
        """The fields a per-stack fit sets and calibration.json stores; the transferable model's come after."""
        names = tuple(f.name for f in fields(cls))
        return names[: names.index("chunked_prefill")]

    def vector(self) -> np.ndarray:
        return np.array([getattr(self, f.name) for f in fields(self)])

    @classmethod
    def from_vector(cls, v) -> Calibration:
        return cls(*(float(x) for x in v))


# --- Physics ------------------------------------------------------------------------


def dense_params(model: ModelSpec = DEEPSEEK_R1) -> float:
    """Parameters read at every step whatever the routing: P_total − L_moe · E · P_expert.

    For DeepSeek R1: 671e9 − 58 · 256 · 44.04e6 ≈ 17.1e9 (attention of all 61 layers,
    the 3 dense FFN layers, the 58 shared experts and the embeddings).
    """
    return model.p_total - model.n_moe_layers * model.n_routed_experts * model.expert_params


def distinct_experts(B, model: ModelSpec = DEEPSEEK_R1):
    """E · (1 − (1 − k/E)^B): expected routed experts per MoE layer that B tokens touch (uniform routing)."""
    return expected_distinct_experts(model, B)  # none for a dense model


def weight_bytes(B, model: ModelSpec = DEEPSEEK_R1, b_w: float = FP8_BYTES):
    """Weight bytes one decode step of B tokens reads."""
    return b_w * (dense_params(model) + model.n_moe_layers * model.expert_params * distinct_experts(B, model))


def kv_bytes(B, S, kv_copies, model: ModelSpec = DEEPSEEK_R1, b_kv: float = FP8_BYTES):
    """KV bytes one decode step of B sequences of S tokens reads (windowed layers capped, recurrent state held)."""
    return np.asarray(B, dtype=float) * request_bytes(model, b_kv, S, kv_copies)


def decode_flops(B, S, model: ModelSpec = DEEPSEEK_R1):
    """Weight GEMMs plus attention: each query head scores and weighs every token a layer keeps (a windowed layer's
    window at most; a recurrent layer none), over d_c + d_r and d_c in MLA's absorbed form, d_h and d_h in GQA."""
    B = np.asarray(B, dtype=float)
    scores, values = (model.kv_latent, model.kv_lora_rank) if model.kv_latent else (model.d_head, model.d_head)
    attention = 2.0 * B * model.n_q_heads * layer_tokens(model, S) * (scores + values)
    return 2.0 * B * model.p_active + attention


def decode_work(tokens, S, model: ModelSpec = DEEPSEEK_R1, expert_rate=1.0):
    """`decode_flops` of a step scoring `tokens` tokens with the routed experts' GEMM FLOPs divided by
    `expert_rate`: FLOPs at the dense GEMMs' rate that take as long.

    A routed expert multiplies only the tokens sent to it, gathered from the batch and scattered back after: a
    grouped GEMM of few rows per expert, slower per FLOP than the shared weights' one GEMM over every token.
    """
    tokens = np.asarray(tokens, dtype=float)
    routed = model.n_moe_layers * model.experts_per_token * model.expert_params if model.is_moe else 0.0
    return decode_flops(tokens, S, model) + 2.0 * tokens * routed * (1.0 / expert_rate - 1.0)


def prefill_flops(isl, model: ModelSpec = DEEPSEEK_R1):
    """The article's prefill FLOPs: 2·P_active·S_in + 4·L·H·d_h·S_in²."""
    return E.t_prefill(isl, model, 1.0)


def comm_time(B, tp, model: ModelSpec = DEEPSEEK_R1):
    """The article's all-reduce term over NVLink, as the scenario adds it."""
    ic = INTERCONNECTS["nvlink"]
    B = np.asarray(B, dtype=float)
    tp = np.broadcast_to(np.asarray(tp), B.shape)
    out = np.zeros_like(B)
    for k in np.unique(tp):
        sel = tp == k
        out[sel] = E.t_allreduce(B[sel], int(k), model, FP8_BYTES, ic.bw, ic.alpha)
    return out


def attention_speed(gpu: str, precision: str = "fp8") -> float:
    """BF16 over the weights' tensor rate: prefill attention multiplies BF16 queries and keys whatever the
    weights' precision (FlashAttention/FlashMLA prefill kernels), so FP8 and FP4 weights do not speed it up."""
    return GPUS[gpu].bf16 / resources(gpu, precision)[1]


def resources(gpu: str, precision: str = "fp8"):
    """(HBM bytes/s, dense FLOP/s) of one GPU at the weights' precision.

    FP4 weights run at the FP4 tensor rate where the GPU has one; elsewhere they are
    widened to FP8 for the multiply (their bytes stay FP4).
    """
    spec = GPUS[gpu]
    peak = spec.peak(precision) or spec.fp8 or spec.bf16
    return spec.bw, peak


@dataclass(frozen=True)
class Instance:
    """What a prediction needs of the hardware: totals over the GPUs of one serving instance."""

    bw: float  # HBM bytes/s, all GPUs
    compute: float  # dense FLOP/s at the weights' precision, all GPUs
    gpus: float  # GPUs the per-GPU throughput divides by
    tp: float  # tensor-parallel size (all-reduce width)
    kv_copies: float  # copies of the KV cache read per step: tp, or 1 with data-parallel attention
    b_w: float = FP8_BYTES
    dp_attention: object = False  # attention data-parallel across the GPUs (bool, or one per row)
    hbm: object = np.inf  # HBM bytes, all GPUs (bounds the KV cache, hence the batch)
    b_kv: float = FP8_BYTES  # KV-cache bytes per element (every measured run keeps it in FP8)
    attention_speed: object = 1.0  # prefill attention FLOP/s as a share of `compute` (BF16 / weights' rate)
    poll_iterations: object = 1.0  # engine iterations between the scheduler's looks for new requests (`poll_interval`)


def instance(gpu: str, gpus, precision: str = "fp8", dp_attention=False) -> Instance:
    bw, peak = resources(gpu, precision)
    gpus = np.asarray(gpus, dtype=float)
    dp = np.asarray(dp_attention, dtype=bool) & (gpus > 1)
    kv_copies = np.where(dp, 1.0, gpus)
    return Instance(
        bw * gpus,
        peak * gpus,
        gpus,
        gpus,
        kv_copies,
        DTYPE_BYTES[precision],
        dp,
        GPUS[gpu].hbm * gpus,
        attention_speed=attention_speed(gpu, precision),
    )


# --- Predictions --------------------------------------------------------------------


def _step_parts(cal: Calibration, m: Instance, B, S, model: ModelSpec, tokens=None):
    """(HBM, arithmetic) seconds of one decode step of B sequences scoring `tokens` tokens (default B)."""
    tokens = B if tokens is None else tokens
    memory = weight_bytes(tokens, model, m.b_w) + kv_bytes(B, S, m.kv_copies, model, m.b_kv)
    work = decode_work(tokens, S, model, cal.expert_rate)
    return memory / (cal.bw_fraction * m.bw), work / (cal.compute_fraction * m.compute)


def prefill_time(cal: Calibration, m: Instance, isl, model: ModelSpec = DEEPSEEK_R1, B=1.0):
    """t_pf (s): one request's prefill, all weights read once plus its FLOPs at f_pf of dense peak.

    The weight GEMMs run at the weights' tensor rate, the attention at BF16's (`attention_speed`). With
    `chunked_prefill` the weights are read once per iteration for the batch of B it joins: 1/B of them each.
    """
    return sum(_prefill_parts(cal, m, isl, model, B))


def _prefill_parts(cal: Calibration, m: Instance, isl, model: ModelSpec, B=1.0):
    """`prefill_time`'s (HBM, arithmetic) seconds: every weight read once (its share of them, `chunked_prefill`),
    then the prompt's FLOPs."""
    attention = prefill_attention_flops(model, isl)
    gemms = decode_work(isl, 0.0, model, cal.expert_rate)  # the prompt's tokens through every weight GEMM
    compute = cal.prefill_fraction * m.compute
    share = 1.0 - cal.chunked_prefill + cal.chunked_prefill / np.maximum(np.asarray(B, dtype=float), 1.0)
    return (
        share * weight_bytes(np.inf, model, m.b_w) / (cal.bw_fraction * m.bw),
        (gemms + attention / np.asarray(m.attention_speed, dtype=float)) / compute,
    )


def attention_projection_params(model: ModelSpec = DEEPSEEK_R1) -> float:
    """Parameters of the attention projections of the layers that attend (`models.attention_params`)."""
    return attention_params(model)


def rank_attention_time(cal: Calibration, m: Instance, isl, model: ModelSpec = DEEPSEEK_R1):
    """Extra prefill time (s) of a prompt whose attention runs on one data-parallel rank instead of all n GPUs.

    With attention data parallelism a request lives on one of the n ranks: its attention projections and the
    quadratic attention of its prompt run on that GPU alone (n − 1 times longer than spread over n), while its
    MoE layers are spread over all n by expert parallelism. 0 without attention DP.
    """
    n = np.asarray(m.gpus, dtype=float)
    work = 2.0 * attention_projection_params(model) * np.asarray(isl, dtype=float) + prefill_attention_flops(
        model, isl
    ) / np.asarray(m.attention_speed, dtype=float)
    return np.where(m.dp_attention, work / (cal.prefill_fraction * m.compute) * (n - 1.0), 0.0)


def mtp_share(acceptance: float, model: ModelSpec) -> float:
    """Verify steps' worth of time per output token with MTP: each of the k drafts costs one layer's share of a
    step, and E[accepted] = (1 − α^(k+1)) / (1 − α) tokens come out per sequence (`engine.itl_speculative`)."""
    return (MTP_DRAFTS / model.n_layers + 1.0) / E.expected_accepted(MTP_DRAFTS, acceptance)


def decode_time(cal: Calibration, m: Instance, B, S, model: ModelSpec = DEEPSEEK_R1, mtp: bool = False, comms=True):
    """Seconds per output token of the decode phase alone (no prefills), comms included unless `comms` is
    False (a scenario adds those of its own interconnect: `Scenario.comm_time`).

    With MTP a verify step scores k + 1 tokens per sequence (more experts touched, more
    FLOPs, the same KV read), spread over the tokens accepted (`mtp_share`).
    """
    B = np.asarray(B, dtype=float)
    tokens = B * (MTP_DRAFTS + 1) if mtp else B
    step = cal.step_overhead_s + sum(_step_parts(cal, m, B, S, model, tokens))
    if comms:
        step = step + comm_time(tokens, m.tp, model)
    return step * mtp_share(cal.acceptance, model) if mtp else step


def dp_balance_wait(cal: Calibration, m: Instance, arrivals, iteration):
    """Time a new request waits to be scheduled with attention data parallelism (s).

    The scheduler holds new requests until every one of the n ranks has one, so that their
    prefills run together: n·H_n / λ for arrivals at rate λ (coupon collecting, H_n the
    harmonic number), capped by a timeout of w_dp iterations; the two combine as a soft
    minimum, 1 / (1/a + 1/b).
    """
    n = np.maximum(np.asarray(m.gpus, dtype=float), 1.0)
    harmonic = np.log(n) + 0.5772 + 0.5 / n  # H_n to within 1 % for n ≥ 1
    collect = n * harmonic / np.maximum(arrivals, 1e-12)
    timeout = cal.dp_wait_steps * iteration
    return collect * timeout / (collect + timeout + 1e-30)


# How often the server looks for new requests, from InferenceX's launch scripts (benchmarks/dsr1_*.sh): SGLang on
# B200 polls its request queue every `--scheduler-recv-interval` iterations (10, or 30 from 16 users up; FP8 on 4
# GPUs always 10), SGLang on MI300X and MI355X runs `--num-continuous-decode-steps 4` decode steps between looks.
# Every other recipe (H200 SGLang, TRT, ATOM) looks at every iteration. A server setting, not a fitted number.
def poll_interval(gpu: str, framework: str, precision: str, concurrency, gpus) -> np.ndarray:
    """Engine iterations between two looks of the scheduler at its queue of new requests, per InferenceX's recipe."""
    concurrency, gpus = np.asarray(concurrency, dtype=float), np.asarray(gpus, dtype=float)
    stack = base_framework(framework)
    if (gpu, stack) == ("b200", "sglang"):
        every_ten = (concurrency < 16) | ((precision == "fp8") & (gpus == 4))
        return np.where(every_ten, 10.0, 30.0)
    if stack == "sglang" and gpu in ("mi300x", "mi355x"):
        return np.full(concurrency.shape, 4.0)
    return np.ones(concurrency.shape)


def scenario_poll_interval(gpu: str, framework: str, precision: str) -> float:
    """The one polling interval a scenario (the page, `inferx point`) uses at every batch: the recipe's setting
    on 8 GPUs from 16 users up, where most of each measured sweep lies. A row's recipe may change it with the
    concurrency or the GPU count (B200 SGLang: 10 below 16 users, `poll_interval`), but a scenario's batch is not
    a recipe's concurrency, and one value per GPU, stack and precision keeps its TTFT continuous in B and the
    calibration line (which follows those three) true. 1 for a GPU outside the catalog."""
    if gpu not in GPUS:
        return 1.0
    return float(poll_interval(gpu, framework, precision, np.inf, 8))


# The batch over which a new request comes to wait the whole polling interval: InferenceX's B200 SGLang runs (a
# look every 10 iterations below 16 users) show no extra TTFT from 1 to 4 users, +38 ms at 8 (1k/1k FP8) and the
# full N/2 by 16, not a step at the second user.
POLL_BUSY_USERS = 8.0


def poll_wait(poll_iterations, B):
    """Iterations a new request waits before the scheduler takes it: N/2 behind N decode iterations between looks,
    1/2 (the iteration in flight) on an idle server; the two joined by the busy share 1 − e^(−(B − 1)/8), which
    grows smoothly with the batch (`POLL_BUSY_USERS`), so TTFT has no step at B = 2."""
    busy = 1.0 - np.exp(-np.maximum(np.asarray(B, dtype=float) - 1.0, 0.0) / POLL_BUSY_USERS)
    return 0.5 + busy * (np.asarray(poll_iterations, dtype=float) - 1.0) / 2.0


def at_batch(cal, m: Instance, B, isl, osl, model: ModelSpec = DEEPSEEK_R1, mtp: bool = False) -> dict:
    """Every calibrated quantity at decode batch B (s, tokens/s): TPOT, TTFT, prefill, decode share."""
    B = np.asarray(B, dtype=float)
    isl, osl = np.asarray(isl, dtype=float), np.asarray(osl, dtype=float)
    S = isl + osl / 2.0
    t_dec = decode_time(cal, m, B, S, model, mtp)
    # One decode iteration emits E[accepted] tokens per sequence with MTP; a new request waits on iterations.
    iteration = t_dec * (E.expected_accepted(MTP_DRAFTS, cal.acceptance) if mtp else 1.0)
    t_pf = prefill_time(cal, m, isl, model, B)
    stall = B / osl * t_pf
    tpot = t_dec + stall
    u = stall / tpot  # share of the engine's time in prefill; < 1 for any finite step
    # A new request waits for the scheduler's next look at its queue: every N iterations while others decode
    # (N/2 on average), half an iteration on an idle server (`poll_interval`).
    wait = iteration * (poll_wait(m.poll_iterations, B) + (cal.first_token_steps if mtp else 0.0))
    wait = wait + np.where(m.dp_attention, dp_balance_wait(cal, m, B / (osl * tpot), iteration), 0.0)
    # A prompt longer than one chunk waits for the decode iterations between its chunks.
    wait = wait + np.maximum(isl / PREFILL_CHUNK_TOKENS - 1.0, 0.0) * iteration
    queue = cal.prefill_queue * np.maximum(B - 1.0, 0.0) * t_pf
    # With attention data parallelism the request's own prompt has its attention done by one rank alone; the
    # engine's stall (u, TPOT) is unchanged, as the balanced ranks prefill one prompt each at the same time.
    own = t_pf + rank_attention_time(cal, m, isl, model)
    ttft = cal.request_overhead_s + cal.admission_s * B + own + wait + u * t_pf / (2.0 * (1.0 - u)) + queue
    return {"tpot": tpot, "ttft": ttft, "t_prefill": t_pf, "t_decode": t_dec, "prefill_share": u}


def kv_capacity(m: Instance, tokens, model: ModelSpec = DEEPSEEK_R1):
    """Requests of `tokens` tokens whose KV cache fits: η · (HBM − weights) / (tokens · κ · copies), at least 1
    (`models.request_bytes`: windowed layers capped, a recurrent state held once).

    η = KV_MEMORY_FRACTION of what the weights leave goes to the cache (the rest: activations,
    graphs); each request's cache is held `kv_copies` times (once per GPU under tensor
    parallelism of MLA).
    """
    free = KV_MEMORY_FRACTION * (m.hbm - model.p_total * m.b_w)
    return np.maximum(free / request_bytes(model, m.b_kv, tokens, m.kv_copies), 1.0)


def closed_loop(cal, m: Instance, concurrency, isl, osl, model: ModelSpec = DEEPSEEK_R1, mtp=False, iterations=40):
    """Calibrated TPOT, TTFT, E2E (s) and output tokens/s per GPU of a closed-loop benchmark.

    `concurrency` users each send a request of `isl` input tokens, read its `osl` output
    tokens and send the next. By Little's law the decode batch is the concurrency times
    the share of a request's life spent decoding; a fixed point finds it. When that batch
    would not fit in the KV cache, the batch is the cache's capacity and the other users wait
    for a free slot: their wait joins the TTFT so that C = B · (TTFT + OSL·TPOT) / (OSL·TPOT).
    """
    C = np.asarray(concurrency, dtype=float)
    osl_ = np.asarray(osl, dtype=float)
    # The requests the cache holds: each its prompt and the share of its answer the stack reserves (all of it unless
    # the calibration says pages are taken per token: `Calibration.answer_reserved`).
    cap = kv_capacity(m, np.asarray(isl, dtype=float) + np.asarray(cal.answer_reserved) * osl_, model)
    B = np.minimum(C, cap)
    for _ in range(iterations):
        r = at_batch(cal, m, B, isl, osl, model, mtp)
        decoding = osl_ * r["tpot"]
        B = 0.5 * B + 0.5 * np.minimum(C * decoding / (r["ttft"] + decoding), cap)
    r = at_batch(cal, m, B, isl, osl, model, mtp)
    decoding = osl_ * r["tpot"]
    ttft = np.maximum(r["ttft"], C * decoding / B - decoding)  # the slot wait, where the cache is full
    e2e = ttft + decoding
    return {
        **r,
        "ttft": ttft,
        "batch": B,
        "e2e": e2e,
        "throughput_per_gpu": C * osl_ / e2e / m.gpus,
        "interactivity": 1.0 / r["tpot"],
    }


def run_throughput(throughput, e2e, stall):
    """Output tok/s over a whole benchmark run that lost `stall` seconds once (s; tok/s as `throughput`).

    A closed-loop run of C users sends RUN_PROMPTS_PER_USER · C prompts, so in steady state it lasts
    RUN_PROMPTS_PER_USER · E2E; a server that holds its first requests once (a kernel compiled on first use, a
    cold cache) adds the stall to the run's duration without moving the median latencies:
    throughput · N·E2E / (N·E2E + stall). With no stall it is the steady throughput.
    """
    steady = RUN_PROMPTS_PER_USER * np.asarray(e2e, dtype=float)
    return np.asarray(throughput, dtype=float) * steady / (steady + np.asarray(stall, dtype=float))


# --- Stored calibration ---------------------------------------------------------------


# --- A Scenario in calibrated mode ------------------------------------------------------


def resource_times(cal, m: Instance, B, S, isl, osl, model: ModelSpec = DEEPSEEK_R1, mtp=False):
    """(HBM, arithmetic) seconds per output token at decode batches B and context S: the decode step's two
    resource terms (a verify step's, spread over its drafts and accepted tokens, where `mtp`) plus those of the
    B/OSL prefills that stall each step."""
    B, mtp = np.asarray(B, dtype=float), np.asarray(mtp, dtype=bool)
    share = np.where(mtp, mtp_share(cal.acceptance, model), 1.0)
    memory, compute = _step_parts(cal, m, B, S, model, np.where(mtp, B * (MTP_DRAFTS + 1), B))
    pf_memory, pf_compute = _prefill_parts(cal, m, isl, model, B)
    stall = B / np.asarray(osl, dtype=float)
    return share * memory + stall * pf_memory, share * compute + stall * pf_compute


def busy_share(memory, compute, per_token):
    """The share of each output token's time a GPU spends streaming HBM or computing (decode steps and the
    prefills that stall them); the rest goes to the fixed step cost and the collectives."""
    return np.clip((np.asarray(memory) + np.asarray(compute)) / np.asarray(per_token), 0.0, 1.0)


# --- The article's model on measured points --------------------------------------------


def predict_article(
    gpu: str, batch, isl, osl, gpus, model: ModelSpec = DEEPSEEK_R1, bw_per_gpu=None, article_per_gpu=None
):
    """The article's ITL (t_step + all-reduce) at B = concurrency, S = isl + osl/2, n × per-GPU specs.

    Compute is the figure the article's table uses for its presets (sparse FP8 on NVIDIA), else dense FP8.
    """
    spec = GPUS[gpu]
    preset = HARDWARE.get(FAMILY_PRESET.get(gpu, ""))
    article = preset.compute / preset.n_gpus if preset else spec.fp8 or spec.bf16
    gpus = np.asarray(gpus, dtype=float)
    batch = np.asarray(batch, dtype=float)
    S = np.asarray(isl) + np.asarray(osl) / 2.0
    kappa = E.kv_bytes_per_token(model, FP8_BYTES)
    bw, compute = (bw_per_gpu or spec.bw) * gpus, (article_per_gpu or article) * gpus
    itl = E.t_step(batch, S, model, FP8_BYTES, kappa, bw, compute) + comm_time(batch, gpus, model)
    return {"tpot": itl, "throughput_per_gpu": batch / itl / gpus}


def predict_closed_loop(cal, gpu, batch, isl, osl, gpus, dp_attention=False, model=DEEPSEEK_R1, bw_per_gpu=None,
                        dense_per_gpu=None, precision="fp8", mtp=False, hbm_per_gpu=None) -> dict:  # fmt: skip
    """`closed_loop` at concurrency `batch` on `gpus` GPUs of the catalog GPU `gpu` (specs overridable)."""
    bw, peak = resources(gpu, precision)
    gpus = np.asarray(gpus, dtype=float)
    dp = np.asarray(dp_attention, dtype=bool) & (gpus > 1)
    m = Instance((bw_per_gpu or bw) * gpus, (dense_per_gpu or peak) * gpus, gpus, gpus, np.where(dp, 1.0, gpus),
                 DTYPE_BYTES[precision], dp, (hbm_per_gpu or GPUS[gpu].hbm) * gpus,
                 attention_speed=GPUS[gpu].bf16 / (dense_per_gpu or peak))  # fmt: skip
    return closed_loop(cal, m, batch, isl, osl, model, mtp)


def base_framework(framework: str) -> str:
    """The engine under a disaggregating orchestrator: dynamo-sglang and mori-sglang run sglang."""
    for prefix in ("dynamo-", "mori-"):
        if framework.startswith(prefix):
            return framework[len(prefix) :]
    return framework
