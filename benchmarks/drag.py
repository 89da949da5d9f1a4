"""The Drag rows: a real pointer (CDP) dragging the bandwidth and batch sliders on `/`, Figure 1's repaints and
the renderer's CPU time, Dash store updates per step and per change, and the components on the page. They drive
`window.__bench`, which `benchmarks.browser.open_dashboard` installs."""

from __future__ import annotations

import time

from benchmarks.common import FIGS
from benchmarks.report import Row


def thread_time(driver) -> float:
    """The page's main-thread CPU time so far (s); needs Performance.enable."""
    metrics = driver.execute_cdp_cmd("Performance.getMetrics", {})["metrics"]
    return next(m["value"] for m in metrics if m["name"] == "ThreadTime")


class Pointer:
    """The mouse on the bandwidth slider's thumb, through CDP: trusted events, as a hand makes them. Each call
    returns once the page has taken the event, so a busy page slows the hand down, as it coalesces real moves."""

    def __init__(self, driver):
        self.driver = driver
        at = driver.execute_script("return window.__bench.press();")
        self.x0, self.y = at["x"], at["y"]
        self.x = self.x0
        self.event("mouseMoved", self.x0, buttons=0)
        self.event("mousePressed", self.x0)

    def event(self, kind: str, x: float, buttons: int = 1) -> None:
        self.x = x
        args = {"type": kind, "x": x, "y": self.y, "button": "left", "buttons": buttons, "clickCount": 1}
        self.driver.execute_cdp_cmd("Input.dispatchMouseEvent", args)

    def step(self, i: int) -> None:
        """The i-th move: back and forth over 40 px (38 to about 100 TB/s of the log2 bandwidth slider), a pixel a
        step."""
        k = i % 80
        self.event("mouseMoved", self.x0 + 1 + (k if k < 40 else 80 - k))

    def release(self) -> dict:
        self.event("mouseReleased", self.x, buttons=0)
        return self.driver.execute_async_script("window.__bench.released(arguments[0]);")


def drag_rows(driver, quick: bool) -> tuple[list[Row], list[str]]:
    """A dragged slider at desktop size, where the redraws ask for the graphs in view only, beside the same drag
    with every graph in view (every redraw builds and paints all of them). Also returns the figures the
    desktop drag's redraws asked for most often."""
    seconds = 1.0 if quick else 3.0

    def drag() -> dict:
        cpu0 = thread_time(driver)
        hand = Pointer(driver)
        t0 = time.perf_counter()
        i = 0
        while time.perf_counter() - t0 < seconds:  # a move every 16 ms, or as soon as the page takes it
            hand.step(i)
            i += 1
            time.sleep(max(0.0, t0 + 0.016 * i - time.perf_counter()))
        result = hand.release()
        # Per repaint: the drag's, and the one after the release that the drag's CPU time also holds.
        return {**result, "cpu_ms": 1e3 * (thread_time(driver) - cpu0) / (result.get("paints", 0) + 1)}

    lazy = drag()
    asked = [tuple(a) for a in lazy["asked"] if a is not None]
    in_view = list(max(set(asked), key=asked.count)) if asked else list(FIGS)
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(1280, height + 200)
    time.sleep(1.0)  # plotly resizes every graph to the new window
    driver.execute_async_script("window.__bench.quiet(1000, arguments[0]);")
    eager = drag()
    if lazy["lag"] is None or eager["lag"] is None:
        raise RuntimeError(f"a drag never settled: {lazy}, {eager}")
    rate = lambda r: r["paints"] / r["seconds"]  # noqa: E731
    return [
        Row(
            "Drag",
            "Figure 1 repaints per second while a slider is dragged, 1280×900 window",
            rate(lazy),
            "/s",
            f"every graph in view {rate(eager):,.1f}/s",
            rate(lazy) / rate(eager),
            "≥ 12/s (issue 20)",
            rate(lazy) >= 12,
        ),
        Row(
            "Drag",
            "renderer main-thread CPU time per Figure 1 repaint during that drag",
            lazy["cpu_ms"],
            "ms",
            f"every graph in view {eager['cpu_ms']:,.0f} ms",
            lazy["cpu_ms"] / eager["cpu_ms"],
            "≤ 83 ms (12/s)",
            lazy["cpu_ms"] <= 1000 / 12,
        ),
        Row(
            "Drag",
            "figures a redraw asks for during that drag (most often)",
            float(len(in_view)),
            "",
            ", ".join(in_view),
            None,
            "—",
            None,
        ),
        Row(
            "Drag",
            "release → Figure 1 final, 1280×900 window",
            lazy["lag"],
            "ms",
            f"every graph in view {eager['lag']:,.0f} ms",
            lazy["lag"] / eager["lag"],
            "—",
            None,
        ),
    ], in_view


BATCH_DRAG_JS = """
const thumb = document.querySelector('#ctl-batch [role=slider]');
thumb.scrollIntoView({block: 'center', behavior: 'instant'});
const gd = document.querySelector('#fig-6 .js-plotly-plot'), s = window.store;
const b = (window.__batchDrag = {moves: 0, updates: 0});
const move = () => { b.moves += 1; };
gd.on('plotly_animated', move);
gd.on('plotly_afterplot', move);
let prev = s.getState();
b.stop = s.subscribe(() => { if (s.getState() !== prev) b.updates += 1; prev = s.getState(); });
b.off = () => { b.stop(); gd.removeListener('plotly_animated', move); gd.removeListener('plotly_afterplot', move); };
const r = thumb.getBoundingClientRect();
return {x: r.left + r.width / 2, y: r.top + r.height / 2};
"""


def batch_drag_row(driver, quick: bool) -> Row:
    """The explorer's dot while the batch slider's thumb is dragged by a real pointer (CDP), a pixel a step as
    fast as the page takes the moves: how often it moves, and Dash's store updates per step."""
    driver.execute_async_script("window.__bench.quiet(1000, arguments[0]);")
    at = driver.execute_script(BATCH_DRAG_JS)

    def send(kind: str, x: float, buttons: int = 1) -> None:
        event = {"type": kind, "x": x, "y": at["y"], "button": "left", "buttons": buttons, "clickCount": 1}
        driver.execute_cdp_cmd("Input.dispatchMouseEvent", event)

    send("mouseMoved", at["x"], buttons=0)
    send("mousePressed", at["x"])
    driver.execute_script("window.__batchDrag.moves = 0; window.__batchDrag.updates = 0;")
    t0, steps = time.perf_counter(), 0
    while time.perf_counter() - t0 < (1.0 if quick else 3.0):
        k = steps % 80
        send("mouseMoved", at["x"] + 1 + (k if k < 40 else 80 - k))
        steps += 1
    seconds = time.perf_counter() - t0
    moves, updates = driver.execute_script("const b = window.__batchDrag; b.off(); return [b.moves, b.updates];")
    send("mouseReleased", at["x"], buttons=0)
    driver.execute_script("window.scrollTo({top: 0, behavior: 'instant'})")
    driver.execute_async_script("window.__bench.quiet(1000, arguments[0]);")
    return Row(
        "Drag",
        "explorer dot moves per second while the batch slider is dragged, 1280×900 window",
        moves / seconds,
        "/s",
        f"{steps} pointer moves; Dash store updates per move {updates / max(steps, 1):.1f}",
        None,
        "≥ 12/s (issue 20)",
        moves / seconds >= 12,
    )


def drag_section(driver, quick: bool) -> tuple[list[Row], list[str]]:
    """The Drag rows, on `/` opened at 1280×900 by `open_dashboard`; leaves the window as tall as the page."""
    components = driver.execute_script("return window.__bench.components();")
    # The renderer's main-thread CPU time (Performance.getMetrics' ThreadTime): unlike the repaint rate it
    # hardly depends on what else the machine runs.
    driver.execute_cdp_cmd("Performance.enable", {"timeDomain": "threadTicks"})
    counts = {}
    # Twenty steps of a drag, 100 ms apart, and what they cost the page (their redraws and repaints included).
    driver.execute_async_script("window.__bench.quiet(1000, arguments[0]);")
    cpu0 = thread_time(driver)
    hand = Pointer(driver)
    driver.execute_script("window.__bench.countStart();")
    for i in range(20):
        hand.step(i)
        time.sleep(0.1)
    time.sleep(0.4)
    counts["steps"] = {"n": driver.execute_script("return window.__bench.countStop();") / 20}
    counts["steps"]["cpu_ms"] = 1e3 * (thread_time(driver) - cpu0) / 20
    if hand.release()["lag"] is None:
        raise RuntimeError("the counted drag never settled")
    driver.execute_async_script("window.__bench.quiet(1000, arguments[0]);")
    cpu0 = thread_time(driver)
    counts["changes"] = driver.execute_async_script("window.__bench.changes(arguments[0]);")
    counts["changes"]["cpu_ms"] = 1e3 * (thread_time(driver) - cpu0) / 10
    driver.execute_async_script("window.__bench.quiet(1000, arguments[0]);")
    batch = batch_drag_row(driver, quick)
    rows, in_view = drag_rows(driver, quick)
    rows.append(batch)
    steps, changes = counts["steps"], counts["changes"]
    rows += [
        Row(
            "Drag",
            "Dash store updates per drag step, its redraws and repaints included (mean of 20, 100 ms apart)",
            steps["n"],
            "",
            f"per control change with its redraw and repaint {changes['n']:.0f}",
            None,
            "—",
            None,
        ),
        Row(
            "Drag",
            "renderer main-thread CPU time per drag step, its redraws and repaints included (mean of 20)",
            steps["cpu_ms"],
            "ms",
            f"per control change with its redraw and repaint {changes['cpu_ms']:,.0f} ms",
            None,
            "—",
            None,
        ),
        Row(
            "Drag",
            "Dash components on / (each re-checks its props on every store update)",
            float(components["all"]),
            "",
            f"in one figure card {components['card']}",
            None,
            "—",
            None,
        ),
    ]
    return rows, in_view
