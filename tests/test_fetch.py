"""`inferx fetch` against a local stand-in for InferenceX's API, serving the synthetic fixture."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from conftest import FIXTURES, ROOT, free_port

from inferx.data.fetch import BASE_URL_ENV, FetchError, fetch_benchmarks
from inferx.data.measured import load_measured

ANSWER = (FIXTURES / "synthetic_api_benchmarks.json").read_bytes()
MODEL = "DeepSeek-R1-0528"


class FakeInferenceX:
    """`GET /api/v1/benchmarks?model=…` as the real API answers it, plus the ways a server can go wrong."""

    def __init__(self):
        self.queries: list[dict] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                url = urllib.parse.urlsplit(self.path)
                query = dict(urllib.parse.parse_qsl(url.query))
                owner.queries.append(query)
                model = query.get("model")
                if url.path != "/api/v1/benchmarks":
                    return self.answer(404, b'{"error": "Not found"}')
                if model == MODEL:
                    return self.answer(200, ANSWER)
                if model == "garbage":
                    return self.answer(200, b"<html><body>Service temporarily unavailable</body></html>")
                if model == "object":
                    return self.answer(200, b'{"rows": 3}')
                if model == "wrong-rows":
                    return self.answer(200, json.dumps([{"hardware": "h200", "conc": 4}]).encode())
                if model == "empty":
                    return self.answer(200, b"[]")
                if model == "slow":
                    time.sleep(3)
                    return self.answer(200, ANSWER)
                if model == "drip":  # headers at once, then the body a few bytes at a time
                    self.send_response(200)
                    self.send_header("Content-Length", str(len(ANSWER)))
                    self.end_headers()
                    with contextlib.suppress(OSError):  # the client gives up, as it should
                        for i in range(0, 40):
                            self.wfile.write(ANSWER[i * 10 : (i + 1) * 10])
                            self.wfile.flush()
                            time.sleep(0.1)
                    return None
                return self.answer(400, b'{"error": "Unknown model"}')

            def answer(self, status: int, body: bytes):
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                with contextlib.suppress(OSError):  # the client gave up (a timeout test)
                    self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def api():
    server = FakeInferenceX()
    yield server
    server.close()


def inferx(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "inferx", *args],
        cwd=ROOT,
        env={**os.environ, **(env or {})},
        capture_output=True,
        timeout=300,
    )


def test_fetch_returns_the_servers_rows_and_sends_model_and_date(api):
    assert fetch_benchmarks(MODEL, base_url=api.url) == ANSWER
    assert api.queries[-1] == {"model": MODEL}
    seen = []
    assert fetch_benchmarks(MODEL, base_url=api.url + "/", date="2026-03-01", progress=seen.append) == ANSWER
    assert api.queries[-1] == {"model": MODEL, "date": "2026-03-01"}
    assert seen and seen[-1] == len(ANSWER) and seen == sorted(seen)


def test_environment_variable_sets_the_server(api, monkeypatch):
    monkeypatch.setenv(BASE_URL_ENV, api.url)
    before = len(api.queries)
    assert fetch_benchmarks(MODEL) == ANSWER
    assert len(api.queries) == before + 1


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("Not-A-Model", "HTTP 400 (Unknown model)"),
        ("garbage", "not JSON"),
        ("object", "not an array"),
        ("wrong-rows", "not InferenceX benchmark rows: item [0], column 'metrics'"),
        ("empty", "no benchmark results for model 'empty'"),
    ],
)
def test_unusable_answers_are_one_clear_error(api, model, expected):
    with pytest.raises(FetchError) as err:
        fetch_benchmarks(model, base_url=api.url)
    assert expected in str(err.value) and "\n" not in str(err.value)


def test_timeouts_bound_the_whole_download(api):
    for model in ("slow", "drip"):  # no answer at all; an answer that never finishes
        t0 = time.monotonic()
        with pytest.raises(FetchError, match=r"no answer from 127\.0\.0\.1:\d+ within 0\.5 s"):
            fetch_benchmarks(model, base_url=api.url, timeout=0.5)
        assert time.monotonic() - t0 < 2.5, model


def test_unreachable_server_and_bad_arguments():
    port = free_port()  # bound and released: nothing listens there
    with pytest.raises(FetchError, match=f"cannot reach 127.0.0.1:{port}: .*refused"):
        fetch_benchmarks(MODEL, base_url=f"http://127.0.0.1:{port}", timeout=5)
    for kwargs, message in (
        ({"base_url": "ftp://example.org"}, "http:// or https://"),
        ({"base_url": "inferencex.semianalysis.com"}, "http:// or https://"),
        ({"date": "14 June 2026"}, "YYYY-MM-DD"),
        ({"date": "2026-13-01"}, "a day as YYYY-MM-DD"),  # the shape of a date, but no such day
        ({"date": "2026-02-30"}, "a day as YYYY-MM-DD"),
    ):
        with pytest.raises(FetchError, match=message):
            fetch_benchmarks(MODEL, **kwargs)
    with pytest.raises(FetchError, match="model"):
        fetch_benchmarks("  ", base_url="http://127.0.0.1:9")


def test_cli_writes_a_file_that_validate_reads(api, tmp_path):
    out = tmp_path / "dsr1.json"
    run = inferx("fetch", "--base-url", api.url, "-o", str(out))
    assert run.returncode == 0, run.stderr
    assert out.read_bytes() == ANSWER
    stderr = run.stderr.decode()
    assert f"fetching {api.url}/api/v1/benchmarks?model={MODEL}" in stderr
    rows = len(load_measured(out))
    assert f"{rows:,} benchmark rows" in stderr and str(out) in stderr
    # The README's next step: the models' errors on the downloaded rows.
    run = inferx("validate", "--measured", str(out))
    assert run.returncode == 0, run.stderr
    assert any(line.startswith("single-node") for line in run.stdout.decode().splitlines())


def test_cli_to_stdout_with_the_environment_variable(api):
    run = inferx("fetch", "-o", "-", "--date", "2026-03-01", env={BASE_URL_ENV: api.url})
    assert run.returncode == 0, run.stderr
    assert run.stdout == ANSWER and api.queries[-1] == {"model": MODEL, "date": "2026-03-01"}


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("--model", "Not-A-Model"), "HTTP 400 (Unknown model)"),
        (("--model", "garbage"), "not JSON"),
        (("--base-url", "http://127.0.0.1:{port}"), "cannot reach"),
    ],
)
def test_cli_errors_exit_2_with_one_line(api, tmp_path, args, expected):
    args = tuple(a.format(port=free_port()) for a in args)
    out = tmp_path / "never.json"
    run = inferx("fetch", "--base-url", api.url, *args, "-o", str(out))
    stderr = run.stderr.decode()
    assert run.returncode == 2 and "Traceback" not in stderr
    lines = stderr.splitlines()
    assert lines[0].startswith("inferx: fetching ") and len(lines) == 2
    assert lines[1].startswith("inferx: ") and expected in lines[1]
    assert not out.exists()


@pytest.mark.parametrize(
    ("where", "expected"),
    [("missing/rows.json", "no folder"), (".", "it is a folder"), ("", "cannot write '': no file name given")],
)
def test_cli_refuses_an_output_it_cannot_write_before_downloading(api, tmp_path, where, expected):
    asked = len(api.queries)
    run = inferx("fetch", "--base-url", api.url, "-o", str(tmp_path / where) if where else "")
    stderr = run.stderr.decode()
    assert run.returncode == 2 and len(stderr.splitlines()) == 1 and expected in stderr, stderr
    assert len(api.queries) == asked  # nothing downloaded


@pytest.mark.parametrize("timeout", ["nan", "0", "-1", "3601"])
def test_cli_refuses_a_bad_timeout(timeout):
    run = inferx("fetch", "-o", "x.json", "--timeout", timeout)
    expected = f"expected a number of seconds above 0, up to 3600; got '{timeout}'".encode()
    assert run.returncode == 2 and expected in run.stderr and b"Traceback" not in run.stderr
