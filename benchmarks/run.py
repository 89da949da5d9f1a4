"""How fast is inferx? Engine, server, browser, animation and cold start, each as a side-by-side ratio.

    python -m benchmarks            # full run (about 3-5 minutes); writes benchmarks/RESULTS.md
    python -m benchmarks --quick    # a few iterations of every part, to prove the suite still runs
    python -m benchmarks --out DIR  # write RESULTS.md to DIR instead
    python -m benchmarks --skip-browser  # engine, server and cold start only (no Chromium needed)
    python -m benchmarks --load-only     # only the many-users load test; replaces its section of RESULTS.md
    python -m benchmarks --drag-only     # only the slider-drag rows, printed; RESULTS.md is left alone
    python -m benchmarks --only engine server  # just those sections, printed; RESULTS.md is left alone

Every figure is compared with a baseline measured in the same run, so a ratio holds on a noisy machine even
when the absolute times do not. The targets come from issue 5; they are reported, never asserted.
"""

from __future__ import annotations

import argparse
import http.client
import json
import math
import os
import platform
import shutil
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.chromium import make_driver, wait_js  # noqa: E402
from benchmarks.load import load_section, run_load  # noqa: E402
from inferx import figure_registry as registry  # noqa: E402
from inferx import figures  # noqa: E402
from inferx.figures import COMM_REFS, CONTEXT_REFS, QUANT_REFS, WORKLOAD_REFS  # noqa: E402
from inferx.presets import HARDWARE  # noqa: E402
from inferx.scenario import PARAMS, Scenario, default_params, frontier_batches, log_batches  # noqa: E402

FIGS = registry.DASHBOARD  # the graphs on `/` in DOM order


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


def pct(samples, q: float) -> float:
    return float(np.percentile(np.asarray(samples, dtype=float), q))


def log(msg: str) -> None:
    print(f"[bench] {msg}", file=sys.stderr, flush=True)


# --- Control states: every iteration a state never seen before -----------------------------------


def states(n: int) -> list[dict]:
    """n distinct control states moving bandwidth and context together, so no memo carries over."""
    base = default_params()
    return [{**base, "bw": round(4.0 + (i * 0.37) % 60, 2), "ctx": 1024 + (i * 97) % 15000} for i in range(n)]


# --- 1. Engine -----------------------------------------------------------------------------------


def _sig(v: float) -> float:
    """4 significant figures, as figures.round_sig rounds the vectorised payload."""
    return float(f"{v:.4g}")


class LoopModel:
    """The article-mode formulas evaluated one batch size at a time in plain Python (the baseline)."""

    def __init__(self, s: Scenario):
        m = s.model
        self.s = s
        self.weights = m.p_active * s.b_w
        self.kv = s.ctx * s.kappa
        self.flop = 2.0 * m.p_active
        self.b_max = s.b_max if s.ctx else 0  # S = 0 (Figure 1): no KV, no queue
        self.ar = (m.n_layers * 2, (s.tp - 1) / s.tp, m.d_model * s.b_w / s.ic_bw) if s.tp > 1 else None
        self.pp = (s.pp - 1, m.d_model * s.b_w / s.ic_bw) if s.pp > 1 else None
        self.prefill = (2.0 * m.p_active * s.isl + 4.0 * m.n_layers * m.n_q_heads * m.d_head * s.isl**2) / s.compute
        self.queue = (1.0 + s.cv**2) / 2.0

    def step(self, B: float) -> float:
        s = self.s
        return max((self.weights + B * self.kv) / s.bw, self.flop * B / s.compute)

    def comm(self, B: float) -> float:
        alpha, total = self.s.ic_alpha, 0.0
        if self.ar:
            two_l, share, per_b = self.ar
            total += two_l * (alpha + share * B * per_b)
        if self.pp:
            stages, per_b = self.pp
            total += stages * (alpha + B * per_b)
        return total

    def point(self, B: float) -> tuple[float, float, float, float]:
        """(throughput, TTFT, ITL, ρ) at batch B."""
        itl = self.step(B) + self.comm(B)
        rho = B / self.b_max if self.b_max > 0 else math.inf
        ttft = self.prefill + self.queue * itl / (1.0 - rho) if rho < 1.0 else math.inf
        return B / itl, ttft, itl, rho


class EngineLoopModel(LoopModel):
    """The same loop with each batch size sent through the engine's own numpy functions: what the figures
    would cost if the engine were called once per point instead of once per redraw."""

    def step(self, B: float) -> float:
        return float(self.s.step_and_comm(B)[0])

    def comm(self, B: float) -> float:
        return float(self.s.step_and_comm(B)[1])

    def point(self, B: float) -> tuple[float, float, float, float]:
        r = self.s.evaluate(B)
        return tuple(float(r[k][0]) for k in ("throughput", "ttft", "itl", "rho"))


def _loop_grid(s: Scenario, points: int = figures.CURVE_POINTS, extra=()) -> list[int] | None:
    if s.unfit_reason():
        return None
    end = max(1, int(figures.RHO_CURVE_END * s.b_max))
    grid = np.union1d(frontier_batches(end, points), np.asarray(extra, dtype=int))
    grid = [int(b) for b in grid if 1 <= b < s.b_max]
    return grid or None


def _loop_frontier(s: Scenario, points=figures.CURVE_POINTS, extra=(), model=LoopModel) -> dict | None:
    grid = _loop_grid(s, points, extra)
    if grid is None:
        return None
    m = model(s)
    out = {"B": grid, "T": [], "TTFT": [], "ITL": [], "rho": []}
    for B in grid:
        T, ttft, itl, rho = m.point(float(B))
        out["T"].append(_sig(T))
        out["TTFT"].append(_sig(1e3 * ttft))
        out["ITL"].append(_sig(1e3 * itl))
        out["rho"].append(_sig(rho))
    return out


def loop_build(scn: Scenario, batch: int = 8, model=LoopModel) -> dict:
    """The numbers of every figure for one state, per batch size in plain Python (no layouts). Like the
    engine, it evaluates the current frontier once for the five figures that draw it."""

    def curve(s, points=figures.CURVE_POINTS, extra=()):
        return _loop_frontier(s, points, extra, model)

    out = {}
    s0 = scn.with_context(0)
    b_star = scn.b_w * scn.compute / (2.0 * scn.bw)
    grid = log_batches(max(8 * b_star, 64), figures.CURVE_POINTS).tolist()
    m0 = model(s0)
    out["fig1"] = [[_sig(B / m0.step(B)) for B in grid], [_sig(B / (m0.step(B) + m0.comm(B))) for B in grid]]
    cur = curve(scn)
    contexts = [curve(scn.with_context(S)) for S in CONTEXT_REFS if S != scn.ctx][:2]
    out["fig2"] = [r["T"] for r in (cur, *contexts) if r]
    out["fig3"] = [[_sig(y - 1e3 * model(scn).prefill) for y in cur["TTFT"]], cur["TTFT"]] if cur else []
    out["fig4"] = [cur["T"], cur["ITL"]] if cur else []
    out["fig5"] = [curve(scn.with_params(preset=p)) for p in HARDWARE if p != scn.hardware] + [cur]
    out["fig6"] = curve(scn, figures.EXPLORER_POINTS, [*range(1, 65), int(batch)])
    out["fig7"] = [curve(scn.with_params(wdtype=w, kvdtype=kv)) for w, kv in QUANT_REFS] + [cur]
    grid = log_batches(max(1024, scn.b_max), figures.CURVE_POINTS).tolist()
    comms = [model(scn.with_params(**cfg)) for _, cfg, _ in COMM_REFS.values()] + [model(scn)]
    out["fig8"] = [[_sig(1e3 * m.comm(B)) for B in grid] for m in comms]
    out["fig9"] = [curve(scn.with_params(cv=cv, util=u)) for _, cv, u in WORKLOAD_REFS.values()] + [cur]
    return out


def check_agreement(scn: Scenario) -> None:
    """The baseline computes the same numbers as the engine (else the ratio would be meaningless)."""
    fast, loop = registry.build(scn), loop_build(scn)
    cur = fast["fig5"]["data"][-1]
    ref = loop["fig5"][-1]
    if not (np.allclose(cur["x"], ref["T"], rtol=2e-3) and np.allclose(cur["y"], ref["TTFT"], rtol=2e-3)):
        raise AssertionError("loop baseline disagrees with inferx.figures on Figure 5")
    dot = fast["fig6"]["data"][0]
    if not np.allclose(dot["y"], loop["fig6"]["TTFT"], rtol=2e-3):
        raise AssertionError("loop baseline disagrees with inferx.figures on Figure 6")
    for got, want in zip(fast["fig2"]["data"], loop["fig2"], strict=True):
        if not np.allclose(got["y"], want, rtol=2e-3):
            raise AssertionError("loop baseline disagrees with inferx.figures on Figure 2")
    if loop_build(scn, model=EngineLoopModel) != loop:
        raise AssertionError("the per-point engine loop disagrees with the plain loop")


def bench_engine(quick: bool) -> list[Row]:
    n = 20 if quick else 400
    todo = states(n + 5)
    build = lambda p: registry.build(Scenario.from_params(**p))  # noqa: E731
    loop = lambda p: loop_build(Scenario.from_params(**p))  # noqa: E731
    check_agreement(Scenario.from_params(**todo[0]))
    for p in todo[:5]:  # warm up imports and caches of numpy itself
        build(p), loop(p)
    fast_t, loop_t, per_point_t = [], [], []
    for i, p in enumerate(todo[5:]):
        t0 = time.perf_counter()
        build(p)
        t1 = time.perf_counter()
        if i % 4 == 0 or quick:  # the loop is slow: a quarter of the states is plenty for its median
            loop(p)
            loop_t.append(time.perf_counter() - t1)
        if i % 20 == 0:  # slower still
            t2 = time.perf_counter()
            loop_build(Scenario.from_params(**p), model=EngineLoopModel)
            per_point_t.append(time.perf_counter() - t2)
        fast_t.append(t1 - t0)
    fast, slow, per_point = 1e3 * pct(fast_t, 50), 1e3 * pct(loop_t, 50), 1e3 * pct(per_point_t, 50)
    return [
        Row(
            "Engine",
            f"all figure data, one state (p50 of {len(fast_t)})",
            fast,
            "ms",
            f"plain per-batch Python loop {slow:,.1f} ms",
            slow / fast,
            "≤ 2 ms and ≥ 50×",
            fast <= 2.0 and slow / fast >= 50,
        ),
        Row("Engine", "all figure data, p95", 1e3 * pct(fast_t, 95), "ms", "", None, "", None),
        Row(
            "Engine",
            "all figure data, one state (as above)",
            fast,
            "ms",
            f"the engine's numpy functions called per batch size {per_point:,.0f} ms",
            per_point / fast,
            "— (what vectorising buys)",
            None,
        ),
        bench_dense(quick),
    ]


def bench_dense(quick: bool) -> Row:
    """The vectorisation itself: one frontier at every whole batch size, numpy against the per-batch loop.

    The figures sample each curve at about 90 batch sizes, so at their size numpy's per-call cost, not the
    arithmetic, sets the time; a dense sweep shows what evaluating the formulas as arrays buys.
    """
    scn = Scenario.from_params(**{**default_params(), "ctx": 1024})
    B = np.arange(1, scn.b_max)
    m = LoopModel(scn)
    fast_t, loop_t = [], []
    for _ in range(3 if quick else 30):
        t0 = time.perf_counter()
        scn.evaluate(B)
        t1 = time.perf_counter()
        for b in B.tolist():
            m.point(float(b))
        loop_t.append(time.perf_counter() - t1)
        fast_t.append(t1 - t0)
    fast, slow = 1e3 * pct(fast_t, 50), 1e3 * pct(loop_t, 50)
    return Row(
        "Engine",
        f"one frontier at every batch 1…B_max ({B.size:,} sizes, p50)",
        fast,
        "ms",
        f"plain per-batch Python loop {slow:,.1f} ms",
        slow / fast,
        "≥ 50× (vectorised)",
        slow / fast >= 50,
    )


def bench_validated(quick: bool) -> Row:
    """The same figures built through plotly's validated graph objects, in-process."""
    import plotly.graph_objects as go

    n = 5 if quick else 60
    todo = states(n + 2)
    plain_t, go_t = [], []
    for i, p in enumerate(todo):
        scn = Scenario.from_params(**p)
        t0 = time.perf_counter()
        figs = registry.build(scn, FIGS)
        t1 = time.perf_counter()
        validated = [go.Figure(f) for f in figs.values()]
        t2 = time.perf_counter()
        assert len(validated) == len(FIGS)
        if i >= 2:
            plain_t.append(t1 - t0)
            go_t.append(t2 - t0)
    plain, valid = 1e3 * pct(plain_t, 50), 1e3 * pct(go_t, 50)
    return Row(
        "Server",
        f"figures via validated go.Figure, in-process (p50 of {len(go_t)})",
        valid,
        "ms",
        f"plain dicts {plain:,.2f} ms",
        valid / plain,
        "documents the plain-dict choice",
        None,
    )


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


# --- 3 and 4. Browser ----------------------------------------------------------------------------

BROWSER_JS = r"""
window.__bench = (function () {
  performance.setResourceTimingBufferSize(100000);
  const gds = __FIGNUMS__.map((n) => document.querySelector(`#fig-${n} .js-plotly-plot`));
  const st = { t0: 0, seen: new Set(), last: 0, events: 0, restyles: 0 };
  const mark = (k) => () => {
    const t = performance.now();
    if (st.t0 && t >= st.t0) { st.seen.add(k); st.last = Math.max(st.last, t); st.events += 1; }
  };
  gds.forEach((gd, k) => {
    gd.on("plotly_afterplot", mark(k));
    gd.on("plotly_react", mark(k));
  });
  // The explorer's dot moves by Plotly.animate (one animating frame each); a restyle would redraw the graph.
  gds[__EXPLORER__].on("plotly_restyle", () => { st.restyles += 1; });
  gds[__EXPLORER__].on("plotly_animatingframe", () => { st.restyles += 1; });
  function begin() { st.seen = new Set(); st.last = 0; st.events = 0; st.t0 = performance.now(); }
  /* Done when every graph has drawn since t0 and nothing has drawn for `quiet` ms (the explorer's dot
     patch redraws Figure 6 once more after the server's figures arrive: that counts). */
  function settle(done, quiet, timeout) {
    const check = () => {
      const now = performance.now();
      if (st.seen.size === gds.length && now - st.last >= quiet) {
        return done({ ms: st.last - st.t0, events: st.events });
      }
      if (now - st.t0 > timeout) return done({ ms: null, seen: st.seen.size, events: st.events });
      setTimeout(check, 10);
    };
    setTimeout(check, 10);
  }
  /* Dash components in a layout subtree (window.store holds the page's layout as Dash renders it), and the
     subtree whose id is `id`. */
  function walk(node, visit) {
    if (Array.isArray(node)) return node.forEach((n) => walk(n, visit));
    if (!node || typeof node !== "object") return;
    if (typeof node.type === "string" && typeof node.namespace === "string") visit(node);
    Object.values(node.props || node).forEach((v) => walk(v, visit));
  }
  const count = (root) => { let n = 0; walk(root, () => { n += 1; }); return n; };
  return {
    ready: () => gds.every((gd) => gd && gd.data && gd.data.length > 0 && gd.on),
    components() {
      const layout = window.store.getState().layout;
      let card = null;
      walk(layout, (c) => { if (c.props && c.props.id === "card-fig1") card = c; });
      return { all: count(layout), card: card ? count(card) : null };
    },
    /* Done once no graph has repainted for `ms` (a page just loaded still typesets and resizes). */
    quiet(ms, done) {
      begin();
      const check = () => (performance.now() - Math.max(st.last, st.t0) >= ms ? done(true) : setTimeout(check, 50));
      check();
    },
    server(x, done) {
      begin();
      window.dash_clientside.set_props("ctl-bw", { value: Math.log2(x) }); // a log2 slider: its position
      settle(done, 300, 30000);
    },
    floor(figs, config, done) {
      begin();
      gds.forEach((gd, k) => window.Plotly.react(gd, figs[k].data, figs[k].layout, config));
      settle(done, 300, 30000);
    },
    /* A real drag of the bandwidth slider's thumb, the pointer moved from Python through CDP (trusted events,
       each dispatched once the page has taken the one before, as a hand's are coalesced). `press` arms the
       counters and says where the thumb is; Figure 1's repaints are counted from the press to the release;
       `released` waits until Figure 1 shows the value the slider was let go at (its memory-bound slope is
       BW / 37 GB at B = 1) and the release's own redraw has been answered. The redraws asked for, through
       Dash or the drag route, are recorded by the figures they name. */
    press() {
      const gd = gds[0];
      const thumb = document.querySelector("#ctl-bw [role=slider]");
      const d = (st.drag = { paints: 0, dragged: null, t0: null, release: null, asked: [], moves: 0 });
      d.count = () => { d.paints += 1; };
      d.down = () => { d.t0 = performance.now(); d.paints = 0; };
      d.move = () => { d.moves += 1; };
      d.up = () => { d.release = performance.now(); d.dragged = d.paints; };
      gd.on("plotly_afterplot", d.count);
      window.addEventListener("pointerdown", d.down, true);
      window.addEventListener("pointermove", d.move, true);
      window.addEventListener("pointerup", d.up, true);
      d.realFetch = window.fetch;
      window.fetch = function (url, init) {
        const body = init && typeof init.body === "string" ? init.body : "";
        if (body.includes('"redraw-request.data"')) d.asked.push(JSON.parse(body).inputs[0].value.figures);
        else if (String(url).includes("_drag")) d.asked.push(JSON.parse(body).figures);
        return d.realFetch.apply(this, arguments);
      };
      const r = thumb.getBoundingClientRect();
      return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
    },
    released(done) {
      const d = st.drag, gd = gds[0], api = window.dash_component_api;
      const settled = () => {
        const bw = window.inferx.controlValue("bw", api.getLayout("ctl-bw").props.value);
        const shows = Math.abs(gd.data[0].y[0] / (bw * 1e12 / 37e9) - 1) < 1e-3;
        // The release's own redraw sent and answered: the drag's last step may already show the value, and
        // until Dash has sent that redraw nothing is in flight. (A release where it was pressed sends none.)
        const sent = window.inferxRedraws.since >= d.release || performance.now() - d.release > 1000;
        if (d.release !== null && shows && sent && !window.inferxRedraws.inFlight) {
          gd.removeListener("plotly_afterplot", d.count);
          window.removeEventListener("pointerdown", d.down, true);
          window.removeEventListener("pointermove", d.move, true);
          window.removeEventListener("pointerup", d.up, true);
          window.fetch = d.realFetch;
          const lag = performance.now() - d.release;
          const seconds = (d.release - d.t0) / 1000;
          return done({ moves: d.moves, paints: d.dragged, seconds, lag, asked: d.asked, bw });
        }
        if (d.release === null || performance.now() - d.release > 30000) return done({ lag: null, moves: d.moves });
        setTimeout(settled, 5);
      };
      settled();
    },
    /* Dash store updates (each one re-checked by every component of the page), counted by a subscriber:
       counts of work, not times, so they hold on a loaded machine. window.store is the renderer's store, as
       dash.testing reads it. */
    counting() {
      const s = window.store;
      let n = 0, prev = s.getState();
      const unsubscribe = s.subscribe(() => { const now = s.getState(); if (now !== prev) n += 1; prev = now; });
      return { count: () => n, stop: unsubscribe };
    },
    countStart() {
      st.idle = window.inferxLazy.idleMs;
      window.inferxLazy.idleMs = 600000; // no drawing of the graphs out of view while counting
      st.counter = this.counting();
    },
    countStop() {
      st.counter.stop();
      window.inferxLazy.idleMs = st.idle;
      return st.counter.count();
    },
    changes(done) {
      const redraws = window.inferxRedraws, lazy = window.inferxLazy, gd = gds[0], c = this.counting();
      const idle = lazy.idleMs;
      const set = (bw) => {
        const pos = Math.log2(bw); // a log2 slider holds its position
        window.dash_clientside.set_props("ctl-bw", { value: pos, drag_value: pos });
      };
      const shows = (bw) => Math.abs(gd.data[0].y[0] / (bw * 1e12 / 37e9) - 1) < 1e-3 && !redraws.inFlight;
      lazy.idleMs = 600000;
      let i = 0;
      const change = () => {
        const bw = 30 + i;
        set(bw);
        const wait = () => {
          if (!shows(bw)) return setTimeout(wait, 10);
          if (++i < 10) return setTimeout(change, 100);
          c.stop();
          const n = c.count() / 10;
          lazy.idleMs = idle;
          set(40.5); // once more with the page's idle drawing, so that no graph is left stale
          const settled = () => (lazy.stale.size || lazy.waiting.size ? setTimeout(settled, 50) : done({ n }));
          settled();
        };
        wait();
      };
      change();
    },
    animate(seconds, done) {
      const anim = window.inferxAnimation;
      const btn = document.getElementById("btn-animate");
      st.restyles = 0;
      btn.click();
      setTimeout(() => {
        const t = performance.now();
        const frames = anim.frames, start = anim.start, running = anim.running, restyles = st.restyles;
        const requests = performance.getEntriesByType("resource")
          .filter((e) => e.name.includes("_dash-update-component") && e.startTime >= start && e.startTime <= t).length;
        if (anim.running) btn.click();
        done({ frames, seconds: (t - start) / 1000, requests, restyles, running });
      }, 1000 * seconds);
    },
  };
})();
return true;
"""


def thread_time(driver) -> float:
    """The page's main-thread CPU time so far (s); needs Performance.enable."""
    metrics = driver.execute_cdp_cmd("Performance.getMetrics", {})["metrics"]
    return next(m["value"] for m in metrics if m["name"] == "ThreadTime")


class Pointer:
    """The mouse on the bandwidth slider's thumb, through CDP: trusted events, as a hand makes them. Each call
    returns once the page has taken the event, so a busy page slows the hand down, as it coalesces real moves."""

    def __init__(self, driver):
        self.driver = driver
        at = driver.execute_script("return window.__bench.press();")
        self.x0, self.y = at["x"], at["y"]
        self.x = self.x0
        self.event("mouseMoved", self.x0, buttons=0)
        self.event("mousePressed", self.x0)

    def event(self, kind: str, x: float, buttons: int = 1) -> None:
        self.x = x
        args = {"type": kind, "x": x, "y": self.y, "button": "left", "buttons": buttons, "clickCount": 1}
        self.driver.execute_cdp_cmd("Input.dispatchMouseEvent", args)

    def step(self, i: int) -> None:
        """The i-th move: back and forth over 40 px (38 to about 100 TB/s of the log2 bandwidth slider), a pixel a
        step."""
        k = i % 80
        self.event("mouseMoved", self.x0 + 1 + (k if k < 40 else 80 - k))

    def release(self) -> dict:
        self.event("mouseReleased", self.x, buttons=0)
        return self.driver.execute_async_script("window.__bench.released(arguments[0]);")


def drag_rows(driver, quick: bool) -> tuple[list[Row], list[str]]:
    """A dragged slider at desktop size, where the redraws ask for the graphs in view only, beside the same drag
    with every graph in view (every redraw builds and paints all of them). Also returns the figures the
    desktop drag's redraws asked for most often."""
    seconds = 1.0 if quick else 3.0

    def drag() -> dict:
        cpu0 = thread_time(driver)
        hand = Pointer(driver)
        t0 = time.perf_counter()
        i = 0
        while time.perf_counter() - t0 < seconds:  # a move every 16 ms, or as soon as the page takes it
            hand.step(i)
            i += 1
            time.sleep(max(0.0, t0 + 0.016 * i - time.perf_counter()))
        result = hand.release()
        # Per repaint: the drag's, and the one after the release that the drag's CPU time also holds.
        return {**result, "cpu_ms": 1e3 * (thread_time(driver) - cpu0) / (result.get("paints", 0) + 1)}

    lazy = drag()
    asked = [tuple(a) for a in lazy["asked"] if a is not None]
    in_view = list(max(set(asked), key=asked.count)) if asked else list(FIGS)
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(1280, height + 200)
    time.sleep(1.0)  # plotly resizes every graph to the new window
    driver.execute_async_script("window.__bench.quiet(1000, arguments[0]);")
    eager = drag()
    if lazy["lag"] is None or eager["lag"] is None:
        raise RuntimeError(f"a drag never settled: {lazy}, {eager}")
    rate = lambda r: r["paints"] / r["seconds"]  # noqa: E731
    return [
        Row(
            "Drag",
            "Figure 1 repaints per second while a slider is dragged, 1280×900 window",
            rate(lazy),
            "/s",
            f"every graph in view {rate(eager):,.1f}/s",
            rate(lazy) / rate(eager),
            "≥ 12/s (issue 20)",
            rate(lazy) >= 12,
        ),
        Row(
            "Drag",
            "renderer main-thread CPU time per Figure 1 repaint during that drag",
            lazy["cpu_ms"],
            "ms",
            f"every graph in view {eager['cpu_ms']:,.0f} ms",
            lazy["cpu_ms"] / eager["cpu_ms"],
            "≤ 83 ms (12/s)",
            lazy["cpu_ms"] <= 1000 / 12,
        ),
        Row(
            "Drag",
            "figures a redraw asks for during that drag (most often)",
            float(len(in_view)),
            "",
            ", ".join(in_view),
            None,
            "—",
            None,
        ),
        Row(
            "Drag",
            "release → Figure 1 final, 1280×900 window",
            lazy["lag"],
            "ms",
            f"every graph in view {eager['lag']:,.0f} ms",
            lazy["lag"] / eager["lag"],
            "—",
            None,
        ),
    ], in_view


BATCH_DRAG_JS = """
const thumb = document.querySelector('#ctl-batch [role=slider]');
thumb.scrollIntoView({block: 'center', behavior: 'instant'});
const gd = document.querySelector('#fig-6 .js-plotly-plot'), s = window.store;
const b = (window.__batchDrag = {moves: 0, updates: 0});
const move = () => { b.moves += 1; };
gd.on('plotly_animated', move);
gd.on('plotly_afterplot', move);
let prev = s.getState();
b.stop = s.subscribe(() => { if (s.getState() !== prev) b.updates += 1; prev = s.getState(); });
b.off = () => { b.stop(); gd.removeListener('plotly_animated', move); gd.removeListener('plotly_afterplot', move); };
const r = thumb.getBoundingClientRect();
return {x: r.left + r.width / 2, y: r.top + r.height / 2};
"""


def batch_drag_row(driver, quick: bool) -> Row:
    """The explorer's dot while the batch slider's thumb is dragged by a real pointer (CDP), a pixel a step as
    fast as the page takes the moves: how often it moves, and Dash's store updates per step."""
    driver.execute_async_script("window.__bench.quiet(1000, arguments[0]);")
    at = driver.execute_script(BATCH_DRAG_JS)

    def send(kind: str, x: float, buttons: int = 1) -> None:
        event = {"type": kind, "x": x, "y": at["y"], "button": "left", "buttons": buttons, "clickCount": 1}
        driver.execute_cdp_cmd("Input.dispatchMouseEvent", event)

    send("mouseMoved", at["x"], buttons=0)
    send("mousePressed", at["x"])
    driver.execute_script("window.__batchDrag.moves = 0; window.__batchDrag.updates = 0;")
    t0, steps = time.perf_counter(), 0
    while time.perf_counter() - t0 < (1.0 if quick else 3.0):
        k = steps % 80
        send("mouseMoved", at["x"] + 1 + (k if k < 40 else 80 - k))
        steps += 1
    seconds = time.perf_counter() - t0
    moves, updates = driver.execute_script("const b = window.__batchDrag; b.off(); return [b.moves, b.updates];")
    send("mouseReleased", at["x"], buttons=0)
    driver.execute_script("window.scrollTo({top: 0, behavior: 'instant'})")
    driver.execute_async_script("window.__bench.quiet(1000, arguments[0]);")
    return Row(
        "Drag",
        "explorer dot moves per second while the batch slider is dragged, 1280×900 window",
        moves / seconds,
        "/s",
        f"{steps} pointer moves; Dash store updates per move {updates / max(steps, 1):.1f}",
        None,
        "≥ 12/s (issue 20)",
        moves / seconds >= 12,
    )


def open_dashboard(driver, srv: Gunicorn) -> None:
    """`/` with every graph drawn and the benchmark's script in place."""
    driver.get(srv.url)
    n_figs = len(FIGS)
    wait_js(driver, f"return document.querySelectorAll('.js-plotly-plot').length >= {n_figs} && !!window.Plotly")
    wait_js(
        driver,
        "return [...document.querySelectorAll('[id^=fig-] .js-plotly-plot')]"
        f".filter(g => g.data && g.data.length).length >= {n_figs}",
    )
    time.sleep(1.0)
    numbers = [int(f[3:]) for f in FIGS]
    explorer = next(i for i, f in enumerate(FIGS) if registry.FIGURES[f].reads_batch)
    script = BROWSER_JS.replace("__FIGNUMS__", json.dumps(numbers)).replace("__EXPLORER__", str(explorer))
    driver.execute_script(script)
    assert driver.execute_script("return window.__bench.ready()")


def drag_section(driver, quick: bool) -> tuple[list[Row], list[str]]:
    """The Drag rows, on `/` opened at 1280×900 by `open_dashboard`; leaves the window as tall as the page."""
    components = driver.execute_script("return window.__bench.components();")
    # The renderer's main-thread CPU time (Performance.getMetrics' ThreadTime): unlike the repaint rate it
    # hardly depends on what else the machine runs.
    driver.execute_cdp_cmd("Performance.enable", {"timeDomain": "threadTicks"})
    counts = {}
    # Twenty steps of a drag, 100 ms apart, and what they cost the page (their redraws and repaints included).
    driver.execute_async_script("window.__bench.quiet(1000, arguments[0]);")
    cpu0 = thread_time(driver)
    hand = Pointer(driver)
    driver.execute_script("window.__bench.countStart();")
    for i in range(20):
        hand.step(i)
        time.sleep(0.1)
    time.sleep(0.4)
    counts["steps"] = {"n": driver.execute_script("return window.__bench.countStop();") / 20}
    counts["steps"]["cpu_ms"] = 1e3 * (thread_time(driver) - cpu0) / 20
    if hand.release()["lag"] is None:
        raise RuntimeError("the counted drag never settled")
    driver.execute_async_script("window.__bench.quiet(1000, arguments[0]);")
    cpu0 = thread_time(driver)
    counts["changes"] = driver.execute_async_script("window.__bench.changes(arguments[0]);")
    counts["changes"]["cpu_ms"] = 1e3 * (thread_time(driver) - cpu0) / 10
    driver.execute_async_script("window.__bench.quiet(1000, arguments[0]);")
    batch = batch_drag_row(driver, quick)
    rows, in_view = drag_rows(driver, quick)
    rows.append(batch)
    steps, changes = counts["steps"], counts["changes"]
    rows += [
        Row(
            "Drag",
            "Dash store updates per drag step, its redraws and repaints included (mean of 20, 100 ms apart)",
            steps["n"],
            "",
            f"per control change with its redraw and repaint {changes['n']:.0f}",
            None,
            "—",
            None,
        ),
        Row(
            "Drag",
            "renderer main-thread CPU time per drag step, its redraws and repaints included (mean of 20)",
            steps["cpu_ms"],
            "ms",
            f"per control change with its redraw and repaint {changes['cpu_ms']:,.0f} ms",
            None,
            "—",
            None,
        ),
        Row(
            "Drag",
            "Dash components on / (each re-checks its props on every store update)",
            float(components["all"]),
            "",
            f"in one figure card {components['card']}",
            None,
            "—",
            None,
        ),
    ]
    return rows, in_view


def bench_browser(srv: Gunicorn, redraw: Redraw, quick: bool) -> tuple[list[Row], list[str]]:
    driver = make_driver(1280, 900)
    try:
        open_dashboard(driver, srv)
        # The drag, then everything else with every graph in view (the window is left tall), so that
        # every change repaints every graph, as the floor does.
        rows, in_view = drag_section(driver, quick)
        # Figure data for the floor: what the server returns for two states, replayed with no server.
        floor_figs = []
        for bw in (5.0, 9.0):
            status, body = srv.keepalive("POST", "/_dash-update-component", redraw.body({**default_params(), "bw": bw}))
            floor_figs.append(Redraw.figures(body))
        n, warm = (4, 1) if quick else (24, 3)
        server_ms, floor_ms, server_events, floor_events = [], [], [], []
        for i in range(n + warm):
            x = round(6.0 + 0.7 * i + (0.35 if i % 2 else 0.0), 2) % 60 + 2
            a = driver.execute_async_script("window.__bench.server(arguments[0], arguments[1]);", x)
            floor = "window.__bench.floor(arguments[0], arguments[1], arguments[2]);"
            b = driver.execute_async_script(floor, floor_figs[i % 2], figures.GRAPH_CONFIG)
            if a["ms"] is None or b["ms"] is None:
                raise RuntimeError(f"a change never finished repainting: {a}, {b}")
            if i >= warm:
                server_ms.append(a["ms"])
                floor_ms.append(b["ms"])
                server_events.append(a["events"])
                floor_events.append(b["events"])
        s50, f50 = pct(server_ms, 50), pct(floor_ms, 50)
        rows += [
            Row(
                "Browser",
                f"control change → last of {len(FIGS)} figures repainted (p50 of {len(server_ms)})",
                s50,
                "ms",
                f"Plotly.react floor, no server {f50:,.0f} ms",
                s50 / f50,
                "≤ 1.5× floor",
                s50 / f50 <= 1.5,
            ),
            Row(
                "Browser",
                "control change → repainted, p95",
                pct(server_ms, 95),
                "ms",
                f"floor p95 {pct(floor_ms, 95):,.0f} ms",
                None,
                "",
                None,
            ),
        ]
        seconds = 2.0 if quick else 5.0
        driver.execute_script("performance.clearResourceTimings();")
        anim = driver.execute_async_script("window.__bench.animate(arguments[0], arguments[1]);", seconds)
        fps = anim["frames"] / anim["seconds"]
        rows += [
            Row(
                "Animation",
                f"Animate, frames per second over {anim['seconds']:.1f} s",
                fps,
                "fps",
                f"{anim['frames']} frames, {anim['restyles']} dot moves",
                None,
                "≥ 30 fps",
                fps >= 30,
            ),
            Row(
                "Animation",
                "server requests during the run",
                float(anim["requests"]),
                "",
                "",
                None,
                "0",
                anim["requests"] == 0,
            ),
        ]
        return rows, in_view
    finally:
        driver.quit()


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


def bench_load(srv: Gunicorn, redraw: Redraw, quick: bool) -> str:
    """50 users (quick: 10), each a page load and 20 redraws (quick: 3), against the deployed server."""
    users, redraws = (10, 3) if quick else (50, 20)
    bodies = [redraw.body(p) for p in states(users * redraws)]
    result = run_load(srv.host, srv.port, bodies, users=users, redraws=redraws, deadline_s=60 if quick else 120)
    log(
        f"load: {len(result.redraw)} redraws, p50 {result.pct(result.redraw, 50):.1f} ms, "
        f"p99 {result.pct(result.redraw, 99):.1f} ms, {len(result.errors)} errors"
    )
    return load_section(result, quick, "`gunicorn app:server` as deployed (2 workers × 4 threads) on loopback")


LOAD_HEADING = "## Load: many users at once"


def replace_load_section(text: str, section: str) -> str:
    """RESULTS.md with its load section replaced (or added before ## Machine); the rest is left as it was."""
    if LOAD_HEADING in text:
        head, _, rest = text.partition(LOAD_HEADING)
        _, sep, tail = rest.partition("\n## ")
        return head + section + ("\n## " + tail if sep else "")
    head, sep, tail = text.partition("## Machine")
    return head + section + "\n" + sep + tail if sep else text.rstrip("\n") + "\n\n" + section


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
        "- Engine: `Scenario.from_params(**state)` then `inferx.figure_registry.build` for every figure, a new state "
        "(bandwidth and context both moved) every iteration. The baseline evaluates the same curves on the same "
        "batch grids one batch size at a time in plain Python floats (`benchmarks/run.py: loop_build`), checked "
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
        "- Animation: click Animate, read `window.inferxAnimation.frames` after 5 s (the sweep lasts 8 s); "
        "requests are resource-timing entries for `_dash-update-component` started during the window.",
        "- Cold start: `perf_counter` before `Popen(gunicorn)` to the first `GET /` answered 200.",
    ]
    if notes:
        lines += ["", "## Notes", "", *[f"- {n}" for n in notes]]
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="few iterations of every part (CI smoke run)")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks", help="directory for RESULTS.md")
    ap.add_argument("--skip-browser", action="store_true", help="leave out the Chromium sections")
    ap.add_argument("--load-only", action="store_true", help="only the load test; replace its section of RESULTS.md")
    ap.add_argument("--drag-only", action="store_true", help="only the Drag rows, printed (RESULTS.md untouched)")
    ap.add_argument(
        "--only",
        nargs="+",
        choices=("engine", "server"),
        help="run only these sections and print them (for comparing code changes); RESULTS.md is not written",
    )
    args = ap.parse_args(argv)
    if args.load_only:
        return main_load_only(args)
    if args.drag_only:
        return main_drag_only(args)
    if args.only:
        return main_only(args)
    started = time.perf_counter()
    load0 = os.getloadavg()
    notes: list[str] = []
    rows: list[Row] = []
    log("engine")
    rows += bench_engine(args.quick)
    log("validated go.Figure")
    validated = bench_validated(args.quick)
    log("starting gunicorn")
    colds = []
    srv = Gunicorn()
    colds.append(srv.ready_s)
    try:
        log("server")
        server_rows, redraw = bench_server(srv, args.quick)
        rows += server_rows + [validated]
        log("load: many users")
        load_md = bench_load(srv, redraw, args.quick)
        if args.skip_browser:
            notes.append("Browser and animation sections skipped (--skip-browser).")
        else:
            log("browser and animation (Chromium)")
            browser_rows, in_view = bench_browser(srv, redraw, args.quick)
            log("server: the figures in view")
            rows += [bench_server_in_view(srv, redraw, in_view, args.quick), *browser_rows]
    finally:
        srv.stop()
    log("cold start")
    for _ in range(1 if args.quick else 2):
        s = Gunicorn()
        colds.append(s.ready_s)
        s.stop()
    rows.append(cold_start_row(colds))
    load1 = os.getloadavg()
    text = report(rows, machine(), (load0, load1), args.quick, time.perf_counter() - started, notes, load_md)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "RESULTS.md").write_text(text)
    print(plain_table(rows))
    print(f"\nload average {load0[0]:.1f} → {load1[0]:.1f}; wrote {args.out / 'RESULTS.md'}")
    return 0


def print_rows(rows: list[Row], load0) -> int:
    """A partial run's rows as a plain table, with the load average it ran under."""
    print(plain_table(rows))
    print(f"\nload average {load0[0]:.1f} → {os.getloadavg()[0]:.1f}")
    return 0


def main_drag_only(args) -> int:
    """The Drag rows alone, printed: for comparing a change to the page before and after, run beside each other."""
    load0 = os.getloadavg()
    srv = Gunicorn()
    try:
        driver = make_driver(1280, 900)
        try:
            open_dashboard(driver, srv)
            rows, _ = drag_section(driver, args.quick)
        finally:
            driver.quit()
    finally:
        srv.stop()
    return print_rows(rows, load0)


def main_only(args) -> int:
    load0 = os.getloadavg()
    rows: list[Row] = []
    if "engine" in args.only:
        log("engine")
        rows += bench_engine(args.quick)
    if "server" in args.only:
        log("starting gunicorn")
        srv = Gunicorn()
        try:
            log("server")
            rows += bench_server(srv, args.quick)[0]
        finally:
            srv.stop()
    return print_rows(rows, load0)


def main_load_only(args) -> int:
    srv = Gunicorn()
    try:
        status, deps = srv.keepalive("GET", "/_dash-dependencies")
        assert status == 200
        section = bench_load(srv, Redraw(json.loads(deps)), args.quick)
    finally:
        srv.stop()
    path = args.out / "RESULTS.md"
    args.out.mkdir(parents=True, exist_ok=True)
    path.write_text(
        replace_load_section(path.read_text() if path.exists() else "# inferx benchmark results\n", section)
    )
    print(section)
    print(f"wrote the load section of {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
