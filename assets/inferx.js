/* Browser-side callbacks and the explorer animation (no server round trip per frame). */
(function () {
  "use strict";
  const NO = () => window.dash_clientside.no_update;
  const fmt = {
    throughput: (v) => `${Math.round(v).toLocaleString("en-US")} tok/s`,
    ms: (v) => (v >= 100 ? `${Math.round(v).toLocaleString("en-US")} ms` : `${v.toPrecision(3)} ms`),
    rho: (v) => `${v.toFixed(v < 0.01 ? 4 : 3)} (${(100 * v).toPrecision(2)} %)`,
  };
  const toBatch = (pos) => Math.max(1, Math.round(Math.pow(2, pos)));

  /* The frontier sample at batch b: exact when b is a sample, else linear between neighbours. */
  function pointAt(trace, b) {
    const cd = trace.customdata;
    const n = cd.length;
    let i = 0;
    while (i < n - 1 && cd[i + 1][0] <= b) i++;
    if (cd[i][0] === b || i === n - 1 || b < cd[0][0]) {
      const j = b < cd[0][0] ? 0 : i;
      return { x: trace.x[j], y: trace.y[j], b: cd[j][0], itl: cd[j][1], rho: cd[j][2] };
    }
    const f = (b - cd[i][0]) / (cd[i + 1][0] - cd[i][0]);
    const lerp = (a, c) => a + f * (c - a);
    return {
      x: lerp(trace.x[i], trace.x[i + 1]),
      y: lerp(trace.y[i], trace.y[i + 1]),
      b: b,
      itl: lerp(cd[i][1], cd[i + 1][1]),
      rho: lerp(cd[i][2], cd[i + 1][2]),
    };
  }

  function readoutTexts(p) {
    return [fmt.throughput(p.x), fmt.ms(p.y), fmt.ms(p.itl), fmt.rho(p.rho), String(p.b)];
  }

  /* Cost and energy at the dot: the machine's $/hour and watts (layout.meta, from the server) over its
     throughput, so they follow a drag or the animation with no round trip. */
  const money = (v) => (v >= 100 ? `$${Math.round(v).toLocaleString("en-US")}` : `$${v.toPrecision(3)}`);
  function economyTexts(p, meta) {
    if (!meta || !(p.x > 0)) return ["—", "—"];
    return [money((1e6 * meta.usdPerHour) / (3600 * p.x)), `${(p.x / meta.watts).toPrecision(3)} tok/J`];
  }

  function batchMarks(maxPos) {
    const marks = {};
    for (let e = 0; e <= maxPos; e += 2) marks[e] = Math.pow(2, e).toLocaleString("en-US");
    return marks;
  }

  /* --- Animation: requestAnimationFrame drives Plotly.restyle of the dot directly. --- */
  // batchId and graphId come from the page's config when the animation starts.
  const anim = { running: false, start: 0, last: null, raf: 0, seconds: 8, batchId: null, graphId: null };

  function graphDiv() {
    return document.querySelector(`#${anim.graphId} .js-plotly-plot`);
  }

  function setReadouts(p, meta) {
    const ids = ["readout-throughput", "readout-ttft", "readout-itl", "readout-rho", "batch-value"];
    ids.push("readout-cost", "readout-energy");
    [...readoutTexts(p), ...economyTexts(p, meta)].forEach((text, k) => {
      const el = document.getElementById(ids[k]);
      if (el) el.textContent = text;
    });
  }

  function frame(now) {
    if (!anim.running) return;
    const gd = graphDiv();
    const trace = gd && gd.data && gd.data[0];
    if (!trace || !trace.customdata || !trace.customdata.length) return stopAnimation();
    const n = trace.customdata.length;
    // rAF's `now` is when the frame began, which can precede the performance.now() taken at the click: clamp
    // at 0, or the first frame indexes sample -1, throws, and the sweep never moves while the button says Stop.
    const t = Math.max(0, (now - anim.start) / (1000 * anim.seconds));
    const i = Math.min(n - 1, Math.floor(t * n));
    const p = pointAt(trace, trace.customdata[i][0]);
    window.Plotly.restyle(gd, { x: [[p.x]], y: [[p.y]], customdata: [[[p.b, p.itl, p.rho]]] }, [1]);
    setReadouts(p, gd.layout && gd.layout.meta);
    anim.last = p.b;
    anim.frames += 1;
    if (i >= n - 1) return stopAnimation();
    anim.raf = window.requestAnimationFrame(frame);
  }

  function startAnimation(cfg) {
    anim.batchId = cfg.batchId;
    anim.graphId = cfg.explorerGraph;
    anim.running = true;
    anim.frames = 0;
    anim.start = performance.now();
    anim.raf = window.requestAnimationFrame(frame);
  }

  function stopAnimation() {
    const wasRunning = anim.running;
    anim.running = false;
    window.cancelAnimationFrame(anim.raf);
    const set = window.dash_clientside.set_props;
    set("btn-animate", { children: "Animate" });
    // Hand the final batch back to Dash: one server request, after the sweep.
    if (wasRunning && anim.last) set(anim.batchId, { value: Math.log2(anim.last) });
  }

  window.inferxAnimation = anim; // read by the browser tests and the benchmark

  /* --- Figures off screen are drawn when they come into view or the page is idle. ---
     Plotly redraws a graph in 12-25 ms of main-thread time, all nine in about 250 ms, during which a
     dragged slider cannot move. So a redraw's figures go at once only to the graphs in (or near) the
     viewport; the others wait, the newest figure per graph, until they scroll into view or nothing new
     has arrived for a while. */
  const lazy = { inView: new WeakMap(), waiting: new Map(), observer: null, idleTimer: 0, idleMs: 600, round: 0 };
  const whenIdle = (f) => (window.requestIdleCallback ? window.requestIdleCallback(f) : window.setTimeout(f, 0));

  function wrapperOf(fig) {
    return document.getElementById(`fig-${fig.slice(3)}`);
  }

  function draw(fig) {
    const item = lazy.waiting.get(fig);
    lazy.waiting.delete(fig);
    // A figure kept for a page that has since been replaced (the router swaps pages) is dropped.
    if (item && item.el === wrapperOf(fig)) {
      window.dash_clientside.set_props({ role: "figure", fig: fig }, { figure: item.figure });
    }
  }

  function observe(el) {
    if (!lazy.observer) {
      lazy.observer = new IntersectionObserver(
        (entries) => {
          entries.forEach((e) => {
            const fig = `fig${e.target.id.slice(4)}`;
            lazy.inView.set(e.target, e.isIntersecting);
            if (e.isIntersecting && lazy.waiting.has(fig)) draw(fig);
          });
        },
        { rootMargin: "300px 0px" } // a little ahead of the scroll
      );
    }
    lazy.inView.set(el, true); // until the observer's first report: draw rather than wait
    lazy.observer.observe(el);
  }

  function drawWaitingWhenIdle() {
    window.clearTimeout(lazy.idleTimer);
    const round = ++lazy.round; // new figures restart the quiet period and end an earlier round
    lazy.idleTimer = window.setTimeout(function next() {
      const fig = lazy.waiting.keys().next().value;
      if (fig === undefined || round !== lazy.round) return;
      draw(fig);
      whenIdle(next); // one graph per idle slot: a drag that starts again waits for at most one graph
    }, lazy.idleMs);
  }

  window.inferxLazy = lazy; // read by the browser tests and the benchmark

  /* --- One redraw request in flight; a control state that arrives meanwhile waits, newest only. --- */
  const redraws = { inFlight: false, since: 0, next: null, giveUpMs: 10000 };

  function sendRedraw(request) {
    // An answer lost on the way (a page swapped mid-request, a dropped connection) must not stop redraws.
    if (redraws.inFlight && performance.now() - redraws.since < redraws.giveUpMs) {
      // All controls travel in every request; only "the batch alone changed" must survive merging.
      request.batchOnly = request.batchOnly && (!redraws.next || redraws.next.batchOnly);
      redraws.next = request;
      return null;
    }
    redraws.inFlight = true;
    redraws.since = performance.now();
    return request;
  }

  function redrawAnswered() {
    redraws.inFlight = false;
    const next = redraws.next;
    redraws.next = null;
    if (next && sendRedraw(next)) window.dash_clientside.set_props("redraw-request", { data: next });
  }

  window.inferxRedraws = redraws; // read by the browser tests

  /* --- The address bar follows the controls (the values that differ from the preset's, and the batch). --- */
  const address = { next: null, path: null, model: null, timer: 0 };

  function followAddress(values, batchPos, cfg) {
    const preset = cfg.presets[values[0]] || {};
    const query = new URLSearchParams();
    cfg.controls.forEach((name, k) => {
      let v = values[k];
      if (v === null || v === undefined) return;
      if (cfg.log2.includes(name)) v = Math.round(Math.pow(2, v));
      if (name === "preset" || String(v) !== String(preset[name])) query.set(name, v);
    });
    if (batchPos !== null) query.set("batch", toBatch(batchPos));
    const theme = new URLSearchParams(window.location.search).get("theme"); // assets/theme.js reads it
    if (theme) query.set("theme", theme);
    // replaceState: no history entry per change. Written once the controls rest for a moment: Chrome stops
    // honouring replaceState (and says so in the console) after about 200 calls in 10 s, which a drag makes.
    address.path = window.location.pathname;
    address.next = `${address.path}?${query.toString()}`;
    address.model = query.get("model");
    window.clearTimeout(address.timer);
    address.timer = window.setTimeout(writeAddress, 150);
  }

  function writeAddress() {
    // Not after the user has gone to another page in the meantime: the address is that page's now.
    if (address.next !== null && window.location.pathname === address.path) {
      window.history.replaceState(window.history.state, "", address.next);
      // /methods computes its tables for the selected model: its link carries it.
      const methods = document.getElementById("nav-methods");
      if (methods) {
        const path = new URL(methods.href).pathname;
        const query = address.model ? `?model=${encodeURIComponent(address.model)}` : "";
        window.dash_clientside.set_props("nav-methods", { href: path + query });
      }
    }
    address.next = null;
  }

  window.inferx = {
    /* A control moved: the address follows, and the whole control state goes to the server now or after
       the request in flight. */
    controlsChanged: function (...args) {
      const cfg = args.pop();
      const batchPos = args.pop() ?? null; // undefined where the page has no explorer
      followAddress(args, batchPos, cfg);
      const fired = window.dash_clientside.callback_context.triggered.map((t) => t.prop_id);
      const request = { values: args, batch: batchPos, batchOnly: fired.every((id) => id.startsWith(`${cfg.batchId}.`)) };
      return sendRedraw(request) || NO();
    },

    /* The redraw's figures (by name) to the graphs of the page (by pattern id), in view first. */
    showFigures: function (updates, ids) {
      redrawAnswered();
      if (!updates) return ids.map(NO);
      const out = ids.map(({ fig }) => {
        const figure = updates[fig];
        if (!figure) return NO();
        const el = wrapperOf(fig);
        if (el && !lazy.inView.has(el)) observe(el);
        if (!el || lazy.inView.get(el)) {
          lazy.waiting.delete(fig);
          return figure;
        }
        lazy.waiting.set(fig, { figure, el });
        return NO();
      });
      if (lazy.waiting.size) drawWaitingWhenIdle();
      return out;
    },

    /* The preset's values for the controls it sets (cfg.presetControls, from the parameters' declarations). */
    applyPreset: function (preset, cfg) {
      const p = cfg.presets[preset];
      return cfg.presetControls.map((name) => (p ? p[name] : NO()));
    },

    /* A GPU and count: the preset's own values when the preset is that machine, else the catalog's per-GPU
       values times the count (the same products scenario.machine_values takes). */
    applyMachine: function (gpu, gpus, preset, wdtype, cfg) {
      const p = cfg.presets[preset];
      if (p && p.gpu === gpu && p.gpus === gpus) return cfg.machineControls.map((name) => p[name]);
      const one = cfg.gpus[gpu];
      if (!one || !Number.isInteger(gpus)) return cfg.machineControls.map(NO);
      const per = { bw: one.bw, hbm: one.hbm, compute: one.compute[wdtype] };
      return cfg.machineControls.map((name) => (per[name] === undefined ? NO() : per[name] * gpus));
    },

    // Live "value unit" text beside each slider's label, as format_slider_value writes it on the server.
    sliderValues: function (...args) {
      const cfg = args[args.length - 1];
      const names = Object.keys(cfg.sliders);
      const fired = window.dash_clientside.callback_context.triggered.map((t) => t.prop_id);
      return names.map((name, k) => {
        // A preset sets `value` from outside; a drag moves `drag_value` first.
        let v = fired.includes(`${cfg.prefix}${name}.value`) ? args[names.length + k] : args[k] ?? args[names.length + k];
        if (v === null || v === undefined) return NO();
        if (cfg.log2.includes(name)) v = Math.round(Math.pow(2, v));
        const [unit, d] = cfg.sliders[name];
        const text = v.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d });
        return unit ? `${text} ${unit}` : text;
      });
    },

    explorer: function (dragPos, pos, figure, maxNow) {
      const none = Array(13).fill(NO());
      const trace = figure && figure.data && figure.data[0];
      if (!trace || !trace.customdata || !trace.customdata.length) {
        return ["—", "—", "—", "—", NO(), NO(), NO(), NO(), "—", "—", "", "", ""];
      }
      const meta = (figure.layout && figure.layout.meta) || {};
      const trigger = window.dash_clientside.callback_context.triggered.map((t) => t.prop_id);
      const usePos = trigger.some((id) => id.endsWith(".drag_value")) ? dragPos ?? pos : pos;
      const maxB = trace.customdata[trace.customdata.length - 1][0];
      const maxPos = Math.log2(maxB);
      const b = Math.min(toBatch(usePos ?? 3), maxB);
      const p = pointAt(trace, b);
      // The regime sentence is the server's, for the batch it drew: it waits for the redraw while a drag runs.
      const server = [meta.priceNote || "", meta.regime || "", meta.goodput || ""];
      if (anim.running) return [...none.slice(0, 10), ...server]; // the animation owns the dot and the readouts
      // The server draws the dot at the chosen batch: patching it again would repaint Figure 6 a second
      // time after every control change (about 40 ms), so only a dot that is elsewhere is moved.
      const dot = figure.data[1];
      const placed = dot && dot.x && dot.x[0] === p.x && dot.y[0] === p.y && dot.customdata[0][0] === p.b;
      let move = NO();
      if (!placed) {
        const patch = new window.dash_clientside.Patch();
        patch.assign(["data", 1, "x"], [p.x]).assign(["data", 1, "y"], [p.y]);
        patch.assign(["data", 1, "customdata"], [[p.b, p.itl, p.rho]]);
        move = patch.build();
      }
      const sameMax = maxPos === maxNow; // the slider re-renders on every new max or marks
      const marks = [sameMax ? NO() : maxPos, sameMax ? NO() : batchMarks(maxPos)];
      return [...readoutTexts(p), ...marks, move, ...economyTexts(p, meta), ...server];
    },

    toggleAnimation: function (n, cfg) {
      if (anim.running) {
        stopAnimation();
        return "Animate";
      }
      startAnimation(cfg);
      return "Stop";
    },

    copyLink: function () {
      writeAddress(); // a change of the last moment is in the link too
      return window.location.href;
    },

    embedCode: function (n, path) {
      const src = `${window.location.origin}${path}${window.location.search}`;
      return `<iframe src="${src}" width="720" height="520" style="border:0" loading="lazy" title="inferx figure"></iframe>`;
    },
  };
})();
