"""Headless Chromium through Selenium, shared by the benchmark and the browser tests."""

from __future__ import annotations

import os
import shutil
import tempfile
import time

# Debian and Ubuntu install these (the `chromium` and `chromium-driver` packages).
INSTALL = "apt-get install chromium chromium-driver"
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


def chromium_binary() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


def missing() -> str | None:
    """What this machine lacks to drive Chromium, with the command that installs it; None when nothing."""
    absent = [name for name, path in (("chromium", chromium_binary()), ("chromedriver", shutil.which("chromedriver")))
              if path is None]  # fmt: skip
    if not absent:
        return None
    return f"{' and '.join(absent)} not found on PATH; install with: {INSTALL}"


def make_driver(width: int = 1280, height: int = 800, logs: bool = False, attempts: int = 3):
    """A fresh headless Chromium; with `logs`, its console and network logs can be read back.

    On a starved machine ChromeDriver has given up on Chromium's start (60 s) and a new renderer has not
    answered for 300 s, so each failed start is quit, not leaked (it kept spinning a core), and tried again.
    Each driver has its own profile folder (two Chromiums sharing the default one refuse to start), removed
    by `driver.quit()`: a profile is 12-50 MB.
    """
    from selenium import webdriver
    from selenium.common.exceptions import WebDriverException

    if reason := missing():
        raise RuntimeError(reason)
    for attempt in range(attempts):
        opts = webdriver.ChromeOptions()
        opts.binary_location = chromium_binary()
        profile = tempfile.mkdtemp(prefix="inferx-chromium-")
        opts.add_argument(f"--user-data-dir={profile}")
        for arg in (*ARGS, f"--window-size={width},{height}"):  # sized at launch: no round trip to a renderer
            opts.add_argument(arg)
        if logs:
            opts.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
        driver = None
        try:
            driver = webdriver.Chrome(options=opts)
            driver.quit = _removing(driver.quit, profile)
            driver.set_script_timeout(TIMEOUT)
            driver.set_page_load_timeout(TIMEOUT)
            return driver
        except WebDriverException:
            if driver is not None:
                driver.quit()
            else:
                shutil.rmtree(profile, ignore_errors=True)
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


def _removing(quit, profile: str):
    """`quit`, then delete the profile folder once Chromium has let go of it."""

    def quit_and_remove():
        try:
            quit()
        finally:
            # ChromeDriver returns before every Chromium process has exited, and a busy machine has seen them
            # write to the profile for seconds afterwards: wait for them (Linux: /proc), then delete.
            deadline = time.monotonic() + 30
            while _users(profile) and time.monotonic() < deadline:
                time.sleep(0.2)
            for _ in range(20):
                shutil.rmtree(profile, ignore_errors=True)
                if not os.path.exists(profile):
                    break
                time.sleep(0.25)

    return quit_and_remove


def _users(profile: str) -> bool:
    """Whether a running process was started with this profile folder (False where /proc is missing)."""
    needle = profile.encode()
    for pid in os.listdir("/proc") if os.path.isdir("/proc") else ():
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if needle in f.read():
                    return True
        except OSError:  # not a process folder, or the process has gone
            continue
    return False
