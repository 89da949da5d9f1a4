"""Shared fixtures: the real app served by gunicorn, and headless Chromium."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
MEASURED_CSV = SHARED / "data" / "inferencex" / "deepseek_r1_measured.csv"
MEASURED_JSON = SHARED / "data" / "inferencex" / "api_benchmarks_dsr1_2026-06-14.json"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# Importing the app takes a while on a busy 2-core machine; a timeout only matters when start-up fails.
START_TIMEOUT = float(os.environ.get("INFERX_TEST_START_TIMEOUT", "180"))
# A page, script or poll in Chromium may wait this long (s): on a busy 2-core machine the ten figures of `/`
# and their equations have taken four minutes to paint, and a slow page is not a broken one.
TIMEOUT = 600.0


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
        time.sleep(0.1)


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


def start_chrome(opts, attempts: int = 3):
    """ChromeDriver gives Chromium 60 s to come up; a starved machine has taken longer, so try again."""
    from selenium import webdriver
    from selenium.common.exceptions import SessionNotCreatedException

    for attempt in range(attempts):
        try:
            return webdriver.Chrome(options=opts)
        except SessionNotCreatedException:
            if attempt == attempts - 1:
                raise


def make_driver():
    from selenium import webdriver

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    # A fresh profile per driver: two Chromiums sharing the default one refuse to start.
    opts.add_argument(f"--user-data-dir={tempfile.mkdtemp(prefix='inferx-chromium-')}")
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--no-first-run",
        "--disable-quic",
        "--remote-debugging-port=0",
    ):
        opts.add_argument(arg)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = start_chrome(opts)
    driver.set_window_size(1280, 800)
    driver.set_script_timeout(TIMEOUT)
    driver.set_page_load_timeout(TIMEOUT)
    return driver


@pytest.fixture(scope="session")
def chromium():
    """One headless Chromium for the whole run: starting one takes many seconds on a small machine."""
    driver = make_driver()
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
