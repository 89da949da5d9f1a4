"""`/embed/<name>`: one figure (fig1 … fig9, or explorer) with its controls folded away, for a wiki iframe."""

import dash
import dash_bootstrap_components as dbc
from dash import html

from pages._shared import (
    TITLES,
    controls_panel,
    figure_card,
    initial_figures,
    notices_area,
    parse_query,
    share_buttons,
)

dash.register_page(__name__, path_template="/embed/<name>", title="inferx · embed", order=2)

ALIASES = {"explorer": "fig6"}


def layout(name=None, **query):
    fig = ALIASES.get(name, name)
    if fig not in TITLES:
        known = ", ".join([*TITLES, *ALIASES])
        return html.Div(
            dbc.Alert(f"No figure called {name!r}. Embeddable names: {known}.", color="warning"), className="embed"
        )
    values, batch, notices = parse_query(query)
    figure = initial_figures(values, [fig], batch, notices).get(fig, {})
    settings = dbc.Collapse(controls_panel(values), id="embed-settings", is_open=False)
    toggle = html.Button("Settings", id="embed-settings-toggle", className="btn btn-outline-secondary btn-sm")
    return html.Div(
        [
            html.Div([toggle, share_buttons(fig)], className="embed-bar"),
            settings,
            notices_area(notices),
            figure_card(fig, figure, batch, caption=False, embed_copy=False),  # the bar above has it
        ],
        className="embed",
    )
