"""Assembles the inferx Dash app. `python app.py` serves it; `gunicorn app:server` in production.

Everything the page loads is served by the app itself (Bootstrap 5.3.6 CSS is vendored in assets/):
wiki hosts and CI machines often cannot reach a CDN.
"""

import sys

# Dash imports IPython at start-up for notebook support, which a server never uses. Where IPython happens to be
# installed, that import (with jedi) was a third of the app's start-up; a None entry makes it fail fast.
sys.modules.setdefault("IPython", None)

from inferx.data.user_gpus import add_gpus_from_env  # noqa: E402
from inferx.data.user_models import add_models_from_env  # noqa: E402
from inferx.deploy import ConfigError, Settings  # noqa: E402

try:
    settings = Settings.from_env()
    add_models_from_env()  # before the pages, whose model and GPU menus list the catalogs
    add_gpus_from_env()
except ConfigError as err:  # one line naming the variable, for `python app.py` and `gunicorn app:server` alike
    raise SystemExit(f"inferx: {err}") from None

from dash import Dash, html, page_container  # noqa: E402
from dash.exceptions import DependencyException  # noqa: E402

import pages._callbacks  # noqa: E402, F401 (registers the callbacks the pages share)
import pages._drag  # noqa: E402, F401 (registers the route a dragged slider asks its redraws from)
from pages._controls import ui_config  # noqa: E402
from pages._measured import stores as measured_stores  # noqa: E402

app = Dash(
    __name__,
    use_pages=True,
    url_base_pathname=settings.prefix,
    health_endpoint="health",
    suppress_callback_exceptions=True,  # pages carry different subsets of the shared controls
    update_title=None,  # keep the tab title steady while figures redraw
    title="inferx",
    # Dash's own page with `lang` on <html> (screen readers pick the voice from it) and without its IE comment.
    index_string="""<!DOCTYPE html>
<html lang="en">
    <head>
        {%metas%}
        <title>{%title%}</title>
        {%favicon%}
        {%css%}
        <script>
            // The theme before the first paint, decided as assets/theme.js decides it once loaded (the address's
            // theme=, else the stored choice outside /embed/, else the system's): no light page on a slow load.
            (function () {
                var t = new URLSearchParams(location.search).get("theme");
                try {
                    if (t !== "light" && t !== "dark" && t !== "auto" && location.pathname.indexOf("/embed/") < 0) {
                        t = localStorage.getItem("inferx-theme");
                    }
                } catch (e) {}
                if (t !== "light" && t !== "dark") {
                    t = matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
                }
                document.documentElement.setAttribute("data-bs-theme", t);
            })();
        </script>
    </head>
    <body>
        {%app_entry%}
        <footer>
            {%config%}
            {%scripts%}
            {%renderer%}
        </footer>
    </body>
</html>""",
)
from pages.not_found_404 import page_exists  # noqa: E402 (a page module: Dash must exist first)

# DependencyException: a script path that is not one of Dash's (e.g. /_dash-component-suites/nope/x.js) is a 404.
settings.install(
    app.server, callback_map=lambda: app.callback_map, not_found=(DependencyException,), page_exists=page_exists
)
server = app.server
app.layout = html.Div([ui_config(), measured_stores(), page_container])

# Dash finishes setting up (its script registry, the Pages router's callback) in a before-request hook that
# marks itself done before it has run. A threaded worker's first requests raced it: a script answered 500
# ('"dash" is not a registered library') and the page never drew. Run the hooks once now, before gunicorn
# forks its workers (preload_app) or the dev server takes a request.
with server.test_request_context():
    server.preprocess_request()

if __name__ == "__main__":
    import argparse

    args = argparse.ArgumentParser(description="Serve inferx with Dash's own server (gunicorn serves it in Docker).")
    args.add_argument("--host", default=settings.host, help=f"address to listen on (default $HOST, {settings.host})")
    args.add_argument("--port", type=int, default=settings.port, help=f"port (default $PORT, {settings.port})")
    given = args.parse_args()
    app.run(host=given.host, port=given.port, debug=False)
