"""What a page says first: what inferx is and how to start (on `/`), which model its numbers are (every page but
the embeds) and the index of `/`'s figures."""

from __future__ import annotations

import json

from dash import get_relative_path, html

from inferx.figures import registry
from pages._drawer import drawer_head, drawer_toggle

MODE_BANNER_ID, MODE_LINE_ID, MODE_FLIP_ID = "mode-banner", "mode-line", "mode-flip"
# What each model's numbers are, said first on every page, and the switch to the other's.
MODE_LINES = {
    "article": (
        "Showing the ideal: the article's physics, the bound the hardware allows; serving stacks reach far fewer "
        "users under the same targets."
    ),
    "calibrated": (
        "Showing the expected: the calibrated model, what serving stacks reach, within its measured error; the "
        "article's physics is the bound above it."
    ),
}
MODE_FLIPS = {"article": "Show the expected (calibrated)", "calibrated": "Show the ideal (article physics)"}
# On a page without the Physics control: what the dashboard link opens, and a link to the other.
LINK_LINES = {
    "article": (
        "The dashboard opens with the ideal: the article's physics, the bound the hardware allows; serving stacks "
        "reach far fewer users under the same targets."
    ),
    "calibrated": (
        "The dashboard opens with the expected: the calibrated model, what serving stacks reach, within its "
        "measured error."
    ),
}
LINK_FLIPS = {"article": "Open it with the expected (calibrated)", "calibrated": "Open it with the ideal (article)"}

INTRO = (
    "inferx draws the throughput an LLM deployment serves against the latency each user sees, from the "
    "hardware's bandwidth, compute and memory. Pick a model and a machine in Controls, then read the figures in "
    "order, or start at the explorer to see one operating point."
)

EXPLORER = "fig6"
# The index's words for each figure of `/` (its card title in full is the link's title); a figure missing here
# is indexed by its title.
SHORT = {
    "roofline": "Roofline",
    "kv-cache-tax": "KV-cache tax",
    "ttft-parts": "TTFT parts",
    "itl-vs-throughput": "ITL vs throughput",
    "preset-frontiers": "Frontiers",
    "explorer": "Explorer",
    "quantization": "Quantization",
    "communication": "Communication",
    "workload-reality": "Workloads",
    "regimes": "Limits & SLO",
    "economics": "Cost",
    "rate": "Request rate",
    "speculative": "Speculation",
    "speculative-batch": "Speculation vs batch",
}
INDEX_ID = "fig-index"


def mode_banner(mode: str) -> html.Div:
    """Which model the page's numbers are, said first, with a button that switches to the other (it sets the
    Physics control, so the address, the figures and the readouts follow as from that control)."""
    return html.Div(
        [
            html.Span(MODE_LINES[mode], id=MODE_LINE_ID, className="mode-line"),
            html.Button(MODE_FLIPS[mode], id=MODE_FLIP_ID, type="button", className="btn btn-sm btn-primary"),
        ],
        id=MODE_BANNER_ID,
        className="mode-banner",
        role="note",
        **{"data-lines": json.dumps(MODE_LINES), "data-flips": json.dumps(MODE_FLIPS), "aria-label": "Model shown"},
    )


def mode_link(mode: str, model: str | None = None) -> html.Div:
    """The same line on a page without the Physics control: the model the dashboard opens with (`mode`, the
    page's own address's), and a link to the dashboard with the other."""
    other = "calibrated" if mode == "article" else "article"
    query = [f"mode={other}"] if other != "article" else []
    if model:
        query.insert(0, f"model={model}")
    href = get_relative_path("/") + ("?" + "&".join(query) if query else "")
    return html.Div(
        [
            html.Span(LINK_LINES[mode], id=MODE_LINE_ID, className="mode-line"),
            html.A(LINK_FLIPS[mode], href=href, id=MODE_FLIP_ID, className="btn btn-sm btn-outline-primary"),
        ],
        id=MODE_BANNER_ID,
        className="mode-banner",
        role="note",
        **{"aria-label": "Model shown"},
    )


def landing_title(title: str) -> html.H1:
    """`/`'s one heading, shown, first on the page (before the Controls' heading, as the outline wants)."""
    return html.H1(title, className="landing-title")


def intro(mode: str) -> html.Div:
    """`/`'s first lines in the figures' column: what inferx is and how to start, the explorer one click away,
    and which model the figures show."""
    explorer = html.A(
        "Go to the explorer (Figure 6)",
        href=f"#card-{EXPLORER}",
        className="btn btn-sm btn-primary",  # on the page's grey the outline's blue was 4.2:1
        **{"data-jump": ""},  # assets/drawer.js
    )
    return html.Div(
        [html.P([INTRO, " ", explorer], className="landing-lead"), mode_banner(mode)],
        className="landing",
        id="landing",
    )


def figure_index(names) -> html.Nav:
    """Links to the cards of `names` (and the catalog search after Cost): a strip that stays at the top of the
    figures' column on a wide screen, and a sheet behind the Figures button (style.css, assets/drawer.js) on a
    phone."""
    items = []
    for name in names:
        entry = registry.FIGURES[name]
        words = SHORT.get(entry.name, entry.title.split(" · ")[-1])
        link = html.A(
            [html.Span(str(entry.number), className="fig-index-n"), " ", words],
            href=f"#card-{name}",
            title=entry.title,
            className="fig-index-link" + (" fig-index-explorer" if name == EXPLORER else ""),
            **{"data-jump": ""},  # assets/drawer.js
        )
        items.append(html.Li(link))
    return html.Nav(
        [drawer_head("Figures", INDEX_ID), html.Ol(items, className="fig-index-list")],
        id=INDEX_ID,
        className="fig-index drawer-md",
        **{"aria-label": "Figure index"},
    )


def index_toggle() -> html.Button:
    """The phone's Figures button, fixed at the bottom left (the Controls button holds the right)."""
    return drawer_toggle("Figures", INDEX_ID, className="drawer-toggle-md fig-index-toggle btn btn-outline-primary")
