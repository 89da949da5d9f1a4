"""Your own model: a Hugging Face `config.json` read into a catalog entry.

`spec_from_config` sums the parameters the config's shapes imply (attention, dense and expert FFNs, router,
norms, embeddings) and carries over what the physics reads (layers, heads, the KV cache's shape, experts,
sliding windows, linear-attention layers and their state). `add_model_configs` puts files into the live
catalog, so a model becomes a choice on every page, in the URL and in the CLI; `INFERX_MODELS` names files for
the server and the CLI alike.

Read: decoders with gated (SwiGLU-style) MLPs and Hugging Face's field names, which covers the Llama,
Mistral/Mixtral, Qwen (Qwen3-Next's Gated DeltaNet layers included), DeepSeek/Kimi, Gemma, gpt-oss and Llama 4
(chunked attention read as a window of one chunk) families, and the older two-matrix MLPs (GPT-2, GPT-J,
GPT-NeoX/Pythia, OPT, BLOOM, Falcon, Phi-1/2, StarCoder/StarCoder2, MPT) in their own field names; a multimodal
config's `text_config` is its language model (the vision tower is not served per token). Hybrids with other
recurrent layers (Mamba, MiniMax's lightning and Kimi's linear attention) are refused, not misread. Small terms
are approximated: biases other than the attention's, learned position tables, and a DeepSeek checkpoint's
multi-token-prediction layer (not served without MTP) are left out, as the catalog's entries leave them out.
"""

from __future__ import annotations

import base64
import binascii
import functools
import json
import re
import zlib

from inferx.deploy import ConfigError
from inferx.physics.model_spec import KEY_MARK, ModelSpec
from inferx.text import shown_value

MAX_SIZE = 1 << 22  # any one size or count: 16× the largest vocabulary published, so only a typo passes it
# Layers, far past any published decoder's (a few hundred at most): the reader and the model's checks go layer by
# layer, so a key of a few hundred characters must not ask for millions of them.
MAX_LAYERS = 4096
# Decoders whose MLP has two matrices (up, down) where the gated ones have three (gate, up, down), by model_type.
# Nemotron-H's MLPs and experts are two-matrix too (a squared ReLU, no gate).
TWO_MATRIX_MLP = ("gpt2", "gpt_bigcode", "gptj", "gpt_neox", "opt", "bloom", "falcon", "phi", "starcoder2", "mpt")
TWO_MATRIX_MLP += ("nemotron_h",)
# Fields a published config leaves to transformers' defaults for its model_type (Gemma 3 27B's says neither).
LEFT_OUT = {"gemma3_text": {"vocab_size": 262_208, "sliding_window_pattern": 6}}
# Their own names for the usual fields (GPT-2's n_embd is hidden_size; OPT's ffn_dim, Falcon's ffn_hidden_size
# and GPT-2's n_inner the MLP's width), first present wins.
OWN_NAMES = {
    "hidden_size": ("n_embd", "n_embed", "d_model"),
    "num_hidden_layers": ("n_layer", "n_layers"),
    "num_attention_heads": ("n_head", "n_heads"),
    "intermediate_size": ("n_inner", "ffn_dim", "ffn_hidden_size"),
}


# Every field the reader looks at, in a fixed order: a model's key carries their values by position (format 1).
READ_FIELDS = (
    "model_type", "hidden_size", "num_hidden_layers", "num_attention_heads", "vocab_size", "head_dim",
    "num_key_value_heads", "attention_bias", "kv_lora_rank", "qk_rope_head_dim", "qk_nope_head_dim", "v_head_dim",
    "q_lora_rank", "intermediate_size", "intermediate_size_mlp", "n_routed_experts", "num_experts",
    "num_local_experts", "num_experts_per_tok", "experts_per_token", "moe_topk", "moe_intermediate_size",
    "n_shared_experts", "num_shared_experts", "shared_expert_intermediate_size", "first_k_dense_replace",
    "moe_layer_freq", "decoder_sparse_step", "interleave_moe_layer_step", "mlp_only_layers", "sliding_window",
    "max_position_embeddings", "layer_types", "use_sliding_window", "tie_word_embeddings",
    "full_attention_interval", "linear_num_key_heads", "linear_key_head_dim", "linear_num_value_heads",
    "linear_value_head_dim", "linear_conv_kernel_dim", "attn_output_gate", "attention_chunk_size", "no_rope_layers",
    "no_rope_layer_interval", "sliding_window_pattern", "attention_head_dim", "hybrid_override_pattern",
    "layers_block_type", "mamba_n_heads", "mamba_num_heads", "mamba_d_head", "mamba_head_dim", "mamba_expand", "expand",
    "mamba_d_state", "ssm_state_size", "mamba_n_groups", "n_groups", "mamba_d_conv", "conv_kernel", "mamba_conv_bias",
    "use_conv_bias", "mamba_proj_bias", "moe_shared_expert_intermediate_size", "attn_layer_period",
    "attn_layer_offset", "expert_layer_period", "expert_layer_offset", "mamba_dt_rank",
)  # fmt: skip
KEY_FORMAT = "1"  # fields added at the end keep it: an older key lacks them, as a config that leaves them out
STATE_BYTES = 2  # a recurrent state is held at the checkpoint's 16 bits whatever the KV cache's dtype (an assumption)
# Fields of hybrids whose recurrent layers the reader does not count (MiniMax's lightning and Kimi's linear
# attention; RecurrentGemma) or whose experts it cannot size (Nemotron's latent experts): read as attention layers,
# every one would seem to keep a KV cache.
UNREAD_HYBRID = ("attn_type_list", "linear_attn_config", "block_types", "moe_latent_size")
# Nemotron-H's blocks, one character each in `hybrid_override_pattern` (spelt out in `layers_block_type`).
BLOCK_KINDS = {"M": "mamba", "*": "attention", "-": "mlp", "E": "moe"}
BLOCK_FIELDS = ("hybrid_override_pattern", "layers_block_type", "layer_types")  # where a config gives layer kinds
MAX_KEY_CHARS = 1500  # the largest published configs' keys are under 500 characters
MAX_PAYLOAD_BYTES = 1 << 16  # what a key's payload may inflate to: a bound on a hostile address's cost


class ModelConfigError(ConfigError):
    """A config that cannot be read as a model, with the file and the field at fault (a ConfigError, so a server
    given a bad INFERX_MODELS stops at start-up with that one line, as for any other bad variable)."""


def _shown(value) -> str:
    return repr(value)[:40] if isinstance(value, str) else shown_value(value)  # also a 4,300-digit one


def _int(cfg: dict, *names: str, default: int | None = None, low: int = 0) -> int:
    """The first of `names` present in `cfg`, as a whole number from `low` (or `default` if none is present)."""
    for name in names:
        value = cfg.get(name)
        if value is None:
            continue
        number = not isinstance(value, bool) and isinstance(value, int | float)
        if not (number and low <= value <= MAX_SIZE and value == int(value)):
            raise ModelConfigError(f"{name} = {_shown(value)}: expected a whole number from {low} to {MAX_SIZE:,}")
        return int(value)
    if default is None:
        raise ModelConfigError(f"no {' or '.join(names)}: a config.json of a decoder gives it")
    return default


def _flag(cfg: dict, name: str, default: bool) -> bool:
    """A true/false field: JSON's true or false (a string such as "false" is not read as either)."""
    value = cfg.get(name)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise ModelConfigError(f"{name} = {_shown(value)}: expected true or false")
    return value


def language_model(cfg: dict) -> dict:
    """The text decoder's config: a multimodal config nests it under `text_config`."""
    text = cfg.get("text_config")
    return {**cfg, **text} if isinstance(text, dict) else cfg


def _usual_names(cfg: dict) -> dict:
    """A config with the values transformers takes for the fields it leaves out (`LEFT_OUT`), and a two-matrix
    family's in the usual field names, with the sizes its architecture implies where the config leaves them out:
    the MLP 4 × hidden wide (MPT: its expansion ratio), one KV head for multi-query attention (GPT-BigCode,
    Falcon-7B), Falcon's num_kv_heads only in its new decoder, MPT's kv_n_heads. Applied again to its own result
    it changes nothing, so a model's key carries the result."""
    kind = cfg.get("model_type")
    cfg = {**LEFT_OUT.get(kind, {}), **cfg}
    if kind == "granitemoehybrid" and cfg.get("shared_intermediate_size") is not None:
        # Granite 4's every layer has an MLP this wide beside its experts, if any: a shared expert, else the MLP.
        width = "shared_expert_intermediate_size" if cfg.get("num_local_experts") else "intermediate_size"
        cfg[width] = cfg.pop("shared_intermediate_size")  # cfg is this function's own copy
    if kind not in TWO_MATRIX_MLP:
        return cfg
    out = dict(cfg)
    for usual, own in OWN_NAMES.items():
        if out.get(usual) is None:
            out[usual] = next((out[name] for name in own if out.get(name) is not None), None)
    if out.get("intermediate_size") is None:
        ratio = _int(out, "expansion_ratio", default=4) if kind == "mpt" else 4
        out["intermediate_size"] = ratio * _int(out, "hidden_size")
    if out.get("num_key_value_heads") is None:  # None left: as many as the query heads
        one_if_multi_query = 1 if out.get("multi_query", True) is not False else None
        if kind == "falcon" and out.get("new_decoder_architecture") is True:
            out["num_key_value_heads"] = out.get("num_kv_heads")
        elif kind in ("falcon", "gpt_bigcode"):
            out["num_key_value_heads"] = one_if_multi_query
        elif kind == "mpt" and isinstance(out.get("attn_config"), dict):
            out["num_key_value_heads"] = out["attn_config"].get("kv_n_heads")
    return {k: v for k, v in out.items() if v is not None}


def _moe_layers(cfg: dict, n_layers: int) -> int:
    """How many layers route to experts, by the fields each family uses to mark its dense layers."""
    if "first_k_dense_replace" in cfg or "moe_layer_freq" in cfg:  # DeepSeek-V2/V3, Kimi-K2
        first, every = _int(cfg, "first_k_dense_replace", default=0), max(1, _int(cfg, "moe_layer_freq", default=1))
        return sum(1 for i in range(first, n_layers) if i % every == 0)
    if cfg.get("expert_layer_period") is not None:  # Jamba: every period-th layer from the offset
        every, first = _int(cfg, "expert_layer_period", low=1), _int(cfg, "expert_layer_offset", default=0)
        return sum(1 for i in range(n_layers) if i % every == first)
    step = max(1, _int(cfg, "decoder_sparse_step", "interleave_moe_layer_step", default=1))  # Qwen-MoE, Llama 4
    dense = cfg.get("mlp_only_layers") or []
    if not isinstance(dense, list) or not all(isinstance(i, int) and not isinstance(i, bool) for i in dense):
        raise ModelConfigError(f"mlp_only_layers = {repr(dense)[:80]}: expected a list of layer numbers")
    dense = set(dense)
    return sum(1 for i in range(n_layers) if (i + 1) % step == 0 and i not in dense)


def _layer_kinds(cfg: dict, n_layers: int) -> list[str] | None:
    """One kind per layer, if the config gives them: `layer_types` ("full_attention", "sliding_attention",
    "linear_attention", Granite 4's "mamba"), or Nemotron-H's blocks ("mamba", "attention", "mlp", "moe"). A kind
    the reader does not count (Zamba's "hybrid", a convolution) is refused rather than counted as attention, and so
    are Mamba fields where no layer is a Mamba layer (Falcon-H1 runs Mamba beside attention in every layer)."""
    for field in UNREAD_HYBRID:
        if cfg.get(field) is not None:
            raise ModelConfigError(
                f"{field}: a hybrid with state-space or other recurrent layers, or experts, which the reader does not "
                "count (it reads Mamba-2 and linear attention as Granite 4, Nemotron-H and Qwen3-Next give them), so "
                "its KV cache would be miscounted"
            )
    field, given = next(((f, cfg[f]) for f in BLOCK_FIELDS if cfg.get(f) is not None), (None, None))
    if field is None and cfg.get("attn_layer_period") is not None:  # Jamba: attention every period-th layer
        every, first = _int(cfg, "attn_layer_period", low=1), _int(cfg, "attn_layer_offset", default=0)
        field, given = "attn_layer_period", ["attention" if i % every == first else "mamba" for i in range(n_layers)]
    pattern = field == "hybrid_override_pattern"
    kinds = [BLOCK_KINDS.get(c, c) for c in given] if pattern and isinstance(given, str) else given
    if kinds is not None:
        if not (isinstance(kinds, list) and len(kinds) >= n_layers and all(isinstance(k, str) for k in kinds)):
            got = f"a list of {len(given)}" if isinstance(given, list) else type(given).__name__
            if pattern:
                got = f"{len(given)} characters" if isinstance(given, str) else got
                raise ModelConfigError(
                    f"{field}: expected {n_layers} characters, one per layer (M, *, - or E); got {got}"
                )
            raise ModelConfigError(f"{field}: expected a list of {n_layers} layer kinds, one per layer; got {got}")
        kinds = kinds[:n_layers]
        known = BLOCK_KINDS.values() if field != "layer_types" else ("mamba",)
        unread = next((k for k in kinds if "attention" not in k and k not in known), None)
        if unread is not None:
            raise ModelConfigError(f"{field}: a {unread[:40]!r} layer is of a kind the reader does not count")
    if "mamba" not in (kinds or ()):
        unread = next((f for f in cfg if f.startswith(("mamba", "ssm_")) and cfg[f] is not None), None)
        if unread is not None:
            raise ModelConfigError(
                f"{unread}: Mamba fields, but no layer the config marks as a Mamba layer (layer_types or "
                "hybrid_override_pattern), so the reader cannot tell which layers keep a state instead of a KV cache"
            )
    return kinds


def _mamba(cfg: dict, d: int) -> tuple[int, int]:
    """(parameters of one Mamba mixer, numbers of state it keeps per sequence): Mamba-1 for Jamba, else Mamba-2 in
    Granite 4's field names or Nemotron-H's."""
    if any(cfg.get(field) is not None for field in ("mamba_dt_rank", "attn_layer_period")):  # Jamba's fields
        return _mamba1(cfg, d)
    return _mamba2(cfg, d)


def _mamba1(cfg: dict, d: int) -> tuple[int, int]:
    """Mamba-1 as Jamba has it: the input projection makes x and the gate z; x passes a causal convolution per
    channel, then projects to a time-step rank and its B and C (each normed in Jamba), the time step back up to
    every channel; each channel has a decay per state dimension and a skip D. The state is d_state numbers per
    channel plus the convolution's last kernel − 1 inputs."""
    inner = _int(cfg, "mamba_expand", default=2, low=1) * d
    d_state = _int(cfg, "mamba_d_state", low=1)
    kernel = _int(cfg, "mamba_d_conv", default=4, low=1)
    auto = cfg.get("mamba_dt_rank") in (None, "auto")  # transformers' "auto": hidden_size / 16, rounded up
    rank = -(-d // 16) if auto else _int(cfg, "mamba_dt_rank", low=1)
    params = d * 2 * inner + kernel * inner + inner * (rank + 2 * d_state) + rank * inner + inner  # dt bias
    params += inner * d_state + inner + inner * d  # A, D, the output projection
    params += rank + 2 * d_state if cfg.get("model_type") == "jamba" else 0
    if _flag(cfg, "mamba_conv_bias", True):
        params += inner
    if _flag(cfg, "mamba_proj_bias", False):
        params += 2 * inner + d
    return params, inner * d_state + (kernel - 1) * inner


def _mamba2(cfg: dict, d: int) -> tuple[int, int]:
    """Mamba-2, in Granite 4's field names or Nemotron-H's. The input projection makes the gate z, the inner x, the
    groups' B and C, and a time step per head; x, B and C pass a short causal convolution; each head has a time-step
    bias, a decay A and a skip D; a gated norm and the output projection follow. The state is a head_dim × d_state
    matrix per head plus the convolution's last kernel − 1 inputs."""
    heads = _int(cfg, "mamba_n_heads", "mamba_num_heads", low=1)
    expand = _int(cfg, "mamba_expand", "expand", default=2, low=1)
    head_dim = _int(cfg, "mamba_d_head", "mamba_head_dim", default=expand * d // heads, low=1)
    if head_dim < 1:
        raise ModelConfigError(f"mamba_n_heads = {heads}: more heads than mamba_expand × hidden_size has dimensions")
    d_state = _int(cfg, "mamba_d_state", "ssm_state_size", low=1)
    groups = _int(cfg, "mamba_n_groups", "n_groups", default=1, low=1)
    kernel = _int(cfg, "mamba_d_conv", "conv_kernel", default=4, low=1)
    inner = heads * head_dim
    conv = inner + 2 * groups * d_state
    projected = 2 * inner + 2 * groups * d_state + heads
    params = d * projected + kernel * conv + 3 * heads + inner + inner * d
    if _flag(cfg, "mamba_conv_bias", _flag(cfg, "use_conv_bias", True)):
        params += conv
    if _flag(cfg, "mamba_proj_bias", False):
        params += projected + d
    return params, inner * d_state + (kernel - 1) * conv


def _linear_attention(cfg: dict, n_layers: int, kinds: list[str] | None) -> tuple[tuple[int, ...], int, int]:
    """(indices of the linear-attention layers, parameters of one, numbers of state one keeps per sequence) for
    Qwen3-Next's Gated DeltaNet: q, k, v and the output gate z projected from the hidden state, a β and a decay per
    value head, a short causal convolution over q, k and v, and the output projection. Its state is a d_k × d_v
    matrix per value head plus the convolution's last kernel − 1 inputs. The layers are those `layer_types` calls
    linear, else all but every `full_attention_interval`-th (as transformers expands Qwen3-Next's config)."""
    if kinds is not None:
        layers = tuple(i for i, kind in enumerate(kinds) if "linear" in kind)
    elif cfg.get("full_attention_interval") is not None:
        every = _int(cfg, "full_attention_interval", low=1)
        layers = tuple(i for i in range(n_layers) if (i + 1) % every)
    else:
        layers = ()
    if not layers:
        return (), 0, 0
    d = _int(cfg, "hidden_size")
    key = _int(cfg, "linear_num_key_heads", low=1) * _int(cfg, "linear_key_head_dim", low=1)
    v_heads, v_dim = _int(cfg, "linear_num_value_heads", low=1), _int(cfg, "linear_value_head_dim", low=1)
    value, kernel = v_heads * v_dim, _int(cfg, "linear_conv_kernel_dim", default=4, low=1)
    params = d * (2 * key + 2 * value) + d * 2 * v_heads + kernel * (2 * key + value) + value * d + 2 * v_heads + v_dim
    state = v_heads * _int(cfg, "linear_key_head_dim") * v_dim + (kernel - 1) * (2 * key + value)
    return layers, params, state


def _windows_nothing(cfg: dict, window: int) -> bool:
    """No window (0), or one as long as the longest context the model takes."""
    longest = cfg.get("max_position_embeddings")
    return not window or (isinstance(longest, int) and window >= longest)


def _windowed_layers(cfg: dict, n_layers: int, kinds: list[str] | None) -> tuple[int, tuple[int, ...]]:
    """(window, indices of the layers that keep only the window): per layer from `layer_types` (gpt-oss), all but
    every `sliding_window_pattern`-th (Gemma), or every layer when `sliding_window` is set and switched on
    (Mistral 7B v0.1); a window as long as the longest context the model takes windows nothing."""
    if cfg.get("sliding_window") in (False, -1):  # configs that say "no window" so
        return 0, ()
    window = _int(cfg, "sliding_window", default=0)  # a size like any other; null or 0: no window
    if _windows_nothing(cfg, window):
        return 0, ()
    # Gemma 2 alternates windowed and full layers, its config silent about it; Gemma 3 and Cohere 2 give the period.
    every = _int(cfg, "sliding_window_pattern", default=2 if cfg.get("model_type") == "gemma2" else 0)
    if kinds is not None:
        layers = tuple(i for i, kind in enumerate(kinds) if "sliding" in kind)
    elif every:  # each `every`-th layer attends to the whole context, as transformers expands the pattern
        layers = tuple(i for i in range(n_layers) if (i + 1) % every)
    else:
        layers = tuple(range(n_layers)) if _flag(cfg, "use_sliding_window", True) else ()
    return (window, layers) if layers else (0, ())


def _chunked_layers(cfg: dict, n_layers: int) -> tuple[int, tuple[int, ...]]:
    """(chunk, indices of the layers that attend within it) for Llama 4's chunked attention: its RoPE layers attend
    within chunks of `attention_chunk_size` tokens, so none keeps more than a chunk (a window's upper bound); its
    NoPE layers, 0 in `no_rope_layers` (else every `no_rope_layer_interval`-th, 4 if not given, as transformers
    fills the list in), attend to the whole context."""
    chunk = _int(cfg, "attention_chunk_size", default=0)
    if _windows_nothing(cfg, chunk):
        return 0, ()
    every = _int(cfg, "no_rope_layer_interval", default=4, low=1)
    rope = cfg.get("no_rope_layers") or [int((i + 1) % every != 0) for i in range(n_layers)]
    if not (isinstance(rope, list) and len(rope) >= n_layers and all(r in (0, 1) for r in rope)):
        raise ModelConfigError(f"no_rope_layers: expected {n_layers} flags, 1 where a layer uses RoPE, else 0")
    layers = tuple(i for i, uses_rope in enumerate(rope[:n_layers]) if uses_rope)
    return (chunk, layers) if layers else (0, ())


def spec_from_config(config: dict, name: str, source: str = "") -> ModelSpec:
    """The catalog entry for a Hugging Face config.json's contents. Raises ModelConfigError naming the field."""
    if not isinstance(config, dict):
        raise ModelConfigError("expected a JSON object (a model's config.json)")
    cfg = _usual_names(language_model(config))
    matrices = 2 if cfg.get("model_type") in TWO_MATRIX_MLP else 3  # in each MLP and expert
    d = _int(cfg, "hidden_size", low=1)
    n_layers = _int(cfg, "num_hidden_layers", low=1)
    if n_layers > MAX_LAYERS:
        raise ModelConfigError(f"num_hidden_layers = {n_layers:,}: at most {MAX_LAYERS:,}, past any published model")
    heads = _int(cfg, "num_attention_heads", low=1)
    vocab = _int(cfg, "vocab_size", low=1)
    kinds = _layer_kinds(cfg, n_layers)
    blocks = kinds if any(cfg.get(f) is not None for f in BLOCK_FIELDS[:2]) else None
    if blocks is not None:  # Nemotron-H: each block one mixer, MLP or set of experts; its mixers are read as layers
        kinds = [kind for kind in blocks if kind in ("mamba", "attention")]
        n_layers = len(kinds)

    if cfg.get("kv_lora_rank"):  # multi-head latent attention (DeepSeek-V2/V3, Kimi-K2)
        kv_rank, rope = _int(cfg, "kv_lora_rank"), _int(cfg, "qk_rope_head_dim")
        nope, v_dim = _int(cfg, "qk_nope_head_dim"), _int(cfg, "v_head_dim", low=1)
        q_rank = _int(cfg, "q_lora_rank", default=0)
        q = d * q_rank + q_rank + q_rank * heads * (nope + rope) if q_rank else d * heads * (nope + rope)
        kv = d * (kv_rank + rope) + kv_rank + kv_rank * heads * (nope + v_dim)
        attention_params = q + kv + heads * v_dim * d
        shape = {"attention": "mla", "kv_lora_rank": kv_rank, "d_rope": rope, "d_head": v_dim}
    else:
        d_head = _int(cfg, "head_dim", "attention_head_dim", default=d // heads)
        kv_heads = _int(cfg, "num_key_value_heads", default=heads, low=1)
        if d_head < 1:  # head_dim 0, or hidden_size below the head count
            raise ModelConfigError(f"head_dim = {d_head}: a head needs at least one dimension")
        attention_params = 2 * d * heads * d_head + 2 * d * kv_heads * d_head
        if _flag(cfg, "attention_bias", False):
            attention_params += (heads + 2 * kv_heads) * d_head + d
        if _flag(cfg, "attn_output_gate", cfg.get("model_type") == "qwen3_next"):  # a sigmoid gate per query output
            attention_params += d * heads * d_head
        shape = {"attention": "mha" if kv_heads == heads else "gqa", "n_kv_heads": kv_heads, "d_head": d_head}

    experts = _int(cfg, "n_routed_experts", "num_experts", "num_local_experts", default=0)
    if blocks is None:
        moe_layers = _moe_layers(cfg, n_layers) if experts else 0
    elif "moe" not in blocks:  # a config written out by transformers may carry its class's default expert count
        experts = moe_layers = 0
    elif not experts or blocks.count("moe") > n_layers:
        raise ModelConfigError(
            "hybrid_override_pattern: expert blocks need n_routed_experts, and no more of them than mixers"
        )
    else:
        moe_layers = blocks.count("moe")
    if experts:
        per_token = _int(cfg, "num_experts_per_tok", "experts_per_token", "moe_topk")
        expert = matrices * d * _int(cfg, "moe_intermediate_size", "intermediate_size")
        one_in_llama4 = int(cfg.get("model_type") == "llama4_text")  # its config has no field for it
        shared = _int(cfg, "n_shared_experts", "num_shared_experts", default=one_in_llama4)
        # The shared experts' width all together where the config gives it (Qwen-MoE, Nemotron), else as many as
        # routed ones.
        width = _int(cfg, "shared_expert_intermediate_size", "moe_shared_expert_intermediate_size", default=0)
        shared_params = matrices * d * width if width else shared * expert
        moe_layer = experts * expert + shared_params + d * experts  # the router: d → E logits
    else:
        per_token, expert, shared, moe_layer = 0, 0, 0, 0
    dense_layers = n_layers - moe_layers
    mlps = blocks.count("mlp") if blocks is not None else dense_layers
    # Llama 4 names its dense layers' width intermediate_size_mlp; its intermediate_size is an expert's.
    dense_ffn = matrices * d * _int(cfg, "intermediate_size_mlp", "intermediate_size") if mlps else 0

    linear_layers, linear_params, state = _linear_attention(cfg, n_layers, kinds)
    mamba_layers = tuple(i for i, kind in enumerate(kinds or ()) if kind == "mamba")
    mamba_params, mamba_state = _mamba(cfg, d) if mamba_layers else (0, 0)
    attention_layers = n_layers - len(linear_layers) - len(mamba_layers)
    tied = _flag(cfg, "tie_word_embeddings", True)  # transformers' default when the config is silent
    embedding = vocab * d
    norms = len(blocks) if blocks is not None else 2 * n_layers  # one before each mixer and each MLP
    p_total = embedding * (1 if tied else 2) + norms * d + d  # and the final one
    p_total += attention_layers * attention_params + len(linear_layers) * linear_params
    p_total += len(mamba_layers) * mamba_params + mlps * dense_ffn + moe_layers * moe_layer
    # Read per token: everything but the routed experts a token skips and, when the output matrix is its own,
    # the input embedding table (a lookup reads one row of it, not the table).
    p_active = p_total - moe_layers * (experts - per_token) * expert - (0 if tied else embedding)

    window, window_layers = _windowed_layers(cfg, n_layers, kinds)
    if not window_layers:
        window, window_layers = _chunked_layers(cfg, n_layers)
    try:
        return ModelSpec(
            name=name,
            p_total=float(p_total),
            p_active=float(p_active),
            n_layers=n_layers,
            d_model=d,
            n_q_heads=heads,
            sliding_window=window,
            window_layers=window_layers,
            state_layers=tuple(sorted(linear_layers + mamba_layers)),
            state_bytes=float((len(linear_layers) * state + len(mamba_layers) * mamba_state) * STATE_BYTES),
            n_routed_experts=experts,
            experts_per_token=per_token,
            n_shared_experts=shared,
            n_dense_layers=dense_layers if experts else 0,
            expert_params=float(expert),
            vocab_size=vocab,
            blocks=len(blocks) if blocks is not None else 0,
            source=source,
            **shape,
        )
    except ValueError as err:  # ModelSpec's own checks (GQA heads that do not divide, experts per token)
        raise ModelConfigError(str(err).removeprefix(f"{name}: ")) from None


def catalog_key(name: str) -> str:
    """The key a model is chosen by in the URL and the CLI: its name in lower case, runs of other characters as -."""
    return re.sub(r"[^a-z0-9.]+", "-", name.lower()).strip("-.")


def carry(name: str, fmt: str, values: list) -> str:
    """A key that carries an entry itself: a readable `name` (a catalog key), the format, then `values` as JSON,
    compressed in lower-case base32 (choices are matched in lower case). ValueError where `carried` would not read
    it back: a key longer than MAX_KEY_CHARS, or values longer than MAX_PAYLOAD_BYTES."""
    raw = json.dumps(values, separators=(",", ":"), ensure_ascii=False).encode()
    payload = base64.b32encode(zlib.compress(raw, 9)).decode("ascii").rstrip("=").lower()
    key = f"{name}{KEY_MARK}{fmt}{payload}"
    if len(raw) > MAX_PAYLOAD_BYTES:
        raise ValueError(f"its fields take {len(raw):,} bytes, at most {MAX_PAYLOAD_BYTES:,}")
    if len(key) > MAX_KEY_CHARS:
        raise ValueError(f"its key would take {len(key):,} characters, at most {MAX_KEY_CHARS:,}")
    return key


def carried(key: str, fmt: str, error: type[ConfigError], what: str) -> list:
    """The values a `carry` key of format `fmt` holds; `error` if the key is not one (damaged, or from elsewhere)."""
    _, mark, body = key.partition(KEY_MARK)
    if not mark or len(key) > MAX_KEY_CHARS or not body.startswith(fmt):
        raise error(f"not of the form name{KEY_MARK}{fmt}… that {what} has")
    try:
        packed = base64.b32decode(body[len(fmt) :].upper() + "=" * (-len(body[len(fmt) :]) % 8))
        inflate = zlib.decompressobj()
        raw = inflate.decompress(packed, MAX_PAYLOAD_BYTES)
        if inflate.unconsumed_tail or not inflate.eof:
            raise ValueError("payload too long or cut short")
        values = json.loads(raw)
    except (binascii.Error, zlib.error, ValueError, TypeError) as err:
        raise error(f"damaged ({err})") from None
    except RecursionError:  # a payload of JSON nested thousands deep
        raise error("damaged (nested too deeply)") from None
    if not isinstance(values, list):
        raise error("damaged (not a list of values)")
    return values


def config_key(config: dict, name: str) -> str:
    """A key that carries the model itself: its name, then the fields the reader uses. Any server rebuilds the
    model from the key alone, so a page's address, an embed or `inferx point --model` can hold a model no
    catalog lists."""
    spec_from_config(config, name)  # refuse here what the key could not be read back as
    cfg = _usual_names(language_model(config))
    values = [cfg.get(field) for field in READ_FIELDS]
    while values and values[-1] is None:
        values.pop()
    try:
        return carry(catalog_key(name)[:40] or "model", KEY_FORMAT, [name, *values])
    except ValueError as err:  # long per-layer lists (layer_types, mlp_only_layers) of a very deep model
        raise ModelConfigError(f"too large to carry in a link: {err}") from None


@functools.lru_cache(maxsize=128)  # one object per key while it is in use (scenarios of one model share it)
def spec_from_key(key: str) -> ModelSpec:
    """The model a `config_key` carries; ModelConfigError if the key is not one (damaged, or from elsewhere)."""
    name, *values = carried(key, KEY_FORMAT, ModelConfigError, "a config.json's model") or [None]
    if not isinstance(name, str) or len(values) > len(READ_FIELDS):
        raise ModelConfigError("damaged (not a name and its fields)")
    config = {f: v for f, v in zip(READ_FIELDS, values, strict=False) if v is not None}
    return spec_from_config(config, name[:200])
