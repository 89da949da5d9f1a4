"""`/`: the full dashboard, every figure of the registry in the article's order on one set of controls."""

import dash
import dash_bootstrap_components as dbc
from dash import html

from inferx.figure_registry import ARTICLE_FIGURES, FIGURES
from pages._cards import figure_card, initial_figures, navbar, notices_area, share_buttons
from pages._controls import controls_panel
from pages._drawer import drawer_head, drawer_toggle
from pages._measured import overlay_store, upload_panel
from pages._url import parse_query

dash.register_page(__name__, path="/", title="inferx · LLM serving frontier", order=0)


def layout(**query):
    values, batch, notices = parse_query(query)
    # Beside the figures from md up; below, a drawer that the sticky Controls button opens, so a phone shows
    # the figures first.
    sidebar = html.Div(
        [
            drawer_head("Controls", "controls-drawer"),
            share_buttons(None),
            controls_panel(values),
            upload_panel(switch=True),
            overlay_store(),
        ],
        id="controls-drawer",
        className="sidebar drawer-md",
        role="region",
        **{"aria-label": "Controls"},
    )
    figs = initial_figures(values, FIGURES, batch, notices)
    cards = []
    for fig, entry in FIGURES.items():
        if entry.number == ARTICLE_FIGURES + 1:
            cards.append(
                html.Div(
                    [
                        html.H4("Beyond the article", className="section-title"),
                        html.P(
                            "Which limit binds, what a latency target allows, what a token costs, request rates, "
                            "speculative decoding and MoE routing: the same engine, set by the Targets & cost "
                            "controls. Prices are assumptions, not measurements.",
                            className="section-lead",
                        ),
                    ],
                    id="beyond",
                )
            )
        cards.append(figure_card(fig, figs.get(fig, {}), batch))
    return html.Div(
        [
            navbar("dashboard", values["model"]),
            dbc.Container(
                dbc.Row(
                    [
                        dbc.Col(sidebar, lg=3, md=4, className="sidebar-col"),
                        dbc.Col([notices_area(notices), *cards], lg=9, md=8),
                    ]
                ),
                fluid=True,
            ),
            drawer_toggle("Controls", "controls-drawer", className="drawer-toggle-md btn btn-primary"),
        ]
    )
