"""Accessibility that needs no browser: keyboard steps of the sliders, and the figures' text alternatives."""

from __future__ import annotations

import math

import pytest

from inferx.figures import registry
from inferx.figures.text import summary
from inferx.scenario.controls import KEY_PRESSES, PARAMS, check_param, keyboard_step, value_at
from inferx.scenario.evaluation import Scenario
from inferx.text import number
from pages._controls import sliders


@pytest.mark.parametrize("name", sliders())
def test_keyboard_steps_cross_each_slider_in_at_most_a_hundred_presses(name):
    p = PARAMS[name]
    key = keyboard_step(p)
    low, high = (math.log2(p.low), math.log2(p.high)) if p.log2 else (p.low, p.high)
    assert math.ceil((high - low) / key - 1e-9) <= KEY_PRESSES, (name, key)
    assert math.ceil((high - low) / (10 * key) - 1e-9) <= KEY_PRESSES // 10  # PageUp/PageDown
    ratio = key / p.step
    assert ratio >= 1 and abs(ratio - round(ratio)) < 1e-9, f"{name}: a key step must be whole drag steps"
    # Every position a key lands on (multiples of the key step, clamped to the ends) is a value the URL accepts.
    positions = {low, high} | {k * key for k in range(math.ceil(low / key), math.floor(high / key) + 1)}
    for pos in positions:
        check_param(name, value_at(p, pos))


def test_a_finer_drag_step_is_kept():
    # price: 0.05 $/GPU-h per drag step, but 0.5 per key (not 1,000 presses); compute: a hundredth of a
    # doubling per drag step, 0.15 of one per key (not 1,329 presses).
    assert keyboard_step(PARAMS["price"]) == 0.5 and PARAMS["price"].step == 0.05
    assert keyboard_step(PARAMS["compute"]) == 0.15 and PARAMS["compute"].step == 0.01
    # Bandwidth and HBM span under ten doublings, so a key moves a tenth of one (7 %), not 0.15 (11 %).
    assert keyboard_step(PARAMS["bw"]) == keyboard_step(PARAMS["hbm"]) == 0.1


@pytest.mark.parametrize(
    ("value", "text"),
    [(3120.4, "3,120"), (241023.0, "241,000"), (41.23, "41.2"), (0.08341, "0.0834"), (1.0, "1"), (0, "0")],
)
def test_numbers_in_a_text_alternative_have_three_significant_figures(value, text):
    assert number(value) == text


def test_every_figure_carries_a_text_alternative_of_its_current_numbers():
    figs = registry.build(Scenario.from_params(), batch=64)
    for key, fig in figs.items():
        text = fig["layout"]["meta"]["summary"]
        assert text.startswith(registry.FIGURES[key].title), key
        named = [t for t in fig["data"] if t.get("name") and t.get("x") and t.get("visible", True) is True]
        first = named[0]
        # The first trace's first point, as the text must state it, read from the figure itself.
        assert f"{number(first['y'][0])}" in text and f"{number(first['x'][0])}" in text, (key, text)
    assert {"usdPerHour", "watts", "summary"} <= set(figs["fig6"]["layout"]["meta"])  # the builder's meta kept


@pytest.mark.parametrize(
    ("value", "unit", "text"),
    [
        (1, "concurrent requests", "1 concurrent request"),
        (2, "concurrent requests", "2 concurrent requests"),
        (1, "GPUs", "1 GPU"),
        (1, "tokens per step", "1 token per step"),
        (4096, "tokens per step", "4,096 tokens per step"),  # a count is said exactly, not as 4,100
        (11049, "concurrent requests", "11,049 concurrent requests"),
        (12345, "tok/s", "12,300 tok/s"),  # a rate keeps three significant figures
        (1, "PFLOPS", "1 PFLOPS"),
        (1, "tok/s", "1 tok/s"),
        (1, "ms", "1 ms"),
        (17.04, "$ per million output tokens", "$17.0 per million output tokens"),
        (87, "%", "87 %"),
        (457, "tok/s per user = 1000 / TPOT ms", "457 tok/s per user"),  # a unit's definition is not its name
    ],
)
def test_a_number_is_said_in_its_unit_as_a_sentence_says_it(value, unit, text):
    trace = {"name": "T", "x": [value], "y": [value]}
    axes = {axis: {"title": {"text": f"Q ({unit})"}} for axis in ("xaxis", "yaxis")}
    assert summary("F", {"layout": axes, "data": [trace]}).endswith(f"T: {text} at {text}.")


def test_the_text_alternative_follows_the_settings():
    slow = registry.build(Scenario.from_params(bw=5), ["fig4"], 64)["fig4"]
    fast = registry.build(Scenario.from_params(bw=50), ["fig4"], 64)["fig4"]
    assert slow["layout"]["meta"]["summary"] != fast["layout"]["meta"]["summary"]


def test_a_figure_with_nothing_drawn_says_so_and_why():
    empty = {"layout": {"xaxis": {"title": {"text": "Batch (requests)"}}}, "data": []}
    assert "Nothing is drawn" in summary("Figure 0 · Empty", empty)
    empty["layout"]["annotations"] = [{"text": "No curve: needs 1,342 GB<br><span>of weights</span>"}]
    said = summary("Figure 0 · Empty", empty)
    assert said.endswith("Nothing is drawn for these settings. No curve: needs 1,342 GB of weights."), said


def test_a_band_is_said_once_and_a_longer_summary_can_be_asked_for():
    line = {"name": "curve", "x": [1, 2], "y": [1, 2]}
    low = {"name": "band", "x": [1, 2], "y": [0.5, 1], "meta": {"band": "low"}, "showlegend": False}
    high = {"name": "band", "x": [1, 2], "y": [2, 4], "meta": {"band": "high"}}
    said = summary("F", {"layout": {}, "data": [line, low, high]})
    assert said.count("band:") == 1 and "from 2 at 1 to 4 at 2" in said
    many = {"layout": {}, "data": [{**line, "name": f"c{i}"} for i in range(10)]}
    assert summary("F", many).endswith("And 4 more traces.")
    assert "c9: " in summary("F", many, max_traces=10) and "more traces" not in summary("F", many, max_traces=10)
