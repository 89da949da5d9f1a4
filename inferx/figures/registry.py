"""The figures, one entry each: the article's number, a name, the title, caption and equation the pages
show, the graph's height, the builder and the frontiers it reads.

Pages, embed routes, the redraw callback, the tests and the benchmark all iterate `FIGURES`; adding a figure
is one entry here plus its builder. Every builder is `builder(scn, batch) -> plotly dict`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

from inferx.analysis import spec
from inferx.analysis.regimes import RHO_BAND, RHO_QUEUE
from inferx.figures import article as F
from inferx.figures import beyond, compare, style, units, variants
from inferx.figures.curves import context_refs, preset_refs, quant_refs, workload_refs
from inferx.figures.text import with_summary
from inferx.scenario.evaluation import Scenario
from inferx.scenario.frontier import CURVE_POINTS, EXPLORER_POINTS, evaluate_frontiers

ARTICLE_FIGURES = 9  # Figures 1–9 are the article's; the later ones go beyond it
_RHO_BAND_WORDS = f"“{RHO_BAND}”"  # the ρ band as Figures 3 and 6 label it


@dataclass(frozen=True)
class Figure:
    number: int  # the article's figure number
    name: str  # what it draws; also its /embed/<name> alias
    title: str
    caption: str  # our words; Markdown with $…$ maths
    equation: str  # the governing equation (LaTeX), shown displayed under the caption
    builder: Callable[[Scenario, int], dict]
    height: int = 380  # px
    current: bool = False  # draws the current settings' stable frontier (shared by the figures that do)
    references: Callable[[Scenario], list[Scenario]] | None = None  # other scenarios whose frontiers it draws
    reads_batch: bool = False  # the explorer: the only figure redrawn when only the batch moves
    page: str = "dashboard"  # where its card sits: "dashboard" (`/`) or "methods" (`/methods`)
    subtitle: str = ""  # the figure's point in one sentence, shown under its title
    frontiers: Callable[[Scenario], list[tuple]] | None = None  # other figures.frontier keys it reads
    grids: Callable[[Scenario], list[tuple]] | None = None  # frontier_batches (b_max, points) pairs it reads

    @property
    def key(self) -> str:
        """The stable id in the DOM, the redraw protocol and `/embed/figN`."""
        return f"fig{self.number}"


def _stacked(*lines: str) -> str:
    """Equations one under another: side by side, the longest ones overflowed a phone's width."""
    return r"\begin{gathered}" + r"\\[4pt]".join(lines) + r"\end{gathered}"


def _entries(*figs: Figure) -> dict[str, Figure]:
    return {f.key: f for f in figs}


FIGURES: dict[str, Figure] = _entries(
    Figure(
        1,
        "roofline",
        "Figure 1 · The decode roofline",
        "Ignore the KV cache and every decode step streams the active weights from HBM once, whatever the batch. "
        "Batching more requests into that one read buys throughput linearly, until the arithmetic units saturate "
        "at the ridge batch $B^*$ (dashed); past it more requests only queue behind the same FLOPs. With "
        "TP or PP above one, the solid line adds each step's collective cost. In calibrated mode the curve is the "
        "fitted step, with its fixed cost, and the dashed line moves to where that step's arithmetic outlasts its "
        "HBM read at the rates the fit achieved (as in Figures 6 and 10), not the datasheet ratio below.",
        _stacked(
            r"T(B)=\frac{B}{\max\left(\frac{P_\text{active}\,b_w}{\text{BW}},\ \frac{2P_\text{active}B}"
            r"{\text{compute}}\right)}",
            r"B^*=\frac{b_w\cdot\text{compute}}{2\,\text{BW}}",
        ),
        F.roofline,
        subtitle="Throughput rises in step with the batch up to B*; past it the tensor cores, not HBM, set the pace.",
    ),
    Figure(
        2,
        "kv-cache-tax",
        "Figure 2 · The KV-cache tax",
        "Each request in the batch also reads its own KV cache every step, so bytes per step grow with $B\\cdot S$. "
        "Longer contexts bend the curve over sooner and cap it at $T_\\infty(S)$ (dashed), a ceiling that no "
        "weight format moves. One curve per context length $S$ (tokens); each ends with a dot at $B_\\text{max}$, "
        "where the KV headroom is full, its value in the legend. A layer caches $d_c+d_r$ numbers per token under "
        r"DeepSeek's latent attention (MLA) and $2\,n_{kv}\,d_h$ under grouped-query attention; a windowed layer "
        "stops at its window, and a Mamba or linear-attention layer keeps a fixed state instead, which adds its "
        r"size over $S$ to $\kappa$.",
        _stacked(
            r"T_\infty(S)=\frac{\text{BW}}{S\,\kappa}",
            r"\kappa=L\,(d_c+d_r)\,b_{kv}\ \text{(MLA)}",
            r"\kappa=2L\,n_{kv}\,d_h\,b_{kv}\ \text{(GQA)}",
        ),
        F.kv_cache_tax,
        current=True,
        references=context_refs,
        subtitle="The longer the context, the lower the ceiling: at long S the KV reads cap throughput.",
    ),
    Figure(
        3,
        "ttft-parts",
        "Figure 3 · Where time to first token comes from",
        "Prefill of the prompt sets a floor that batching cannot lower. On top sits the wait for a decode slot, "
        "modelled as an M/G/1 queue: small while the batch is far from the KV limit, unbounded as "
        f"$\\rho=B/B_\\text{{max}}\\to1$. In the shaded band, {_RHO_BAND_WORDS}, the wait "
        "climbs to a wall at $B_\\text{max}$: a batch there can still meet a TTFT target, but with little room. "
        "The wait counts whole steps with their collectives (ITL, the "
        "article's $t_\\text{step}^\\text{dist}$ when TP or PP is above one). In calibrated mode the floor is the "
        "calibrated prefill, and the wait also holds each request's fixed cost and the scheduler's polling.",
        r"\text{TTFT}=t_\text{prefill}(S_\text{in})+\frac{1+\text{CV}^2}{2}\cdot\frac{\text{ITL}(B)}{1-B/B_\text{max}}",
        F.ttft_parts,
        current=True,
        subtitle="TTFT sits on the prefill floor for most batch sizes, then climbs without bound as ρ nears 1.",
    ),
    Figure(
        4,
        "itl-vs-throughput",
        "Figure 4 · Inter-token latency against throughput",
        "Each point is one batch size. Every request gets one token per step, so ITL is the step time and ITL "
        "times throughput is exactly $B$: more throughput from batching always costs latency. Only more "
        "bandwidth lowers the floor (dashed), one read of the active weights. In calibrated mode the curve starts "
        "well above that floor: each step also pays the stack's fixed cost, and reads at the bandwidth the fit "
        "achieved rather than the datasheet's.",
        r"\text{ITL}\times T=B,\qquad \text{ITL}_\text{min}=\frac{P_\text{active}\,b_w}{\text{BW}}",
        F.itl_vs_throughput,
        current=True,
        subtitle="Batching buys throughput only by slowing every stream; only more bandwidth lowers the floor.",
    ),
    Figure(
        5,
        "preset-frontiers",
        "Figure 5 · The throughput–TTFT frontier",
        "Sweeping the batch traces the best TTFT this hardware can give at each throughput: nothing real sits below "
        "it. The dashed curves are the other presets under the same workload. Shading marks the interactive "
        "regime ($B\\le B_\\text{split}/8$) and the batch regime ($B\\ge B_\\text{split}$), with "
        "$B_\\text{split}=\\min(B^*, B_\\text{max}/2)$, $B^*$ as Figure 1 marks it in either mode. Curves stop at "
        "$\\rho=0.99$.",
        _stacked(r"T=\frac{B}{\text{ITL}(B)},\qquad 1\le B<B_\text{max}", r"\text{TTFT}(B)\ \text{as in Figure 3}"),
        F.preset_frontiers,
        height=440,
        current=True,
        references=preset_refs,
        subtitle="Throughput costs almost no TTFT until the wall near B_max; each machine meets it elsewhere.",
    ),
    Figure(
        6,
        "explorer",
        "Figure 6 · Operating-point explorer",
        "Pick a batch size and the dot shows where it lands on the frontier, with its throughput, TTFT, ITL and "
        "utilisation; its colour, and the readouts' edges, name the limit that binds there (as in Figure 10). "
        "Animate sweeps the dot from one request to the edge of the stable region, its pace even along the "
        "drawn curve; it runs in the browser, with no server round trip per frame. The arrow marks where the "
        "decode step itself turns compute-bound (the collectives may still bind the whole ITL there, as Figure 10 "
        "shows). The article puts that bend at the ridge batch $B^*$, but each request's KV "
        "read adds bytes as the batch adds FLOPs, so compute takes over later, at $B_c$ (688 rather than 412 on "
        "8×H200 FP8 at 1,024 tokens of context), and past about 2,550 tokens not at all. In calibrated mode the arrow "
        "follows the calibrated step's own split, as Figure 10 does.",
        _stacked(
            r"\rho=\frac{B}{B_\text{max}},\qquad B_\text{max}=\left\lfloor\eta\,\frac{\text{HBM}-P_\text{total}\,b_w}"
            r"{S\,\kappa}\right\rfloor",
            r"B_c=\frac{B^*}{1-S\,\kappa\,\text{compute}\,/\,(2\,P_\text{active}\,\text{BW})}",
        ),
        beyond.explorer,
        height=440,
        reads_batch=True,
        subtitle=f"Small batches buy throughput cheaply; past ρ = {RHO_QUEUE:g} the queue binds and TTFT runs away.",
    ),
    Figure(
        7,
        "quantization",
        "Figure 7 · Quantization",
        "Narrower weights halve the bytes of every step and the weights' share of HBM; a narrower KV cache halves "
        "$\\kappa$ and so doubles $B_\\text{max}$. Dashed lines are the FP16 and FP8 references on the same hardware; "
        "a format whose weights do not fit is named in the note.",
        r"\text{headroom}=\text{HBM}-P_\text{total}\,b_w,\qquad \kappa\propto b_{kv}",
        variants.quantization,
        current=True,
        references=quant_refs,
        subtitle="Narrower weights and KV cache move the whole frontier: more throughput at every TTFT.",
    ),
    Figure(
        8,
        "communication",
        "Figure 8 · Collective communication",
        "Tensor parallelism adds two all-reduces per layer to every step; pipeline parallelism adds a hop per stage "
        "boundary. On NVLink the fixed launch latency $\\alpha$ dominates, so the cost barely moves with $B$; "
        "over InfiniBand the bytes dominate and the cost grows linearly with the batch. A configuration whose curve "
        "runs on another's (the current settings', or TP 4 + PP 4 on TP 4: a few hops beside $2L$ all-reduces) is "
        "drawn as markers on it.",
        _stacked(
            r"t_\text{AR}=2L\left(\alpha+\tfrac{k-1}{k}\cdot\tfrac{B\,d_\text{model}\,b_w}{\text{BW}_\text{IC}}\right)",
            r"t_\text{PP}=(m-1)\left(\alpha+\tfrac{B\,d_\text{model}\,b_w}{\text{BW}_\text{IC}}\right)",
        ),
        variants.communication,
        subtitle="NVLink's cost is a flat floor set by latency; InfiniBand's grows with every request in the batch.",
    ),
    Figure(
        9,
        "workload-reality",
        "Figure 9 · Workload reality check",
        "Two workload effects that no hardware removes: variable output lengths (CV) inflate the queueing term, and "
        "KV fragmentation (utilisation $\\eta$) shrinks $B_\\text{max}$ so the wall arrives sooner. The gap between "
        "the ideal and realistic curves (shaded) is TTFT a production SLA must budget for. A reference that "
        "coincides with the current curve is drawn as markers on it. The calibrated model queues prompts of one "
        "length, which the CV does not enter: in calibrated mode only the utilisation moves these curves.",
        r"W_q\propto\frac{1+\text{CV}^2}{2},\qquad B_\text{max}^\text{eff}="
        r"\left\lfloor\eta\,\frac{\text{HBM}_\text{free}}{S\,\kappa}\right\rfloor",
        variants.workload_reality,
        current=True,
        references=workload_refs,
        subtitle="A real workload pays more TTFT at the same throughput, and meets its wall sooner.",
    ),
    # Beyond the article (issue 19): each reads the scenario's targets and prices.
    Figure(
        10,
        "regimes",
        "Figure 10 · Which limit binds, and what meets the SLO",
        "The frontier of Figure 6, coloured by the limit that sets each batch size's step: the HBM read "
        "(bandwidth), the tensor cores (compute), collectives taking over half the step (communication), the queue "
        f"past $\\rho={RHO_QUEUE:g}$ (the band Figures 3 and 6 label {_RHO_BAND_WORDS}), or a KV cache at least 95 % "
        "full. The grey band is the part that meets both latency targets; the star is its best throughput, the "
        "largest batch that meets them, since TTFT and ITL both "
        "grow with $B$. In calibrated mode the two times are the calibrated step's: the experts a batch touches "
        "at the achieved bandwidth, the FLOPs at the achieved compute, and the prefills that stall each step.",
        _stacked(
            r"\text{bandwidth-bound}\iff t_\text{HBM}\ge t_\text{FLOP}",
            r"t_\text{HBM}=\frac{P_\text{active}b_w+BS\kappa}{\text{BW}}",
            r"t_\text{FLOP}=\frac{2P_\text{active}B}{\text{compute}}",
            r"B_\text{SLO}=\max\{B:\text{TTFT}\le\text{TTFT}^*,",
            r"\text{ITL}\le\text{TPOT}^*\}",
        ),
        beyond.regimes_slo,
        height=440,
        subtitle="The colour names the limit that binds; the star is the most throughput meeting both targets.",
        frontiers=beyond.dense_frontier,
    ),
    Figure(
        11,
        "economics",
        "Figure 11 · Cost per million output tokens",
        "What the frontier costs: the machine's hourly price spread over the tokens it makes in that hour, "
        "against how fast each user reads. Faster per-user streams mean smaller batches and dearer tokens. "
        "The price is the Price control, or while it reads 'assumed' an assumed rental rate for the GPU, "
        "not a measured one: set your own. Tokens per joule divide by the power drawn, f of board power: "
        "left at 'default', all of it in article physics, as the article counts; in calibrated mode what "
        "InferenceX measured, which grows with the load, from about 0.4 at a few users to 0.6 near full occupancy.",
        _stacked(
            r"\frac{\$}{10^6\ \text{tokens}}=\frac{10^6\cdot(\$/\text{GPU-h})\cdot N_\text{GPU}}{3600\cdot T}",
            r"\frac{\text{tokens}}{\text{J}}=\frac{T}{f\cdot N_\text{GPU}\cdot\text{TDP}}",
        ),
        beyond.economics_fig,
        subtitle="Tokens are cheapest in big batches, where each user's stream is slowest.",
    ),
    Figure(
        12,
        "rate",
        "Figure 12 · Request rate and concurrency",
        "Benchmarks fix the number of requests in flight; production sees an arrival rate. Little's law turns "
        "each fixed concurrency $C$ into the rate it completes, so a published run can be read on a rate axis. "
        "The rate peaks before $B_\\text{max}$: past the peak, more concurrency only lengthens the queue.",
        r"\lambda=\frac{C}{\text{E2E}(C)},\qquad \text{E2E}=\text{TTFT}+N_\text{out}\cdot\text{ITL}",
        beyond.rate_fig,
        subtitle="Completed requests per second peak before B_max; beyond the peak, more concurrency only queues.",
        frontiers=beyond.dense_frontier,
    ),
    Figure(
        13,
        "speculative",
        "Figure 13 · Speculative decoding: draft length and acceptance",
        "A small draft model proposes $k$ tokens and one pass of the target verifies them; with acceptance "
        "rate $\\alpha$ each round yields on average fewer than $k+1$ tokens. Longer drafts pay off only while "
        "acceptance stays high. Shown at $B=1$ with a 1.6 B-parameter INT8 draft on GPU HBM. Solid: a verify "
        "pass that reads the target's weights like any decode step. Dotted: the article's verify, which counts "
        "only the arithmetic of $k$ tokens and so promises a gain no real pass delivers. Both sides are the article's "
        "roofline in either mode; the calibrated model speculates only with MTP (its own control).",
        _stacked(
            r"\text{ITL}_\text{eff}=\frac{k\,\delta+t_\text{verify}}{E[\text{accepted}]}",
            r"E[\text{accepted}]=\frac{1-\alpha^{k+1}}{1-\alpha}",
        ),
        beyond.spec_k,
        subtitle="Speculation pays when acceptance is high; longer drafts help only while acceptance holds.",
    ),
    Figure(
        14,
        "speculative-batch",
        "Figure 14 · Where speculation stops paying",
        "The speed-up of speculative decoding ($k=5$, $\\alpha=0.8$) against batch size, for a draft on GPU "
        "HBM (the article's H100 figure, 3.35 TB/s, whatever GPU the target runs on) and on SRAM, each with the "
        "article's compute-only verify (dotted) and a roofline verify that also reads the weights (solid). As "
        "the batch grows the target's step is no longer idle bandwidth, and the crosses mark where the gain ends. "
        "A target with few active parameters steps barely slower than the GPU draft (Qwen3-Next's 3 B on HBM), "
        "so there the gain starts small and grows with the batch: the target's KV reads lengthen its step, the "
        "draft's stays the same. As in Figure 13, plain decoding is the article's roofline step in either mode.",
        r"\text{speed-up}(B)=\frac{\text{ITL}(B)}{\text{ITL}_\text{eff}(B)}",
        beyond.spec_batch,
        grids=spec.batch_grids,
        subtitle="Speculation pays while the target's step outweighs the draft's; a cross marks where it stops.",
    ),
    Figure(
        15,
        "moe-coverage",
        "Figure 15 · MoE: the weights a step really reads",
        "The article charges each step one token's experts, $P_\\text{active}$. A batch of $B$ tokens routes "
        "to many experts at once, so with uniform routing the bytes read climb towards every expert, "
        "$P_\\text{total}$, within a couple of hundred tokens. A dense model reads all its weights at every batch.",
        r"N_\text{touched}=N_e\left(1-\left(1-\tfrac{k}{N_e}\right)^{B}\right)",
        beyond.moe,
        page="methods",  # a property of the model's routing more than of the serving state
        subtitle="With a few hundred tokens in a batch, an MoE step reads nearly every expert, not a few.",
    ),
)


# The figures whose cards `/` shows, in order (the others are on `/methods`; every one has its embed route).
DASHBOARD: tuple[str, ...] = tuple(key for key, f in FIGURES.items() if f.page == "dashboard")


def by_name(name: str) -> Figure | None:
    """The figure an embed path names: its key (`fig6`) or its name (`explorer`), in any case (`FIG6`), as the
    CLI's --figure takes them."""
    name = name.lower()
    found = FIGURES.get(name)
    return found or next((f for f in FIGURES.values() if f.name == name), None)


def frontier_keys(scn: Scenario, names, batch: int) -> list[tuple]:
    """Every frontier the figures `names` read for this state, as figures.frontier keys."""
    figs = [FIGURES[n] for n in names]
    keys = [(scn, CURVE_POINTS, None)] if any(f.current for f in figs) else []
    keys += [(s, CURVE_POINTS, None) for f in figs if f.references for s in f.references(scn)]
    keys += [(scn, EXPLORER_POINTS, int(batch)) for f in figs if f.reads_batch]
    keys += [k for f in figs if f.frontiers for k in f.frontiers(scn)]
    return keys


def build(
    scn: Scenario, names=None, batch: int = style.DEFAULT_BATCH, pinned: Scenario | None = None
) -> dict[str, dict]:
    """The requested figures (default: all) for one control state, keyed like FIGURES; with `pinned`, each
    also draws that scenario's curves dashed beside the current ones (compare.merge)."""
    names = list(FIGURES) if names is None else list(names)
    grids = [g for n in names if FIGURES[n].grids for g in FIGURES[n].grids(scn)]
    evaluate_frontiers(frontier_keys(scn, names, batch), grids)  # one numpy pass for all of them
    per_gpu, gpus = scn.params.get("tput") == "gpu", scn.params["gpus"]
    figs = {name: units.in_units(FIGURES[name].builder(scn, batch), per_gpu, gpus) for name in names}
    if pinned is not None:  # A's throughput in the unit the current settings ask for
        a_params = {**pinned.params, "tput": scn.params.get("tput", "instance")}
        theirs = _pinned_figures(tuple(sorted(a_params.items())), tuple(names), batch)
        label = compare.legend_label(pinned, scn)
        figs = {name: compare.merge(figs[name], theirs[name], label) for name in names}
    # Summarised after the merge, so a text alternative names A's curves too.
    return {name: style.unnumbered_if_empty(with_summary(FIGURES[name].title, fig)) for name, fig in figs.items()}


@functools.lru_cache(maxsize=16)
def _pinned_figures(params: tuple, names: tuple, batch: int) -> dict[str, dict]:
    # A stays put while the controls move: its figures are built once per page and batch. Keyed by all of A's
    # values, since a Scenario compares by its SI fields only (the targets and price are not among them).
    return build(Scenario.from_params(**dict(params)), names, batch)
