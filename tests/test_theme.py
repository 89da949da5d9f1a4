"""The pieces of the theme and embed work that need no browser: the address's theme, the embed's scenario line."""

from __future__ import annotations

import math

import pytest

import app  # noqa: F401 (pages register themselves on the app)
from inferx.scenario.machines import default_params, resolve_params
from pages._url import controls, log2_controls, parse_query
from pages.embed import follow_scenario, scenario_line


@pytest.mark.parametrize("theme", ["light", "dark", "auto"])
def test_theme_in_the_address_is_no_unknown_parameter(theme):
    values, _, notices = parse_query({"theme": theme, "preset": "b200x8"})
    assert notices == []
    assert values == default_params("b200x8")


def test_a_bad_theme_is_ignored_with_a_notice():
    values, _, notices = parse_query({"theme": "<b>blue</b>"})
    assert len(notices) == 1 and "theme=" in notices[0] and "light, dark, auto" in notices[0]
    assert values == default_params()


def test_scenario_line_names_machine_model_precisions_and_context_with_units():
    line = scenario_line(resolve_params({"gpu": "b200", "gpus": 4, "model": "kimi-k2", "kvdtype": "fp16", "ctx": 8192}))
    answer, machine, model, dtypes, context = line.split(" · ")
    assert answer.startswith("ideal (article physics")
    assert machine.startswith("4×B200, ") and machine.endswith(" TB/s")
    # The bandwidth is the machine's: four B200s at the catalog's per-GPU bandwidth.
    per_gpu = resolve_params({"gpu": "b200", "gpus": 1})["bw"]
    assert float(machine.split(", ")[1].removesuffix(" TB/s")) == pytest.approx(4 * per_gpu, abs=0.05)
    assert model == "Kimi-K2"
    assert dtypes == "FP8 weights, FP16 KV cache"
    assert context == "context 8,192 tokens, input 1,024 tokens"


def test_scenario_line_says_when_the_physics_is_calibrated_and_what_only_that_mode_reads():
    line = scenario_line(resolve_params({"mode": "calibrated", "framework": "trt", "osl": 8192}))
    assert line.startswith("expected (calibrated), TPOT ±"), line
    assert line.endswith(" · served by TensorRT-LLM, output 8,192 tokens"), line
    spec = scenario_line(resolve_params({"mode": "calibrated", "mtp": "on", "acceptance": 65}))
    assert spec.endswith(" · served by SGLang, output 1,024 tokens, MTP with α 65 %"), spec
    fitted = scenario_line(resolve_params({"mode": "calibrated", "mtp": "on"}))
    assert fitted.endswith(", MTP with α fitted"), fitted
    ideal = scenario_line(resolve_params({"framework": "trt", "mtp": "on"}))
    assert "calibrated" not in ideal and "served by" not in ideal and "MTP" not in ideal


def browser_values(params: dict) -> list:
    """Control values as the browser sends them: in callback order, log2 sliders as positions."""
    return [math.log2(params[n]) if n in log2_controls() and params[n] else params[n] for n in controls()]


def test_embed_scenario_line_follows_the_controls_sent_for_a_redraw():
    params = {**default_params("mi300x4"), "ctx": 32768, "bw": 10.0}
    line, title = follow_scenario({"values": browser_values(params), "batch": 3, "batchOnly": False})
    assert line == title == scenario_line(params)
    assert "context 32,768 tokens" in line and ", 10.0 TB/s" in line and "MI300X" in line


def bad_bandwidth() -> list:
    values = browser_values(default_params())
    values[controls().index("bw")] = -5.0  # the slider's position: 2^-5 TB/s, below its range
    return values


@pytest.mark.parametrize("request_", [None, {}, {"values": [1, 2]}, {"values": bad_bandwidth()}])
def test_embed_scenario_line_keeps_its_text_for_a_bad_request(request_):
    from dash import no_update

    assert follow_scenario(request_) == (no_update, no_update)
