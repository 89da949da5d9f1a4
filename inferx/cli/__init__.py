"""Command line: `inferx point | frontier | slo | check | calibrate | validate | fetch | models | hardware`."""

from __future__ import annotations

import argparse
import csv
import json
import os
import sys
from importlib.metadata import version

from inferx.analysis.answers import ANSWER_MEANING, ANSWER_OF_MODE, error_brief, in_both_modes, slo_answer
from inferx.analysis.article_numbers import ROWS
from inferx.analysis.check import MISMATCH, format_table
from inferx.cli import compare
from inferx.cli.catalog import add_catalog_commands, add_gpu_spec_option, add_model_config_option, list_catalog
from inferx.cli.compare import add_compare_parser
from inferx.cli.records import frontier_records, point_record, rounded_json
from inferx.data.user_gpus import add_gpu_specs, add_gpus_from_env
from inferx.data.user_models import add_model_configs, add_models_from_env
from inferx.deploy import ConfigError
from inferx.physics.hardware import GPUS
from inferx.scenario.controls import (
    ARTICLE_ONLY,
    BATCH,
    CALIBRATED_ONLY,
    PARAMS,
    InvalidParameter,
    Param,
    check_batch,
    check_value,
    domain,
)
from inferx.scenario.evaluation import Scenario
from inferx.scenario.machines import borrowed_link, checked_context, layout_note

# Every-integer output beyond this many rows is refused (a 1-token context on a big machine has B_max in the
# tens of millions: gigabytes of arrays for a table nobody reads); --points samples any range.
MAX_ROWS = 1_000_000
POINTS = Param("Samples", "", "int", None, 2, MAX_ROWS)

POINT_FIELDS = (
    "batch",
    "throughput_tok_s",
    "throughput_per_gpu_tok_s",
    "gpus",
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
    "regime",
    "cost_per_mtok_usd",
    "tokens_per_joule",
    "usd_per_gpu_hour",
    "price_assumed",
    "power_fraction_of_tdp",
)
FRONTIER_FIELDS = ("batch", "throughput_tok_s", "ttft_ms", "itl_ms", "rho", "regime")


def _option_help(p: Param) -> str:
    default = (p.unset or "from preset") if p.default is None else p.default
    return f"{p.label}: {domain(p)} (default {default})".replace("%", "%%")  # argparse formats help with %


def _add_scenario_options(parser: argparse.ArgumentParser) -> None:
    # Values stay text here: scenario.check_param reads them, as it reads the URL's, so both refuse the same
    # values with the same words (argparse's own type= and choices= would answer differently).
    group = parser.add_argument_group("scenario (explicit options override the preset)")
    for name, p in PARAMS.items():
        metavar = "{" + ",".join(p.choices) + "}" if p.kind == "choice" else name.upper()
        group.add_argument(f"--{name}", metavar=metavar, help=_option_help(p))
    add_model_config_option(group)
    add_gpu_spec_option(group)


def _scenario(args: argparse.Namespace) -> Scenario:
    """The scenario of the options; a --ctx shorter than the input is refused, a default one raised (and said)."""
    scn = Scenario.from_params(**{name: getattr(args, name) for name in PARAMS})
    values, note = checked_context(scn.params, args.ctx is not None)
    if note:
        print(f"inferx: note: {note}", file=sys.stderr)
        scn = Scenario.from_params(**values)
    return scn


def _note_preset_link(scn: Scenario) -> None:
    """One of the article's GPUs named without --ic communicates over the article's link (as an address without
    `ic` does, and as its preset does, so all give the same numbers); where the GPU's own link is another,
    stderr says so and how to use it."""
    links = borrowed_link(scn.params)
    if links:
        (used, own), gpu = links, GPUS[scn.params["gpu"]]
        fitted = " (the calibration was fitted with NVLink 4.0 on every GPU)" if scn.mode == "calibrated" else ""
        print(
            f"inferx: note: the collectives run over the article's {used.label} ({used.bw / 1e9:,.4g} GB/s one way); "
            f"the {gpu.name}'s own link is {gpu.link} "
            f"({own.bw / 1e9:,.4g} GB/s one way): --ic scale-up uses it" + fitted,
            file=sys.stderr,
        )


TARGETS_GROUP = "Targets & cost"  # the latency targets, price and power
OSL_FIGURE = "fig12"  # the one output of article mode that reads the output length (its E2E)

BOTH_ANSWERS = ("point", "slo")  # the commands that print the ideal and the expected answer


def _note_unread(args: argparse.Namespace, scn: Scenario, figure: str | None = None) -> None:
    """Options given that the scenario's model does not read for this output: said, so that --mtp on giving the
    same numbers as --mtp off is not taken for an answer. In article mode the output length is read by Figure
    12's E2E only; the calibrated model does not read the output length's CV."""
    if scn.mode == "article":
        unread = CALIBRATED_ONLY if figure == OSL_FIGURE else (*CALIBRATED_ONLY, "osl")
        reader, other = "the calibrated model", "calibrated"
    else:
        unread, reader, other = ARTICLE_ONLY, "the article's model", "article"
    given = [f"--{name}" for name in PARAMS if name in unread and getattr(args, name, None) is not None]
    if given:
        them, s = ("it", "s") if len(given) == 1 else ("them", "")
        if args.command in BOTH_ANSWERS and figure is None:  # the other model's answer is printed too
            answer = ANSWER_OF_MODE[other]
            what = f"change{s} only the {answer} answer: {reader} reads {them}"
        else:
            what = f"change{s} nothing here: {reader} reads {them} (add --mode {other})"
        print(f"inferx: note: in {scn.mode} mode {', '.join(given)} {what}", file=sys.stderr)
    # The latency targets enter the goodput, which point and the frontier table do not give, and the price and
    # power the cost and energy, which point gives and the table does not; MTP's acceptance enters only with MTP.
    read_here = ("price", "power") if args.command == "point" else ()
    targets = [f"--{n}" for n, p in PARAMS.items()
               if p.group == TARGETS_GROUP and n not in read_here and getattr(args, n, None) is not None]  # fmt: skip
    if targets and args.command in ("point", "frontier") and figure is None:
        print(f"inferx: note: {', '.join(targets)} change{'s' if len(targets) == 1 else ''} nothing here: "
              "inferx slo and --figure 6, 10 and 11 read them", file=sys.stderr)  # fmt: skip
    if scn.mode == "calibrated" and not scn.mtp and getattr(args, "acceptance", None) is not None:
        print("inferx: note: --acceptance changes nothing without --mtp on", file=sys.stderr)
    layout = layout_note(scn.params, scn.mode == "calibrated" or (args.command in BOTH_ANSWERS and figure is None))
    if layout:  # --ep on a dense model or at TP 1, --dp at TP 1; --ep's expected answer
        print(f"inferx: note: {layout}", file=sys.stderr)


class _Parser(argparse.ArgumentParser):
    """argparse's, with an error said in two lines: the usage of `point` alone is some fifteen lines, which
    pushed the one line that matters out of a terminal's view. Options are spelled out: argparse would take
    any unique prefix, so a mistyped `--a preset:mi300x4` was read as `--acceptance`, and each new option
    changes which prefixes are unique."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **{"allow_abbrev": False, **kwargs})

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n{self.prog} --help lists the options.\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="inferx", description="LLM serving frontier from hardware physics.")
    parser.add_argument("--version", action="version", version=f"inferx {version('inferx')}")
    sub = parser.add_subparsers(dest="command", required=True)
    point = sub.add_parser("point", help="one operating point as JSON")
    _add_scenario_options(point)
    point.add_argument("--batch", default=str(BATCH.default), metavar="BATCH", help=_option_help(BATCH))
    frontier = sub.add_parser(
        "frontier", help="the throughput–latency frontier (throughput, TTFT, ITL, ρ), one row per batch size"
    )
    _add_scenario_options(frontier)
    frontier.add_argument(
        "--points",
        metavar="N",
        help=f"N geometric samples, {domain(POINTS)}, instead of every batch size (needed above {MAX_ROWS:,})",
    )
    frontier.add_argument("--format", choices=("csv", "json"), default="csv", help="output format (default csv)")
    _add_beyond_commands(sub, frontier)
    add_compare_parser(sub)
    sub.add_parser("check", help="every number the article prints beside the engine's value")
    for name, text in (
        ("calibrate", "fit the calibrated model to measured points"),
        ("validate", "the calibrated model's error against measured points"),
    ):
        p = sub.add_parser(name, help=text)
        p.add_argument("--measured", required=True, help="InferenceX CSV or API JSON file")
    sub.choices["validate"].add_argument(
        "--error-tables", metavar="PATH", help="also write the error tables by GPU, precision, ISL/OSL, concurrency"
    )
    sub.choices["calibrate"].add_argument(
        "--transfer",
        metavar="PATH",
        help="also fit the transferable model (with the published tables) and write it"
        " there, with its held-out errors (minutes: one fit per GPU and per model held out)",
    )
    sub.choices["validate"].add_argument(
        "--transfer",
        action="store_true",
        help="score the stored transferable model instead (no refit): every source, model, GPU and stack, "
        "in or out of its sample, then its held-out scores as calibrate stored them",
    )
    add_catalog_commands(sub)
    from inferx.data.fetch import add_fetch_parser

    add_fetch_parser(sub)
    for p in sub.choices.values():  # so that an error prints the subcommand's own usage line
        p.set_defaults(subparser=p)
    return parser


# --- Catalog listings ---------------------------------------------------------------


# --- Goodput under a latency target, and figure export ---------------------------------


def _add_beyond_commands(sub, frontier: argparse.ArgumentParser) -> None:
    from inferx.figures.export import FIGURE_NAMES

    frontier.add_argument(
        "--figure",
        metavar="NAME",
        help=f"write one figure's plotted data instead, as its card's CSV button does: its number "
        f"(1-{len(FIGURE_NAMES)}) or name ({', '.join(FIGURE_NAMES)})",
    )
    frontier.add_argument(
        "--batch",
        metavar="BATCH",
        help=f"with --figure 6 (explorer): the batch size its dot marks, {domain(BATCH)} (default {BATCH.default})",
    )
    slo = sub.add_parser(
        "slo",
        help="the best operating point that meets a TTFT and a TPOT target, as JSON (exit 1 if none does)",
    )
    _add_scenario_options(slo)
    for option, name, metavar, what in SLO_ALIASES:
        p = PARAMS[name]
        default = p.unset if p.default is None else f"{p.default:g}"
        slo.add_argument(option, metavar=metavar, help=f"{what}: {domain(p)} (default --{name}, {default})")
    slo.add_argument(
        "--search",
        action="store_true",
        help="try every catalog GPU (or --gpu) at each power-of-two count its scale-up domain holds (or --gpus), "
        "tensor-parallel across it (a pipeline stage per domain past one), at datasheet numbers (other hardware "
        "options are ignored); cheapest first",
    )
    slo.add_argument(
        "--format",
        choices=("json", "table"),
        default="json",
        help="with --search: JSON (default) or a table of both answers, ideal and expected, side by side",
    )


def _run_beyond(args: argparse.Namespace) -> int:
    """`inferx slo` and `inferx frontier --figure NAME`."""
    from inferx.analysis import slo
    from inferx.figures import beyond, export, registry

    command = args.subparser
    try:
        if args.command == "slo":
            # An alias is checked against its scenario option's range, in its own name, and then replaces that
            # option (the command's own wins): the JSON's scenario names the targets the answer used.
            for option, name, *_ in SLO_ALIASES:
                value = getattr(args, option[2:].replace("-", "_"))
                if value is not None:
                    check_value(option, PARAMS[name], value)
                    setattr(args, name, value)
        scn = _scenario(args)
        if args.command != "slo":
            name = export.figure_name(args.figure)
            if args.points is not None:
                raise ValueError("--points samples the frontier table; a figure has its own samples")
            batch = BATCH.default if args.batch is None else check_batch(args.batch)
            if args.batch is not None and not registry.FIGURES[name].reads_batch:
                raise ValueError(f"--batch marks the explorer's point: it goes with --figure 6, not {args.figure}")
    except (InvalidParameter, ValueError) as err:
        command.error(str(err))
    _note_unread(args, scn, None if args.command == "slo" else name)
    searching = args.command == "slo" and args.search
    if args.gpu is not None and args.ic is None and not searching:
        _note_preset_link(scn)
    if args.command == "slo":
        ttft, tpot, price, fraction = (scn.params[name] for _, name, *_ in SLO_ALIASES)
        if args.search:
            base = {name: getattr(args, name) for name in PARAMS}
            unread = [f"--{n}" for n in slo.HARDWARE_CONTROLS if n not in ("gpu", "gpus") and base.get(n) is not None]
            if unread:  # each machine tried takes its own
                print(f"inferx: note: --search sets {', '.join(unread)} for each machine it tries: the value"
                      f"{'s' if len(unread) > 1 else ''} given {'are' if len(unread) > 1 else 'is'} not read",
                      file=sys.stderr)  # fmt: skip
            try:
                rows = slo.search(base, ttft_ms=ttft, tpot_ms=tpot, usd_per_gpu_hour=price, power_fraction=fraction)
            except InvalidParameter as err:
                command.error(str(err))
            rows = _with_other_mode(rows, base, ttft, tpot, price, fraction)
            best = rows[0] if rows[0]["batch"] else None
            if args.format == "table":
                print(search_table(rows, scn.mode))
            else:
                print(json.dumps(rounded_json({"candidates": rows, "best": best, "units": _param_units(rows[0])})))
            return 0 if best else 1
        reason = scn.unfit_reason()
        if reason:  # no request fits, as `point` and `frontier` say
            print(f"inferx: {reason}", file=sys.stderr)
            return 2
        result = slo.goodput(scn, ttft, tpot, price, fraction)
        both = in_both_modes(scn, lambda s: slo_answer(slo.goodput(s, ttft, tpot, price, fraction)))
        # The inputs as given, under the names the options and the URL use; their units beside them.
        print(json.dumps({"scenario": scn.params, "scenario_units": _param_units(scn.params), **rounded_json(result),
                          **rounded_json(both)}))  # fmt: skip
        return 0 if result["batch"] else 1
    fig = export.build_figure(scn, name, batch)
    record = export.figure_record(name, fig)
    past = beyond.batch_past_b_max(scn, batch) if registry.FIGURES[name].reads_batch else ""
    if past:
        print(f"inferx: note: {past}", file=sys.stderr)
    if not any(t["x"] for t in record["traces"]):  # nothing drawn: the figure's note says why, as `frontier` does
        print(f"inferx: {'; '.join(record['notes']) or 'nothing to plot for these settings'}", file=sys.stderr)
        return 2
    if args.format == "json":
        print(json.dumps(record))
    else:
        sys.stdout.write(export.figure_csv(fig))  # the dashboard's download button writes the same text
    return 0


def _with_other_mode(rows: list[dict], base: dict, ttft, tpot, price, fraction) -> list[dict]:
    """Each search row with its answer in both models ("ideal", "expected": the row's own mode first), matched
    by machine with the same search run in the other mode."""
    from inferx.analysis import slo
    from inferx.analysis.slo import MACHINE_OPTIONS

    mode = base.get("mode") or PARAMS["mode"].default
    other = "calibrated" if mode == "article" else "article"
    theirs = slo.search({**base, "mode": other}, ttft_ms=ttft, tpot_ms=tpot, usd_per_gpu_hour=price,
                        power_fraction=fraction)  # fmt: skip
    by_machine = {tuple(r[k] for k in MACHINE_OPTIONS): r for r in theirs}
    out = []
    for row in rows:
        twin = by_machine.get(tuple(row[k] for k in MACHINE_OPTIONS), {})
        answers = {mode: slo_answer(row), other: slo_answer(twin)}
        out.append(row | {ANSWER_OF_MODE[m]: answers[m] for m in (mode, other)})
    return out


def search_table(rows: list[dict], mode: str) -> str:
    """`slo --search --format table`: one line per machine, cheapest first, both answers side by side, the
    expected one with how far its throughput may be off (`answers.error_brief`)."""
    answers = ("ideal", "expected") if mode == "article" else ("expected", "ideal")

    def cells(block: dict) -> str:
        if not block.get("batch"):
            return f"{'—':>6} {'—':>10} {'—':>8} {'—':10}"
        return (
            f"{block['batch']:>6,} {block['throughput_per_gpu_tok_s']:>10,.0f} {block['cost_per_mtok_usd']:>8,.2f} "
            f"{block['limited_by']:10}"
        )

    titles = "   ".join(f"{w + ':':9} {'batch':>6} {'tok/s/GPU':>10} {'$/Mtok':>8} {'limited by':10}" for w in answers)
    head = f"{'machine':18} {'TP':>3} {'PP':>3}   {titles}   expected tok/s/GPU off by"
    lines = [head, "-" * len(head)]
    for r in rows:
        shown = "   ".join(f"{'':9} {cells(r[w])}" for w in answers)
        off = error_brief(r["expected"].get("error"))
        lines.append(f"{r['machine']:18} {r['tp']:>3} {r['pp']:>3}   {shown}   {off}")
    lines += [
        f"ideal: {ANSWER_MEANING['ideal']}.",
        f"expected: {ANSWER_MEANING['expected']}; off by: the median (and p90) of |predicted / measured - 1| of "
        "output tok/s per GPU on runs held out of the fit as the same kind of extrapolation.",
        f"Rows are in the order of the {answers[0]} answer's cost per million tokens.",
    ]
    return "\n".join(lines)


def _param_units(names) -> dict[str, str]:
    """The unit of each scenario parameter among `names` that has one ("bw": "TB/s"), for JSON whose keys are
    the parameters' own names rather than names carrying their unit."""
    return {n: PARAMS[n].unit for n in names if n in PARAMS and PARAMS[n].unit}


def main(argv: list[str] | None = None) -> int:
    try:
        return _run(argv)
    except BrokenPipeError:  # `inferx frontier | head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


def _served(added: list[str], option: str, chooser: str) -> str:
    """The catalog key a run draws when files were given and none was chosen: the last file's, said on stderr
    where there were several."""
    if len(set(added)) > 1:
        print(
            f"inferx: note: drawing {added[-1]}, from the last {option}; {chooser} chooses another of "
            f"{', '.join(dict.fromkeys(added))}",
            file=sys.stderr,
        )
    return added[-1]


def _run(argv: list[str] | None) -> int:
    try:
        add_models_from_env()  # before the parser, whose --model and --gpu list the catalogs
        add_gpus_from_env()
    except ConfigError as err:
        print(f"inferx: {err}", file=sys.stderr)
        return 2
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:  # named by the subcommand they were given to, as its other errors are
        args.subparser.error(f"unrecognized arguments: {' '.join(extra)}")
    if getattr(args, "model_config", None):
        try:
            added = add_model_configs(args.model_config)
        except ConfigError as err:
            args.subparser.error(str(err))
        if getattr(args, "model", "listed") is None:
            args.model = _served(added, "--model-config", "--model")
    if getattr(args, "gpu_spec", None):
        try:
            added = add_gpu_specs(args.gpu_spec)
        except ConfigError as err:
            args.subparser.error(str(err))
        if getattr(args, "gpu", "listed") is None:
            args.gpu = _served(added, "--gpu-spec", "--gpu")
    if args.command == "check":
        print(format_table(ROWS))
        return 1 if any(r.status == MISMATCH for r in ROWS) else 0
    if args.command in ("models", "hardware"):
        return list_catalog(args)
    if args.command == "fetch":
        from inferx.data import fetch

        return fetch.cli(args.model, args.output, args.base_url, args.date, args.timeout)
    if args.command == "slo" or getattr(args, "figure", None) is not None:
        return _run_beyond(args)
    if args.command == "compare":
        try:
            return compare.run(args)
        except InvalidParameter as err:
            args.subparser.error(str(err))
    if args.command in ("calibrate", "validate"):
        from inferx.cli.calibration import run

        return run(args.command, args.measured, getattr(args, "error_tables", None), args.transfer)
    command = args.subparser
    try:
        scn = _scenario(args)
        batch = check_batch(args.batch) if args.command == "point" else None
        if args.command == "frontier" and args.batch is not None:
            raise InvalidParameter(
                "batch", "the frontier table has every batch size; --batch goes with --figure 6", args.batch
            )
        points = None if getattr(args, "points", None) is None else check_value("points", POINTS, args.points)
    except InvalidParameter as err:
        command.error(str(err))
    reason = scn.unfit_reason()
    if reason:  # a point beyond B_max is a result (unstable), but with no request fitting there is no model
        print(f"inferx: {reason}", file=sys.stderr)
        return 2
    if args.gpu is not None and args.ic is None:
        _note_preset_link(scn)
    _note_unread(args, scn)
    if args.command == "point":
        if batch > scn.b_max:  # an answer (stable false), but of a batch whose KV caches the machine cannot hold
            print(f"inferx: note: B = {batch:,} passes B_max = {scn.b_max:,}, the most requests whose KV caches fit: "
                  "its throughput and ITL are the roofline's, which no server reaches", file=sys.stderr)  # fmt: skip
        print(json.dumps(point_record(scn, batch)))
        return 0
    if points is None and scn.b_max > MAX_ROWS:
        command.error(f"B_max is {scn.b_max:,}: every batch size would be too many rows; pass --points N")
    rows = frontier_records(scn, points)
    if args.format == "json":
        print(json.dumps(rows))
    else:
        fields = list(FRONTIER_FIELDS)
        if scn.params["tput"] == "gpu":  # added after the instance's column, which keeps its meaning
            fields.insert(fields.index("throughput_tok_s") + 1, "throughput_per_gpu_tok_s")
        writer = csv.DictWriter(sys.stdout, fieldnames=fields, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())


# slo's own options: each stands for a scenario option, which the URL and the page share, and has its range.
SLO_ALIASES = (
    ("--ttft-ms", "ttft", "MS", "TTFT target"),
    ("--tpot-ms", "tpot", "MS", "TPOT/ITL target"),
    ("--usd-per-gpu-hour", "price", "USD", "rental price per GPU-hour"),
    ("--power-fraction", "power", "F", "share of board power drawn"),
)
