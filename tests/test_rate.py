"""Request rate ↔ concurrency: Little's law by hand, and the rate figure."""

import numpy as np
import pytest
from reference import Reference

from inferx.analysis import rate
from inferx.figures import studies
from inferx.scenario.evaluation import Scenario

# DeepSeek R1, 8×H200 preset at FP8, S = S_in = 1024, TP = 1, CV = 0: end-to-end latency of a request with
# `osl` output tokens at batch B, from the plain-Python reference model (tests/reference.py).
HAND = Reference(tp=1)


def hand_e2e(B, osl=1024):
    point = HAND.point(B)
    return point["ttft"] + osl * point["itl"]


def test_littles_law_by_hand():
    # 64 clients whose requests take 20 s end to end complete 3.2 requests per second, and back.
    assert rate.little_rate(64, 20.0) == pytest.approx(3.2)
    assert rate.little_concurrency(3.2, 20.0) == pytest.approx(64)
    np.testing.assert_allclose(rate.little_rate([8, 16], [4.0, 4.0]), [2.0, 4.0])


@pytest.fixture(scope="module")
def tp1():
    return Scenario.from_params(tp=1)


def test_rate_at_a_fixed_concurrency_by_hand(tp1):
    # C = 64: ITL = 1.0235 ms (memory-bound), E2E = TTFT + 1,024·ITL ≈ 1.05 s → λ ≈ 61 req/s.
    e2e = hand_e2e(64)
    c = rate.rate_curve(tp1, 1024, [1, 8, 64])
    assert c["rate"][-1] == pytest.approx(64 / e2e, rel=1e-9)
    assert c["e2e"][-1] == pytest.approx(e2e, rel=1e-9)
    assert 60 < 64 / e2e < 62
    # Fewer output tokens, shorter requests, more of them per second.
    assert rate.rate_curve(tp1, 128, [64])["rate"][0] == pytest.approx(64 / hand_e2e(64, osl=128))


def test_curve_stops_at_the_peak_rate(tp1):
    c = rate.rate_curve(tp1)
    assert np.all(np.diff(c["rate"]) > 0)  # the rising branch only
    # The peak is the largest λ = B / E2E(B) over every stable batch size.
    B = np.arange(1, tp1.b_max)
    r = tp1.evaluate(B)
    every = B / (r["ttft"] + 1024 * r["itl"])
    assert c["peak_rate"] <= every.max() and c["peak_rate"] == pytest.approx(every.max(), rel=1e-3)
    assert c["peak_batch"] < tp1.b_max


def test_concurrency_at_rate_inverts_littles_law(tp1):
    e2e = hand_e2e(64)
    assert rate.concurrency_at_rate(tp1, 64 / e2e) == pytest.approx(64, rel=1e-6)
    assert np.isnan(rate.concurrency_at_rate(tp1, 1e9))  # beyond what the machine sustains


def test_rate_figure_marks_the_benchmark_concurrencies(tp1):
    fig = studies.fig_rate(tp1)
    names = [t["name"] for t in fig["data"]]
    assert names == ["TTFT", "E2E (1,024 output tokens)", "fixed concurrency C, labelled (λ = C / E2E)"]
    marks = fig["data"][2]
    assert marks["text"][:3] == ["4", "8", "16"]
    i = marks["text"].index("64")
    e2e = hand_e2e(64)
    assert marks["x"][i] == pytest.approx(64 / e2e, rel=1e-3) and marks["y"][i] == pytest.approx(1e3 * e2e, rel=1e-3)
    assert "peak" in fig["layout"]["annotations"][0]["text"]
    # Each label up and to the left of its point, off the rising curve; here none is too close to drop.
    assert marks["textposition"] == "top left" and all(marks["text"])


def test_labels_too_close_to_the_last_one_kept_are_dropped():
    """Shares of the axes: a label is LABEL_BOX wide and tall, up and to the left of its point."""
    width, height = studies.LABEL_BOX
    x = np.array([0.1, 0.1 + 1.5 * width, 0.1 + 2.0 * width, 0.1 + 2.2 * width, 0.1 + 2.3 * width])
    y = np.array([0.2, 0.2, 0.2 + 0.5 * height, 0.2 + 0.9 * height, 0.2 + 1.6 * height])
    # 2nd: a width right of the 1st. 3rd: half a width right of the 2nd and half a height up: dropped.
    # 4th: 0.7 of a width right of the 2nd, 0.9 of a height up: dropped. 5th: 1.6 heights over the 2nd: kept.
    kept = studies.labels_apart(10**x, 10**y, (0, 1), (0, 1))
    assert kept == [True, True, False, False, True]


@pytest.mark.parametrize(
    "params", [{}, {"model": "kimi-k2", "gpu": "mi355x", "gpus": 8, "tp": 4, "pp": 2, "wdtype": "fp4", "ctx": 65536}]
)
def test_labelled_points_keep_a_label_apart_near_the_peak(params):
    fig = studies.fig_rate(Scenario.from_params(**params))
    marks = fig["data"][2]
    xr = fig["layout"]["xaxis"]["range"]
    lo = np.log10(min(min(t["y"]) for t in fig["data"][:2]))
    yr = (lo, np.log10(fig["layout"]["yaxis"]["autorangeoptions"]["include"][0]))
    shown = [(x, y) for x, y, t in zip(marks["x"], marks["y"], marks["text"], strict=True) if t]
    assert len(shown) >= 5 and marks["text"][0] == "4"
    x = (np.log10([p[0] for p in shown]) - xr[0]) / (xr[1] - xr[0])
    y = (np.log10([p[1] for p in shown]) - yr[0]) / (yr[1] - yr[0])
    width, height = studies.LABEL_BOX
    assert all((np.diff(x) >= width - 1e-3) | (np.diff(y) >= height - 1e-3))  # the payload is rounded
    assert all(marks["text"]) == (not params)  # Kimi-K2's points crowd by the peak: some go unlabelled


@pytest.mark.parametrize("params", [{}, {"mode": "calibrated"}, {"preset": "mi300x4", "ctx": 32768}])
def test_the_peak_label_sits_between_ttft_and_e2e_where_it_runs(params):
    """Left of the peak line, over the span its text takes (a factor of four in rate), the label's height lies
    between the TTFT curve and the E2E curve: in calibrated mode TTFT runs through the paper's middle."""
    fig = studies.fig_rate(Scenario.from_params(**params))
    label = next(a for a in fig["layout"]["annotations"] if a["text"].startswith("peak"))
    assert label["yref"] == "y" and label["xanchor"] == "right"
    ttft, e2e = fig["data"][0], fig["data"][1]
    peak = 10 ** label["x"]
    span = [i for i, x in enumerate(ttft["x"]) if peak / 4 <= x <= peak / 1.5]
    assert span
    for i in span:
        assert np.log10(ttft["y"][i]) < label["y"] < np.log10(e2e["y"][i]), (params, ttft["x"][i])


def test_rate_figure_without_a_frontier():
    fig = studies.fig_rate(Scenario.from_params(wdtype="fp16"))
    assert fig["data"] == [] and "GB of weights; the machine has" in fig["layout"]["annotations"][0]["text"]


def test_bad_output_length_is_refused(tp1):
    with pytest.raises(ValueError, match="n_out must be at least 1"):
        rate.rate_curve(tp1, 0)


@pytest.mark.parametrize("mode", ["article", "calibrated"])
def test_figure_12_reads_the_output_length_the_controls_give(mode):
    """E2E = TTFT + osl · ITL with the page's output length, in either mode; its legend says which."""
    from inferx.figures import registry

    def e2e(osl):
        fig = registry.build(Scenario.from_params(mode=mode, osl=osl), ["fig12"])["fig12"]
        return next(t for t in fig["data"] if t["name"].startswith("E2E"))

    short, long = e2e(1024), e2e(8192)
    assert long["name"] == "E2E (8,192 output tokens)" and short["name"] == "E2E (1,024 output tokens)"
    # A longer answer takes longer, so each concurrency completes fewer requests per second.
    assert long["x"][-1] < short["x"][-1] and max(long["y"]) > max(short["y"])
