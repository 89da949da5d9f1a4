"""Browser-side checks shared by the browser tests (the deployment tests, the sliders' drags)."""

from __future__ import annotations

import json
import time
from contextlib import contextmanager

from benchmarks.chromium import TIMEOUT, wait_js


@contextmanager
def viewport(driver, width: int, height: int):
    """The page in a window (or an embed's frame) of this size until the block ends."""
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
    )
    try:
        yield
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def figure_data(driver, fig: int, timeout: float = TIMEOUT) -> str:
    """The traces plotted in the graph under `#fig-<n>`, as JSON, once it has any."""
    script = (
        f"const gd = document.querySelector('#fig-{fig} .js-plotly-plot');"
        "if (!gd || !gd.data || !gd.data.length || !gd.querySelector('.main-svg')) return null;"
        "return JSON.stringify(gd.data.map(t => [t.name, Array.from(t.x || []), Array.from(t.y || [])]));"
    )
    return wait_js(driver, script, timeout, f"figure #fig-{fig} to be drawn")


def wait_figure_change(driver, fig: int, before: str, timeout: float = TIMEOUT) -> str:
    deadline = time.monotonic() + timeout
    while True:
        now = figure_data(driver, fig, timeout)
        if now != before:
            return now
        if time.monotonic() > deadline:
            raise AssertionError(f"#fig-{fig} did not change within {timeout:.0f}s")
        time.sleep(0.25)


SETTLED_IN_VIEW_JS = """
const el = arguments[0];
el.scrollIntoView({block: 'center', behavior: 'instant'});
const r = el.getBoundingClientRect(), key = [r.left, r.top, r.width, r.height].join();
const settled = key === el.dataset.inferxLastRect && r.top >= 0 && r.bottom <= window.innerHeight;
el.dataset.inferxLastRect = key;
return settled;
"""


def click(driver, element) -> None:
    """Click as a user would, once the element has stopped moving in the viewport: figures and typeset
    equations above it still reflow after the page first paints, and a click aimed at where it was lands
    on something else."""
    wait_js(driver, SETTLED_IN_VIEW_JS, what="the element to settle in view", args=(element,))
    element.click()


def element(driver, selector: str):
    """The element matching a CSS selector, once it exists: Dash loads the code of sliders, uploads and
    dropdowns on demand, so on a busy machine they can appear after the figures have drawn."""
    wait_js(driver, "return document.querySelector(arguments[0])", what=selector, args=(selector,))
    return driver.find_element("css selector", selector)


def press_slider(driver, control: str, key) -> None:
    """Send a key (e.g. Keys.END) to a Dash 4 slider's thumb: as a keyboard user would."""
    thumb = element(driver, f"#{control} [role='slider']")
    click(driver, thumb)
    thumb.send_keys(key)


def storage_state(driver) -> dict:
    """Cookies and Web Storage visible to the current document (or frame)."""
    return driver.execute_script(
        "return {cookie: document.cookie, local: Object.keys(window.localStorage),"
        " session: Object.keys(window.sessionStorage)};"
    )


def network_responses(driver) -> list[tuple[str, int]]:
    """(url, status) of every response since the last call, from Chromium's performance log."""
    out = []
    for entry in driver.get_log("performance"):
        msg = json.loads(entry["message"])["message"]
        if msg["method"] == "Network.responseReceived":
            resp = msg["params"]["response"]
            out.append((resp["url"], int(resp["status"])))
    return out


def router_request(pathname: str, search: str = "") -> dict:
    """The `_dash-update-component` body the browser sends when Pages routes to a URL."""
    return {
        "output": ".._pages_content.children..._pages_store.data..",  # Dash's multi-output id
        "outputs": [{"id": "_pages_content", "property": "children"}, {"id": "_pages_store", "property": "data"}],
        "inputs": [
            {"id": "_pages_location", "property": "pathname", "value": pathname},
            {"id": "_pages_location", "property": "search", "value": search},
        ],
        "changedPropIds": ["_pages_location.pathname", "_pages_location.search"],
        "state": [],
    }


class Mouse:
    """The mouse through CDP: trusted pointer events, as a hand makes them (Radix and the page see no
    difference), on the slider's thumb."""

    def __init__(self, browser, slider: str):
        self.browser = browser
        # In view first: a pointer event outside the window reaches nothing (the sidebar's machine and workload
        # controls put the later sliders below an 800 px window). Then still: a card filled in after a redraw (A's
        # table) can move the sidebar, and a press beside the thumb would jump the slider instead of dragging it.
        thumb = browser.find_element("css selector", f"#{slider} [role=slider]")
        wait_js(browser, SETTLED_IN_VIEW_JS, what=f"{slider}'s thumb to settle in view", args=(thumb,))
        box = browser.execute_script(
            "const r = arguments[0].getBoundingClientRect();return {x: r.left + r.width / 2, y: r.top + r.height / 2};",
            thumb,
        )
        self.x, self.y = box["x"], box["y"]
        self.send("mouseMoved", self.x, buttons=0)

    def send(self, kind: str, x: float, buttons: int = 1) -> None:
        self.x = x
        event = {"type": kind, "x": x, "y": self.y, "button": "left", "buttons": buttons, "clickCount": 1}
        self.browser.execute_cdp_cmd("Input.dispatchMouseEvent", event)

    def press(self) -> None:
        self.send("mousePressed", self.x)

    def move(self, dx: float) -> None:
        self.send("mouseMoved", self.x + dx)

    def release(self) -> None:
        self.send("mouseReleased", self.x, buttons=0)
