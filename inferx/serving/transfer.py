"""The transferable serving model: parameters that belong to the silicon, the stack or the model, not to one
GPU's runs of one model (numpy only; the fit is `transfer_fit`).

A per-stack calibration (`model.Calibration`, fitted per GPU, stack and precision on DeepSeek-R1's runs) is
right where it was measured and carries DeepSeek-R1's costs everywhere else. Here the same step, prefill and
closed loop are built from three parts instead:

* the silicon (`SILICON`: siblings share a die, H100/H200, B200/B300/GB200, MI300X/MI325X): the share of
  datasheet bandwidth a step reaches, f_bw, and of the dense tensor rate at each precision, f_c;
* the stack (TensorRT-LLM, SGLang, ATOM, vLLM): a fixed cost per layer and per collective of each step
  (t_layer, t_coll), the prefill's share of the decode GEMM rate, the per-request cost, the wait behind other
  prompts and, with attention data parallelism, the balancing wait;
* the model, from its config: layers, experts, attention, the collectives its layout needs;

and one number shared by all: the rate of a routed expert's grouped GEMM against a dense GEMM's
(`model.decode_work`). A step's fixed cost is

    t_0 = t_layer · L + t_coll · collectives,   collectives = 2 · L on more than one GPU (0 on one)

so a one-GPU dense model pays no collective and a 126-layer model more launches than a 32-layer one.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from inferx.physics.hardware import GPUS
from inferx.physics.model_spec import DTYPE_BYTES, ModelSpec
from inferx.physics.models import kv_copies, request_bytes
from inferx.serving.model import Calibration, Instance, at_batch, base_framework

TRANSFER_FILE = Path(__file__).with_name("transfer.json")

# GPUs that share a die: what one of them reaches, a sibling reaches (its own datasheet numbers apart).
SILICON = {
    "a100": "ampere",
    "h100": "hopper",
    "h200": "hopper",
    "b200": "blackwell",
    "b300": "blackwell",
    "gb200": "blackwell",
    "l40s": "ada",
    "mi300x": "cdna3",
    "mi325x": "cdna3",
    "mi355x": "cdna4",
}
STACK_FIELDS = ("layer_s", "collective_s", "prefill", "request_s", "queue", "dp_wait_steps")
SILICON_FIELDS = ("bw", "fp8", "fp4")

# An offline (maximum-throughput) run's engine: TensorRT-LLM's benchmark gives the KV cache 95 % of the memory the
# weights leave and schedules at most this many tokens (decode and prefill chunks together) in one iteration.
OFFLINE_KV_FRACTION = 0.95
TOKEN_BUDGET = 8192
MAX_BATCH = 2048  # TensorRT-LLM's default largest batch of one scheduler (one per attention-DP rank)

# How a stack's scheduler admits a request against its KV cache (`kv_reserve`), and the share of the answer's
# cache each admitted request therefore holds on average over its life (`ANSWER_RESERVED`); the engines' own
# documentation, linked in docs/calibration.md ("KV admission"):
# * "full": TensorRT-LLM's default capacity scheduler policy, GUARANTEED_NO_EVICT ("Useful Runtime Options";
#   `SchedulerConfig.capacity_scheduler_policy`), admits a request only when it can run to completion without
#   eviction, so the blocks for its prompt and its maximum output are held from admission: ISL + OSL;
# * "token": vLLM takes a cache block as a sequence grows and preempts a request when none is free ("Optimization
#   and Tuning: Preemption"); SGLang admits against an estimate of the answer still to come and retracts requests
#   when the pool runs out ("Hyperparameter Tuning"). Either way a request holds its prompt and its answer so far:
#   ISL + OSL / 2 on average.
# A stack not named here (SGLang, ATOM, vLLM, NIM whose engine its page does not name) pages per token.
KV_RESERVE = {"trt": "full"}
ANSWER_RESERVED = {"full": 1.0, "token": 0.5}


@dataclass(frozen=True)
class Transfer:
    """The fitted parameters: by silicon, by stack, and shared."""

    silicon: dict  # family -> {"bw": f_bw, "fp8": f_c at FP8, "fp4": f_c at FP4}
    stack: dict  # base stack -> {STACK_FIELDS}
    expert_rate: float  # a routed expert's GEMM rate over a dense GEMM's (`model.decode_work`)
    mtp: dict  # {"acceptance": α, "first_token_steps": m}: the draft module's, as the per-stack fits found them


def silicon_of(gpu: str) -> str:
    """The die family of a catalog GPU; a GPU outside `SILICON` (an uploaded datasheet) is its own."""
    return SILICON.get(gpu, gpu)


def _typical(table: dict, fields) -> dict:
    """The geometric mean of each field over the entries that have it (> 0)."""
    out = {}
    for field in fields:
        values = [entry[field] for entry in table.values() if entry.get(field, 0) > 0]
        out[field] = float(np.exp(np.mean(np.log(values)))) if values else 0.0
    return out


# A die nobody measured takes its vendor's measured dies first: one vendor's dies share a software stack (CUDA,
# ROCm) and its kernels, which set most of how far below the datasheet a step runs.
VENDOR = {"ampere": "nvidia", "hopper": "nvidia", "ada": "nvidia", "blackwell": "nvidia", "cdna3": "amd",
          "cdna4": "amd"}  # fmt: skip


def _dies(tr: Transfer, gpu: str) -> list[tuple[str, dict]]:
    """Where a GPU's efficiencies come from, nearest first: its die; the typical of its vendor's measured dies
    ("vendor typical"); the typical of every measured die ("silicon typical")."""
    family = silicon_of(gpu)
    vendor = {k: v for k, v in tr.silicon.items() if VENDOR.get(k) is not None and VENDOR.get(k) == VENDOR.get(family)}
    out = [("silicon", tr.silicon[family])] if family in tr.silicon else []
    if vendor:
        out.append(("vendor typical", _typical(vendor, SILICON_FIELDS)))
    return out + [("silicon typical", _typical(tr.silicon, SILICON_FIELDS))]


def silicon_params(tr: Transfer, gpu: str, precision: str = "fp8") -> tuple[dict, str]:
    """({"bw": f_bw, "compute": f_c at the precision}, basis): each from the nearest source that measured it
    (`_dies`): a die measured at FP4 only takes its FP8 share from its vendor's other dies, not 0."""
    found, basis = {}, None
    for name, die in _dies(tr, gpu):
        for field, key in (("bw", "bw"), ("compute", precision)):
            if field not in found and die.get(key, 0) > 0:
                found[field] = die[key]
                basis = basis or name
    if "compute" not in found:  # no die measured this precision: FP4 weights widened to FP8 run at its share
        found["compute"] = next(d["fp8"] for _, d in _dies(tr, gpu) if d.get("fp8", 0) > 0)
    return found, basis


def stack_params(tr: Transfer, framework: str | None) -> tuple[dict, str]:
    """A stack's overheads, else the typical stack's."""
    stack = base_framework(framework or "sglang")
    if stack in tr.stack:
        return tr.stack[stack], "stack"
    return _typical(tr.stack, STACK_FIELDS), "stack typical"


def kv_reserve(framework: str | None) -> str:
    """ "full" or "token": how the stack admits a request against its KV cache (`KV_RESERVE`)."""
    return KV_RESERVE.get(base_framework(framework or "sglang"), "token")


def collectives(model: ModelSpec, gpus) -> np.ndarray:
    """Collectives one decode step waits on: two a layer (after attention and after the MLP or experts: an
    all-reduce under tensor parallelism, a dispatch and a combine under expert parallelism) on more than one
    GPU, none on one."""
    return np.where(np.asarray(gpus, dtype=float) > 1, float(model.allreduces), 0.0)


def step_overhead(stack: dict, model: ModelSpec, gpus) -> np.ndarray:
    """t_0 (s) = t_layer · L + t_coll · collectives."""
    return stack["layer_s"] * model.n_layers + stack["collective_s"] * collectives(model, gpus)


def calibration(tr: Transfer, gpu: str, framework: str | None, precision: str, model: ModelSpec, gpus) -> Calibration:
    """The `Calibration` the transferable model gives one GPU, stack, precision, model and GPU count."""
    spec = GPUS.get(gpu)
    rate = precision if spec is None or spec.peak(precision) else "fp8"  # FP4 without FP4 tensor cores runs as FP8
    silicon, _ = silicon_params(tr, gpu, rate)
    stack, _ = stack_params(tr, framework)
    compute = silicon["compute"]
    return Calibration(
        bw_fraction=silicon["bw"],
        compute_fraction=compute,
        prefill_fraction=compute * stack["prefill"],
        step_overhead_s=float(step_overhead(stack, model, gpus)),
        request_overhead_s=stack["request_s"],
        admission_s=0.0,
        acceptance=tr.mtp["acceptance"],
        dp_wait_steps=stack["dp_wait_steps"],
        prefill_queue=stack["queue"],
        first_token_steps=tr.mtp["first_token_steps"],
        chunked_prefill=1.0,
        expert_rate=tr.expert_rate,
        answer_reserved=ANSWER_RESERVED[kv_reserve(framework)],
    )


def offline_batch(
    m: Instance,
    isl,
    osl,
    model: ModelSpec,
    kv_fraction=OFFLINE_KV_FRACTION,
    budget=TOKEN_BUDGET,
    max_batch=MAX_BATCH,
    answer_reserved=ANSWER_RESERVED["token"],
):
    """The decode batch an engine runs at an infinite request rate, the least of:

    * the requests its KV cache holds, each its prompt and `answer_reserved` of its answer (`ANSWER_RESERVED`:
      all of it where the stack reserves the whole sequence at admission, half on average where it pages per
      token as the answer is generated);
    * an iteration's token budget, each step also prefilling B · ISL / OSL prompt tokens beside the B decodes;
    * the scheduler's largest batch, `max_batch` per scheduler: under attention data parallelism every GPU is its
      own attention rank with its own scheduler, batch and KV cache, so the instance's cap is max_batch · GPUs
      (TensorRT-LLM's max_batch_size is per rank: NVIDIA's DeepSeek-R1 recipe on 8 B200 with attention DP sets
      max_batch_size 384 and reports a batch of 3,072).

    The token budget stays one per instance, as the shipped fit was made: the same recipes size max_num_tokens
    per rank too (128 decodes + one 1,024-token prompt: 1,151 on H200), and 22 of the published attention-DP rows
    are bound by it here (DeepSeek-R1 at 1k/1k among them); a budget per rank awaits a refit (docs/calibration.md)."""
    isl, osl = np.asarray(isl, dtype=float), np.asarray(osl, dtype=float)
    free = kv_fraction * (m.hbm - model.p_total * m.b_w)
    held = request_bytes(model, m.b_kv, isl + np.asarray(answer_reserved, dtype=float) * osl, m.kv_copies)
    ranks = np.where(np.asarray(m.dp_attention, dtype=bool), np.asarray(m.gpus, dtype=float), 1.0)
    limits = (free / held, budget / (1.0 + isl / osl), np.broadcast_to(max_batch * ranks, held.shape))
    return np.maximum(np.minimum.reduce(limits), 1.0)


def offline_throughput(cal: Calibration, m: Instance, isl, osl, model: ModelSpec, **engine) -> dict:
    """Output tok/s of the whole instance at an infinite request rate with fixed lengths (TensorRT-LLM's
    maximum-throughput table): B / TPOT at the `offline_batch`, each TPOT carrying the B / OSL prefills that
    replace finished requests. The KV cache holds the share of each answer the calibration's stack reserves
    (`Calibration.answer_reserved`) unless `engine` says otherwise."""
    engine.setdefault("answer_reserved", cal.answer_reserved)
    B = offline_batch(m, isl, osl, model, **engine)
    r = at_batch(cal, m, B, isl, osl, model)
    return {**r, "batch": B, "throughput": B / r["tpot"]}


def instance(gpu_spec, gpus, precision: str, model: ModelSpec, dp_attention: bool = False) -> Instance:
    """An `Instance` of `gpus` GPUs of a `hardware.GPU`, one tensor-parallel group (or attention data parallel),
    at a weight precision (KV cache FP8); the copies of each KV cache the group keeps follow the model's attention
    (`models.kv_copies`)."""
    gpus = float(gpus)
    peak = gpu_spec.peak(precision) or gpu_spec.fp8 or gpu_spec.bf16
    dp = bool(dp_attention) and gpus > 1
    copies = 1.0 if dp else kv_copies(model, gpus)
    return Instance(gpu_spec.bw * gpus, peak * gpus, gpus, gpus, copies, DTYPE_BYTES[precision], dp,
                    gpu_spec.hbm * gpus, attention_speed=gpu_spec.bf16 / peak)  # fmt: skip


def parse(data: dict) -> Transfer:
    p = data["parameters"]
    return Transfer(p["silicon"], p["stack"], p["expert_rate"], p["mtp"])


@functools.lru_cache(maxsize=2)
def _load(path: str) -> dict:
    return json.loads(Path(path).read_text())


def load_transfer(path: Path | str = TRANSFER_FILE) -> Transfer:
    """The stored transferable model (`inferx calibrate` writes it beside calibration.json)."""
    return parse(_load(str(path)))


def load_transfer_record(path: Path | str = TRANSFER_FILE) -> dict:
    """transfer.json as stored: parameters, the held-out error bands by kind of extrapolation, the scores."""
    return _load(str(path))


# What each kind of extrapolation means, in the words the page and the CLI print.
KIND_WORDS = {
    "measured": "measured GPU and model (in sample)",
    "pair": "GPU and model each measured, never together",
    "gpu_sibling": "GPU not measured; a GPU of the same die was",
    "gpu_alone": "GPU not measured, nor any of its die",
    "model": "model not measured",
}


def extrapolation(gpu: str, model_key: str, record: dict | None = None) -> str:
    """Which kind of extrapolation a prediction for this GPU and model is (`KIND_WORDS`): an unmeasured model
    first (the larger error), then whether the GPU was measured with this model ("measured"), with others only
    ("pair"), or a sibling of its die was measured.

    A record written before the measured pairs were stored (no `measured.pairs`) cannot tell a pair from a
    measured configuration: a measured GPU and model are "measured" there, as they were then."""
    measured = (record or load_transfer_record())["measured"]
    if model_key not in measured["models"]:
        return "model"
    if gpu in measured["gpus"]:
        pairs = measured.get("pairs")
        return "measured" if pairs is None or (gpu, model_key) in {tuple(p) for p in pairs} else "pair"
    if any(silicon_of(g) == silicon_of(gpu) for g in measured["gpus"]):
        return "gpu_sibling"
    return "gpu_alone"


def kind_band(kind: str, metric: str, record: dict | None = None):
    """[p10, p90] of log(predicted / measured) for a metric and kind of extrapolation, measured by holding that
    kind out; None where no held-out run measured it. A model held out was scored on its maximum throughput
    only: its TPOT band is that band reflected (TPOT = batch / throughput at a fixed batch)."""
    bands = (record or load_transfer_record())["bands"].get(kind, {})
    if metric in bands:
        return bands[metric]
    if metric == "tpot" and "throughput_per_gpu" in bands:
        low, high = bands["throughput_per_gpu"]
        return [-high, -low]
    return None


def kind_error(kind: str, model_key: str | None = None, record: dict | None = None, gpu: str | None = None) -> dict:
    """{rows, metric: [median, p90]} of |predicted / measured − 1| over the runs of this kind of extrapolation:
    held out as that kind, or in sample for "measured" (a published model's own rows on this GPU where the record
    scored them, else its own rows on every GPU, else InferenceX's). InferenceX's metrics first; the published
    maximum throughput where InferenceX has none."""
    record = record or load_transfer_record()
    pair = {entry["group"]: entry for entry in record["scores"].get("in-sample pair", [])}.get(f"{gpu} · {model_key}")
    own = pair or {entry["group"]: entry for entry in record["scores"]["in-sample model"]}.get(model_key)
    if kind == "measured" and own is not None and model_key != "deepseek-r1":
        return _throughput_as_per_gpu(own)
    scores = {entry["group"]: entry for entry in record["scores"]["kind"]}
    # After InferenceX, the published sources with the most rows first: a metric is taken from the largest source
    # that measured it held out this way (TensorRT-LLM's table for throughput; NIM's alone has TTFT).
    published = sorted((g for g in scores if g.startswith(f"{kind} · ") and "inferencex" not in g),
                       key=lambda g: -scores[g].get("rows", 0))  # fmt: skip
    out = {}
    for group in (f"{kind} · inferencex", *published):
        for metric, value in _throughput_as_per_gpu(scores.get(group, {})).items():
            out.setdefault(metric, value)
    return out


def _throughput_as_per_gpu(entry: dict) -> dict:
    """A score entry with a published row's instance throughput named as per-GPU throughput: their relative errors
    are the same number."""
    return {("throughput_per_gpu" if k == "throughput" else k): v for k, v in entry.items() if k != "group"}
