"""Numbers the pages and the CLI print in sentences are in plain digits with separators, never "1.31e+03"."""

from __future__ import annotations

import re

from inferx.analysis import slo
from inferx.figures import registry
from inferx.figures.beyond import goodput_text
from inferx.physics.models import MODELS
from inferx.scenario.evaluation import Scenario
from inferx.text import number
from pages._controls import model_summary

EXPONENT = re.compile(r"\de[+-]\d")


def test_a_first_token_slower_than_ten_seconds_is_written_out():
    scn = Scenario.from_params(model="llama-3.1-405b", gpu="h100", gpus=8, isl=131072, ctx=131072, ic="scale-up")
    g = slo.goodput(scn, 500, 50, None, 1.0)
    first = scn.evaluate([1])
    assert g["batch"] == 0 and first["ttft"][0] > 10  # seconds: five digits of milliseconds
    assert not EXPONENT.search(g["reason"])
    assert f"TTFT {number(1e3 * first['ttft'][0])} ms" in g["reason"] and "," in g["reason"]


def test_a_peak_rate_above_a_thousand_requests_a_second_is_written_out():
    fig = registry.build(Scenario.from_params(model="gpt-oss-120b", gpu="b300", gpus=8), ["fig12"])["fig12"]
    (peak,) = [a["text"] for a in fig["layout"]["annotations"] if a["text"].startswith("peak")]
    assert re.fullmatch(r"peak \d{1,3}(,\d{3})+ req/s at C = [\d,]+", peak), peak


def test_the_largest_latency_target_is_written_out():
    text = goodput_text(Scenario.from_params(ttft=10000, tpot=500))
    assert "TTFT ≤ 10,000 ms and TPOT ≤ 500 ms" in text and not EXPONENT.search(text)


def test_a_trillion_parameter_model_is_counted_in_billions_and_its_kv_in_bytes():
    text = model_summary(MODELS["kimi-k2"])
    billions = MODELS["kimi-k2"].p_total / 1e9
    assert billions > 1000 and f"{number(billions)} billion parameters" in text, text
    assert "bytes of KV cache per token" in text and not EXPONENT.search(text)
