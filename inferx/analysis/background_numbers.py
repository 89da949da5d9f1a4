"""The numbers of the catalog and the background texts, each beside the engine's."""

from __future__ import annotations

import math
from dataclasses import replace

from inferx.analysis.check import FLAG, INCONSISTENT, L40S, PCIE5_X16, TPU_V4, TPU_V5E, Row
from inferx.physics import engine as E
from inferx.physics import model_spec
from inferx.physics import models as M
from inferx.physics.hardware import GPUS
from inferx.physics.models import DEEPSEEK_R1
from inferx.physics.presets import HARDWARE


def catalog_rows() -> list[Row]:
    """The article's three machines beside the catalog machine each preset names."""
    rows = []
    for key, hw in HARDWARE.items():
        m = hw.machine
        rows.append(
            Row("catalog", f"{hw.label} HBM bandwidth, {m.label} datasheet", hw.bw / 1e12, m.bw / 1e12, "TB/s", 0)
        )
        rows.append(
            Row(
                "catalog",
                f"{hw.label} FP8 compute, {m.label} datasheet{' (sparse)' if hw.sparse_compute else ''}",
                hw.compute / 1e12,
                m.peak("fp8", hw.sparse_compute) / 1e12,
                "TFLOPS",
                0.001,
                note=hw.note if key == "mi300x4" else "",
            )
        )
        if key == "b200x8":
            hbm = Row("catalog", "B200 HBM per GPU: article vs HGX B200 datasheet", hw.hbm / 8e9, m.gpu.hbm / 1e9, "GB")
            rows.append(replace(hbm, expect=FLAG, note=hw.note + "; the preset keeps 192 GB"))
        else:
            rows.append(
                Row("catalog", f"{hw.label} HBM total, {m.label} datasheet", hw.hbm / 1e9, m.hbm / 1e9, "GB", 0)
            )
    h100, h200 = GPUS["h100"], GPUS["h200"]
    rows.append(Row("catalog", "H100 SXM5 bandwidth (SRAM section)", 3.35, h100.bw / 1e12, "TB/s", 0))
    rows.append(Row("catalog", "H100 HBM capacity (SRAM section)", 80, h100.hbm / 1e9, "GB", 0))
    rows.append(Row("catalog", "MI300X bandwidth (SRAM section)", 5.3, GPUS["mi300x"].bw / 1e12, "TB/s", 0))
    rows.append(Row("catalog", "MI300X HBM capacity (SRAM section)", 192, GPUS["mi300x"].hbm / 1e9, "GB", 0))
    rows.append(Row("catalog", "NVLink per direction on H200 SXM", 450, h200.link_bw_per_direction / 1e9, "GB/s", 0))
    return rows


def background_rows() -> list[Row]:
    rows: list[Row] = []

    def add(section, quantity, text, engine, unit, rel_tol=0.02, **kw):
        rows.append(Row(section, quantity, text, float(engine), unit, rel_tol, **kw))

    h100, h200, a100 = GPUS["h100"], GPUS["h200"], GPUS["a100"]
    l70, l8, l13 = M.LLAMA33_70B, M.LLAMA3_8B, M.LLAMA2_13B
    bf16 = model_spec.DTYPE_BYTES["bf16"]

    # "Six levers" text: ridge table, critical batch, quantisation, KV sizes.
    for name, (compute, bw), ridge in (
        ("H100 SXM5", (h100.bf16, h100.bw), 295),
        ("H200 SXM5", (h200.bf16, h200.bw), 206),
        ("A100 80GB", (a100.bf16, a100.bw), 156),
        ("TPU v4", TPU_V4, 229),
    ):
        note = "the table rounds the A100's 2,039 GB/s to 2,000" if name == "A100 80GB" else ""
        add("levers", f"{name} ridge at dense BF16", ridge, E.ridge_intensity(compute, bw), "FLOP/B", note=note)
    add("levers", "H200 bandwidth over H100 (text: +43 %)", 43, 100 * (h200.bw / h100.bw - 1), "%", 0.01)
    add("levers", "H100 B_crit at BF16 weights", 295, E.ridge_batch(h100.bf16, h100.bw, bf16), "requests", 0.005)
    for dtype, bcrit in (("bf16", 240), ("int8", 120), ("int4", 60)):
        b_w = model_spec.DTYPE_BYTES[dtype]
        add("levers", f"TPU v5e B_crit, {dtype.upper()} weights", bcrit, E.ridge_batch(*TPU_V5E, b_w), "requests", 0.01)
    add(
        "levers",
        "H100 B_crit by the text's rule ridge × bytes/param, BF16 (text: 295)",
        295,
        E.ridge_intensity(h100.bf16, h100.bw) * bf16,
        "requests",
        expect=INCONSISTENT,
        note="ridge × 2 bytes is 590; its own table (BF16 ≈ ridge, INT8 half of it) needs ridge × bytes / 2",
    )
    add(
        "levers",
        "decode intensity at B=1, BF16 weights (text: ~0.5)",
        0.5,
        E.arithmetic_intensity(1, bf16),
        "FLOP/B",
        expect=INCONSISTENT,
        note="B / bytes-per-param counts a multiply-add as one FLOP; its B_crit ≈ ridge needs 2B / bytes-per-param",
    )
    add(
        "levers",
        "70B BF16 at B=1 on an H100, share of peak (text: ~0.2 %)",
        0.2,
        100 * E.compute_utilisation(1, bf16, h100.bf16, h100.bw),
        "%",
        expect=INCONSISTENT,
        note="follows from the 0.5 FLOP/B above; 1 FLOP/B against a 295 ridge is 0.34 %",
    )
    add("levers", "Llama-3.3-70B weights at INT8 (text: 70 GB)", 70, M.weight_bytes(l70, 1.0) / 1e9, "GB")
    for dtype, gpus in (("int8", 1), ("bf16", 2)):
        need = math.ceil(M.weight_bytes(l70, model_spec.DTYPE_BYTES[dtype]) / h100.hbm)
        add("levers", f"H100s the 70B weights need at {dtype.upper()}", gpus, need, "GPUs", 0)
    kv13 = M.kv_bytes_per_sequence(l13, bf16, 8192)
    add("levers", "Llama-2-13B KV per 8,192-token sequence, BF16", 6.7, kv13 / 1e9, "GB", 0.01)
    add("levers", "Llama-2-13B KV of 4 such sequences", 26.8, 4 * kv13 / 1e9, "GB", 0.01)
    add("levers", "Llama-2-13B weights, BF16", 26, M.weight_bytes(l13, bf16) / 1e9, "GB", 0.02)
    add("levers", "Llama-3-8B query heads", 32, l8.n_q_heads, "", 0)
    add("levers", "Llama-3-8B KV heads", 8, l8.n_kv_heads, "", 0)

    # Course module on metrics and the roofline: Llama-3-8B at FP16 on one H100, KV bytes per step read in full.
    kappa = M.kv_bytes_per_token(l8, bf16)
    embedding = l8.vocab_size * l8.d_model
    # The worked example charges each step the weights less the embedding table (a lookup reads a few rows).
    read = replace(l8, p_active=l8.p_total - embedding)

    def tpot(B, S):
        return float(E.t_step(B, S, read, bf16, kappa, h100.bw, h100.bf16))

    add("roofline", "Llama-3-8B weights, FP16", 16.06, M.weight_bytes(l8, bf16) / 1e9, "GB", 0.005)
    add("roofline", "Llama-3-8B weights less the embedding table, FP16", 15.0, read.p_active * bf16 / 1e9, "GB", 0.005)
    add("roofline", "Llama-3-8B κ, FP16", 131_072, kappa, "B/token", 0)
    add("roofline", "KV at 2,048 tokens", 0.27, 2048 * kappa / 1e9, "GB", 0.01)
    add("roofline", "TPOT floor, B=1, 2K context", 4.56, 1e3 * tpot(1, 2048), "ms", 0.005)
    add("roofline", "max rate, B=1, 2K context", 219, 1 / tpot(1, 2048), "tok/s", 0.005)
    add("roofline", "KV of 64 sequences at 2K", 17.2, 64 * 2048 * kappa / 1e9, "GB", 0.005)
    add("roofline", "TPOT floor, B=64, 2K context", 9.6, 1e3 * tpot(64, 2048), "ms", 0.005)
    add("roofline", "throughput, B=64, 2K context", 6_667, 64 / tpot(64, 2048), "tok/s", 0.005)
    add("roofline", "TPOT B=64 over B=1", 2.1, tpot(64, 2048) / tpot(1, 2048), "×", 0.01)
    add("roofline", "throughput B=64 over B=1", 30, 64 * tpot(1, 2048) / tpot(64, 2048), "×", 0.02)
    workspace = 4e9
    headroom = h100.hbm - M.weight_bytes(l8, bf16) - workspace
    b_max = int(E.b_max(headroom, 4096, kappa))
    add("roofline", "KV room on an 80 GB H100 after weights and 4 GB workspace", 60, headroom / 1e9, "GB", 0.005)
    add("roofline", "KV per 4,096-token sequence", 0.54, 4096 * kappa / 1e9, "GB", 0.01)
    add("roofline", "max batch at 4K context", 111, b_max, "requests", 0)
    add("roofline", "TPOT floor, B=1, 4K context", 4.6, 1e3 * tpot(1, 4096), "ms", 0.01)
    add("roofline", "TPOT floor at the max batch, 4K context", 22.4, 1e3 * tpot(b_max, 4096), "ms", 0.01)
    add("roofline", "TPOT, max batch over B=1 (text: 5×)", 5, tpot(b_max, 4096) / tpot(1, 4096), "×", 0.1)
    add(
        "roofline",
        "throughput, max batch over B=64 (text: +14 %)",
        1.14,
        b_max * tpot(64, 4096) / (64 * tpot(b_max, 4096)),
        "×",
        0.01,
    )
    add(
        "roofline",
        "throughput, max batch over B=1 (text: 23×)",
        23,
        b_max * tpot(1, 4096) / tpot(b_max, 4096),
        "×",
        0.02,
    )
    add(
        "roofline",
        "intensity at the max batch ÷ H100 ridge (text: 38 %)",
        38,
        100 * E.arithmetic_intensity(b_max, bf16) / E.ridge_intensity(h100.bf16, h100.bw),
        "%",
        0.02,
    )
    fp8_b_max = int(E.b_max(headroom, 4096, M.kv_bytes_per_token(l8, 1.0)))
    add("roofline", "max batch at 4K with FP8 KV (text: ~200)", 200, fp8_b_max, "requests", 0.15, note="223, rounded")
    add("roofline", "L40S ridge at dense BF16", 419, E.ridge_intensity(*L40S), "FLOP/B", 0.005)
    add("roofline", "H100 BF16 with sparsity", 1_979, h100.sparse_bf16 / 1e12, "TFLOPS", 0)
    add("roofline", "H100 BF16 dense", 989, h100.bf16 / 1e12, "TFLOPS", 0.001)
    add("roofline", "Hopper FP8 over BF16", 2, h100.fp8 / h100.bf16, "×", 0)
    add("roofline", "NVLink per H100", 900, h100.link_bw / 1e9, "GB/s", 0)
    add("roofline", "NVLink over PCIe Gen5 x16", 14, h100.link_bw / PCIE5_X16, "×", 0.01)
    add(
        "roofline",
        "H200s the 70B weights need at FP16 (text: one)",
        1,
        math.ceil(M.weight_bytes(l70, bf16) / h200.hbm),
        "GPUs",
        expect=INCONSISTENT,
        note="70.6 B parameters are 141.2 GB, over 141 GB; a nominal 70 B fits with 1 GB and no room for a KV cache",
    )

    # "The Memory Wall": a 70B dense model at 16 bits on one H100.
    w70 = M.weight_bytes(l70, bf16)
    k70 = M.kv_bytes_per_token(l70, bf16)
    ridge = E.ridge_intensity(h100.bf16, h100.bw)
    prefill = float(M.prefill_flops(l70, 2000))
    add("memwall", "70B weights at 16 bits", 140, w70 / 1e9, "GB", note="Llama-3.3-70B has 70.6 B parameters")
    add("memwall", "weight bytes per prompt token, 2,000-token prefill", 70, w70 / 2000 / 1e6, "MB", 0.02)
    add("memwall", "prefill FLOPs, 2,000 tokens, linear term", 280, M.flops_per_token(l70) * 2000 / 1e12, "TFLOP")
    add("memwall", "prefill FLOPs with attention", 290, prefill / 1e12, "TFLOP")
    add("memwall", "prefill intensity over 146 GB moved", 2_000, prefill / 146e9, "FLOP/B")
    add("memwall", "decode FLOPs per token", 140, M.flops_per_token(l70) / 1e9, "GFLOP")
    add("memwall", "prefill intensity ÷ H100 ridge (text: seven times)", 7, prefill / 146e9 / ridge, "×", 0.05)
    add(
        "memwall", "H100 ridge ÷ decode intensity (text: nearly 300)", 300, ridge / E.arithmetic_intensity(1, bf16), "×"
    )
    add("memwall", "H100 HBM3 bandwidth", 3.35, h100.bw / 1e12, "TB/s", 0)
    add("memwall", "decode ceiling at B=1, short context", 24, h100.bw / w70, "tok/s")
    add("memwall", "time per token at that ceiling", 42, 1e3 * E.itl_floor(l70.p_total, bf16, h100.bw), "ms")
    add("memwall", "Llama-3-70B KV at 100,000 tokens", 33, 100_000 * k70 / 1e9, "GB")
    mha = replace(DEEPSEEK_R1, attention="mha", n_kv_heads=128, kv_lora_rank=0, d_rope=0)
    add(
        "memwall",
        "61 layers × 128 heads of 128 cached in full, 100K tokens (text: over 400)",
        400,
        M.kv_bytes_per_sequence(mha, bf16, 100_000) / 1e9,
        "GB",
        note="399.8 GB: just under",
    )
    add("memwall", "KV at 100K tokens ÷ 70B weights (text: a quarter)", 0.25, 100_000 * k70 / w70, "×", 0.1)
    kv128 = 128_000 * k70
    add("memwall", "KV at 128,000 tokens", 41.9, kv128 / 1e9, "GB", 0.005)
    add("memwall", "bytes per decode step at 128K", 181.9, (w70 + kv128) / 1e9, "GB")
    add("memwall", "decode ceiling at 128K", 18.4, h100.bw / (w70 + kv128), "tok/s")
    add("memwall", "decode ceiling at the start of a conversation", 23.9, h100.bw / w70, "tok/s")
    add("memwall", "ceiling lost by 128K", 23, 100 * (1 - w70 / (w70 + kv128)), "%")
    return rows
