"""Cost per million tokens and tokens per joule against hand-worked numbers."""

import numpy as np
import pytest

from inferx import economics as X
from inferx.hardware import GPUS
from inferx.scenario import Scenario


def test_cost_per_million_tokens_by_hand():
    # 8 GPUs at $3.50/h = $28/h; 10,000 tok/s = 36 M tokens/h → $0.7778 per M tokens.
    assert X.cost_per_mtok(10_000, 3.5, 8) == pytest.approx(28 / 36)
    # Twice the throughput halves the cost.
    np.testing.assert_allclose(X.cost_per_mtok([10_000, 20_000], 3.5, 8), [28 / 36, 14 / 36])


def test_tokens_per_joule_by_hand():
    # 8 × 700 W = 5,600 W at full board power: 10,000 tok/s → 1.786 tok/J; at half the power, twice that.
    assert X.tokens_per_joule(10_000, 700, 8) == pytest.approx(10_000 / 5_600)
    assert X.tokens_per_joule(10_000, 700, 8, power_fraction=0.5) == pytest.approx(10_000 / 2_800)


def test_along_the_default_scenario_uses_the_presets_machine():
    scn = Scenario.from_params()  # 8×H200
    e = X.along(scn, np.array([10_000.0, 50_000.0]))
    assert (e["gpu"], e["gpus"], e["usd_per_gpu_hour"]) == ("h200", 8, X.USD_PER_GPU_HOUR["h200"])
    assert e["usd_per_hour"] == pytest.approx(8 * 3.5)
    assert "assumed" in e["price_note"]
    np.testing.assert_allclose(e["cost_per_mtok"], [28 / 36, 28 / 180])
    np.testing.assert_allclose(e["throughput_per_usd_hour"], [10_000 / 28, 50_000 / 28])
    np.testing.assert_allclose(e["throughput_per_mw"], [10_000 / 5.6e-3, 50_000 / 5.6e-3])
    mi = X.along(Scenario.from_params(preset="mi300x4"), 10_000.0, usd_per_gpu_hour=2.0, power_fraction=0.8)
    # 4 × $2 = $8/h → 8 / 36 $/M tokens; 4 × 750 W × 0.8 = 2,400 W.
    assert float(mi["cost_per_mtok"]) == pytest.approx(8 / 36) and mi["price_note"] == "price given"
    assert float(mi["tokens_per_joule"]) == pytest.approx(10_000 / 2_400)


def test_unset_power_is_tdp_in_article_physics_and_the_measured_draw_in_calibrated_mode():
    # 8 × 700 W (H200): 5,600 W at TDP; 0.51 of it, 2,856 W, in calibrated mode; a power given wins in both.
    article = Scenario.from_params(preset="h200x8")
    calibrated = Scenario.from_params(preset="h200x8", mode="calibrated")
    assert article.params["power"] is None and calibrated.params["power"] is None
    assert float(X.along(article, 10_000.0)["tokens_per_joule"]) == pytest.approx(10_000 / 5_600)
    e = X.along(calibrated, 10_000.0)
    assert (e["power_fraction"], e["watts"]) == (0.51, pytest.approx(2_856))
    assert float(e["tokens_per_joule"]) == pytest.approx(10_000 / 2_856)
    for scn in (article, calibrated):
        assert X.along(scn, 10_000.0, power_fraction=0.8)["watts"] == pytest.approx(4_480)
    given = Scenario.from_params(preset="h200x8", mode="calibrated", power=0.7)
    assert X.along(given, 10_000.0, power_fraction=given.params["power"])["watts"] == pytest.approx(3_920)


def test_frontier_economics_lines_up_with_the_engine():
    scn = Scenario.from_params()
    e = X.frontier_economics(scn, [1, 64, 1024])
    r = scn.evaluate([1, 64, 1024])
    np.testing.assert_allclose(e["throughput"], r["throughput"])
    np.testing.assert_allclose(e["cost_per_mtok"], 28 / (3600 * r["throughput"] / 1e6))


def test_every_catalog_gpu_has_an_assumed_price():
    assert set(X.USD_PER_GPU_HOUR) == set(GPUS)
    assert all(0 < p < 100 for p in X.USD_PER_GPU_HOUR.values())


@pytest.mark.parametrize("price", [0, -1, float("nan"), float("inf")])
def test_bad_price_is_refused(price):
    with pytest.raises(ValueError, match="usd_per_gpu_hour must be a positive finite number"):
        X.along(Scenario.from_params(), 1000.0, usd_per_gpu_hour=price)


def test_fig_economics_axes():
    scn = Scenario.from_params()
    fig = X.fig_economics(scn, "cost")
    (trace,) = fig["data"]
    assert fig["layout"]["yaxis"]["title"]["text"] == "Cost ($ per million output tokens)"
    assert "assumed" in trace["name"]
    # x is interactivity 1/ITL: at B = 1 that is 1 / 2.186 ms ≈ 457 tok/s per user.
    assert max(trace["x"]) == pytest.approx(1 / scn.evaluate([1])["itl"][0], rel=1e-3)
    with pytest.raises(ValueError, match="y must be one of"):
        X.fig_economics(scn, "per_banana")
