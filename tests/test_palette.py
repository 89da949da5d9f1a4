"""A colour keeps one meaning across figures: the five limit colours (inferx.palette.REGIME) mark only their limit,
and every other series (machines, reference curves, frameworks) takes a series colour."""

from __future__ import annotations

import re

import pytest

from inferx import palette as P
from inferx.analysis import regimes
from inferx.data.measured import load_measured
from inferx.figures import registry
from inferx.figures.measured import divergence_figure, inferencex_figure, overlay_traces
from inferx.physics.presets import HARDWARE
from inferx.scenario.evaluation import Scenario

REGIME_OF = {colour.upper(): key for key, colour in P.REGIME.items()}
REGIME_OF.update({shade.upper(): key for key, shade in P.TEXT.items()})  # each limit's colour darkened for text
# The traces that draw a limit, by figure and name: Figure 3's prefill floor (compute) and queueing wait, Figure
# 10's runs of the frontier (named by their limit), and the explorer's dot (the limit binding at its batch).
REGIME_TRACES = {
    ("fig3", "Prefill t<sub>prefill</sub>(S<sub>in</sub>)"): "compute",
    ("fig3", "Queueing wait"): "queue",
    ("fig3", "Queueing wait and per-request costs"): "queue",  # calibrated mode's name for it
    **{("fig10", label): key for key, label in regimes.LABELS.items()},
}
# What a mark in a limit's colour may say: B* and the ITL floor are the bandwidth limit's, B_max the KV cache's,
# ρ > 0.85 the queue's.
MARK_TEXT = {
    "bandwidth": r"B\* =|ITL floor",
    "compute": r"compute-bound from",
    "kv_capacity": r"B<sub>max</sub>",
    "queue": r"ρ > 0\.85",
}

SCENARIOS = [
    {},
    {"preset": "mi300x4"},
    {"preset": "b200x8", "ctx": 8192},
    {"ctx": 32768, "kvdtype": "fp16"},
    {"model": "llama-3.3-70b", "wdtype": "fp16", "kvdtype": "fp16"},
    {"wdtype": "fp4", "kvdtype": "fp8", "tp": 4, "pp": 4, "ic": "infiniband"},
    {"mode": "calibrated"},
    {"model": "llama-3.3-70b"},
]


def colours(trace: dict) -> set[str]:
    found = {(trace.get(part) or {}).get("color") for part in ("line", "marker")}
    return {c.upper() for c in found if isinstance(c, str)}


def check_traces(key: str, fig: dict, scn: Scenario | None = None) -> list[str]:
    wrong = []
    for trace in fig["data"]:
        for colour in colours(trace) & set(REGIME_OF):
            name = trace.get("name", "")
            if key == "fig6" and name == "Operating point" and scn is not None:
                expected = str(regimes.binding(scn, [trace["customdata"][0][0]])[0])
            else:
                expected = REGIME_TRACES.get((key, name))
            if REGIME_OF[colour] != expected:
                wrong.append(f"{key}: trace {name!r} is {colour}, the colour of {REGIME_OF[colour]}")
    return wrong


def check_marks(key: str, fig: dict) -> list[str]:
    """A line or label in a limit's colour marks that limit (dashed lines are placed with their labels)."""
    wrong = []
    for a in fig["layout"].get("annotations", []):
        colour = str((a.get("font") or {}).get("color", "")).upper()
        limit = REGIME_OF.get(colour)
        if limit and not re.search(MARK_TEXT.get(limit, "(?!)"), a["text"]):
            wrong.append(f"{key}: label {a['text']!r} is {colour}, the colour of {limit}")
    return wrong


@pytest.mark.parametrize("params", SCENARIOS, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()) or "default")
def test_no_figure_draws_a_series_in_a_limits_colour(params):
    scn = Scenario.from_params(**params)
    figs = registry.build(scn)
    wrong = [w for key, fig in figs.items() for w in check_traces(key, fig, scn) + check_marks(key, fig)]
    assert wrong == []
    # The check sees the limits' own traces (it would pass vacuously on figures without any).
    drawn = {(k, t.get("name")) for k, f in figs.items() for t in f["data"] if colours(t) & set(REGIME_OF)}
    assert ("fig6", "Operating point") in drawn and any(k == "fig10" for k, _ in drawn)


def test_measured_points_and_model_curves_take_series_colours(measured_paths):
    df = load_measured(measured_paths.csv)
    scn = Scenario.from_params()
    figs = {
        "inferencex": inferencex_figure(scn, df, {"isl": "all", "osl": "all"}),
        "divergence": divergence_figure(df),
        "overlay": {"data": overlay_traces(df, "fig4") + overlay_traces(df, "fig5"), "layout": {}},
    }
    assert all(f["data"] for f in figs.values())
    assert [w for key, fig in figs.items() for w in check_traces(key, fig)] == []


def luminance(hex_colour: str) -> float:
    """WCAG relative luminance of "#RRGGBB" or "#RGB"."""
    digits = hex_colour[1:] if len(hex_colour) == 7 else "".join(2 * d for d in hex_colour[1:])

    def channel(v: int) -> float:
        c = v / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(int(digits[i : i + 2], 16)) for i in (0, 2, 4))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize("params", SCENARIOS, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()) or "default")
def test_every_label_reads_on_the_light_card(params):
    """Text in a figure has 4.5:1 on white (WCAG AA): a limit's colour is darkened for it (palette.TEXT);
    Figure 3's B_max label in the KV capacity's vermillion was 3.9:1."""
    faint = [
        (key, a["text"], a["font"]["color"])
        for key, fig in registry.build(Scenario.from_params(**params)).items()
        for a in fig["layout"].get("annotations", [])
        if str((a.get("font") or {}).get("color", "")).startswith("#") and contrast(a["font"]["color"], "#FFFFFF") < 4.5
    ]
    assert faint == []


def test_the_palettes_are_disjoint_and_legible():
    regime = {c.upper() for c in P.REGIME.values()}
    series = {c.upper() for c in (*P.MACHINE.values(), P.GREY)}  # the preset machines' colours and grey
    assert not regime & series and P.CURRENT.upper() not in regime | series
    assert {hw.colour.upper() for hw in HARDWARE.values()} <= series
    assert len({hw.colour for hw in HARDWARE.values()}) == len(HARDWARE)
    assert all(contrast(shade, "#FFFFFF") >= 4.5 for shade in P.TEXT.values()), P.TEXT

    dark_card = "#1C2026"  # style.css --ix-surface in the dark theme
    for colour in (*P.MACHINE.values(), P.GREY):
        assert contrast(colour, "#FFFFFF") >= (2.2 if colour == P.SKY else 4.5), colour
        assert contrast(colour, dark_card) >= 3.0, colour


def _lab(colour: str) -> tuple[float, float, float]:
    """CIE L*a*b* (D65) of "#RRGGBB", for a colour difference as the eye sees it."""

    def linear(v: int) -> float:
        c = v / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(int(colour[i : i + 2], 16)) for i in (1, 3, 5))
    x, y, z = (
        (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047,
        0.2126 * r + 0.7152 * g + 0.0722 * b,
        (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883,
    )

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def delta_e(a: str, b: str) -> float:
    return sum((p - q) ** 2 for p, q in zip(_lab(a), _lab(b), strict=True)) ** 0.5


def test_the_parts_of_a_tokens_time_take_colours_no_limit_or_gpu_has():
    """The "Where the time goes" bars: each part its own colour, told apart from the others and from every limit's
    and GPU's (CIE76 ΔE ≥ 20, clearly different side by side), so no bar reads as a limit binding or a machine."""
    parts = list(P.PART.values())
    taken = [*P.REGIME.values(), *P.TEXT.values(), *P.GPU.values(), P.SPARE, P.GREY, *P.RAMP, P.CURRENT, P.GUIDE]
    assert len(set(parts)) == len(parts) and not {c.upper() for c in parts} & {c.upper() for c in taken}
    close = [(a, b, round(delta_e(a, b))) for i, a in enumerate(parts) for b in parts[i + 1 :] + taken
             if delta_e(a, b) < 20]  # fmt: skip
    assert close == []
