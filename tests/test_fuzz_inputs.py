"""Property tests: random and extreme values at every CLI option and every URL parameter.

Each input either works or is refused with a message (exit 2 from the CLI, a notice on the page); none may
reach a traceback. The CLI runs in-process through `cli.main`, so an escaping exception fails the example
directly (test_cli.py runs the same program as a subprocess).
"""

from __future__ import annotations

import contextlib
import io
import json
import re

import plotly
import pytest
from hypothesis import HealthCheck, event, example, given, settings
from hypothesis import strategies as st

import app  # noqa: F401  (pages register on the app; it must exist first)
from inferx import cli
from inferx.figures.registry import FIGURES
from inferx.scenario.controls import BATCH, PARAMS, InvalidParameter, check_batch, check_param, check_value
from inferx.scenario.evaluation import Scenario
from inferx.scenario.machines import checked_context
from pages import embed, home
from pages._url import PINNED_KEY, parse_query

EXTREMES = [
    "1e308",
    "-1e308",
    "1e309",
    "nan",
    "NaN",
    "inf",
    "-inf",
    "Infinity",
    "-0.0",
    "0",
    "-1",
    "5e-324",
    str(10**400),
    "-" + str(10**400),
    "9" * 5000,  # past Python's 4,300-digit limit for int()
    "",
    " ",
    "0x10",
    "1_000",
    "1e3",
    "３",  # a full-width digit
    "ünïcødé",
    "\U0001f4a5",
    "fp8",
    "h200x8",
    "true",
    "None",
    "[1]",
    "8; rm -rf /",
    "%00",
]
NAMES = [*PARAMS, "batch"]

hostile_text = st.one_of(
    st.sampled_from(EXTREMES),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(min_value=-(10**420), max_value=10**420).map(str),
    st.text(max_size=30),
)


def valid_value(name: str) -> st.SearchStrategy[str]:
    """A value the parameter accepts, as text."""
    if name == "batch":
        return st.integers(1, 4096).map(str)
    p = PARAMS[name]
    if p.kind == "choice":
        return st.sampled_from(p.choices)
    if p.kind == "pow2":
        return st.sampled_from([1, 2, 4, 8, 16]).map(str)
    if p.kind == "int":
        return st.integers(int(p.low), int(p.high)).map(str)
    return st.floats(p.low, p.high).map(repr)


def option_value(name: str) -> st.SearchStrategy[str]:
    return st.one_of(hostile_text, valid_value(name))


# Some options with valid values, then none, one or a few of them (or others) given hostile values.
scenario_options = st.tuples(
    st.fixed_dictionaries({}, optional={name: valid_value(name) for name in NAMES}),
    st.dictionaries(st.sampled_from(NAMES), hostile_text, max_size=3),
).map(lambda both: {**both[0], **both[1]})


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(argv)
        except SystemExit as exit_:  # argparse's error() and --help
            code = exit_.code
    return code, out.getvalue(), err.getvalue()


def first_refusal(options: dict, points: str | None) -> str | None:
    """What the Python API says about the first bad value, in the CLI's order: the scenario (preset first),
    then the batch or the number of samples."""
    try:
        for name in PARAMS:
            if name in options:
                check_param(name, options[name])
        # Then the scenario as a whole: its machine within the controls' ranges, a --ctx given below the input.
        scenario = {name: value for name, value in options.items() if name in PARAMS}
        checked_context(Scenario.from_params(**scenario).params, "ctx" in options)
        if "batch" in options:
            check_batch(options["batch"])
        if points is not None:
            check_value("points", cli.POINTS, points)
    except InvalidParameter as err:
        return str(err)
    return None


# Words argparse reads before any value is checked: an unknown option, an option without its value, a stray
# word, or any text after "--" (which may abbreviate a real option: argparse accepts unambiguous prefixes).
extra_words = st.lists(
    st.one_of(
        st.sampled_from(["--bogus=1", "--bw", "stray", "--", "-x", "--format=xml"]), hostile_text.map("--{}".format)
    ),
    max_size=2,
)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    options=scenario_options,
    command=st.sampled_from(["point", "frontier"]),
    points=option_value("batch"),
    fmt=st.sampled_from(["csv", "json"]),
    extra=st.one_of(st.just([]), st.just([]), extra_words),
)
# A bad batch and a ctx below the input: the scenario is refused first.
@example(options={"batch": "0", "ctx": "100", "isl": "1024"}, command="point", points="8", fmt="json", extra=[])
def test_every_cli_option_takes_any_value_without_a_traceback(options, command, points, fmt, extra):
    options = dict(options)
    if command == "frontier":
        options.pop("batch", None)
    argv = [command, *(f"--{name}={value}" for name, value in options.items())]
    if command == "frontier":
        argv += [f"--points={points}", f"--format={fmt}"]  # sampled, so that a huge B_max stays quick
    else:
        points, fmt = None, "json"
    code, out, err = run_cli(argv + extra)
    event(f"exit {code}")
    assert code in (0, 2), (argv, code, err)
    if code == 0:
        if out.startswith("usage: "):  # "--he" abbreviates --help
            assert any(w.startswith("--he") for w in extra)
        elif fmt == "json":
            assert json.loads(out), (argv, out)
            assert all(line.startswith("inferx: note: ") for line in err.splitlines()), (argv, err)  # notes only
        else:
            fields = list(cli.FRONTIER_FIELDS)
            if options.get("tput") == "gpu":  # the per-GPU column beside the instance's
                fields.insert(fields.index("throughput_tok_s") + 1, "throughput_per_gpu_tok_s")
            assert out.splitlines()[0] == ",".join(fields) and len(out.splitlines()) > 1
        return
    # argparse's own errors (an unknown option) come from the top-level parser and quote the words raw.
    assert re.search(r"^inferx( point| frontier)?: (error: )?\S", err, re.MULTILINE), (argv, err)
    refusal = first_refusal(options, points)
    if refusal is not None and not extra:  # the CLI refuses a value in the Python API's words
        assert err.endswith(f"inferx {command}: error: {refusal}\ninferx {command} --help lists the options.\n"), (
            argv,
            err,
        )


any_valid = st.sampled_from(NAMES).flatmap(valid_value)
url_values = st.one_of(any_valid, hostile_text, st.lists(st.one_of(any_valid, hostile_text), min_size=2, max_size=4))
url_queries = st.dictionaries(
    st.one_of(st.sampled_from([*NAMES, "name"]), st.text(max_size=20)), url_values, max_size=12
)


@settings(max_examples=400, deadline=None)
@given(query=url_queries)
def test_every_url_parameter_takes_any_value_and_keeps_only_valid_ones(query):
    values, batch, notices = parse_query(query)
    assert set(values) == set(PARAMS)
    for name, value in values.items():
        assert check_param(name, value) == value, name  # every value kept is one the API accepts
    assert check_batch(batch) == batch
    assert all(isinstance(n, str) and len(n) < 400 for n in notices)
    for name, raw in query.items():
        last = raw[-1] if isinstance(raw, list) else raw
        if name in PARAMS:
            try:
                expected = check_param(name, last)
            except InvalidParameter as err:
                assert any(f"Ignored {err}." == n for n in notices) or len(notices) >= 8, (name, notices)
            else:
                if name == "preset":  # the shortcut names the machine drawn: "custom" for none of the article's
                    assert values[name] == expected or "custom" in (expected, values[name]), (expected, values[name])
                    continue
                # a context shorter than the input is drawn raised (`machines.fitted_context`)
                assert values[name] == (values["ctx"] if name == "ctx" and expected < values["isl"] else expected)
        if name == "batch":
            try:
                assert batch == check_batch(last)
            except InvalidParameter:
                assert batch == BATCH.default


def layout_text(component) -> str:
    return json.dumps(component, cls=plotly.utils.PlotlyJSONEncoder)


@settings(max_examples=25, deadline=None)
@given(query=url_queries, name=st.one_of(st.sampled_from([*FIGURES, "explorer"]), hostile_text))
def test_every_page_layout_takes_any_query(query, name):
    """The router calls layout(**query); every page answers with a layout, never an exception."""
    query = {k: v for k, v in query.items() if k != "name"}
    home_text = layout_text(home.layout(**query))
    embed_text = layout_text(embed.layout(name=name, **query))
    _, _, notices = parse_query({k: v for k, v in query.items() if k != PINNED_KEY})  # `a=` is A's (test_compare)
    for notice in notices:
        assert json.dumps(notice, cls=plotly.utils.PlotlyJSONEncoder)[1:-1] in home_text
    assert '"url-notice"' in home_text
    assert '"graph-wrap"' in embed_text or "No figure called" in embed_text


@pytest.mark.parametrize("text", ["1_000", "３", "١٢", "0x10", "1e", "inf", "nan", "1,5"])
def test_a_number_is_plain_decimal_text_only(text):
    # float() reads each of these; one address per value needs one spelling per number.
    with pytest.raises(InvalidParameter, match="must be a whole number from 1 to"):
        check_param("ctx", text)
    values, _, notices = parse_query({"ctx": text})
    assert values["ctx"] == parse_query({})[0]["ctx"] and notices[0].startswith("Ignored ctx=")


@pytest.mark.parametrize(("text", "value"), [(" 2048 ", 2048), ("2048.0", 2048), ("2.048e3", 2048), ("+4096", 4096)])
def test_plain_decimal_spellings_still_read(text, value):
    assert check_param("ctx", text) == value
