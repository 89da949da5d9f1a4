"""The figures and readouts beyond the article, as the figure registry and the explorer read them: each reads
the scenario's own targets and prices (the `ttft`, `tpot`, `price` and `power` controls) and has the
registry's signature `builder(scn, batch)`.
"""

from __future__ import annotations

import functools
import re

import numpy as np

from inferx import palette as P
from inferx.analysis import economics, regimes, slo
from inferx.analysis.answers import ANSWER_OF_MODE, HELD_OUT_KINDS, expected_error
from inferx.analysis.comparison import ERROR_WORDS, error_said
from inferx.figures import studies
from inferx.figures import style as F
from inferx.figures.both import readouts_in_both_modes
from inferx.figures.breakdown import time_parts_figure
from inferx.figures.curves import x_scale_toggle
from inferx.figures.explorer import explorer as explorer_figure
from inferx.figures.style import memoised
from inferx.scenario.evaluation import Scenario
from inferx.scenario.frontier import EXPLORER_POINTS, frontier
from inferx.text import number

BEYOND_CONTROLS = ("ttft", "tpot", "price", "power")  # read by Figures 10 and 11 and the explorer's readouts


def _controls_but(*ignored: str):
    """A memo key: the scenario (its SI fields, every engine input) and every control but `ignored`, which
    may name things in labels."""
    return lambda scn: (scn, tuple(v for k, v in scn.params.items() if k not in ignored))


def _weights(scn: Scenario) -> tuple:
    # Figure 15 reads the model, the weights' format and HBM (whether they fit, with what attention DP replicates),
    # nothing of the workload.
    return scn.model, scn.params["wdtype"], scn.hbm, scn.replicated


def dense_frontier(scn: Scenario) -> list[tuple]:
    """The frontier Figures 10 and 12 draw (160 samples, no explorer batch), as a key of the redraw's one pass."""
    return [(scn, EXPLORER_POINTS, None)]


def price(scn: Scenario) -> float | None:
    """The $/GPU-hour control; None (the control left 'assumed') takes the GPU's assumed price."""
    return scn.params["price"]


@functools.lru_cache(maxsize=32)
def _goodput(scn: Scenario, machine: tuple, ttft: float, tpot: float, usd: float | None, power: float) -> dict:
    # `machine` is in the key because a Scenario compares by its SI fields only, and the price is per GPU.
    return slo.goodput(scn, ttft, tpot, usd, power)


def goodput(scn: Scenario) -> dict:
    """`slo.goodput` under the scenario's targets, price and power fraction (cached: the explorer and the
    regimes figure both read it on a redraw, and a batch-only redraw reads it again)."""
    p = scn.params
    return _goodput(scn, (p["gpu"], p["gpus"]), p["ttft"], p["tpot"], price(scn), p["power"])


def money(usd: float) -> str:
    return f"${usd:,.3g}" if usd < 100 else f"${usd:,.0f}"


def goodput_text(scn: Scenario) -> str:
    """The goodput readout: the largest batch meeting both targets, its throughput, cost and energy, under the
    scenario's model first and then the other (ideal beside expected), the expected one with how far it may be
    off."""
    g = goodput(scn)
    targets = f"TTFT ≤ {g['ttft_target_ms']:,.6g} ms and TPOT ≤ {g['tpot_target_ms']:,.6g} ms"
    other = scn.with_params(mode="calibrated" if scn.mode == "article" else "article")
    first, second = (_goodput_answer(s, goodput(s)) for s in (scn, other))
    return f"Under {targets}, {first} {second[0].upper()}{second[1:]}"


def _goodput_answer(scn: Scenario, g: dict) -> str:
    name = f"{ANSWER_OF_MODE[scn.mode]} ({_basis(scn)})"
    if not g["batch"]:
        return f"{name}: no batch size meets them: {g['reason']}."
    return (
        # Three significant figures: the model is not good to the token per second.
        f"{name}: up to B = {g['batch']:,}, {F.si(g['throughput_tok_s'], unit='tok/s')} "
        f"({F.si(g['throughput_per_gpu_tok_s'], unit='tok/s')} per GPU), {money(g['cost_per_mtok_usd'])} per "
        "million tokens, "
        f"{number(g['tokens_per_joule'])} tok/J; the {slo.LIMITED_BY[g['limited_by']]} stops a larger batch."
    )


def _basis(scn: Scenario) -> str:
    """What an answer is: the article's bound, or the calibrated model with how far it has been from runs."""
    if scn.mode == "article":
        return "article physics, the bound"
    error = expected_error(scn)
    # The first metric its kind of extrapolation has been scored on (TPOT for DeepSeek-R1's calibrations; the
    # published maximum throughput's for another model), whichever the error has.
    key = next((k for k in ERROR_WORDS if error.get(k)), None)
    if key is None:
        return f"calibrated; {error_said(error)}"
    median, p90 = (round(100 * e) for e in error[key])
    if error["kind"] == "unseen GPU":
        where = "on GPUs left out of the fit"
    elif error["kind"] in HELD_OUT_KINDS:
        where = f"on runs held out as its kind ({error['kind']})"
    else:
        where = "on its measured runs"
    return f"calibrated; {ERROR_WORDS[key]} off by {median} % at the median, {p90} % at p90 {where}"


def readouts(scn: Scenario, batch: int) -> dict:
    """What the explorer's readouts need beyond its frontier: the machine's $/hour and watts (cost per million
    tokens and tokens per joule are those over the throughput, which the browser reads at the dot), the
    price's provenance, the binding-regime sentence at `batch` and the goodput line."""
    econ = economics.along(scn, 1.0, price(scn), scn.params["power"], batch)
    assumed = "assumed" if price(scn) is None else "given"
    return {
        "usdPerHour": econ["usd_per_hour"],
        "watts": float(econ["watts"]),
        "priceNote": f"{econ['gpus']}×{econ['gpu'].upper()} at ${econ['usd_per_gpu_hour']:.2f}/GPU-h ({assumed})",
        "regime": regimes.sentence(scn, batch) + "." if batch < scn.b_max else "",
        "goodput": goodput_text(scn),
    }


def batch_past_b_max(scn: Scenario, batch: int) -> str:
    """What the explorer says of a batch at or past B_max, where it marks the largest batch it draws instead
    (the page's notice and the CLI's note); empty for a batch below it."""
    if not 1 <= scn.b_max <= batch:
        return ""
    return (f"Batch {batch:,} is not below B_max = {scn.b_max:,} of these settings, where the queue never drains: "
            "the explorer shows the largest batch it draws.")  # fmt: skip


def explorer(scn: Scenario, batch: int = F.DEFAULT_BATCH) -> dict:
    """Figure 6 with the readouts of `readouts` in its layout's `meta` (the browser fills the readouts), and the
    binding limit of every sample as a fourth customdata column (an index into `meta.regimes`): the browser
    colours the dot and the readouts by it, with the colours Figure 10 uses; and as a fifth the machine's watts
    drawn there, over which the browser reads the energy per token. `meta.timeParts` is the figure of where that
    batch's inter-token latency goes under both models (`figures.breakdown`), drawn under the explorer on `/`."""
    fig = explorer_figure(scn, batch)
    if scn.unfit_reason() or not fig["data"]:
        # The bars under the explorer say why they are empty too.
        fig["layout"]["meta"] = {"timeParts": time_parts_figure(scn, batch)}
        return fig
    line, dot = fig["data"][:2]
    r = frontier(scn, EXPLORER_POINTS, int(batch))  # the line's samples, kept from the redraw's one pass
    limits = regimes.binding_index(scn, r["batch"]).tolist()
    # The watts drawn at each sample: calibrated mode's draw grows with the load (`economics.drawn_fraction`).
    watts = np.broadcast_to(economics.along(scn, 1.0, price(scn), scn.params["power"], r["batch"])["watts"],
                            r["batch"].shape)  # fmt: skip
    watts = F.round_sig(watts, F.READOUT_DIGITS)
    for row, k, w in zip(line["customdata"], limits, watts, strict=True):  # in place: 160-odd new rows cost more
        row += [k, w]
    i = int(np.searchsorted(r["batch"], dot["customdata"][0][0]))  # the dot sits on one of the samples
    at = limits[i]
    dot["customdata"] = [[*dot["customdata"][0][:3], at, watts[i]]]
    dot["marker"]["color"] = studies.REGIME_COLOURS[regimes.PRIORITY[at]]
    meta = readouts(scn, batch)
    meta["regimes"] = [
        {"key": key, "label": regimes.LABELS[key], "colour": studies.REGIME_COLOURS[key]} for key in regimes.PRIORITY
    ]
    meta["rhoUnstable"] = F.RHO_PRACTICAL
    # The ideal beside the expected at the dot's batch (the one drawn: a batch past B_max is drawn at the last).
    meta["both"] = readouts_in_both_modes(scn, int(dot["customdata"][0][0]))
    # Where that batch's inter-token latency goes, under both models: the bars under the explorer.
    meta["timeParts"] = time_parts_figure(scn, int(dot["customdata"][0][0]))
    fig["layout"]["meta"] = meta
    return fig


SLO_BAND = "rgba(110, 110, 110, 0.22)"  # grey: every regime colour stays readable over it
BEST = {"symbol": "star", "size": 16, "color": "#F0E442", "line": {"color": "#000000", "width": 1.2}}


@memoised(_controls_but("price", "power"))
@F.json_ready
def regimes_slo(scn: Scenario, batch: int = F.DEFAULT_BATCH) -> dict:
    """The frontier coloured by the binding limit, the part meeting both targets underlaid in a wide green
    band, the TTFT target as a line and the best point that meets both as a star."""
    fig = studies.fig_regimes(scn)
    r = frontier(scn, EXPLORER_POINTS)
    if r is None:
        return fig
    p = scn.params
    ok = slo.meets(r["ttft"], r["itl"], p["ttft"] / 1e3, p["tpot"] / 1e3)
    if ok.any():
        band = F.line_trace(
            f"meets TTFT ≤ {p['ttft']:,.6g} ms and TPOT ≤ {p['tpot']:,.6g} ms",
            r["throughput"][ok],
            1e3 * r["ttft"][ok],
            SLO_BAND,
            width=14,
            hover="T = %{x:,.0f} tok/s",
            meta={"short": f"meets TTFT ≤ {p['ttft']:,.6g}, TPOT ≤ {p['tpot']:,.6g} ms", "backdrop": True},
        )
        band["hoverinfo"] = "skip"
        fig["data"].insert(0, band)
    else:  # said in the legend, where the band's entry would be: a note on the plot could sit on the curve
        none = F.line_trace(
            f"no batch size meets TTFT ≤ {p['ttft']:,.6g} ms and TPOT ≤ {p['tpot']:,.6g} ms",
            [],
            [],
            SLO_BAND,
            width=14,
            meta={"short": f"none meets TTFT ≤ {p['ttft']:,.6g}, TPOT ≤ {p['tpot']:,.6g} ms", "statement": True},
        )
        # One gap, not no point: plotly leaves a trace without points out of the legend.
        none.update(x=[None], y=[None], hoverinfo="skip")
        fig["data"].insert(0, none)
    F.add_hline(fig["layout"], p["ttft"], "#555555", f"TTFT target {p['ttft']:,.6g} ms", "left")
    F.decade_ticks(fig, redo=True)  # the target line may widen the axis past the curves
    g = goodput(scn)
    if g["batch"]:
        fig["data"].append(
            F.line_trace(
                f"best under the SLO: B = {g['batch']:,}",
                [g["throughput_tok_s"]],
                [g["ttft_ms"]],
                "#000000",
                mode="markers",
                marker=BEST,
                meta={"short": f"best: B = {g['batch']:,}"},
                hover=f"best under the SLO<br>B = {g['batch']:,}<br>T = %{{x:,.0f}} tok/s<br>TTFT = %{{y:,.3~r}} ms",
            )
        )
    fig["layout"]["showlegend"] = True
    x_scale_toggle(fig["layout"], fig["data"])
    return fig


@memoised(_controls_but())
@F.json_ready
def economics_fig(scn: Scenario, batch: int = F.DEFAULT_BATCH) -> dict:
    """Cost per million output tokens against interactivity, at the scenario's price and power fraction, the
    best point under the SLO starred."""
    fig = studies.fig_economics(scn, "cost", price(scn), scn.params["power"])
    if not fig["data"]:
        return fig
    g = goodput(scn)
    if g["batch"]:
        fig["data"].append(
            F.line_trace(
                f"best under the SLO: B = {g['batch']:,}",
                [1e3 / g["itl_ms"]],
                [g["cost_per_mtok_usd"]],
                "#000000",
                mode="markers",
                marker=BEST,
                hover=f"best under the SLO<br>B = {g['batch']:,}<br>%{{x:,.3~r}} tok/s/user"
                "<br>$%{y:,.4~r} per M tokens",
            )
        )
    return fig


@memoised(_controls_but(*BEYOND_CONTROLS))
def rate_fig(scn: Scenario, batch: int = F.DEFAULT_BATCH) -> dict:
    return studies.fig_rate(scn, scn.osl)  # E2E over the output length the controls give, in either mode


@memoised(_controls_but(*BEYOND_CONTROLS))
def spec_k(scn: Scenario, batch: int = F.DEFAULT_BATCH) -> dict:
    return studies.fig_spec_k(scn)


@memoised(_controls_but(*BEYOND_CONTROLS))
def spec_batch(scn: Scenario, batch: int = F.DEFAULT_BATCH) -> dict:
    """Figure 14, its crosses' "B = …" labels moved off the curves: printed beside the markers they sat on the
    lines below 1× and on each other (two crosses a few hundred requests apart). Each now hangs on an arrow,
    the first down and left into the empty corner, the next up and right."""
    fig = studies.fig_spec_batch(scn)
    layout = fig["layout"]
    crosses = [t for t in fig["data"] if t.get("mode") == "markers+text"]
    for k, t in enumerate(sorted(crosses, key=lambda t: t["x"][0])):
        text = t.pop("text")[0]
        t.pop("textposition", None)
        t["mode"] = "markers"
        layout["annotations"].append(
            {
                "text": text,
                "x": F.annotation_at(layout, "xaxis", t["x"][0]),
                "y": F.annotation_at(layout, "yaxis", t["y"][0]),
                "xref": "x",
                "yref": "y",
                "showarrow": True,
                "arrowhead": 0,
                "arrowwidth": 1,
                "arrowcolor": t["marker"]["color"],
                "ax": -34 if k % 2 == 0 else 34,
                "ay": 26 if k % 2 == 0 else -34,
                "font": t.pop("textfont"),
                "bgcolor": "rgba(255,255,255,0.85)",
            }
        )
    clip_to_realistic(fig)
    return fig


OFF_SCALE = 2.0  # a curve peaking this many times above the realistic ones' top is drawn off the axis, labelled
HEADROOM = 0.06  # of a log axis's span, above the highest realistic point


def clip_to_realistic(fig: dict) -> None:
    """Figure 14's speed-up axis from the realistic curves (the roofline verify's, solid), not from the
    article's compute-only verify on SRAM, whose 100× and more flattened them against the floor. A curve
    peaking past OFF_SCALE times their top leaves the plot through its top edge, labelled there with its peak."""
    lines = [t for t in fig["data"] if t.get("mode", "lines") == "lines" and t.get("y")]
    realistic = [t for t in lines if (t.get("line") or {}).get("dash", "solid") == "solid"]
    if not realistic:
        return
    top = max(max(t["y"]) for t in realistic)
    off = [t for t in lines if max(t["y"]) > OFF_SCALE * top]
    if not off:
        return
    shown = [y for t in fig["data"] if t not in off for y in t["y"] if y and y > 0]
    lo, hi = np.log10(min(shown)), np.log10(max(shown))
    pad = HEADROOM * max(hi - lo, 0.3)
    layout = fig["layout"]
    layout["yaxis"].update(range=[float(lo - pad), float(hi + pad)], autorange=False)
    # The batch axis fixed too: plotly's autorange widens an axis to hold a label placed on it, and the long
    # off-scale label on a phone's plot took this one to 10¹⁰ requests.
    xs = np.concatenate([np.asarray(t["x"], dtype=float) for t in lines])
    layout["xaxis"].update(range=[float(np.log10(xs.min())), float(np.log10(xs.max()))], autorange=False)
    for t in off:
        x, y = np.log10(np.asarray(t["x"], dtype=float)), np.log10(np.asarray(t["y"], dtype=float))
        above = y > hi + pad
        # Where it crosses the top edge: entering (a falling curve, labelled to the right of where it comes into
        # view) or leaving (a rising one, labelled to the left of where it goes).
        falling = bool(above[0])
        k = int(np.argmax(~above)) if falling else max(int(np.argmax(above)) - 1, 0)
        layout["annotations"].append(
            {
                "text": f"{re.sub(r' [(][^)]*[)]', '', t['name'])}: off scale, up to {max(t['y']):,.3g}× ↑",
                "x": float(x[k]),
                "y": float(hi + pad),
                "xref": "x",
                "yref": "y",
                "showarrow": False,
                "xanchor": "left" if falling else "right",
                "xshift": 6 if falling else -6,
                "yanchor": "top",
                "yshift": -2,
                "font": {"size": 11, "color": P.text(t["line"]["color"])},
                "bgcolor": "rgba(255,255,255,0.85)",
                "name": "off-scale",
            }
        )
        t.setdefault("meta", {})["offScale"] = True
    F.decade_ticks({"data": [t for t in fig["data"] if t not in off], "layout": layout}, redo=True)


@memoised(_weights)
def moe(scn: Scenario, batch: int = F.DEFAULT_BATCH) -> dict:
    # Like every figure of the page, none where the model does not fit the machine: no step exists to read.
    if scn.headroom <= 0:
        return F.does_not_fit(scn, "Batch size B (tokens per step)", "Weights read per step (GB)")
    return studies.fig_moe(scn)
