"""One GPU's datasheet (`GPU`), the largest machine, and the ranges a machine's aggregate numbers may take."""

from __future__ import annotations

from dataclasses import dataclass

MAX_GPUS = 72  # one NVL72 rack, the largest scale-up domain in the catalog
# What a machine's aggregate numbers may be, in the dashboard sliders' units: (low, high) of its bandwidth in
# TB/s, dense compute in PFLOPS and HBM in GB. The sliders and a datasheet's checks both read these.
MACHINE_RANGES = {"bw": (0.6, 600), "compute": (0.1, 1000), "hbm": (24, 21000)}

PRECISIONS = ("fp16", "bf16", "fp8", "fp4")


@dataclass(frozen=True)
class GPU:
    name: str
    vendor: str
    hbm: float  # bytes
    bw: float  # HBM bandwidth, bytes/s
    bf16: float  # dense FP16/BF16 tensor FLOP/s
    fp8: float | None  # dense FP8 tensor FLOP/s (None: no FP8 tensor cores)
    fp4: float | None  # dense FP4 tensor FLOP/s (None: no FP4 tensor cores)
    sparse_bf16: float  # with 2:4 structured sparsity, as headlined
    sparse_fp8: float | None
    sparse_fp4: float | None
    link: str  # scale-up link name
    link_bw: float  # scale-up bandwidth per GPU, both directions summed, bytes/s
    scale_up_gpus: int  # GPUs one scale-up domain (NVLink / Infinity Fabric) joins
    power: float  # board power (TDP / TBP), W
    source: str

    def peak(self, precision: str, sparse: bool = False) -> float | None:
        """Peak tensor FLOP/s at a precision; None when the GPU has no tensor cores for it."""
        if precision not in PRECISIONS:
            raise ValueError(f"precision must be one of {', '.join(PRECISIONS)}, not {precision!r}")
        field = "bf16" if precision in ("fp16", "bf16") else precision
        return getattr(self, f"sparse_{field}" if sparse else field)

    @property
    def link_bw_per_direction(self) -> float:
        return self.link_bw / 2

    def ridge(self, precision: str = "bf16") -> float | None:
        """I* = dense peak / HBM bandwidth, FLOP/byte."""
        peak = self.peak(precision)
        return None if peak is None else peak / self.bw


T, G = 1e12, 1e9
