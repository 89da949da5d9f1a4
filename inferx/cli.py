"""Command line: `inferx point | frontier | check | calibrate | validate | models | hardware`."""

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
    _add_catalog_commands(sub)
    for p in sub.choices.values():  # so that an error prints the subcommand's own usage line
        p.set_defaults(subparser=p)
    return parser


# --- Catalog listings ---------------------------------------------------------------


def _number(key: str, fmt: str, scale: float = 1.0):
    return lambda r: "—" if r[key] is None else fmt.format(r[key] / scale if scale != 1 else r[key])


def _heads(r: dict) -> str:
    kv = r["n_kv_heads"] or f"latent {r['kv_lora_rank']}+{r['d_rope']}"
    return f"{r['n_q_heads']}/{kv}"


def _experts(r: dict) -> str:
    if not r["n_routed_experts"]:
        return "dense"
    return f"{r['experts_per_token']}/{r['n_routed_experts']}" + (
        f"+{r['n_shared_experts']}" if r["n_shared_experts"] else ""
    )


# (header, cell) per table column; the JSON output has every field of the record.
MODEL_COLUMNS = (
    ("key", lambda r: r["key"]),
    ("attention", lambda r: r["attention"]),
    ("layers", _number("n_layers", "{}")),
    ("d_model", _number("d_model", "{:,}")),
    ("q/kv heads", _heads),
    ("head dim", _number("d_head", "{}")),
    ("total B", _number("p_total", "{:,.1f}", 1e9)),
    ("active B", _number("p_active", "{:,.1f}", 1e9)),
    ("experts k/E+shared", _experts),
    ("κ BF16 B/token", _number("kv_bytes_per_token_bf16", "{:,.0f}")),
    ("KV 8K BF16 GB", _number("kv_gb_per_8192_token_sequence_bf16", "{:,.2f}")),
    ("weights FP8 GB", _number("weights_gb_fp8", "{:,.0f}")),
)
GPU_COLUMNS = (
    ("key", lambda r: r["key"]),
    ("gpus", _number("gpus", "{}")),
    ("HBM GB", _number("hbm_gb", "{:,.0f}")),
    ("HBM TB/s", _number("hbm_tb_s", "{:,.2f}")),
    ("BF16 TFLOPS", _number("dense_bf16_tflops", "{:,.0f}")),
    ("FP8 TFLOPS", _number("dense_fp8_tflops", "{:,.0f}")),
    ("FP4 TFLOPS", _number("dense_fp4_tflops", "{:,.0f}")),
    ("ridge BF16 FLOP/B", _number("ridge_bf16_flop_per_byte", "{:,.0f}")),
    ("link GB/s/GPU", _number("link_gb_s_per_gpu", "{:,.0f}")),
    ("power W", _number("power_w", "{:,.0f}")),
)


def _add_catalog_commands(sub) -> None:
    models = sub.add_parser("models", help="the model catalog (sizes from each model's published config)")
    hardware = sub.add_parser("hardware", help="the GPU catalog (datasheet numbers; compute is dense)")
    hardware.add_argument("--gpus", type=int, default=1, help="totals for this many GPUs (1–72, default 1)")
    for p in (models, hardware):
        p.add_argument("--format", choices=("table", "json"), default="table")


def _list_catalog(args: argparse.Namespace) -> int:
    """`inferx models` / `inferx hardware`: the catalogs as a table or JSON."""
    from .hardware import GPUS, MAX_GPUS, Machine, machine_record
    from .models import MODELS, model_record

    if args.command == "models":
        records, columns = [model_record(k, m) for k, m in MODELS.items()], MODEL_COLUMNS
    else:
        if not 1 <= args.gpus <= MAX_GPUS:
            args.subparser.error(f"gpus: must be a whole number in 1…{MAX_GPUS}")
        records = [machine_record(k, Machine(g, args.gpus)) for k, g in GPUS.items()]
        columns = GPU_COLUMNS
    if args.format == "json":
        print(json.dumps(records))
        return 0
    rows = [[h for h, _ in columns]] + [[cell(r) for _, cell in columns] for r in records]
    widths = [max(len(row[i]) for row in rows) for i in range(len(columns))]
    for row in rows:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))))
    if args.command == "models":
        print("κ counts every layer; KV 8K caps windowed layers at their window. Sources: inferx models --format json")
    else:
        print("Compute is dense (no 2:4 sparsity); sparse figures and sources: inferx hardware --format json")
    return 0


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
    if args.command in ("models", "hardware"):
        return _list_catalog(args)
    if args.command in ("calibrate", "validate"):
        from .calibration_cli import run

        return run(args.command, args.measured)
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
