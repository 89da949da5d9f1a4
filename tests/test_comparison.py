"""The numbers that decide between two scenarios (inferx.analysis.comparison), as the page's table and
`inferx compare` show them: each scenario's best batch under its own targets, under both models."""

from __future__ import annotations

import pytest

from inferx.analysis import comparison as C
from inferx.analysis import slo
from inferx.analysis.answers import expected_error
from inferx.scenario.evaluation import Scenario

A = Scenario.from_params(preset="mi300x4", ctx=8192)
B = Scenario.from_params(preset="b200x8", mode="calibrated")


@pytest.fixture(scope="module")
def record():
    return C.comparison(A, B)


def test_each_side_is_its_scenarios_goodput_under_both_models(record):
    for side, scn in (("a", A), ("b", B)):
        assert record[side]["scenario"] == scn.params
        for answer, mode in (("ideal", "article"), ("expected", "calibrated")):
            p = scn.params
            g = slo.goodput(scn.with_params(mode=mode), p["ttft"], p["tpot"], p["price"], p["power"])
            assert record[side][answer]["mode"] == mode
            assert record[side][answer]["batch"] == g["batch"]
            assert record[side][answer]["itl_ms"] == pytest.approx(g["itl_ms"])
        assert record[side]["expected"]["error"] == expected_error(scn.with_params(mode="calibrated"))
    # The scenario's own mode first, as every answer gives it.
    assert list(record["b"])[1:3] == ["expected", "ideal"] and list(record["a"])[1:3] == ["ideal", "expected"]


def test_rows_carry_label_unit_both_answers_and_the_measured_error(record):
    rows = C.comparison_rows(record)
    assert [r["key"] for r in rows] == [d.key for d in C.DECIDING]
    assert {"TPOT", "TTFT", "users at the SLO", "output throughput", "cost", "energy"} == {r["label"] for r in rows}
    units = {r["label"]: r["unit"] for r in rows}
    assert units["TPOT"] == units["TTFT"] == "ms" and units["output throughput"] == "tok/s per GPU"
    assert units["energy"] == "tok/J" and "$" in units["cost"]
    by_key = {r["key"]: r for r in rows}
    for side in C.SIDES:
        for answer in C.ANSWERS:
            block = record[side][answer]
            assert by_key["batch"][side][answer] == f"{block['batch']:,}"
            assert by_key["itl_ms"][side][answer] == f"{block['itl_ms']:,.1f}"
            assert by_key["throughput_per_gpu_tok_s"][side][answer] == f"{block['throughput_per_gpu_tok_s']:,.0f}"
        error = record[side]["expected"]["error"]
        for key, metric in (
            ("itl_ms", "tpot"),
            ("ttft_ms", "ttft"),
            ("throughput_per_gpu_tok_s", "throughput_per_gpu"),
        ):
            median, p90 = error[metric]
            assert by_key[key][side]["error"] == f"± {100 * median:.1f}\u00a0% (p90 {100 * p90:.0f}\u00a0%)"
        assert by_key["cost_per_mtok_usd"][side]["error"] == ""  # no table measures it: no error made up
        assert by_key["cost_per_mtok_usd"][side]["ideal"] != by_key["cost_per_mtok_usd"][side]["expected"]


def test_another_model_states_only_the_errors_measured_and_an_unmet_target_no_numbers():
    llama = Scenario.from_params(preset="h200x8", model="llama-3.3-70b")
    tight = Scenario.from_params(preset="h200x8", ttft=10, tpot=1, ctx=32768, isl=32768)  # 10 ms TTFT: none
    record = C.comparison(llama, tight)
    rows = {r["key"]: r for r in C.comparison_rows(record)}
    error = record["a"]["expected"]["error"]
    # Llama has been scored on the published maximum throughput and NIM's closed loop, not on InferenceX's E2E:
    # the table states each error where it applies and invents none for the others.
    measured = [key for key in C.ERROR_WORDS if error.get(key)]
    assert "throughput_per_gpu" in measured and "e2e" not in measured
    for row in C.DECIDING:
        has = row.error in measured
        assert (rows[row.key]["a"]["error"] != "") == has, row.key
    assert error["kind"] in C.error_basis(error)
    assert record["b"]["ideal"]["batch"] == 0
    assert all(r["b"]["ideal"] == C.NOT_MET and r["b"]["expected"] == C.NOT_MET for r in rows.values())
    assert "measured configuration" in C.error_basis(record["b"]["expected"]["error"])


def test_the_error_in_words_names_each_metric_measured_and_only_those():
    error = {"kind": "k", "basis": "b", "throughput_per_gpu": [0.0795, 0.1765]}
    assert C.error_said(error) == "output tok/s per GPU off by 8\u00a0% (median), 18\u00a0% (p90)"
    both = {**error, "tpot": [0.05, 0.2]}
    assert C.error_said(both).startswith("TPOT off by 5\u00a0% (median), 20\u00a0% (p90); output tok/s")
    assert C.error_said({"kind": "k", "note": "not fitted here"}) == "not fitted here"
    assert "no measured runs" in C.error_said({"kind": "k", "basis": "b", "rows": 0})
    assert C.error_basis({"kind": "k", "basis": "b", "rows": 0}).startswith("k: no measured runs")


@pytest.mark.parametrize("mode", ["article", "calibrated"])
def test_the_cli_table_of_another_model_on_both_sides_prints_its_rows_and_errors(mode):
    """`inferx compare` stopped on a KeyError whenever a side's expected error had no TPOT (any model but
    DeepSeek-R1: the transferable model is scored there on the published maximum throughput only)."""
    from inferx.cli.compare import comparison_table

    a = Scenario.from_params(model="llama-3.3-70b", mode=mode)
    b = Scenario.from_params(model="llama-3.3-70b", gpu="h200", mode=mode)
    record = C.comparison(a, b)
    lines = comparison_table(record).splitlines()
    last = list(k for k in record["b"] if k in C.ANSWERS)[-1]  # the scenario's own mode first
    for row, line in zip(C.comparison_rows(record), lines[2:], strict=False):
        assert line.startswith(f"{row['label']} ({row['unit']})") and line.split()[-1] == row["b"][last]
    for side in C.SIDES:
        error = record[side]["expected"]["error"]
        said = f"{side.upper()} expected: {error['kind']}; {C.error_said(error)}"
        assert said in lines and "off by" in said
