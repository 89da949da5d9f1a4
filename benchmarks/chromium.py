"""Headless Chromium through Selenium, shared by the benchmark and the browser tests."""

from __future__ import annotations

import shutil
import tempfile
import time

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# A page, script or poll may wait this long (s): on a busy 2-core machine the nine figures of `/` and their
# equations have taken four minutes to paint, and a slow page is not a broken one.
TIMEOUT = 600.0
ARGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--no-first-run",
    "--disable-quic",
    "--remote-debugging-port=0",
)


def make_driver(width: int = 1280, height: int = 800, logs: bool = False, attempts: int = 3):
    """A fresh headless Chromium; with `logs`, its console and network logs can be read back.

    On a starved machine ChromeDriver has given up on Chromium's start (60 s) and a new renderer has not
    answered for 300 s, so each failed start is quit, not leaked (it kept spinning a core), and tried again.
    """
    from selenium import webdriver
    from selenium.common.exceptions import WebDriverException

    for attempt in range(attempts):
        opts = webdriver.ChromeOptions()
        opts.binary_location = CHROMIUM
        # A fresh profile per driver: two Chromiums sharing the default one refuse to start.
        opts.add_argument(f"--user-data-dir={tempfile.mkdtemp(prefix='inferx-chromium-')}")
        for arg in (*ARGS, f"--window-size={width},{height}"):  # sized at launch: no round trip to a renderer
            opts.add_argument(arg)
        if logs:
            opts.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
        driver = None
        try:
            driver = webdriver.Chrome(options=opts)
            driver.set_script_timeout(TIMEOUT)
            driver.set_page_load_timeout(TIMEOUT)
            return driver
        except WebDriverException:
            if driver is not None:
                driver.quit()
            if attempt == attempts - 1:
                raise


def wait_js(driver, script: str, timeout: float = TIMEOUT, what: str | None = None, args: tuple = ()):
    """Poll `script` (a JS function body that returns a value; `args` are its `arguments`) until it returns
    something truthy."""
    deadline = time.monotonic() + timeout
    while True:
        value = driver.execute_script(script, *args)
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out after {timeout:.0f}s waiting for {what or script}")
        time.sleep(0.2)
