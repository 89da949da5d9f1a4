"""Targeted tests for deliberate mistakes, each tried on the source and seen to fail the fast suite.

Each mistake was applied to the code, `python -m pytest -m "not browser and not docker"` run, and the change
reverted. The first test named is the targeted one (hand-worked numbers, this file unless named); "reference"
is tests/test_reference_model.py, which compares with the scalar model in tests/reference.py over random
scenarios and also fails.

| Mistake                                                   | Caught by                                          |
|-----------------------------------------------------------|----------------------------------------------------|
| (1+CV²)/2 written as (1+CV)/2 (engine.queue_wait)         | test_engine::test_ttft_boxed_form_and_cv[0.5, 2],  |
|                                                           | test_figures::test_fig3_components_and_band,       |
|                                                           | reference (engine outputs, figures, inferx point)  |
| calibrated weight bytes ignore the weight dtype           | test_calibrated_weight_bytes_follow_the_weight_    |
| (calibrated_step or weight_bytes drops b_w)               | dtype[every preset]; reference                     |
| curves drawn to ρ = 1 instead of 0.99 (RHO_CURVE_END)     | test_curves_stop_at_rho_0_99, test_figures::test_  |
|                                                           | frontier_figures_match_the_reference; reference    |
| a log2 slider position rounded down, not to nearest       | test_a_slider_position_gives_the_nearest_whole_    |
| (ctx, isl and batch: tokens_from_position)                | count, test_slider_positions_worked_by_hand,       |
|                                                           | test_the_batch_slider_rounds_to_the_nearest_batch  |
| a bad `preset=` in the URL not reported                   | test_a_bad_preset_in_the_url_is_reported,          |
|                                                           | test_bad_preset_and_batch_open_the_notice_on_...   |
| `batch=0` accepted in the URL                             | test_a_bad_batch_in_the_url_is_reported_and_the_   |
|                                                           | default_kept[0], test_bad_preset_and_batch_open_...|
| `--batch 0` accepted by `inferx point`                    | test_batch_zero_is_refused_by_the_cli              |
| Figure 3's prefill taken from the context, not the input  | test_fig3_prefill_is_that_of_the_input_length,     |
|                                                           | test_figures::test_fig3_components_and_band;       |
|                                                           | reference                                          |
| Figure 8's current curve ignoring PP                      | test_fig8_current_curve_includes_pipeline_hops,    |
|                                                           | test_fig8_current_curve_at_one_request_worked_by_  |
|                                                           | hand; reference                                    |
| a preset missing from model.PRESET_FAMILY                 | test_every_preset_has_its_own_calibration,         |
| (mi300x4 or h200x8 removed), or its family's row missing  | test_calibrated_weight_bytes_follow_...; reference |
| from inferx/serving/calibration.json                      |                                                    |

The URL and CLI tests go through parse_query, the page layouts, the redraw callback and `python -m inferx`,
not the validation helpers behind them, so they hold whichever function does the checking.
"""

import json
import math
from pathlib import Path

import plotly
import pytest
from cli_checks import run_inferx
from conftest import figure_ids, post_redraw, slider_positions
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import PRESETS

import app as inferx_app
from inferx.figures import registry as figure_registry
from inferx.figures import style
from inferx.figures import variants as figures
from inferx.figures.article import ttft_parts
from inferx.physics.presets import HARDWARE
from inferx.scenario.evaluation import Scenario
from pages import embed, home
from pages._url import control_values_to_params, controls, parse_query

ROOT = Path(__file__).resolve().parents[1]
CALIBRATION = json.loads((ROOT / "inferx" / "serving" / "calibration.json").read_text())["parameters"]


def as_json(component) -> str:
    return json.dumps(component, cls=plotly.utils.PlotlyJSONEncoder)


# --- (2) and (9): the calibrated model reads the weight dtype and each preset's own calibration ---------


FAMILY = {"h200x8": "h200", "mi300x4": "mi300x", "b200x8": "b200"}  # each preset's GPU, from the article


@pytest.mark.parametrize("preset", sorted(HARDWARE))
def test_calibrated_weight_bytes_follow_the_weight_dtype(preset):
    # FP16 weights read one byte per parameter more than FP8 (both use the GPU's FP8 SGLang calibration). At
    # B = 1 a decode step reads the dense part plus 8 routed experts in each of 58 MoE layers, worked by hand:
    # 671e9 − 58·256·(3·7168·2048) + 58·8·(3·7168·2048) = 37,525,878,272 parameters; and each step carries
    # 1/OSL of a prefill, which reads all 671e9 (OSL = 1,024 when a scenario gives none).
    f_bw = CALIBRATION[f"{FAMILY[preset]}/sglang/fp8"]["bw_fraction"]
    bw = PRESETS[preset][0] * 1e12
    step = {
        w: float(Scenario.from_params(preset=preset, mode="calibrated", wdtype=w, ctx=2048, isl=2048).evaluate([1])[
            "t_step"][0])
        for w in ("fp16", "bf16", "fp8", "int8")
    }  # fmt: skip
    assert step["fp16"] - step["fp8"] == pytest.approx((37_525_878_272 + 671e9 / 1024) / (f_bw * bw), rel=1e-9)
    assert step["bf16"] == step["fp16"] and step["int8"] == step["fp8"]


def test_every_preset_has_its_own_calibration():
    assert {hw.family for hw in HARDWARE.values()} == set(FAMILY.values())
    for preset, family in FAMILY.items():
        own = CALIBRATION[f"{family}/sglang/fp8"]  # a preset's GPU without a fit of its own fails here
        scn = Scenario.from_params(preset=preset, mode="calibrated", ctx=1536, isl=1024)
        # A step never beats its GPU's own fixed overhead t_0, and TTFT carries its own per-request cost.
        assert float(scn.evaluate([1])["t_step"][0]) > own["step_overhead_s"]
        assert float(scn.evaluate([1])["ttft"][0]) > own["request_overhead_s"]


# --- (3): the drawn frontier stops at ρ = 0.99 ----------------------------------------------------------


@pytest.mark.parametrize(
    "params,b_max",
    [
        # B_max = ⌊η·headroom / (S·κ)⌋, κ = 61·576 B: ⌊0.87·97e9 / (1024·35,136)⌋ = ⌊2,345.5⌋.
        ({"preset": "mi300x4"}, 2345),
        # ⌊0.87·457e9 / (1024·35,136)⌋ = ⌊11,050.5⌋.
        ({"preset": "h200x8"}, 11050),
        ({"preset": "mi300x4", "ctx": 8192}, 293),  # ⌊293.2⌋
    ],
)
def test_curves_stop_at_rho_0_99(params, b_max):
    scn = Scenario.from_params(**params)
    assert scn.b_max == b_max
    end = b_max * 99 // 100  # the largest B with B/B_max ≤ 0.99
    figs = figure_registry.build(scn)
    assert figs["fig5"]["data"][-1]["customdata"][-1] == end
    assert figs["fig4"]["data"][0]["customdata"][-1] == end
    assert figs["fig9"]["data"][-1]["customdata"][-1] == end
    if end < 10_000:  # x keeps 4 significant figures
        assert figs["fig2"]["data"][0]["x"][-1] == end
        assert figs["fig3"]["data"][-1]["x"][-1] == end
    assert max(c[0] for c in figs["fig6"]["data"][0]["customdata"]) == end


# --- (4): log2 slider positions round to the nearest whole count ----------------------------------------


def params_at(**positions) -> dict:
    values = [None] * len(controls())
    for name, pos in positions.items():
        values[controls().index(name)] = pos
    return control_values_to_params(values)


@settings(max_examples=200, deadline=None)
@given(position=st.floats(7, 17), name=st.sampled_from(["ctx", "isl"]))
def test_a_slider_position_gives_the_nearest_whole_count(position, name):
    tokens = params_at(**{name: position})[name]
    assert abs(tokens - 2**position) <= 0.5


@pytest.mark.parametrize("position,tokens", [(9.7, 832), (12.3, 5043), (10.85, 1846)])  # 831.75, 5042.77, 1845.76
def test_slider_positions_worked_by_hand(position, tokens):
    assert params_at(ctx=position, isl=position) == {**params_at(), "ctx": tokens, "isl": tokens}


@pytest.fixture(scope="module")
def client():
    return inferx_app.server.test_client()


def redraw(client, values: dict, figs, batch_pos):
    request = {"values": [values[n] for n in controls()], "batch": batch_pos, "batchOnly": False}
    return post_redraw(client, request, figure_ids(figs)).get_json()["response"]


def test_the_batch_slider_rounds_to_the_nearest_batch(client):
    values, _, _ = parse_query({})
    values = slider_positions(values)  # log2 of 1,024 tokens, of 38.4 TB/s, …
    out = redraw(client, values, ["fig6"], batch_pos=6.5)  # 2^6.5 = 64·√2 = 90.51 requests
    dot = out["figure-updates"]["data"]["fig6"]["data"][1]
    assert dot["customdata"][0][0] == 91


# --- (5) and (6): a bad preset or batch in the address is reported; batch 0 is refused everywhere --------


@pytest.mark.parametrize("preset", ["tpu", "", "H200"])
def test_a_bad_preset_in_the_url_is_reported(preset):
    values, _, notices = parse_query({"preset": preset})
    assert values["preset"] == "h200x8"
    assert any("preset" in n and preset.lower() in n.lower() for n in notices), notices


def _notice_shown(layout_json: str, word: str) -> bool:
    """Whether the page's URL notice is open and names `word`."""
    data = json.loads(layout_json)
    stack = [data]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            props = node.get("props", {})
            if props.get("id") == "url-notice":
                return bool(props.get("is_open")) and word in json.dumps(props.get("children"))
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


@pytest.mark.parametrize("page", ["home", "embed"])
def test_bad_preset_and_batch_open_the_notice_on_every_page(page):
    layout = home.layout if page == "home" else (lambda **q: embed.layout(name="fig6", **q))
    assert _notice_shown(as_json(layout(preset="tpu")), "preset")
    assert _notice_shown(as_json(layout(batch="0")), "batch")
    assert not _notice_shown(as_json(layout(preset="mi300x4", batch="64")), "preset")


@pytest.mark.parametrize("batch", ["0", "-3", "0.5", "abc"])
def test_a_bad_batch_in_the_url_is_reported_and_the_default_kept(batch):
    _, value, notices = parse_query({"batch": batch})
    assert value == style.DEFAULT_BATCH
    assert any("batch" in n for n in notices), notices


@pytest.mark.parametrize("command", ["point"])
def test_batch_zero_is_refused_by_the_cli(command):
    out = run_inferx(command, "--batch", "0")
    assert out.returncode == 2 and "batch" in out.stderr and "Traceback" not in out.stderr
    assert out.stdout == ""


# --- (7): Figure 3's prefill is the input length's, not the context's -----------------------------------


def test_fig3_prefill_is_that_of_the_input_length():
    # 4×MI300X, S = 8,192, S_in = 300: t_prefill = (2·37e9·300 + 4·61·128·128·300²) / 10.456e15 = 2.1576 ms
    # (the context's 8,192 tokens would give 83.6 ms). At B = 1: ITL = t_step + t_AR
    # = (37e9 + 8,192·35,136)/21.2e12 + 122·(10 µs + ¾·7,168/450e9) = 1.75886 + 1.22146 ms = 2.98032 ms;
    # B_max = 293; TTFT = 2.15759 + ½·2.98032/(1 − 1/293) = 3.65286 ms.
    scn = Scenario.from_params(preset="mi300x4", ctx=8192, isl=300)
    prefill, queue, total = ttft_parts(scn)["data"]
    assert set(prefill["y"]) == {2.158}
    assert prefill["x"][0] == total["x"][0] == 1
    assert total["y"][0] == pytest.approx(3.65286, rel=6e-4)
    assert queue["y"][0] == pytest.approx(3.65286 - 2.15759, rel=2e-3)


# --- (8): Figure 8's current curve carries the pipeline stages ------------------------------------------


@pytest.mark.parametrize("pp", [2, 4, 8])
def test_fig8_current_curve_includes_pipeline_hops(pp):
    # TP 4 over InfiniBand (25 GB/s, α = 5 µs), FP8 activations of d_model = 7,168 bytes per request:
    # t_AR = 2·61·(α + ¾·B·7,168/25e9), t_PP = (m − 1)·(α + B·7,168/25e9).
    scn = Scenario.from_params(preset="b200x8", tp=4, pp=pp, ic="infiniband")
    fig = figures.communication(scn)
    current = fig["data"][-1]
    assert current["name"] == f"8×B200 (current): TP 4, PP {pp}, InfiniBand HDR200"
    for B, y in zip(current["x"], current["y"], strict=True):
        t_ar = 2 * 61 * (5e-6 + 0.75 * B * 7168 / 25e9)
        t_pp = (pp - 1) * (5e-6 + B * 7168 / 25e9)
        assert y == pytest.approx(1e3 * (t_ar + t_pp), rel=1.1e-3), B
    if pp == 4:  # the same configuration as the fixed reference curve: drawn as markers on the current one
        ref = next(t for t in fig["data"] if t["name"] == "TP 4 + PP 4, InfiniBand = current settings")
        on_current = dict(zip(current["x"], current["y"], strict=True))
        assert ref["mode"] == "markers" and [on_current[x] for x in ref["x"]] == ref["y"]


def test_fig8_current_curve_at_one_request_worked_by_hand():
    # t_AR(1) = 122·(5e-6 + 0.75·7,168/25e9) = 0.636235 ms; t_PP(1) at m = 4: 3·(5e-6 + 7,168/25e9) = 0.015860 ms.
    current = figures.communication(Scenario.from_params(preset="b200x8", tp=4, pp=4, ic="infiniband"))["data"][-1]
    assert current["x"][0] == 1
    assert current["y"][0] == pytest.approx(0.652095, rel=6e-4)
    assert not math.isclose(current["y"][0], 0.636235, rel_tol=1e-3)
