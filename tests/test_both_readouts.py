"""The explorer's readouts under both models (inferx.figures.both): the ideal beside the expected, the
scenario's own first, each expected value with the error of its metric, at the batch the dot is drawn at."""

from __future__ import annotations

import pytest

from inferx.analysis.answers import expected_error
from inferx.cli.records import point_record
from inferx.figures import beyond
from inferx.figures.both import ERROR_METRIC, READOUTS, _sig, readouts_in_both_modes
from inferx.scenario.evaluation import Scenario
from inferx.serving import transfer as T


@pytest.mark.parametrize(("mode", "order"), [("article", ["ideal", "expected"]), ("calibrated", ["expected", "ideal"])])
def test_the_scenarios_own_model_comes_first(mode, order):
    both = readouts_in_both_modes(Scenario.from_params(mode=mode), 32)
    assert both["order"] == order and both["first"] == order[0]
    assert set(both["ideal"]) == set(both["expected"]) == set(READOUTS)


@pytest.mark.parametrize("batch", [1, 32, 256])
def test_each_answer_is_the_one_inferx_point_gives(batch):
    """The same numbers as `inferx point`'s ideal and expected blocks, in the explorer's units."""
    scn = Scenario.from_params()
    both, record = readouts_in_both_modes(scn, batch), point_record(scn, batch)
    for name in ("ideal", "expected"):
        block = record[name]
        assert both[name]["throughput"] == f"{_sig(block['throughput_tok_s'])} tok/s"
        assert both[name]["itl"] == f"{_sig(block['itl_ms'])} ms"
        assert both[name]["cost"] == f"${_sig(block['cost_per_mtok_usd'])}"
        assert both[name]["energy"] == f"{_sig(block['tokens_per_joule'])} tok/J"
        ttft = block["ttft_ms"]
        assert both[name]["ttft"] == (f"{_sig(ttft)} ms" if ttft is not None else "— (queue grows)")
    # The article's bound is above what a stack is expected to reach.
    ideal = float(both["ideal"]["throughput"].split()[0].replace(",", ""))
    expected = float(both["expected"]["throughput"].split()[0].replace(",", ""))
    assert ideal > expected


def test_the_expected_carries_the_error_of_each_readouts_metric():
    scn = Scenario.from_params(mode="calibrated")
    both, error = readouts_in_both_modes(scn, 64), expected_error(scn)
    for key in READOUTS:
        if key not in ERROR_METRIC:
            assert both["error"][key] == ""  # ρ is the model's own ratio
            continue
        median, p90 = (round(100 * e) for e in error[ERROR_METRIC[key]])
        assert both["error"][key] == f"±{median} % (p90 {p90} %)"
    assert both["errorKind"] == error["kind"] and "measured" in both["error"]["basis"]


def test_a_model_nobody_measured_carries_the_held_out_models_error_where_it_was_measured():
    """A model held out of the transferable model's fit was scored on its maximum throughput (the offline tables)
    and, for Llama 3.3 70B under NIM, on TTFT: the readouts that follow throughput carry the first error, TTFT the
    second. (Gemma 3 27B: no source measured it; GPT-OSS 120B is fitted since the developer-guide table is.)"""
    both = readouts_in_both_modes(Scenario.from_params(model="gemma-3-27b"), 16)
    assert both["order"] == ["ideal", "expected"]
    assert both["errorKind"] == "model not measured"
    error = T.kind_error("model")
    median, p90 = (round(100 * e) for e in error["throughput_per_gpu"])
    for key in ("throughput", "cost", "energy"):
        assert both["error"][key] == f"±{median} % (p90 {p90} %)"
    median, p90 = (round(100 * e) for e in error["ttft"])
    assert both["error"]["ttft"] == f"±{median} % (p90 {p90} %)" and both["error"]["rho"] == ""


def test_a_scenario_that_cannot_run_has_no_answers():
    scn = Scenario.from_params(gpu="h100", gpus=8)  # 640 GB for DeepSeek-R1's 671 GB of FP8 weights
    assert scn.unfit_reason()
    assert readouts_in_both_modes(scn, 8) == {"batch": 8, "order": []}


@pytest.mark.parametrize("mode", ["article", "calibrated"])
def test_the_explorer_carries_them_at_the_dots_batch(mode):
    scn = Scenario.from_params(mode=mode)
    fig = beyond.explorer(scn, 48)
    dot_batch = int(fig["data"][1]["customdata"][0][0])
    assert fig["layout"]["meta"]["both"] == readouts_in_both_modes(scn, dot_batch)


def test_an_idle_machines_utilisation_is_not_written_as_zero():
    rho = readouts_in_both_modes(Scenario.from_params(), 1)["ideal"]["rho"]  # ρ = 1 / B_max, below 0.01
    assert float(rho) > 0 and rho != "0.00"


@pytest.mark.parametrize("gpu", ["h200", "mi355x", "b300"])
def test_the_scenario_line_says_which_answer_the_figures_give(gpu):
    """An embed's, an export's and a printout's line opens with the answer drawn: the ideal bound, or the
    expected value with its TPOT error and the kind of extrapolation it is."""
    from pages._url import scenario_line

    ideal = Scenario.from_params(gpu=gpu)
    assert scenario_line(ideal.params).startswith("ideal (article physics")
    expected = Scenario.from_params(gpu=gpu, mode="calibrated")
    line, error = scenario_line(expected.params), expected_error(expected)
    assert line.startswith("expected (calibrated), TPOT ±")
    assert f"±{round(100 * error['tpot'][0])} % (p90 {round(100 * error['tpot'][1])} %), {error['kind']}" in line
    assert line.count("·") == scenario_line(ideal.params).count("·") + 1  # plus the stack and the output length
