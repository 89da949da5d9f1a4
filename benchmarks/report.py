"""The results table and RESULTS.md: the Row every benchmark returns, the Markdown and plain tables, the
machine description and the report's text."""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np


@dataclass
class Row:
    section: str
    name: str
    value: float | None
    unit: str
    baseline: str  # what it was compared with, and that baseline's value
    ratio: float | None
    target: str
    met: bool | None

    def cells(self) -> list[str]:
        value = "—" if self.value is None else f"{self.value:,.3g} {self.unit}".strip()
        ratio = "—" if self.ratio is None else f"{self.ratio:,.3g}×"
        met = {True: "yes", False: "**no**", None: "—"}[self.met]
        return [self.section, self.name, value, self.baseline, ratio, self.target, met]


HEADER = ["Section", "Measure", "Value", "Baseline (same run)", "Ratio", "Target", "Met"]

# --- Report --------------------------------------------------------------------------------------


def _version(cmd: list[str]) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "not found"


def machine() -> dict:
    import dash
    import plotly

    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f"{kb / 1024**2:.1f} GB"
    except (OSError, ValueError, IndexError):
        pass
    return {
        "Host": f"{platform.system()} {platform.release()} ({platform.machine()})",
        "CPU": f"{cpu}, {os.cpu_count()} logical cores",
        "Memory": mem,
        "Python": platform.python_version(),
        "Versions": f"numpy {np.__version__}, dash {dash.__version__}, plotly {plotly.__version__}",
        "Browser": _version([shutil.which("chromium") or "chromium", "--version"]),
    }


def table(rows: list[Row]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "|".join("---" for _ in HEADER) + "|"]
    lines += ["| " + " | ".join(r.cells()) + " |" for r in rows]
    return "\n".join(lines)


def plain_table(rows: list[Row]) -> str:
    cells = [HEADER] + [[c.replace("**", "") for c in r.cells()] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(HEADER))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in cells)


def report(
    rows: list[Row], info: dict, load: tuple, quick: bool, elapsed: float, notes: list[str], load_md: str = ""
) -> str:
    mode = "`python -m benchmarks --quick` (smoke run: too few samples to quote)" if quick else "`python -m benchmarks`"
    lines = [
        "# inferx benchmark results",
        "",
        f"Run {datetime.now(UTC):%Y-%m-%d %H:%M} UTC with {mode} in {elapsed:.0f} s. "
        "Each ratio divides two numbers measured side by side in the same run; the targets are issue 5's.",
        "",
        table(rows),
        "",
        *([load_md] if load_md else []),
        "## Machine",
        "",
        *[f"- {k}: {v}" for k, v in info.items()],
        f"- Load average (1, 5, 15 min): {load[0][0]:.1f}, {load[0][1]:.1f}, {load[0][2]:.1f} at the start; "
        f"{load[1][0]:.1f}, {load[1][1]:.1f}, {load[1][2]:.1f} at the end",
        "",
        "## How each number is taken",
        "",
        "- Engine: `Scenario.from_params(**state)` then `inferx.figures.registry.build` for every figure, a new state "
        "(bandwidth and context both moved) every iteration. The baseline evaluates the same curves on the same "
        "batch grids one batch size at a time in plain Python floats (`benchmarks/engine.py: loop_build`), checked "
        "to give the same numbers; it builds no layouts or trace dicts, which the engine's time includes. The "
        "second baseline runs the same loop through the engine's own numpy functions, one batch size per call. "
        "The dense row is one frontier at every whole batch size, `Scenario.evaluate` against the float loop. "
        "Why ≥ 50× against the float loop is out of numpy's reach: docs/architecture.md, Known issues.",
        "- Server: `gunicorn app:server` with `gunicorn.conf.py` as deployed (2 gthread workers), POST "
        "`/_dash-update-component` with the payload the browser sends when `ctl-bw` moves (outputs, inputs and "
        "state from `/_dash-dependencies`; every graph of `/`), on a keep-alive connection, a new state "
        "every request. The trivial round trip is the same redraw callback, with the same request, refused by "
        "validation (bandwidth 1,000 TB/s, past the slider's 600: no figure work, a small notice back), "
        "interleaved request by request; `GET /health` is shown as well. The in-view row sends the same "
        "requests narrowed to the figures the desktop drag's redraws asked for (`figures` in the request), "
        "as the page sends them. The parts row builds the figures of `/` for other new states in the "
        "benchmark's own process, and encodes each answer with Dash's `to_json` (plotly's `to_json_plotly`): "
        "what the full redraw adds to the trivial round trip, besides sending the answer.",
        "- Validated figures: `go.Figure(d)` for each figure dict, in-process, plus the build.",
        "- Drag: headless Chromium on `/` at 1280×900, once no graph has repainted for 1 s, the bandwidth "
        "slider's thumb pressed and moved a pixel at a time, back and forth over 40 px, by the mouse through "
        "CDP (`Input.dispatchMouseEvent`: trusted events, each sent once the page has taken the one before) "
        "every 16 ms or as soon as the page takes it, for 3 s, then released; Figure 1's repaints from press "
        "to release counted; then the time from the release until Figure 1 shows the slider's value and the "
        "redraw the release sends through Dash has been answered. Each "
        "redraw asks only for the graphs in the viewport (the next row names them). Beside it, the same drag "
        "with the window as tall as the page, so every graph is in view and every redraw builds and paints "
        "all of them. Store updates: Dash's store, counted by a subscriber, over 20 steps of a drag 100 ms "
        "apart (their redraws and repaints included), then over 10 `set_props` changes each waited for until "
        "Figure 1 shows it (a count of the renderer's work, which a loaded machine does not change). CPU "
        "time: the renderer's main-thread `ThreadTime` (CDP `Performance.getMetrics`, thread ticks) over the "
        "same drags and counts, per repaint (the release's last one included) and per step or change; it "
        "varies less with the machine's load than the rate does, but does vary. Components: the Dash "
        "components in the renderer's layout store, on `/` and in Figure 1's card. "
        "`python -m benchmarks --drag-only` prints these rows alone.",
        "- Browser: the same page, every graph in view; `dash_clientside.set_props('ctl-bw', …)` to the "
        "last `plotly_afterplot`/`plotly_react` of all the graphs of `/`, after 300 ms of quiet. The floor, "
        "interleaved change by change on the same page and graphs, is `Plotly.react` of server-made figure "
        "data for two states, alternated, with no request.",
        "- Keys: a new Chromium at 1440×900 on `/`, scrolled to the top, the context slider's thumb focused and "
        "ArrowRight and ArrowLeft pressed in turn (selenium's trusted key events, through Radix and Dash), from "
        "the press to the last `plotly_afterplot` of the graphs in view at the press, after 300 ms of quiet; "
        "the longest main-thread task is the longest Long Tasks API entry starting in the 3 s after it "
        "(`benchmarks/keys.py`).",
        "- Transfer: a new Chromium's network log (CDP `Network.loadingFinished.encodedDataLength`: headers and "
        "body as sent, after compression) for the app's own origin, once the graphs are drawn and no response "
        "has finished for 1.5 s; the second load is the same URL again in the same browser, whose cache answers "
        "the versioned assets (0 bytes); the embed in a new 800×500 browser (`benchmarks/transfer.py`).",
        "- Animation: click Animate, read `window.inferxAnimation.frames` after 5 s (the sweep lasts 8 s); "
        "requests are resource-timing entries for `_dash-update-component` started during the window.",
        "- Cold start: `perf_counter` before `Popen(gunicorn)` to the first `GET /` answered 200.",
    ]
    if notes:
        lines += ["", "## Notes", "", *[f"- {n}" for n in notes]]
    return "\n".join(lines) + "\n"
