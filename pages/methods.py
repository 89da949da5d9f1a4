"""`/methods`: the article's tables computed live from the engine, and the numbers check."""

import dash
import dash_bootstrap_components as dbc
from dash import dcc, html

from inferx.analysis.article_numbers import ROWS
from inferx.analysis.check import MISMATCH
from inferx.data.measured import MEASURED_ENV
from inferx.figures import registry
from inferx.figures import style as figures
from inferx.figures.measured import divergence_figure
from inferx.physics import engine as E
from inferx.physics.models import MODELS
from inferx.physics.presets import HARDWARE, INTERCONNECTS, scale_up_links
from inferx.scenario.controls import PARAMS
from inferx.scenario.evaluation import Scenario
from inferx.serving.stored import HELD_OUT_GROUPING, load_error_tables
from inferx.serving.transfer import load_transfer_record
from inferx.serving.transfer_fit import published_scores
from pages._cards import (
    FIGURES_ID,
    described_graph,
    figure_card,
    initial_figures,
    math_keeps_punctuation,
    navbar,
    scroll_box,
    with_subscripts,
)
from pages._landing import mode_link
from pages._measured import env_measured
from pages._url import parse_query

dash.register_page(__name__, path="/methods", title="inferx · methods and checks", order=1)

STATUS_CLASS = {
    "ok": "table-success",
    MISMATCH: "table-danger",
    "article inconsistent": "table-warning",
    "flag": "table-info",
}


def table(label, header, rows, row_classes=None, notes_last=False):
    """A table in a scroll box; `notes_last` for one whose last column is prose, which then keeps a readable
    width rather than a few words a line (a note in the check table's 100 px column was 14 lines tall)."""
    head = html.Thead(html.Tr([html.Th(with_subscripts(h)) for h in header]))
    body = html.Tbody(
        [
            html.Tr([html.Td(with_subscripts(c)) for c in row], className=(row_classes or {}).get(i))
            for i, row in enumerate(rows)
        ]
    )
    classes = "num-table notes-last" if notes_last else "num-table"
    return scroll_box(dbc.Table([head, body], bordered=False, hover=True, size="sm", className=classes), label)


def config_table(model: str):
    rows = []
    for key, hw in HARDWARE.items():
        s = Scenario.from_params(preset=key, model=model)
        rows.append(
            [
                f"{hw.label} (TP {hw.tp})",
                f"{hw.bw / 1e12:,.1f} TB/s",
                f"{hw.compute / 1e12:,.0f} TFLOPS",
                f"{hw.hbm / 1e9:,.0f} GB",
                f"{s.headroom / 1e9:,.0f} GB",
                f"{s.b_max:,}" if s.headroom > 0 else "does not fit",
            ]
        )
    return table(
        "Serving configurations",
        ["Config", "HBM bandwidth", "Peak FP8 compute", "HBM total", "KV headroom", "B_max (S = 1,024)"],
        rows,
    )


def ridge_table():
    rows = []
    for hw in HARDWARE.values():
        ridge = E.ridge_intensity(hw.compute, hw.bw)
        rows.append(
            [
                hw.label,
                f"{ridge:,.0f} FLOP/B",
                f"{E.ridge_batch(hw.compute, hw.bw, 1.0):,.0f}",
                f"{float(E.arithmetic_intensity(1, 1.0)):.1f} FLOP/B",
                f"{100 * float(E.compute_utilisation(1, 1.0, hw.compute, hw.bw)):.2f} %",
            ]
        )
    return table(
        "Ridge points", ["Config (FP8)", "Ridge I*", "Ridge batch B*", "I(B = 1)", "Compute utilisation at B = 1"], rows
    )


def interconnect_table(model: str):
    rows = []
    spec = MODELS[model]
    for ic in [*INTERCONNECTS.values(), *scale_up_links()]:
        ar = E.t_allreduce(1, 8, spec, 1.0, ic.bw, ic.alpha)
        pp = E.t_pipeline(256, 4, spec, 1.0, ic.bw, ic.alpha)
        rows.append(
            [
                ic.label,
                f"{ic.bw / 1e9:g} GB/s",
                f"{ic.alpha * 1e6:g} µs",
                f"{1e3 * float(ar):.3f} ms",
                f"{1e3 * float(pp):.3f} ms",
            ]
        )
    return table(
        "Interconnects",
        ["Interconnect", "Bandwidth (one way)", "Latency floor α", "t_AR (B = 1, TP 8)", "t_PP (B = 256, PP 4)"],
        rows,
    )


def metrics_table(model: str):
    s = Scenario.from_params(model=model)
    if s.unfit_reason():
        return dbc.Alert(f"{s.model.name} on 8×H200: {s.unfit_reason()}.", color="warning")
    r = {k: float(v[0]) for k, v in s.evaluate([64]).items()}
    n_out, price, watts = 1024, 8 * 3.5, 8 * 700.0
    e2e = float(E.e2e_latency(r["ttft"], n_out, r["itl"]))
    rows = [
        ["TTFT", "prefill + M/G/1 queueing wait", f"{1e3 * r['ttft']:.2f} ms"],
        ["ITL / TPOT", "t_step + t_comm (no speculative decoding)", f"{1e3 * r['itl']:.2f} ms"],
        ["End-to-end latency", f"TTFT + N_out × ITL, N_out = {n_out:,}", f"{e2e:.2f} s"],
        ["Output throughput", "B / ITL", f"{r['throughput']:,.0f} tok/s"],
        [
            "Cost per million tokens",
            f"${price:.0f}/h ÷ (3600 × T / 10⁶)",
            f"${float(E.cost_per_million_tokens(price, r['throughput'])):.3f}",
        ],
        ["Token efficiency", f"T ÷ {watts:,.0f} W", f"{float(E.tokens_per_joule(r['throughput'], watts)):.2f} tok/J"],
    ]
    return table("Serving metrics", ["Metric", "Model", "8×H200, S = 1,024, B = 64"], rows)


def _plain(x: float) -> str:
    """A number as a reader writes it: 31,664 and 671,000,000,000, not 3.166e+04; four figures below 10,000."""
    return f"{x:,.0f}" if abs(x) >= 1e4 else f"{x:,.4g}"


def check_table():
    rows, classes = [], {}
    for i, r in enumerate(ROWS):
        rows.append(
            [
                r.section,
                r.quantity,
                _plain(r.article),
                _plain(r.engine),
                r.unit,
                # A no-break space keeps the number and its unit on one line; 0.0 % has no sign (not −0.0 %).
                f"{100 * r.rel_diff + 0.0:+.1f}\u00a0%" if abs(r.rel_diff) >= 5e-4 else "0.0\u00a0%",
                r.status,
                r.note,
            ]
        )
        classes[i] = STATUS_CLASS[r.status]
    return table(
        "The article's numbers, checked",
        ["Section", "Quantity", "Article", "Engine", "Unit", "Diff", "Status", "Note"],
        rows,
        classes,
        notes_last=True,
    )


INTRO = math_keeps_punctuation("""
The tables below are computed by the same engine that draws the dashboard, every time this page loads.
The last table is `inferx check`: each number the article prints beside the engine's value. Rows marked
*article inconsistent* are places where the article's prose disagrees with its own formulas; we follow the
formula and show both. *Flag* rows mark inputs to read with care: the article's H200 and B200 compute
figures are the 2:4-sparsity datasheet numbers, twice the dense FP8 rate a real decode kernel can reach,
while its MI300X figure is dense. The presets keep the article's numbers so the figures reproduce.

Modelling choices the article leaves open: the head dimension of the quadratic prefill term is
$d_h = 128$; TTFT uses the article's boxed form $t_\\text{prefill} + \\frac{1+\\text{CV}^2}{2}\\cdot
\\frac{t_\\text{step}}{1-\\rho}$ (its Pollaczek–Khinchine line has an extra factor $\\rho$ that its figures
do not use); $t_\\text{step}$ in TTFT, ITL and throughput includes the collective cost $t_\\text{AR} +
t_\\text{PP}$; activations cross the interconnect at the weight width $b_w$.
""")


DIVERGENCE = math_keeps_punctuation(r"""
The article says its curves come close to what InferenceX measures. On the measured single-node FP8 runs
without speculative decoding they do not: at B = concurrency and S = ISL + OSL/2 the measured time per
output token is about ten times the article's ITL at the median (four to thirty-five times), and its
throughput is too high by as much.

Why they part, largest cause first:

1. **A batch reads many experts.** The article charges each step the 37 B parameters one token uses. But
   each of the B tokens in a step picks 8 of 256 experts in every MoE layer, and each expert any of them
   picks must be read: on average $E\,(1-(1-k/E)^B)$ per layer, already 87 % of them at B = 64. So the
   weights are *not* read once whatever the batch, in exactly the range where servers run.
2. **Each step has a fixed cost.** Kernel launches, scheduling, sampling and the all-reduces take several
   milliseconds per step (more on MI300X than on the NVIDIA GPUs), more than the article's whole ITL at
   small batches.
3. **Prefills interrupt decoding.** In InferenceX's closed loop new requests arrive all the time, and the
   time spent on their prefills is charged to every user's time per token.
4. **Kernels do not reach the datasheet.** Decode reaches roughly two thirds to four fifths of peak HBM
   bandwidth, prefill a small fraction of dense FP8 compute.

The calibrated model adds these four effects, with a handful of fitted numbers per GPU, software stack and
precision; over all single-node runs its median error is about 6 % on time per output token and throughput
and 10 % on TTFT. `docs/calibration.md` has the equations, the fit, and how it does on GPUs it was not
fitted on.
""")


def divergence_section():
    df, error = env_measured()
    if df is None:
        why = f" The configured file could not be read: {error}." if error else ""
        note = dbc.Alert(
            [
                "Measured data is not loaded on this server.",
                why,
                " Start the app with ",
                html.Code(f"{MEASURED_ENV}=/path/to/deepseek_r1_measured.csv"),
                " (an InferenceX CSV export or the API's JSON) to see each measured run beside both models here.",
                " To look at a file of your own, upload it on the ",
                dcc.Link("InferenceX data", href=dash.get_relative_path("/inferencex")),
                " page.",
            ],
            color="secondary",
            id="divergence-note",
        )
        return [dcc.Markdown(DIVERGENCE, mathjax=True), note]
    shown = (
        "The figure shows measured/model TPOT for each single-node FP8 run without speculative decoding on the "
        "article's three GPUs (H200, MI300X and B200), open markers for the article's model and filled ones for "
        "the calibrated model, nudged apart at the same concurrency; a perfect model sits on the dotted line at 1."
    )
    figure = divergence_figure(df)
    graph = dcc.Graph(id="divergence-graph", figure=figure, config=figures.GRAPH_CONFIG, style={"height": "460px"})
    return [dcc.Markdown(DIVERGENCE, mathjax=True), html.P(shown), described_graph("fig-divergence", graph, figure)]


ERROR_METRICS = {"tpot": "TPOT", "ttft": "TTFT", "throughput_per_gpu": "tok/s/GPU", "e2e": "E2E"}


def error_tables_section():
    """The calibrated model's errors on InferenceX's single-node rows, by GPU, precision, ISL/OSL and concurrency:
    read from the stored aggregates, so they show without the data on the server."""
    stored = load_error_tables()
    header_tail = [f"{label} median / p90" for label in ERROR_METRICS.values()]
    body = [
        html.P(
            [
                "Median and 90th percentile of |predicted / measured − 1| of the calibrated model on the "
                f"single-node rows of InferenceX's DeepSeek-R1 export ({stored['source']}), computed once by ",
                html.Code("inferx validate --measured FILE --error-tables inferx/serving/calibration_errors.json"),
                ". The shaded bands around calibrated curves span the fit's 10th to 90th percentile residuals.",
            ]
        )
    ]
    for grouping, rows in stored["tables"].items():
        cells = [
            [r["group"], f"{r['rows']:,}"]
            + ["—" if r.get(m) is None else f"{r[m][0]:.0%} / {r[m][1]:.0%}" for m in ERROR_METRICS]
            for r in rows
        ]
        if grouping == HELD_OUT_GROUPING:
            body += [html.H3("Each GPU left out of the fit"), html.P(HELD_OUT_TEXT)]
        else:
            body.append(html.H3(f"By {grouping}"))
        body.append(table(f"Errors by {grouping}", [grouping, "rows", *header_tail], cells))
    return html.Div(body, id="error-tables")


HELD_OUT_TEXT = (
    "Each GPU's runs predicted by a calibration fitted on the other GPUs' runs alone, its stacks scaled to the "
    "GPU's datasheet; the last row pools them. This is what to expect on a GPU with no runs of its own, and what "
    "the dashboard quotes for one."
)


TRANSFER_METRICS = {**ERROR_METRICS, "throughput": "max tok/s"}
TRANSFER_TABLES = {
    "kind": "By kind of extrapolation and source",
    "held-out GPU": "Each GPU held out of the fit",
    "held-out pair": "Each source held out: its GPU and model pairs measured nowhere else",
    "held-out model": "Each published model held out of the fit",
    "in-sample model": "By model, in sample",
}


def transfer_section():
    """The transferable model's scores from transfer.json: by kind of extrapolation, each GPU and each model held
    out, beside the sibling-GPU lookup, and how often its bands hold runs they were not built from."""
    record = load_transfer_record()
    header = ["group", "rows", *(f"{label} median / p90" for label in TRANSFER_METRICS.values())]

    def cells(entries):
        return [[e["group"], f"{e['rows']:,}"] + ["—" if m not in e else f"{e[m][0]:.0%} / {e[m][1]:.0%}"
                                                  for m in TRANSFER_METRICS] for e in entries]  # fmt: skip

    body = [dcc.Markdown(TRANSFER_TEXT, mathjax=False)]
    body += [html.H3("Every published source, scored by the stored fit"), html.P(STORED_TEXT)]
    published = {"throughput": "output tok/s", "tpot": "TPOT", "ttft": "TTFT"}
    for name, entries in published_scores().items():
        rows = [[e["group"], e["sample"], f"{e['rows']:,}"] + ["—" if m not in e else f"{e[m][0]:.0%} / {e[m][1]:.0%}"
                                                             for m in published] for e in entries]  # fmt: skip
        columns = [name, "in the fit?", "rows", *(f"{label} median / p90" for label in published.values())]
        body += [html.H3(f"Published rows by {name}"), table(f"Published rows by {name}", columns, rows)]
    for key, title in TRANSFER_TABLES.items():
        body += [html.H3(title), table(title, header, cells(record["scores"].get(key, [])))]
    lookup = record["sibling_lookup"]
    body += [html.H3("Against copying a sibling GPU's measurement"), html.P(lookup["note"])]
    rows = [[f"{e['group']} (sibling lookup)", f"{e['rows']:,}"] + ["—"] * 4 + [f"{e['throughput'][0]:.0%} / "
            f"{e['throughput'][1]:.0%}"] for e in lookup["lookup"]]  # fmt: skip
    body.append(table("Sibling lookup", header, rows + cells(lookup["model"])))
    coverage = [[kind, f"{c['rows']:,}", f"{c['unwidened']:.0%}", f"{c['widened_by']:g}×", f"{c['widened']:.0%}"]
                for kind, c in record["coverage"].items() if isinstance(c, dict)]  # fmt: skip
    columns = ["kind", "runs", "inside p10–p90", "widened by", "inside, widened"]
    body += [html.H3("Do the bands hold what they have not seen?"), table("Band coverage", columns, coverage)]
    return html.Div(body, id="transfer-tables")


TRANSFER_TEXT = """
A GPU, a stack or a model with no runs of its own is predicted by the transferable model: the share of datasheet
bandwidth and tensor rate a step reaches belongs to the GPU's die (H100/H200, B200/B300/GB200, MI300X/MI325X), the
fixed costs of a step to the stack (per layer and per collective), and the work to the model's structure. It is
fitted once to InferenceX's DeepSeek-R1 runs and TensorRT-LLM's published maximum-throughput table together
(`inferx calibrate --measured FILE --transfer inferx/serving/transfer.json`). Each kind of extrapolation is scored
by holding it out: every GPU in turn (InferenceX's metrics and the table's maximum throughput), every published
model in turn (maximum throughput only), and, for a GPU and a model each measured but never together, every
published source and InferenceX's runs of each GPU in turn, scored on the rows whose pair that left unmeasured.
Errors are |predicted / measured − 1|, median / 90th percentile.
"""


STORED_TEXT = (
    "The stored fit, unchanged, against every published row inferx keeps (their sources, stack versions and "
    "definitions: inferx/data/public/sources.json), by source, model, GPU and stack. 'in sample': a source the fit "
    "was made from; 'out of sample': a source added since, never fitted. Errors are |predicted / measured − 1|, "
    "median / 90th percentile, of the instance's output tokens per second (at its maximum for an offline table) "
    "and, where a source measured a closed loop of users, of TPOT and TTFT."
)


# Figures whose card sits here rather than on `/` (the MoE expert coverage): drawn for the page's model.
METHODS_FIGURES = tuple(key for key, f in registry.FIGURES.items() if f.page == "methods")


def figures_section(values: dict, notices: list[str]):
    figs = initial_figures(values, METHODS_FIGURES, figures.DEFAULT_BATCH, notices)
    return [figure_card(key, figs.get(key, {})) for key in METHODS_FIGURES]


def layout(**query):
    # Only the model matters here; the tables run over every preset. Another control in the address is named as
    # ignored; an unknown key or a bad model or theme gets the words the dashboard gives it.
    others = [name for name in query if name in PARAMS and name != "model" or name == "batch"]
    values, _, notices = parse_query({k: v for k, v in query.items() if k not in others})
    if others:
        notices.append(f"Ignored {', '.join(others)}: this page's tables cover every preset; it reads only model.")
    model = values["model"]
    name = MODELS[model].name
    moe = figures_section(values, notices)  # before the notices are shown: drawing may add one
    return html.Div(
        [
            navbar("methods"),
            dbc.Container(
                [
                    html.H1("Methods and checks", className="h2"),
                    mode_link("article", None if model == PARAMS["model"].default else model),
                    dcc.Markdown(INTRO, mathjax=True),
                    *[dbc.Alert(n, color="warning") for n in notices],
                    html.P(
                        f"The tables are computed for {name} (another model: ?model=… in the address; "
                        "the article's is DeepSeek-R1).",
                        id="methods-model",
                    ),
                    html.H2("Serving configurations"),
                    config_table(model),
                    html.H2("Ridge points"),
                    ridge_table(),
                    html.H2("Interconnects"),
                    interconnect_table(model),
                    html.H2("Serving metrics"),
                    metrics_table(model),
                    html.H2("The article's numbers, checked", id="check"),
                    check_table(),
                    html.H2("Where the article's model and reality part", id="reality"),
                    *divergence_section(),
                    html.H2("How many experts a batch reads", id="moe"),
                    *moe,
                    html.H2("How far the calibrated model is from the measurements", id="errors"),
                    error_tables_section(),
                    html.H2("Other models and GPUs: the transferable model, held out", id="transfer"),
                    transfer_section(),
                ],
                className="methods",
                id=FIGURES_ID,
                tag="main",
            ),
        ]
    )
