"""The figures of the analyses beyond the article (binding limit, cost and energy, request rate, speculative
decoding, MoE expert coverage), built from the numbers `inferx.analysis` computes."""

from __future__ import annotations

import numpy as np

from inferx import palette as P
from inferx.analysis.economics import along
from inferx.analysis.rate import CONCURRENCIES, N_OUT, little_rate, rate_curve
from inferx.analysis.regimes import SHORT_LABELS, segments
from inferx.analysis.spec import (
    ALPHA,
    ALPHAS,
    DRAFT_DEVICES,
    VERIFY_MODES,
    K,
    batch_grids,
    draft_step,
    expert_coverage,
    vanishing_batch,
    vanishing_grid,
    verify_time,
)
from inferx.figures.style import (
    CURRENT,
    add_hline,
    add_note,
    add_vline,
    json_ready,
    line_trace,
    plot_layout,
)
from inferx.palette import REGIME
from inferx.physics import engine as E
from inferx.scenario.batches import frontier_batches, log_batches
from inferx.scenario.evaluation import Scenario
from inferx.scenario.frontier import EXPLORER_POINTS, frontier, no_curve_reason
from inferx.text import number

LABEL_ROOM = 0.18  # share of a log axis's height kept over the last labelled point: a label's height in a 360 px frame

PEAK_LABEL = "peak"  # the `name` of the peak rate's label, which compare.merge may move off A's curves

E2E_ROOM = 0.05  # decades of the latency axis over the E2E curve's end

PEAK_ROOM = 1.6  # the rate axis ends this far past the peak rate, for the peak line's label

# A point label's width and height ("512" at 12 px) as shares of the axes of the smallest plot it is drawn in,
# a phone's (about 320 × 150 px): labels this close would run together.
LABEL_BOX = (22 / 320, 13 / 150)


def labels_apart(rate, latency, x_range, y_range) -> list[bool]:
    """Which points on the rising E2E curve (rate and latency both increasing) get a label, left to right,
    placed up and to the left of each: those whose label stays clear of the last one kept. Positions are
    log10 shares of the axes' `x_range` and `y_range`; near the peak rate, where concurrency doubles for a few
    per cent more rate, this drops every other label or more."""
    x = (np.log10(rate) - x_range[0]) / (x_range[1] - x_range[0])
    y = (np.log10(latency) - y_range[0]) / (y_range[1] - y_range[0])
    width, height = LABEL_BOX
    kept, last = [], None
    for xi, yi in zip(x, y, strict=True):
        clear = last is None or xi - x[last] >= width or yi - y[last] >= height
        kept.append(bool(clear))
        if clear:
            last = len(kept) - 1
    return kept


@json_ready
def fig_rate(scn: Scenario, n_out: int = N_OUT, concurrencies=CONCURRENCIES) -> dict:
    """TTFT and E2E (ms) against the request rate (req/s), both axes log, the fixed-concurrency points marked."""
    # Log rate: the benchmark's concurrencies double, so their points fall evenly along the axis.
    layout = plot_layout("Request rate λ (req/s)", "Latency (ms)", xlog=True, ylog=True)
    c = rate_curve(scn, n_out)
    if c is None:
        add_note(layout, f"No curve: {no_curve_reason(scn)}")
        return {"data": [], "layout": layout}
    hover = "λ = %{x:,.3~r} req/s<br>%{y:,.4~r} ms<br>C = %{customdata:,}"
    custom = c["batch"].astype(int).tolist()
    data = [
        line_trace("TTFT", c["rate"], 1e3 * c["ttft"], P.ramp(2)[0], hover=hover, custom=custom),
        line_trace(f"E2E ({n_out:,} output tokens)", c["rate"], 1e3 * c["e2e"], CURRENT, hover=hover, custom=custom),
    ]
    marks = np.array([b for b in concurrencies if b <= c["peak_batch"]], dtype=float)
    if marks.size:
        at = np.searchsorted(c["batch"], marks)
        if np.array_equal(c["batch"][np.minimum(at, c["batch"].size - 1)], marks):  # powers of two: samples
            e2e = c["e2e"][at]
        else:
            r = scn.evaluate(marks)
            e2e = E.e2e_latency(r["ttft"], n_out, r["itl"])
        lo = np.log10(1e3 * min(c["ttft"].min(), c["e2e"].min()))
        top = np.log10(1e3 * e2e[-1])
        x_range = (np.log10(c["rate"][0]), np.log10(c["peak_rate"] * PEAK_ROOM))
        # The top: room over the last labelled point for its label, and the whole E2E curve, which climbs past
        # that point to the peak (given only the label's room to include, the curve's end left the plot).
        high = max(lo + (top - lo) / (1 - LABEL_ROOM), np.log10(1e3 * c["e2e"].max()) + E2E_ROOM)
        y_range = (lo, high)
        labelled = labels_apart(little_rate(marks, e2e), 1e3 * e2e, x_range, y_range)
        data.append(
            line_trace(
                "fixed concurrency C, labelled (λ = C / E2E)",
                little_rate(marks, e2e),
                1e3 * e2e,
                "#000000",
                hover=hover,
                custom=marks.astype(int).tolist(),
                mode="markers+text",
                text=[f"{int(b)}" if shown else "" for b, shown in zip(marks, labelled, strict=True)],
                # Up and to the left of its point: E2E rises with the rate, so the curve there lies below the
                # label, and the peak line to the right of it. (Centred above or below, a label near the peak,
                # where the curve climbs steeply, sat on the curve or on the line.)
                textposition="top left",
                marker={"size": 7, "color": "#000000"},
            )
        )
        # Room over the last point for its label, which sits above it: plotly's autorange pads markers, not
        # text, and the E2E curve ends just above that point when the peak lies near it.
        layout["yaxis"]["autorangeoptions"] = {"include": [float(10.0**high)]}
    add_vline(layout, c["peak_rate"], "#555555", f"peak {number(c['peak_rate'])} req/s at C = {c['peak_batch']:,}")
    # Left of the line (the curves end at it), in the gap between TTFT and E2E where the label runs: their
    # geometric mean at half the peak rate (the axis is log), wherever the mode puts the two curves.
    half = np.log10(c["peak_rate"] / 2)
    gap = [np.interp(half, np.log10(c["rate"]), np.log10(1e3 * c[k])) for k in ("ttft", "e2e")]
    layout["annotations"][-1].update(
        xanchor="right", xshift=-4, y=float(np.mean(gap)), yref="y", yanchor="middle", name=PEAK_LABEL
    )
    # Fixed: the labels' text would otherwise widen plotly's autorange far past the peak.
    layout["xaxis"]["range"] = [float(np.log10(c["rate"][0])), float(np.log10(c["peak_rate"] * PEAK_ROOM))]
    return {"data": data, "layout": layout}


REGIME_COLOURS = REGIME  # inferx.palette: these five colours mean these limits on every figure


@json_ready
def fig_regimes(scn: Scenario) -> dict:
    """The throughput–TTFT frontier coloured by the limit that binds along it (one trace per run)."""
    layout = plot_layout("Output throughput (tok/s)", "Time to first token (ms)", ylog=True)
    layout["xaxis"]["rangemode"] = "tozero"  # from 0, as Figures 4, 5, 6 and 9
    r = frontier(scn, EXPLORER_POINTS)
    if r is None:
        add_note(layout, f"No curve: {no_curve_reason(scn)}")
        return {"data": [], "layout": layout}
    data, named = [], set()
    hover = "B = %{customdata:,}<br>T = %{x:,.0f} tok/s<br>TTFT = %{y:,.3~r} ms"
    for seg in segments(scn, r["batch"]):
        # Each run starts at the previous run's last point, so the coloured pieces join.
        a, b = max(0, seg["first"] - 1), seg["last"] + 1
        key = seg["regime"]
        data.append(
            line_trace(
                seg["label"],
                r["throughput"][a:b],
                1e3 * r["ttft"][a:b],
                REGIME_COLOURS[key],
                width=3.0,
                hover=hover,
                custom=r["batch"][a:b].astype(int).tolist(),
                legendgroup=key,
                showlegend=key not in named,
                meta={"short": SHORT_LABELS[key], "part": "frontier"},  # one curve: a pinned A joins them
            )
        )
        named.add(key)
    return {"data": data, "layout": layout}


Y_AXES = {
    "cost": ("Cost ($ per million output tokens)", "cost_per_mtok"),
    "per_dollar": ("Throughput per $/hour (tok/s per $/h)", "throughput_per_usd_hour"),
    "per_mw": ("Throughput per MW (tok/s per MW)", "throughput_per_mw"),
    "per_joule": ("Tokens per joule (tok/J)", "tokens_per_joule"),
}


@json_ready
def fig_economics(
    scn: Scenario, y: str = "per_dollar", usd_per_gpu_hour: float | None = None, power_fraction: float | None = None
) -> dict:
    """The frontier with an economic y-axis against interactivity (tok/s per user = 1 / ITL), as InferenceX
    draws its "per $" and "per MW" views. The price is an assumption (see `USD_PER_GPU_HOUR`)."""
    if y not in Y_AXES:
        raise ValueError(f"y must be one of {', '.join(Y_AXES)}, not {y!r}")
    title, key = Y_AXES[y]
    # The legend stays on for one trace: its name carries the price assumption.
    layout = plot_layout("Interactivity (tok/s per user)", title, xlog=True, ylog=y == "cost", showlegend=True)
    r = frontier(scn)
    if r is None:
        add_note(layout, f"No curve: {no_curve_reason(scn)}")
        return {"data": [], "layout": layout}
    econ = along(scn, r["throughput"], usd_per_gpu_hour, power_fraction, r["batch"])
    said = "assumed" if usd_per_gpu_hour is None else "given"
    name = f"{econ['gpus']}×{econ['gpu'].upper()} at ${econ['usd_per_gpu_hour']:.2f}/GPU-h ({said} price)"
    hover = "B = %{customdata:,}<br>%{x:,.3~r} tok/s/user<br>%{y:,.4~r}"
    trace = line_trace(name, 1.0 / r["itl"], econ[key], "#000000", hover=hover, custom=r["batch"].astype(int).tolist())
    return {"data": [trace], "layout": layout}


DRAFT_COLOURS = dict(zip(("gpu", "sram"), P.ramp(2), strict=True))  # the ramp by the draft's bandwidth

DRAFT_LABELS = {"gpu": "GPU draft (3.35 TB/s)", "sram": "SRAM draft (150 TB/s)"}


@json_ready
def fig_spec_k(scn: Scenario, alphas=ALPHAS, draft: str = "gpu", B: int = 1, k_max: int = 16) -> dict:
    """Effective ITL (ms) against draft length k for several acceptance rates α, at batch B, with the roofline
    verify (a target pass reads the weights); the article's compute-only verify dotted at its α = 0.8, and the
    un-assisted ITL dashed. Hover gives the speed-up."""
    layout = plot_layout("Draft length k (tokens)", "Effective ITL (ms)")
    layout["yaxis"]["rangemode"] = "tozero"
    if scn.unfit_reason():
        add_note(layout, f"No curve: {scn.unfit_reason()}")
        return {"data": [], "layout": layout}
    k = np.arange(1, k_max + 1, dtype=float)
    delta = draft_step(bw=DRAFT_DEVICES[draft])
    data = []
    # The plain ITL and each verify time are the same for every α: computed once (`speculative`, by hand).
    plain = scn.roofline_itl(np.atleast_1d(B))[0]
    hover = "k = %{x}<br>ITL_eff = %{y:,.3~r} ms<br>speed-up %{customdata}×"
    by_alpha = dict(zip(sorted(alphas), P.ramp(len(alphas)), strict=True))  # the ramp: α lowest lightest
    curves = [(f"α = {a:g}", a, "roofline", by_alpha[a], "solid") for a in alphas]
    # The article's verify leaves out the weight read, so it promises more than any pass can deliver.
    curves.append((f"α = {ALPHA:g}, article's verify", ALPHA, "article", by_alpha.get(ALPHA, CURRENT), "dot"))
    verify = {mode: verify_time(scn, k, B, mode) for mode in VERIFY_MODES}
    for name, alpha, mode, colour, dash in curves:
        itl_eff = E.itl_speculative(k, alpha, delta, verify[mode], E.expected_accepted(k, alpha))
        speed = [f"{x:.3g}" for x in plain / itl_eff]
        # A pinned A draws the article's α with the roofline verify alone (figures.compare `main_of_a`).
        main = alpha == ALPHA and mode == "roofline"
        data.append(
            line_trace(name, k, 1e3 * itl_eff, colour, dash=dash, hover=hover, custom=speed, mode="lines+markers",
                       **({} if main else {"meta": {"reference": True}}))
        )  # fmt: skip
    base = float(plain)
    # Above the line at the short drafts, on two lines (narrow): a verify pass costs about one plain step, so
    # there every curve is below the line (under it, the label met the lowest-acceptance curve on a phone).
    add_hline(layout, 1e3 * base, "#000000", f"no speculation:<br>{number(1e3 * base)} ms at B = {B:,}", "left")
    # On a backing, as other labels inside a plot: a pinned A's curves can pass behind it on a narrow graph.
    layout["annotations"][-1].update(align="left", bgcolor="rgba(255,255,255,0.85)")
    return {"data": data, "layout": layout}


@json_ready
def fig_spec_batch(scn: Scenario, k: int = K, alpha: float = ALPHA) -> dict:
    """Speed-up (×) against batch size for a GPU and an SRAM draft, each with both verify models; a labelled
    cross where a speed-up falls to 1 before B_max."""
    layout = plot_layout(
        "Batch size B (requests)", "Speed-up over plain decoding (×)", xlog=True, ylog=True, xcount=True
    )
    if scn.unfit_reason():
        add_note(layout, f"No curve: {scn.unfit_reason()}")
        return {"data": [], "layout": layout}
    B = frontier_batches(*batch_grids(scn)[0])
    grid, grid_base = vanishing_grid(scn)
    # The curves' batch sizes and vanishing_batch's first grid, end to end: one verify pass per model serves
    # all four curves and the first step of the four searches for where each ends (`speculative`, by hand).
    both = np.concatenate([B, grid])
    base = np.concatenate([scn.roofline_itl(B), grid_base])  # the plain ITL every curve divides
    k = np.asarray(k, dtype=float)
    accepted = E.expected_accepted(k, alpha)
    verify = {mode: verify_time(scn, k, both, mode) for mode in ("roofline", "article")}
    data = []
    for draft, bw in DRAFT_DEVICES.items():
        delta = draft_step(bw=bw)
        for mode, dash in (("roofline", "solid"), ("article", "dot")):
            speedup = base / E.itl_speculative(k, alpha, delta, verify[mode], accepted)
            b0 = vanishing_batch(scn, k, alpha, delta, mode, first=speedup[B.size :])
            name = f"{DRAFT_LABELS[draft]}, {mode} verify"
            hover = "B = %{x:,.0f}<br>speed-up %{y:,.3~r}×"
            # A pinned A draws the roofline verify alone (figures.compare `main_of_a`).
            ref = {} if mode == "roofline" else {"meta": {"reference": True}}
            data.append(line_trace(name, B, speedup[: B.size], DRAFT_COLOURS[draft], dash, hover=hover, **ref))
            if b0 is not None:  # a labelled dot where the gain ends; the two drafts' labels sit on opposite sides
                data.append(
                    line_trace(
                        f"{draft.upper()} draft, {mode} verify: no gain from B = {b0:,}",
                        [b0],
                        [1.0],
                        DRAFT_COLOURS[draft],
                        hover="speed-up ends at B = %{x:,.0f}",
                        mode="markers+text",
                        text=[f"B = {b0:,}"],
                        textposition="bottom left" if draft == "gpu" else "bottom right",
                        textfont={"color": P.text(DRAFT_COLOURS[draft]), "size": 11},
                        marker={"size": 9, "color": DRAFT_COLOURS[draft], "symbol": "x"},
                        showlegend=False,
                        **ref,
                    )
                )
    # Under the line: speculation pays at small batches, so every curve starts above it, and a short plot put
    # the label on them.
    add_hline(layout, 1.0, "#555555", "1× (no gain)", xanchor="left", below=True)
    return {"data": data, "layout": layout}


@json_ready
def fig_moe(scn: Scenario, b_end: int = 4096) -> dict:
    """Weight GB a decode step reads against batch size: the expected bytes with uniform routing, between
    P_active·b_w (the article's assumption) and P_total·b_w dashed; hover gives the distinct experts."""
    layout = plot_layout("Batch size B (tokens per step)", "Weights read per step (GB)", xlog=True, xcount=True)
    model = scn.model
    if not model.is_moe:  # every batch reads all the weights: a flat line halfway up, its note above it
        gb = model.p_total * scn.b_w / 1e9
        add_note(layout, f"{model.name} is dense: every step reads all {gb:,.0f} GB", y=0.85)
        layout["yaxis"]["range"] = [0, 2 * gb]
        line = line_trace(
            "weights read (dense)", np.array([1.0, b_end]), np.array([gb, gb]), "#000000", hover="%{y:,.0f} GB"
        )
        return {"data": [line], "layout": layout}
    B = log_batches(b_end, 90)
    c = expert_coverage(model, B, scn.b_w)
    custom = [f"{d:.1f} of {model.n_routed_experts}" for d in c["distinct_experts"]]
    hover = "B = %{x:,.0f}<br>%{y:,.0f} GB read<br>experts per layer: %{customdata}"
    data = [
        line_trace("weights read (uniform routing)", B, c["bytes_read"] / 1e9, "#000000", hover=hover, custom=custom)
    ]
    # Labelled at the right: at the left the curve starts on this line and struck the label through.
    add_hline(
        layout,
        c["active_bytes"] / 1e9,
        P.ramp(2)[0],
        f"P<sub>active</sub>·b<sub>w</sub> = {c['active_bytes'] / 1e9:,.0f} GB",
    )
    add_hline(
        layout,
        c["total_bytes"] / 1e9,
        P.ramp(2)[1],
        f"P<sub>total</sub>·b<sub>w</sub> = {c['total_bytes'] / 1e9:,.0f} GB",
        "left",
    )
    layout["yaxis"]["rangemode"] = "tozero"
    return {"data": data, "layout": layout}
