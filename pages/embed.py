"""`/embed/<name>`: one figure, by key (`fig1`) or name (`roofline`), with its controls folded away, for a wiki
iframe."""

import dash
import dash_bootstrap_components as dbc
from dash import html
from dash.exceptions import MissingCallbackContextException

from inferx import figure_registry as registry
from inferx.scenario import shown_value
from pages._cards import figure_card, initial_figures, notices_area, page_title, share_buttons
from pages._compare import pin_bar, pinned_scenario
from pages._controls import controls_panel
from pages._url import PINNED_KEY, parse_pinned, parse_query

dash.register_page(__name__, path_template="/embed/<name>", title="inferx · embed", order=2)


def path_name(given):
    """The figure named by the address's path. Dash's router lets a query key override a path variable
    (`/embed/fig1?name=fig7` would call layout(name="fig7")), so in the router the path is read again;
    called directly (tests, the Python API) the argument is the name."""
    try:
        pathname = dash.ctx.inputs.get("_pages_location.pathname")
    except MissingCallbackContextException:
        return given
    if not isinstance(pathname, str):
        return given
    return dash.strip_relative_path(pathname).partition("/")[2]


def layout(name=None, **query):
    path = path_name(name)
    notices = [] if path == name else [f"Ignored name={shown_value(name)}: the address's path names the figure."]
    entry = registry.by_name(path) if isinstance(path, str) else None
    if entry is None:
        known = ", ".join(f"{key} ({f.name})" for key, f in registry.FIGURES.items())
        return html.Div(
            dbc.Alert(f"No figure called {shown_value(path)!r}. Embeddable names: {known}.", color="warning"),
            className="embed",
        )
    pinned, pin_notices = parse_pinned(query.pop(PINNED_KEY, None))  # a comparison embeds too
    values, batch, query_notices = parse_query(query)
    notices += query_notices + pin_notices
    fig = entry.key
    figure = initial_figures(values, [fig], batch, notices, pinned_scenario(pinned)).get(fig, {})
    settings = dbc.Collapse([pin_bar(pinned), controls_panel(values)], id="embed-settings", is_open=False)
    toggle = html.Button("Settings", id="embed-settings-toggle", className="btn btn-outline-secondary btn-sm")
    return html.Main(
        [
            page_title(entry.title),
            html.Div([toggle, share_buttons(fig)], className="embed-bar"),
            settings,
            notices_area(notices),
            figure_card(fig, figure, batch, caption=False, embed_copy=False),  # the bar above has it
        ],
        className="embed",
    )
