"""Page furniture: the navigation bar, figure cards (with their download buttons), share buttons and notices."""

from __future__ import annotations

import logging
import re

import dash_bootstrap_components as dbc
from dash import dcc, get_relative_path, html

from inferx.figures import registry
from inferx.figures.beyond import batch_past_b_max
from inferx.figures.breakdown import HEIGHT as TIME_PARTS_HEIGHT
from inferx.figures.style import GRAPH_CONFIG
from inferx.scenario.controls import BATCH, PARAMS, InvalidParameter
from inferx.scenario.evaluation import Scenario
from pages._controls import explorer_controls
from pages._export import export_tools
from pages._ids import graph_wrapper_id
from pages._url import scenario_line

log = logging.getLogger(__name__)
INTERNAL_ERROR = "Something went wrong on the server drawing these settings; it has been logged."


FIGURES_ID = "figures"  # where the skip link lands: the figures (or, on /methods, the tables)


# The article's symbols as the engine and the CLI spell them in plain text: a letter, "_", its subscript.
_SYMBOL = re.compile(r"\b([A-Za-z])_([A-Za-z0-9]+)\b")


def with_subscripts(text):
    """Text with the article's symbols written as it writes them, B_max as B<sub>max</sub> (other values as
    they are): the check table's rows and the figures' subtitles are plain text, as the CLI prints them."""
    if not isinstance(text, str) or "_" not in text:
        return text
    parts, at = [], 0
    for m in _SYMBOL.finditer(text):
        parts += [text[at : m.start()], m[1], html.Sub(m[2])]
        at = m.end()
    return [p for p in [*parts, text[at:]] if p != ""] if parts else text


_INLINE_MATH = re.compile(r"(?<!\$)\$([^$]+)\$([.,;]?)(?!\$)")  # not `$$…$$`, a displayed equation
_RELATION = re.compile(r"(?<=\S) ([=<>≤≥≈]) (?=\S)")  # "ρ = 0.85", joined by no-break spaces in a subtitle


def math_keeps_punctuation(markdown: str) -> str:
    """Markdown whose inline maths takes the full stop, comma or semicolon after it inside: MathJax typesets
    `$…$` as one inline box, and a line could break between it and the stop ("ρ = 0.99" ending one line of
    Figure 5's caption on a phone, "." alone starting the next)."""
    return _INLINE_MATH.sub(lambda m: f"${m[1]}{m[2]}$", markdown)


def navbar(active: str, model: str | None = None) -> html.Header:
    """The skip link, first in the tab order, then the navigation bar."""
    text = "Skip to the tables" if active == "methods" else "Skip to figures"
    skip = html.A(text, href=f"#{FIGURES_ID}", className="visually-hidden-focusable skip-link")
    return html.Header([skip, _navbar(active, model)])


PRINT_SETTINGS_ID = "print-settings"


def print_head(values: dict) -> html.Header:
    """A printout's title block, shown on paper only (style.css): inferx, the date and the address it was printed
    from (assets/theme.js writes both as printing starts) and the settings line (`scenario_line`, which the
    redraw request keeps current: pages/_callbacks.py)."""
    try:
        line = scenario_line(values)
    except (KeyError, TypeError, ValueError):  # a page without every control: the line waits for the first redraw
        line = ""
    return html.Header(
        [
            html.P(["inferx", html.Span(" · the LLM serving frontier from hardware physics")], className="print-brand"),
            html.P(
                ["Printed ", html.Span(id="print-date"), " from ", html.Span(id="print-url")], className="print-from"
            ),
            html.P(line, id=PRINT_SETTINGS_ID, className="print-settings"),
        ],
        className="print-head",
    )


def page_title(text: str) -> html.H1:
    """The page's one h1, for screen readers and the outline; the navigation bar already names the page."""
    return html.H1(text, className="visually-hidden")


def _navbar(active: str, model: str | None = None) -> dbc.Navbar:
    """The page links; /methods computes its tables for `model` (the browser keeps that link's model current
    as the controls change: assets/inferx.js, followAddress)."""
    methods = "/methods" if model in (None, PARAMS["model"].default) else f"/methods?model={model}"
    links = [
        ("dashboard", "Dashboard", "/"),
        ("inferencex", "InferenceX data", "/inferencex"),
        ("methods", "Methods & checks", methods),
    ]
    menu = html.Div(
        [
            dbc.Nav(
                [
                    dbc.NavLink(text, href=get_relative_path(path), active=key == active, id=f"nav-{key}")
                    for key, text, path in links
                ]
            ),
            theme_toggle(),
        ],
        id="navbar-menu",
        className="collapse navbar-collapse",
    )
    # Below lg the menu folds behind the toggler (assets/drawer.js): no callback, so it works before Dash loads.
    toggler = html.Button(
        html.Span(className="navbar-toggler-icon"),
        className="navbar-toggler",
        type="button",
        title="Menu",
        **{"data-collapse-toggle": "", "aria-controls": "navbar-menu", "aria-expanded": "false", "aria-label": "Menu"},
    )
    return dbc.Navbar(
        dbc.Container(
            [
                dbc.NavbarBrand(
                    ["inferx", html.Span(" · the LLM serving frontier from hardware physics", className="brand-sub")],
                    href=get_relative_path("/"),
                ),
                toggler,
                menu,
            ],
            fluid=True,
        ),
        color="dark",
        dark=True,
        expand="lg",
        className="mb-3",
    )


def theme_toggle() -> html.Div:
    """Light, dark or the system's theme: assets/theme.js applies the choice and remembers it in this browser."""
    choices = [("light", "Light", "Light theme"), ("dark", "Dark", "Dark theme"), ("auto", "Auto", "Follow the system")]
    return html.Div(
        [
            html.Button(
                text,
                type="button",
                className="btn btn-outline-light",
                title=title,
                **{"data-theme-choice": key, "aria-pressed": "false"},
            )
            for key, text, title in choices
        ],
        role="group",
        className="btn-group theme-toggle",
        **{"aria-label": "Colour theme"},
    )


def share_buttons(fig: str | None) -> html.Div:
    """Copy-link and copy-embed-code buttons: inside a wiki iframe the address bar never changes. Plain buttons
    with no callback: assets/export.js's listener writes the clipboard."""
    items = [
        html.Button(
            "Copy link",
            type="button",
            id="copy-link",
            className="share-btn copy-btn",
            title="Copy a link to this page with the current settings",
            **{"data-copy-link": "true"},
        )
    ]
    if fig:
        items.append(embed_button(fig, "Copy embed code"))
    # What a copy did, for a screen reader (the tick says it on screen) and, if the browser refused, for everyone.
    items.append(html.Span(className="share-status visually-hidden", role="status"))
    return html.Div(items, className="share")


def embed_button(fig: str, text: str = "") -> html.Button:
    """Copies an <iframe> of the figure with the page's current settings. A plain button, one Dash component
    with no callback: assets/export.js's listener writes the clipboard, from the path (prefix included) here."""
    title = registry.FIGURES[fig].title.split(" · ")[0]
    return html.Button(
        text,
        type="button",
        id=f"embed-copy-{fig}",
        className="share-btn copy-btn",
        title="Copy an <iframe> of this figure with the current settings",
        **{"data-embed-path": get_relative_path(f"/embed/{fig}"), "aria-label": f"Copy embed code of {title}"},
    )


def graph(fig: str, figure: dict, height: int | str) -> html.Div:
    """A figure's graph, `height` pixels or a CSS length, with its text alternative. The wrapper carries the
    stable DOM id `fig-N`; the graph's own pattern-matching id lets one callback fill whichever graphs a page
    has."""
    graph = dcc.Graph(
        id={"role": "figure", "fig": fig},
        figure=figure,
        config=GRAPH_CONFIG,
        style={"height": height if isinstance(height, str) else f"{height}px"},
        mathjax=False,
    )
    return described_graph(graph_wrapper_id(fig), graph, figure)


def described_graph(wrapper_id: str, graph: dcc.Graph, figure: dict | None) -> html.Div:
    """A graph with its text alternative: the figure's numbers in words (inferx.figure_text), written here for
    the page's first figure and by assets/a11y.js from `layout.meta.summary` after every redraw."""
    text = ((figure or {}).get("layout") or {}).get("meta") or {}
    alt = html.P(text.get("summary", ""), id=f"{wrapper_id}-text", className="visually-hidden graph-text")
    return html.Div([graph, alt], id=wrapper_id, className="graph-wrap", role="figure", **{"aria-describedby": alt.id})


def readouts() -> html.Div:
    # The labels are set in capitals by CSS; ρ keeps its case, or it reads as a Latin P.
    rho = ["Utilisation ", html.Span("ρ", className="symbol")]
    cells = [("throughput", "Throughput"), ("ttft", "TTFT"), ("itl", "ITL"), ("rho", rho)]
    return html.Div(
        [
            html.Div(
                [
                    html.Div(label, className="readout-label"),
                    html.Div("—", id=f"readout-{key}", className="readout-value"),
                    html.Div("", id=f"readout-{key}-a", className="readout-diff"),  # against A, when pinned
                    # The other model's value, and the expected's error (assets/inferx.js, from the figure's meta).
                    html.Div("", id=f"readout-{key}-both", className="readout-both"),
                ],
                className="readout",
            )
            for key, label in cells
        ],
        className="readouts",
    )


TIME_PARTS_ID = "time-parts"  # the wrapper of the explorer's "Where the time goes" bars; its graph's id adds -graph
TIME_PARTS_CAPTION = (
    "The bars split the inter-token latency at the explorer's batch into what each output token waits for: the "
    "ideal follows the article's roofline, which counts only the slower of the HBM reads and the arithmetic (the "
    "hatched strip is the faster one, running underneath and adding nothing), while the expected adds both at the "
    "rates measured stacks reach, plus a fixed cost per step and the prefills that pause decoding."
)


def time_parts_panel(explorer_figure: dict) -> html.Section:
    """Where the time goes: the two bars of `figures.breakdown` under the explorer, from the explorer figure's
    `layout.meta.timeParts`; the explorer's callback (assets/inferx.js) redraws them with every new explorer
    figure and fades them while the dot is at a batch the server has not drawn them for."""
    meta = ((explorer_figure or {}).get("layout") or {}).get("meta") or {}
    figure = meta.get("timeParts") or {}
    graph = dcc.Graph(
        id=f"{TIME_PARTS_ID}-graph",
        figure=figure,
        config={**GRAPH_CONFIG, "displayModeBar": False},
        style={"height": f"{TIME_PARTS_HEIGHT}px"},
        mathjax=False,
    )
    return html.Section(
        [
            html.H3("Where the time goes", className="time-parts-title", id=f"{TIME_PARTS_ID}-title"),
            described_graph(TIME_PARTS_ID, graph, figure),
            html.P(TIME_PARTS_CAPTION, className="caption time-parts-caption"),
        ],
        className="time-parts",
        **{"aria-labelledby": f"{TIME_PARTS_ID}-title"},
    )


def beyond_readouts() -> html.Div:
    """The explorer's readouts beyond the article: cost and energy at the dot, the binding limit there, and the
    goodput under the SLO (filled by window.inferx.explorer from the figure's layout.meta)."""
    cells = [("cost", "Cost per M tokens"), ("energy", "Energy")]
    return html.Div(
        [
            html.Div(
                [
                    html.Div(
                        [
                            html.Div(label, className="readout-label"),
                            html.Div("—", id=f"readout-{key}", className="readout-value"),
                            html.Div("", id=f"readout-{key}-a", className="readout-diff"),
                            html.Div("", id=f"readout-{key}-both", className="readout-both"),
                        ],
                        className="readout",
                    )
                    for key, label in cells
                ],
                className="readouts",
            ),
            html.P("", id="readout-price", className="readout-note"),
            html.P("", id="readout-regime", className="readout-sentence"),
            html.P("", id="readout-goodput", className="readout-sentence"),
        ]
    )


def initial_figures(
    values: dict, names, batch: int, notices: list[str], pinned: Scenario | None = None
) -> dict[str, dict]:
    """The figures for the URL's state (with the pinned scenario A's beside them), drawn into the page layout
    itself: each graph paints once, and loading a page costs no redraw request (a busy browser spends seconds
    on a second paint)."""
    try:
        scn = Scenario.from_params(**values)
        figs = registry.build(scn, names, batch, pinned=pinned)
        past = batch_past_b_max(scn, batch)
        if past and any(registry.FIGURES[n].reads_batch for n in names):
            notices.append(past)
        return figs
    except InvalidParameter as err:
        notices.append(f"Could not draw these settings: {err}")
    except Exception:  # parse_query checked every value: this is our bug, so the log gets the traceback
        log.exception("drawing the figures of %s (batch %s) failed", values, batch)
        notices.append(INTERNAL_ERROR)
    return {}


def figure_card(
    fig: str, figure: dict, batch: int = BATCH.default, caption: bool = True, embed_copy: bool = True, level: int = 2
) -> dbc.Card:
    """A figure with its title (a heading of `level`) and caption; `embed_copy=False` where the page already has
    the figure's copy-embed-code button (an id may appear once per page)."""
    entry = registry.FIGURES[fig]
    body = [graph(fig, figure, entry.height), export_tools(fig)]
    if entry.reads_batch:
        # One grid for the six readouts (style.css: .explorer-readouts): two grids left two empty cells beside cost
        # and energy.
        body += [html.Div([readouts(), beyond_readouts()], className="explorer-readouts"), explorer_controls(batch)]
        body.append(time_parts_panel(figure))
    if caption:
        # `$$` on lines of their own make a displayed equation; `$$…$$` within a line is typeset inline, small.
        text = f"{math_keeps_punctuation(entry.caption)}\n\n$$\n{entry.equation}\n$$"
        body.append(dcc.Markdown(text, mathjax=True, className="caption"))
    title = (html.H2 if level == 2 else html.H3)(entry.title, className="card-title")
    # assets/export.js puts the copy's status line beside the button (a Dash component more per card would cost
    # every step of a slider drag).
    header = html.Div([title, embed_button(fig)] if embed_copy else [title], className="card-head")
    # A relation on one line: Figure 6's broke a phone's line after its "ρ". Not in the check table, whose
    # quantities would then widen their column and lengthen the notes beside them.
    unbroken = _RELATION.sub("\u00a0\\1\u00a0", entry.subtitle)
    subtitle = html.P(with_subscripts(unbroken), className="fig-subtitle")  # the figure's point, before the chart
    return dbc.Card([dbc.CardBody([header, subtitle, *body])], className="fig-card", id=f"card-{fig}")


def scroll_box(table: dbc.Table, label: str) -> html.Div:
    """A table in a box that scrolls sideways where it is wider than the page (a phone): a region named after
    the table that the keyboard can focus, and so scroll (axe: scrollable-region-focusable)."""
    return html.Div(table, className="table-responsive", tabIndex="0", role="region", **{"aria-label": label})


def notices_area(notices: list[str]) -> html.Div:
    return html.Div(
        [
            dbc.Alert(
                [html.Div(n) for n in notices],
                color="warning",
                dismissable=True,
                is_open=bool(notices),
                id="url-notice",
            ),
            dbc.Alert(id="runtime-notice", color="danger", is_open=False, dismissable=True),
        ],
        className="notices",
    )
