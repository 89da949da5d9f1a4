"""Your own GPU: a datasheet in a JSON file read into a hardware-catalog entry.

The file uses the field names and units of `inferx hardware --format json` (one GPU's record, per GPU), so the
catalog's own output is a template to edit. `add_gpu_specs` puts files into the live catalog, so a GPU becomes
a choice on every page, in the URL and in the CLI; `INFERX_GPUS` names files for the server and the CLI alike.
Its price is an assumption like the catalog's, so the file gives it and the page lets it be changed.
"""

from __future__ import annotations

import functools
import math

from inferx.deploy import ConfigError
from inferx.physics.gpu import GPU, MACHINE_RANGES, MAX_GPUS
from inferx.physics.model_config import carried, carry, catalog_key
from inferx.text import shown_value

# One GPU's memory, bandwidth and dense compute must lie on the dashboard's sliders (a machine of one is drawn);
# the other bounds are far outside any GPU's, to catch a unit mistaken, not to judge.
_HBM, _BW, _PEAK = (MACHINE_RANGES[n] for n in ("hbm", "bw", "compute"))
_DENSE = ("TFLOPS", round(_PEAK[0] * 1e3), round(_PEAK[1] * 1e3), 1e12)  # the compute slider is in PFLOPS

# field: (unit in words, low, high, SI factor).
NUMBERS = {
    "hbm_gb": ("GB", *_HBM, 1e9),
    "hbm_tb_s": ("TB/s", *_BW, 1e12),
    "dense_bf16_tflops": _DENSE,
    "dense_fp8_tflops": _DENSE,
    "dense_fp4_tflops": _DENSE,
    "sparse_bf16_tflops": ("TFLOPS", 1, 2_000_000, 1e12),
    "sparse_fp8_tflops": ("TFLOPS", 1, 2_000_000, 1e12),
    "sparse_fp4_tflops": ("TFLOPS", 1, 2_000_000, 1e12),
    "link_gb_s_per_gpu": ("GB/s", 1, 1_000_000, 1e9),
    "scale_up_gpus": ("GPUs", 1, MAX_GPUS, 1),
    "power_w": ("W", 1, 100_000, 1),
    "usd_per_gpu_hour": ("$/GPU-hour", 0.01, 1_000, 1),
}
TEXTS = ("key", "name", "vendor", "link", "source")
REQUIRED = (
    "name", "hbm_gb", "hbm_tb_s", "dense_bf16_tflops", "link_gb_s_per_gpu", "scale_up_gpus", "power_w",
    "usd_per_gpu_hour",
)  # fmt: skip
OPTIONAL_PRECISIONS = ("fp8", "fp4")  # null or absent: no tensor cores for it
# What `inferx hardware --format json` adds that a datasheet does not set: the count (1 here) and a ratio.
DERIVED = ("gpus", "ridge_bf16_flop_per_byte")
KEY_FORMAT = "g1"  # a key that carries a GPU (a model's carries "1"), then the CARRIED fields' values
CARRIED = ("name", "vendor", "link", *NUMBERS)


class GpuSpecError(ConfigError):
    """A datasheet file that cannot be read as a GPU, with the file and the field at fault (a ConfigError, so a
    server given a bad INFERX_GPUS stops at start-up with that one line)."""


def _number(spec: dict, field: str) -> float | None:
    value = spec.get(field)
    if value is None:
        return None
    unit, low, high, _ = NUMBERS[field]
    # Not math.isfinite, which overflows on an integer past a float's range (JSON's integers have none).
    infinite = isinstance(value, float) and not math.isfinite(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or infinite:
        raise GpuSpecError(f"{field} must be a number in {unit}, not {value!r}")
    if not low <= value <= high:  # compared as written: an integer past any float's range is only out of range
        shown = f"{value:,}" if abs(value) < 1e15 else shown_value(value)
        raise GpuSpecError(f"{field} must be between {low:,} and {high:,} {unit}, not {shown}")
    if field == "scale_up_gpus" and value != int(value):
        raise GpuSpecError(f"scale_up_gpus must be a whole number of GPUs, not {value:,}")
    return value


def _text(spec: dict, field: str, default: str) -> str:
    value = spec.get(field)
    if value is None:  # absent, or null as a key carries an absent field
        return default
    if not isinstance(value, str) or len(value) > 200:
        raise GpuSpecError(f"{field} must be text of at most 200 characters, not {value!r}")
    return value.strip() or default


def gpu_from_spec(spec, source: str) -> tuple[str, GPU, float]:
    """(key, GPU, assumed $/GPU-hour) from one datasheet record in `inferx hardware`'s fields and units."""
    if not isinstance(spec, dict):
        raise GpuSpecError("must be one JSON object: a GPU's record as `inferx hardware --format json` prints one")
    unknown = sorted(set(spec) - set(NUMBERS) - set(TEXTS) - set(DERIVED))
    if unknown:
        raise GpuSpecError(f"unknown field {unknown[0]!r}; the fields are {', '.join((*TEXTS, *NUMBERS))}")
    missing = [field for field in REQUIRED if spec.get(field) is None]
    if missing:
        raise GpuSpecError(f"{missing[0]} is missing (needed: {', '.join(REQUIRED)})")
    if spec.get("gpus", 1) != 1:
        raise GpuSpecError("gpus must be 1: give one GPU's numbers (`inferx hardware --format json --gpus 1`)")
    values = {field: _number(spec, field) for field in NUMBERS}
    name = _text(spec, "name", "")
    key = catalog_key(_text(spec, "key", name))
    if not key:
        raise GpuSpecError(f"its key {spec.get('key', name)!r} has none of the letters a-z or digits a key is made of")

    def flops(precision: str, sparse: bool = False) -> float | None:
        dense = values[f"dense_{precision}_tflops"]
        given = values[f"sparse_{precision}_tflops"] if sparse else dense
        if given is None and sparse and dense is not None:
            given = 2 * dense  # the 2:4 sparsity headline, as the catalog's vendors state it
        return None if given is None else given * 1e12

    for precision in OPTIONAL_PRECISIONS:
        if values[f"sparse_{precision}_tflops"] is not None and values[f"dense_{precision}_tflops"] is None:
            raise GpuSpecError(f"sparse_{precision}_tflops is given without dense_{precision}_tflops")
    gpu = GPU(
        name=name,
        vendor=_text(spec, "vendor", "other"),
        hbm=values["hbm_gb"] * 1e9,
        bw=values["hbm_tb_s"] * 1e12,
        bf16=flops("bf16"),
        fp8=flops("fp8"),
        fp4=flops("fp4"),
        sparse_bf16=flops("bf16", True),
        sparse_fp8=flops("fp8", True),
        sparse_fp4=flops("fp4", True),
        link=_text(spec, "link", "scale-up link"),
        link_bw=values["link_gb_s_per_gpu"] * 1e9,
        scale_up_gpus=int(values["scale_up_gpus"]),
        power=values["power_w"],
        source=_text(spec, "source", source),
    )
    return key, gpu, values["usd_per_gpu_hour"]


def spec_key(spec) -> str:
    """A key that carries the GPU of a datasheet record itself (and its price), so that a page's address, an embed
    or `inferx point --gpu` can hold a GPU no catalog lists and any server rebuilds it from the key alone."""
    key = gpu_from_spec(spec, source="")[0]  # refuse here what the key could not be read back as
    return carry(key[:40], KEY_FORMAT, [spec.get(field) for field in CARRIED])


@functools.lru_cache(maxsize=128)
def _from_key(key: str) -> tuple[GPU, float]:
    values = carried(key, KEY_FORMAT, GpuSpecError, "a datasheet's GPU")
    if len(values) != len(CARRIED):
        raise GpuSpecError(f"damaged ({len(values)} values, not {len(CARRIED)})")
    _, gpu, price = gpu_from_spec(dict(zip(CARRIED, values, strict=True)), source="a datasheet carried in the address")
    return gpu, price


def gpu_from_key(key: str) -> GPU:
    """The GPU a `spec_key` carries; GpuSpecError if the key is not one (damaged, or from elsewhere)."""
    return _from_key(key)[0]


def price_from_key(key: str) -> float:
    """The assumed $/GPU-hour a `spec_key` carries."""
    return _from_key(key)[1]
