"""`ic=scale-up`: the chosen GPU's own scale-up link from the hardware catalog, beside the article's three fixed
interconnects (which its machines all take at NVLink 4.0's figure)."""

from __future__ import annotations

import json

import pytest

import app  # noqa: F401 (pages register themselves on the app)
from inferx import cli
from inferx.analysis import slo
from inferx.figures import registry
from inferx.physics.hardware import GPUS
from inferx.physics.presets import INTERCONNECTS, SCALE_UP, TIERED, scale_up_links
from inferx.scenario.controls import InvalidParameter
from inferx.scenario.evaluation import Scenario, comm_times
from pages import methods

LAYERS, D_MODEL = 61, 7168  # DeepSeek-R1


def test_the_gpus_own_link_is_its_datasheet_figure_one_way():
    # B200: NVLink 5, 1,800 GB/s per GPU both ways summed; MI300X: 7 Infinity Fabric links of 128 GB/s.
    for gpu, one_way in {"b200": 900e9, "h200": 450e9, "mi300x": 448e9, "mi355x": 537.6e9, "a100": 300e9}.items():
        scn = Scenario.from_params(gpu=gpu, gpus=8, ic=SCALE_UP)
        assert (scn.ic_bw, scn.ic_alpha) == (pytest.approx(one_way), INTERCONNECTS["nvlink"].alpha)
    # The article's machines keep its NVLink 4.0 figure unless the link is asked for.
    assert Scenario.from_params(preset="b200x8").ic_bw == 450e9
    assert Scenario.from_params(preset="b200x8", ic=SCALE_UP).ic_bw == 900e9


def test_all_reduce_over_nvlink_5_by_hand():
    # t_AR = 2 L (α + (tp − 1)/tp · B · d_model · b_act / bw), FP8 activations (1 byte), TP 8, B = 64:
    # 122 × (10 µs + 7/8 × 64 × 7168 / 900e9 s) = 122 × 10.446009 µs = 1.274413 ms;
    # over NVLink 4.0 (450e9), 122 × 10.892018 µs = 1.328826 ms.
    own = Scenario.from_params(gpu="b200", gpus=8, tp=8, ic=SCALE_UP)
    article = Scenario.from_params(gpu="b200", gpus=8, tp=8, ic="nvlink")
    t_own, t_article = comm_times([own, article], [64])[:, 0]
    assert t_own == pytest.approx(2 * LAYERS * (10e-6 + 7 / 8 * 64 * D_MODEL / 900e9), rel=1e-12)
    assert t_own == pytest.approx(1.274413e-3, rel=1e-6) and t_article == pytest.approx(1.328826e-3, rel=1e-6)


def test_the_link_is_checked_like_any_choice():
    with pytest.raises(InvalidParameter, match="must be one of nvlink, infiniband, roce, scale-up, tiered"):
        Scenario.from_params(ic="scale_up")


def test_a_tiered_machine_runs_tp_on_its_own_link_and_pp_over_infiniband_by_hand():
    # 16 × H200 as two NVLink domains, TP 8 within each and a pipeline stage per domain, B = 1,486:
    # t_AR = 122 × (10 µs + 7/8 × 1,486 × 7,168 B / 450 GB/s) = 3.747 ms on NVLink 4.0;
    # t_PP = (2 − 1) × (5 µs + 1,486 × 7,168 B / 25 GB/s) = 0.4311 ms over InfiniBand HDR200.
    # One InfiniBand link for both (the article's single link) charged the all-reduce 46.1 ms instead.
    tiered = Scenario.from_params(gpu="h200", gpus=16, tp=8, pp=2, ic=TIERED)
    t_ar = 2 * LAYERS * (10e-6 + 7 / 8 * 1486 * D_MODEL / 450e9)
    t_pp = 5e-6 + 1486 * D_MODEL / 25e9
    assert tiered.comm_time(1486) == pytest.approx(t_ar + t_pp, rel=1e-12)
    assert (t_ar, t_pp) == (pytest.approx(3.7466e-3, rel=1e-4), pytest.approx(0.43106e-3, rel=1e-4))
    one_link = Scenario.from_params(gpu="h200", gpus=16, tp=8, pp=2, ic="infiniband")
    assert comm_times([tiered, one_link], [1486])[0, 0] == pytest.approx(t_ar + t_pp, rel=1e-12)
    assert one_link.comm_time(1486) > 10 * tiered.comm_time(1486)
    # Evaluated with other scenarios (a redraw's one pass), it keeps its own two links.
    assert tiered.evaluate([1486])["itl"][0] == pytest.approx(
        comm_times([one_link, tiered], [1486])[1, 0] + tiered.evaluate([1486])["t_step"][0], rel=1e-12
    )
    fig = registry.build(tiered, ["fig8"])["fig8"]
    current = next(t for t in fig["data"] if "(current)" in t["name"])
    assert current["name"].endswith("TP 8, PP 2, NVLink 4 (H200 SXM) for TP, InfiniBand HDR200 for PP")


def test_figure_8_names_the_link_it_draws():
    fig = registry.build(Scenario.from_params(gpu="b200", gpus=8, ic=SCALE_UP), ["fig8"])["fig8"]
    current = next(t for t in fig["data"] if "(current)" in t["name"])
    assert current["name"].endswith("TP 8, PP 1, NVLink 5 (B200)")


def test_the_slo_search_runs_each_gpus_collectives_over_its_own_link():
    inside = slo.candidates({"gpu": "b200"})
    assert {c["ic"] for c in inside} == {SCALE_UP}
    row = next(r for r in slo.search({"gpu": "b200", "gpus": 8}) if r["tp"] == 8)
    params = next(c for c in inside if (c["gpus"], c["tp"]) == (8, 8))
    assert row["batch"] == slo.goodput(Scenario.from_params(**params))["batch"]
    assert Scenario.from_params(**params).ic_bw == 900e9


def test_cli_point_takes_the_gpus_own_link(capsys):
    assert cli.main(["point", "--gpu", "b200", "--ic", SCALE_UP, "--batch", "64"]) == 0
    mine = json.loads(capsys.readouterr().out)
    assert cli.main(["point", "--gpu", "b200", "--ic", "nvlink", "--batch", "64"]) == 0
    theirs = json.loads(capsys.readouterr().out)
    assert mine["t_comm_ms"] == pytest.approx(1.274413, rel=1e-5)  # the hand-worked value above
    assert theirs["itl_ms"] - mine["itl_ms"] == pytest.approx(theirs["t_comm_ms"] - mine["t_comm_ms"], abs=2e-5)


def test_methods_lists_every_scale_up_link_of_the_catalog():
    links = scale_up_links()
    assert {(ic.bw, ic.label.split(" (")[0]) for ic in links} == {(g.link_bw / 2, g.link) for g in GPUS.values()}
    assert "NVLink 5 (B200, B300, GB200; ic=scale-up)" in [ic.label for ic in links]
    rows = methods.interconnect_table("deepseek-r1").children.children[1].children
    shown = [tr.children[0].children for tr in rows]
    assert shown[: len(INTERCONNECTS)] == [ic.label for ic in INTERCONNECTS.values()]
    assert shown[len(INTERCONNECTS) :] == [ic.label for ic in links]
