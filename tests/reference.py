"""A plain scalar re-implementation of the article's model, written from the article, not from inferx.

The tests compare inferx's vectorised engine, scenarios and figures with it. Nothing here imports inferx:
the constants are the article's tables (DeepSeek R1, the three configurations, the interconnects) and every
formula is written out one batch size at a time in plain Python floats, so a slip in the engine (a wrong
exponent, a dropped factor, a parameter read from the wrong field) cannot cancel out on both sides.
Inputs are the user-unit controls of a URL or CLI (TB/s, PFLOPS, GB, tokens, percent).
"""

from __future__ import annotations

import math

# DeepSeek R1 (article's model table). The article never states the attention head size of its quadratic
# prefill term; like the project we take 128 query heads of dimension 128.
P_TOTAL = 671e9
P_ACTIVE = 37e9
LAYERS = 61
D_MODEL = 7168
KV_ELEMENTS = 512 + 64  # MLA latent d_c + decoupled RoPE key d_r, per layer per token
Q_HEADS = 128
D_HEAD = 128

BYTES = {"fp16": 2.0, "bf16": 2.0, "fp8": 1.0, "int8": 1.0, "fp4": 0.5, "int4": 0.5}
# The article's configuration table: (TB/s, PFLOPS, GB, TP); all use NVLink.
PRESETS = {
    "h200x8": (38.4, 31.664, 1128.0, 8),
    "mi300x4": (21.2, 10.456, 768.0, 4),
    "b200x8": (64.0, 72.0, 1536.0, 8),
}
# The article's interconnect table: (bytes/s one way, latency floor α in s).
INTERCONNECTS = {"nvlink": (450e9, 10e-6), "infiniband": (25e9, 5e-6), "roce": (10e9, 10e-6)}
DEFAULTS = {"ctx": 1024, "isl": 1024, "wdtype": "fp8", "kvdtype": "fp8", "cv": 0.0, "util": 87.0, "pp": 1}


class Reference:
    """One scenario of user-unit controls; `point(B)` evaluates it at one batch size."""

    def __init__(self, preset="h200x8", **given):
        given = {k: v for k, v in given.items() if v is not None}
        bw, pflops, hbm, tp = PRESETS[preset]
        p = {**DEFAULTS, "bw": bw, "compute": pflops, "hbm": hbm, "tp": tp, "ic": "nvlink", **given}
        self.preset = preset
        self.p = p
        self.bw = p["bw"] * 1e12
        self.compute = p["compute"] * 1e15
        self.hbm = p["hbm"] * 1e9
        self.ctx, self.isl = int(p["ctx"]), int(p["isl"])
        self.b_w, self.b_kv = BYTES[p["wdtype"]], BYTES[p["kvdtype"]]
        self.cv, self.eta = float(p["cv"]), p["util"] / 100.0
        self.tp, self.pp = int(p["tp"]), int(p["pp"])
        self.ic_bw, self.alpha = INTERCONNECTS[p["ic"]]

    # --- Scalars -----------------------------------------------------------------------

    @property
    def kappa(self) -> float:
        """Bytes of KV cache per token of context: L · (d_c + d_r) · b_kv."""
        return LAYERS * KV_ELEMENTS * self.b_kv

    @property
    def headroom(self) -> float:
        return self.hbm - P_TOTAL * self.b_w

    @property
    def b_max(self) -> int:
        if self.headroom <= 0:
            return 0
        return max(0, math.floor(self.eta * self.headroom / (self.ctx * self.kappa)))

    @property
    def b_star(self) -> float:
        return self.b_w * self.compute / (2 * self.bw)

    @property
    def compute_bound_from(self) -> float:
        """The first whole batch whose compute time 2·P_active·B / compute passes its memory time
        (P_active·b_w + B·S·κ) / BW, counted up to 100,000; infinite if none."""
        for B in range(1, 100_001):
            if 2 * P_ACTIVE * B / self.compute > (P_ACTIVE * self.b_w + B * self.ctx * self.kappa) / self.bw:
                return B
        return math.inf

    @property
    def ridge(self) -> float:
        return self.compute / self.bw

    @property
    def t_inf(self) -> float:
        return self.bw / (self.ctx * self.kappa)

    @property
    def t_prefill(self) -> float:
        S = self.isl
        return (2 * P_ACTIVE * S + 4 * LAYERS * Q_HEADS * D_HEAD * S * S) / self.compute

    @property
    def itl_floor(self) -> float:
        return P_ACTIVE * self.b_w / self.bw

    # --- Per batch size ----------------------------------------------------------------

    def t_step(self, B: float, ctx: int | None = None) -> float:
        S = self.ctx if ctx is None else ctx
        memory = (P_ACTIVE * self.b_w + B * S * self.kappa) / self.bw
        compute = 2 * P_ACTIVE * B / self.compute
        return max(memory, compute)

    def t_allreduce(self, B: float) -> float:
        k = self.tp
        if k == 1:
            return 0.0
        return LAYERS * 2 * (self.alpha + (k - 1) / k * B * D_MODEL * self.b_w / self.ic_bw)

    def t_pipeline(self, B: float) -> float:
        m = self.pp
        return (m - 1) * (self.alpha + B * D_MODEL * self.b_w / self.ic_bw)

    def t_comm(self, B: float) -> float:
        return self.t_allreduce(B) + self.t_pipeline(B)

    def point(self, B: float) -> dict:
        """Every per-batch output, SI units."""
        step = self.t_step(B)
        comm = self.t_comm(B)
        itl = step + comm
        rho = B / self.b_max if self.b_max > 0 else math.inf
        # The boxed TTFT: prefill plus the M/G/1 residual wait, unbounded from ρ = 1 on.
        ttft = self.t_prefill + (1 + self.cv**2) / 2 * itl / (1 - rho) if rho < 1 else math.inf
        return {"t_step": step, "t_comm": comm, "itl": itl, "throughput": B / itl, "ttft": ttft, "rho": rho}
