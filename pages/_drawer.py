"""A drawer's header and its toggle button; assets/drawer.js opens and closes it (style.css: .drawer, .drawer-md)."""

from __future__ import annotations

from dash import html


def drawer_toggle(text: str, drawer_id: str, className: str = "", **props) -> html.Button:  # noqa: N803 (Dash's name)
    """The button that opens (and closes) drawer `drawer_id`."""
    aria = {"data-drawer-toggle": "", "aria-controls": drawer_id, "aria-expanded": "false"}
    return html.Button(text, type="button", className=f"drawer-toggle {className}".strip(), **aria, **props)


def drawer_head(title: str, drawer_id: str) -> html.Div:
    """The drawer's title and close button (shown only while the element is a drawer)."""
    return html.Div(
        [
            html.H2(title, className="drawer-title", id=f"{drawer_id}-title"),
            html.Button(
                type="button",
                className="btn-close",
                title=f"Close {title.lower()}",
                **{"data-drawer-close": "", "aria-label": f"Close {title.lower()}"},
            ),
        ],
        className="drawer-head",
    )
