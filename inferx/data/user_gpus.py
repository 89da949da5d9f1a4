"""A user's GPU datasheet file (or upload) read into the GPU catalog and its price: `--gpu-spec`, `INFERX_GPUS`."""

from __future__ import annotations

import os

from inferx.data.user_files import json_from_upload, read_json_file
from inferx.physics import hardware as economics
from inferx.physics.gpu import GPU
from inferx.physics.gpu_spec import GpuSpecError, gpu_from_key, gpu_from_spec, spec_key
from inferx.physics.hardware import GPUS

ENV = "INFERX_GPUS"  # datasheet files to add to the catalog, separated by os.pathsep (":" on Linux)

MAX_SPEC_BYTES = 1 << 16


def read_gpu_spec(path: str | os.PathLike) -> tuple[str, GPU, float]:
    """(key, GPU, $/GPU-hour) of one datasheet file; GpuSpecError says which file and why it cannot be read."""
    spec = read_json_file(path, MAX_SPEC_BYTES, GpuSpecError, "a GPU's datasheet")
    try:
        return gpu_from_spec(spec, source=str(path))
    except GpuSpecError as err:
        raise GpuSpecError(f"{path}: {err}") from None


def add_gpu_specs(paths) -> list[str]:
    """Read each datasheet file and add its GPU (and its price) to the catalog; the keys, in order. A file read
    twice keeps its entry; a key the catalog already holds for another GPU is refused, so a key means one GPU."""
    keys = []
    for path in paths:
        key, gpu, price = read_gpu_spec(path)
        known = GPUS.get(key)
        if known is not None and (known, economics.USD_PER_GPU_HOUR.get(key)) != (gpu, price):
            raise GpuSpecError(
                f"{path}: the catalog already has a GPU with the key {key!r}; give this one another `key`"
            )
        GPUS[key] = gpu
        economics.USD_PER_GPU_HOUR[key] = price
        keys.append(key)
    return keys


def add_gpus_from_env(environ=None) -> list[str]:
    """The GPUs `INFERX_GPUS` names (files separated by os.pathsep), added to the catalog."""
    raw = (os.environ if environ is None else environ).get(ENV, "")
    try:
        return add_gpu_specs(p for p in raw.split(os.pathsep) if p.strip())
    except GpuSpecError as err:
        raise GpuSpecError(f"{ENV}: {err}") from None


def gpu_from_upload(contents) -> tuple[str, GPU]:
    """(key, GPU) of a datasheet file a browser sent (a dcc.Upload data URL); the key carries the GPU."""
    spec = json_from_upload(contents, MAX_SPEC_BYTES, GpuSpecError, "a GPU's datasheet")
    key = spec_key(spec)
    return key, gpu_from_key(key)
