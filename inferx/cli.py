"""Command line: `inferx point | frontier | check | calibrate | validate | fetch`."""

from __future__ import annotations

import argparse
import csv
import json
import math
import os
import sys

import numpy as np

from .check import MISMATCH, ROWS, format_table
from .scenario import PARAMS, InvalidParameter, Scenario, geometric_batches

# Every-integer output beyond this many rows is refused (a 1-token context on a big machine has B_max in the
# tens of millions: gigabytes of arrays for a table nobody reads); --points samples any range.
MAX_ROWS = 1_000_000

POINT_FIELDS = (
    "batch",
    "throughput_tok_s",
    "ttft_ms",
    "itl_ms",
    "t_step_ms",
    "t_prefill_ms",
    "t_comm_ms",
    "rho",
    "b_max",
    "b_star",
    "ridge_flop_per_byte",
    "kappa_bytes_per_token",
    "kv_headroom_gb",
    "t_inf_tok_s",
    "stable",
)
FRONTIER_FIELDS = ("batch", "throughput_tok_s", "ttft_ms", "itl_ms", "rho")


def _add_scenario_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("scenario (explicit options override the preset)")
    for name, p in PARAMS.items():
        unit = f" [{p.unit}]".replace("%", "%%") if p.unit else ""  # argparse formats help with %
        if p.kind == "choice":
            group.add_argument(
                f"--{name}", choices=p.choices, help=f"{p.label}{unit} (default {p.default or 'from preset'})"
            )
        else:
            kind = int if p.kind in ("int", "pow2") else float
            default = "from preset" if p.default is None else p.default
            group.add_argument(
                f"--{name}", type=kind, metavar=name.upper(), help=f"{p.label}{unit} (default {default})"
            )


def _scenario(args: argparse.Namespace) -> Scenario:
    return Scenario.from_params(**{name: getattr(args, name) for name in PARAMS})


def _finite(x, digits=6):
    x = float(x)
    return None if not math.isfinite(x) else float(f"{x:.{digits}g}")


def point_record(scn: Scenario, batch: int) -> dict:
    """The `inferx point` JSON object (times in ms, throughput in tokens/s)."""
    r = {k: v[0] for k, v in scn.evaluate([batch]).items()}
    s = scn.summary()
    stable = bool(r["stable"])
    return {
        "batch": int(batch),
        "throughput_tok_s": _finite(r["throughput"]),
        "ttft_ms": _finite(1e3 * r["ttft"]) if stable else None,
        "itl_ms": _finite(1e3 * r["itl"]),
        "t_step_ms": _finite(1e3 * r["t_step"]),
        "t_prefill_ms": _finite(1e3 * s["t_prefill"]),
        "t_comm_ms": _finite(1e3 * r["t_comm"]),
        "rho": _finite(r["rho"]),
        "b_max": int(s["b_max"]),
        "b_star": _finite(s["b_star"]),
        "ridge_flop_per_byte": _finite(s["ridge"]),
        "kappa_bytes_per_token": _finite(s["kappa"]),
        "kv_headroom_gb": _finite(s["headroom"] / 1e9),
        "t_inf_tok_s": _finite(s["t_inf"]),
        "stable": stable,
    }


def frontier_records(scn: Scenario, points: int | None = None) -> list[dict]:
    """One row per batch size 1…B_max, or `points` geometric samples of that range."""
    batches = np.arange(1, scn.b_max + 1) if points is None else geometric_batches(scn.b_max, points)
    r = scn.evaluate(batches)
    return [
        {
            "batch": int(b),
            "throughput_tok_s": _finite(t),
            "ttft_ms": _finite(1e3 * f) if ok else None,
            "itl_ms": _finite(1e3 * i),
            "rho": _finite(rho),
        }
        for b, t, f, i, rho, ok in zip(
            batches, r["throughput"], r["ttft"], r["itl"], r["rho"], r["stable"], strict=True
        )
    ]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="inferx", description="LLM serving frontier from hardware physics.")
    sub = parser.add_subparsers(dest="command", required=True)
    point = sub.add_parser("point", help="one operating point as JSON")
    _add_scenario_options(point)
    point.add_argument("--batch", type=int, required=True, help="decode batch size B (concurrent requests)")
    frontier = sub.add_parser("frontier", help="the throughput–TTFT frontier, one row per batch size")
    _add_scenario_options(frontier)
    frontier.add_argument(
        "--points", type=int, help=f"N geometric samples instead of every batch size (needed above {MAX_ROWS:,})"
    )
    frontier.add_argument("--format", choices=("csv", "json"), default="csv")
    sub.add_parser("check", help="every number the article prints beside the engine's value")
    for name, text in (
        ("calibrate", "fit the calibrated model to measured points"),
        ("validate", "error of both models against measured points"),
    ):
        p = sub.add_parser(name, help=text)
        p.add_argument("--measured", required=True, help="InferenceX CSV or API JSON file")
    from .fetch import add_fetch_parser

    add_fetch_parser(sub)
    for p in sub.choices.values():  # so that an error prints the subcommand's own usage line
        p.set_defaults(subparser=p)
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        return _run(argv)
    except BrokenPipeError:  # `inferx frontier | head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def _run(argv: list[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "check":
        print(format_table(ROWS))
        return 1 if any(r.status == MISMATCH for r in ROWS) else 0
    if args.command == "fetch":
        from . import fetch

        return fetch.cli(args.model, args.output, args.base_url, args.date, args.timeout)
    if args.command in ("calibrate", "validate"):
        from . import calibrated

        return calibrated.cli(args.command, args.measured)
    command = args.subparser
    try:
        scn = _scenario(args)
    except InvalidParameter as err:
        command.error(str(err))
    reason = scn.unfit_reason()
    if args.command == "point":
        if args.batch < 1:
            command.error("batch: must be a whole number ≥ 1")
        if scn.headroom <= 0:
            print(f"inferx: {reason}", file=sys.stderr)
            return 2
        print(json.dumps(point_record(scn, args.batch)))
        return 0
    if reason:
        print(f"inferx: {reason}", file=sys.stderr)
        return 2
    if args.points is not None and args.points < 2:
        command.error("points: must be ≥ 2")
    if args.points is None and scn.b_max > MAX_ROWS:
        command.error(f"B_max is {scn.b_max:,}: every batch size would be too many rows; pass --points N")
    rows = frontier_records(scn, args.points)
    if args.format == "json":
        print(json.dumps(rows))
    else:
        writer = csv.DictWriter(sys.stdout, fieldnames=FRONTIER_FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
