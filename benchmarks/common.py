"""What every benchmark section shares: the repository root, the dashboard's figures, percentiles, the progress
log, and the fresh control states each iteration measures."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from inferx.figures import registry
from inferx.scenario.machines import default_params

ROOT = Path(__file__).resolve().parents[1]

FIGS = registry.DASHBOARD  # the graphs on `/` in DOM order


def pct(samples, q: float) -> float:
    return float(np.percentile(np.asarray(samples, dtype=float), q))


def log(msg: str) -> None:
    print(f"[bench] {msg}", file=sys.stderr, flush=True)


# --- Control states: every iteration a state never seen before -----------------------------------


def states(n: int) -> list[dict]:
    """n distinct control states moving bandwidth and context together, so no memo carries over."""
    base = default_params()
    return [{**base, "bw": round(4.0 + (i * 0.37) % 60, 2), "ctx": 1024 + (i * 97) % 15000} for i in range(n)]
