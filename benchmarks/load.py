"""Many users at once: each loads the page, then moves a control every few hundred milliseconds.

Each simulated user is a thread with its own keep-alive connection, as a browser tab has: GET `/`, `/_dash-layout`
and `/_dash-dependencies`, then `redraws` full redraw requests (the payload a moved slider sends), with a pause of
0.1-0.5 s between them. A prober asks `GET /health` every 100 ms through the same run, so the health check's
latency under load is measured beside the users'. Everything is bounded: a fixed number of requests per user and a
deadline after which every thread stops.

`bench_load` runs it against the suite's gunicorn and `replace_load_section` puts its section into RESULTS.md.
"""

from __future__ import annotations

import http.client
import os
import random
import signal
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from benchmarks.common import log, states
from benchmarks.server import Gunicorn, Redraw


@dataclass
class LoadResult:
    users: int
    redraws_per_user: int
    seconds: float = 0.0
    page: list[float] = field(default_factory=list)  # s, the three requests of a page load together
    redraw: list[float] = field(default_factory=list)  # s, each redraw request
    health: list[float] = field(default_factory=list)  # s, each /health probe
    errors: list[str] = field(default_factory=list)
    unfinished: int = 0  # users the deadline stopped
    retried: int = 0  # requests asked again after a broken connection
    load_avg: tuple[float, float] = (0.0, 0.0)  # 1-minute load average at the start and the end

    def pct(self, samples: list[float], q: float) -> float:
        return 1e3 * float(np.percentile(samples, q)) if samples else float("nan")


class _Conn:
    def __init__(self, host: str, port: int):
        self.host, self.port = host, port
        self.conn = http.client.HTTPConnection(host, port, timeout=30)
        self.retried = 0

    def request(self, method: str, path: str, body: bytes | None = None) -> tuple[int, int]:
        headers = {"Accept-Encoding": "gzip", **({"Content-Type": "application/json"} if body else {})}
        # A broken connection is tried once more, as the page does (assets/inferx.js `retried`): the server may
        # close an idle keep-alive connection, or a worker may die mid-request.
        for attempt in range(2):
            try:
                self.conn.request(method, path, body=body, headers=headers)
                resp = self.conn.getresponse()
                return resp.status, len(resp.read())
            except (http.client.HTTPException, ConnectionError):
                self.conn.close()
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
                if attempt:
                    raise
                self.retried += 1
        raise AssertionError("unreachable")

    def close(self) -> None:
        self.conn.close()


def run_load(
    host: str,
    port: int,
    bodies: list[bytes],
    users: int = 50,
    redraws: int = 20,
    pause: tuple[float, float] = (0.1, 0.5),
    ramp_s: float = 2.0,
    deadline_s: float = 120.0,
    seed: int = 1,
    kill: tuple[float, Callable[[], None]] | None = None,
) -> LoadResult:
    """`bodies`: redraw request bodies to cycle through (distinct control states). Users start spread over `ramp_s`.
    `kill`: (seconds, action) run once that far into the load, such as killing a worker."""
    result = LoadResult(users, redraws)
    load0 = os.getloadavg()[0]
    lock = threading.Lock()
    start = time.perf_counter()
    stop_at = start + deadline_s
    done = threading.Event()

    def user(n: int) -> None:
        rng = random.Random(seed * 1000 + n)
        time.sleep(ramp_s * n / max(users, 1))
        conn = _Conn(host, port)
        try:
            t0 = time.perf_counter()
            for path in ("/", "/_dash-layout", "/_dash-dependencies"):
                status, _ = conn.request("GET", path)
                if status != 200:
                    with lock:
                        result.errors.append(f"GET {path}: {status}")
            with lock:
                result.page.append(time.perf_counter() - t0)
            for i in range(redraws):
                if time.perf_counter() > stop_at:
                    with lock:
                        result.unfinished += 1
                    return
                time.sleep(rng.uniform(*pause))
                body = bodies[(n * redraws + i) % len(bodies)]
                t0 = time.perf_counter()
                status, _ = conn.request("POST", "/_dash-update-component", body)
                dt = time.perf_counter() - t0
                with lock:
                    if status == 200:
                        result.redraw.append(dt)
                    else:
                        result.errors.append(f"redraw: {status}")
        except OSError as exc:
            with lock:
                result.errors.append(f"user {n}: {type(exc).__name__}: {exc}")
        finally:
            conn.close()
            with lock:
                result.retried += conn.retried

    def prober() -> None:
        conn = _Conn(host, port)
        try:
            while not done.is_set() and time.perf_counter() < stop_at:
                t0 = time.perf_counter()
                status, _ = conn.request("GET", "/health")
                dt = time.perf_counter() - t0
                with lock:
                    if status == 200:
                        result.health.append(dt)
                    else:
                        result.errors.append(f"health: {status}")
                done.wait(0.1)
        except OSError as exc:
            with lock:
                result.errors.append(f"health: {type(exc).__name__}: {exc}")
        finally:
            conn.close()

    probe = threading.Thread(target=prober, daemon=True)
    probe.start()
    if kill is not None:
        killer = threading.Timer(kill[0], kill[1])
        killer.daemon = True
        killer.start()
    threads = [threading.Thread(target=user, args=(n,), daemon=True) for n in range(users)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(max(0.0, stop_at - time.perf_counter()) + 35)  # a request in flight at the deadline may take 30 s
    done.set()
    probe.join(5)
    result.seconds = time.perf_counter() - start
    result.load_avg = (load0, os.getloadavg()[0])
    return result


def load_section(r: LoadResult, quick: bool, server: str) -> str:
    """The RESULTS.md section for one load run."""
    total = len(r.redraw) + len([e for e in r.errors if e.startswith("redraw")])
    p99 = r.pct(r.redraw, 99)
    lines = [
        "## Load: many users at once",
        "",
        f"{r.users} simulated users against {server}"
        + (" (`--quick`: too few users and redraws to quote)" if quick else "")
        + f", {r.seconds:.1f} s in all; the machine's 1-minute load average was {r.load_avg[0]:.1f} at the start "
        f"and {r.load_avg[1]:.1f} at the end ({os.cpu_count()} cores).",
        "",
        "| Measure | Value | Target | Met |",
        "|---|---|---|---|",
        f"| redraws answered | {len(r.redraw):,} of {total:,} ({r.users} users × {r.redraws_per_user}) | all | "
        f"{'yes' if len(r.redraw) == r.users * r.redraws_per_user else '**no**'} |",
        f"| redraw latency p50 | {r.pct(r.redraw, 50):,.1f} ms |  | — |",
        f"| redraw latency p99 | {p99:,.1f} ms | ≤ 250 ms | {'yes' if p99 <= 250 else '**no**'} |",
        f"| redraw latency max | {1e3 * max(r.redraw, default=float('nan')):,.1f} ms |  | — |",
        f"| page load (`/`, layout, dependencies) p50 / p99 | {r.pct(r.page, 50):,.1f} / {r.pct(r.page, 99):,.1f} ms |"
        "  | — |",
        f"| `GET /health` during the load, p50 / p99 (n = {len(r.health)}) | {r.pct(r.health, 50):,.1f} / "
        f"{r.pct(r.health, 99):,.1f} ms |  | — |",
        f"| errors (non-200 or broken connection) | {len(r.errors)} | 0 | {'yes' if not r.errors else '**no**'} |",
        f"| users stopped by the deadline | {r.unfinished} | 0 | {'yes' if not r.unfinished else '**no**'} |",
        "",
        "How: `benchmarks/load.py`. Each user is a thread with its own keep-alive connection: `GET /`, "
        "`/_dash-layout` and `/_dash-dependencies`, then redraw requests for every figure of `/` (what a moved "
        "slider sends when every graph is in view; a desktop window asks for one or two), a new control state each "
        "time, with a random 0.1-0.5 s pause before each. Users start spread "
        "over 2 s; a prober sends `GET /health` every 100 ms through the run. Client and server share the machine's "
        "cores, so the latencies include the client's own work.",
    ]
    if r.errors:
        lines += ["", "First errors: " + "; ".join(r.errors[:5])]
    return "\n".join(lines) + "\n"


def _kill_a_worker(srv: Gunicorn) -> Callable[[], None]:
    def kill() -> None:
        children = Path(f"/proc/{srv.proc.pid}/task/{srv.proc.pid}/children").read_text().split()
        os.kill(int(children[0]), signal.SIGKILL)  # as the out-of-memory killer would; gunicorn starts another

    return kill


def bench_load(srv: Gunicorn, redraw: Redraw, quick: bool) -> str:
    """50 users (quick: 10), each a page load and 20 redraws (quick: 3), against the deployed server; then the same
    load again with one worker killed (SIGKILL) a third of the way in."""
    users, redraws = (10, 3) if quick else (50, 20)
    bodies = [redraw.body(p) for p in states(users * redraws)]
    deadline = 60 if quick else 120
    result = run_load(srv.host, srv.port, bodies, users=users, redraws=redraws, deadline_s=deadline)
    log(
        f"load: {len(result.redraw)} redraws, p50 {result.pct(result.redraw, 50):.1f} ms, "
        f"p99 {result.pct(result.redraw, 99):.1f} ms, {len(result.errors)} errors"
    )
    killed = run_load(
        srv.host, srv.port, bodies, users=users, redraws=redraws, deadline_s=deadline, seed=2,
        kill=(1.0 if quick else 3.0, _kill_a_worker(srv)),
    )  # fmt: skip
    log(f"load with a worker killed: {len(killed.redraw)} redraws, {len(killed.errors)} errors")
    server = "`gunicorn app:server` as deployed (2 workers × 4 threads) on loopback"
    return load_section(result, quick, server) + "\n" + killed_section(killed)


def killed_section(r: LoadResult) -> str:
    total = r.users * r.redraws_per_user
    answered = f"{len(r.redraw):,} of {total:,} | all | {'yes' if len(r.redraw) == total else '**no**'}"
    lines = [
        "The same load again, with one of the two workers killed (SIGKILL, as an out-of-memory kill would) a third"
        " of the way in: the requests it held break, and the client asks once more, as the page does.",
        "",
        "| Measure | Value | Target | Met |",
        "|---|---|---|---|",
        f"| redraws answered | {answered} |",
        f"| requests asked again after a broken connection | {r.retried} |  | — |",
        f"| redraw latency p99 | {r.pct(r.redraw, 99):,.1f} ms |  | — |",
        f"| errors seen by users | {len(r.errors)} | 0 | {'yes' if not r.errors else '**no**'} |",
    ]
    if r.errors:
        lines += ["", "First errors: " + "; ".join(r.errors[:5])]
    return "\n".join(lines) + "\n"


LOAD_HEADING = "## Load: many users at once"


def replace_load_section(text: str, section: str) -> str:
    """RESULTS.md with its load section replaced (or added before ## Machine); the rest is left as it was."""
    if LOAD_HEADING in text:
        head, _, rest = text.partition(LOAD_HEADING)
        _, sep, tail = rest.partition("\n## ")
        return head + section + ("\n## " + tail if sep else "")
    head, sep, tail = text.partition("## Machine")
    return head + section + "\n" + sep + tail if sep else text.rstrip("\n") + "\n\n" + section
