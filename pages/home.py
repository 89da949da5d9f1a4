"""`/`: the full dashboard, the registry's dashboard figures in the article's order on one set of controls."""

import dash
import dash_bootstrap_components as dbc
from dash import html

from inferx.figures.registry import ARTICLE_FIGURES, DASHBOARD, FIGURES
from pages._cards import (
    FIGURES_ID,
    figure_card,
    initial_figures,
    navbar,
    notices_area,
    print_head,
    share_buttons,
)
from pages._compare import comparison_card, pin_bar, pinned_scenario
from pages._controls import controls_panel
from pages._drawer import drawer_head, drawer_toggle
from pages._landing import figure_index, index_toggle, intro, landing_title
from pages._measured import overlay_store, upload_panel
from pages._search import search_card
from pages._url import PINNED_KEY, parse_pinned, parse_query

dash.register_page(__name__, path="/", title="inferx · LLM serving frontier", order=0)


def layout(**query):
    pinned, pin_notices = parse_pinned(query.pop(PINNED_KEY, None))
    values, batch, notices = parse_query(query)
    notices += pin_notices
    # Beside the figures from md up; below, a drawer that the sticky Controls button opens, so a phone shows
    # the figures first.
    sidebar = html.Div(
        [
            drawer_head("Controls", "controls-drawer"),
            share_buttons(None),
            pin_bar(pinned),
            controls_panel(values),
            upload_panel(switch=True),
            overlay_store(),
        ],
        id="controls-drawer",
        className="sidebar drawer-md",
        role="region",
        **{"aria-label": "Controls"},
    )
    figs = initial_figures(values, DASHBOARD, batch, notices, pinned_scenario(pinned))
    cards = []
    for fig in DASHBOARD:
        entry = FIGURES[fig]
        if entry.number == ARTICLE_FIGURES + 1:
            cards.append(
                html.Div(
                    [
                        html.H2("Beyond the article", className="section-title"),
                        html.P(
                            "Which limit binds, what a latency target allows, what a token costs, request rates, "
                            "and speculative decoding: the same engine, set by the Targets & cost controls. Prices "
                            "are assumptions, not measurements. How MoE routing grows the bytes a step reads is on "
                            "the Methods page.",
                            className="section-lead",
                        ),
                    ],
                    id="beyond",
                )
            )
        # The figures past the article are a section of their own, under its heading.
        cards.append(figure_card(fig, figs.get(fig, {}), batch, level=2 if entry.number <= ARTICLE_FIGURES else 3))
        if entry.name == "economics":  # what a token costs, then which machine makes it cheapest
            cards.append(search_card())
    return html.Div(
        [
            navbar("dashboard", values["model"]),
            dbc.Container(
                [
                    print_head(values),  # on paper only, and first there
                    landing_title("The LLM serving frontier from hardware physics"),
                    # Shown (fixed, bottom right) on a narrow screen only: first in the page's tab order, not
                    # after every figure.
                    drawer_toggle("Controls", "controls-drawer", className="drawer-toggle-md btn btn-primary"),
                    dbc.Row(
                        [
                            dbc.Col(sidebar, lg=3, md=4, className="sidebar-col"),
                            dbc.Col(
                                [
                                    # First in the figures' column: the controls keep their place at the top of
                                    # theirs, where a hand (and the drag tests) find them.
                                    intro(values["mode"]),
                                    index_toggle(),  # the phone's, fixed: its sheet follows it in the tab order
                                    figure_index(DASHBOARD),
                                    notices_area(notices),
                                    comparison_card(pinned, values),
                                    *cards,
                                ],
                                lg=9,
                                md=8,
                                id=FIGURES_ID,
                            ),
                        ]
                    ),
                ],
                fluid=True,
                tag="main",
                className="with-toggle",  # room under the page for the fixed toggle (style.css)
            ),
        ]
    )
