"""The article's frontier model as small vectorised numpy functions.

Each function carries the article's name for its quantity. Batch size `B` and
context `S` may be scalars or numpy arrays; all units are SI (bytes, bytes/s,
FLOP/s, seconds, tokens/s). Nothing here knows about Dash.
"""

from __future__ import annotations

import numpy as np

from inferx.physics import models as M
from inferx.physics.model_spec import ModelSpec
from inferx.physics.models import prefill_attention_flops

# --- Roofline ------------------------------------------------------------------


def arithmetic_intensity(B, b_w):
    """I(B) = 2B·P_active / (P_active·b_w) = 2B / b_w, FLOP/byte."""
    return 2.0 * np.asarray(B, dtype=float) / b_w


def ridge_intensity(compute, bw):
    """I* = peak compute / HBM bandwidth, FLOP/byte."""
    return compute / bw


def ridge_batch(compute, bw, b_w, weight_reads=1.0):
    """B* = w · b_w · compute / (2 · BW): where I(B) meets I*. w = (P_active + R) / P_active, the parameters a step
    reads per parameter it computes with: 1 in the article's layout, more under attention data parallelism, whose
    GPUs each read the attention weights (R: `models.replicated_params`)."""
    return weight_reads * b_w * compute / (2.0 * bw)


def compute_bound_batch(S, model: ModelSpec, b_w, kappa, bw, compute, replicated=0.0) -> float:
    """The batch past which t_step's compute term 2·P_active·B / compute exceeds its memory term
    ((P_active + R)·b_w + B·S·κ) / BW: B* / (1 − S·κ·compute / (2·P_active·BW)), B* itself without KV reads. Each
    request's KV read grows the bytes with B as the FLOPs grow, so the bend comes later than B*, and never
    (∞) once S·κ ≥ 2·P_active·BW / compute."""
    kv_share = S * kappa * compute / (2.0 * model.p_active * bw)
    ridge = ridge_batch(compute, bw, b_w, (model.p_active + replicated) / model.p_active)
    return ridge / (1.0 - kv_share) if kv_share < 1.0 else np.inf


def compute_utilisation(B, b_w, compute, bw):
    """Fraction of peak compute used at batch B: min(1, I(B) / I*)."""
    return np.minimum(1.0, arithmetic_intensity(B, b_w) / ridge_intensity(compute, bw))


# --- KV cache ------------------------------------------------------------------


def kv_bytes_per_token(model: ModelSpec, b_kv):
    """κ = L · (KV elements per layer) · b_kv, bytes per token of context (L: the layers with a KV cache)."""
    return M.kv_bytes_per_token(model, b_kv)  # the one formula, in models


def bytes_per_step(B, S, model: ModelSpec, b_w, kappa, replicated=0.0):
    """Bytes_total(B, S) = (P_active + R)·b_w + B·S·κ; R = 0 in the article's tensor-parallel layout, the attention
    weights each GPU reads again under attention data parallelism (`models.replicated_params`)."""
    B = np.asarray(B, dtype=float)
    return (model.p_active + replicated) * b_w + B * S * kappa


def t_step(B, S, model: ModelSpec, b_w, kappa, bw, compute, replicated=0.0):
    """t_step(B, S) = max(((P_active + R)·b_w + B·S·κ) / BW, 2·P_active·B / compute), s (R: `bytes_per_step`)."""
    B = np.asarray(B, dtype=float)
    memory = bytes_per_step(B, S, model, b_w, kappa, replicated) / bw
    return np.maximum(memory, 2.0 * model.p_active * B / compute)


def throughput(B, step_time):
    """T(B) = B / t_step, tokens/s."""
    return np.asarray(B, dtype=float) / step_time


def kv_ceiling(S, kappa, bw):
    """T∞(S) = BW / (S·κ): the KV-cache throughput ceiling, tokens/s."""
    with np.errstate(divide="ignore"):
        return bw / (np.asarray(S, dtype=float) * kappa)


def kv_headroom(hbm, model: ModelSpec, b_w, replicated=0.0):
    """HBM_free = HBM − (P_total + R)·b_w, bytes (negative when the weights do not fit); R: the attention weights
    attention data parallelism holds once more on every GPU but one (`models.replicated_params`), else 0."""
    return hbm - (model.p_total + replicated) * b_w


def b_max(headroom, S, kappa, eta=1.0):
    """B_max(S) = floor(η · HBM_free / (S·κ)), at least 0."""
    return np.maximum(0, np.floor(eta * headroom / (np.asarray(S, dtype=float) * kappa))).astype(int)


# --- Latency -------------------------------------------------------------------


def t_prefill(S_in, model: ModelSpec, compute):
    """t_prefill(S_in) = (2·P_active·S_in + 4·L·H·d_h·S_in²) / compute, s; a layer with a sliding window
    attends to at most its window (models.prefill_attention_flops)."""
    S_in = np.asarray(S_in, dtype=float)
    linear = 2.0 * model.p_active * S_in
    return (linear + prefill_attention_flops(model, S_in)) / compute


def utilisation(B, B_max):
    """ρ = B / B_max (infinite when nothing fits)."""
    B = np.asarray(B, dtype=float)
    if np.ndim(B_max) == 0:  # one machine (the usual case): a plain division, no masks
        return B / B_max if B_max > 0 else np.full(B.shape, np.inf)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(B_max > 0, B / np.maximum(B_max, 1), np.inf)


def queue_wait(rho, step_time, cv):
    """(1 + CV²)/2 · t_step / (1 − ρ): the boxed TTFT's queueing term; ∞ when ρ ≥ 1.

    The article also writes a Pollaczek–Khinchine form with an extra factor ρ in
    the numerator; its boxed TTFT, its frontier equation and its figures all use
    this form (non-zero residual wait at ρ → 0), so we do too.
    """
    rho = np.asarray(rho, dtype=float)
    if rho.size and rho.max() < 1.0:  # every batch is stable (a frontier's grid): nothing to mask
        return (1.0 + cv**2) / 2.0 * step_time / (1.0 - rho)
    with np.errstate(divide="ignore", invalid="ignore"):
        wait = (1.0 + cv**2) / 2.0 * step_time / (1.0 - rho)
    return np.where(rho < 1.0, wait, np.inf)


def ttft(prefill, rho, step_time, cv):
    """TTFT = t_prefill + (1 + CV²)/2 · t_step / (1 − B/B_max), s."""
    return prefill + queue_wait(rho, step_time, cv)


def t_allreduce(B, tp, model: ModelSpec, b_act, ic_bw, ic_alpha):
    """t_AR(B, k) = L·2·(α + (k−1)/k · B·d_model·b / BW_IC); zero when k = 1. L·2 is the model's all-reduces per
    step (`ModelSpec.allreduces`: one per block, a layer's attention and MLP being two)."""
    B = np.asarray(B, dtype=float)
    if np.ndim(tp) == 0 and tp <= 1:  # one GPU per stage: no all-reduce, and nothing to compute
        return np.zeros(B.shape)
    cost = model.allreduces * (ic_alpha + (tp - 1) / tp * B * model.d_model * b_act / ic_bw)
    return cost if np.ndim(tp) == 0 else np.where(np.asarray(tp) > 1, cost, 0.0)


# --- Parallel layouts: attention data parallelism (DP) and expert parallelism (EP) across the N = TP GPUs -------
# The article's layout splits every layer across the N GPUs and all-reduces after each block. With DP each GPU runs
# attention for its own B/N requests with whole attention weights (`models.replicated_params`) and only their KV
# cache; the MLPs and experts stay spread over the N GPUs, fed by an all-gather and a reduce-scatter, which together
# move what the article's all-reduce moves (a ring all-reduce is those two), so each is priced as one. With EP each
# GPU holds whole experts, E/N of them, and a MoE layer dispatches each token's hidden state to the GPUs of its k
# experts and combines the answers back (two all-to-alls) instead of all-reducing.


def t_alltoall(B, tp, model: ModelSpec, b_act, ic_bw, ic_alpha):
    """t_A2A(B, N) = 2·L_moe·(α + (N−1)/N · (B/N)·k·d_model·b / BW_IC): each MoE layer's dispatch and combine. A GPU
    sends each of its B/N tokens' hidden states to its k experts, (N−1)/N of them on other GPUs, and the answers
    come back the same way. Zero for a dense model or N = 1."""
    B = np.asarray(B, dtype=float)
    moved = (tp - 1) / tp * (B / tp) * model.experts_per_token * model.d_model * b_act / ic_bw
    return 2.0 * model.n_moe_layers * (ic_alpha + moved) * (np.asarray(tp) > 1)


def layout_allreduces(model: ModelSpec, dp, ep):
    """All-reduces (or all-gather + reduce-scatter pairs, priced as one) a step makes in a layout: one after each
    layer's attention unless DP, one after each MLP or set of experts unless EP takes the experts' (`t_alltoall`).
    The article's layout (no DP, no EP): `ModelSpec.allreduces`."""
    mixers = model.n_layers  # one attention or mixer a layer; the rest of `allreduces` end an MLP or experts
    return np.where(dp, 0.0, mixers) + (model.allreduces - mixers) - np.where(ep, model.n_moe_layers, 0.0)


def t_collectives(B, tp, model: ModelSpec, b_act, ic_bw, ic_alpha, dp=False, ep=False):
    """A step's collectives across the N = `tp` GPUs of a stage, s: the article's `t_allreduce` in its layout;
    with DP or EP, `layout_allreduces` all-reduces at the article's price plus EP's `t_alltoall`. `dp` and `ep` may
    be arrays (one per scenario), and say nothing on one GPU or, for EP, on a dense model."""
    if not np.any(dp) and not np.any(ep):
        return t_allreduce(B, tp, model, b_act, ic_bw, ic_alpha)
    B = np.asarray(B, dtype=float)
    each = ic_alpha + (tp - 1) / tp * B * model.d_model * b_act / ic_bw
    ep = np.asarray(ep, dtype=float) if model.is_moe else 0.0
    cost = layout_allreduces(model, dp, ep) * each + ep * t_alltoall(B, tp, model, b_act, ic_bw, ic_alpha)
    return np.where(np.asarray(tp) > 1, cost, 0.0)


def t_prefill_rank(S_in, model: ModelSpec, compute, tp, dp):
    """What attention data parallelism adds to one prompt's prefill, s: its attention projections and quadratic
    attention run on its own GPU, 1/N of the compute, (N − 1)·(2·P_attn·S_in + A(S_in)) / compute more than spread
    over N (`models.attention_params`, `models.prefill_attention_flops`). 0 without DP or on one GPU."""
    S_in = np.asarray(S_in, dtype=float)
    work = 2.0 * M.attention_params(model) * S_in + prefill_attention_flops(model, S_in)
    return np.where(np.asarray(dp, dtype=bool) & (np.asarray(tp) > 1), (tp - 1) * work / compute, 0.0)


def t_pipeline(B, pp, model: ModelSpec, b_act, ic_bw, ic_alpha):
    """t_PP(B, m) = (m − 1)·(α + B·d_model·b / BW_IC); zero when m = 1."""
    B = np.asarray(B, dtype=float)
    if np.ndim(pp) == 0 and pp == 1:  # one stage: (m − 1) = 0, with nothing to compute
        return np.zeros(B.shape)
    return (pp - 1) * (ic_alpha + B * model.d_model * b_act / ic_bw)  # (m − 1) is already 0 at m = 1


def itl(step_time, comm_time):
    """ITL = t_step^dist = t_step + t_AR + t_PP, s."""
    return step_time + comm_time


def itl_floor(params, b_w, bw):
    """ITL_min = P·b_w / BW: one read of the weights, s."""
    return params * b_w / bw


def e2e_latency(ttft_s, n_out, itl_s):
    """E2E = TTFT + N_out · ITL, s."""
    return ttft_s + n_out * itl_s


# --- Economics -----------------------------------------------------------------


def cost_per_million_tokens(dollars_per_hour, tokens_per_s):
    """$/hour ÷ (3600 s/h · T / 10⁶)."""
    return dollars_per_hour / (3600.0 * np.asarray(tokens_per_s, dtype=float) / 1e6)


def tokens_per_joule(tokens_per_s, watts):
    """Token efficiency T / P, tokens per joule (= tok/s per W)."""
    return np.asarray(tokens_per_s, dtype=float) / watts


# --- Speculative decoding and SRAM ----------------------------------------------


def expected_accepted(k, alpha):
    """E[accept] = (1 − α^(k+1)) / (1 − α) tokens per verify step (k + 1 when α = 1)."""
    alpha = np.asarray(alpha, dtype=float)
    if alpha.ndim == 0 and alpha != 1.0:  # one rate below 1 (the usual case): no division by zero to mask
        return np.asarray((1.0 - alpha ** (k + 1)) / (1.0 - alpha))
    with np.errstate(divide="ignore", invalid="ignore"):
        value = (1.0 - alpha ** (k + 1)) / (1.0 - alpha)
    return np.where(alpha == 1.0, k + 1.0, value)


def itl_speculative(k, alpha, draft_step, verify_time, accepted=None):
    """ITL_eff = (k·δ + t_verify) / E[accept], s (`accepted`: E[accept] when the caller has it already)."""
    return (k * draft_step + verify_time) / (expected_accepted(k, alpha) if accepted is None else accepted)


def bandwidth_density(bw, capacity):
    """Bandwidth per byte of capacity, 1/s (bytes/s per byte = GB/s per GB)."""
    return bw / capacity


POWER_FRACTION = 1.0  # of board power: the article's tok/s/W divides by TDP
