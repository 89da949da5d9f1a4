"""Figures that make their point (issue 64): the x scale each frontier figure opens on and its log/linear switch,
axis ranges from the data drawn, direct labels in place of a puzzling legend, one name for the ρ band, and one
colour per GPU on every figure, a pinned A's included."""

from __future__ import annotations

import re

import numpy as np
import pytest

from inferx import palette as P
from inferx.analysis.regimes import RHO_BAND, RHO_QUEUE
from inferx.figures import registry, style, variants
from inferx.figures.curves import LOG_SPAN, x_scale_toggle, x_spans_decades
from inferx.physics.hardware import GPUS
from inferx.scenario.evaluation import Scenario

FRONTIER_FIGURES = ("fig4", "fig5", "fig6", "fig7", "fig9", "fig10")  # throughput on x
SCENARIOS = [
    {},
    {"preset": "mi300x4"},
    {"preset": "b200x8", "ctx": 8192},
    {"mode": "calibrated"},
    {"model": "gemma-3-27b", "gpu": "l40s", "gpus": 2, "tp": 2},
    {"model": "llama-3.3-70b", "gpu": "mi355x", "gpus": 1, "tp": 1, "wdtype": "fp4"},
]
IDS = [",".join(f"{k}={v}" for k, v in p.items()) or "default" for p in SCENARIOS]


def drawn_x(fig: dict) -> np.ndarray:
    xs = [np.asarray(t["x"], dtype=float) for t in fig["data"] if t.get("visible", True) is True and t.get("x")]
    xs = np.concatenate(xs) if xs else np.empty(0)
    return xs[np.isfinite(xs) & (xs > 0)]


def buttons(fig: dict) -> dict:
    (menu,) = fig["layout"]["updatemenus"]
    return {b["label"]: b["args"][0] for b in menu["buttons"]} | {"active": menu["active"]}


@pytest.mark.parametrize("params", SCENARIOS, ids=IDS)
def test_every_frontier_figure_has_the_switch_and_opens_on_log_where_its_data_span_two_decades(params):
    figs = registry.build(Scenario.from_params(**params), FRONTIER_FIGURES)
    for key, fig in figs.items():
        if not fig["data"]:
            continue
        x = drawn_x(fig)
        wide = x.max() >= LOG_SPAN * x.min()
        axis = fig["layout"]["xaxis"]
        assert axis["type"] == ("log" if wide else "linear"), (key, x.min(), x.max())
        b = buttons(fig)
        assert set(b) == {"linear x", "log x", "active"}, key
        assert b["active"] == int(wide), key  # the button shown pressed is the scale drawn
        assert b["linear x"]["xaxis.type"] == "linear" and b["log x"]["xaxis.type"] == "log"
        # Every annotation placed on x moves with the scale: at its value on linear, at log10 of it on log.
        on_x = [k for k, a in enumerate(fig["layout"]["annotations"]) if a.get("xref") == "x"]
        for k in on_x:
            linear, log = b["linear x"][f"annotations[{k}].x"], b["log x"][f"annotations[{k}].x"]
            assert log == pytest.approx(np.log10(linear)), (key, k)
            drawn = fig["layout"]["annotations"][k]["x"]
            assert drawn == pytest.approx(log if wide else linear), (key, k)


def test_the_defaults_open_on_log_x_and_the_explorers_dot_leaves_the_corner():
    """At the defaults every frontier spans well over two decades (457 to 241k tok/s): all open on log, and the
    explorer's dot at B = 8 sits away from the y axis, not in the corner of a linear axis."""
    figs = registry.build(Scenario.from_params(), FRONTIER_FIGURES)
    assert {k: f["layout"]["xaxis"]["type"] for k, f in figs.items()} == dict.fromkeys(FRONTIER_FIGURES, "log")
    explorer = figs["fig6"]
    low, high = explorer["layout"]["xaxis"]["range"]
    dot = explorer["data"][1]["x"][0]
    assert (np.log10(dot) - low) / (high - low) > 0.2
    # The explorer's buttons carry a fixed range for each scale (its animation keeps the axes still).
    b = buttons(explorer)
    assert b["linear x"]["xaxis.range"][0] == 0 and b["log x"]["xaxis.range"] == [low, high]


@pytest.mark.parametrize(("span", "scale"), [(20.0, "linear"), (99.0, "linear"), (100.0, "log"), (5e4, "log")])
def test_the_scale_follows_the_span_of_the_traces_drawn(span, scale):
    layout = style.plot_layout("x", "y")
    data = [
        style.line_trace("shown", np.array([10.0, 10.0 * span]), np.array([1.0, 2.0]), P.CURRENT),
        # A hidden trace and a point at zero do not count.
        style.line_trace("hidden", np.array([1e-3, 1e9]), np.array([1.0, 2.0]), P.CURRENT, visible=False),
        style.line_trace("zero", np.array([0.0]), np.array([1.0]), P.CURRENT),
    ]
    assert x_spans_decades(data) == (scale == "log")
    x_scale_toggle(layout, data)
    assert layout["xaxis"]["type"] == scale and layout["updatemenus"][0]["active"] == (scale == "log")


def test_figure_7s_ttft_axis_reaches_only_a_little_over_its_curves():
    """FP16 weights do not fit 8×H200: the note naming them once made autorange reach 5.9·10⁶ ms over curves
    under 2,300 ms. The axis now takes the curves and a small frame's three lines of room, the note at its top
    left, where no frontier runs."""
    fig = registry.build(Scenario.from_params(), ["fig7"])["fig7"]
    notes = [a for a in fig["layout"]["annotations"] if "does not fit" in a["text"] or "needs" in a["text"]]
    assert notes and notes[0]["xanchor"] == "left"
    y = np.concatenate([np.asarray(t["y"], dtype=float) for t in fig["data"]])
    top = fig["layout"]["yaxis"]["autorangeoptions"]["include"][0]
    assert y.max() < top < 100 * y.max() and top < 3e5


@pytest.mark.parametrize("params", SCENARIOS[:4], ids=IDS[:4])
def test_figure_12_keeps_the_whole_e2e_curve_on_the_plot(params):
    fig = registry.build(Scenario.from_params(**params), ["fig12"])["fig12"]
    e2e = next(t for t in fig["data"] if t["name"].startswith("E2E"))
    assert fig["layout"]["yaxis"]["autorangeoptions"]["include"][0] > max(e2e["y"])


def test_figure_14_draws_its_axis_from_the_realistic_curves_and_labels_the_one_off_scale():
    fig = registry.build(Scenario.from_params(), ["fig14"])["fig14"]
    low, high = fig["layout"]["yaxis"]["range"]
    solid = [t for t in fig["data"] if t.get("mode", "lines") == "lines" and t["line"].get("dash") == "solid"]
    y = np.log10(np.concatenate([t["y"] for t in solid]))
    assert low < y.min() and y.max() < high < y.max() + 0.2  # the realistic curves fill the axis
    off = [t for t in fig["data"] if (t.get("meta") or {}).get("offScale")]
    assert [t["name"] for t in off] == ["SRAM draft (150 TB/s), article verify"] and max(off[0]["y"]) > 100
    (label,) = [a for a in fig["layout"]["annotations"] if a.get("name") == "off-scale"]
    assert label["text"].startswith("SRAM draft, article verify: off scale, up to 124") and label["y"] == high


@pytest.mark.parametrize("params", [{}, {"preset": "b200x8"}, {"tp": 4, "pp": 4, "ic": "infiniband"}])
def test_figure_8_names_its_lines_beside_them_and_lists_nothing_undrawn(params):
    """Five legend entries for two visible lines read as a puzzle: no legend, and each line labelled where it
    runs with every configuration drawn on it (as markers where it coincides)."""
    fig = registry.build(Scenario.from_params(**params), ["fig8"])["fig8"]
    assert fig["layout"]["showlegend"] is False
    labels = [a["text"] for a in fig["layout"]["annotations"] if a.get("name") == "direct-label"]
    lines = [t for t in fig["data"] if t.get("mode", "lines") == "lines"]
    assert len(labels) == len(lines)
    said = "<br>".join(labels)
    for t in fig["data"]:
        assert variants.short_name(t).split(" ≈ ")[0].split(" = ")[0] in said, t["name"]


def test_the_rho_band_has_one_name_and_one_edge_on_every_figure_and_sentence():
    figs = registry.build(Scenario.from_params())
    assert style.RHO_PRACTICAL == RHO_QUEUE and RHO_BAND == f"ρ > {RHO_QUEUE:g}: queue-bound"
    named = {key: [a["text"] for a in fig["layout"]["annotations"] if "ρ >" in a["text"]] for key, fig in figs.items()}
    assert named["fig3"] == [f"{RHO_BAND} →"] and named["fig6"] == [RHO_BAND]
    assert "queue-bound" in {t["name"] for t in figs["fig10"]["data"]}  # Figure 10 names the same stretch
    words = " ".join(f"{f.caption} {f.subtitle}" for f in registry.FIGURES.values())
    words += " ".join(a["text"] for fig in figs.values() for a in fig["layout"]["annotations"])
    assert "unstable" not in words
    # Every edge given to the band ("ρ > …", "past ρ = …"; Figure 5's curves stop at ρ = 0.99, another thing).
    edges = re.findall(r"(?:\\rho|ρ)\s*>\s*([\d.]+)|past \$?(?:\\rho|ρ)\s*=\s*([\d.]+)", words)
    assert len(edges) >= 4 and {float(next(v for v in rho if v)) for rho in edges} == {RHO_QUEUE}
    assert RHO_BAND in registry.FIGURES["fig3"].caption and RHO_BAND in registry.FIGURES["fig10"].caption


def gpu_of_machine(name: str) -> str | None:
    """The GPU key a trace's name gives as its machine ("8×H200 (current): …", "A: 4×MI300X (preset)")."""
    m = re.match(r"(?:A: )?\d+×(.+?)(?: \(|:|$)", name)
    if not m:
        return None
    return next((key for key, gpu in GPUS.items() if m.group(1) in (gpu.name, gpu.name.split()[0])), None)


@pytest.mark.parametrize(
    ("current", "pinned"),
    [({}, {"preset": "mi300x4"}), ({"preset": "mi300x4"}, {}), ({"preset": "b200x8"}, {"gpu": "mi355x", "gpus": 8})],
)
def test_a_gpu_has_one_colour_on_every_figure_and_when_pinned(current, pinned):
    """4×MI300X pinned beside 8×H200 once drew MI300X black and H200 violet on Figure 5."""
    figs = registry.build(Scenario.from_params(**current), pinned=Scenario.from_params(**pinned))
    gpu_colours = {c.upper(): key for key, c in P.GPU.items()}
    seen = {}
    for key, fig in figs.items():
        for t in fig["data"]:
            colour = ((t.get("line") or {}).get("color") or (t.get("marker") or {}).get("color") or "").upper()
            gpu = gpu_of_machine(t.get("name", ""))
            if gpu is not None and t.get("mode", "lines") == "lines":
                assert colour == P.gpu_colour(gpu).upper(), (key, t["name"], colour)
                seen.setdefault(gpu, set()).add(key)
            elif colour in gpu_colours:  # a GPU's colour draws that GPU's machine only
                pytest.fail(f"{key}: {t.get('name')!r} is {colour}, the colour of {gpu_colours[colour]}")
    machines = {Scenario.from_params(**p).params["gpu"] for p in (current, pinned)}
    assert all({"fig5", "fig7", "fig8", "fig9"} <= seen[gpu] for gpu in machines), seen


def test_the_gpu_colours_are_their_own_and_read_on_both_cards():
    assert set(P.GPU) == set(GPUS)
    colours = [c.upper() for c in P.GPU.values()]
    assert len(set(colours)) == len(colours)
    assert not set(colours) & {c.upper() for c in (*P.REGIME.values(), P.CURRENT, P.GUIDE, *P.RAMP, P.SPARE)}
    assert P.gpu_colour("not-a-gpu") == P.SPARE
    from test_palette import contrast  # noqa: PLC0415

    for colour in colours:
        assert contrast(P.text(colour), "#FFFFFF") >= 4.5, colour  # its labels


def test_ordered_parameters_take_the_grey_ramp_in_their_order():
    ramp = P.ramp(4)
    assert ramp[0] == "#959595" and ramp[-1] == "#4D4D4D"
    levels = [int(c[1:3], 16) for c in ramp]
    assert levels == sorted(levels, reverse=True)  # darker as the value grows
    assert all(c[1:3] == c[3:5] == c[5:7] for c in ramp)  # greys: no hue, which is a GPU's or a limit's
    fig2 = registry.build(Scenario.from_params(ctx=1024), ["fig2"])["fig2"]
    refs = {t["name"].split(", B")[0]: t["line"]["color"] for t in fig2["data"] if "(current)" not in t["name"]}
    assert int(refs["S = 8,192"][1:3], 16) > int(refs["S = 32,768"][1:3], 16)  # the longer context darker
