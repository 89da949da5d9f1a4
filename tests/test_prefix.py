"""Behind a proxy at /tools/inferx/: pages, assets, callbacks and generated links all carry the prefix."""

from __future__ import annotations

import urllib.error
import urllib.request
from urllib.parse import urlsplit

import pytest
from browser_checks import figure_data, network_responses, press_slider, wait_figure_change, wait_js
from conftest import Server, severe_console_errors
from selenium.webdriver.common.keys import Keys

pytestmark = pytest.mark.browser

PREFIX = "/tools/inferx/"


@pytest.fixture(scope="module")
def prefixed():
    srv = Server(env={"INFERX_PREFIX": PREFIX.strip("/")}, prefix=PREFIX)  # unnormalised on purpose
    yield srv
    srv.stop()


def test_nothing_is_served_outside_the_prefix(prefixed):
    root = prefixed.url.removesuffix(PREFIX) + "/"
    for path in ("", "health", "_dash-layout"):
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(root + path, timeout=30)
        assert err.value.code == 404, path
    for path in ("_dash-layout", "", "methods", "embed/fig1"):
        with urllib.request.urlopen(prefixed.url + path, timeout=30) as resp:
            assert resp.status == 200, path
    for path in ("nope", "embed/nope"):  # within the prefix, an address no page has
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(prefixed.url + path, timeout=30)
        assert err.value.code == 404, path


def test_dashboard_under_prefix_renders_and_responds(browser, prefixed):
    browser.get(prefixed.url)
    before = figure_data(browser, 5)
    press_slider(browser, "ctl-bw", Keys.END)
    wait_figure_change(browser, 5, before)

    # Every request the page made (assets, bundles, layout, callbacks) went under the prefix, and none failed.
    origin = "{0.scheme}://{0.netloc}".format(urlsplit(prefixed.url))
    own = [(url, status) for url, status in network_responses(browser) if url.startswith(origin)]
    assert any("/_dash-update-component" in url for url, _ in own)
    assert all(urlsplit(url).path.startswith(PREFIX) for url, _ in own), own
    assert all(status < 400 for _, status in own), own

    # Links the app generates: navbar, the embed code's path, the downloads' route, and the page's URL state.
    hrefs = browser.execute_script("return Array.from(document.querySelectorAll('nav a')).map(a => a.pathname);")
    assert hrefs and all(h.startswith(PREFIX) for h in hrefs), hrefs
    embed_paths = browser.execute_script(
        "return Array.from(document.querySelectorAll('[data-embed-path]')).map(e => e.dataset.embedPath);"
    )
    assert embed_paths and all(p.startswith(PREFIX + "embed/fig") for p in embed_paths), embed_paths
    routes = browser.execute_script(
        "return Array.from(document.querySelectorAll('[data-export]')).map(e => JSON.parse(e.dataset.export).url);"
    )
    assert routes and set(routes) == {PREFIX + "_export"}, routes
    drag = browser.execute_script("return window.dash_component_api.getLayout('ui-config').props.data.dragUrl")
    assert drag == PREFIX + "_drag"  # where a dragged slider asks its redraws (pages/_drag.py)
    assert wait_js(browser, f"return location.pathname.startsWith('{PREFIX}') && location.search.includes('bw=');")
    assert severe_console_errors(browser) == []


def test_embed_page_under_prefix(browser, prefixed):
    browser.get(prefixed.url + "embed/fig5?preset=b200x8")
    figure_data(browser, 5)
    # Waited for, not read once: under load the page's controls can be drawn a moment after its figure.
    preset = wait_js(browser, "const p = document.querySelector('#ctl-preset'); return p && p.textContent;",
                     what="the machine shortcut")  # fmt: skip
    assert "B200" in preset, preset
    assert severe_console_errors(browser) == []
