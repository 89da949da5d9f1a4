"""The benchmark suite still runs end to end (quick mode). Timings are reported in RESULTS.md, never asserted."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest
from conftest import ROOT

from inferx.figures.registry import DASHBOARD

ROWS = (
    "all figure data, one state",
    "full redraw over HTTP",
    "response size",
    "the figures of / built in-process",
    "validated go.Figure",
    f"control change → last of {len(DASHBOARD)} figures repainted",
    "Dash store updates per drag step",
    "frames per second",
    "server requests during the run",
    "process start → first page served",
    "context slider key step → graphs in view repainted",
    "longest main-thread task in the 3 s after a key step",
    "cold load of /, bytes received",
    "second load of / in the same browser",
    "cold load of /embed/fig5",
)


@pytest.mark.browser
def test_quick_benchmark_produces_every_row(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick", "--out", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    text = (tmp_path / "RESULTS.md").read_text()
    assert "Load average" in text
    assert "with one of the two workers killed" in text and "errors seen by users" in text
    for name in ROWS:
        line = next((row for row in text.splitlines() if row.startswith("|") and name in row), None)
        assert line is not None, f"no row for {name!r}"
        value = line.split("|")[3]
        assert re.search(r"\d", value), f"row {name!r} has no number: {line}"
