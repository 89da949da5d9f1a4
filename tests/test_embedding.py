"""Embedding in a wiki: a host page on another loopback origin frames /embed/fig5 in headless Chromium.

The app runs on 127.0.0.1 and allows 127.0.0.2 via INFERX_FRAME_ANCESTORS; a host page served from
127.0.0.2 must show the figure, one served from 127.0.0.3 (not listed) must be refused.
"""

from __future__ import annotations

import html
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from browser_checks import click, figure_data, press_slider, storage_state, wait_figure_change, wait_js
from conftest import Server, severe_console_errors
from selenium.webdriver.common.keys import Keys

pytestmark = pytest.mark.browser

EMBED = "embed/fig5?preset=b200x8"


class HostPage:
    """A stand-in wiki: GET /?src=URL answers a page holding <iframe id="wiki-frame" src=URL>."""

    def __init__(self, host: str):
        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (http.server's name)
                src = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query).get("src", ["about:blank"])[0]
                body = (
                    "<!doctype html><title>wiki</title><h1>Wiki page</h1>"
                    f'<iframe id="wiki-frame" src="{html.escape(src)}" width="960" height="700"></iframe>'
                ).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer((host, 0), Handler)
        self.origin = f"http://{host}:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def url(self, src: str) -> str:
        return f"{self.origin}/?src={urllib.parse.quote(src, safe='')}"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture(scope="module")
def wikis():
    allowed, other = HostPage("127.0.0.2"), HostPage("127.0.0.3")
    yield allowed, other
    allowed.close()
    other.close()


@pytest.fixture(scope="module")
def framable(wikis):
    """The app, allowing itself and the 127.0.0.2 wiki to frame it."""
    allowed, _ = wikis
    srv = Server(env={"INFERX_FRAME_ANCESTORS": f"'self' {allowed.origin}"})
    yield srv
    srv.stop()


def refused_messages(driver, timeout: float = 60.0) -> list[str]:
    deadline = time.monotonic() + timeout
    seen: list[str] = []
    while time.monotonic() < deadline:
        seen += [m for m in severe_console_errors(driver) if "frame-ancestors" in m]
        if seen:
            return seen
        time.sleep(0.25)
    return seen


def test_allowed_origin_shows_the_figure_in_the_frame_without_storage(browser, wikis, framable):
    allowed, _ = wikis
    browser.get(allowed.url(framable.url + EMBED))
    browser.switch_to.frame(browser.find_element("id", "wiki-frame"))
    before = figure_data(browser, 5)
    assert wait_js(browser, "return window.location.href;").startswith(framable.url + "embed/fig5")

    # Use the embed page as a reader would: open its settings and push bandwidth to the maximum.
    click(browser, browser.find_element("id", "embed-settings-toggle"))
    wait_js(browser, "const s = document.querySelector('#ctl-bw [role=slider]'); return s && s.offsetParent;")
    press_slider(browser, "ctl-bw", Keys.END)
    wait_figure_change(browser, 5, before)

    # State lives in the frame's URL and in memory; nothing was written to cookies or Web Storage.
    search = wait_js(browser, "const q = window.location.search; return q.includes('bw=') && q;")
    assert "preset=b200x8" in search
    assert storage_state(browser) == {"cookie": "", "local": [], "session": []}
    assert browser.get_cookies() == []
    browser.switch_to.default_content()
    assert severe_console_errors(browser) == []


def test_origin_not_listed_is_refused(browser, wikis, framable):
    _, other = wikis
    browser.get(other.url(framable.url + EMBED))
    messages = refused_messages(browser)
    assert messages, "Chromium did not report a frame-ancestors refusal"
    assert f"'self' {wikis[0].origin}" in messages[0]
    browser.switch_to.frame(browser.find_element("id", "wiki-frame"))
    assert browser.execute_script("return document.querySelector('#fig-5');") is None


def test_default_settings_refuse_any_other_origin(browser, wikis, server):
    """Without INFERX_FRAME_ANCESTORS only the app's own origin may frame it."""
    allowed, _ = wikis
    browser.get(allowed.url(server.url + EMBED))
    messages = refused_messages(browser)
    assert messages and "frame-ancestors 'self'" in messages[0]


def test_embed_page_top_level_keeps_no_cookies_or_storage(browser, framable):
    browser.get(framable.url + EMBED)
    before = figure_data(browser, 5)
    click(browser, browser.find_element("id", "embed-settings-toggle"))
    wait_js(browser, "const s = document.querySelector('#ctl-bw [role=slider]'); return s && s.offsetParent;")
    press_slider(browser, "ctl-bw", Keys.HOME)
    wait_figure_change(browser, 5, before)
    assert storage_state(browser) == {"cookie": "", "local": [], "session": []}
    assert browser.get_cookies() == []
    assert severe_console_errors(browser) == []
