"""The page for an address no page has (`/nope`, `/embed/`): the navigation bar, what exists, and the figures an
iframe can embed. Dash Pages serves a module of this name for every unknown path."""

import dash
import dash_bootstrap_components as dbc
from dash import dcc, html

from inferx.figures import registry
from pages._cards import FIGURES_ID, navbar

dash.register_page(__name__, path="/404", title="inferx · page not found")


def page_exists(path: str) -> bool:
    """Whether an address within the app ("methods", "/embed/fig1") shows a page rather than this one; the
    server answers the others with 404. An embed must name a figure: /embed/nope says it names none."""
    path = path.strip("/")
    embed, _, name = path.partition("/")
    if embed == "embed" and name:
        return registry.by_name(name) is not None
    pages = [p for p in dash.page_registry.values() if p["module"] not in (__name__, "pages.embed")]
    return path in {p["path"].strip("/") for p in pages}


def embed_links() -> html.Ul:
    """A link to every figure's embed, with its title."""
    return html.Ul(
        [
            html.Li([dcc.Link(f"/embed/{f.name}", href=dash.get_relative_path(f"/embed/{f.name}")), f": {f.title}"])
            for f in registry.FIGURES.values()
        ]
    )


def layout(**_query):
    return html.Div(
        [
            navbar("none"),
            dbc.Container(
                [
                    html.H1("No page at this address", className="h3 mt-3"),
                    html.P(
                        [
                            "inferx has the ",
                            dcc.Link("dashboard", href=dash.get_relative_path("/")),
                            ", the ",
                            dcc.Link("InferenceX data", href=dash.get_relative_path("/inferencex")),
                            " and the ",
                            dcc.Link("methods and checks", href=dash.get_relative_path("/methods")),
                            ". Each figure also has a page of its own for an iframe:",
                        ]
                    ),
                    embed_links(),
                ],
                id=FIGURES_ID,
                tag="main",
            ),
        ]
    )
