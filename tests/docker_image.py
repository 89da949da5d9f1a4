"""The image under test, built once per run by the first Docker test that needs it.

The engine is whatever `docker info` reaches (DOCKER_HOST honoured); conftest.py skips the Docker tests, naming
what is missing, when there is none, and `.ci/run` starts one in CI. A build takes about a minute on a quick
machine and over half an hour on a starved one; the Docker tests run last (conftest.py), so that work never
competes with a browser test for the CPU.
"""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass, field
from functools import cache

from conftest import ROOT

IMAGE = "inferx:test"


@dataclass
class Prepared:
    build_error: str | None = None
    image: str = IMAGE
    log: list[str] = field(default_factory=list)


@cache
def result() -> Prepared:
    prepared = Prepared()
    if os.environ.get("INFERX_TEST_IMAGE"):  # a developer's prebuilt image; CI always builds
        prepared.image = os.environ["INFERX_TEST_IMAGE"]
        return prepared
    t0 = time.monotonic()
    # Host networking: pip inside the build reaches the package index the way the host does (proxies included).
    out = subprocess.run(
        ["docker", "build", "--network", "host", "--tag", IMAGE, str(ROOT)],
        capture_output=True,
        text=True,
        timeout=2400,
    )
    if out.returncode != 0:
        prepared.build_error = f"docker build failed ({out.returncode}):\n{out.stdout[-3000:]}\n{out.stderr[-3000:]}"
    prepared.log.append(f"docker build: {time.monotonic() - t0:.0f}s")
    return prepared
