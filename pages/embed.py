"""`/embed/<name>`: one figure, by key (`fig1`) or name (`roofline`), for a wiki iframe: its title and a line
naming the scenario first, the figure filling the rest of the frame, the controls in a drawer over it."""

import dash
from dash import Input, Output, callback, html, no_update
from dash.exceptions import MissingCallbackContextException

from inferx.figures import registry
from inferx.scenario.controls import PARAMS, InvalidParameter, check_param
from inferx.scenario.machines import resolve_params
from inferx.text import shown_value
from pages._cards import beyond_readouts, graph, initial_figures, notices_area, readouts, share_buttons
from pages._compare import pin_bar, pinned_scenario
from pages._controls import controls_panel, explorer_controls
from pages._drawer import drawer_head, drawer_toggle
from pages._export import export_tools
from pages._url import PINNED_KEY, control_values_to_params, parse_pinned, parse_query
from pages.not_found_404 import embed_links


def title(name=None) -> str:
    """The tab's title: the figure's, or that there is none by this name (Dash Pages calls it with the path)."""
    entry = registry.by_name(name) if isinstance(name, str) else None
    return f"inferx · {entry.title}" if entry else "inferx · no such figure"


dash.register_page(__name__, path_template="/embed/<name>", title=title, order=2)

SCENARIO_ID = "embed-scenario"


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


def scenario_line(values: dict) -> str:
    """One line naming what the figure shows: machine, model, precisions and lengths, with units; in calibrated
    mode also the software stack, the output length and speculative decoding, which only that mode reads."""
    label = {name: PARAMS[name].label_of for name in ("gpu", "model", "wdtype", "kvdtype", "framework")}
    parts = [
        f"{values['gpus']}×{label['gpu'](values['gpu'])}, {values['bw']:,.1f} TB/s",
        label["model"](values["model"]),
        f"{label['wdtype'](values['wdtype'])} weights, {label['kvdtype'](values['kvdtype'])} KV cache",
        f"context {values['ctx']:,} tokens, input {values['isl']:,} tokens",
    ]
    switched = [words for name, words in (("ep", "expert parallelism"), ("dp", "attention data parallelism"))
                if values.get(name) == "1"]  # fmt: skip
    if switched:  # the layout across the TP group, where the address sets one
        parts.append(f"{' and '.join(switched)} across TP {values['tp']}")
    if values["mode"] == "calibrated":
        stack = f"calibrated: {label['framework'](values['framework'])}, output {values['osl']:,} tokens"
        if values["mtp"] == "on":
            alpha = values["acceptance"]
            stack += f", MTP with α {'fitted' if alpha is None else f'{alpha:g} %'}"
        parts.append(stack)
    return " · ".join(parts)


def layout(name=None, **query):
    path = path_name(name)
    notices = [] if path == name else [f"Ignored name={shown_value(name)}: the address's path names the figure."]
    entry = registry.by_name(path) if isinstance(path, str) else None
    if entry is None:
        return html.Main(
            [
                html.H1(f"No figure called {shown_value(path)!r}", className="h4"),
                html.P("An embed names a figure by its number or its name, one of these:"),
                embed_links(),
            ],
            className="embed p-3",
        )
    pinned, pin_notices = parse_pinned(query.pop(PINNED_KEY, None))  # a comparison embeds too
    values, batch, query_notices = parse_query(query)
    notices += query_notices + pin_notices
    fig = entry.key
    figure = initial_figures(values, [fig], batch, notices, pinned_scenario(pinned)).get(fig, {})
    head = html.Div(
        [
            html.Div(
                [
                    html.H1(entry.title, className="embed-title"),
                    html.Div(
                        [
                            drawer_toggle(
                                "Settings",
                                "embed-settings",
                                id="embed-settings-toggle",
                                className="btn btn-outline-secondary btn-sm",
                            ),
                            share_buttons(fig),
                        ],
                        className="embed-bar",
                    ),
                ],
                className="embed-title-row",
            ),
            html.P(line := scenario_line(values), id=SCENARIO_ID, className="embed-scenario", title=line),
        ],
        className="embed-head",
    )
    # The graph takes the frame's height left over by the title, the scenario line and (the explorer) its
    # readouts and batch slider: the flex column of .embed in style.css.
    body = [html.Div(graph(fig, figure, "100%"), className="embed-figure")]
    if entry.reads_batch:
        # In a short frame the readouts are one strip that scrolls sideways (style.css): focusable, so a keyboard
        # can scroll it too.
        cells = html.Div(
            [readouts(), beyond_readouts()],
            className="embed-readouts",
            tabIndex="0",
            role="region",
            **{"aria-label": "Readouts at the operating point"},
        )
        body.append(html.Div([cells, explorer_controls(batch)], className="embed-extra"))
    settings = html.Div(
        [drawer_head("Settings", "embed-settings"), export_tools(fig), pin_bar(pinned), controls_panel(values)],
        id="embed-settings",
        className="drawer",
        role="region",
        **{"aria-label": "Settings"},
    )
    return html.Main([head, notices_area(notices), *body, settings], className="embed", id=f"card-{fig}")


@callback(
    Output(SCENARIO_ID, "children"),
    Output(SCENARIO_ID, "title"),
    Input("redraw-request", "data"),
    prevent_initial_call=True,
)
def follow_scenario(request):
    """The scenario line (and its title, the whole line where a short frame cuts it) follows the drawer's
    controls (the request the figure's redraw is drawn from)."""
    try:
        given = control_values_to_params(request.get("values"))
        line = scenario_line(resolve_params({k: check_param(k, v) for k, v in given.items() if v is not None}))
    except (InvalidParameter, AttributeError, KeyError, TypeError):
        return no_update, no_update  # the redraw reports a bad value; the line keeps the last good scenario
    return line, line
