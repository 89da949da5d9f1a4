"""The targets-and-cost controls on the dashboard: the URL, the CLI, the figures beyond the article and the
explorer's readouts read them."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from inferx.analysis import economics, slo
from inferx.figures import beyond, export, registry
from inferx.scenario.controls import InvalidParameter
from inferx.scenario.evaluation import Scenario
from inferx.serving.adapter import scenario_calibration
from inferx.serving.stored import scenario_error
from pages._url import parse_query

ROOT = Path(__file__).resolve().parents[1]


def test_the_url_carries_the_targets_and_refuses_bad_ones():
    values, _, notices = parse_query({"ttft": "300", "tpot": "20", "price": "2.5", "power": "0.6"})
    assert (values["ttft"], values["tpot"], values["price"], values["power"]) == (300.0, 20.0, 2.5, 0.6)
    assert not notices
    values, _, notices = parse_query({"power": "1.5", "ttft": "-1"})
    assert values["power"] is None and values["ttft"] == 500.0  # refused: the default draw
    assert any("power=1.5" in n for n in notices) and any("ttft=-1" in n for n in notices)
    with pytest.raises(InvalidParameter, match="tpot=0"):
        Scenario.from_params(tpot=0)


def test_the_price_defaults_to_the_gpus_assumed_rate_and_a_given_one_wins():
    scn = Scenario.from_params()  # 8 × H200, assumed $3.50 per GPU-hour, 700 W each
    meta = beyond.readouts(scn, 64)
    assert meta["usdPerHour"] == pytest.approx(8 * 3.50) and meta["watts"] == pytest.approx(8 * 700)
    assert "assumed" in meta["priceNote"]
    meta = beyond.readouts(scn.with_params(price=2.0, power=0.5), 64)
    assert meta["usdPerHour"] == pytest.approx(16.0) and meta["watts"] == pytest.approx(2800)
    assert "given" in meta["priceNote"]
    # "assumed" is the price's unset word in the URL and the CLI; a price of 0 is refused, not read as unset.
    values, _, notices = parse_query({"price": "assumed"})
    assert values["price"] is None and not notices
    assert beyond.readouts(Scenario.from_params(price="assumed"), 64)["usdPerHour"] == pytest.approx(8 * 3.50)
    values, _, notices = parse_query({"price": "0"})
    assert values["price"] is None and any("price=0" in n and "or assumed" in n for n in notices)


def test_goodput_follows_the_targets_and_prices_by_hand():
    scn = Scenario.from_params(price=2.0)
    g = beyond.goodput(scn)
    b = g["batch"]
    r = scn.evaluate([b, b + 1])
    # B meets both default targets (500 ms, 50 ms) and B + 1 misses one.
    assert r["ttft"][0] <= 0.5 and r["itl"][0] <= 0.05
    assert r["ttft"][1] > 0.5 or r["itl"][1] > 0.05
    # $2/GPU-h × 8 GPUs = $16/h over T tok/s × 3600 s/h, per million tokens.
    assert g["cost_per_mtok_usd"] == pytest.approx(16 * 1e6 / (3600 * r["throughput"][0]), rel=1e-9)
    tighter = beyond.goodput(scn.with_params(ttft=200))
    assert 0 < tighter["batch"] < b
    assert "B = " in beyond.goodput_text(scn) and f"{b:,}" in beyond.goodput_text(scn)
    assert beyond.goodput_text(scn.with_params(tpot=1)).startswith(
        "Under TTFT ≤ 500 ms and TPOT ≤ 1 ms, ideal (article physics, the bound): no batch size meets them: B = 1"
    )


@pytest.mark.parametrize("mode", ["article", "calibrated"])
def test_the_goodput_line_gives_the_ideal_and_the_expected_answer_its_own_modes_first(mode):
    scn = Scenario.from_params(mode=mode)
    ideal, expected = (beyond.goodput(scn.with_params(mode=m)) for m in ("article", "calibrated"))
    assert ideal["batch"] > expected["batch"] > 0  # the article's physics is the bound
    text = beyond.goodput_text(scn)
    ideal_at = text.lower().index(f"ideal (article physics, the bound): up to b = {ideal['batch']:,},")
    expected_at = text.lower().index(f"at p90 on its measured runs): up to b = {expected['batch']:,},")
    assert (ideal_at < expected_at) == (mode == "article")
    # The expected answer says how far the calibrated model has been from this calibration's runs.
    median, p90 = scenario_error(scenario_calibration(scn.with_params(mode="calibrated")))["tpot"]
    assert f"TPOT off by {round(100 * median)} % at the median, {round(100 * p90)} % at p90" in text


def test_the_regimes_figure_shades_what_meets_the_slo_and_stars_the_best():
    scn = Scenario.from_params(ttft=300)
    fig = registry.build(scn, ["fig10"], 64)["fig10"]
    band = fig["data"][0]
    assert band["name"].startswith("meets TTFT ≤ 300 ms")
    r = scn.evaluate(np.array([1, slo.largest_batch(scn, 300, 50)]))
    assert max(band["y"]) <= 300 * (1 + 1e-3)  # four significant figures
    star = fig["data"][-1]
    g = slo.goodput(scn, 300, 50)
    assert star["name"] == f"best under the SLO: B = {g['batch']:,}"
    assert star["x"][0] == pytest.approx(r["throughput"][1], rel=1e-3)
    assert any(s.get("y0") == 300 for s in fig["layout"]["shapes"])


def test_the_regimes_figure_says_in_its_legend_when_no_batch_size_meets_the_slo():
    """A TTFT target under the whole curve left only the target line: nothing said that no batch meets it."""
    scn = Scenario.from_params(ttft=10, isl=8192)  # under the prefill of one 8,192-token prompt (29 ms)
    assert slo.goodput(scn, 10, 50)["batch"] == 0
    fig = registry.build(scn, ["fig10"], 64)["fig10"]
    first = fig["data"][0]
    assert first["name"] == "no batch size meets TTFT ≤ 10 ms and TPOT ≤ 50 ms"
    assert first["x"] == first["y"] == [None]  # no point, yet one entry: plotly lists no empty trace
    assert not any(t["name"].startswith(("meets", "best")) for t in fig["data"])
    assert " no batch size meets TTFT ≤ 10 ms and TPOT ≤ 50 ms. " in fig["layout"]["meta"]["summary"]
    # A file gives it as a note, not as a row with no numbers.
    assert "no batch size meets TTFT ≤ 10 ms and TPOT ≤ 50 ms" in export.figure_record("fig10", fig)["notes"]
    assert "no batch size" not in export.figure_csv(fig)
    met = registry.build(Scenario.from_params(), ["fig10"], 64)["fig10"]
    assert not any("no batch size" in t["name"] for t in met["data"])


def test_the_explorer_carries_the_regime_sentence_at_its_batch():
    fig = registry.build(Scenario.from_params(), ["fig6"], 64)["fig6"]
    assert fig["layout"]["meta"]["regime"].startswith("At B = 64 this machine is ")


def test_the_beyond_figures_are_registered_and_embeddable():
    names = {f.name for f in registry.FIGURES.values() if f.number > registry.ARTICLE_FIGURES}
    assert {"regimes", "economics", "rate", "speculative", "moe-coverage"} <= names
    for name in names:
        assert registry.by_name(name).number > registry.ARTICLE_FIGURES


def test_inferx_slo_reads_the_scenario_targets():
    def run(*args):
        out = subprocess.run(
            [sys.executable, "-m", "inferx", "slo", *args], cwd=ROOT, capture_output=True, text=True, timeout=120
        )
        return json.loads(out.stdout)

    default, tight = run(), run("--ttft", "200")
    assert default["ttft_target_ms"] == 500 and tight["ttft_target_ms"] == 200
    assert tight["batch"] < default["batch"]
    both = run("--ttft", "200", "--ttft-ms", "400", "--price", "1", "--usd-per-gpu-hour", "2")
    assert both["ttft_target_ms"] == 400 and both["usd_per_gpu_hour"] == 2  # the command's own option wins
    assert both["scenario"]["ttft"] == 400 and both["scenario"]["price"] == 2  # and the scenario says so


def test_the_cost_figure_stars_the_slo_point_at_its_hand_worked_cost():
    scn = Scenario.from_params(price=2.0)
    fig = registry.build(scn, ["fig11"])["fig11"]
    curve, star = fig["data"][0], fig["data"][-1]
    assert "(given price)" in curve["name"] and "$2.00/GPU-h" in curve["name"]
    assert curve["hovertemplate"].endswith(f"<extra>{curve['name']}</extra>")  # the hover names it as given too
    b = slo.largest_batch(scn)
    r = scn.evaluate([b])
    assert star["x"][0] == pytest.approx(1 / r["itl"][0], rel=1e-3)  # tok/s per user
    assert star["y"][0] == pytest.approx(8 * 2.0 * 1e6 / (3600 * r["throughput"][0]), rel=1e-3)


@pytest.mark.parametrize("mode", ["article", "calibrated"])
def test_the_explorer_carries_the_watts_drawn_at_every_sample(mode):
    """The browser reads the energy at the dot as its throughput over the watts its sample carries (a fifth
    customdata column): TDP × GPUs in article physics, the draw by load in calibrated mode, growing with B."""
    scn = Scenario.from_params(mode=mode)
    fig = registry.build(scn, ["fig6"], 64)["fig6"]
    line, dot = fig["data"]
    batch = np.array([row[0] for row in line["customdata"]])
    watts = np.array([row[4] for row in line["customdata"]])
    expected = np.broadcast_to(economics.along(scn, 1.0, None, None, batch)["watts"], batch.shape)
    np.testing.assert_allclose(watts, expected, rtol=1e-5)
    if mode == "article":
        assert (watts == 8 * 700).all()
    else:
        assert 8 * 700 * 0.37 < watts[0] < watts[-1] < 8 * 700 and (np.diff(watts) >= 0).all()
    assert dot["customdata"][0][4] == next(r[4] for r in line["customdata"] if r[0] == 64)
    assert fig["layout"]["meta"]["watts"] == pytest.approx(float(economics.along(scn, 1.0, None, None, 64)["watts"]))


def test_the_explorer_names_the_binding_limit_of_every_sample():
    """Every frontier sample carries an index into meta.regimes; past ρ = 0.95 the KV cache binds, between 0.85
    and 0.95 the queue (the definitions in inferx.regimes' docstring), and the dot wears its sample's colour."""
    fig = registry.build(Scenario.from_params(), ["fig6"], 64)["fig6"]
    line, dot = fig["data"]
    meta = fig["layout"]["meta"]
    keys = [meta["regimes"][row[3]]["key"] for row in line["customdata"]]
    rho = np.array([row[2] for row in line["customdata"]])
    assert {k for k, r in zip(keys, rho, strict=True) if r >= 0.95} == {"kv_capacity"}
    assert {k for k, r in zip(keys, rho, strict=True) if 0.86 < r < 0.94} == {"queue"}
    assert meta["rhoUnstable"] == 0.85
    row = next(r for r in line["customdata"] if r[0] == 64)
    assert dot["customdata"][0] == row
    assert dot["marker"]["color"] == meta["regimes"][row[3]]["colour"]
    # One meaning per colour: Figure 10 draws each limit in the colour the explorer gives it.
    fig10 = registry.build(Scenario.from_params(), ["fig10"], 64)["fig10"]
    by_label = {t["name"]: t["line"]["color"] for t in fig10["data"] if t.get("mode") == "lines" and "line" in t}
    shared = [r for r in meta["regimes"] if r["label"] in by_label]
    assert len(shared) >= 3  # communication, compute, queue and KV capacity bind along the default frontier
    assert all(by_label[r["label"]] == r["colour"] for r in shared)


def test_figure_14_labels_its_crosses_on_arrows_pointing_apart():
    scn = Scenario.from_params()
    fig = beyond.spec_batch(scn)
    crosses = [t for t in fig["data"] if t["mode"] == "markers"]
    labels = [a for a in fig["layout"]["annotations"] if a["text"].startswith("B = ")]
    assert len(crosses) == len(labels) >= 2 and not any("text" in t for t in fig["data"])
    # Each label names its cross's batch and points at it (log axes: annotations sit at log10 of the value).
    for t, a in zip(sorted(crosses, key=lambda t: t["x"][0]), labels, strict=True):
        assert a["text"] == f"B = {round(t['x'][0]):,}"
        assert a["x"] == pytest.approx(np.log10(t["x"][0])) and a["showarrow"]
    # Two crosses a few hundred requests apart: their labels hang on opposite sides.
    assert labels[0]["ax"] * labels[1]["ax"] < 0 and labels[0]["ay"] * labels[1]["ay"] < 0


def test_the_goodput_line_gives_throughput_to_three_significant_figures():
    scn = Scenario.from_params()
    text = beyond.goodput_text(scn)
    g = slo.goodput(scn, 500, 50)
    # "…, up to B = 10,562, 241 k tok/s (30.1 k tok/s per GPU), …"
    ideal = text.split(f"B = {g['batch']:,}, ")[1].split(". ")[0]  # the first answer, the scenario's own
    total, per_gpu = (part.split(" tok/s")[0] for part in ideal.split("(")[:2])
    for shown, exact in ((total, g["throughput_tok_s"]), (per_gpu, g["throughput_per_gpu_tok_s"])):
        number, prefix = shown.split(" ")
        assert prefix == "k" and len(number.replace(".", "")) == 3, text
        assert float(number) * 1e3 == pytest.approx(exact, rel=5e-3)
