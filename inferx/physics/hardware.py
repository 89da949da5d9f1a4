"""The hardware catalog: one entry per GPU, and a machine as a GPU times a count.

Numbers are per GPU from the vendor's datasheet (cited beside each entry). Peak
compute is the DENSE tensor rate; the 2:4 structured-sparsity figures vendors
headline are kept in separate `sparse_*` fields, labelled as such, and are
exactly twice the dense ones except where a comment says otherwise. FP16 and
BF16 share one rate on every GPU here. Scale-up link bandwidth is the vendor's
per-GPU figure, both directions summed (NVLink, AMD Infinity Fabric; PCIe for a
card without either). `hbm` is the GPU's memory, GDDR on the L40S.
Units are SI: bytes, bytes/s, FLOP/s, watts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from inferx.physics.gpu import GPU, MAX_GPUS, G, T
from inferx.physics.gpu_spec import gpu_from_key, price_from_key
from inferx.physics.model_spec import DTYPE_BYTES, Catalog, ModelSpec
from inferx.physics.models import kv_bytes_per_sequence, weight_bytes

# The catalog's own GPUs; read GPUS, which holds these and any GPU added or carried in a key.
_DATASHEETS: dict[str, GPU] = {
    # NVIDIA A100 Tensor Core GPU datasheet (80GB SXM): HBM2e 80 GB at 2,039 GB/s; BF16 312 TFLOPS
    # (624 with sparsity); no FP8 or FP4; NVLink 3 at 600 GB/s; 400 W.
    "a100": GPU(
        name="A100 80GB SXM",
        vendor="NVIDIA",
        hbm=80 * G,
        bw=2.039 * T,
        bf16=312 * T,
        fp8=None,
        fp4=None,
        sparse_bf16=624 * T,
        sparse_fp8=None,
        sparse_fp4=None,
        link="NVLink 3",
        link_bw=600 * G,
        scale_up_gpus=8,
        power=400,
        source="https://www.nvidia.com/en-us/data-center/a100/",
    ),
    # NVIDIA H100 datasheet (SXM): HBM3 80 GB at 3.35 TB/s; BF16 1,979 and FP8 3,958 TFLOPS with
    # sparsity, half that dense; NVLink 4 at 900 GB/s; up to 700 W.
    "h100": GPU(
        name="H100 SXM",
        vendor="NVIDIA",
        hbm=80 * G,
        bw=3.35 * T,
        bf16=989.5 * T,
        fp8=1_979 * T,
        fp4=None,
        sparse_bf16=1_979 * T,
        sparse_fp8=3_958 * T,
        sparse_fp4=None,
        link="NVLink 4",
        link_bw=900 * G,
        scale_up_gpus=8,
        power=700,
        source="https://www.nvidia.com/en-us/data-center/h100/",
    ),
    # NVIDIA H200 datasheet (SXM): the H100's compute with HBM3e 141 GB at 4.8 TB/s; NVLink 900 GB/s; 700 W.
    "h200": GPU(
        name="H200 SXM",
        vendor="NVIDIA",
        hbm=141 * G,
        bw=4.8 * T,
        bf16=989.5 * T,
        fp8=1_979 * T,
        fp4=None,
        sparse_bf16=1_979 * T,
        sparse_fp8=3_958 * T,
        sparse_fp4=None,
        link="NVLink 4",
        link_bw=900 * G,
        scale_up_gpus=8,
        power=700,
        source="https://www.nvidia.com/en-us/data-center/h200/",
    ),
    # NVIDIA HGX B200 (8 GPUs, 1,000 W each): 1,440 GB HBM3e in all, 8 TB/s each; per GPU FP4 18,
    # FP8 9, BF16 4.5 PFLOPS with sparsity (dense half); NVLink 5 at 1.8 TB/s. NVIDIA's launch
    # material gave 192 GB per GPU (the article's preset); shipping boards list 180 GB.
    "b200": GPU(
        name="B200",
        vendor="NVIDIA",
        hbm=180 * G,
        bw=8 * T,
        bf16=2_250 * T,
        fp8=4_500 * T,
        fp4=9_000 * T,
        sparse_bf16=4_500 * T,
        sparse_fp8=9_000 * T,
        sparse_fp4=18_000 * T,
        link="NVLink 5",
        link_bw=1_800 * G,
        scale_up_gpus=8,
        power=1_000,
        source="https://www.nvidia.com/en-us/data-center/hgx/",
    ),
    # NVIDIA HGX B300 (Blackwell Ultra, 8 GPUs): 2.3 TB HBM3e in all (288 GB each) at 8 TB/s each; per GPU
    # FP4 18 PFLOPS with sparsity but 13.5 dense (108 PF for eight: sparsity gains less than 2× here),
    # FP8 9 / 4.5, BF16 4.5 / 2.25; NVLink 5 at 1.8 TB/s; 1,100 W.
    "b300": GPU(
        name="B300",
        vendor="NVIDIA",
        hbm=288 * G,
        bw=8 * T,
        bf16=2_250 * T,
        fp8=4_500 * T,
        fp4=13_500 * T,
        sparse_bf16=4_500 * T,
        sparse_fp8=9_000 * T,
        sparse_fp4=18_000 * T,
        link="NVLink 5",
        link_bw=1_800 * G,
        scale_up_gpus=8,
        power=1_100,
        source="https://www.nvidia.com/en-us/data-center/hgx/",
    ),
    # NVIDIA GB200 NVL72, per Blackwell GPU (rack ÷ 72; one GB200 superchip carries two): 13.4 TB HBM3e
    # (186 GB) at 576 TB/s (8 TB/s); FP4 1,440, FP8 720, BF16 360 PFLOPS with sparsity (dense half);
    # NVLink 5 at 1.8 TB/s across all 72 GPUs.
    # 1,200 W is the GPU's configured power in this system (the superchip's 2,700 W includes Grace).
    "gb200": GPU(
        name="GB200",
        vendor="NVIDIA",
        hbm=186 * G,
        bw=8 * T,
        bf16=2_500 * T,
        fp8=5_000 * T,
        fp4=10_000 * T,
        sparse_bf16=5_000 * T,
        sparse_fp8=10_000 * T,
        sparse_fp4=20_000 * T,
        link="NVLink 5",
        link_bw=1_800 * G,
        scale_up_gpus=72,
        power=1_200,
        source="https://www.nvidia.com/en-us/data-center/gb200-nvl72/",
    ),
    # NVIDIA L40S datasheet: 48 GB of GDDR6 (not HBM) at 864 GB/s; FP8 733 TFLOPS dense, 1,466 with sparsity;
    # BF16 733 with sparsity, and 362.05 dense, 1.2 % below half of it: we take the half, as on every other GPU;
    # no FP4; no NVLink, GPUs talk over PCIe Gen4 x16 (64 GB/s both ways); 350 W.
    "l40s": GPU(
        name="L40S",
        vendor="NVIDIA",
        hbm=48 * G,
        bw=0.864 * T,
        bf16=366.5 * T,
        fp8=733 * T,
        fp4=None,
        sparse_bf16=733 * T,
        sparse_fp8=1_466 * T,
        sparse_fp4=None,
        link="PCIe Gen4 x16",
        link_bw=64 * G,
        scale_up_gpus=8,
        power=350,
        source="https://www.nvidia.com/en-us/data-center/l40s/",
    ),
    # AMD Instinct MI300X datasheet: HBM3 192 GB at 5.3 TB/s; FP16/BF16 1,307.4 and FP8 2,614.9 TFLOPS
    # dense (2,614.9 and 5,229.8 with sparsity); no FP4; 7 Infinity Fabric links of 128 GB/s; 750 W.
    "mi300x": GPU(
        name="MI300X",
        vendor="AMD",
        hbm=192 * G,
        bw=5.3 * T,
        bf16=1_307.4 * T,
        fp8=2_614.9 * T,
        fp4=None,
        sparse_bf16=2_614.9 * T,
        sparse_fp8=5_229.8 * T,
        sparse_fp4=None,
        link="Infinity Fabric",
        link_bw=896 * G,
        scale_up_gpus=8,
        power=750,
        source="https://www.amd.com/en/products/accelerators/instinct/mi300/mi300x.html",
    ),
    # AMD Instinct MI325X datasheet: the MI300X's compute with HBM3E 256 GB at 6 TB/s; 896 GB/s of
    # Infinity Fabric; 1,000 W.
    "mi325x": GPU(
        name="MI325X",
        vendor="AMD",
        hbm=256 * G,
        bw=6.0 * T,
        bf16=1_307.4 * T,
        fp8=2_614.9 * T,
        fp4=None,
        sparse_bf16=2_614.9 * T,
        sparse_fp8=5_229.8 * T,
        sparse_fp4=None,
        link="Infinity Fabric",
        link_bw=896 * G,
        scale_up_gpus=8,
        power=1_000,
        source="https://www.amd.com/en/products/accelerators/instinct/mi300/mi325x.html",
    ),
    # AMD Instinct MI355X datasheet: HBM3E 288 GB at 8 TB/s; 256 CUs at 2.4 GHz give FP16/BF16 2,516.6,
    # FP8 5,033.2 and MXFP4 10,066.3 TFLOPS dense (sparsity doubles each); 7 Infinity Fabric links of
    # 153.6 GB/s; 1,400 W (liquid cooled).
    "mi355x": GPU(
        name="MI355X",
        vendor="AMD",
        hbm=288 * G,
        bw=8.0 * T,
        bf16=2_516.6 * T,
        fp8=5_033.2 * T,
        fp4=10_066.3 * T,
        sparse_bf16=5_033.2 * T,
        sparse_fp8=10_066.4 * T,
        sparse_fp4=20_132.7 * T,
        link="Infinity Fabric",
        link_bw=1_075.2 * G,
        scale_up_gpus=8,
        power=1_400,
        source="https://www.amd.com/en/products/accelerators/instinct/mi350/mi355x.html",
    ),
}

# The catalog, and beside it any GPU a key carries (a datasheet chosen in a browser: gpu_spec.spec_key).
GPUS: Catalog[str, GPU] = Catalog(_DATASHEETS, gpu_from_key, "GPU", "datasheet")


@dataclass(frozen=True)
class Machine:
    """`count` GPUs of one kind serving one model instance; HBM, bandwidth, compute and power add up."""

    gpu: GPU
    count: int

    def __post_init__(self):
        if isinstance(self.count, bool) or not isinstance(self.count, int) or not 1 <= self.count <= MAX_GPUS:
            raise ValueError(f"GPU count must be a whole number in 1…{MAX_GPUS}, not {self.count!r}")

    @property
    def label(self) -> str:
        return f"{self.count}×{self.gpu.name}"

    @property
    def hbm(self) -> float:
        return self.count * self.gpu.hbm

    @property
    def bw(self) -> float:
        return self.count * self.gpu.bw

    @property
    def power(self) -> float:
        return self.count * self.gpu.power

    def peak(self, precision: str, sparse: bool = False) -> float | None:
        per_gpu = self.gpu.peak(precision, sparse)
        return None if per_gpu is None else self.count * per_gpu

    @property
    def scale_up_domains(self) -> int:
        """How many scale-up domains the GPUs span (more than 1: some traffic crosses the network)."""
        return math.ceil(self.count / self.gpu.scale_up_gpus)


def _gb(x: float) -> str:
    return f"{x / 1e9:,.0f} GB" if x >= 10e9 else f"{x / 1e9:,.2f} GB"


def memory_fit_message(weights: float, hbm: float, kv_per_sequence: float = 0.0, context: int = 0) -> str | None:
    """The sentence saying why a model cannot be served in `hbm` bytes, or None when one sequence fits."""
    if weights >= hbm:
        return f"needs {_gb(weights)} of weights; the machine has {_gb(hbm)}"
    if kv_per_sequence > hbm - weights:
        return (
            f"one {context:,}-token sequence needs {_gb(kv_per_sequence)} of KV cache; "
            f"{_gb(hbm - weights)} is left after {_gb(weights)} of weights"
        )
    return None


def fit_message(
    model: ModelSpec, machine: Machine, wdtype: str, kvdtype: str | None = None, context: int | None = None
) -> str | None:
    """Why `model` does not fit `machine` at these precisions (None when it does).

    Weights first; given a KV dtype and a context, also whether one sequence's KV
    cache fits the room the weights leave.
    """
    weights = weight_bytes(model, DTYPE_BYTES[wdtype])
    kv = 0.0
    if kvdtype is not None and context is not None:
        kv = float(kv_bytes_per_sequence(model, DTYPE_BYTES[kvdtype], context))
    return memory_fit_message(weights, machine.hbm, kv, context or 0)


def machine_record(key: str, machine: Machine) -> dict:
    """A machine in user units, as `inferx hardware` lists it: totals over its GPUs, link bandwidth per GPU."""
    gpu = machine.gpu

    def tflops(precision, sparse=False):
        peak = machine.peak(precision, sparse)
        return None if peak is None else peak / 1e12

    return {
        "key": key,
        "name": gpu.name,
        "vendor": gpu.vendor,
        "gpus": machine.count,
        "hbm_gb": machine.hbm / 1e9,
        "hbm_tb_s": machine.bw / 1e12,
        **{f"dense_{p}_tflops": tflops(p) for p in ("bf16", "fp8", "fp4")},
        **{f"sparse_{p}_tflops": tflops(p, True) for p in ("bf16", "fp8", "fp4")},
        "ridge_bf16_flop_per_byte": gpu.ridge("bf16"),
        "link": gpu.link,
        "link_gb_s_per_gpu": gpu.link_bw / 1e9,
        "scale_up_gpus": gpu.scale_up_gpus,
        "power_w": machine.power,
        "source": gpu.source,
    }


# Assumed $/GPU-hour (USD, on-demand rental, 2025, rounded). Not measured; edit to your contract. A GPU a key
# carries (gpu_spec.spec_key) carries its price too.
USD_PER_GPU_HOUR: Catalog[str, float] = Catalog(
    {
        "a100": 1.80,
        "h100": 2.50,
        "h200": 3.50,
        "b200": 5.00,
        "b300": 6.50,
        "gb200": 6.00,
        "l40s": 1.00,
        "mi300x": 2.50,
        "mi325x": 3.00,
        "mi355x": 4.50,
    },
    price_from_key,
    "GPU",
    "datasheet",
)
