"""The hardware sliders (bandwidth, compute, HBM) on a log2 scale: a slider position and the value it stands for,
the widgets' props, and TP set by a GPU count chosen by hand."""

from __future__ import annotations

import math

import pytest
from conftest import slider_positions
from hypothesis import given, settings
from hypothesis import strategies as st

import app  # noqa: F401 (pages register themselves on the app)
from inferx.physics.gpu import MAX_GPUS
from inferx.physics.hardware import GPUS
from inferx.physics.presets import HARDWARE
from inferx.scenario.controls import (
    DTYPES,
    PARAMS,
    InvalidParameter,
    check_param,
    decimals,
    keyboard_step,
    slider_position,
    value_at,
)
from inferx.scenario.evaluation import Scenario
from inferx.scenario.machines import machine_values, preset_values, resolve_params
from pages import home
from pages._controls import _log2_marks, control, format_slider_value, ui_config
from pages._ids import control_id
from pages._url import control_values_to_params, controls, parse_query, value_from_position

QUANTITIES = ("bw", "compute", "hbm")

# Values an address may carry that lie on no slider's grid, the ends included.
ODD = {
    "bw": [1.0, 1.05, 3.35, 38.45, 123.456, 599.99, 600.0],
    "compute": [0.1, 0.123, 0.312, 12.345, 31.664, 999.99, 1000.0],
    "hbm": [80.0, 80.5, 141.0, 1128.5, 20999.0, 21000.0],
}


def test_the_hardware_sliders_are_log2_quantities():
    assert {n for n, p in PARAMS.items() if p.log2 and p.kind == "float"} == set(QUANTITIES)


@pytest.mark.parametrize("name", QUANTITIES)
def test_every_presets_value_comes_back_exactly_from_its_position(name):
    p = PARAMS[name]
    for key in HARDWARE:
        value = preset_values(key)[name]
        assert value_at(p, slider_position(p, value)) == value, (key, value)


@pytest.mark.parametrize("name", QUANTITIES)
def test_every_catalog_machine_comes_back_to_twelve_digits(name):
    """1 to 72 of every GPU at every weight dtype: the products (72 × 2.039 = 146.80800000000002) come back to
    12 significant digits, which the URL and the CLI accept."""
    p = PARAMS[name]
    for gpu in GPUS:
        for count in range(1, MAX_GPUS + 1):
            for wdtype in DTYPES:
                value = machine_values(gpu, count, wdtype)[name]
                if not p.low <= value <= p.high:
                    continue
                back = value_at(p, slider_position(p, value))
                assert back == float(f"{value:.12g}") and check_param(name, back) == back, (gpu, count, value)


@pytest.mark.parametrize(("name", "value"), [(n, v) for n in QUANTITIES for v in ODD[n]])
def test_an_odd_address_value_round_trips_through_the_page(name, value):
    """URL → the page's slider → the redraw's value → what the address writes: unchanged."""
    values, _, notices = parse_query({name: str(value)})
    assert not notices and values[name] == value
    page = ids_and_values(home.layout(**{name: str(value)}))
    position = page[control_id(name)]
    assert position == slider_position(PARAMS[name], value)
    sent = list(slider_positions(values).values())
    sent[controls().index(name)] = position
    assert control_values_to_params(sent)[name] == value


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(QUANTITIES), st.floats(0, 1))
def test_any_value_in_range_comes_back_from_its_position(name, share):
    p = PARAMS[name]
    value = float(f"{p.low * (p.high / p.low) ** share:.9g}")  # an address's value, up to 9 digits
    value = min(p.high, max(p.low, value))
    assert value_at(p, slider_position(p, value)) == value


@pytest.mark.parametrize("name", QUANTITIES)
def test_the_ends_are_hit_exactly_and_the_grid_is_monotone(name):
    p = PARAMS[name]
    low, high = slider_position(p, p.low), slider_position(p, p.high)
    assert value_at(p, low) == p.low and value_at(p, high) == p.high
    # Where a drag can put the thumb: the ends, and the step's multiples between them (rounded to the step's
    # decimals, as Radix and assets/inferx.js round them).
    inner = [round(k * p.step, 9) for k in range(math.ceil(low / p.step), math.floor(high / p.step) + 1)]
    grid = [low, *[pos for pos in inner if low < pos < high], high]
    values = [value_at(p, pos) for pos in grid]
    assert values == sorted(values) and all(p.low <= v <= p.high for v in values)
    # A dragged value is rounded as it is shown: no more digits than the label has.
    for v in values[1:-1]:
        assert v == round(v, decimals(p, v)), v


@pytest.mark.parametrize("name", QUANTITIES)
def test_each_arrow_key_moves_by_a_few_per_cent(name):
    """An arrow moves a fraction of a doubling (7-11 %), every press a new value, ten presses (PageUp) one or
    one and a half doublings; the old linear bandwidth slider moved 6 TB/s a press wherever it stood."""
    p = PARAMS[name]
    key = keyboard_step(p)
    assert 0.1 <= key <= 0.15 and (math.log2(p.high / p.low) / key) <= 100
    low, high = slider_position(p, p.low), slider_position(p, p.high)
    presses = [low, *[round(k * key, 9) for k in range(math.floor(low / key) + 1, math.ceil(high / key))], high]
    values = [value_at(p, pos) for pos in presses]
    ratios = [b / a for a, b in zip(values, values[1:], strict=False)]
    assert all(r > 1 for r in ratios), values  # every press changes the value
    assert all(r < 2**key * 1.03 for r in ratios[1:-1]), ratios  # about a fraction of a doubling each


def test_the_labels_show_the_declared_decimals_or_two_per_cent_of_the_value():
    assert format_slider_value("bw", 38.4) == "38.4 TB/s" and format_slider_value("bw", 3.35) == "3.35 TB/s"
    assert format_slider_value("bw", 1.07) == "1.07 TB/s" and format_slider_value("bw", 512.0) == "512.0 TB/s"
    assert format_slider_value("bw", 5.3) == "5.3 TB/s"  # 0.1 is under 2 % of 5.3
    assert format_slider_value("compute", 31.664) == "31.66 PFLOPS"
    assert format_slider_value("compute", 0.312) == "0.312 PFLOPS"
    assert format_slider_value("hbm", 1128.0) == "1,128 GB" and format_slider_value("hbm", 80.0) == "80 GB"
    assert format_slider_value("util", 87.0) == "87 %"  # a linear slider keeps its step's decimals
    # One of a counted thing is singular ("1 GPU"); PFLOPS is no plural.
    assert format_slider_value("gpus", 1) == "1 GPU" and format_slider_value("gpus", 2) == "2 GPUs"
    assert format_slider_value("compute", 1.0) == "1.00 PFLOPS"


def ids_and_values(layout) -> dict:
    return {c.id: getattr(c, "value", None) for c in layout._traverse() if isinstance(getattr(c, "id", None), str)}


def slider_of(name: str):
    box = control(name, resolve_params({})[name]).children[1]
    return box, box.children


@pytest.mark.parametrize("name", QUANTITIES)
def test_the_widget_is_a_log2_slider_with_readable_marks(name):
    p = PARAMS[name]
    box, slider = slider_of(name)
    assert (slider.min, slider.max, slider.step) == (math.log2(p.low), math.log2(p.high), p.step)
    assert slider.value == math.log2(preset_values("h200x8")[name])
    # The default 8×H200 sits in the middle third, not in the first few per cent as on a linear scale.
    assert 0.3 < (slider.value - slider.min) / (slider.max - slider.min) < 0.7
    marks = slider.marks
    texts = list(marks.values())
    assert all(slider.min <= float(k) <= slider.max for k in marks)
    assert list(marks) == sorted(marks) and len(texts) >= 5
    for key, text in marks.items():  # each mark names the value at its position: 1, 3, 10, 30, …, 1K
        number = float(text[:-1]) * 1000 if text.endswith("K") else float(text)
        decade = 10.0 ** math.floor(math.log10(number))
        assert number in (float(f"{decade:.12g}"), float(f"{3 * decade:.12g}")), text
        assert key == pytest.approx(math.log2(number), abs=1e-6)
    data = {k: v for k, v in box.to_plotly_json()["props"].items() if k.startswith("data-")}
    assert data["data-log2"] == "1" and data["data-whole"] == "0" and float(data["data-step"]) == p.step
    assert float(data["data-key-step"]) == keyboard_step(p) and data["data-unit"] == p.unit


def test_the_marks_of_each_hardware_slider():
    assert list(_log2_marks(PARAMS["bw"]).values()) == ["1", "3", "10", "30", "100", "300"]
    # Nine marks (0.1, 0.3, … 1K) ran together in a 200 px sidebar ("0.10.3", "100300"): decades only.
    assert list(_log2_marks(PARAMS["compute"]).values()) == ["0.1", "1", "10", "100", "1K"]
    assert list(_log2_marks(PARAMS["hbm"]).values()) == ["30", "100", "300", "1K", "3K", "10K"]
    # Lengths from 1 token to 128K: 17 doublings, every fourth marked.
    assert list(_log2_marks(PARAMS["ctx"]).values()) == ["1", "16", "256", "4K", "64K"]


def test_the_browser_config_carries_each_log2_sliders_step_and_kind():
    log2 = ui_config().data["log2"]
    assert log2 == {n: [p.step, int(p.kind == "int")] for n, p in PARAMS.items() if p.log2}
    assert {"bw", "compute", "hbm", "ctx", "isl", "osl"} <= set(log2)


@pytest.mark.parametrize("position", [-5.0, 9.3, 60.0, 1e300, float("nan"), "fast", [5]])
def test_a_position_no_bandwidth_slider_reaches_is_refused_by_name(position):
    refusal = r"^bw=.*slider position must be log₂ of the value, from -0\.737 to 9\.229"
    with pytest.raises(InvalidParameter, match=refusal):
        value_from_position("bw", position)


def test_a_position_comes_as_a_number_or_numeric_text():
    assert value_from_position("bw", 5) == value_from_position("bw", "5.0") == 32.0  # on the grid
    assert value_from_position("compute", math.log2(31.664)) == 31.664


# --- TP within the GPU count --------------------------------------------------------------------------------


@pytest.mark.parametrize(("gpus", "tp"), [(1, 1), (2, 2), (3, 2), (4, 4), (6, 4), (8, 8), (72, 64)])
def test_a_gpu_count_chosen_by_hand_sets_tp_to_fit(gpus, tp):
    """A count chosen by hand sets TP to the largest power of two within it, as every preset's TP is its count:
    one machine, one TP, whichever preset the count was chosen from."""
    assert resolve_params({"gpus": gpus})["tp"] == tp
    assert Scenario.from_params(gpus=gpus).tp == tp
    assert resolve_params({"preset": "mi300x4", "gpu": "h200", "gpus": gpus})["tp"] == tp


def test_tp_set_with_the_count_is_kept_and_tp_reaches_64():
    assert resolve_params({"gpus": 4, "tp": 16})["tp"] == 16  # a what-if: TP is the all-reduce's width
    assert Scenario.from_params(gpu="gb200", gpus=72, tp=64).tp == 64
    with pytest.raises(InvalidParameter, match=r"^tp=128: must be a power of two from 1 to 64 GPUs$"):
        check_param("tp", 128)
    values, _, notices = parse_query({"gpus": "2"})
    assert not notices and values["tp"] == 2
    assert parse_query({"preset": "mi300x4", "gpus": "72"})[0]["tp"] == 64


def test_the_tp_widget_offers_every_power_of_two_to_64():
    radio = control("tp", 8).children[1]
    assert [o["value"] for o in radio.options] == [1, 2, 4, 8, 16, 32, 64]
