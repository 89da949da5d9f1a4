"""Expert parallelism (`ep`) and attention data parallelism (`dp`): each new term against numbers worked by hand,
the controls on every entry point (CLI, URL, page), the note where a switch has no effect, and the defaults kept."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest
from cli_checks import run_inferx

from inferx.physics import engine as E
from inferx.physics import models as M
from inferx.physics.models import DEEPSEEK_R1, LLAMA33_70B
from inferx.scenario.controls import PARAMS, InvalidParameter, check_param
from inferx.scenario.evaluation import Scenario
from inferx.scenario.machines import layout_note
from inferx.serving import adapter

# DeepSeek-R1's attention, one layer, by hand (d 7168, H 128, d_h 128, d_c 512, d_r 64, query rank 1536):
# q: 7168·1536 + 1536·128·192 = 11,010,048 + 37,748,736; latent down 7168·576 = 4,128,768; k and v up
# 512·128·256 = 16,777,216; o 128·128·7168 = 117,440,512. Sum 187,105,280, over 61 layers 11,413,422,080.
R1_ATTENTION = 61 * 187_105_280
# Llama-3.3-70B (d 8192, H 64, 8 KV heads, d_h 128): q and o 2·8192·8192 = 134,217,728, k and v 2·8192·1024 =
# 16,777,216; 150,994,944 a layer, 80 layers.
L70_ATTENTION = 80 * 150_994_944


def test_attention_parameters_by_hand():
    assert M.attention_params(DEEPSEEK_R1) == R1_ATTENTION
    assert M.attention_params(LLAMA33_70B) == L70_ATTENTION
    # Replicated beyond one copy on N GPUs: (N − 1)·P_attn with DP, nothing without it or on one GPU.
    assert M.replicated_params(DEEPSEEK_R1, 8, True) == 7 * R1_ATTENTION
    assert M.replicated_params(DEEPSEEK_R1, 8, False) == 0.0
    assert M.replicated_params(DEEPSEEK_R1, 1, True) == 0.0


def test_weights_per_gpu_under_attention_data_parallelism():
    plain, dp = Scenario.from_params(), Scenario.from_params(dp=1)  # 8×H200, TP 8, FP8 weights: 1 byte each
    # Per GPU: 1/8 of the non-attention weights and all the attention weights.
    per_gpu = (671e9 - R1_ATTENTION) / 8 + R1_ATTENTION
    assert dp.weight_bytes == pytest.approx(8 * per_gpu, rel=1e-12)
    assert plain.weight_bytes == 671e9
    assert dp.headroom == pytest.approx(plain.headroom - 7 * R1_ATTENTION, rel=1e-12)
    # Each step reads every GPU's copy of the attention weights: B = 1 at S = 1024 is bandwidth-bound.
    read = 37e9 + 7 * R1_ATTENTION + 1024 * dp.kappa
    assert float(dp.step_and_comm([1])[0][0]) == pytest.approx(read / dp.bw, rel=1e-12)
    assert dp.summary()["itl_floor"] == pytest.approx((37e9 + 7 * R1_ATTENTION) / dp.bw, rel=1e-12)
    # The ridge moves out as the bytes a step reads per FLOP grow: B* · (P_active + 7·P_attn) / P_active.
    b_star = plain.summary()["b_star"]
    assert b_star == pytest.approx(1.0 * plain.compute / (2 * plain.bw))  # FP8: b_w = 1
    assert dp.summary()["b_star"] == pytest.approx(b_star * (37e9 + 7 * R1_ATTENTION) / 37e9, rel=1e-12)


def test_kv_copies_under_each_layout():
    calibrated = Scenario.from_params(mode="calibrated")
    assert calibrated.kv_copies == 8.0  # MLA's latent is not split by head: one whole copy a GPU
    assert calibrated.with_params(dp=1).kv_copies == 1.0  # each GPU keeps its own requests' cache
    assert Scenario.from_params(dp=1).kv_copies == Scenario.from_params().kv_copies == 1.0  # the ideal: one copy
    # B_max: the cache no longer held eight times, in the headroom DP leaves.
    dp = calibrated.with_params(dp=1)
    assert dp.b_max == int(dp.eta * (calibrated.headroom - 7 * R1_ATTENTION) / (dp.ctx * dp.kappa))


def test_all_to_all_bytes_and_collective_counts():
    # One dispatch on 8 GPUs at B = 64: each GPU sends its 8 tokens to 8 experts, 7/8 of them elsewhere,
    # 7168 one-byte numbers each: 7/8 · 8 · 8 · 7168 = 401,408 bytes. Two a MoE layer, 58 MoE layers.
    one = 7 / 8 * 8 * 8 * 7168
    assert one == 401_408
    t = E.t_alltoall(64, 8, DEEPSEEK_R1, 1.0, 1e9, 0.0)
    assert float(t) == pytest.approx(2 * 58 * one / 1e9, rel=1e-12)
    assert float(E.t_alltoall(64, 8, DEEPSEEK_R1, 1.0, 1e9, 2e-6)) == pytest.approx(float(t) + 2 * 58 * 2e-6)
    # All-reduces a step: 61 after attention and 61 after the MLPs or experts (the article's 122); DP drops the
    # attention's, EP the 58 MoE layers' (3 dense MLPs keep theirs).
    counts = {(dp, ep): float(E.layout_allreduces(DEEPSEEK_R1, dp, ep)) for dp in (0, 1) for ep in (0, 1)}
    assert counts == {(0, 0): 122, (1, 0): 61, (0, 1): 64, (1, 1): 3}
    B, ar = np.array([1.0, 64.0]), (lambda B: 1e-6 + 7 / 8 * B * 7168 / 450e9)  # the article's price of one
    both = E.t_collectives(B, 8, DEEPSEEK_R1, 1.0, 450e9, 1e-6, True, True)
    expected = 3 * ar(B) + 2 * 58 * (1e-6 + 7 / 8 * B / 8 * 8 * 7168 / 450e9)
    assert both == pytest.approx(expected, rel=1e-12)
    # A dense model has no experts: EP leaves its all-reduces as they are; one GPU has no collective at all.
    dense = E.t_collectives(B, 8, LLAMA33_70B, 1.0, 450e9, 1e-6, False, True)
    assert np.array_equal(dense, E.t_allreduce(B, 8, LLAMA33_70B, 1.0, 450e9, 1e-6))
    assert not E.t_collectives(B, 1, DEEPSEEK_R1, 1.0, 450e9, 1e-6, True, True).any()


def test_prefill_attention_on_one_rank():
    # A 1,024-token prompt's attention (projections 2·P_attn·S, quadratic 4·61·128·128·S²) on 1 of 8 GPUs: 7 times
    # that work at the machine's compute more than spread over all 8.
    scn = Scenario.from_params(dp=1)
    work = 2 * R1_ATTENTION * 1024 + 4 * 61 * 128 * 128 * 1024**2
    assert scn.prefill_rank == pytest.approx(7 * work / scn.compute, rel=1e-12)
    assert scn.prefill_time == pytest.approx(Scenario.from_params().prefill_time + scn.prefill_rank, rel=1e-12)


def test_defaults_and_no_effect_layouts_keep_the_numbers():
    base = Scenario.from_params()
    assert Scenario.from_params(dp=0, ep=0) == base and not base.dp and not base.ep
    for changed in ({"dp": 1, "tp": 1}, {"ep": 1, "tp": 1}, {"ep": 1, "model": "llama-3.3-70b"}):
        off = {k: v for k, v in changed.items() if k not in ("dp", "ep")}
        a, b = Scenario.from_params(**changed), Scenario.from_params(**off)
        assert not (a.dp or a.ep)
        for key in ("itl", "ttft", "throughput"):
            assert np.array_equal(a.evaluate([1, 64])[key], b.evaluate([1, 64])[key]), (changed, key)
    # The article's layout is bit for bit the article's formulas.
    B = np.array([1.0, 256.0])
    assert np.array_equal(
        E.t_collectives(B, 8, DEEPSEEK_R1, 1.0, 450e9, 1e-6), E.t_allreduce(B, 8, DEEPSEEK_R1, 1.0, 450e9, 1e-6)
    )
    # Several scenarios in one pass (the figures' way) give each its own layout.
    from inferx.scenario.evaluation import evaluate_all

    both = evaluate_all([base, base.with_params(dp=1, ep=1)], [B, B])
    assert np.array_equal(both[0]["itl"], base.evaluate(B)["itl"])
    assert both[1]["itl"] == pytest.approx(base.with_params(dp=1, ep=1).evaluate(B)["itl"], rel=1e-12)
    assert both[1]["ttft"] == pytest.approx(base.with_params(dp=1, ep=1).evaluate(B)["ttft"], rel=1e-12)


def test_the_switches_take_one_validation():
    assert check_param("dp", "1") == "1" and check_param("ep", 0) == "0" and check_param("dp", True) == "1"
    for bad in ("2", "on", 2, None):
        with pytest.raises(InvalidParameter, match="must be one of 0, 1"):
            check_param("ep", bad)
    assert PARAMS["ep"].group == PARAMS["dp"].group == "Parallelism"


def test_calibrated_model_reads_attention_data_parallelism():
    scn = Scenario.from_params(mode="calibrated", gpu="b200", gpus=8, framework="trt", dp=1)
    _, m, *_ = adapter._scenario_inputs(scn)
    assert m.dp_attention and m.kv_copies == 1.0
    # Its TTFT gains the balancing wait and the prompt's attention on one rank (`model.at_batch`'s terms).
    off = scn.with_params(dp=0)
    assert not adapter._scenario_inputs(off)[1].dp_attention
    assert float(adapter.scenario_point(scn, 64.0)["ttft"]) > float(adapter.scenario_point(off, 64.0)["ttft"])


def test_cli_options_and_notes():
    out = run_inferx("point", "--dp", "1", "--ep", "1", "--batch", "64")
    assert out.returncode == 0, out.stderr
    scn = Scenario.from_params(dp=1, ep=1)
    record = json.loads(out.stdout)
    assert record["b_max"] == scn.b_max < Scenario.from_params().b_max
    assert record["itl_ms"] == pytest.approx(1e3 * scn.evaluate([64])["itl"][0], rel=1e-5)
    # point gives the expected answer too, where EP has no fitted term of its own: said.
    assert "no fitted term" in out.stderr
    dense = run_inferx("point", "--model", "llama-3.3-70b", "--ep", "1")
    assert dense.returncode == 0 and "Expert parallelism has no effect: Llama-3.3-70B is dense" in dense.stderr
    bad = run_inferx("frontier", "--dp", "yes")
    assert bad.returncode == 2 and "dp=yes: must be one of 0, 1" in bad.stderr
    assert "--ep {0,1}" in run_inferx("slo", "--help").stdout


def test_layout_note_words():
    values = {"ep": "1", "dp": "0", "tp": 8, "model": "deepseek-r1", "mode": "article"}
    assert layout_note(values) == ""
    assert "no fitted term" in layout_note({**values, "mode": "calibrated"})
    assert "TP 1" in layout_note({**values, "tp": 1}) and "TP 1" in layout_note({**values, "ep": "0", "dp": "1",
                                                                                 "tp": 1})  # fmt: skip
    assert "dense" in layout_note({**values, "model": "gemma-3-27b"})


def test_url_round_trip_and_page_note():
    from pages._controls import LAYOUT_NOTE_ID, control_groups
    from pages._url import parse_query

    values, _, notices = parse_query({"dp": "1", "ep": "1"})
    assert (values["dp"], values["ep"], notices) == ("1", "1", [])
    assert Scenario.from_params(**values) == Scenario.from_params(dp=1, ep=1)
    _, _, notices = parse_query({"ep": "2"})
    assert notices == ["Ignored ep=2: must be one of 0, 1."]
    dense, _, _ = parse_query({"ep": "1", "model": "llama-3.3-70b"})
    note = next(c for c in _walk(control_groups(dense)) if getattr(c, "id", None) == LAYOUT_NOTE_ID)
    assert "Llama-3.3-70B is dense" in note.children


def test_figures_follow_the_layout():
    import app  # noqa: F401 (pages register themselves on the app)
    from inferx.figures import registry
    from pages.embed import scenario_line

    # Figure 8 keeps a figure per state of what it reads: the layout is part of it, and its legend names it.
    plain = registry.build(Scenario.from_params(), ["fig8"])["fig8"]["data"][-1]
    both = registry.build(Scenario.from_params(dp=1, ep=1), ["fig8"])["fig8"]["data"][-1]
    assert plain["name"].endswith("TP 8, PP 1, NVLink 4.0") and "TP 8, EP, attention DP, PP 1" in both["name"]
    assert both["y"] != plain["y"]
    values = Scenario.from_params(dp=1).params
    assert scenario_line(values).endswith("attention data parallelism across TP 8")
    assert "parallelism" not in scenario_line(Scenario.from_params().params)


def _walk(component):
    if isinstance(component, list):
        for c in component:
            yield from _walk(c)
        return
    yield component
    children = getattr(component, "children", None)
    if isinstance(children, (list, tuple)) or hasattr(children, "children"):
        yield from _walk(list(children) if isinstance(children, (list, tuple)) else [children])


MEASURED_DIR = os.environ.get("INFERX_TEST_MEASURED_DIR")


@pytest.mark.skipif(not MEASURED_DIR, reason="INFERX_TEST_MEASURED_DIR is not set (InferenceX's rows)")
def test_attention_dp_rows_with_the_switch():
    """InferenceX's single-node rows run with attention DP (TensorRT-LLM, 64 rows), each as a user would ask for it
    (`inferx point --mode calibrated` at B = its concurrency): TTFT 82 % off at the median with dp=0, 8–9 % with
    dp=1."""
    from inferx.data.measured import load_measured

    df = load_measured(Path(MEASURED_DIR) / "deepseek_r1_measured.csv")
    rows = df[~df["disagg"] & ~df["is_multinode"] & df["decode_dp_attention"]]
    assert len(rows) >= 20
    errors = {}
    for dp in ("0", "1"):
        ttft = []
        for _, r in rows.iterrows():
            mtp = "on" if r.spec_method == "mtp" else "off"
            scn = Scenario.from_params(mode="calibrated", gpu=r.hardware, gpus=int(r.n_gpus), framework=r.framework,
                                       wdtype=r.precision, mtp=mtp, isl=int(r.isl), osl=int(r.osl),
                                       ctx=int(r.isl + r.osl // 2), dp=dp, ep=1)  # fmt: skip
            ttft.append(abs(scn.evaluate([float(r.concurrency)])["ttft"][0] * 1e3 / r.median_ttft_ms - 1))
        errors[dp] = float(np.median(ttft))
    assert errors["0"] > 0.5 and errors["1"] < 0.15, errors
