"""3 and 4. Browser and animation: headless Chromium on `/` with the benchmark's script (BROWSER_JS), a control
change to the last figure repainted against a Plotly.react floor, and Animate's frame rate; the Drag rows come
from benchmarks.drag on the same page."""

from __future__ import annotations

import json
import time

from benchmarks.chromium import make_driver, wait_js
from benchmarks.common import FIGS, pct
from benchmarks.drag import drag_section
from benchmarks.report import Row
from benchmarks.server import Gunicorn, Redraw
from inferx.figures import registry
from inferx.figures.style import GRAPH_CONFIG
from inferx.scenario.machines import default_params

# --- 3 and 4. Browser ----------------------------------------------------------------------------

BROWSER_JS = r"""
window.__bench = (function () {
  performance.setResourceTimingBufferSize(100000);
  const gds = __FIGNUMS__.map((n) => document.querySelector(`#fig-${n} .js-plotly-plot`));
  const st = { t0: 0, seen: new Set(), last: 0, events: 0, restyles: 0 };
  const mark = (k) => () => {
    const t = performance.now();
    if (st.t0 && t >= st.t0) { st.seen.add(k); st.last = Math.max(st.last, t); st.events += 1; }
  };
  gds.forEach((gd, k) => {
    gd.on("plotly_afterplot", mark(k));
    gd.on("plotly_react", mark(k));
  });
  // The explorer's dot moves by Plotly.animate (one animating frame each); a restyle would redraw the graph.
  gds[__EXPLORER__].on("plotly_restyle", () => { st.restyles += 1; });
  gds[__EXPLORER__].on("plotly_animatingframe", () => { st.restyles += 1; });
  function begin() { st.seen = new Set(); st.last = 0; st.events = 0; st.t0 = performance.now(); }
  /* Done when every graph has drawn since t0 and nothing has drawn for `quiet` ms (the explorer's dot
     patch redraws Figure 6 once more after the server's figures arrive: that counts). */
  function settle(done, quiet, timeout) {
    const check = () => {
      const now = performance.now();
      if (st.seen.size === gds.length && now - st.last >= quiet) {
        return done({ ms: st.last - st.t0, events: st.events });
      }
      if (now - st.t0 > timeout) return done({ ms: null, seen: st.seen.size, events: st.events });
      setTimeout(check, 10);
    };
    setTimeout(check, 10);
  }
  /* Dash components in a layout subtree (window.store holds the page's layout as Dash renders it), and the
     subtree whose id is `id`. */
  function walk(node, visit) {
    if (Array.isArray(node)) return node.forEach((n) => walk(n, visit));
    if (!node || typeof node !== "object") return;
    if (typeof node.type === "string" && typeof node.namespace === "string") visit(node);
    Object.values(node.props || node).forEach((v) => walk(v, visit));
  }
  const count = (root) => { let n = 0; walk(root, () => { n += 1; }); return n; };
  return {
    ready: () => gds.every((gd) => gd && gd.data && gd.data.length > 0 && gd.on),
    components() {
      const layout = window.store.getState().layout;
      let card = null;
      walk(layout, (c) => { if (c.props && c.props.id === "card-fig1") card = c; });
      return { all: count(layout), card: card ? count(card) : null };
    },
    /* Done once no graph has repainted for `ms` (a page just loaded still typesets and resizes). */
    quiet(ms, done) {
      begin();
      const check = () => (performance.now() - Math.max(st.last, st.t0) >= ms ? done(true) : setTimeout(check, 50));
      check();
    },
    server(x, done) {
      begin();
      window.dash_clientside.set_props("ctl-bw", { value: Math.log2(x) }); // a log2 slider: its position
      settle(done, 300, 30000);
    },
    floor(figs, config, done) {
      begin();
      gds.forEach((gd, k) => window.Plotly.react(gd, figs[k].data, figs[k].layout, config));
      settle(done, 300, 30000);
    },
    /* A real drag of the bandwidth slider's thumb, the pointer moved from Python through CDP (trusted events,
       each dispatched once the page has taken the one before, as a hand's are coalesced). `press` arms the
       counters and says where the thumb is; Figure 1's repaints are counted from the press to the release;
       `released` waits until Figure 1 shows the value the slider was let go at (its memory-bound slope is
       BW / 37 GB at B = 1) and the release's own redraw has been answered. The redraws asked for, through
       Dash or the drag route, are recorded by the figures they name. */
    press() {
      const gd = gds[0];
      const thumb = document.querySelector("#ctl-bw [role=slider]");
      const d = (st.drag = { paints: 0, dragged: null, t0: null, release: null, asked: [], moves: 0 });
      d.count = () => { d.paints += 1; };
      d.down = () => { d.t0 = performance.now(); d.paints = 0; };
      d.move = () => { d.moves += 1; };
      d.up = () => { d.release = performance.now(); d.dragged = d.paints; };
      gd.on("plotly_afterplot", d.count);
      window.addEventListener("pointerdown", d.down, true);
      window.addEventListener("pointermove", d.move, true);
      window.addEventListener("pointerup", d.up, true);
      d.realFetch = window.fetch;
      window.fetch = function (url, init) {
        const body = init && typeof init.body === "string" ? init.body : "";
        if (body.includes('"redraw-request.data"')) d.asked.push(JSON.parse(body).inputs[0].value.figures);
        else if (String(url).includes("_drag")) d.asked.push(JSON.parse(body).figures);
        return d.realFetch.apply(this, arguments);
      };
      const r = thumb.getBoundingClientRect();
      return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
    },
    released(done) {
      const d = st.drag, gd = gds[0], api = window.dash_component_api;
      const settled = () => {
        const bw = window.inferx.controlValue("bw", api.getLayout("ctl-bw").props.value);
        const shows = Math.abs(gd.data[0].y[0] / (bw * 1e12 / 37e9) - 1) < 1e-3;
        // The release's own redraw sent and answered: the drag's last step may already show the value, and
        // until Dash has sent that redraw nothing is in flight. (A release where it was pressed sends none.)
        const sent = window.inferxRedraws.since >= d.release || performance.now() - d.release > 1000;
        if (d.release !== null && shows && sent && !window.inferxRedraws.inFlight) {
          gd.removeListener("plotly_afterplot", d.count);
          window.removeEventListener("pointerdown", d.down, true);
          window.removeEventListener("pointermove", d.move, true);
          window.removeEventListener("pointerup", d.up, true);
          window.fetch = d.realFetch;
          const lag = performance.now() - d.release;
          const seconds = (d.release - d.t0) / 1000;
          return done({ moves: d.moves, paints: d.dragged, seconds, lag, asked: d.asked, bw });
        }
        if (d.release === null || performance.now() - d.release > 30000) return done({ lag: null, moves: d.moves });
        setTimeout(settled, 5);
      };
      settled();
    },
    /* Dash store updates (each one re-checked by every component of the page), counted by a subscriber:
       counts of work, not times, so they hold on a loaded machine. window.store is the renderer's store, as
       dash.testing reads it. */
    counting() {
      const s = window.store;
      let n = 0, prev = s.getState();
      const unsubscribe = s.subscribe(() => { const now = s.getState(); if (now !== prev) n += 1; prev = now; });
      return { count: () => n, stop: unsubscribe };
    },
    countStart() {
      st.idle = window.inferxLazy.idleMs;
      window.inferxLazy.idleMs = 600000; // no drawing of the graphs out of view while counting
      st.counter = this.counting();
    },
    countStop() {
      st.counter.stop();
      window.inferxLazy.idleMs = st.idle;
      return st.counter.count();
    },
    changes(done) {
      const redraws = window.inferxRedraws, lazy = window.inferxLazy, gd = gds[0], c = this.counting();
      const idle = lazy.idleMs;
      const set = (bw) => {
        const pos = Math.log2(bw); // a log2 slider holds its position
        window.dash_clientside.set_props("ctl-bw", { value: pos, drag_value: pos });
      };
      const shows = (bw) => Math.abs(gd.data[0].y[0] / (bw * 1e12 / 37e9) - 1) < 1e-3 && !redraws.inFlight;
      lazy.idleMs = 600000;
      let i = 0;
      const change = () => {
        const bw = 30 + i;
        set(bw);
        const wait = () => {
          if (!shows(bw)) return setTimeout(wait, 10);
          if (++i < 10) return setTimeout(change, 100);
          c.stop();
          const n = c.count() / 10;
          lazy.idleMs = idle;
          set(40.5); // once more with the page's idle drawing, so that no graph is left stale
          const settled = () => (lazy.stale.size || lazy.waiting.size ? setTimeout(settled, 50) : done({ n }));
          settled();
        };
        wait();
      };
      change();
    },
    animate(seconds, done) {
      const anim = window.inferxAnimation;
      const btn = document.getElementById("btn-animate");
      st.restyles = 0;
      btn.click();
      setTimeout(() => {
        const t = performance.now();
        const frames = anim.frames, start = anim.start, running = anim.running, restyles = st.restyles;
        const requests = performance.getEntriesByType("resource")
          .filter((e) => e.name.includes("_dash-update-component") && e.startTime >= start && e.startTime <= t).length;
        if (anim.running) btn.click();
        done({ frames, seconds: (t - start) / 1000, requests, restyles, running });
      }, 1000 * seconds);
    },
  };
})();
return true;
"""


def open_dashboard(driver, srv: Gunicorn) -> None:
    """`/` with every graph drawn and the benchmark's script in place."""
    driver.get(srv.url)
    n_figs = len(FIGS)
    wait_js(driver, f"return document.querySelectorAll('.js-plotly-plot').length >= {n_figs} && !!window.Plotly")
    wait_js(
        driver,
        "return [...document.querySelectorAll('[id^=fig-] .js-plotly-plot')]"
        f".filter(g => g.data && g.data.length).length >= {n_figs}",
    )
    time.sleep(1.0)
    numbers = [int(f[3:]) for f in FIGS]
    explorer = next(i for i, f in enumerate(FIGS) if registry.FIGURES[f].reads_batch)
    script = BROWSER_JS.replace("__FIGNUMS__", json.dumps(numbers)).replace("__EXPLORER__", str(explorer))
    driver.execute_script(script)
    assert driver.execute_script("return window.__bench.ready()")


def bench_browser(srv: Gunicorn, redraw: Redraw, quick: bool) -> tuple[list[Row], list[str]]:
    driver = make_driver(1280, 900)
    try:
        open_dashboard(driver, srv)
        # The drag, then everything else with every graph in view (the window is left tall), so that
        # every change repaints every graph, as the floor does.
        rows, in_view = drag_section(driver, quick)
        # Figure data for the floor: what the server returns for two states, replayed with no server.
        floor_figs = []
        for bw in (5.0, 9.0):
            status, body = srv.keepalive("POST", "/_dash-update-component", redraw.body({**default_params(), "bw": bw}))
            floor_figs.append(Redraw.figures(body))
        n, warm = (4, 1) if quick else (24, 3)
        server_ms, floor_ms, server_events, floor_events = [], [], [], []
        for i in range(n + warm):
            x = round(6.0 + 0.7 * i + (0.35 if i % 2 else 0.0), 2) % 60 + 2
            a = driver.execute_async_script("window.__bench.server(arguments[0], arguments[1]);", x)
            floor = "window.__bench.floor(arguments[0], arguments[1], arguments[2]);"
            b = driver.execute_async_script(floor, floor_figs[i % 2], GRAPH_CONFIG)
            if a["ms"] is None or b["ms"] is None:
                raise RuntimeError(f"a change never finished repainting: {a}, {b}")
            if i >= warm:
                server_ms.append(a["ms"])
                floor_ms.append(b["ms"])
                server_events.append(a["events"])
                floor_events.append(b["events"])
        s50, f50 = pct(server_ms, 50), pct(floor_ms, 50)
        rows += [
            Row(
                "Browser",
                f"control change → last of {len(FIGS)} figures repainted (p50 of {len(server_ms)})",
                s50,
                "ms",
                f"Plotly.react floor, no server {f50:,.0f} ms",
                s50 / f50,
                "≤ 1.5× floor",
                s50 / f50 <= 1.5,
            ),
            Row(
                "Browser",
                "control change → repainted, p95",
                pct(server_ms, 95),
                "ms",
                f"floor p95 {pct(floor_ms, 95):,.0f} ms",
                None,
                "",
                None,
            ),
        ]
        seconds = 2.0 if quick else 5.0
        driver.execute_script("performance.clearResourceTimings();")
        anim = driver.execute_async_script("window.__bench.animate(arguments[0], arguments[1]);", seconds)
        fps = anim["frames"] / anim["seconds"]
        rows += [
            Row(
                "Animation",
                f"Animate, frames per second over {anim['seconds']:.1f} s",
                fps,
                "fps",
                f"{anim['frames']} frames, {anim['restyles']} dot moves",
                None,
                "≥ 30 fps",
                fps >= 30,
            ),
            Row(
                "Animation",
                "server requests during the run",
                float(anim["requests"]),
                "",
                "",
                None,
                "0",
                anim["requests"] == 0,
            ),
        ]
        return rows, in_view
    finally:
        driver.quit()
