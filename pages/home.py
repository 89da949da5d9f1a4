"""`/`: the full dashboard, Figures 1–9 in the article's order on one set of controls."""

import dash
import dash_bootstrap_components as dbc
from dash import html

from pages._measured import overlay_store, upload_panel
from pages._shared import (
    FIGURE_ORDER,
    controls_panel,
    figure_card,
    initial_figures,
    navbar,
    notices_area,
    parse_query,
    share_buttons,
)

dash.register_page(__name__, path="/", title="inferx · LLM serving frontier", order=0)


def layout(**query):
    values, batch, notices = parse_query(query)
    sidebar = html.Div(
        [share_buttons(None), controls_panel(values), upload_panel(switch=True), overlay_store()], className="sidebar"
    )
    figs = initial_figures(values, FIGURE_ORDER, batch, notices)
    cards = [figure_card(fig, figs.get(fig, {}), batch) for fig in FIGURE_ORDER]
    return html.Div(
        [
            navbar("dashboard"),
            dbc.Container(
                dbc.Row(
                    [
                        dbc.Col(sidebar, lg=3, md=4, className="sidebar-col"),
                        dbc.Col([notices_area(notices), *cards], lg=9, md=8),
                    ]
                ),
                fluid=True,
            ),
        ]
    )
