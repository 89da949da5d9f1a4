"""Shared fixtures: the real app served by gunicorn, headless Chromium, the measured files; and the rules for
tests whose system dependency (Chromium, Docker) is missing."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

from benchmarks import chromium as chromium_tools

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures"
# A folder holding InferenceX's own export (deepseek_r1_measured.csv and api_benchmarks_*.json); without it the
# tests read the synthetic rows of tests/fixtures (make_fixtures.py).
MEASURED_DIR_ENV = "INFERX_TEST_MEASURED_DIR"
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
# Importing the app took 131-191 s on the starved machines CI has run on; a timeout only matters when start-up
# fails, so it is generous.
START_TIMEOUT = float(os.environ.get("INFERX_TEST_START_TIMEOUT", "600"))


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def wait_http(url: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            if time.monotonic() > deadline:
                raise
        time.sleep(0.5)  # each try costs a busy machine CPU that the starting server needs


class Server:
    """`gunicorn app:server` as deployed, on a free loopback port."""

    def __init__(self, env: dict | None = None, host: str = "127.0.0.1", prefix: str = "/"):
        self.port = free_port(host)
        self.url = f"http://{host}:{self.port}{prefix}"
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "app:server",
                "--bind",
                f"{host}:{self.port}",
                "--workers",
                "1",
                "--threads",
                "4",
                "--log-level",
                "warning",
            ],
            cwd=ROOT,
            env={**os.environ, **(env or {})},
        )
        try:
            wait_http(self.url + "health", timeout=START_TIMEOUT)
        except Exception:
            self.stop()
            raise

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@dataclass(frozen=True)
class MeasuredFiles:
    csv: Path
    json: Path
    real: bool  # InferenceX's own rows (from $INFERX_TEST_MEASURED_DIR), not the synthetic fixture


@cache
def measured_files() -> MeasuredFiles:
    folder = os.environ.get(MEASURED_DIR_ENV)
    if not folder:
        return MeasuredFiles(FIXTURES / "synthetic_measured.csv", FIXTURES / "synthetic_api_benchmarks.json", False)
    folder = Path(folder).resolve()
    csv, jsons = folder / "deepseek_r1_measured.csv", sorted(folder.glob("api_benchmarks*.json"))
    missing = ([] if csv.is_file() else [csv.name]) + ([] if jsons else ["api_benchmarks*.json"])
    if missing:  # asked for the real rows: never fall back to the fixture in silence
        pytest.fail(f"{MEASURED_DIR_ENV}={folder}: {' and '.join(missing)} not found there", pytrace=False)
    return MeasuredFiles(csv, jsons[-1], True)


@pytest.fixture(scope="session")
def measured_paths() -> MeasuredFiles:
    """The measured CSV and API JSON the tests read: the synthetic fixture, or the real export when asked."""
    return measured_files()


# --- System dependencies -------------------------------------------------------------------------------------


@cache
def docker_missing() -> str | None:
    """Why no Docker engine can be used here (with what to do about it), or None: `docker info` as a user runs
    it, so DOCKER_HOST is honoured. Starting an engine is the caller's job (.ci/run does it in CI)."""
    if shutil.which("docker") is None:
        return "docker not found on PATH; install with: apt-get install docker.io, then: systemctl start docker"
    try:
        info = subprocess.run(["docker", "info"], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return "`docker info` did not answer in 60 s; start the engine: systemctl start docker (or dockerd &)"
    if info.returncode != 0:
        said = " ".join(info.stderr.split())[-200:]
        return f"no Docker engine answers `docker info` ({said}); start one: systemctl start docker (or dockerd &)"
    return None


DEPENDENCIES = {"browser": chromium_tools.missing, "docker": docker_missing}


def unavailable(reason: str) -> None:
    """Skip, saying what is missing and how to install it; in CI (CI=true) fail instead: CI runs everything."""
    if IN_CI:
        pytest.fail(f"CI must run this test, but: {reason}", pytrace=False)
    pytest.skip(reason)


# The slow suites run last, Docker after the browser, so a slow machine spends its time on the cheap tests first.
SUITE_ORDER = ("browser", "docker")
# CI gives `.ci/run` 90 minutes or nothing lands, and machines here have differed forty-fold in speed. `.ci/run`
# sets INFERX_CI_DEADLINE (epoch seconds). A slow test starts only if the longest it has taken on a starved
# machine still fits before then (a browser test: a server and a page that may wait 600 s; Docker: a cold
# engine, base image and build); otherwise it is skipped, saying why, rather than sink the whole run.
WORST_CASE_S = {"docker": 45 * 60, "browser": 15 * 60}


def pytest_collection_modifyitems(items):
    def rank(item):
        return max((i + 1 for i, mark in enumerate(SUITE_ORDER) if item.get_closest_marker(mark)), default=0)

    items.sort(key=rank)  # stable: file order within each group
    # A browser test waits on a real page that a loaded two-core machine sometimes starves past a wait; one
    # rerun keeps such a stall from sinking the run, and pytest's summary counts every rerun ("R").
    for item in items:
        if item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.flaky(reruns=1))


def pytest_runtest_setup(item):
    for mark, missing in DEPENDENCIES.items():
        if item.get_closest_marker(mark) and (reason := missing()):
            unavailable(reason)
    deadline = os.environ.get("INFERX_CI_DEADLINE")
    if not deadline:
        return
    left = float(deadline) - time.time()
    for mark, worst in WORST_CASE_S.items():
        if item.get_closest_marker(mark) and left < worst:
            pytest.skip(
                f"CI time budget: {left / 60:.0f} min left before .ci/run's deadline, and a {mark} test has"
                f" taken up to {worst / 60:.0f} min on a slow machine"
            )


@pytest.fixture(scope="session")
def server():
    srv = Server()
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def chromium():
    """One headless Chromium for the whole run: starting one takes many seconds on a small machine."""
    driver = chromium_tools.make_driver(logs=True)
    yield driver
    driver.quit()


def reset_browser(driver) -> None:
    """Top-level document, desktop size, console and network logs drained: what a new test starts from."""
    driver.switch_to.default_content()
    driver.set_window_size(1280, 800)
    driver.get_log("browser")
    driver.get_log("performance")


@pytest.fixture
def browser(chromium):
    """The session's Chromium on a blank page, reset for a test."""
    chromium.get("about:blank")
    reset_browser(chromium)
    return chromium


def severe_console_errors(driver) -> list[str]:
    """Console messages at SEVERE level, e.g. JavaScript errors and failed callbacks."""
    return [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]


def layout_text(component) -> str:
    """A Dash layout as JSON text, non-ASCII kept (·, –, µ), to search for what the page says. Plotly's encoder
    re-encodes its output, escaping non-ASCII, whenever the text holds "NaN" or "Infinity" ("Infinity Fabric")."""
    import json

    import plotly

    return json.dumps(json.loads(json.dumps(component, cls=plotly.utils.PlotlyJSONEncoder)), ensure_ascii=False)


def figure_ids(figs) -> list[dict]:
    return [{"role": "figure", "fig": f} for f in figs]


def slider_positions(values: dict) -> dict:
    """Control values as the page's widgets hold them: a log2 slider (ctx, bw, …) holds log2 of its value."""
    from inferx.scenario.controls import PARAMS, slider_position

    return {n: slider_position(PARAMS[n], v) if n in PARAMS and v is not None else v for n, v in values.items()}


def page_values(**params) -> list:
    """The controls' values as the page holds them (log2 sliders at their positions), in `controls()` order, for
    `params` in user units (the defaults for the others)."""
    import math

    from inferx.scenario.controls import PARAMS
    from pages._url import controls, parse_query

    values, _, notices = parse_query({k: str(v) for k, v in params.items()})
    assert notices == []
    return [math.log2(values[n]) if PARAMS[n].log2 else values[n] for n in controls()]


def post_redraw(client, request, ids):
    """The browser's redraw POST through Flask's test client: `request` as `controlsChanged` sends it, `ids` the
    pattern ids of the page's graphs (any JSON, for the tests that send hostile ones)."""
    deps = client.get("/_dash-dependencies").get_json()
    dep = next(d for d in deps if d["output"].startswith("..figure-updates.data"))
    body = {
        "output": dep["output"],
        "outputs": [
            {"id": "figure-updates", "property": "data"},
            {"id": "runtime-notice", "property": "children"},
            {"id": "runtime-notice", "property": "is_open"},
        ],
        "inputs": [{"id": "redraw-request", "property": "data", "value": request}],
        "changedPropIds": ["redraw-request.data"],
        # Each entry rides on a real graph's id, so the envelope passes and the callback sees the value as sent.
        "state": [[{"id": {"role": "figure", "fig": "fig1"}, "property": "id", "value": i} for i in ids]],
    }
    return client.post("/_dash-update-component", json=body)


@pytest.fixture
def linear_x(monkeypatch):
    """The frontier figures as they open where their data span under two decades, on linear x, whatever their
    span: the tests of the labels' places on a linear axis (tests/test_figure_scales.py tests the choice)."""
    from inferx.figures import beyond, curves, registry  # noqa: PLC0415

    def clear():
        registry._pinned_figures.cache_clear()
        for memo in (beyond.regimes_slo, beyond.economics_fig):
            memo.cache_clear()

    clear()
    monkeypatch.setattr(curves, "LOG_SPAN", float("inf"))
    yield
    clear()
