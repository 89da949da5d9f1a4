"""Published measurements of models other than DeepSeek-R1, kept in this package with their provenance.

`public/sources.json` names each source: who published it, where, when it was read, the stack and its version,
how it was measured and what each column means. Each CSV beside it holds one source's rows. `load_published`
reads them into one frame in the schema below, with catalog keys for the model and the GPU, so the fit and
`inferx validate` treat them alike:

    source, model, gpu, gpus, tp, dp_attention, precision, isl, osl, load, out_tok_s_total

`load` is "offline" for a maximum-throughput run (every request queued at once).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pandas as pd

from inferx.physics.models import MODELS

PUBLIC_DIR = Path(__file__).with_name("public")
SOURCES_FILE = PUBLIC_DIR / "sources.json"

# Names as the sources print them -> catalog keys.
MODEL_NAMES = {
    "Llama 3.3 70B": "llama-3.3-70b",
    "Llama 3.1 405B": "llama-3.1-405b",
    "Llama 3.1 8B": "llama-3-8b",  # the same architecture and size as Llama 3 8B
    "Qwen3-235B-A22B": "qwen3-235b-a22b",
    "Llama 4 Scout": "llama-4-scout",
}
COLUMNS = ("source", "model", "gpu", "gpus", "tp", "dp_attention", "precision", "isl", "osl", "load",
           "out_tok_s_total")  # fmt: skip


@functools.lru_cache(maxsize=1)
def sources() -> dict:
    """{source id: its provenance and definitions} from `public/sources.json`."""
    return json.loads(SOURCES_FILE.read_text())["sources"]


@functools.lru_cache(maxsize=1)
def _load() -> pd.DataFrame:
    frames = []
    for source_id, source in sources().items():
        raw = pd.read_csv(PUBLIC_DIR / source["file"])
        unknown = sorted(set(raw["model"]) - set(MODEL_NAMES))
        if unknown:
            raise ValueError(f"{source['file']}: models not in the catalog: {', '.join(unknown)}")
        model = raw["model"].map(MODEL_NAMES)
        frames.append(
            pd.DataFrame(
                {
                    "source": source_id,
                    "model": model,
                    "gpu": raw["gpu"].str.lower(),
                    "gpus": raw["gpus"].astype(int),
                    "tp": raw["tp"].astype(int),
                    # TensorRT-LLM's tables run MoE models with attention data parallelism.
                    "dp_attention": model.map(lambda key: MODELS[key].is_moe) & raw["gpus"].gt(1),
                    "precision": raw["dtype"],
                    "isl": raw["isl"].astype(float),
                    "osl": raw["osl"].astype(float),
                    "load": source["load"],
                    "out_tok_s_total": raw["out_tok_s_total"].astype(float),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)[list(COLUMNS)]


def load_published() -> pd.DataFrame:
    """Every published row, in the schema of this module's docstring (a copy: callers may add columns)."""
    return _load().copy()
