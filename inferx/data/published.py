"""Published measurements, kept in this package with their provenance, in one schema.

`public/sources.json` names each source: who published it, where (a URL at a commit or a dated page), when it was
read, the stack and its version, how it was measured and what each column means. Each CSV beside it holds one
source's rows, as the source printed them:

    source, model, gpu, gpus, tp, dtype, isl, osl, and one of out_tok_s_total | out_tok_s_per_gpu

(`out_tok_s_per_gpu` where the source publishes per-GPU figures), and for a source whose `load` is
"concurrency" also `concurrency` and, where measured, `ttft_ms` and `itl_ms`; extra columns, such as
`max_num_seqs`, are kept in the CSV as facts and not read. `load_published` reads them all into one frame, with
catalog keys for the model and the GPU, so the fit and `inferx validate` treat every source alike:

    source, stack, model, gpu, gpus, tp, dp_attention, precision, isl, osl, load, concurrency, out_tok_s_total,
    ttft_ms, itl_ms

`load` is "offline" for a maximum-throughput run (every request queued at once) or "concurrency" for a closed
loop of `concurrency` users, each sending its next request when the last is answered; `out_tok_s_total` is output
tokens per second of the whole instance (input tokens never counted); `ttft_ms` and `itl_ms` (a concurrency row's
time to first token and time between output tokens, ms) are NaN where not measured, `concurrency` NaN on an
offline row; `dp_attention` follows the source's `attention_dp` ("moe": MoE models on more than one GPU run
attention data parallel; "none").
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np
import pandas as pd

from inferx.physics.hardware import GPUS
from inferx.physics.models import MODELS

PUBLIC_DIR = Path(__file__).with_name("public")
SOURCES_FILE = PUBLIC_DIR / "sources.json"

# Names as the sources print them -> catalog keys (only where the architecture is the same, weight for weight).
MODEL_NAMES = {
    "Llama 3.3 70B": "llama-3.3-70b",
    "Llama 3.1 70B": "llama-3.3-70b",  # Llama 3.3 70B is Llama 3.1 70B's architecture, retrained
    "Llama 3.1 405B": "llama-3.1-405b",
    "Llama 3.1 8B": "llama-3-8b",  # the same architecture and size as Llama 3 8B
    "Qwen3-235B-A22B": "qwen3-235b-a22b",
    "Llama 4 Scout": "llama-4-scout",
    "DeepSeek-R1-0528": "deepseek-r1",
    "gpt-oss-120b": "gpt-oss-120b",
}
COLUMNS = ("source", "stack", "model", "gpu", "gpus", "tp", "dp_attention", "precision", "isl", "osl", "load",
           "concurrency", "out_tok_s_total", "ttft_ms", "itl_ms")  # fmt: skip
LATENCIES = ("ttft_ms", "itl_ms")  # a concurrency source's, where it measured them
REQUIRED = ("file", "title", "url", "publisher", "licence", "read", "stack", "stack_version", "benchmark", "load",
            "attention_dp", "definitions")  # fmt: skip
THROUGHPUT = ("out_tok_s_total", "out_tok_s_per_gpu")  # a CSV has exactly one
LOADS = ("offline", "concurrency")
PRECISIONS = ("fp8", "fp4", "bf16")


class PublishedDataError(ValueError):
    """A published CSV or its source entry that breaks the schema."""


@functools.lru_cache(maxsize=1)
def sources() -> dict:
    """{source id: its provenance and definitions} from `public/sources.json`."""
    return json.loads(SOURCES_FILE.read_text())["sources"]


def read_source(source_id: str, source: dict, directory: Path = PUBLIC_DIR) -> pd.DataFrame:
    """One source's CSV in the schema of this module's docstring; refused in words where a row or the entry breaks
    it (a missing field, a model or GPU outside the catalog, a row of another source, a NaN or a non-positive
    number)."""
    missing = [f for f in REQUIRED if not source.get(f)]
    if missing:
        raise PublishedDataError(f"source {source_id}: no {', '.join(missing)}")
    if source["load"] not in LOADS or source["attention_dp"] not in ("moe", "none"):
        raise PublishedDataError(
            f"source {source_id}: load {source['load']!r}, attention_dp {source['attention_dp']!r}"
        )
    name = source["file"]
    raw = pd.read_csv(directory / name)
    measure = [c for c in THROUGHPUT if c in raw]
    if len(measure) != 1:
        raise PublishedDataError(f"{name}: needs exactly one of {', '.join(THROUGHPUT)}")
    if not (set(measure) | {"isl, osl", "gpus, tp", "dtype", "load"}) <= set(source["definitions"]):
        raise PublishedDataError(f"source {source_id}: its definitions must say what {measure[0]}, isl, osl, gpus, "
                                 "tp, dtype and load mean")  # fmt: skip
    closed = source["load"] == "concurrency"
    latencies = [c for c in LATENCIES if c in raw] if closed else []
    if closed and "concurrency" not in raw:
        raise PublishedDataError(f"{name}: a concurrency source needs a concurrency column")
    undefined = [c for c in (["concurrency"] if closed else []) + latencies if c not in source["definitions"]]
    if undefined:
        raise PublishedDataError(f"source {source_id}: its definitions must say what {', '.join(undefined)} mean")
    numbers = ["gpus", "tp", "isl", "osl", measure[0], *(["concurrency"] if closed else [])]
    if raw[["source", "model", "gpu", "dtype", *numbers]].isna().any().any():
        raise PublishedDataError(f"{name}: empty cells")
    if raw["source"].ne(source_id).any():
        raise PublishedDataError(f"{name}: rows of another source than {source_id}")
    for column, known in (("model", MODEL_NAMES), ("gpu", {g.upper() for g in GPUS}), ("dtype", PRECISIONS)):
        unknown = sorted(set(raw[column]) - set(known))
        if unknown:
            raise PublishedDataError(f"{name}: {column} not in the catalog: {', '.join(map(str, unknown))}")
    if not (raw[numbers] > 0).all().all() or raw["tp"].gt(raw["gpus"]).any() or (raw[latencies] <= 0).any().any():
        raise PublishedDataError(f"{name}: a count, length or throughput that is not positive, or tp > gpus")
    model = raw["model"].map(MODEL_NAMES)
    gpus = raw["gpus"].astype(int)
    total = raw[measure[0]].astype(float) * (gpus if measure[0] == "out_tok_s_per_gpu" else 1)
    moe = model.map(lambda key: MODELS[key].is_moe)
    return pd.DataFrame(
        {
            "source": source_id,
            "stack": source["stack"],
            "model": model,
            "gpu": raw["gpu"].str.lower(),
            "gpus": gpus,
            "tp": raw["tp"].astype(int),
            "dp_attention": (moe & gpus.gt(1)) if source["attention_dp"] == "moe" else False,
            "precision": raw["dtype"],
            "isl": raw["isl"].astype(float),
            "osl": raw["osl"].astype(float),
            "load": source["load"],
            "concurrency": raw["concurrency"].astype(float) if closed else np.nan,
            "out_tok_s_total": total,
            **{c: raw[c].astype(float) if c in latencies else np.nan for c in LATENCIES},
        }
    )[list(COLUMNS)]


def read_all(entries: dict, directory: Path = PUBLIC_DIR) -> pd.DataFrame:
    """Every source of `entries` ({id: entry}) read from `directory`, in one frame."""
    frames = [read_source(source_id, source, directory) for source_id, source in entries.items()]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=list(COLUMNS))


@functools.lru_cache(maxsize=1)
def _load() -> pd.DataFrame:
    return read_all(sources())


def load_published(only=None) -> pd.DataFrame:
    """Every published row, in the schema of this module's docstring (a copy: callers may add columns); `only`: the
    rows of these source ids alone."""
    rows = _load()
    return (rows if only is None else rows[rows["source"].isin(list(only))]).reset_index(drop=True).copy()
