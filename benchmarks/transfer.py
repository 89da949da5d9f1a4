"""What a page costs on the wire: the bytes Chromium receives for a cold load of `/`, a second load of it in the
same browser, and a cold load of one embed (`/embed/fig5`), read from its network log (CDP
`Network.loadingFinished.encodedDataLength`: headers and body as sent, after compression)."""

from __future__ import annotations

import json
import time

from benchmarks.chromium import make_driver, wait_js
from benchmarks.common import FIGS, log
from benchmarks.report import Row
from benchmarks.server import Gunicorn

COLD_LIMIT = 3.5e6  # bytes: a cold load of `/`
WARM_LIMIT = 300e3  # a second load of `/` in the same browser
EMBED_LIMIT = 3e6  # a cold load of `/embed/fig5`
QUIET_S = 1.5  # a page counts as loaded once its graphs are drawn and no request has finished for this long


def _received(driver, origin: str) -> tuple[int, int]:
    """(bytes, responses over the network) from `origin` finished since the log was last read (the browser's own
    pages, such as its new-tab page, are not the app's)."""
    urls, sizes = {}, {}
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        params = message["params"]
        if message["method"] == "Network.responseReceived":
            urls[params["requestId"]] = params["response"]["url"]
        elif message["method"] == "Network.loadingFinished":
            sizes[params["requestId"]] = int(params["encodedDataLength"])
    ours = [size for request, size in sizes.items() if urls.get(request, "").startswith(origin)]
    return sum(ours), sum(1 for size in ours if size)  # a response from the browser's cache arrives with 0 bytes


def _load(driver, url: str, origin: str, graphs: int) -> tuple[int, int]:
    driver.get(url)
    wait_js(driver, f"return [...document.querySelectorAll('.js-plotly-plot')].filter(g => g.data).length >= {graphs}")
    total, count = _received(driver, origin)
    while True:  # MathJax and Plotly's lazy chunks arrive after the graphs: wait for the network to go quiet
        time.sleep(QUIET_S)
        more, n = _received(driver, origin)
        if not n:
            return total, count
        total, count = total + more, count + n


def transfer_rows(srv: Gunicorn) -> list[Row]:
    log("transfer: cold and second load of /, cold /embed/fig5")
    driver = make_driver(1440, 900, logs=True)
    try:
        driver.execute_cdp_cmd("Network.enable", {})
        cold, cold_n = _load(driver, srv.url, srv.url, len(FIGS))
        warm, warm_n = _load(driver, srv.url, srv.url, len(FIGS))
    finally:
        driver.quit()
    driver = make_driver(800, 500, logs=True)
    try:
        driver.execute_cdp_cmd("Network.enable", {})
        embed, embed_n = _load(driver, srv.url + "embed/fig5", srv.url, 1)
    finally:
        driver.quit()

    def row(measure, value, n, limit):
        target = f"≤ {limit / 1e6:g} MB" if limit >= 1e6 else f"≤ {limit / 1e3:g} KB"
        return Row(
            "Transfer",
            f"{measure} ({n} responses over the network)",
            value / 1e6,
            "MB",
            "",
            None,
            target,
            value <= limit,
        )

    return [
        row("cold load of /, bytes received", cold, cold_n, COLD_LIMIT),
        row("second load of / in the same browser", warm, warm_n, WARM_LIMIT),
        row("cold load of /embed/fig5", embed, embed_n, EMBED_LIMIT),
    ]
