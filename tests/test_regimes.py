"""Which limit binds along a frontier, and the sensitivity readout, against hand-worked numbers.

Hand numbers for DeepSeek R1 on the 8×H200 preset at FP8, S = 1024: κ = 61 layers × 576 latent numbers ×
1 byte = 35,136 B/token, so one request's KV is 35,979,264 B; weights read per step 37e9 B at 38.4 TB/s;
compute 31.664 PFLOPS; B_max = floor(0.87 × (1,128 − 671) GB / 35,979,264 B) = 11,050.
"""

import numpy as np
import pytest

from inferx.analysis import regimes as R
from inferx.figures import studies
from inferx.scenario.evaluation import Scenario

KV_PER_REQUEST = 61 * 576 * 1024  # bytes
BW, COMPUTE, P_ACTIVE = 38.4e12, 31.664e15, 37e9


def memory_time(B):
    return (P_ACTIVE + B * KV_PER_REQUEST) / BW


def compute_time(B):
    return 2 * P_ACTIVE * B / COMPUTE


def allreduce_time(B, tp=8):
    return 61 * 2 * (10e-6 + (tp - 1) / tp * B * 7168 * 1.0 / 450e9)


@pytest.fixture(scope="module")
def tp1():
    return Scenario.from_params(tp=1)


def test_b_max_is_the_hand_value(tp1):
    assert tp1.b_max == int(0.87 * 457e9 / KV_PER_REQUEST) == 11050


def test_roofline_crossover_at_the_hand_batch(tp1):
    # 37e9 + B·35,979,264 = B·2·37e9·38.4e12/31.664e15  →  B = 688.2
    crossing = P_ACTIVE / (2 * P_ACTIVE * BW / COMPUTE - KV_PER_REQUEST)
    assert crossing == pytest.approx(688.2, abs=0.1)
    assert list(R.binding(tp1, [1, 64, 688, 689, 2000])) == [
        "bandwidth",
        "bandwidth",
        "bandwidth",
        "compute",
        "compute",
    ]


def test_communication_binds_when_the_all_reduce_exceeds_half_the_step():
    scn = Scenario.from_params()  # TP 8 on NVLink
    # B = 64: t_AR = 122·(10 µs + 7/8·64·7168 B / 450 GB/s) = 1.329 ms against a 1.024 ms memory-bound step.
    share = allreduce_time(64) / (allreduce_time(64) + memory_time(64))
    assert share == pytest.approx(0.565, abs=0.001)
    masks = R.regime_masks(scn, [64])
    assert masks["communication"][0] and masks["bandwidth"][0]
    assert R.binding(scn, [64])[0] == "communication"


def test_queue_and_capacity_thresholds_at_the_hand_batches(tp1):
    # ρ = B / 11,050: past 0.85 from B = 9,393; at or past 0.95 from B = 10,498.
    keys = R.binding(tp1, [9392, 9393, 10497, 10498, 11050])
    assert list(keys) == ["compute", "queue", "queue", "kv_capacity", "kv_capacity"]


def test_segments_partition_the_frontier(tp1):
    B = np.arange(1, tp1.b_max + 1)
    segs = R.segments(tp1, B)
    assert [s["regime"] for s in segs] == ["bandwidth", "compute", "queue", "kv_capacity"]
    assert segs[0]["b_first"] == 1 and segs[-1]["b_last"] == tp1.b_max
    assert all(a["last"] + 1 == b["first"] for a, b in zip(segs, segs[1:], strict=False))
    assert segs[1]["b_first"] == 689 and segs[2]["b_first"] == 9393 and segs[3]["b_first"] == 10498


def test_bandwidth_bound_point_follows_bandwidth_one_for_one(tp1):
    s = R.sensitivity(tp1, 64)
    assert s["regime"] == "bandwidth"
    assert s["throughput_gain_bw"] == pytest.approx(0.43, rel=1e-9)  # T = B·BW / bytes
    assert s["throughput_gain_compute"] == 0.0
    assert s["elasticity_bw"] == pytest.approx(1.0, rel=1e-6)
    assert s["elasticity_compute"] == pytest.approx(0.0, abs=1e-9)
    assert R.sentence(tp1, 64) == (
        "At B = 64 this machine is bandwidth-bound; doubling compute changes nothing, "
        "+43 % bandwidth gives +43 % throughput"
    )


def test_compute_bound_point_follows_compute(tp1):
    s = R.sensitivity(tp1, 2000)
    assert s["regime"] == "compute"
    # Doubling compute halves the compute term to 2.337 ms, below the 2.914 ms memory term: the step
    # becomes memory-bound, so the gain is 4.675 / 2.914 − 1 = +60 %, not +100 %.
    expected = compute_time(2000) / max(memory_time(2000), compute_time(2000) / 2) - 1
    assert s["throughput_gain_compute"] == pytest.approx(expected, rel=1e-9)
    assert s["throughput_gain_bw"] == 0.0


def test_gain_with_communication_in_the_step():
    scn = Scenario.from_params()
    mem, comm = memory_time(64), allreduce_time(64)
    expected = (mem + comm) / (mem / 1.43 + comm) - 1  # only the memory term shrinks
    assert R.throughput_gain(scn, [64], bw=0.43)[0] == pytest.approx(expected, rel=1e-9)
    text = R.sentence(scn, 64)
    assert text.startswith("At B = 64 this machine is communication-bound (its step bandwidth-bound)")
    assert f"+{round(100 * expected)} % throughput" in text


def test_fig_regimes_colours_each_run():
    fig = studies.fig_regimes(Scenario.from_params(tp=1))
    names = [t["name"] for t in fig["data"]]
    assert names == ["bandwidth-bound", "compute-bound", "queue-bound", "KV-capacity-bound"]
    # Consecutive runs share their joining point, so the coloured line has no gaps.
    for a, b in zip(fig["data"], fig["data"][1:], strict=False):
        assert a["x"][-1] == b["x"][0]


def test_fig_regimes_explains_a_machine_without_a_frontier():
    fig = studies.fig_regimes(Scenario.from_params(wdtype="fp16"))
    assert fig["data"] == [] and "GB of weights; the machine has" in fig["layout"]["annotations"][0]["text"]


@pytest.mark.parametrize(
    "params",
    [
        {"mode": "calibrated"},
        {"mode": "calibrated", "mtp": "on"},
        {"mode": "calibrated", "model": "llama-3.3-70b", "gpu": "mi325x", "gpus": 8},
    ],
)
def test_calibrated_limit_is_the_resource_its_own_step_follows_most(params):
    """The calibrated step adds its HBM and arithmetic times, so throughput's elasticity to each resource is that
    resource's share of the step: the limit named must be the one with the larger share. It was named from the
    article's terms, so Llama 3.3 70B on 8×MI325X at B = 100 read "bandwidth-bound" beside a +30 % gain from
    doubling compute and +6 % from +43 % bandwidth."""
    scn = Scenario.from_params(**params)
    B = np.array([1, 4, 16, 64, 100, 256, 1024])
    masks = R.regime_masks(scn, B)
    shares = R.elasticities(scn, B)
    assert np.array_equal(masks["compute"], shares["compute"] > shares["bw"])
    assert np.array_equal(masks["bandwidth"], ~masks["compute"])
    memory, compute = scn.resource_times(B)
    assert np.allclose(shares["compute"] / shares["bw"], compute / memory, rtol=1e-4)


def test_calibrated_step_is_its_overhead_plus_its_resource_times():
    from inferx.serving import adapter as calibrated

    scn = Scenario.from_params(mode="calibrated", model="llama-3.3-70b", gpu="mi325x", gpus=8)
    B = np.array([1.0, 100.0, 1000.0])
    memory, compute = scn.resource_times(B)
    overhead = calibrated.scenario_calibration(scn)["calibration"].step_overhead_s
    assert np.allclose(overhead + memory + compute, calibrated.calibrated_step(scn, B), rtol=1e-12)
    assert R.sensitivity(scn, 200)["regime"] == "compute"
    article = Scenario.from_params(model="llama-3.3-70b", gpu="mi325x", gpus=8)
    assert R.regime_masks(article, [200])["bandwidth"][0]  # the article's terms: weights at full bandwidth
