"""`inferx models` and `inferx hardware`, and the options that add a config.json or a GPU datasheet to the
catalogs."""

from __future__ import annotations

import argparse
import json

from inferx.data.user_gpus import ENV as GPU_ENV
from inferx.data.user_models import ENV
from inferx.physics.hardware import GPUS
from inferx.scenario.controls import (
    PARAMS,
    InvalidParameter,
    check_value,
    domain,
)


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
    ("params total (B)", _number("p_total", "{:,.1f}", 1e9)),
    ("active (B)", _number("p_active", "{:,.1f}", 1e9)),
    ("experts k/E+shared", _experts),
    ("κ BF16 bytes/token", _number("kv_bytes_per_token_bf16", "{:,.0f}")),
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
    ("$/GPU-h (assumed)", _number("usd_per_gpu_hour", "{:,.2f}")),
)


def add_catalog_commands(sub) -> None:
    models = sub.add_parser("models", help="the model catalog (sizes from each model's published config)")
    hardware = sub.add_parser("hardware", help="the GPU catalog (datasheet numbers; compute is dense)")
    hardware.add_argument(
        "--gpus", default="1", help=f"totals for this many GPUs: {domain(PARAMS['gpus'])} (default 1)"
    )
    for p in (models, hardware):
        p.add_argument("--format", choices=("table", "json"), default="table", help="a table, or JSON with every field")
    add_model_config_option(models, serves=False)
    add_gpu_spec_option(hardware, serves=False)


def list_catalog(args: argparse.Namespace) -> int:
    """`inferx models` / `inferx hardware`: the catalogs as a table or JSON."""
    from inferx.analysis.economics import default_price as price_of
    from inferx.physics.hardware import Machine, machine_record
    from inferx.physics.models import MODELS, model_record

    if args.command == "models":
        records, columns = [model_record(k, m) for k, m in MODELS.items()], MODEL_COLUMNS
    else:
        try:  # the range and the words of the scenario's --gpus
            gpus = check_value("gpus", PARAMS["gpus"], args.gpus)
        except InvalidParameter as err:
            args.subparser.error(str(err))
        # The assumed price beside the datasheet, so that one GPU's record is a template for --gpu-spec.
        records = [{**machine_record(k, Machine(g, gpus)), "usd_per_gpu_hour": price_of(k)} for k, g in GPUS.items()]
        columns = GPU_COLUMNS
    if args.format == "json":
        print(json.dumps(records))
        return 0
    rows = [[h for h, _ in columns]] + [[cell(r) for _, cell in columns] for r in records]
    widths = [max(len(row[i]) for row in rows) for i in range(len(columns))]
    for row in rows:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths, strict=True))))
    if args.command == "models":
        print(
            "κ counts every layer with a KV cache; KV 8K caps windowed layers at their window and adds the recurrent "
            "state of linear-attention and Mamba layers. Sources: inferx models --format json"
        )
    else:
        print(
            "Compute is dense (no 2:4 sparsity); sparse figures and sources: inferx hardware --format json. "
            "Prices are assumed rental rates, not measured. Your own GPU: --gpu-spec FILE (one record of that JSON)."
        )
    return 0


def add_gpu_spec_option(parser, serves: bool = True) -> None:
    serve = ", and, unless --gpu names another, serves it" if serves else ""
    parser.add_argument(
        "--gpu-spec",
        action="append",
        default=[],
        metavar="FILE",
        help=f"a GPU's datasheet as JSON, in the fields of `inferx hardware --format json`: adds it to the catalog "
        f"(as {GPU_ENV} does){serve}; repeatable",
    )


def add_model_config_option(parser, serves: bool = True) -> None:
    serve = ", and, unless --model names another, serves it" if serves else ""
    parser.add_argument(
        "--model-config",
        action="append",
        default=[],
        metavar="FILE",
        help=f"a Hugging Face config.json: adds its model to the catalog (as {ENV} does){serve}; repeatable",
    )
