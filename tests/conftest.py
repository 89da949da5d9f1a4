"""Shared fixtures: the real app served by gunicorn, and headless Chromium."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from benchmarks.chromium import make_driver

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
MEASURED_CSV = SHARED / "data" / "inferencex" / "deepseek_r1_measured.csv"
MEASURED_JSON = SHARED / "data" / "inferencex" / "api_benchmarks_dsr1_2026-06-14.json"
# Importing the app takes a while on a busy 2-core machine; a timeout only matters when start-up fails.
START_TIMEOUT = float(os.environ.get("INFERX_TEST_START_TIMEOUT", "180"))


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


def pytest_collection_finish(session):
    """Start the Docker engine and the image build now, if any Docker test will run: they take minutes."""
    if any(item.get_closest_marker("docker") for item in session.items):
        import docker_image

        docker_image.start()


@pytest.fixture(scope="session")
def server():
    srv = Server()
    yield srv
    srv.stop()


@pytest.fixture(scope="session")
def chromium():
    """One headless Chromium for the whole run: starting one takes many seconds on a small machine."""
    driver = make_driver(logs=True)
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
