"""`inferx compare A B`: two scenarios, each given as the query string of a page's address, side by side on the
numbers that decide a choice, each under both models (ideal and expected)."""

from __future__ import annotations

import json
import sys
from urllib.parse import parse_qsl

from inferx.analysis.answers import ANSWER_MEANING
from inferx.analysis.comparison import SIDES, comparison, comparison_rows, error_said
from inferx.cli.records import rounded_json
from inferx.scenario.controls import PARAMS, InvalidParameter, check_param
from inferx.scenario.evaluation import Scenario
from inferx.scenario.machines import checked_context, layout_note, resolve_params


def scenario_from_query(query: str, name: str) -> Scenario:
    """A scenario from an address's query string (`preset=mi300x4&ctx=8192`), checked as the page checks it."""
    checked = {}
    for key, value in parse_qsl(query.lstrip("?"), keep_blank_values=True, strict_parsing=False):
        if key not in PARAMS:
            raise InvalidParameter(name, f"{key!r} is not a control (`inferx point --help` lists them)", query)
        checked[key] = check_param(key, value)
    values, note = checked_context(resolve_params(checked), "ctx" in checked)  # as the CLI's options are checked
    for said in (note, layout_note(values, expected=True)):  # both models' answers are given
        if said:
            print(f"inferx: note: {name}: {said}", file=sys.stderr)
    return Scenario.from_params(**values)


def comparison_table(record: dict) -> str:
    answers = [w for w in record["a"] if w in ANSWER_MEANING]
    columns = [(side, w) for side in SIDES for w in answers]
    rows = comparison_rows(record)
    width = max(len(f"{r['label']} ({r['unit']})") for r in rows) + 2
    head = " " * width + "".join(f"{side.upper() + ' ' + w:>14}" for side, w in columns)
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(f"{r['label'] + ' (' + r['unit'] + ')':{width}}" + "".join(f"{r[s][w]:>14}" for s, w in columns))
    for side in SIDES:
        error = record[side]["expected"]["error"]
        lines.append(f"{side.upper()} expected: {error['kind']}; {error_said(error)}")
    lines += [f"{w}: {ANSWER_MEANING[w]}." for w in answers]
    return "\n".join(lines)


def run(args) -> int:
    a, b = scenario_from_query(args.a, "A"), scenario_from_query(args.b, "B")
    for name, s in (("A", a), ("B", b)):
        if s.unfit_reason():
            raise InvalidParameter(name, s.unfit_reason())
    record = comparison(a, b)
    print(comparison_table(record) if args.format == "table" else json.dumps(rounded_json(record)))
    return 0


def add_compare_parser(sub) -> None:
    compare = sub.add_parser(
        "compare",
        help="two scenarios side by side under both models: users at the SLO, TPOT, TTFT, tok/s per GPU, $/Mtok, tok/J",
    )
    for side in ("a", "b"):
        compare.add_argument(
            side,
            metavar=side.upper(),
            help=f"scenario {side.upper()} as an address's query string, e.g. 'preset=mi300x4&ctx=8192' "
            "(the controls of `inferx point`; the TTFT and TPOT targets are `ttft` and `tpot`)",
        )
    compare.add_argument("--format", choices=("json", "table"), default="table", help="output (default table)")
