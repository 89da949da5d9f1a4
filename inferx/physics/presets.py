"""Plain-data presets: the article's three machines, its interconnects and its models.

Hardware numbers are the article's configuration table, aggregated over the GPUs
of one serving instance. Units are SI (bytes, bytes/s, FLOP/s, seconds). Models and
dtypes live in the model catalog (`inferx.models`), GPUs in the hardware catalog
(`inferx.hardware`); each preset names the catalog machine it is.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from inferx.palette import MACHINE
from inferx.physics.gpu import GPU
from inferx.physics.hardware import GPUS, Machine
from inferx.physics.models import DEEPSEEK_R1, LLAMA33_70B

# Llama 3 70B has the same configuration as Llama 3.3 70B (327,680 B/token of KV at FP16).
LLAMA3_70B = LLAMA33_70B

MODELS = {"deepseek-r1": DEEPSEEK_R1, "llama3-70b": LLAMA3_70B}


@dataclass(frozen=True)
class Hardware:
    """A preset: a named catalog machine with the aggregate numbers the article prints for it. One entry
    here is the whole preset: its GPU family (the calibrated model's and the measured rows') comes from
    the machine."""

    label: str
    machine: Machine
    bw: float  # aggregate HBM bandwidth, bytes/s
    compute: float  # aggregate peak FP8 FLOP/s as the article prints it
    hbm: float  # aggregate HBM capacity, bytes
    tp: int
    ic: str
    colour: str  # one colour per preset, the same on every figure (inferx.palette.MACHINE)
    sparse_compute: bool  # the article's FP8 compute is the 2:4-sparsity figure (kept so its figures reproduce)
    note: str = ""  # how the article's numbers differ from the machine's datasheet

    @property
    def gpu(self) -> str:
        return self.machine.gpu.name

    @property
    def n_gpus(self) -> int:
        return self.machine.count

    @property
    def dense_fp8_per_gpu(self) -> float:
        """Vendor dense FP8 FLOP/s per GPU (no 2:4 sparsity)."""
        return self.machine.gpu.fp8

    @property
    def family(self) -> str:
        """The GPU's key in the hardware catalog (also the calibrated model's family name)."""
        return next(key for key, gpu in GPUS.items() if gpu == self.machine.gpu)


HARDWARE: dict[str, Hardware] = {
    "h200x8": Hardware(
        "8×H200",
        Machine(GPUS["h200"], 8),
        38.4e12,
        31_664e12,
        1_128e9,
        8,
        "nvlink",
        MACHINE["h200x8"],
        sparse_compute=True,
    ),
    "mi300x4": Hardware(
        "4×MI300X",
        Machine(GPUS["mi300x"], 4),
        21.2e12,
        10_456e12,
        768e9,
        4,
        "nvlink",
        MACHINE["mi300x4"],
        sparse_compute=False,
        note="the article rounds 4 × 2,614.9 TFLOPS to 10,456",
    ),
    "b200x8": Hardware(
        "8×B200",
        Machine(GPUS["b200"], 8),
        64.0e12,
        72_000e12,
        1_536e9,
        8,
        "nvlink",
        MACHINE["b200x8"],
        sparse_compute=True,
        note="the article takes 192 GB per B200 from NVIDIA's launch material; HGX B200 boards ship 180 GB",
    ),
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

# `ic` may also name the selected GPU's own scale-up link from the hardware catalog (NVLink 5 on B200, Infinity
# Fabric on MI300X, a datasheet file's link): the fixed choices above are the article's, whose three machines all
# use NVLink 4.0's figure.
SCALE_UP = "scale-up"
# Or two links, as a machine of several scale-up domains has: TP's all-reduces within a domain on the GPU's own
# link, PP's hand-offs between domains over InfiniBand (the article's single link charges both to one).
TIERED = "tiered"
BETWEEN_DOMAINS = "infiniband"


def interconnect(key: str, gpu: GPU) -> Interconnect:
    """The link TP's all-reduces take under `ic`; SCALE_UP (and TIERED) is `gpu`'s own: its datasheet's per-GPU
    bandwidth (both directions summed) halved to the one way the collectives' formulas take, with NVLink's
    latency floor."""
    if key == SCALE_UP:
        return Interconnect(f"{gpu.link} ({gpu.name})", gpu.link_bw_per_direction, INTERCONNECTS["nvlink"].alpha)
    if key == TIERED:
        own = interconnect(SCALE_UP, gpu)
        return replace(own, label=f"{own.label} for TP, {INTERCONNECTS[BETWEEN_DOMAINS].label} for PP")
    return INTERCONNECTS[key]


def pipeline_interconnect(key: str, gpu: GPU) -> Interconnect:
    """The link PP's hand-offs take under `ic`: the one between domains under TIERED, else TP's."""
    return INTERCONNECTS[BETWEEN_DOMAINS] if key == TIERED else interconnect(key, gpu)


def scale_up_links() -> list[Interconnect]:
    """Each distinct scale-up link of the hardware catalog (what `ic=scale-up` takes), named with its GPUs."""
    gpus: dict[tuple, list] = {}
    for gpu in GPUS.values():
        gpus.setdefault((gpu.link, gpu.link_bw), []).append(gpu)
    return [
        replace(interconnect(SCALE_UP, same[0]), label=f"{link} ({', '.join(g.name for g in same)}; ic=scale-up)")
        for (link, _), same in gpus.items()
    ]
