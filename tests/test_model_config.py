"""Your own model from its Hugging Face config.json: the parameter count, the catalog, the CLI and the page.

The configs in tests/fixtures/model_configs carry the published config.json fields the reader uses (the
catalog's comments cite the same numbers)."""

from __future__ import annotations

import base64
import json
import os
import re
import zlib
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from dash import no_update

import app  # noqa: F401 (pages register themselves on the app)
from inferx import cli
from inferx.data.user_models import (
    MAX_CONFIG_BYTES,
    add_model_configs,
    add_models_from_env,
    model_from_upload,
    read_model_config,
)
from inferx.figures import registry
from inferx.physics import engine
from inferx.physics.model_config import (
    MAX_PAYLOAD_BYTES,
    ModelConfigError,
    catalog_key,
    config_key,
    spec_from_config,
    spec_from_key,
)
from inferx.physics.models import MODELS, kv_bytes_per_sequence, kv_bytes_per_token
from inferx.scenario.controls import InvalidParameter, check_param
from inferx.scenario.evaluation import Scenario
from inferx.serving import model as calibrated
from pages import home
from pages._callbacks import choose_uploaded_model
from pages._ids import control_id
from pages._url import parse_pinned

CONFIGS = Path(__file__).parent / "fixtures" / "model_configs"
MIXTRAL = CONFIGS / "Mixtral-8x7B-v0.1" / "config.json"
MISTRAL = CONFIGS / "Mistral-7B-v0.1" / "config.json"
CATALOG = {  # fixture folder → the catalog entry built from the same published config
    "DeepSeek-R1": "deepseek-r1",
    "Kimi-K2-Instruct": "kimi-k2",
    "Qwen3-235B-A22B": "qwen3-235b-a22b",
    "gpt-oss-120b": "gpt-oss-120b",
    "Llama-3.3-70B-Instruct": "llama-3.3-70b",
    "Llama-3.1-405B": "llama-3.1-405b",
    "Meta-Llama-3-8B": "llama-3-8b",
    "Llama-2-13b-hf": "llama-2-13b",
    "Qwen3-Next-80B-A3B-Instruct": "qwen3-next-80b-a3b",
    "Llama-4-Scout-17B-16E-Instruct": "llama-4-scout",
    "gemma-3-27b-it": "gemma-3-27b",
}
SHAPE = ("attention", "n_layers", "d_model", "n_q_heads", "d_head", "n_kv_heads", "kv_lora_rank", "d_rope")
SHAPE += ("sliding_window", "window_layers", "n_routed_experts", "experts_per_token", "n_shared_experts")
SHAPE += ("n_dense_layers", "expert_params", "vocab_size", "state_layers", "state_bytes")


@pytest.fixture
def catalog():
    """The model catalog, put back as it was after the test (added models would leak into later tests)."""
    kept = dict(MODELS)
    yield MODELS
    MODELS.clear()
    MODELS.update(kept)


def config(folder: str) -> dict:
    return json.loads((CONFIGS / folder / "config.json").read_text())


@pytest.mark.parametrize(("folder", "key"), CATALOG.items())
def test_a_catalog_models_config_gives_its_entry(folder, key):
    spec, entry = spec_from_config(config(folder), folder), MODELS[key]
    assert {f: getattr(spec, f) for f in SHAPE} == {f: getattr(entry, f) for f in SHAPE}
    assert kv_bytes_per_token(spec, 1.0) == kv_bytes_per_token(entry, 1.0)
    # The catalog's totals are the configs' sums or the model cards' rounded figures.
    assert spec.p_total == pytest.approx(entry.p_total, rel=2e-3)
    if entry.is_moe:  # the cards' active counts, rounded (gpt-oss's to 5.13e9, the reader's 5.128e9)
        assert spec.p_active == pytest.approx(entry.p_active, rel=0.025)
    else:  # a dense model reads all but its input embedding (a lookup) per token, unless that is its output
        # matrix too (Gemma ties them); the catalog counts it
        lookup = 0 if folder.startswith("gemma") else spec.vocab_size * spec.d_model
        assert spec.p_active == spec.p_total - lookup


def test_mixtral_counts_by_hand():
    spec = spec_from_config(config("Mixtral-8x7B-v0.1"), "Mixtral-8x7B-v0.1")
    d, layers, vocab, expert = 4096, 32, 32_000, 3 * 4096 * 14_336
    attention = 2 * d * 32 * 128 + 2 * d * 8 * 128  # q and o; k and v for 8 KV heads
    per_layer = attention + 8 * expert + d * 8 + 2 * d  # eight experts, the router, two norms
    total = 2 * vocab * d + layers * per_layer + d  # embedding and output matrix (untied), final norm
    assert spec.p_total == total == pytest.approx(46.70e9, rel=1e-3)  # Mistral's "46.7B"
    assert spec.p_active == total - layers * 6 * expert - vocab * d  # 2 of 8 experts; no embedding table
    assert spec.p_active == pytest.approx(12.75e9, rel=1e-3)  # Mistral quotes 12.9B with the embeddings
    assert (spec.attention, spec.n_kv_heads, spec.experts_per_token, spec.n_dense_layers) == ("gqa", 8, 2, 0)


# Two-matrix MLPs, in their own field names: the totals their model cards and papers publish. The reader leaves
# out biases and learned position tables (GPT-2's 124.4 M has 0.9 M of them), hence 1 %.
PUBLISHED = {"gpt2": 124.4e6, "gpt-j-6b": 6.05e9, "gpt-neox-20b": 20.55e9, "phi-2": 2.78e9, "falcon-7b": 6.92e9,
             "opt-6.7b": 6.7e9, "bloom": 176.2e9}  # fmt: skip


@pytest.mark.parametrize(("folder", "total"), PUBLISHED.items())
def test_a_two_matrix_mlp_is_counted_in_its_own_field_names(folder, total):
    spec = spec_from_config(config(folder), folder)
    assert spec.p_total == pytest.approx(total, rel=0.01)
    assert spec_from_key(config_key(config(folder), folder)) == spec  # its key carries it


def test_two_matrix_models_by_hand():
    # GPT-J: 28 layers of attention (q, k, v, o) and an MLP of two 4096 × 16,384 matrices (n_inner unset: 4 × d),
    # its output matrix apart from the embedding.
    d, vocab = 4096, 50_400
    gptj = spec_from_config(config("gpt-j-6b"), "gpt-j")
    assert gptj.p_total == 2 * vocab * d + 28 * (4 * d * d + 2 * d * 4 * d + 2 * d) + d
    assert (gptj.attention, gptj.n_kv_heads, gptj.d_head) == ("mha", 16, 256)
    # Falcon-7B shares one KV head among 71 (multi-query): 32 layers · 2 · 64 B at FP8.
    falcon = spec_from_config(config("falcon-7b"), "falcon-7b")
    assert (falcon.attention, falcon.n_kv_heads, falcon.d_head) == ("gqa", 1, 64)
    assert kv_bytes_per_token(falcon, 1.0) == 32 * 2 * 64
    # Falcon-40B's new decoder names its KV heads; without it, num_kv_heads would be ignored.
    assert spec_from_config(config("falcon-40b"), "falcon-40b").n_kv_heads == 8
    old = {**config("falcon-40b"), "new_decoder_architecture": False}
    assert spec_from_config(old, "f").n_kv_heads == 1
    # GPT-BigCode is multi-query unless told otherwise; MPT's MLP is its expansion ratio wide.
    bigcode = {"model_type": "gpt_bigcode", "n_embd": 6144, "n_head": 48, "n_layer": 40, "vocab_size": 49152}
    assert spec_from_config(bigcode, "starcoder").n_kv_heads == 1
    assert spec_from_config({**bigcode, "multi_query": False}, "s").attention == "mha"
    mpt = {"model_type": "mpt", "d_model": 4096, "n_heads": 32, "n_layers": 32, "vocab_size": 50432}
    assert (
        spec_from_config({**mpt, "expansion_ratio": 2}, "m").p_total
        == 50432 * d + 32 * (4 * d * d + 2 * d * 2 * d + 2 * d) + d
    )
    # A gated model's MLP keeps its three matrices: the same shapes as GPT-J, read as Llama, count one more.
    llama = {**config("gpt-j-6b"), "model_type": "llama", "hidden_size": d, "num_hidden_layers": 28}
    llama |= {"num_attention_heads": 16, "intermediate_size": 4 * d}
    assert spec_from_config(llama, "l").p_total - gptj.p_total == 28 * d * 4 * d


def test_a_sliding_window_on_every_layer_caps_the_kv_cache():
    spec = spec_from_config(config("Mistral-7B-v0.1"), "Mistral-7B-v0.1")
    assert spec.sliding_window == 4096 and spec.window_layers == tuple(range(32))
    full = kv_bytes_per_token(spec, 1.0)  # 32 layers · 2 · 8 heads · 128 = 65,536 B per token at FP8
    assert full == 65_536
    assert kv_bytes_per_token(spec, 1.0, 4096) == full
    assert kv_bytes_per_token(spec, 1.0, 32_768) == full * 4096 / 32_768
    # A window as long as the model's context, or one switched off, windows nothing.
    qwen = spec_from_config({**config("Qwen3-235B-A22B"), "sliding_window": 40_960}, "q")
    assert qwen.window_layers == ()
    off = spec_from_config({**config("Mistral-7B-v0.1"), "use_sliding_window": False}, "m")
    assert off.window_layers == ()


def test_gemma_windows_all_but_every_nth_layer():
    """Gemma 3 1B: five layers of six keep a 512-token window, the sixth the whole context; Gemma 2 alternates,
    its config silent about it. Windowing every layer, as Mistral 7B does, left the full layers' KV out."""
    cfg = config("gemma-3-1b-it")
    spec = spec_from_config(cfg, "gemma")
    assert spec.sliding_window == 512 and spec.window_layers == tuple(i for i in range(26) if i % 6 != 5)
    d, vocab = 1152, 262_144
    per_layer = 2 * d * 4 * 256 + 2 * d * 1 * 256 + 3 * d * 6912 + 2 * d  # 4 query heads of 256, 1 KV head; MLP
    assert spec.p_total == vocab * d + 26 * per_layer + d == pytest.approx(1.0e9, rel=0.01)  # "Gemma 3 1B", tied
    kv = 2 * 1 * 256  # per layer and token at FP8
    assert kv_bytes_per_token(spec, 1.0, 32_768) == kv * (4 * 32_768 + 22 * 512) / 32_768
    gemma2 = {k: v for k, v in cfg.items() if k != "sliding_window_pattern"} | {"model_type": "gemma2"}
    assert spec_from_config(gemma2, "g2").window_layers == tuple(range(0, 26, 2))
    # Gemma 3 27B's config leaves the vocabulary and the pattern to transformers' defaults: 262,208 and 6.
    big = spec_from_config(config("gemma-3-27b-it"), "gemma-3-27b-it")
    d, vocab = 5376, 262_208
    per_layer = 2 * d * 32 * 128 + 2 * d * 16 * 128 + 3 * d * 21_504 + 2 * d
    assert big.p_total == vocab * d + 62 * per_layer + d == pytest.approx(27e9, rel=0.01)  # "Gemma 3 27B"
    assert (big.vocab_size, big.sliding_window, big.n_full_layers) == (vocab, 1024, 10)


def test_layer_kinds_other_than_sliding_ones_keep_the_whole_context():
    """Only "sliding" kinds keep the window; a list longer than the layers is read for as many as there are; a
    window of -1 or false means none."""
    base = {**config("Meta-Llama-3-8B"), "sliding_window": 128}
    kinds = ["sliding_attention", "full_attention", "attention", "full_attention"] * 8 + ["extra"]
    spec = spec_from_config({**base, "layer_types": kinds}, "x")
    assert spec.window_layers == tuple(range(0, 32, 4)) and spec.n_full_layers == 24
    for none in (-1, False, None, 0):
        assert spec_from_config({**base, "sliding_window": none}, "x").window_layers == ()
    # The switch is read only where a window is set: a null window with a string switch loads as before.
    assert spec_from_config({**base, "sliding_window": None, "use_sliding_window": "false"}, "x").sliding_window == 0


def test_qwen3_next_linear_attention_by_hand():
    """Qwen3-Next: three Gated DeltaNet layers to each attention layer. Those keep no KV cache but a state of a
    fixed size, so a request's memory is 12 layers of KV per token plus 36 layers' state at any context."""
    spec = spec_from_config(config("Qwen3-Next-80B-A3B-Instruct"), "q")
    assert spec.state_layers == tuple(i for i in range(48) if i % 4 != 3)  # every 4th layer attends (3, 7, …)
    assert (spec.n_kv_layers, spec.n_full_layers, spec.window_layers) == (12, 12, ())
    d, vocab, expert = 2048, 151_936, 3 * 2048 * 512
    key, value = 16 * 128, 32 * 128  # linear attention: 16 key heads and 32 value heads of 128
    linear = d * (2 * key + 2 * value) + d * 2 * 32 + 4 * (2 * key + value) + value * d + 2 * 32 + 128
    attention = 3 * d * 16 * 256 + 2 * d * 2 * 256  # q, its output gate and o for 16 heads of 256; k and v, 2 heads
    moe = 512 * expert + expert + d * 512  # 512 experts, one shared expert as wide, the router
    total = 2 * vocab * d + 36 * linear + 12 * attention + 48 * (moe + 2 * d) + d
    assert spec.p_total == total == pytest.approx(80e9, rel=0.01)  # Qwen's "80B in total"
    assert spec.p_active == total - 48 * 502 * expert - vocab * d  # 10 of 512 experts; no embedding table
    assert spec.p_active - vocab * d == pytest.approx(3e9, rel=0.1)  # "3B activated" (3.25e9), output matrix apart
    # State per layer: a 128 × 128 matrix per value head, and the convolution's last 3 inputs; 16 bits each.
    state = 36 * (32 * 128 * 128 + 3 * (2 * key + value)) * 2
    assert spec.state_bytes == state == 39_518_208
    kv = 12 * 2 * 2 * 256  # bytes per token at FP8
    assert kv_bytes_per_token(spec, 1.0) == kv == 12_288
    assert kv_bytes_per_token(spec, 1.0, 1024) == (kv * 1024 + state) / 1024 == 50_880
    assert float(kv_bytes_per_sequence(spec, 1.0, 8192)) == kv * 8192 + state
    # layer_types, as transformers writes it out, gives the same model.
    kinds = (["linear_attention"] * 3 + ["full_attention"]) * 12
    assert spec_from_config({**config("Qwen3-Next-80B-A3B-Instruct"), "layer_types": kinds}, "q") == spec
    assert spec_from_key(config_key(config("Qwen3-Next-80B-A3B-Instruct"), "q")) == spec
    ungated = spec_from_config({**config("Qwen3-Next-80B-A3B-Instruct"), "attn_output_gate": False}, "q")
    assert spec.p_total - ungated.p_total == 12 * d * 16 * 256


def test_llama_4_by_hand():
    """Llama 4 Scout: a shared expert beside the routed one in every layer (its config has no field for it), and
    chunked attention, 8,192 tokens at most, on the three RoPE layers of every four."""
    cfg = config("Llama-4-Scout-17B-16E-Instruct")
    spec = spec_from_config(cfg, "scout")
    d, vocab, expert = 5120, 202_048, 3 * 5120 * 8192
    attention = 2 * d * 40 * 128 + 2 * d * 8 * 128
    total = 2 * vocab * d + 48 * (attention + 16 * expert + expert + d * 16 + 2 * d) + d
    assert spec.p_total == total == pytest.approx(109e9, rel=0.02)  # Meta's 109B holds the vision encoder too
    assert spec.p_active == total - 48 * 15 * expert - vocab * d == pytest.approx(17e9, rel=0.06)  # "17B active"
    assert (spec.n_shared_experts, spec.sliding_window) == (1, 8192)
    assert spec.window_layers == tuple(i for i in range(48) if i % 4 != 3)  # NoPE layers 3, 7, … see everything
    kv = 2 * 8 * 128  # per layer and token at FP8
    assert kv_bytes_per_token(spec, 1.0, 131_072) == kv * (12 * 131_072 + 36 * 8192) / 131_072
    filled_in = {**cfg["text_config"], "no_rope_layers": [1, 1, 1, 0] * 12}  # the list as transformers fills it in
    assert spec_from_config({**cfg, "text_config": filled_in}, "scout") == spec
    # Maverick: 128 experts on every other layer; the others dense, intermediate_size_mlp wide.
    maverick = {**cfg["text_config"], "num_local_experts": 128, "interleave_moe_layer_step": 2}
    big = spec_from_config(maverick, "maverick")
    assert big.n_dense_layers == 24
    assert big.p_total == pytest.approx(400e9, rel=0.01) and big.p_active == pytest.approx(17e9, rel=0.06)
    with pytest.raises(ModelConfigError, match="no_rope_layers: expected 48 flags, 1 where a layer uses RoPE"):
        spec_from_config({**maverick, "no_rope_layers": [2] * 48}, "x")


def test_a_linear_attention_models_requests_each_hold_their_state():
    """B_max = ⌊η · headroom / (S κ(S))⌋ with S κ(S) the KV of 12 layers plus the fixed state: at 1K tokens the
    state is most of a request's memory, at 64K the KV is."""
    key = config_key(config("Qwen3-Next-80B-A3B-Instruct"), "Qwen3-Next-80B-A3B-Instruct")
    short = Scenario.from_params(model=key, ctx=1024, isl=512)
    long = Scenario.from_params(model=key, ctx=65536, isl=1024)
    assert short.headroom == long.headroom == 8 * 141e9 - short.model.p_total  # 8×H200, FP8 weights
    for scn, S in ((short, 1024), (long, 65536)):
        per_request = 12_288 * S + 39_518_208
        assert scn.kappa == per_request / S
        assert scn.b_max == int(scn.eta * scn.headroom / per_request)
    assert short.b_max == 17_505 and long.b_max == 1_079


def test_the_calibrated_model_holds_windows_and_state_and_copies_only_the_cache():
    """Calibrated, a tensor-parallel group keeps tp / KV heads copies of a GQA cache (4 at TP 8 with 2 KV heads);
    the recurrent state is split by head, held once. A step reads what a request holds: gpt-oss's windowed layers
    capped at 128 tokens, not every layer at the whole context."""
    key = config_key(config("Qwen3-Next-80B-A3B-Instruct"), "Qwen3-Next-80B-A3B-Instruct")
    scn = Scenario.from_params(model=key, ctx=8192, isl=1024, mode="calibrated")
    assert scn.kv_copies == 4
    per_request = 4 * 12_288 * 8192 + 39_518_208
    assert scn.request_bytes == per_request
    assert scn.b_max == int(scn.eta * scn.headroom / per_request)
    assert calibrated.kv_bytes(16, 8192, 4, scn.model, 1.0) == 16 * per_request
    oss = MODELS["gpt-oss-120b"]
    assert calibrated.kv_bytes(1, 8192, 1, oss, 1.0) == 36 * 2 * 8 * 64 * (8192 + 128) / 2  # half the layers windowed


@pytest.mark.parametrize(
    ("change", "field"),
    [
        # attn_layer_period marks Jamba's Mamba layers, which need their Mamba fields.
        ({"attn_layer_period": 8, "attn_layer_offset": 4}, "no mamba_d_state: a config.json of a decoder gives it"),
        ({"linear_attn_config": {"kda_layers": [1, 2]}}, "linear_attn_config: a hybrid"),
        ({"attn_type_list": [0, 1] * 16}, "attn_type_list: a hybrid"),  # MiniMax's lightning attention
        # Falcon-H1 runs Mamba beside attention in every layer: Mamba fields, no layer marked as Mamba.
        ({"mamba_d_ssm": 1024, "mamba_n_heads": 128}, "mamba_d_ssm: Mamba fields, but no layer the config marks"),
        ({"layers_block_type": ["mamba", "hybrid"] * 16}, "layers_block_type: a 'hybrid' layer is of a kind"),  # Zamba
        ({"layer_types": ["mamba", "conv"] * 16}, "layer_types: a 'conv' layer is of a kind the reader does not"),
        ({"layer_types": ["mamba", "attention"] * 16}, "no mamba_n_heads or mamba_num_heads: a config.json of a"),
        (
            {"hybrid_override_pattern": "M-M-M*-" * 4},
            r"expected 32 characters, one per layer \(M, \*, - or E\); got 28 characters",
        ),
        ({"hybrid_override_pattern": "M-*Q" * 8}, "hybrid_override_pattern: a 'Q' layer is of a kind"),
        ({"moe_latent_size": 1024}, "moe_latent_size: a hybrid with state-space or other recurrent layers, or experts"),
    ],
)
def test_a_hybrid_whose_recurrent_layers_are_not_read_is_refused(change, field):
    """Read as attention, a state-space layer would seem to keep a KV cache: a config whose recurrent layers the
    reader cannot place or size is refused, naming the field, rather than given a KV cache and B_max several times
    off."""
    with pytest.raises(ModelConfigError, match=field):
        spec_from_config({**config("Meta-Llama-3-8B"), **change}, "x")


def test_nemotron_h_by_hand():
    """Nemotron-H 8B: 52 blocks, each a Mamba-2 mixer (24), attention (4) or a two-matrix MLP (24). Only the 4
    attention blocks keep a KV cache; each Mamba block keeps a fixed state per request."""
    cfg = config("Nemotron-H-8B-Base-8K")
    spec = spec_from_config(cfg, "nemotron")
    d, vocab = 4096, 131_072
    inner, conv = 128 * 64, 128 * 64 + 2 * 8 * 128  # 128 heads of 64; x, then B and C of 8 groups, through the conv
    mamba = d * (2 * inner + 2 * 8 * 128 + 128) + 4 * conv + conv + 3 * 128 + inner + inner * d
    attention = 2 * d * 32 * 128 + 2 * d * 8 * 128
    mlp = 2 * d * 21_504  # up and down: a squared ReLU, no gate
    total = 2 * vocab * d + 24 * mamba + 4 * attention + 24 * mlp + 52 * d + d  # a norm per block, the final one
    assert spec.p_total == total == pytest.approx(8e9, rel=0.02)  # NVIDIA's "8B"
    assert spec.p_active == total - vocab * d
    # The mixers are the layers: 28, of which the 4 attention ones (the 5th, 11th, 17th and 23rd) keep a cache.
    assert (spec.n_layers, spec.n_kv_layers, spec.n_full_layers) == (28, 4, 4)
    assert [i for i in range(28) if i not in spec.state_layers] == [4, 10, 16, 22]
    state = 24 * (inner * 128 + 3 * conv) * 2  # a 64 × 128 matrix per head and 3 conv inputs, 16 bits each
    assert spec.state_bytes == state == 51_806_208
    assert kv_bytes_per_token(spec, 1.0) == 4 * 2 * 8 * 128
    assert float(kv_bytes_per_sequence(spec, 1.0, 8192)) == 4 * 2 * 8 * 128 * 8192 + state
    # Only those 4 layers have attention projections to run (on one rank under attention data parallelism).
    assert calibrated.attention_projection_params(spec) == 4 * attention
    # Each of the 52 blocks ends in one tensor-parallel all-reduce, not two per mixer (56).
    assert spec.allreduces == 52
    one = 1e-6 + 7 / 8 * 16 * d * 2 / 900e9  # α + (k − 1)/k · B·d·b / BW at B = 16, k = 8, 16-bit activations
    assert float(engine.t_allreduce(16, 8, spec, 2, 900e9, 1e-6)) == pytest.approx(52 * one, rel=1e-12)
    # Transformers' newer configs spell the blocks out, and may write its class's default expert count.
    spelt = [{"M": "mamba", "*": "attention", "-": "mlp"}[c] for c in cfg["hybrid_override_pattern"]]
    rewritten = {k: v for k, v in cfg.items() if k != "hybrid_override_pattern"}
    assert spec_from_config({**rewritten, "layers_block_type": spelt, "n_routed_experts": 8}, "nemotron") == spec
    assert spec_from_key(config_key(cfg, "nemotron")) == spec


def test_jamba_by_hand():
    """Jamba: attention on every 8th layer from the 5th, Mamba-1 on the others; 16 experts (2 a token) on every
    other layer from the 2nd, a dense MLP on the rest."""
    cfg = config("Jamba-v0.1")
    spec = spec_from_config(cfg, "jamba")
    d, inner, rank, vocab, mlp = 4096, 8192, 256, 65_536, 3 * 4096 * 14_336
    # in (x and z), conv (4 taps, a bias), x to the time step's rank and B, C; the time step up (a bias); A, D; out;
    # Jamba's norms of the time step, B and C.
    mamba = d * 2 * inner + 5 * inner + inner * (rank + 32) + rank * inner + inner + inner * 16 + inner + inner * d
    mamba += rank + 32
    attention = 2 * d * 32 * 128 + 2 * d * 8 * 128
    total = 2 * vocab * d + 28 * mamba + 4 * attention + 16 * mlp + 16 * (16 * mlp + d * 16) + 32 * 2 * d + d
    assert spec.p_total == total == pytest.approx(52e9, rel=0.01)  # AI21's "52B"
    assert spec.p_active == total - 16 * 14 * mlp - vocab * d == pytest.approx(12e9, rel=0.02)  # "12B active"
    assert [i for i in range(32) if i not in spec.state_layers] == [4, 12, 20, 28]
    assert (spec.n_kv_layers, spec.n_moe_layers, spec.experts_per_token) == (4, 16, 2)
    assert spec.state_bytes == 28 * (inner * 16 + 3 * inner) * 2  # 16 numbers a channel, 3 conv inputs; 16 bits
    assert spec_from_config({**cfg, "mamba_dt_rank": "auto"}, "jamba") == spec  # 4096 / 16
    assert spec_from_key(config_key(cfg, "jamba")) == spec


def test_nemotron_h_expert_blocks_by_hand():
    """Blocks of experts (E) in place of the MLPs: two-matrix experts, 6 of 64 a token, and shared experts as wide
    as moe_shared_expert_intermediate_size all together (n_shared_experts counts them, no more parameters)."""
    cfg = config("Nemotron-H-8B-Base-8K")
    moe = {"n_routed_experts": 64, "num_experts_per_tok": 6, "moe_intermediate_size": 1024, "n_shared_experts": 2}
    moe |= {"moe_shared_expert_intermediate_size": 2048}
    blocks = cfg["hybrid_override_pattern"].replace("-", "E")
    spec = spec_from_config({**cfg, **moe, "hybrid_override_pattern": blocks}, "x")
    dense = spec_from_config(cfg, "x")
    d, expert = 4096, 2 * 4096 * 1024
    layer = 64 * expert + 2 * d * 2048 + d * 64  # routed experts, the shared ones, the router
    assert spec.p_total == dense.p_total - 24 * 2 * d * 21_504 + 24 * layer
    assert spec.p_active == spec.p_total - 24 * 58 * expert - 131_072 * d
    assert (spec.n_moe_layers, spec.n_dense_layers, spec.n_shared_experts, spec.expert_params) == (24, 4, 2, expert)


GRANITE_4_H_SMALL = {  # ibm-granite/granite-4.0-h-small's sizes; the attention layers' places do not change a count
    "model_type": "granitemoehybrid", "hidden_size": 4096, "num_hidden_layers": 40, "num_attention_heads": 32,
    "num_key_value_heads": 8, "num_local_experts": 72, "num_experts_per_tok": 10, "intermediate_size": 768,
    "shared_intermediate_size": 1536, "mamba_n_heads": 128, "mamba_d_head": 64, "mamba_d_state": 128,
    "mamba_n_groups": 1, "mamba_d_conv": 4, "mamba_expand": 2, "mamba_conv_bias": True, "mamba_proj_bias": False,
    "tie_word_embeddings": True, "vocab_size": 100_352, "layer_types": (["mamba"] * 9 + ["attention"]) * 4,
}  # fmt: skip


def test_granite_4_by_hand():
    """Granite 4.0 H Small: 36 Mamba-2 and 4 attention layers, every one with 72 experts (10 a token) and a shared
    MLP of shared_intermediate_size; without experts (H Micro) that MLP is the layer's only one."""
    spec = spec_from_config(GRANITE_4_H_SMALL, "granite")
    d, vocab, expert = 4096, 100_352, 3 * 4096 * 768
    inner, conv = 128 * 64, 128 * 64 + 2 * 128  # one group's B and C
    mamba = d * (2 * inner + 2 * 128 + 128) + 5 * conv + 3 * 128 + inner + inner * d  # conv: 4 taps and a bias
    attention = 2 * d * 32 * 128 + 2 * d * 8 * 128
    moe = 72 * expert + 3 * d * 1536 + d * 72  # routed experts, the shared MLP, the router
    total = vocab * d + 36 * mamba + 4 * attention + 40 * (moe + 2 * d) + d  # tied embeddings
    assert spec.p_total == total == pytest.approx(32e9, rel=0.01)  # IBM's "32B"
    assert spec.p_active == total - 40 * 62 * expert == pytest.approx(9e9, rel=0.03)  # "9B active"
    assert (spec.n_kv_layers, spec.n_moe_layers) == (4, 40)
    assert spec.state_bytes == 36 * (inner * 128 + 3 * conv) * 2
    assert spec_from_key(config_key(GRANITE_4_H_SMALL, "granite")) == spec
    micro = spec_from_config({**GRANITE_4_H_SMALL, "num_local_experts": 0, "shared_intermediate_size": 8192}, "m")
    assert micro.p_total == total - 40 * moe + 40 * 3 * d * 8192 and not micro.is_moe


def test_a_mamba_models_requests_each_hold_their_state():
    """B_max = ⌊η · headroom / (S κ(S))⌋ with S κ(S) four attention layers' KV and 24 Mamba layers' state: Nemotron-H
    8B on one H200 at 8K tokens, FP8 weights and KV."""
    key = config_key(config("Nemotron-H-8B-Base-8K"), "Nemotron-H-8B-Base-8K")
    scn = Scenario.from_params(model=key, gpus=1, tp=1, ctx=8192, isl=1024)
    per_request = 8192 * 8192 + 51_806_208
    assert scn.kappa == per_request / 8192
    assert scn.headroom == 141e9 - scn.model.p_total
    assert scn.b_max == int(0.87 * (141e9 - 8_100_852_736) / per_request) == 972


def test_a_multimodal_config_is_read_by_its_language_model():
    nested = {"model_type": "llava", "text_config": config("Meta-Llama-3-8B"), "vision_config": {"hidden_size": 1}}
    assert spec_from_config(nested, "x") == spec_from_config(config("Meta-Llama-3-8B"), "x")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"num_hidden_layers": None}, "no num_hidden_layers"),
        ({"hidden_size": "big"}, "hidden_size = 'big': expected a whole number"),
        ({"num_attention_heads": True}, "num_attention_heads = True"),
        ({"num_hidden_layers": 10**12}, "num_hidden_layers = 1000000000000: expected a whole number from 1 to 4,19"),
        # Every layer is looked at: a key of a few hundred characters must not ask for millions of them.
        ({"num_hidden_layers": 4097, "sliding_window_pattern": 6}, "num_hidden_layers = 4,097: at most 4,096, past"),
        ({"sliding_window": 10**400}, r"sliding_window = 1+0+\.\.\.0+: expected a whole number"),
        ({"intermediate_size": 1.5}, "intermediate_size = 1.5"),
        ({"head_dim": float("nan")}, "head_dim = nan"),
        ({"vocab_size": 0}, "vocab_size = 0: expected a whole number from 1 to"),
        # Zero KV heads is no attention, not "as many as the query heads".
        ({"num_key_value_heads": 0}, "num_key_value_heads = 0: expected a whole number from 1"),
        # Flags are JSON's true and false: "false" and "no" are strings, which Python reads as true.
        ({"sliding_window": 4096, "use_sliding_window": "false"}, "use_sliding_window = 'false': expected true or"),
        ({"attention_bias": "no"}, "attention_bias = 'no': expected true or false"),
        ({"tie_word_embeddings": "no"}, "tie_word_embeddings = 'no': expected true or false"),
        ({"sliding_window": "4096"}, "sliding_window = '4096': expected a whole number"),
        ({"sliding_window": -5}, "sliding_window = -5: expected a whole number from 0"),
        # One kind per layer, as gpt-oss lists them: a string, or a list shorter than the layers, is refused.
        (
            {"sliding_window": 128, "layer_types": "sliding_attention"},
            "layer_types: expected a list of 32 layer kinds, one per layer; got str",
        ),
        ({"sliding_window": 128, "layer_types": ["sliding_attention"]}, "one per layer; got a list of 1$"),
        ({"sliding_window": 128, "layer_types": [1] * 32}, "one per layer; got a list of 32$"),
        ({"num_key_value_heads": 5}, "GQA needs fewer KV heads than query heads, dividing them"),
        ({"num_local_experts": 8, "num_experts_per_tok": 9}, "experts per token must be in 1…8"),
    ],
)
def test_a_config_that_is_not_a_model_says_which_field(change, message):
    broken = {k: v for k, v in {**config("Meta-Llama-3-8B"), **change}.items() if v is not None}
    with pytest.raises(ModelConfigError, match=message):
        spec_from_config(broken, "x")


def test_a_latent_attention_head_needs_a_value_dimension():
    with pytest.raises(ModelConfigError, match="v_head_dim = 0: expected a whole number from 1"):
        spec_from_config({**config("DeepSeek-R1"), "v_head_dim": 0}, "x")


def test_a_config_with_a_byte_order_mark_reads_as_without(tmp_path):
    body = (CONFIGS / "Mistral-7B-v0.1" / "config.json").read_bytes()
    (tmp_path / "Mistral-7B-v0.1").mkdir()
    (tmp_path / "Mistral-7B-v0.1" / "config.json").write_bytes(b"\xef\xbb\xbf" + body)  # as some editors save it
    folders = (tmp_path / "Mistral-7B-v0.1", CONFIGS / "Mistral-7B-v0.1")
    (key, spec), (plain_key, plain) = (read_model_config(p / "config.json") for p in folders)
    assert key == plain_key and replace(spec, source="") == replace(plain, source="")
    assert model_from_upload(data_url(b"\xef\xbb\xbf" + body), "c.json") == model_from_upload(data_url(body), "c.json")


def test_a_config_too_long_to_carry_in_a_link_says_so():
    deep = {**config("Mistral-7B-v0.1"), "num_hidden_layers": 4000}
    deep["layer_types"] = ["sliding_attention" if i % 3 else "full_attention" for i in range(4000)]
    with pytest.raises(ModelConfigError, match=r"^too large to carry in a link: its fields take [\d,]+ bytes"):
        model_from_upload(data_url(json.dumps(deep).encode()), "deep.json")


def test_a_file_that_is_not_a_config_names_the_file(tmp_path):
    cases = {
        "missing.json": (None, "cannot read it"),
        "garbage.json": (b"{'a':", "not JSON"),
        "latin1.json": ('{"x": "é"}'.encode("latin-1"), "not UTF-8"),
        "list.json": (b"[1, 2]", "expected a JSON object"),
        "huge.json": (b" " * (MAX_CONFIG_BYTES + 1), "not a config.json"),
        # Python's own words for this name sys.set_int_max_str_digits; ours say what is wrong with the file.
        "long-number.json": (b'{"hidden_size": ' + b"9" * 5000 + b"}", r"not JSON \(a number of more than 4,300"),
    }
    for name, (body, message) in cases.items():
        path = tmp_path / name
        if body is not None:
            path.write_bytes(body)
        with pytest.raises(ModelConfigError, match=message) as err:
            read_model_config(path)
        assert str(err.value).startswith(f"{path}: "), err.value
    # A device has no size to check first: its reading stops past the limit instead of going on for ever.
    with pytest.raises(ModelConfigError, match=r"^/dev/zero: larger than 1024 KiB, so not a config.json"):
        read_model_config("/dev/zero")
    with pytest.raises(ModelConfigError, match="^no file name given, so not a config.json"):
        read_model_config("")


def test_a_config_joins_the_catalog_under_its_name(catalog, tmp_path):
    assert read_model_config(MIXTRAL)[0] == "mixtral-8x7b-v0.1"  # from its folder: the file is config.json
    named = tmp_path / "mine.json"
    named.write_text(json.dumps({**config("Mistral-7B-v0.1"), "_name_or_path": "/models/acme/Acme Chat 7B/"}))
    assert add_model_configs([MIXTRAL, named, MIXTRAL]) == ["mixtral-8x7b-v0.1", "acme-chat-7b", "mixtral-8x7b-v0.1"]
    assert catalog["acme-chat-7b"].name == "Acme Chat 7B"
    # A key means one model: a different model under a catalog name is refused, the catalog left as it was.
    clash = tmp_path / "clash.json"
    clash.write_text(json.dumps({**config("DeepSeek-R1"), "_name_or_path": "deepseek-ai/DeepSeek-R1"}))
    before = dict(catalog)
    with pytest.raises(ModelConfigError, match="already has a model called 'deepseek-r1'"):
        add_model_configs([clash])
    assert catalog == before


def test_inferx_models_adds_every_file_it_names(catalog):
    env = {"INFERX_MODELS": f"{MIXTRAL}{os.pathsep}{MISTRAL}{os.pathsep}"}
    assert add_models_from_env(env) == ["mixtral-8x7b-v0.1", "mistral-7b-v0.1"]
    assert add_models_from_env({}) == []
    with pytest.raises(ModelConfigError, match=r"^INFERX_MODELS: /nowhere/config.json: cannot read it"):
        add_models_from_env({"INFERX_MODELS": "/nowhere/config.json"})


def test_the_cli_serves_a_model_from_its_config(catalog, capsys):
    assert cli.main(["point", "--model-config", str(MIXTRAL), "--gpu", "h100", "--gpus", "2", "--batch", "16"]) == 0
    record = json.loads(capsys.readouterr().out)
    # 32 layers · 2 · 8 KV heads · 128 dims at FP8: 65,536 bytes per token of context.
    assert record["kappa_bytes_per_token"] == 65_536 and record["throughput_tok_s"] > 0
    mixtral = Scenario.from_params(model="mixtral-8x7b-v0.1", gpu="h100", gpus=2)
    assert record["b_max"] == mixtral.b_max
    # --model still chooses: the config's model joins the catalog beside it.
    assert cli.main(["point", "--model-config", str(MISTRAL), "--model", "llama-3-8b", "--batch", "4"]) == 0
    assert json.loads(capsys.readouterr().out)["kappa_bytes_per_token"] == 131_072 / 2  # Llama-3-8B at FP8
    assert cli.main(["models", "--format", "json", "--model-config", str(MISTRAL)]) == 0
    listed = {r["key"]: r for r in json.loads(capsys.readouterr().out)}
    assert listed["mistral-7b-v0.1"]["sliding_window"] == 4096 and "deepseek-r1" in listed


def test_the_cli_refuses_a_bad_config_in_one_line(catalog, capsys, tmp_path, monkeypatch):
    bad = tmp_path / "config.json"
    bad.write_text("{}")
    with pytest.raises(SystemExit) as stop:
        cli.main(["point", "--model-config", str(bad)])
    assert stop.value.code == 2
    why = f"{bad}: no hidden_size: a config.json of a decoder gives it"
    assert capsys.readouterr().err.strip().splitlines()[0] == f"inferx point: error: {why}"
    monkeypatch.setenv("INFERX_MODELS", str(bad))
    assert cli.main(["models"]) == 2
    assert capsys.readouterr().err == f"inferx: INFERX_MODELS: {why}\n"


def test_the_page_offers_and_draws_an_added_model(catalog):
    (key,) = add_model_configs([MIXTRAL])
    page = home.layout(model=key, gpu="h100", gpus="2")
    menu = next(c for c in page._traverse() if getattr(c, "id", None) == control_id("model"))
    assert menu.value == key and {"label": "Mixtral-8x7B-v0.1", "value": key} in menu.options
    scn = Scenario.from_params(model=key, gpu="h100", gpus=2)
    for name, fig in registry.build(scn, batch=16).items():
        values = [v for t in fig["data"] for k in ("x", "y") for v in (t.get(k) or ()) if not isinstance(v, str)]
        assert values and np.isfinite(np.array(values, dtype=float)).all(), name


# --- A model carried by its key: the browser's upload, a shared address, the CLI ------------------------------


def data_url(body: bytes) -> str:
    return "data:application/json;base64," + base64.b64encode(body).decode()


@pytest.mark.parametrize("folder", sorted(p.name for p in CONFIGS.iterdir()))
def test_a_models_key_carries_it(folder):
    cfg = config(folder)
    key = config_key(cfg, folder)
    assert spec_from_key(key) == spec_from_config(cfg, folder)
    assert key == key.lower() and key.startswith(catalog_key(folder)[:40] + "~1") and len(key) < 500
    assert key in MODELS and MODELS[key] is spec_from_key(key) and key not in list(MODELS)  # checked, never listed
    assert Scenario.from_params(model=key).model == spec_from_config(cfg, folder)


def test_a_damaged_or_hostile_key_is_refused_in_words():
    key = config_key(config("Mixtral-8x7B-v0.1"), "Mixtral-8x7B-v0.1")
    bomb = base64.b32encode(zlib.compress(b"[" + b" " * (MAX_PAYLOAD_BYTES + 10) + b'"x"]')).decode().lower()
    as_dict = base64.b32encode(zlib.compress(json.dumps({"name": "x"}).encode())).decode().lower()
    cases = {
        key[:-4] + "aaaa": "damaged",
        key[:70]: "damaged",
        "x~2" + key.split("~1", 1)[1]: "not of the form name~1",
        "x~1" + "a" * 2000: "not of the form name~1",
        "x~1" + bomb.rstrip("="): "damaged (payload too long or cut short)",
        "x~1" + as_dict.rstrip("="): "damaged (not a list of values)",
    }
    for bad, why in cases.items():
        assert bad not in MODELS and MODELS.get(bad) is None
        with pytest.raises(InvalidParameter, match=re.escape(why)) as err:
            check_param("model", bad)
        assert "is not a readable model key" in str(err.value)
    with pytest.raises(InvalidParameter, match="must be one of deepseek-r1"):
        check_param("model", "gpt-5")


def test_an_upload_selects_the_model_its_key_carries():
    body = (CONFIGS / "Mixtral-8x7B-v0.1" / "config.json").read_bytes()
    key, spec = model_from_upload(data_url(body), "config.json")
    assert spec.name == "mixtral 46.7B"  # a bare config.json: named by its kind and size
    assert spec == spec_from_config(json.loads(body), "mixtral 46.7B") and spec_from_key(key) == spec
    named = json.dumps({**json.loads(body), "_name_or_path": "mistralai/Mixtral-8x7B-v0.1"}).encode()
    assert model_from_upload(data_url(named), "config.json")[1].name == "Mixtral-8x7B-v0.1"
    assert model_from_upload(data_url(body), "mixtral.json")[1].name == "mixtral"
    bad = {
        "not a file upload": ("config.json", None),
        "not a JSON file": ("data:application/json;base64,@@@", None),
        "larger than 1 MiB": (data_url(b" " * (MAX_CONFIG_BYTES + 100)), None),
        r"not a JSON file \(a number of more than 4,300 digits\)": (data_url(b"[" + b"1" * 4301 + b"]"), None),
        r"not a JSON file \(not UTF-8 text at byte 3\)$": (data_url(b'{"a\xbe": 1}'), None),
        r"not a JSON file \(not UTF-8 text at byte 6\)$": (data_url(b'\xef\xbb\xbf{"a\xbe": 1}'), None),  # BOM counted
        "no hidden_size": (data_url(b'{"vocab_size": 5}'), None),
    }
    for why, (contents, _) in bad.items():
        with pytest.raises(ModelConfigError, match=why):
            model_from_upload(contents, "config.json")


def test_the_page_offers_the_model_its_address_carries_and_no_other(catalog):
    key = config_key(config("Mixtral-8x7B-v0.1"), "Mixtral-8x7B-v0.1")
    page = home.layout(model=key, gpu="h100", gpus="2")
    menu = next(c for c in page._traverse() if getattr(c, "id", None) == control_id("model"))
    assert menu.value == key and menu.options[-1] == {"label": "Mixtral-8x7B-v0.1 (config.json)", "value": key}
    others = next(c for c in home.layout()._traverse() if getattr(c, "id", None) == control_id("model"))
    assert [o["value"] for o in others.options] == list(MODELS)  # one user's model is not in another's menu
    # A pinned A may be such a model too.
    assert parse_pinned(f"model:{key},gpu:h100") == ({"model": key, "gpu": "h100"}, [])


def test_the_upload_callback_selects_the_model_or_says_why_not():
    body = (CONFIGS / "Mistral-7B-v0.1" / "config.json").read_bytes()
    options, value, note = choose_uploaded_model(data_url(body), "mistral.json")
    assert options[-1]["value"] == value and spec_from_key(value).sliding_window == 4096
    assert note.startswith(
        "mistral: 7.24 billion parameters, 7.11 billion read per token (dense), 65,536 bytes of KV cache"
    )
    options, value, note = choose_uploaded_model(data_url(b"{}"), "x.json")
    assert options is no_update and value is no_update
    assert note == "Could not read x.json: no hidden_size: a config.json of a decoder gives it"


@pytest.mark.parametrize(
    ("folder", "read"),
    [
        ("Qwen3-Next-80B-A3B-Instruct", "12,288 bytes of KV cache per token at FP8, and 39.5 MB of recurrent state"),
        ("Nemotron-H-8B-Base-8K", "8,192 bytes of KV cache per token at FP8, and 51.8 MB of recurrent state"),
        ("Jamba-v0.1", "8,192 bytes of KV cache per token at FP8, and 8.72 MB of recurrent state"),
    ],
)
def test_an_uploaded_recurrent_model_names_its_state_and_draws(folder, read):
    body = (CONFIGS / folder / "config.json").read_bytes()
    _, value, note = choose_uploaded_model(data_url(body), "config.json")
    assert read in note and "Mamba or linear-attention layers (held at 16 bits)" in note
    assert (
        "dense), 65,536 bytes of KV cache per token at FP8. The address"
        in choose_uploaded_model(data_url((CONFIGS / "Mistral-7B-v0.1" / "config.json").read_bytes()), "m.json")[2]
    )  # no state, no clause
    scn = Scenario.from_params(model=value, ctx=8192, isl=1024)
    for name, fig in registry.build(scn, batch=64).items():
        values = [v for t in fig["data"] for k in ("x", "y") for v in (t.get(k) or ()) if not isinstance(v, str)]
        assert values and np.isfinite(np.array(values, dtype=float)).all(), name


def test_the_cli_takes_a_models_key(capsys):
    key = config_key(config("Mixtral-8x7B-v0.1"), "Mixtral-8x7B-v0.1")
    assert cli.main(["point", "--model", key, "--gpu", "h100", "--gpus", "2", "--batch", "16"]) == 0
    assert json.loads(capsys.readouterr().out)["b_max"] == Scenario.from_params(model=key, gpu="h100", gpus=2).b_max
