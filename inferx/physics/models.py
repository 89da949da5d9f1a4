"""The model catalog: one entry per model, and what the physics derives from it.

Each entry is a `ModelSpec` whose sizes come from the model's published
`config.json` (linked in `source`) or its paper; a comment says where a number is
derived rather than copied. Functions below turn an entry into the quantities the
roofline needs: KV bytes per token κ, weight bytes, FLOPs per token, the prefill
attention term and the expected number of distinct experts a batch touches.
Units are SI (bytes, FLOP); dtype sizes are bytes per number (`DTYPE_BYTES`).
"""

from __future__ import annotations

from dataclasses import asdict

import numpy as np

from inferx.physics.model_config import spec_from_key
from inferx.physics.model_spec import DTYPE_BYTES, Catalog, ModelSpec

# --- The catalog ------------------------------------------------------------------

HF = "https://huggingface.co/{}/blob/main/config.json"

# DeepSeek-R1 (DeepSeek-V3 architecture; config.json and the DeepSeek-V3 report, arXiv 2412.19437):
# num_hidden_layers 61, hidden_size 7168, num_attention_heads 128, kv_lora_rank 512, qk_rope_head_dim 64,
# qk_nope_head_dim = v_head_dim = 128 (the d_h of the article's prefill term), n_routed_experts 256,
# num_experts_per_tok 8, n_shared_experts 1, first_k_dense_replace 3, moe_intermediate_size 2048
# (one expert = gate, up and down matrices: 3 · 7168 · 2048), vocab_size 129280.
# 671e9 total and 37e9 active are the report's (the 14e9 multi-token-prediction module is not served);
# summing the config's matrices gives 670.9e9 and 37.4e9.
DEEPSEEK_R1 = ModelSpec(
    name="DeepSeek-R1",
    p_total=671e9,
    p_active=37e9,
    n_layers=61,
    d_model=7168,
    n_q_heads=128,
    d_head=128,
    attention="mla",
    kv_lora_rank=512,
    d_rope=64,
    n_routed_experts=256,
    experts_per_token=8,
    n_shared_experts=1,
    n_dense_layers=3,
    expert_params=3 * 7168 * 2048,
    vocab_size=129_280,
    source=HF.format("deepseek-ai/DeepSeek-R1"),
)

# Kimi-K2 (moonshotai/Kimi-K2-Instruct config.json, DeepSeek-V3 architecture): num_hidden_layers 61,
# hidden_size 7168, num_attention_heads 64, kv_lora_rank 512, qk_rope_head_dim 64, qk_nope_head_dim =
# v_head_dim = 128, n_routed_experts 384, num_experts_per_tok 8, n_shared_experts 1, first_k_dense_replace 1,
# moe_intermediate_size 2048, vocab_size 163840. 32e9 active is the model card's; its "1T total" is
# rounded, so the total is derived: the config's matrices sum to 1.026e12.
KIMI_K2 = ModelSpec(
    name="Kimi-K2",
    p_total=1.026e12,
    p_active=32e9,
    n_layers=61,
    d_model=7168,
    n_q_heads=64,
    d_head=128,
    attention="mla",
    kv_lora_rank=512,
    d_rope=64,
    n_routed_experts=384,
    experts_per_token=8,
    n_shared_experts=1,
    n_dense_layers=1,
    expert_params=3 * 7168 * 2048,
    vocab_size=163_840,
    source=HF.format("moonshotai/Kimi-K2-Instruct"),
)

# Qwen3-235B-A22B (config.json): num_hidden_layers 94, hidden_size 4096, num_attention_heads 64,
# num_key_value_heads 4, head_dim 128, num_experts 128, num_experts_per_tok 8, no shared expert,
# every layer MoE (mlp_only_layers empty), moe_intermediate_size 1536, vocab_size 151936.
# 235e9 total and 22e9 active are the model card's; the config's matrices sum to 235.0e9 and 22.1e9.
QWEN3_235B = ModelSpec(
    name="Qwen3-235B-A22B",
    p_total=235e9,
    p_active=22e9,
    n_layers=94,
    d_model=4096,
    n_q_heads=64,
    d_head=128,
    attention="gqa",
    n_kv_heads=4,
    n_routed_experts=128,
    experts_per_token=8,
    expert_params=3 * 4096 * 1536,
    vocab_size=151_936,
    source=HF.format("Qwen/Qwen3-235B-A22B"),
)

# gpt-oss-120b (config.json and the gpt-oss model card, arXiv 2508.10925): num_hidden_layers 36,
# hidden_size 2880, num_attention_heads 64, num_key_value_heads 8, head_dim 64, num_local_experts 128,
# experts_per_token 4, intermediate_size 2880 (one expert: 3 · 2880 · 2880, biases left out),
# sliding_window 128 on the even layers (layer_types alternates sliding/full from layer 0), vocab 201088.
# 116.83e9 total and 5.13e9 active (embedding excluded) are the model card's.
GPT_OSS_120B = ModelSpec(
    name="gpt-oss-120b",
    p_total=116.83e9,
    p_active=5.13e9,
    n_layers=36,
    d_model=2880,
    n_q_heads=64,
    d_head=64,
    attention="gqa",
    n_kv_heads=8,
    sliding_window=128,
    window_layers=tuple(range(0, 36, 2)),
    n_routed_experts=128,
    experts_per_token=4,
    expert_params=3 * 2880 * 2880,
    vocab_size=201_088,
    source=HF.format("openai/gpt-oss-120b"),
)

# Qwen3-Next-80B-A3B-Instruct (config.json): num_hidden_layers 48, every 4th (full_attention_interval 4) a gated
# GQA attention layer (num_attention_heads 16, num_key_value_heads 2, head_dim 256), the other 36 Gated DeltaNet
# linear attention (linear_num_key_heads 16, linear_num_value_heads 32, head dims 128, conv kernel 4), which keep
# a state of 32 · 128 · 128 + 3 · 8192 numbers each (16 bits) instead of a KV cache; hidden_size 2048,
# num_experts 512, num_experts_per_tok 10, moe_intermediate_size 512, one shared expert as wide, vocab 151936.
# 79.67e9 total and 3.564e9 active are the config's sums (inferx.model_config); Qwen quotes 80B and 3B.
QWEN3_NEXT_80B = ModelSpec(
    name="Qwen3-Next-80B-A3B",
    p_total=79.67e9,
    p_active=3.564e9,
    n_layers=48,
    d_model=2048,
    n_q_heads=16,
    d_head=256,
    attention="gqa",
    n_kv_heads=2,
    state_layers=tuple(i for i in range(48) if i % 4 != 3),
    state_bytes=36 * (32 * 128 * 128 + 3 * (2 * 2048 + 4096)) * 2.0,
    n_routed_experts=512,
    experts_per_token=10,
    expert_params=3 * 2048 * 512,
    vocab_size=151_936,
    source=HF.format("Qwen/Qwen3-Next-80B-A3B-Instruct"),
)

# Llama-4-Scout-17B-16E-Instruct (config.json's text_config): num_hidden_layers 48, hidden_size 5120,
# num_attention_heads 40, num_key_value_heads 8, head_dim 128, num_local_experts 16, num_experts_per_tok 1, and
# a shared expert as wide (intermediate_size 8192) in every layer; attention_chunk_size 8192 on the RoPE layers
# (all but every 4th), read as a window of one chunk; vocab 202048. 107.77e9 total and 16.14e9 active are the
# language model's sums; Meta quotes 109B (with the vision encoder) and 17B.
LLAMA4_SCOUT = ModelSpec(
    name="Llama-4-Scout",
    p_total=107.77e9,
    p_active=16.14e9,
    n_layers=48,
    d_model=5120,
    n_q_heads=40,
    d_head=128,
    attention="gqa",
    n_kv_heads=8,
    sliding_window=8192,
    window_layers=tuple(i for i in range(48) if i % 4 != 3),
    n_routed_experts=16,
    experts_per_token=1,
    n_shared_experts=1,
    expert_params=3 * 5120 * 8192,
    vocab_size=202_048,
    source=HF.format("meta-llama/Llama-4-Scout-17B-16E-Instruct"),
)

# Gemma-3-27B (config.json's text_config, transformers' defaults where it is silent): num_hidden_layers 62,
# hidden_size 5376, num_attention_heads 32, num_key_value_heads 16, head_dim 128, intermediate_size 21504,
# sliding_window 1024 on five layers of every six (sliding_window_pattern 6), vocab 262208, embeddings tied.
# 27.01e9 is the language model's sum.
GEMMA3_27B = ModelSpec(
    name="Gemma-3-27B",
    p_total=27.01e9,
    p_active=27.01e9,
    n_layers=62,
    d_model=5376,
    n_q_heads=32,
    d_head=128,
    attention="gqa",
    n_kv_heads=16,
    sliding_window=1024,
    window_layers=tuple(i for i in range(62) if i % 6 != 5),
    vocab_size=262_208,
    source=HF.format("google/gemma-3-27b-it"),
)

# Llama-3.3-70B-Instruct (config.json; Llama 3 70B has the same one): num_hidden_layers 80,
# hidden_size 8192, num_attention_heads 64, num_key_value_heads 8, head_dim 8192/64 = 128,
# vocab_size 128256. 70.6e9 is the checkpoint's parameter count rounded (70.55e9 summed).
LLAMA33_70B = ModelSpec(
    name="Llama-3.3-70B",
    p_total=70.6e9,
    p_active=70.6e9,
    n_layers=80,
    d_model=8192,
    n_q_heads=64,
    d_head=128,
    attention="gqa",
    n_kv_heads=8,
    vocab_size=128_256,
    source=HF.format("meta-llama/Llama-3.3-70B-Instruct"),
)

# Llama-3.1-405B (config.json): num_hidden_layers 126, hidden_size 16384, num_attention_heads 128,
# num_key_value_heads 8, head_dim 128, intermediate_size 53248, vocab_size 128256.
# 405.85e9 is derived: 126 · (attention 570.4e6 + FFN 3 · 16384 · 53248) + 2 · 128256 · 16384.
LLAMA31_405B = ModelSpec(
    name="Llama-3.1-405B",
    p_total=405.85e9,
    p_active=405.85e9,
    n_layers=126,
    d_model=16384,
    n_q_heads=128,
    d_head=128,
    attention="gqa",
    n_kv_heads=8,
    vocab_size=128_256,
    source=HF.format("meta-llama/Llama-3.1-405B"),
)

# Llama-3-8B (config.json): num_hidden_layers 32, hidden_size 4096, num_attention_heads 32,
# num_key_value_heads 8, head_dim 128, intermediate_size 14336, vocab_size 128256; 8.03e9 parameters.
LLAMA3_8B = ModelSpec(
    name="Llama-3-8B",
    p_total=8.03e9,
    p_active=8.03e9,
    n_layers=32,
    d_model=4096,
    n_q_heads=32,
    d_head=128,
    attention="gqa",
    n_kv_heads=8,
    vocab_size=128_256,
    source=HF.format("meta-llama/Meta-Llama-3-8B"),
)

# Llama-2-13B (config.json): num_hidden_layers 40, hidden_size 5120, num_attention_heads 40,
# num_key_value_heads 40 (multi-head attention), head_dim 128, intermediate_size 13824, vocab 32000.
# 13.02e9 is derived: 40 · (4 · 5120² + 3 · 5120 · 13824) + 2 · 32000 · 5120.
LLAMA2_13B = ModelSpec(
    name="Llama-2-13B",
    p_total=13.02e9,
    p_active=13.02e9,
    n_layers=40,
    d_model=5120,
    n_q_heads=40,
    d_head=128,
    attention="mha",
    n_kv_heads=40,
    vocab_size=32_000,
    source=HF.format("meta-llama/Llama-2-13b-hf"),
)


MODELS: Catalog[str, ModelSpec] = Catalog(
    {
        "deepseek-r1": DEEPSEEK_R1,
        "kimi-k2": KIMI_K2,
        "qwen3-235b-a22b": QWEN3_235B,
        "gpt-oss-120b": GPT_OSS_120B,
        "qwen3-next-80b-a3b": QWEN3_NEXT_80B,
        "llama-4-scout": LLAMA4_SCOUT,
        "gemma-3-27b": GEMMA3_27B,
        "llama-3.3-70b": LLAMA33_70B,
        "llama-3.1-405b": LLAMA31_405B,
        "llama-3-8b": LLAMA3_8B,
        "llama-2-13b": LLAMA2_13B,
    },
    spec_from_key,
    "model",
    "config.json",
)


# The `model` of InferenceX's API rows is its database key, not the display name the API is asked for
# (`?model=DeepSeek-R1-0528` answers rows of `dsr1`): the keys of the catalog's models.
INFERENCEX_ROW_KEYS = {"dsr1": "deepseek-r1", "gptoss120b": "gpt-oss-120b", "llama70b": "llama-3.3-70b"}


def catalog_key(display_name: str) -> str | None:
    """The catalog key of a model as InferenceX names it, by display name (`DeepSeek-R1-0528`,
    `Llama-3.3-70B-Instruct-FP8`: the entry whose name it starts with, followed by nothing or a dash; `Kimi-K2.5`
    is not `Kimi-K2`) or by the key of its API rows (`dsr1`)."""
    text = display_name.strip().lower()
    if text in INFERENCEX_ROW_KEYS:
        return INFERENCEX_ROW_KEYS[text]
    for key, model in MODELS.items():
        name = model.name.lower()
        if text.startswith(name) and text[len(name) : len(name) + 1] in ("", "-"):
            return key
    return None


# --- Derived quantities -------------------------------------------------------------


def layer_tokens(model: ModelSpec, context):
    """Σ over layers of the tokens each layer caches for a context of S tokens."""
    S = np.asarray(context, dtype=float)
    return model.n_full_layers * S + model.n_window_layers * np.minimum(S, model.sliding_window)


def kv_bytes_per_sequence(model: ModelSpec, b_kv: float, context):
    """KV-cache bytes one sequence of `context` tokens holds (and a decode step reads), with the recurrent layers'
    state, the same at any context. A step also writes that state back, which this does not count."""
    return model.kv_elements_per_layer * b_kv * layer_tokens(model, context) + model.state_bytes


def request_bytes(model: ModelSpec, b_kv: float, context, kv_copies=1.0):
    """Bytes one request holds, and a step reads, on a machine whose tensor-parallel group keeps `kv_copies` of
    each KV cache (`kv_copies`): the copies of its cache, and its recurrent state once, split by head."""
    return (kv_bytes_per_sequence(model, b_kv, context) - model.state_bytes) * kv_copies + model.state_bytes


def kv_bytes_per_token(model: ModelSpec, b_kv: float, context=None):
    """κ, bytes per token of context: L · (KV numbers per layer) · b_kv, L the layers with a KV cache.

    With windowed or recurrent layers κ depends on the context: windowed layers stop
    growing past their window and a recurrent state is the same at any context, so
    κ(S) = kv_bytes_per_sequence(S) / S. Without `context` (or for contexts inside the
    window) every KV layer counts, and no recurrent state.
    """
    if context is None:
        return model.n_kv_layers * model.kv_elements_per_layer * b_kv
    return kv_bytes_per_sequence(model, b_kv, context) / np.asarray(context, dtype=float)


def kv_copies(model: ModelSpec, tp) -> float:
    """Copies of each request's KV cache a tensor-parallel group of `tp` GPUs holds: MLA's latent is not split by
    head, so every GPU keeps all of it (tp copies); MHA and GQA split their KV heads across the GPUs, and only a
    group wider than the heads repeats them (tp / heads copies, at least one)."""
    return float(tp) if model.attention == "mla" else max(1.0, tp / model.n_kv_heads)


def weight_bytes(model: ModelSpec, b_w: float) -> float:
    """P_total · b_w: bytes of weights held in HBM."""
    return model.p_total * b_w


def flops_per_token(model: ModelSpec) -> float:
    """2 · P_active: one multiply and one add per active parameter."""
    return 2.0 * model.p_active


def prefill_attention_coefficient(model: ModelSpec) -> float:
    """The S² coefficient of prefill attention FLOPs, 4 · L_full · H · d_h.

    The article's 4·L·H·d_h·S² (scores and the weighted sum of values, 2 FLOP per
    multiply-add each, no causal halving) counts only the layers that attend to the
    whole prompt; windowed layers add a term linear in S (`prefill_attention_flops`).
    """
    return 4.0 * model.n_full_layers * model.n_q_heads * model.d_head


def prefill_attention_flops(model: ModelSpec, S_in):
    """4 · H · d_h · S · Σ_layers min(S, window): the article's quadratic term with windows capped."""
    S = np.asarray(S_in, dtype=float)
    return 4.0 * model.n_q_heads * model.d_head * S * layer_tokens(model, S)


def prefill_flops(model: ModelSpec, S_in):
    """2 · P_active · S + attention FLOPs for a prompt of S tokens."""
    return flops_per_token(model) * np.asarray(S_in, dtype=float) + prefill_attention_flops(model, S_in)


def expected_distinct_experts(model: ModelSpec, B):
    """E · (1 − (1 − k/E)^B): routed experts per MoE layer that B tokens touch, uniform routing (0 if dense)."""
    if not model.is_moe:
        return np.zeros_like(np.asarray(B, dtype=float))
    E, k = model.n_routed_experts, model.experts_per_token
    return E * (1.0 - (1.0 - k / E) ** np.asarray(B, dtype=float))


def dense_params(model: ModelSpec) -> float:
    """Parameters every step reads whatever the routing: P_total minus all routed experts."""
    return model.p_total - model.n_moe_layers * model.n_routed_experts * model.expert_params


def params_read_per_step(model: ModelSpec, B):
    """Parameters one decode step of B tokens reads: the dense part plus the experts it touches."""
    return dense_params(model) + model.n_moe_layers * model.expert_params * expected_distinct_experts(model, B)


# DeepSeek-V3-architecture query compression (config.json q_lora_rank 1536 in DeepSeek-V2/V3/R1 and Kimi-K2): a
# ModelSpec keeps no query rank, so every MLA model is taken to compress its queries so (an approximation).
Q_LORA_RANK = 1536


def attention_params(model: ModelSpec) -> float:
    """Parameters of the attention projections of the layers that attend (a hybrid's recurrent layers have none):
    GQA/MHA 2·d·H·d_h + 2·d·n_kv·d_h per layer (q and o, k and v); MLA d·r_q + r_q·H·(d_h + d_r) (low-rank query,
    r_q = Q_LORA_RANK) + d·(d_c + d_r) + d_c·H·2·d_h (latent down, k and v up) + H·d_h·d (o) per layer. No biases,
    norms or output gates. DeepSeek-R1: 187.1e6 a layer, 11.4e9 over its 61 layers."""
    d, H, dh = model.d_model, model.n_q_heads, model.d_head
    if model.attention == "mla":
        per = (d * Q_LORA_RANK + Q_LORA_RANK * H * (dh + model.d_rope) + d * (model.kv_lora_rank + model.d_rope)
               + model.kv_lora_rank * H * 2 * dh + H * dh * d)  # fmt: skip
    else:
        per = 2 * d * H * dh + 2 * d * model.n_kv_heads * dh
    return float(model.n_kv_layers * per)


def replicated_params(model: ModelSpec, tp, dp) -> float:
    """(N − 1) · P_attn: parameters that attention data parallelism over N = `tp` GPUs holds, and a step reads, beyond
    one tensor-parallel copy. Each GPU keeps all the attention weights instead of 1/N of them (`attention_params`,
    at most the non-expert parameters `dense_params`); the experts, dense MLPs and embeddings stay split. 0 without
    DP or on one GPU."""
    if not dp or tp <= 1:
        return 0.0
    return (tp - 1) * min(attention_params(model), dense_params(model))


def model_record(key: str, model: ModelSpec) -> dict:
    """One catalog entry in user units, as `inferx models` lists it (κ in bytes per token, sizes in GB)."""
    bf16, fp8 = DTYPE_BYTES["bf16"], DTYPE_BYTES["fp8"]
    record = {"key": key, **asdict(model), "window_layers": list(model.window_layers)}
    record["state_layers"] = list(model.state_layers)
    return record | {
        "kv_bytes_per_token_bf16": kv_bytes_per_token(model, bf16),
        "kv_bytes_per_token_fp8": kv_bytes_per_token(model, fp8),
        "kv_gb_per_8192_token_sequence_bf16": float(kv_bytes_per_sequence(model, bf16, 8192)) / 1e9,
        "weights_gb_bf16": weight_bytes(model, bf16) / 1e9,
        "weights_gb_fp8": weight_bytes(model, fp8) / 1e9,
    }
