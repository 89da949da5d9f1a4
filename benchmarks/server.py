"""2. Server, and 5. cold start: `gunicorn app:server` as deployed (Gunicorn), the browser's redraw request
(Redraw), the server's rows timed over HTTP against a trivial round trip, and the cold-start row."""

from __future__ import annotations

import http.client
import json
import math
import socket
import statistics
import subprocess
import sys
import time

from benchmarks.common import FIGS, ROOT, pct, states
from benchmarks.report import Row
from inferx.figures import registry
from inferx.scenario.controls import PARAMS
from inferx.scenario.evaluation import Scenario

# --- gunicorn ------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Gunicorn:
    """`gunicorn app:server` as deployed (gunicorn.conf.py: 2 gthread workers), timed to the first page."""

    def __init__(self, timeout: float = 900.0):  # a loaded 2-core host has taken 230 s
        self.port = free_port()
        self.host = "127.0.0.1"
        self.url = f"http://{self.host}:{self.port}/"
        t0 = time.perf_counter()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "app:server", "--bind", f"{self.host}:{self.port}"],
            cwd=ROOT,
            stdout=subprocess.DEVNULL,  # the access log, one line a request, as deployed
            stderr=subprocess.DEVNULL,
        )
        while True:
            try:
                status, _ = self.request("GET", "/", timeout=5)
                if status == 200:
                    break
            except OSError:
                pass
            if self.proc.poll() is not None or time.perf_counter() - t0 > timeout:
                self.stop()
                raise RuntimeError("gunicorn did not serve / in time")
            time.sleep(0.02)
        self.ready_s = time.perf_counter() - t0
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=60)

    def request(self, method, path, body=None, timeout=60):
        conn = http.client.HTTPConnection(self.host, self.port, timeout=timeout)
        try:
            conn.request(method, path, body=body, headers={"Content-Type": "application/json"} if body else {})
            resp = conn.getresponse()
            return resp.status, resp.read()
        finally:
            conn.close()

    def keepalive(self, method, path, body=None) -> tuple[int, bytes]:
        """One request on a persistent connection, as a browser makes it."""
        headers = {"Content-Type": "application/json"} if body else {}
        for attempt in range(2):
            try:
                self.conn.request(method, path, body=body, headers=headers)
                resp = self.conn.getresponse()
                return resp.status, resp.read()
            except (http.client.HTTPException, OSError):
                self.conn.close()
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


# --- 2. Server -----------------------------------------------------------------------------------


class Redraw:
    """The browser's POST to /_dash-update-component for the full redraw, built from /_dash-dependencies:
    the whole control state in `redraw-request`, as `window.inferx.controlsChanged` sends it."""

    def __init__(self, deps: list):
        self.cb = next(c for c in deps if c["output"].startswith("..figure-updates.data"))
        self.ids = [{"fig": f, "role": "figure"} for f in FIGS]

    def body(self, params: dict, batch: int = 8, figures: list[str] | None = None) -> bytes:
        """The request for every graph of `/`, or for `figures` (the graphs in view) as the page narrows it."""
        # Log2 sliders send their position, as the page does; an unset value (None) travels as it is.
        values = [math.log2(params[n]) if PARAMS[n].log2 and params[n] is not None else params[n] for n in PARAMS]
        request = {"values": values, "batch": math.log2(batch), "batchOnly": False}
        if figures is not None:
            request["figures"] = figures
        payload = {
            "output": self.cb["output"],
            "outputs": [
                {"id": "figure-updates", "property": "data"},
                {"id": "runtime-notice", "property": "children"},
                {"id": "runtime-notice", "property": "is_open"},
            ],
            "inputs": [{"id": "redraw-request", "property": "data", "value": request}],
            "changedPropIds": ["redraw-request.data"],
            "state": [[{"id": i, "property": "id", "value": i} for i in self.ids]],
        }
        return json.dumps(payload).encode()

    @staticmethod
    def figures(response: bytes) -> list[dict]:
        """The figures of a response, in DOM order."""
        out = json.loads(response)["response"]["figure-updates"]["data"]
        return [out[f] for f in FIGS]


def bench_server(srv: Gunicorn, quick: bool) -> tuple[list[Row], Redraw]:
    status, deps = srv.keepalive("GET", "/_dash-dependencies")
    assert status == 200
    redraw = Redraw(json.loads(deps))
    n = 12 if quick else 240
    todo = states(n + 10)
    bad = {**todo[0], "bw": 1000.0}  # refused by validation (1 to 600 TB/s): the same callback, no figure work
    status, body = srv.keepalive("POST", "/_dash-update-component", redraw.body(todo[0]))
    assert status == 200 and len(Redraw.figures(body)) == len(FIGS), body[:300]
    status, body = srv.keepalive("POST", "/_dash-update-component", redraw.body(bad))
    assert status == 200 and b"Could not redraw" in body, body[:300]
    full_t, trivial_t, health_t, sizes = [], [], [], []
    for i, p in enumerate(todo):
        bodies = [("full", redraw.body(p)), ("trivial", redraw.body({**bad, "ctx": p["ctx"]})), ("health", None)]
        for kind, payload in bodies:
            t0 = time.perf_counter()
            if payload is None:
                status, resp = srv.keepalive("GET", "/health")
            else:
                status, resp = srv.keepalive("POST", "/_dash-update-component", payload)
            dt = time.perf_counter() - t0
            assert status == 200, (kind, status, resp[:300])
            if i < 10:  # warm-up: both workers, both code paths
                continue
            {"full": full_t, "trivial": trivial_t, "health": health_t}[kind].append(dt)
            if kind == "full":
                sizes.append(len(resp))
    p50, p95 = 1e3 * pct(full_t, 50), 1e3 * pct(full_t, 95)
    triv, health = 1e3 * pct(trivial_t, 50), 1e3 * pct(health_t, 50)
    size = max(sizes) / 1000
    rows = [
        Row(
            "Server",
            f"full redraw over HTTP, every figure of / (p50 of {len(full_t)})",
            p50,
            "ms",
            f"trivial callback round trip {triv:,.2f} ms",
            p50 / triv,
            "≤ 25 ms and ≤ 3×",
            p50 <= 25 and p50 / triv <= 3,
        ),
        Row("Server", "full redraw, p95", p95, "ms", f"trivial p95 {1e3 * pct(trivial_t, 95):,.2f} ms", None, "", None),
        Row(
            "Server",
            "full redraw vs GET /health",
            p50,
            "ms",
            f"/health {health:,.2f} ms",
            p50 / health,
            "",
            None,
        ),
        Row("Server", "response size (largest, uncompressed)", size, "KB", "", None, "≤ 150 KB", size <= 150),
        server_parts(todo, quick),
    ]
    return rows, redraw


def server_parts(todo: list[dict], quick: bool) -> Row:
    """Two parts of the full redraw's server time, measured in this process: building the figures of `/` for a
    new state, and encoding the answer as Dash does (`dash._utils.to_json`, plotly's `to_json_plotly`)."""
    from dash._utils import to_json  # noqa: PLC0415 (Dash's own encoder; imported only for this row)

    n = 12 if quick else 120
    build_t, encode_t = [], []
    for p in states(len(todo) + n)[len(todo) :]:  # states the server was not asked for
        t0 = time.perf_counter()
        figs = registry.build(Scenario.from_params(**p), FIGS)
        t1 = time.perf_counter()
        to_json({"multi": True, "response": {"figure-updates": {"data": figs}}})
        encode_t.append(time.perf_counter() - t1)
        build_t.append(t1 - t0)
    build, encode = 1e3 * pct(build_t, 50), 1e3 * pct(encode_t, 50)
    return Row(
        "Server",
        f"part of the full redraw: the figures of / built in-process (p50 of {n})",
        build,
        "ms",
        f"their answer encoded as Dash does {encode:,.2f} ms",
        None,
        "",
        None,
    )


def bench_server_in_view(srv: Gunicorn, redraw: Redraw, figures: list[str], quick: bool) -> Row:
    """The redraw a desktop page sends while a slider moves: only the figures in view (as the drag found them)."""
    n = 12 if quick else 240
    todo = states(n + 10)
    bad = {**todo[0], "bw": 1000.0}
    view_t, trivial_t = [], []
    for i, p in enumerate(todo):
        view, trivial = redraw.body(p, figures=figures), redraw.body({**bad, "ctx": p["ctx"]})
        for kind, payload in (("view", view), ("trivial", trivial)):
            t0 = time.perf_counter()
            status, resp = srv.keepalive("POST", "/_dash-update-component", payload)
            dt = time.perf_counter() - t0
            assert status == 200, (kind, status, resp[:300])
            if i >= 10:
                (view_t if kind == "view" else trivial_t).append(dt)
    p50, triv = 1e3 * pct(view_t, 50), 1e3 * pct(trivial_t, 50)
    return Row(
        "Server",
        f"redraw of the figures in view at 1280×900 ({', '.join(figures)}; p50 of {len(view_t)})",
        p50,
        "ms",
        f"trivial callback round trip {triv:,.2f} ms",
        p50 / triv,
        "≤ 25 ms and ≤ 3×",
        p50 <= 25 and p50 / triv <= 3,
    )


# --- 5. Cold start -------------------------------------------------------------------------------


def cold_start_row(samples: list[float]) -> Row:
    med = statistics.median(samples)
    runs = ", ".join(f"{s:.2f}" for s in samples)
    return Row(
        "Cold start",
        f"process start → first page served (median of {len(samples)})",
        med,
        "s",
        f"runs: {runs} s",
        None,
        "≤ 3 s",
        med <= 3.0,
    )
