"""The model and hardware catalogs: hand-worked numbers, every model on every GPU, and the listings."""

import json
import math
import re
from dataclasses import replace

import numpy as np
import pytest
from cli_checks import run_inferx

from inferx.physics import engine as E
from inferx.physics import model_spec
from inferx.physics import models as M
from inferx.physics.gpu import MAX_GPUS
from inferx.physics.hardware import GPUS, Machine, fit_message, memory_fit_message
from inferx.physics.models import DEEPSEEK_R1
from inferx.physics.presets import HARDWARE
from inferx.scenario.evaluation import Scenario
from inferx.scenario.machines import article_machine
from inferx.serving import model as calibrated

WEIGHTS_SENTENCE = re.compile(r"^needs [\d,]+ GB of weights; the machine has [\d,]+ GB$")


# --- DeepSeek-R1 is the article's model --------------------------------------------------


def test_deepseek_r1_from_the_catalog_is_the_articles_model():
    r1 = M.MODELS["deepseek-r1"]
    assert r1 is DEEPSEEK_R1  # the presets and the scenario's default read the catalog entry
    assert Scenario.from_params().model is r1
    # The article's model table: κ = 61 layers × (512 + 64) × 1 byte, 671 GB of FP8 weights, 37e9 active.
    assert M.kv_bytes_per_token(r1, 1.0) == 61 * (512 + 64) == 35_136
    assert M.kv_bytes_per_token(r1, 2.0) == 70_272
    assert E.kv_bytes_per_token(r1, 1.0) == 35_136
    assert M.weight_bytes(r1, 1.0) == 671e9
    assert r1.p_active == 37e9 and M.flops_per_token(r1) == 74e9
    assert (r1.n_layers, r1.d_model, r1.n_q_heads, r1.d_head) == (61, 7168, 128, 128)
    assert r1.n_moe_layers == 61 - 3 and r1.expert_params == 3 * 7168 * 2048


def test_prefill_attention_term_generalises_the_articles():
    S = np.array([1.0, 1024, 8192, 100_000])
    for model in M.MODELS.values():
        if model.n_window_layers:
            continue
        # L counts the layers that attend: Qwen3-Next's 12 of 48, its linear-attention layers add no S² term.
        coefficient = 4 * model.n_kv_layers * model.n_q_heads * model.d_head
        assert M.prefill_attention_coefficient(model) == coefficient
        np.testing.assert_allclose(M.prefill_attention_flops(model, S), coefficient * S**2)
        # The engine's t_prefill at unit compute is the same FLOP count.
        np.testing.assert_allclose(M.prefill_flops(model, S), E.t_prefill(S, model, 1.0))


def test_expert_coverage_matches_the_calibrated_models_weights_read():
    r1 = DEEPSEEK_R1
    B = np.array([1, 8, 64, 512, 4096])
    np.testing.assert_allclose(M.params_read_per_step(r1, B), calibrated.weight_bytes(B, r1, 1.0))
    np.testing.assert_allclose(M.expected_distinct_experts(r1, B), calibrated.distinct_experts(B, r1))


# --- Hand-worked numbers -----------------------------------------------------------------


@pytest.mark.parametrize(
    "key,b_kv,kappa",
    [
        ("llama-3-8b", 2, 2 * 32 * 8 * 128 * 2),  # 131,072
        ("llama-2-13b", 2, 2 * 40 * 40 * 128 * 2),  # multi-head: 819,200
        ("llama-3.3-70b", 2, 2 * 80 * 8 * 128 * 2),  # 327,680
        ("llama-3.1-405b", 1, 2 * 126 * 8 * 128),
        ("qwen3-235b-a22b", 2, 2 * 94 * 4 * 128 * 2),
        ("kimi-k2", 1, 61 * (512 + 64)),  # the same MLA sizes and depth as DeepSeek-R1
        ("gpt-oss-120b", 2, 2 * 36 * 8 * 64 * 2),  # every layer, at contexts inside the 128-token window
    ],
)
def test_kv_bytes_per_token_by_hand(key, b_kv, kappa):
    model = M.MODELS[key]
    assert M.kv_bytes_per_token(model, b_kv) == kappa
    assert M.kv_bytes_per_token(model, b_kv, context=64) == kappa


def test_sliding_window_layers_stop_growing_at_their_window():
    oss = M.GPT_OSS_120B
    per_layer_token = 2 * 8 * 64 * 2  # K and V, 8 heads of 64, BF16
    # 18 full layers hold all 8,192 tokens; 18 windowed layers hold 128.
    assert M.kv_bytes_per_sequence(oss, 2, 8192) == per_layer_token * (18 * 8192 + 18 * 128)
    assert M.kv_bytes_per_token(oss, 2, 8192) == per_layer_token * (18 * 8192 + 18 * 128) / 8192
    # Far past the window κ tends to the full layers' share alone.
    assert M.kv_bytes_per_token(oss, 2, 10**9) == pytest.approx(18 * per_layer_token, rel=1e-6)
    # The prefill attention term: windowed layers grow linearly in S once S passes the window.
    S = 8192
    assert M.prefill_attention_flops(oss, S) == 4 * 64 * 64 * S * (18 * S + 18 * 128)
    assert M.prefill_attention_coefficient(oss) == 4 * 18 * 64 * 64


def test_expert_coverage_limits():
    for model in M.MODELS.values():
        if not model.is_moe:
            assert M.expected_distinct_experts(model, 64) == 0
            assert M.params_read_per_step(model, 64) == model.p_total
            continue
        k, E_ = model.experts_per_token, model.n_routed_experts
        assert M.expected_distinct_experts(model, 1) == pytest.approx(k)  # one token: its k experts
        assert M.expected_distinct_experts(model, 10**6) == pytest.approx(E_)  # a huge batch touches them all
        assert M.params_read_per_step(model, 10**6) == pytest.approx(model.p_total)
        # One token reads about its active parameters (the total also counts the input embedding table).
        assert 0.95 * model.p_active < M.params_read_per_step(model, 1) < 1.15 * model.p_active


def test_published_totals_agree_with_the_moe_structure():
    # Routed experts are most of a MoE model, never more than all of it (Llama 4 Scout's the least, 90 %: beside
    # its 16 experts a layer holds a shared one as large).
    for model in M.MODELS.values():
        if model.is_moe:
            routed = model.n_moe_layers * model.n_routed_experts * model.expert_params
            assert 0.85 * model.p_total < routed < model.p_total, model.name


def test_bad_model_specs_are_refused():
    base = M.LLAMA3_8B
    with pytest.raises(ValueError, match="GQA"):
        replace(base, n_kv_heads=32)
    with pytest.raises(ValueError, match="MHA"):
        replace(base, attention="mha")
    with pytest.raises(ValueError, match="MLA"):
        replace(base, attention="mla")
    with pytest.raises(ValueError, match="attention"):
        replace(base, attention="linear")
    with pytest.raises(ValueError, match="window"):
        replace(base, sliding_window=128, window_layers=(32,))
    with pytest.raises(ValueError, match="window"):
        replace(base, sliding_window=128, window_layers=(2, 2))
    with pytest.raises(ValueError, match="window"):
        replace(base, window_layers=(2,))
    with pytest.raises(ValueError, match="experts per token"):
        replace(M.QWEN3_235B, experts_per_token=129)
    # Recurrent layers: a state of some size, on layers that are not windowed, and at least one attention layer.
    with pytest.raises(ValueError, match="recurrent layers need a state"):
        replace(base, state_layers=(0, 1))
    with pytest.raises(ValueError, match="recurrent layers need a state"):
        replace(base, state_bytes=1e6)
    with pytest.raises(ValueError, match="recurrent layers need a state"):
        replace(base, sliding_window=128, window_layers=(2,), state_layers=(2,), state_bytes=1e6)
    with pytest.raises(ValueError, match="at least one attention layer"):
        replace(base, state_layers=tuple(range(32)), state_bytes=1e6)


# --- GPUs and machines -------------------------------------------------------------------


def test_h100_numbers_the_roofline_texts_use():
    h100 = GPUS["h100"]
    assert h100.peak("bf16") == h100.peak("fp16") == 989.5e12
    assert h100.peak("bf16", sparse=True) == 1_979e12
    assert h100.ridge("bf16") == pytest.approx(989.5 / 3.35)
    assert h100.peak("fp4") is None and GPUS["a100"].peak("fp8") is None
    with pytest.raises(ValueError, match="precision"):
        h100.peak("fp64")


def test_sparse_figures_are_kept_apart_from_dense():
    for key, gpu in GPUS.items():
        for precision in ("bf16", "fp8", "fp4"):
            dense, sparse = gpu.peak(precision), gpu.peak(precision, sparse=True)
            assert (dense is None) == (sparse is None), (key, precision)
            if dense is None:
                continue
            if key == "b300" and precision == "fp4":
                assert dense < sparse < 2 * dense  # Blackwell Ultra's dense FP4 is 1.5× B200's; sparse is not
            else:
                assert sparse == pytest.approx(2 * dense, rel=1e-4), (key, precision)
        assert gpu.fp8 is None or gpu.fp8 == pytest.approx(2 * gpu.bf16, rel=1e-4)


def test_machine_adds_up_its_gpus():
    m = Machine(GPUS["h200"], 8)
    assert (m.hbm, m.bw, m.power) == (8 * 141e9, 8 * 4.8e12, 8 * 700)
    assert m.peak("fp8") == 8 * 1_979e12 and m.peak("fp4") is None
    assert m.label == "8×H200 SXM"
    assert m.scale_up_domains == 1 and Machine(GPUS["h100"], 16).scale_up_domains == 2
    assert Machine(GPUS["gb200"], 72).scale_up_domains == 1


@pytest.mark.parametrize("count", [0, 73, 2.5, True, "8"])
def test_machine_count_must_be_1_to_72(count):
    with pytest.raises(ValueError, match=f"1…{MAX_GPUS}"):
        Machine(GPUS["h100"], count)


def test_presets_are_named_catalog_machines():
    # Every number of the article's presets is its catalog machine's, except what the preset says.
    for key, hw in HARDWARE.items():
        m = hw.machine
        assert hw.bw == pytest.approx(m.bw, rel=1e-12)
        assert hw.compute == pytest.approx(m.peak("fp8", hw.sparse_compute), rel=1e-3)
        # The sparse flag is exactly where the article's per-GPU compute is twice the dense datasheet.
        assert hw.sparse_compute == (hw.compute / hw.n_gpus > 1.5 * m.gpu.fp8)
        # The calibrated model still keeps its own preset -> family table; it must agree with the presets.
        assert hw.family == calibrated.PRESET_FAMILY[key]
        if key == "b200x8":
            assert (hw.hbm, m.hbm) == (8 * 192e9, 8 * 180e9) and "192 GB" in hw.note
        else:
            assert hw.hbm == pytest.approx(m.hbm, rel=1e-12)


# --- Every model on every GPU --------------------------------------------------------------


@pytest.mark.parametrize("gpu", list(GPUS))
@pytest.mark.parametrize("model", list(M.MODELS))
def test_every_model_on_every_gpu_at_8_gpus(model, gpu):
    spec, machine = M.MODELS[model], Machine(GPUS[gpu], 8)
    for wdtype in ("bf16", "fp8"):
        weights = M.weight_bytes(spec, model_spec.DTYPE_BYTES[wdtype])
        kappa = M.kv_bytes_per_token(spec, 1.0, 8192)
        assert math.isfinite(weights) and weights > 0 and math.isfinite(kappa) and kappa > 0
        message = fit_message(spec, machine, wdtype, "fp8", 8192)
        scn = Scenario.from_params(model=model, gpu=gpu, gpus=8, tp=8, ctx=8192, wdtype=wdtype)
        # Eight B200s or H200s are the article's machine, with its numbers (192 GB per B200); others the datasheet.
        preset = article_machine(gpu, 8)
        bw, hbm = (HARDWARE[preset].bw, HARDWARE[preset].hbm) if preset else (machine.bw, machine.hbm)
        assert (scn.bw, scn.hbm) == (bw, hbm)
        if weights >= hbm:
            assert WEIGHTS_SENTENCE.match(scn.unfit_reason()), scn.unfit_reason()
            if not preset:  # the same sentence on the page and from the CLI
                assert scn.unfit_reason() == message
            continue
        assert message is None
        b_max = int(E.b_max(hbm - weights, 8192, kappa))
        assert b_max >= 1
        assert scn.b_max == int(E.b_max(hbm - weights, 8192, kappa, scn.eta))
        r = scn.evaluate([1, scn.b_max])
        assert all(np.isfinite(r[k]).all() for k in ("throughput", "itl", "t_step"))


def test_fit_message_sentences():
    h200x8 = Machine(GPUS["h200"], 8)
    assert fit_message(DEEPSEEK_R1, h200x8, "fp16") == "needs 1,342 GB of weights; the machine has 1,128 GB"
    assert fit_message(DEEPSEEK_R1, h200x8, "fp8") is None
    assert fit_message(M.LLAMA31_405B, Machine(GPUS["h100"], 8), "bf16") == (
        "needs 812 GB of weights; the machine has 640 GB"
    )
    # Weights that fit can still leave too little room for one long sequence's cache.
    one_h100 = Machine(GPUS["h100"], 1)
    message = fit_message(M.LLAMA33_70B, one_h100, "fp8", "bf16", 131_072)
    assert message == "one 131,072-token sequence needs 43 GB of KV cache; 9.40 GB is left after 71 GB of weights"
    assert memory_fit_message(10e9, 80e9) is None


# --- Listings --------------------------------------------------------------------------------


def test_models_listing_table_and_json():
    table = run_inferx("models")
    assert table.returncode == 0, table.stderr
    for key in M.MODELS:
        assert key in table.stdout
    head = table.stdout.splitlines()[0]  # billions of parameters and bytes were both "B"
    assert "params total (B)" in head and "active (B)" in head and "κ BF16 bytes/token" in head
    records = json.loads(run_inferx("models", "--format", "json").stdout)
    assert [r["key"] for r in records] == list(M.MODELS)
    r1 = records[0]
    assert r1["kv_bytes_per_token_fp8"] == 35_136 and r1["weights_gb_fp8"] == 671
    assert r1["source"].startswith("https://huggingface.co/")
    oss = next(r for r in records if r["key"] == "gpt-oss-120b")
    assert oss["window_layers"] == list(range(0, 36, 2)) and oss["sliding_window"] == 128


def test_hardware_listing_table_json_and_gpu_count():
    table = run_inferx("hardware")
    assert table.returncode == 0, table.stderr
    assert "dense" in table.stdout
    for key in GPUS:
        assert key in table.stdout
    records = {r["key"]: r for r in json.loads(run_inferx("hardware", "--gpus", "8", "--format", "json").stdout)}
    assert list(records) == list(GPUS)
    h200 = records["h200"]
    assert (h200["gpus"], h200["hbm_gb"], h200["hbm_tb_s"]) == (8, 1128, 38.4)
    assert h200["dense_fp8_tflops"] == 8 * 1_979 and h200["sparse_fp8_tflops"] == 8 * 3_958
    assert records["a100"]["dense_fp8_tflops"] is None
    for given in ("73", "0", "2.5", "eight"):  # refused in the words `point --gpus` uses
        bad = run_inferx("hardware", "--gpus", given)
        assert bad.returncode == 2 and f"gpus={given}: must be a whole number from 1 to 72 GPUs" in bad.stderr
        assert "Traceback" not in bad.stderr


@pytest.mark.parametrize("command", ["models", "hardware"])
def test_listing_help(command):
    out = run_inferx(command, "--help")
    assert out.returncode == 0 and f"usage: inferx {command}" in out.stdout


@pytest.mark.parametrize(
    "display,key",
    [
        ("DeepSeek-R1-0528", "deepseek-r1"),
        ("Llama-3.3-70B-Instruct-FP8", "llama-3.3-70b"),
        ("gpt-oss-120b", "gpt-oss-120b"),
        ("dsr1", "deepseek-r1"),  # the API's rows name their model by its database key
        ("llama70b", "llama-3.3-70b"),
        ("kimik2.5", None),
        ("Kimi-K2.5", None),  # another model than Kimi-K2
        ("Qwen-3.5-397B-A17B", None),
        ("", None),
    ],
)
def test_inferencex_model_names_map_to_the_catalog(display, key):
    from inferx.physics.models import catalog_key

    assert catalog_key(display) == key
