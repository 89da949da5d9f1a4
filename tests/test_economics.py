"""Cost per million tokens and tokens per joule against hand-worked numbers."""

import numpy as np
import pytest

from inferx.analysis import economics as X
from inferx.figures import studies
from inferx.physics.hardware import GPUS, USD_PER_GPU_HOUR
from inferx.scenario.evaluation import Scenario
from inferx.serving import adapter
from inferx.serving import stored as C


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
    assert (e["gpu"], e["gpus"], e["usd_per_gpu_hour"]) == ("h200", 8, USD_PER_GPU_HOUR["h200"])
    assert e["usd_per_hour"] == pytest.approx(8 * 3.5)
    assert "assumed" in e["price_note"]
    np.testing.assert_allclose(e["cost_per_mtok"], [28 / 36, 28 / 180])
    np.testing.assert_allclose(e["throughput_per_usd_hour"], [10_000 / 28, 50_000 / 28])
    np.testing.assert_allclose(e["throughput_per_mw"], [10_000 / 5.6e-3, 50_000 / 5.6e-3])
    mi = X.along(Scenario.from_params(preset="mi300x4"), 10_000.0, usd_per_gpu_hour=2.0, power_fraction=0.8)
    # 4 × $2 = $8/h → 8 / 36 $/M tokens; 4 × 750 W × 0.8 = 2,400 W.
    assert float(mi["cost_per_mtok"]) == pytest.approx(8 / 36) and mi["price_note"] == "price given"
    assert float(mi["tokens_per_joule"]) == pytest.approx(10_000 / 2_400)


def test_unset_power_is_tdp_in_article_physics_and_the_draw_by_load_in_calibrated_mode():
    """8 × 700 W (H200): 5,600 W at TDP in article physics. In calibrated mode floor + slope × busy share of it,
    the busy share being the HBM and arithmetic time over the time per output token, by hand from the
    calibrated model's parts; a power given wins in both modes."""
    article = Scenario.from_params(preset="h200x8")
    calibrated = Scenario.from_params(preset="h200x8", mode="calibrated")
    assert article.params["power"] is None and calibrated.params["power"] is None
    assert float(X.along(article, 10_000.0, batch=64)["tokens_per_joule"]) == pytest.approx(10_000 / 5_600)
    B = np.array([1.0, 8.0, 64.0])
    memory, compute = adapter.scenario_resource_times(calibrated, B)
    point = adapter.scenario_point(calibrated, B)
    busy = (memory + compute) / (point["step"] + point["comm"])
    assert 0 < busy[0] < busy[1] < busy[2] < 1  # more of each token's time at work as the batch grows
    draw = C.load_stored().power
    e = X.along(calibrated, 10_000.0, batch=B)
    np.testing.assert_allclose(e["power_fraction"], draw.floor + draw.slope * busy)
    np.testing.assert_allclose(e["watts"], 5_600 * (draw.floor + draw.slope * busy))
    np.testing.assert_allclose(e["tokens_per_joule"], 10_000 / (5_600 * (draw.floor + draw.slope * busy)))
    for scn in (article, calibrated):
        assert X.along(scn, 10_000.0, power_fraction=0.8, batch=B)["watts"] == pytest.approx(4_480)


def test_the_draw_by_load_is_a_share_of_board_power():
    draw = C.PowerDraw(floor=0.4, slope=0.3)
    np.testing.assert_allclose(draw.fraction([0.0, 0.5, 1.0]), [0.4, 0.55, 0.7])
    assert C.PowerDraw(floor=0.9, slope=0.5).fraction(1.0) == 1.0  # never past board power


def test_frontier_economics_lines_up_with_the_engine():
    scn = Scenario.from_params()
    e = X.frontier_economics(scn, [1, 64, 1024])
    r = scn.evaluate([1, 64, 1024])
    np.testing.assert_allclose(e["throughput"], r["throughput"])
    np.testing.assert_allclose(e["cost_per_mtok"], 28 / (3600 * r["throughput"] / 1e6))


def test_every_catalog_gpu_has_an_assumed_price():
    assert set(USD_PER_GPU_HOUR) == set(GPUS)
    assert all(0 < p < 100 for p in USD_PER_GPU_HOUR.values())


@pytest.mark.parametrize("price", [0, -1, float("nan"), float("inf")])
def test_bad_price_is_refused(price):
    with pytest.raises(ValueError, match="usd_per_gpu_hour must be a positive finite number"):
        X.along(Scenario.from_params(), 1000.0, usd_per_gpu_hour=price)


def test_fig_economics_axes():
    scn = Scenario.from_params()
    fig = studies.fig_economics(scn, "cost")
    (trace,) = fig["data"]
    assert fig["layout"]["yaxis"]["title"]["text"] == "Cost ($ per million output tokens)"
    assert "assumed" in trace["name"]
    # x is interactivity 1/ITL: at B = 1 that is 1 / 2.186 ms ≈ 457 tok/s per user.
    assert max(trace["x"]) == pytest.approx(1 / scn.evaluate([1])["itl"][0], rel=1e-3)
    with pytest.raises(ValueError, match="y must be one of"):
        studies.fig_economics(scn, "per_banana")


def test_without_a_stored_draw_calibrated_mode_counts_tdp_and_a_missing_batch_is_refused(monkeypatch):
    """A calibration fitted on rows that report no power holds no draw: calibrated mode then divides by TDP, as
    the article does. With a draw, energy at no named batch would be at no load: refused, not NaN."""
    scn = Scenario.from_params(mode="calibrated")
    with pytest.raises(ValueError, match="needs the batch sizes"):
        X.along(scn, 1000.0)
    monkeypatch.setattr(X, "power_draw", lambda: None)
    assert X.along(scn, 1000.0)["watts"] == 8 * 700
