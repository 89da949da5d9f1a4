"""Where the time goes (inferx.figures.breakdown): the two bars under the explorer, ideal and expected, each split
into the parts of one output token's time, summing to the ITL the explorer's readouts state, the scenario's own
model on top, and a text alternative that names every part with its ms."""

from __future__ import annotations

import re

import pytest
from conftest import layout_text

from inferx import palette as P
from inferx.analysis.answers import ANSWER_OF_MODE
from inferx.analysis.breakdown import PARTS
from inferx.figures import beyond
from inferx.figures.both import _sig, readouts_in_both_modes
from inferx.figures.breakdown import BAR_NAMES, PART_NAMES, time_parts_figure
from inferx.scenario.evaluation import Scenario

SCENARIOS = [
    {},
    {"ctx": 8192},
    {"model": "llama-3.3-70b", "gpu": "h200", "gpus": 1, "ctx": 512},  # the article's arithmetic binds at B = 900
    {"preset": "mi300x4", "mtp": "on"},
    {"model": "gemma-3-27b", "gpu": "l40s", "gpus": 2, "tp": 2},
]
BATCHES = [1, 48, 900]
MODE_OF_ANSWER = {answer: mode for mode, answer in ANSWER_OF_MODE.items()}


def stacked(fig: dict) -> list[dict]:
    """The bars' parts: every trace but the article's overlapped strips."""
    return [t for t in fig["data"] if not t["meta"].get("overlapped")]


def row_sums(fig: dict) -> dict[str, float]:
    rows = fig["layout"]["yaxis"]["categoryarray"]
    return {row: sum(t["x"][k] for t in stacked(fig)) for k, row in enumerate(rows)}


def itl_ms(text: str) -> float:
    assert text.endswith(" ms"), text
    return float(text.removesuffix(" ms").replace(",", ""))


@pytest.mark.parametrize("mode", ["article", "calibrated"])
@pytest.mark.parametrize("params", SCENARIOS, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()) or "default")
def test_each_bar_sums_to_the_itl_the_explorers_readouts_state(mode, params):
    scn = Scenario.from_params(mode=mode, **params)
    for batch in BATCHES:
        fig, both = time_parts_figure(scn, batch), readouts_in_both_modes(scn, batch)
        sums = row_sums(fig)
        for name in ("ideal", "expected"):
            total = sums[BAR_NAMES[name]]
            # The readout's words to their three figures, and the number they round.
            assert _sig(total) == both[name]["itl"].removesuffix(" ms"), (name, batch, total, both[name]["itl"])
            assert total == pytest.approx(itl_ms(both[name]["itl"]), rel=5e-3)
            assert fig["layout"]["meta"]["totals"][name] == pytest.approx(total, rel=1e-5)
            own = scn.with_params(mode=MODE_OF_ANSWER[name])
            assert total == pytest.approx(1e3 * float(own.evaluate([batch])["itl"][0]), rel=1e-5)


@pytest.mark.parametrize("mode", ["article", "calibrated"])
def test_the_explorer_carries_the_bars_at_its_dots_batch_and_they_sum_to_its_itl(mode):
    scn = Scenario.from_params(mode=mode)
    for batch in (3, 200, 10**9):  # one past B_max is drawn at the explorer's last sample
        fig = beyond.explorer(scn, batch)
        dot_batch, dot_itl = fig["data"][1]["customdata"][0][:2]
        bars = fig["layout"]["meta"]["timeParts"]
        assert bars == time_parts_figure(scn, int(dot_batch)) and bars["layout"]["meta"]["batch"] == dot_batch
        first = BAR_NAMES[ANSWER_OF_MODE[mode]]
        # The readout's main ITL (the dot's customdata, 6 figures) is the first bar's total.
        assert row_sums(bars)[first] == pytest.approx(dot_itl, rel=1e-5)


@pytest.mark.parametrize(("mode", "first"), [("article", "ideal"), ("calibrated", "expected")])
def test_the_chosen_models_bar_comes_first_on_top(mode, first):
    fig = time_parts_figure(Scenario.from_params(mode=mode), 64)
    yaxis, meta = fig["layout"]["yaxis"], fig["layout"]["meta"]
    second = "expected" if first == "ideal" else "ideal"
    assert meta["order"] == [first, second]
    # Category 0 is the first; an axis running from 1 down to 0 draws it at the top.
    assert yaxis["categoryarray"] == [BAR_NAMES[first], BAR_NAMES[second]]
    assert yaxis["range"][0] > yaxis["range"][1] and not yaxis["autorange"]
    # Each bar named above its left end, the first's above the top bar.
    names = {a["name"]: a for a in fig["layout"]["annotations"]}
    assert (
        names[f"row-{first}"]["text"] == BAR_NAMES[first]
        and names[f"row-{first}"]["y"] < 0 < names[f"row-{second}"]["y"] < 1
    )
    assert [t["y"] for t in stacked(fig)] == [yaxis["categoryarray"]] * len(stacked(fig))
    totals = [a for a in fig["layout"]["annotations"] if a["name"].startswith("total-")]
    assert [a["name"] for a in totals] == [f"total-{first}", f"total-{second}"]
    summary = meta["summary"]
    assert summary.index(BAR_NAMES[first]) < summary.index(BAR_NAMES[second])


@pytest.mark.parametrize("mode", ["article", "calibrated"])
@pytest.mark.parametrize("params", SCENARIOS, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()) or "default")
def test_the_text_alternative_names_every_part_that_is_not_zero_with_its_ms(mode, params):
    scn = Scenario.from_params(mode=mode, **params)
    fig = time_parts_figure(scn, 48)
    summary = fig["layout"]["meta"]["summary"]
    assert "B = 48" in summary and "ms per output token" in summary
    sentences = {name: next(s for s in summary.split(". ") if s.startswith(bar)) for name, bar in BAR_NAMES.items()}
    rows = fig["layout"]["yaxis"]["categoryarray"]
    named = 0
    for trace in fig["data"]:
        for row, ms in zip(trace["y"], trace["x"], strict=True):
            name = next(n for n, bar in BAR_NAMES.items() if bar == row)
            words = PART_NAMES[trace["meta"]["part"]]
            words = words[0].lower() + words[1:] if words[1].islower() else words
            if ms == 0:
                assert not re.search(rf"\b{re.escape(words)} [\d.,]+ ms(?! overlapped)", sentences[name]), (row, words)
                continue
            said = f"{words} {_sig(ms)} ms" + (" overlapped" if trace["meta"].get("overlapped") else "")
            assert said in sentences[name], (said, sentences[name])
            named += 1
    assert named >= len(rows)  # every bar has a part
    for name, total in row_sums(fig).items():
        assert f"{name}: {_sig(total)} ms per output token" in summary
    assert "off by" in sentences["expected"] or "error not measured" in sentences["expected"]


def test_the_articles_overlapped_time_is_drawn_hatched_and_outside_the_sum():
    """Where HBM binds, the arithmetic runs under the reads; where arithmetic binds (a 70B model on one H200 at
    900 requests of 512 tokens), the reads run under it: either way a hatched strip from 0 that adds nothing."""
    for params, batch, hidden in (({}, 64, {"compute"}),
                                  ({"model": "llama-3.3-70b", "gpu": "h200", "gpus": 1, "ctx": 512}, 900,
                                   {"weights", "kv"})):  # fmt: skip
        fig = time_parts_figure(Scenario.from_params(**params), batch)
        strips = [t for t in fig["data"] if t["meta"].get("overlapped")]
        assert {t["meta"]["part"] for t in strips} == hidden
        for t in strips:
            assert t["y"] == [BAR_NAMES["ideal"]] and "base" in t  # over the stack, not in it
            assert t["marker"]["pattern"]["shape"] and t["marker"]["pattern"]["fgcolor"] == P.PART[t["meta"]["part"]]
            assert t["marker"]["color"].endswith(",0)")  # hollow: outlined and hatched only
            assert "adds 0 ms" in t["name"]
        ideal = next(a for a in fig["layout"]["annotations"] if a["name"] == "total-ideal")
        assert ideal["x"] == pytest.approx(row_sums(fig)[BAR_NAMES["ideal"]], rel=1e-5)
        # The roofline's other resource is the one hidden: none of its time is in the bar.
        for t in stacked(fig):
            if t["meta"]["part"] in hidden:
                assert t["x"][fig["layout"]["meta"]["order"].index("ideal")] == 0


def test_the_calibrated_step_hides_nothing():
    fig = time_parts_figure(Scenario.from_params(mode="calibrated"), 64)
    assert all(t["y"] == [BAR_NAMES["ideal"]] for t in fig["data"] if t["meta"].get("overlapped"))


def test_each_part_keeps_its_colour_and_units_are_on_the_axis():
    fig = time_parts_figure(Scenario.from_params(), 64)
    for trace in stacked(fig):
        assert trace["marker"]["color"] == P.PART[trace["meta"]["part"]]
        assert trace["type"] == "bar" and trace["orientation"] == "h"
    assert {t["meta"]["part"] for t in stacked(fig)} <= set(PARTS)
    assert fig["layout"]["xaxis"]["title"]["text"] == "Time per output token (ms)"
    assert fig["layout"]["barmode"] == "stack"
    ends = [a["text"] for a in fig["layout"]["annotations"] if a["name"].startswith("total-")]
    assert all(re.fullmatch(r"<b>[\d.,]+ ms</b>( ±\d+ %)?", e) for e in ends), ends
    assert "±" in ends[1]  # the expected's error beside its total


def test_a_scenario_that_cannot_run_says_why_instead_of_bars():
    scn = Scenario.from_params(gpu="h100", gpus=8)  # 640 GB for DeepSeek-R1's 671 GB of FP8 weights
    fig = time_parts_figure(scn, 8)
    assert fig["data"] == [] and scn.unfit_reason() in fig["layout"]["meta"]["summary"]
    assert beyond.explorer(scn, 8)["layout"]["meta"]["timeParts"] == fig


def test_the_explorer_card_on_the_dashboard_holds_the_bars_with_caption_and_text_alternative():
    import app  # noqa: F401  (the Dash app first: a page registers itself with it)
    from pages import home

    text = layout_text(home.layout())
    assert '"time-parts-graph"' in text and "Where the time goes" in text
    assert '"aria-describedby": "time-parts-text"' in text
    assert "Where an output token's time goes at B = " in text  # the text alternative, written in the layout
    assert "The bars split the inter-token latency" in text
