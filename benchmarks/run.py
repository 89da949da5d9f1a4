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
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.browser import bench_browser, open_dashboard  # noqa: E402
from benchmarks.chromium import make_driver  # noqa: E402
from benchmarks.common import log  # noqa: E402
from benchmarks.drag import drag_section  # noqa: E402
from benchmarks.engine import bench_engine, bench_validated  # noqa: E402
from benchmarks.keys import key_rows  # noqa: E402
from benchmarks.load import bench_load, replace_load_section  # noqa: E402
from benchmarks.report import Row, machine, plain_table, report  # noqa: E402
from benchmarks.server import Gunicorn, Redraw, bench_server, bench_server_in_view, cold_start_row  # noqa: E402
from benchmarks.transfer import transfer_rows  # noqa: E402


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
        choices=("engine", "server", "transfer"),
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
            rows += key_rows(srv, args.quick) + transfer_rows(srv)
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
    if {"server", "transfer"} & set(args.only):
        log("starting gunicorn")
        srv = Gunicorn()
        try:
            if "server" in args.only:
                log("server")
                rows += bench_server(srv, args.quick)[0]
            if "transfer" in args.only:
                rows += transfer_rows(srv)
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
