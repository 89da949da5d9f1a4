"""Any catalog model on any catalog GPU: the scenario, every figure, `inferx point`, the URL and /methods."""

import json
import math
import re

import numpy as np
import plotly
import pytest

import app  # noqa: F401 (pages register themselves on the app)
from inferx import cli
from inferx.analysis.regimes import PRIORITY
from inferx.figures import registry
from inferx.physics.hardware import GPUS, Machine
from inferx.physics.model_spec import DTYPE_BYTES
from inferx.physics.models import MODELS, weight_bytes
from inferx.physics.presets import HARDWARE
from inferx.scenario.controls import PARAMS, value_at
from inferx.scenario.evaluation import Scenario
from inferx.scenario.machines import dense_compute
from pages import home, methods
from pages._ids import control_id
from pages._url import parse_query

WEIGHTS_SENTENCE = re.compile(r"needs [\d,]+ GB of weights; the machine has [\d,]+ GB")


def numbers(fig: dict) -> np.ndarray:
    """Every x and y value a figure's traces carry."""
    values = [v for t in fig["data"] for k in ("x", "y") for v in (t.get(k) or ()) if not isinstance(v, str)]
    return np.array(values, dtype=float)


@pytest.mark.parametrize("model", list(MODELS))
def test_every_model_on_every_gpu_at_8_gpus_draws_numbers_or_says_it_does_not_fit(model, capsys):
    for gpu in GPUS:
        scn = Scenario.from_params(model=model, gpu=gpu, gpus=8)
        fits = weight_bytes(MODELS[model], DTYPE_BYTES["fp8"]) < 8 * GPUS[gpu].hbm
        assert fits == (scn.headroom > 0), (model, gpu)
        for name, fig in registry.build(scn, batch=64).items():
            values = numbers(fig)
            assert np.isfinite(values).all(), (model, gpu, name)
            notes = " ".join(a["text"] for a in fig["layout"]["annotations"])
            if fits:
                assert values.size, (model, gpu, name)
            else:
                # Figure 4 keeps its ITL floor; Figure 5 still draws the presets that fit.
                assert not values.size or name in ("fig4", "fig5"), (model, gpu, name)
                assert scn.unfit_reason() in notes and WEIGHTS_SENTENCE.search(notes), (model, gpu, name)
        code = cli.main(["point", "--model", model, "--gpu", gpu, "--gpus", "8", "--batch", "16"])
        out, err = capsys.readouterr()
        if scn.unfit_reason():  # weights, or one request's KV cache at the default context
            assert code == 2 and err.strip() == f"inferx: {scn.unfit_reason()}", (model, gpu)
        else:
            record = json.loads(out)
            assert code == 0 and record.pop("regime") in PRIORITY, record
            # Both answers, ideal and expected, are numbers too (each names its limit; the expected its error).
            answers = [record.pop(k) for k in ("ideal", "expected")]
            for answer in answers:
                assert answer.pop("regime") in PRIORITY and answer.pop("mode") in ("article", "calibrated")
                answer.pop("meaning"), answer.pop("error", None)
                parts = answer.pop("time_per_token_ms")  # where each token's time goes: finite parts
                assert all(math.isfinite(v) and v >= 0 for v in parts.values()), parts
            for said in (record, *answers):
                assert all(v is None or isinstance(v, bool) or math.isfinite(v) for v in said.values()), said


def test_a_gpu_and_count_set_the_machine_from_the_catalog():
    b300x4 = Machine(GPUS["b300"], 4)
    for wdtype, precision in (("fp4", "fp4"), ("fp8", "fp8"), ("bf16", "bf16")):
        scn = Scenario.from_params(gpu="b300", gpus=4, wdtype=wdtype)
        assert (scn.bw, scn.hbm) == pytest.approx((b300x4.bw, b300x4.hbm), rel=1e-12)
        assert scn.compute == pytest.approx(b300x4.peak(precision), rel=1e-12)  # dense, at the weights' precision
    # No FP8 or FP4 tensor cores on an A100: the next wider precision it has.
    assert dense_compute(Machine(GPUS["a100"], 2), "fp4") == 2 * GPUS["a100"].bf16
    # Explicit values win over the machine's.
    assert Scenario.from_params(gpu="b300", gpus=4, bw=10).bw == 10e12


def test_a_preset_is_a_named_machine_and_keeps_the_articles_numbers():
    for key, hw in HARDWARE.items():
        preset = Scenario.from_params(preset=key)
        assert (preset.params["gpu"], preset.params["gpus"]) == (hw.family, hw.n_gpus)
        # Naming the preset's own machine changes nothing: its sparse FP8 compute and 192 GB B200s stay.
        same = Scenario.from_params(preset=key, gpu=hw.family, gpus=hw.n_gpus)
        assert (same.bw, same.compute, same.hbm) == (hw.bw, hw.compute, hw.hbm)
        assert registry.build(same, batch=64) == registry.build(preset, batch=64)
    # Another count of the same GPU is a catalog machine (dense compute).
    h200x4 = Scenario.from_params(preset="h200x8", gpus=4)
    assert h200x4.compute == pytest.approx(4 * GPUS["h200"].fp8) and h200x4.hbm == pytest.approx(4 * 141e9)
    # And the preset can be changed back from it, as on the page.
    assert h200x4.with_params(preset="h200x8").compute == HARDWARE["h200x8"].compute


def test_deepseek_r1_is_the_default_and_the_article_physics_hold_for_it():
    scn = Scenario.from_params()
    assert scn.model is MODELS["deepseek-r1"]
    # The article's κ = L·(d_c + d_r)·b_kv and its prefill with the full quadratic term.
    assert scn.kappa == 61 * (512 + 64) * 1.0
    s_in = scn.isl
    expected = (2 * 37e9 * s_in + 4 * 61 * 128 * 128 * s_in**2) / scn.compute
    assert scn.summary()["t_prefill"] == pytest.approx(expected, rel=1e-12)


def test_a_sliding_window_caps_kv_per_token():
    short, long = (Scenario.from_params(model="gpt-oss-120b", ctx=c) for c in (128, 65536))
    assert short.kappa > long.kappa  # half the layers stop at their 128-token window
    assert long.b_max * long.ctx > short.b_max * short.ctx


def test_model_gpu_and_count_round_trip_through_the_url():
    query = {"model": "llama-3.3-70b", "gpu": "mi355x", "gpus": "2"}
    values, _, notices = parse_query(query)
    assert not notices
    assert Scenario.from_params(**values) == Scenario.from_params(**query)
    # What the page's address would carry: every value that differs from the preset's, as text.
    defaults = Scenario.from_params().params
    written = {k: str(v) for k, v in values.items() if v != defaults[k]}
    assert parse_query(written)[0] == values
    page = home.layout(**query)
    shown = {c.id: getattr(c, "value", None) for c in page._traverse() if isinstance(getattr(c, "id", None), str)}
    for name in ("model", "gpu", "gpus", "bw", "compute", "hbm"):  # a log2 slider holds its position
        assert value_at(PARAMS[name], shown[control_id(name)]) == values[name], name
    assert values["tp"] == 2  # the preset's TP 8 lowered to the count chosen
    _, _, notices = parse_query({"model": "gpt-5", "gpus": "100"})
    assert any("model=gpt-5: must be one of" in n for n in notices)
    assert any("gpus=100: must be a whole number from 1 to 72 GPUs" in n for n in notices)


def test_methods_tables_follow_the_chosen_model():
    text = json.dumps(methods.layout(model="llama-3-8b"), cls=plotly.utils.PlotlyJSONEncoder)
    assert "computed for Llama-3-8B" in text or "computed for " + MODELS["llama-3-8b"].name in text
    r1 = json.dumps(methods.layout(), cls=plotly.utils.PlotlyJSONEncoder)
    assert "computed for " + MODELS["deepseek-r1"].name in r1
    # An 8B model leaves far more KV headroom on the same machines than DeepSeek-R1's 671 GB.
    assert text != r1
    # The dashboard's link to /methods carries its model (the default needs no parameter).
    links = {
        m: [c.href for c in home.layout(model=m)._traverse() if getattr(c, "id", None) == "nav-methods"]
        for m in ("llama-3-8b", "deepseek-r1")
    }
    assert links == {"llama-3-8b": ["/methods?model=llama-3-8b"], "deepseek-r1": ["/methods"]}


def test_figure_2_says_what_a_layer_caches_for_every_catalog_model():
    """κ in Figure 2's equation is the article's MLA form; its caption gives the form of every kind of layer the
    catalog holds, so a reader of another model's curves finds the κ they stand on."""
    fig2 = next(f for f in registry.FIGURES.values() if f.number == 2)
    forms = {"mla": "$d_c+d_r$", "gqa": r"$2\,n_{kv}\,d_h$", "mha": r"$2\,n_{kv}\,d_h$"}
    for model in MODELS.values():
        assert forms[model.attention] in fig2.caption, model.name
        if model.window_layers:
            assert "a windowed layer stops at its window" in fig2.caption
        if model.state_layers:
            assert "Mamba or linear-attention layer keeps a fixed state" in fig2.caption
