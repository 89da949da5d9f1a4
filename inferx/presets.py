"""Plain-data presets: models, hardware, interconnects and dtypes.

Hardware numbers are the article's configuration table, aggregated over the GPUs
of one serving instance. Units are SI (bytes, bytes/s, FLOP/s, seconds).
"""

from __future__ import annotations

from dataclasses import dataclass

DTYPE_BYTES: dict[str, float] = {
    "fp16": 2.0,
    "bf16": 2.0,
    "fp8": 1.0,
    "int8": 1.0,
    "fp4": 0.5,
    "int4": 0.5,
}


@dataclass(frozen=True)
class ModelSpec:
    """A decoder described by the few sizes the roofline needs.

    KV-cache elements per layer per token are `d_c + d_r` for multi-head latent
    attention (MLA) or `2 * n_kv_heads * d_head` for grouped-query attention (GQA).
    """

    name: str
    p_total: float  # parameters held in HBM
    p_active: float  # parameters touched per token
    n_layers: int
    d_model: int
    n_q_heads: int
    d_head: int  # per-head dimension in the quadratic prefill term
    kv_latent: int = 0  # MLA: d_c + d_r
    n_kv_heads: int = 0  # GQA: key/value heads
    # Mixture-of-experts structure (used only by the calibrated model).
    n_moe_layers: int = 0
    n_routed_experts: int = 0
    experts_per_token: int = 0
    n_shared_experts: int = 0
    expert_params: float = 0.0  # parameters of one routed expert in one layer

    @property
    def kv_elements_per_layer(self) -> int:
        return self.kv_latent if self.kv_latent else 2 * self.n_kv_heads * self.d_head


# DeepSeek R1: MLA latent d_c = 512 plus decoupled RoPE key d_r = 64. The article
# never states the head dimension of its quadratic prefill term; we use 128.
# An expert FFN is 3 matrices of 7168 x 2048 (DeepSeek-V3 report).
DEEPSEEK_R1 = ModelSpec(
    name="DeepSeek R1",
    p_total=671e9,
    p_active=37e9,
    n_layers=61,
    d_model=7168,
    n_q_heads=128,
    d_head=128,
    kv_latent=512 + 64,
    n_moe_layers=58,
    n_routed_experts=256,
    experts_per_token=8,
    n_shared_experts=1,
    expert_params=3 * 7168 * 2048,
)

# Llama-3-70B: GQA with 8 KV heads of dimension 128 (seed 004: 327,680 B/token at FP16).
LLAMA3_70B = ModelSpec(
    name="Llama 3 70B",
    p_total=70.6e9,
    p_active=70.6e9,
    n_layers=80,
    d_model=8192,
    n_q_heads=64,
    d_head=128,
    n_kv_heads=8,
)

MODELS = {"deepseek-r1": DEEPSEEK_R1, "llama3-70b": LLAMA3_70B}


@dataclass(frozen=True)
class Hardware:
    label: str
    gpu: str
    n_gpus: int
    bw: float  # aggregate HBM bandwidth, bytes/s
    compute: float  # aggregate peak FP8 FLOP/s as the article prints it
    hbm: float  # aggregate HBM capacity, bytes
    tp: int
    ic: str
    dense_fp8_per_gpu: float  # vendor dense FP8 FLOP/s per GPU (no 2:4 sparsity)
    colour: str  # one colour per preset, the same on every figure


HARDWARE: dict[str, Hardware] = {
    "h200x8": Hardware("8×H200", "H200 SXM", 8, 38.4e12, 31_664e12, 1_128e9, 8, "nvlink", 1_979e12, "#0072B2"),
    "mi300x4": Hardware("4×MI300X", "MI300X", 4, 21.2e12, 10_456e12, 768e9, 4, "nvlink", 2_615e12, "#D55E00"),
    "b200x8": Hardware("8×B200", "B200", 8, 64.0e12, 72_000e12, 1_536e9, 8, "nvlink", 4_500e12, "#009E73"),
}


@dataclass(frozen=True)
class Interconnect:
    label: str
    bw: float  # unidirectional bytes/s
    alpha: float  # per-collective latency floor, s


INTERCONNECTS: dict[str, Interconnect] = {
    "nvlink": Interconnect("NVLink 4.0", 450e9, 10e-6),
    "infiniband": Interconnect("InfiniBand HDR200", 25e9, 5e-6),
    "roce": Interconnect("RoCE v2 (100 GbE)", 10e9, 10e-6),
}
