"""A key step as a desktop user makes it: a 1440×900 window at the top of `/`, the context slider focused and
ArrowRight or ArrowLeft pressed (a trusted key event, through Radix and Dash), timed to the last repaint of the
graphs in view; and the longest main-thread task (the Long Tasks API) in the 3 s after each step."""

from __future__ import annotations

from benchmarks.chromium import make_driver
from benchmarks.common import log, pct
from benchmarks.report import Row
from benchmarks.server import Gunicorn

WIDTH, HEIGHT = 1440, 900
AFTER_S = 3.0  # the window long tasks are read in after each step
REPAINT_LIMIT_MS = 250.0
TASK_LIMIT_MS = 200.0

PROBE_JS = """
window.__keys = (function () {
  const st = { t0: 0, last: 0, seen: new Set(), want: new Set(), tasks: [] };
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) st.tasks.push({ start: e.startTime, ms: e.duration });
  }).observe({ type: "longtask", buffered: false });
  const graphs = [...document.querySelectorAll("[id^=fig-] .js-plotly-plot")];
  graphs.forEach((gd, k) =>
    gd.on("plotly_afterplot", () => {
      const t = performance.now();
      if (st.t0 && t >= st.t0 && st.want.has(k)) { st.seen.add(k); st.last = Math.max(st.last, t); }
    })
  );
  const inView = () => new Set(graphs.map((gd, k) => {
    const r = gd.getBoundingClientRect();
    return r.bottom > 0 && r.top < innerHeight ? k : -1;
  }).filter((k) => k >= 0));
  return {
    arm() { st.t0 = performance.now(); st.last = 0; st.seen = new Set(); st.want = inView(); st.tasks = []; },
    // Done once the graphs in view have repainted and nothing has for 300 ms, then the rest of the window.
    settle(afterMs, done) {
      const check = () => {
        const now = performance.now();
        if (st.seen.size >= st.want.size && now - st.last >= 300 && now - st.t0 >= afterMs) {
          const tasks = st.tasks.filter((t) => t.start >= st.t0 && t.start <= st.t0 + afterMs);
          const longest = Math.max(0, ...tasks.map((t) => t.ms));
          return done({ ms: st.last - st.t0, graphs: st.want.size, longest, tasks: tasks.length });
        }
        if (now - st.t0 > 30000) return done({ ms: null, graphs: st.want.size, seen: st.seen.size });
        setTimeout(check, 20);
      };
      setTimeout(check, 20);
    },
  };
})();
"""


def key_rows(srv: Gunicorn, quick: bool) -> list[Row]:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    from benchmarks.browser import open_dashboard

    log(f"key steps at {WIDTH}×{HEIGHT}")
    driver = make_driver(WIDTH, HEIGHT)
    try:
        open_dashboard(driver, srv)
        driver.execute_script("window.scrollTo({top: 0, behavior: 'instant'});" + PROBE_JS)
        thumb = driver.find_element("css selector", "#ctl-ctx [role=slider]")
        driver.execute_script("arguments[0].focus({preventScroll: true})", thumb)
        repaint, longest = [], []
        n, warm = (3, 1) if quick else (16, 2)
        for i in range(n + warm):
            driver.execute_script("window.__keys.arm()")
            ActionChains(driver).send_keys(Keys.ARROW_RIGHT if i % 2 == 0 else Keys.ARROW_LEFT).perform()
            r = driver.execute_async_script("window.__keys.settle(arguments[0], arguments[1]);", 1e3 * AFTER_S)
            if r["ms"] is None:
                raise RuntimeError(f"a key step never repainted the graphs in view: {r}")
            if i >= warm:
                repaint.append(r["ms"])
                longest.append(r["longest"])
    finally:
        driver.quit()
    p50, worst = pct(repaint, 50), max(longest)
    window = f"{WIDTH}×{HEIGHT}"
    return [
        Row(
            "Keys",
            f"context slider key step → graphs in view repainted, {window} (p50 of {len(repaint)})",
            p50,
            "ms",
            f"p95 {pct(repaint, 95):,.0f} ms",
            None,
            f"≤ {REPAINT_LIMIT_MS:g} ms",
            p50 <= REPAINT_LIMIT_MS,
        ),
        Row(
            "Keys",
            f"longest main-thread task in the {AFTER_S:g} s after a key step (worst of {len(longest)})",
            worst,
            "ms",
            f"median of the steps' longest {pct(longest, 50):,.0f} ms",
            None,
            f"≤ {TASK_LIMIT_MS:g} ms",
            worst <= TASK_LIMIT_MS,
        ),
    ]
