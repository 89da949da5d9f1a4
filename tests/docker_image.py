"""The Docker engine and the image under test, prepared once per run by the first Docker test that needs them.

A cold start installs docker.io, starts dockerd and builds the base image (../shared/tools/docker-local), then
builds the app's image: about a minute on a quick machine, over half an hour on a starved one. The Docker tests
run last (conftest.py), so that work never competes with a browser test for the CPU.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from dataclasses import dataclass, field
from functools import cache

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


@cache
def result() -> Prepared:
    prepared = Prepared()
    _engine(prepared)
    if prepared.unavailable is None:
        _build(prepared)
    return prepared


def _engine(prepared: Prepared) -> None:
    if not DOCKER_LOCAL.exists():
        prepared.unavailable = f"{DOCKER_LOCAL} is missing, so no Docker engine can be started here"
        return
    if os.geteuid() != 0:
        prepared.unavailable = "docker-local needs root to install and start dockerd"
        return
    prepared.was_running = shutil.which("docker") is not None and (
        subprocess.run(["docker", "version"], env={**os.environ, **SOCKET_ENV}, capture_output=True).returncode == 0
    )
    t0 = time.monotonic()
    up = subprocess.run([str(DOCKER_LOCAL), "up"], capture_output=True, text=True, timeout=1800)
    if up.returncode != 0:
        prepared.unavailable = f"docker-local up failed ({up.returncode}): {up.stderr[-2000:]}"
        return
    prepared.env = dict(os.environ)
    for word in up.stdout.split():
        if "=" in word:
            key, value = word.split("=", 1)
            prepared.env[key] = value
    prepared.log.append(f"docker-local up: {time.monotonic() - t0:.0f}s")


def _build(prepared: Prepared) -> None:
    if os.environ.get("INFERX_TEST_IMAGE"):  # a developer's prebuilt image; CI always builds
        prepared.image = os.environ["INFERX_TEST_IMAGE"]
        return
    t0 = time.monotonic()
    out = subprocess.run(
        ["docker", "build", "--network", "host", "--tag", IMAGE, str(ROOT)],
        env=prepared.env,
        capture_output=True,
        text=True,
        timeout=2400,
    )
    if out.returncode != 0:
        prepared.build_error = f"docker build failed ({out.returncode}):\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    prepared.log.append(f"docker build: {time.monotonic() - t0:.0f}s")
