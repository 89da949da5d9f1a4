"""Measured points over the figures: the hover says the axis's unit (per instance of the run's GPUs, or per GPU),
and on /inferencex a point's colour is its GPU's (palette.GPU) while its marker is its serving stack's."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from inferx import palette as P
from inferx.data.measured import load_measured
from inferx.figures import registry
from inferx.figures.measured import SYMBOL_SIGN, framework_symbol, inferencex_figure, overlay_traces
from inferx.figures.units import unit_words
from inferx.physics.hardware import GPUS
from inferx.scenario.evaluation import Scenario
from inferx.scenario.machines import default_params


@pytest.fixture(scope="module")
def rows(measured_paths) -> pd.DataFrame:
    return load_measured(measured_paths.csv)


def drawn_on(figure: dict, overlay: list[dict]) -> list[dict]:
    """The overlay's traces as assets/measured.js merges them into `figure`: per GPU where the figure is."""
    per_gpu = figure["layout"]["meta"]["tput"]["perGpu"]
    return [{**t, "x": t["meta"]["xPerGpu"], "hovertemplate": t["meta"]["hoverPerGpu"]} if per_gpu else t
            for t in overlay]  # fmt: skip


def shown(x: float) -> str:
    return f"{float(f'{x:.4g}'):,g}"


def hover_text(trace: dict, k: int) -> str:
    """The hover of point `k` with its x and customdata filled in, as plotly writes it (x to 4 significant
    figures with thousands separators)."""
    custom = trace["customdata"][k]
    text = trace["hovertemplate"].replace("%{x:,.4~r}", shown(trace["x"][k]))
    return re.sub(r"%\{customdata\[(\d)\]\}", lambda m: str(custom[int(m[1])]), text)


def axis_unit(figure: dict) -> str:
    title = figure["layout"]["xaxis"]["title"]["text"]
    return re.search(r"throughput (per .*) \(tok/s\)$", title)[1]


@pytest.mark.parametrize("tput", ["instance", "gpu"])
@pytest.mark.parametrize("kind", ["fig4", "fig5"])
def test_a_measured_points_hover_says_the_unit_of_its_axis(rows, tput, kind):
    scn = Scenario.from_params(**{**default_params("h200x8"), "tput": tput})
    figure = registry.build(scn, [kind])[kind]
    # Per instance, Figure 5 (machines of several counts) says "each machine's GPUs"; a run's hover says its own.
    assert axis_unit(figure) in {unit_words(tput == "gpu", 8), unit_words(tput == "gpu", None)}
    unit = unit_words(tput == "gpu", 8)
    ours = rows[(rows["hardware"] == "h200") & (rows["n_gpus"] == 8)]
    traces = drawn_on(figure, overlay_traces(ours, kind))
    assert traces
    for t in traces:
        for k in range(len(t["x"])):
            said = hover_text(t, k)
            assert f"{shown(t['x'][k])} tok/s {unit} · " in said, said  # e.g. "1,234 tok/s per GPU"
            if tput == "gpu":
                assert "per instance" not in said
            assert f"stack {t['meta']['framework']} {SYMBOL_SIGN[framework_symbol(t['meta']['framework'])]} · " in said
    # Per instance, a run on another count says its own: the axis's count is the current machine's.
    other = overlay_traces(rows[(rows["hardware"] == "h200") & (rows["n_gpus"] != 8)].assign(n_gpus=4), kind)
    if tput == "instance" and other:
        assert " tok/s per instance (4\u00a0GPUs) · " in hover_text(other[0], 0)


def test_the_inferencex_figure_says_per_gpu_as_its_axis(rows):
    fig = inferencex_figure(Scenario.from_params(**default_params("h200x8")), rows)
    assert "per GPU" in fig["layout"]["yaxis"]["title"]["text"]
    for t in fig["data"]:
        if "hovertemplate" in t:
            assert "tok/s per GPU" in t["hovertemplate"] and "tok/s/GPU" not in t["hovertemplate"], t["name"]


def test_inferencex_colours_points_by_gpu_and_marks_each_stack(rows):
    """Same GPU, two stacks: one colour, two symbols; two GPUs: each its palette.GPU colour."""
    scn = Scenario.from_params(**default_params("h200x8"))
    fig = inferencex_figure(scn, rows, {"hardware": "all", "precision": "all", "topology": "all"})
    points = [t for t in fig["data"] if (t.get("meta") or {}).get("measured")]
    by = {(t["meta"]["hardware"], t["meta"]["framework"]): t for t in points}
    h200 = [t for (gpu, _), t in by.items() if gpu == "h200"]
    assert len(h200) >= 2  # sglang, trt, vllm in the fixture
    assert {t["marker"]["color"] for t in h200} == {P.GPU["h200"]}
    assert len({t["marker"]["symbol"] for t in h200}) == len(h200)
    gpus = {gpu for gpu, _ in by}
    assert len(gpus) >= 2
    for (gpu, framework), t in by.items():
        assert t["marker"]["color"] == P.GPU[gpu]
        assert t["marker"]["symbol"] == framework_symbol(framework)
        # The legend and the hover name the GPU and the stack with its marker.
        assert t["name"] == f"{GPUS[gpu].name} · {framework}"
        sign = SYMBOL_SIGN[framework_symbol(framework)]
        assert f"stack %{{customdata[2]}} {sign} · " in t["hovertemplate"]
        assert {c[2] for c in t["customdata"]} == {framework}
    assert len({P.GPU[g] for g in gpus}) == len(gpus)
    # The same stack keeps its symbol on every GPU; the model curves take no GPU's colour.
    for framework in {f for _, f in by}:
        assert len({t["marker"]["symbol"] for (_, f), t in by.items() if f == framework}) == 1
    curves = [t for t in fig["data"] if "model" in (t.get("meta") or {})]
    assert curves and not {t["line"]["color"] for t in curves} & set(P.GPU.values())


def test_a_stack_the_table_lacks_keeps_one_symbol():
    assert framework_symbol("newstack") == framework_symbol("newstack")
    assert framework_symbol("newstack") in SYMBOL_SIGN
