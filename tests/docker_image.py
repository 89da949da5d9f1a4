"""The Docker engine and the image under test, prepared in the background.

Starting the engine (../shared/tools/docker-local) and building the image take many minutes on a small
machine, most of it pip downloading inside the build. `start()` is called as soon as pytest knows a Docker
test is selected, so that work runs beside the tests that come before test_docker.py.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass, field

from conftest import ROOT, SHARED

DOCKER_LOCAL = SHARED / "tools" / "docker-local"
SOCKET_ENV = {"DOCKER_HOST": "unix:///tmp/docker-local/docker.sock"}
IMAGE = "inferx:test"


@dataclass
class Prepared:
    env: dict[str, str] = field(default_factory=dict)
    was_running: bool = False  # an engine was already up: leave it up afterwards
    unavailable: str | None = None  # why Docker cannot be had here
    build_error: str | None = None
    image: str = IMAGE
    log: list[str] = field(default_factory=list)


_result = Prepared()
_done = threading.Event()
_thread: threading.Thread | None = None


def start() -> None:
    global _thread
    if _thread is None:
        # A daemon thread: an interrupted run must not wait for a build nobody needs any more.
        _thread = threading.Thread(target=_prepare, name="docker-image", daemon=True)
        _thread.start()


def result() -> Prepared:
    start()
    _done.wait()
    return _result


def _prepare() -> None:
    try:
        _engine()
        if _result.unavailable is None:
            _build()
    except Exception as exc:  # surfaced by the fixtures, never lost in the thread
        _result.build_error = f"{type(exc).__name__}: {exc}"
    finally:
        _done.set()


def _engine() -> None:
    if not DOCKER_LOCAL.exists():
        _result.unavailable = f"{DOCKER_LOCAL} is missing, so no Docker engine can be started here"
        return
    if os.geteuid() != 0:
        _result.unavailable = "docker-local needs root to install and start dockerd"
        return
    _result.was_running = shutil.which("docker") is not None and (
        subprocess.run(["docker", "version"], env={**os.environ, **SOCKET_ENV}, capture_output=True).returncode == 0
    )
    t0 = time.monotonic()
    # Cold: apt installs docker.io, dockerd starts and the base image is built from Debian packages.
    up = subprocess.run([str(DOCKER_LOCAL), "up"], capture_output=True, text=True, timeout=1800)
    if up.returncode != 0:
        _result.unavailable = f"docker-local up failed ({up.returncode}): {up.stderr[-2000:]}"
        return
    _result.env = dict(os.environ)
    for word in up.stdout.split():
        if "=" in word:
            key, value = word.split("=", 1)
            _result.env[key] = value
    _result.log.append(f"docker-local up: {time.monotonic() - t0:.0f}s")


def _build() -> None:
    if os.environ.get("INFERX_TEST_IMAGE"):  # a developer's prebuilt image; CI always builds
        _result.image = os.environ["INFERX_TEST_IMAGE"]
        return
    t0 = time.monotonic()
    out = subprocess.run(
        ["docker", "build", "--network", "host", "--tag", IMAGE, str(ROOT)],
        env=_result.env,
        capture_output=True,
        text=True,
        timeout=2400,
    )
    if out.returncode != 0:
        _result.build_error = f"docker build failed ({out.returncode}):\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    _result.log.append(f"docker build: {time.monotonic() - t0:.0f}s")
