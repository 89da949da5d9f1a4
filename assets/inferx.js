/* Browser-side callbacks and the explorer animation (no server round trip per frame). */
(function () {
  "use strict";
  const NO = () => window.dash_clientside.no_update;

  /* A request to the server's callbacks or the drag route that fails for a transport reason (the connection
     broke: a worker killed mid-request, a replica restarting; or a gateway's 502-504) is asked for once more,
     so a lost worker costs a user nothing. Dash's renderer calls the global fetch, so wrapping it covers the
     redraws too; every such request is a pure function of its body, so asking twice is safe. */
  const RETRIED_PATHS = /\/(_dash-update-component|_drag)$/;
  const GATEWAY = new Set([502, 503, 504]);
  const send = window.fetch.bind(window);
  window.fetch = async function retried(input, init) {
    if (typeof input !== "string") return send(input, init); // a Request's body can be read once only
    if (!RETRIED_PATHS.test(new URL(input, window.location.href).pathname)) return send(input, init);
    let response;
    try {
      response = await send(input, init);
    } catch (err) {
      if (err && err.name === "AbortError") throw err;
      return send(input, init);
    }
    return GATEWAY.has(response.status) ? send(input, init) : response;
  };
  const fmt = {
    throughput: (v) => `${Math.round(v).toLocaleString("en-US")} tok/s`,
    ms: (v) => (v >= 100 ? `${Math.round(v).toLocaleString("en-US")} ms` : `${v.toPrecision(3)} ms`),
    rho: (v) => `${utilisation(v)} (${percent(100 * v)} %)`,
    batch: (b) => Math.round(b).toLocaleString("en-US"),
  };
  /* ρ and its percentage in plain digits at any size: toPrecision turns 99.5 into "1.0e+2" and a ρ of 7e-7 into
     "0.0000", and rounding up would show 1.000 (100 %) for a batch the queue still drains. */
  function utilisation(v) {
    if (v > 0 && v < 1e-4) return "< 0.0001";
    return v >= 0.9995 && v < 1 ? "0.999" : v.toFixed(v < 0.01 ? 4 : 3);
  }
  function percent(p) {
    if (p > 0 && p < 0.01) return "< 0.01";
    if (p >= 99 && p < 100) return String(Math.min(Number(p.toFixed(2)), 99.99));
    return String(Number(p.toPrecision(2)));
  }
  const toBatch = (pos) => Math.max(1, Math.round(Math.pow(2, pos)));

  /* A log2 slider's position to its value, as the server reads it (inferx.scenario.value_at): a count rounded
     to a whole number; a quantity rounded to its decimals where the position is on the drag step's grid (a
     drag, an arrow key), else to 12 significant digits, which gives back the value (an address's, a preset's)
     that put the slider there. assets/a11y.js says the thumb's value with it. */
  function fromPosition(pos, step, decimals, whole) {
    const v = Math.pow(2, pos);
    if (whole) return Math.max(1, Math.round(v));
    const k = pos / step;
    if (Math.abs(k - Math.round(k)) < 1e-6) return Number(v.toFixed(shownDecimals(v, decimals)));
    return Number(v.toPrecision(12));
  }

  /* The decimals a log2 quantity is shown with (inferx.scenario.decimals): its own, or more where those are
     coarser than 2 % of the value ("1.07 TB/s", not "1.1"). */
  const shownDecimals = (v, decimals) =>
    v > 0 ? Math.max(decimals, Math.ceil(-Math.log10(0.02 * v) - 1e-9)) : decimals;

  /* A control's value from its widget's (a log2 slider holds the position), and back. */
  function controlValue(name, v, cfg) {
    const log = cfg.log2[name];
    if (v === null || v === undefined || !log) return v;
    return fromPosition(v, log[0], cfg.sliders[name][1], log[1]);
  }
  const positionOf = (name, v, cfg) => (cfg.log2[name] && typeof v === "number" ? Math.log2(v) : v);

  /* The frontier at batch b: the sample when b is one, else between its neighbours as the model's curves run
     between them. ITL is a step time, linear in B between the roofline's kinks; ρ = B / B_max is linear; so is
     TTFT · (1 − ρ) (the prefill times 1 − ρ, plus the queue's share of a step); and throughput is B / ITL.
     Straight lines through the samples put TTFT and throughput ~1 % off between samples near B_max.
     customdata rows are [B, ITL ms, ρ, regime index, watts]; between samples the regime is the lower sample's,
     the watts (which grow with the load in calibrated mode) lie on the line between. */
  function pointAt(trace, b) {
    const cd = trace.customdata;
    const n = cd.length;
    let i = 0;
    while (i < n - 1 && cd[i + 1][0] <= b) i++;
    if (cd[i][0] === b || i === n - 1 || b < cd[0][0]) {
      const j = b < cd[0][0] ? 0 : i;
      return { x: trace.x[j], y: trace.y[j], b: cd[j][0], itl: cd[j][1], rho: cd[j][2], regime: cd[j][3], watts: cd[j][4] };
    }
    const f = (b - cd[i][0]) / (cd[i + 1][0] - cd[i][0]);
    const lerp = (a, c) => a + f * (c - a);
    const itl = lerp(cd[i][1], cd[i + 1][1]);
    const rho = lerp(cd[i][2], cd[i + 1][2]);
    const held = (k) => trace.y[k] * (1 - cd[k][2]);
    return {
      x: itl > 0 ? (1e3 * b) / itl : lerp(trace.x[i], trace.x[i + 1]),
      y: rho < 1 && cd[i + 1][2] < 1 ? lerp(held(i), held(i + 1)) / (1 - rho) : lerp(trace.y[i], trace.y[i + 1]),
      b: b,
      itl: itl,
      rho: rho,
      regime: cd[i][3],
      watts: lerp(cd[i][4], cd[i + 1][4]),
    };
  }

  /* The throughput readout in the unit the figure's axis has (figures/units.py: per instance or per GPU). */
  function readoutTexts(p, meta) {
    const unit = meta && meta.tput && meta.tput.unit;
    const rate = unit ? `${Math.round(p.x).toLocaleString("en-US")} ${unit}` : fmt.throughput(p.x);
    return [rate, fmt.ms(p.y), fmt.ms(p.itl), fmt.rho(p.rho), fmt.batch(p.b)];
  }

  /* An instance's tokens/s at point p: the figure's x times the GPU count where the axis is per GPU. */
  function instanceRate(p, meta) {
    const t = meta && meta.tput;
    return t && t.perGpu ? p.x * t.gpus : p.x;
  }

  /* Cost and energy at the dot: the machine's $/hour (layout.meta, from the server) and the watts it draws
     there (the dot's, else the meta's) over its throughput, so they follow a drag or the animation with no
     round trip. */
  const money = (v) => (v >= 100 ? `$${Math.round(v).toLocaleString("en-US")}` : `$${v.toPrecision(3)}`);
  const wattsAt = (p, meta) => (p.watts > 0 ? p.watts : meta.watts);
  function economyTexts(p, meta) {
    if (!meta || !(p.x > 0)) return ["—", "—"];
    const x = instanceRate(p, meta);
    return [money((1e6 * meta.usdPerHour) / (3600 * x)), `${(x / wattsAt(p, meta)).toPrecision(3)} tok/J`];
  }

  function batchMarks(maxPos) {
    const marks = {};
    for (let e = 0; e <= maxPos; e += 2) marks[e] = Math.pow(2, e).toLocaleString("en-US");
    return marks;
  }

  /* The limit that binds at the dot (meta.regimes: Figure 10's colours) colours the readouts' edges and names
     itself beside the batch; past meta.rhoUnstable the utilisation readout warns. These elements are no
     callback's output, so they are set here directly, during a drag and the animation alike. */
  function paintRegime(p, meta) {
    const rho = document.getElementById("readout-rho");
    if (!rho) return;
    const regime = meta && meta.regimes && meta.regimes[p.regime];
    const card = rho.closest(".card-body") || document.body;
    if (regime) card.style.setProperty("--regime", regime.colour);
    else card.style.removeProperty("--regime");
    const chip = document.getElementById("batch-regime");
    if (chip) chip.textContent = regime ? regime.label : "";
    const unstable = Boolean(meta && meta.rhoUnstable !== undefined && p.rho > meta.rhoUnstable);
    rho.parentElement.classList.toggle("readout-warn", unstable);
  }

  /* --- Animation: requestAnimationFrame moves the dot with Plotly.animate (no redraw of the axes or the
     curve) and the batch slider's thumb with it. --- */
  // batchId and graphId come from the page's config when the animation starts; `path` is the sweep's time
  // share per frontier sample, for the trace it was built from; `thumb` the slider's parts, found once a run.
  const anim = { running: false, start: 0, last: null, raf: 0, seconds: 8, batchId: null, graphId: null };
  Object.assign(anim, { frames: 0, path: null, thumb: null });
  const ARC_SHARE = 0.7; // of the sweep's time: along the drawn curve; the rest evenly in log B
  const ANIMATE_STEP = { mode: "immediate", transition: { duration: 0 }, frame: { duration: 0, redraw: false } };
  const REDUCED_MOTION_STEPS = 8; // the sweep's stops where the reader asks for reduced motion, one a second

  function graphDiv() {
    return document.querySelector(`#${anim.graphId} .js-plotly-plot`);
  }

  /* Where the sweep is at each sample, from 0 to 1: mostly by the curve's length on screen (the fixed axes in
     pixels, TTFT and a log throughput in decades), so the dot keeps an even pace where the curve bends instead
     of crawling along the floor; partly by log B, so the flat start, where the readouts change most, still
     takes its time. */
  function sweepPath(gd) {
    const tr = gd.data[0];
    const cd = tr.customdata;
    const full = gd._fullLayout || {};
    const xr = gd.layout.xaxis.range;
    const yr = gd.layout.yaxis.range;
    const w = (full.xaxis && full.xaxis._length) || 1;
    const h = (full.yaxis && full.yaxis._length) || 1;
    // Beside a far larger pinned A the throughput axis is log (inferx.figures.log_x_if_squeezed).
    const lx = full.xaxis && full.xaxis.type === "log" ? Math.log10 : (x) => x;
    const px = (i) => ((lx(tr.x[i]) - xr[0]) / (xr[1] - xr[0])) * w;
    const py = (i) => ((Math.log10(tr.y[i]) - yr[0]) / (yr[1] - yr[0])) * h;
    const arc = [0];
    const logb = [0];
    for (let i = 1; i < cd.length; i++) {
      arc.push(arc[i - 1] + Math.hypot(px(i) - px(i - 1), py(i) - py(i - 1)));
      logb.push(Math.log(cd[i][0] / cd[0][0]));
    }
    const arcEnd = arc[arc.length - 1] || 1;
    const logEnd = logb[logb.length - 1] || 1;
    return { trace: tr, share: arc.map((a, i) => ARC_SHARE * (a / arcEnd) + (1 - ARC_SHARE) * (logb[i] / logEnd)) };
  }

  /* The batch at time share t of the sweep: geometric between the two samples whose shares hold t. */
  function batchAt(path, t) {
    const s = path.share;
    const cd = path.trace.customdata;
    if (s.length < 2) return cd[0][0];
    let i = 0;
    while (i < s.length - 2 && s[i + 1] <= t) i++;
    const f = Math.min(1, Math.max(0, (t - s[i]) / (s[i + 1] - s[i] || 1)));
    return Math.round(cd[i][0] * Math.pow(cd[i + 1][0] / cd[i][0], f));
  }

  /* A slider's parts, from its Dash container (id) or anything inside it; null before Radix has drawn it. */
  function sliderParts(host) {
    const root = host && (host.querySelector(".dash-slider-root") || host.closest(".dash-slider-root"));
    const thumb = root && root.querySelector('[role="slider"]');
    if (!thumb) return null;
    const range = root.querySelector(".dash-slider-range");
    return { root, thumb, holder: thumb.parentElement, range, half: thumb.offsetWidth / 2 };
  }

  /* A slider's thumb at `pos`, where its own render would put it (Radix keeps the thumb inside the track:
     left = p % + (1 − p/50)·half px), with its filled range and aria-valuenow (assets/a11y.js says it in its
     unit). React leaves these alone until the value it holds changes. */
  function placeThumb(s, pos) {
    const min = Number(s.thumb.getAttribute("aria-valuemin"));
    const max = Number(s.thumb.getAttribute("aria-valuemax"));
    const pct = Math.min(100, Math.max(0, (100 * (pos - min)) / (max - min)));
    s.holder.style.left = `calc(${pct}% + ${s.half * (1 - pct / 50)}px)`;
    if (s.range) s.range.style.right = `${100 - pct}%`;
    s.thumb.setAttribute("aria-valuenow", String(pos));
  }

  /* The batch slider follows the sweep. The value itself goes to Dash once, when the sweep ends: set on every
     frame it would re-render the slider and ask the server for a redraw. */
  function moveThumb(pos, b) {
    if (!anim.thumb) return;
    placeThumb(anim.thumb, pos);
    anim.thumb.thumb.setAttribute("aria-valuetext", `${fmt.batch(b)} requests`);
  }

  /* Under each readout, the other model's value at the server's batch and the expected's error
     (meta.both: inferx.figures.both): "ideal · expected 2,150 tok/s ±6 % (p90 15 %)", or in calibrated mode
     "expected ±6 % (p90 15 %) · ideal 145,000 tok/s". Faded while the dot is elsewhere (a drag, the sweep),
     until the redraw at the new batch; no callback's output, so set here directly. */
  const BOTH_KEYS = ["throughput", "ttft", "itl", "rho", "cost", "energy"];
  function paintBoth(meta, b) {
    const both = meta && meta.both;
    const ok = Boolean(both && both.order && both.order.length === 2);
    BOTH_KEYS.forEach((key) => {
      const el = document.getElementById(`readout-${key}-both`);
      if (!el) return;
      if (!ok) {
        el.textContent = "";
        return;
      }
      const [first, second] = both.order;
      const err = (name) => (name === "expected" && both.error[key] ? ` ${both.error[key]}` : "");
      const text = `${first}${err(first)} · ${second} ${both[second][key]}${err(second)}`;
      if (el.textContent !== text) el.textContent = text;
      el.title = both.error.basis ? `Expected error: ${both.error.basis}` : "";
      el.classList.toggle("readout-stale", b !== both.batch);
    });
  }

  /* Where the time goes (pages/_cards.time_parts_panel): the bars the server drew with the explorer's figure
     (meta.timeParts: inferx.figures.breakdown), given to their graph when a new figure brings others (`fresh`),
     and faded while the dot is at a batch they were not drawn for, as the other model's readouts are. */
  const TIME_GRAPH = "time-parts-graph";
  function paintTime(meta, b, fresh) {
    const el = document.getElementById(TIME_GRAPH);
    if (!el) return; // an embed has no bars
    const fig = meta && meta.timeParts;
    if (fresh && fig) {
      const held = window.dash_component_api.getLayout(TIME_GRAPH);
      const now = held && held.props ? held.props.figure : undefined;
      if (now !== fig && JSON.stringify(now) !== JSON.stringify(fig)) {
        window.dash_clientside.set_props(TIME_GRAPH, { figure: fig });
      }
    }
    const drawn = fig && fig.layout && fig.layout.meta ? fig.layout.meta.batch : b;
    const wrap = document.getElementById("time-parts");
    if (wrap) wrap.classList.toggle("readout-stale", b !== null && b !== drawn);
  }

  function setReadouts(p, meta) {
    const ids = ["readout-throughput", "readout-ttft", "readout-itl", "readout-rho", "batch-value"];
    ids.push("readout-cost", "readout-energy");
    [...readoutTexts(p, meta), ...economyTexts(p, meta)].forEach((text, k) => {
      const el = document.getElementById(ids[k]);
      if (el) el.textContent = text;
    });
    paintRegime(p, meta);
    paintBoth(meta, p.b);
    paintTime(meta, p.b, false);
  }

  /* The explorer at batch b without Dash: its dot (and A's), the readouts beside it and A's. The sweep paints
     each frame with it, and a drag of the batch slider each step. */
  function showBatch(gd, b) {
    const trace = gd.data[0];
    const cd = trace.customdata;
    const p = pointAt(trace, Math.min(b, cd[cd.length - 1][0]));
    const meta = gd.layout && gd.layout.meta;
    const regime = meta && meta.regimes && meta.regimes[p.regime];
    const dot = { x: [p.x], y: [p.y], customdata: [[p.b, p.itl, p.rho, p.regime]] };
    if (regime) dot.marker = { color: regime.colour };
    // Without redraw, animate moves the one point; restyle would recompute and redraw the whole graph.
    const frameData = { data: [dot], traces: [1] };
    const theirs = window.inferxCompare && window.inferxCompare.dotOfA(gd, p.b);
    if (theirs) {
      frameData.data.push({ x: theirs.x, y: theirs.y, customdata: theirs.customdata });
      frameData.traces.push(theirs.index);
    }
    window.Plotly.animate(gd, frameData, ANIMATE_STEP);
    setReadouts(p, meta);
    if (window.inferxCompare) {
      const against = window.inferxCompare.textsAt(p.b, gd);
      window.inferxCompare.KEYS.forEach((key, k) => {
        const el = document.getElementById(`readout-${key}-a`);
        if (el) el.textContent = against[k];
      });
    }
    return p;
  }

  function frame(now) {
    if (!anim.running) return;
    const gd = graphDiv();
    const trace = gd && gd.data && gd.data[0];
    if (!trace || !trace.customdata || !trace.customdata.length) return stopAnimation();
    // A redraw during the sweep brings a new frontier: its path is built again and the sweep's clock runs on.
    if (!anim.path || anim.path.trace !== trace) anim.path = sweepPath(gd);
    // rAF's `now` is when the frame began, which can precede the performance.now() taken at the click: clamp
    // at 0, or the sweep would start before its first sample.
    let t = Math.min(1, Math.max(0, (now - anim.start) / (1000 * anim.seconds)));
    if (anim.steps) {
      // Reduced motion: the sweep jumps between a few batch sizes, each held, rather than gliding.
      t = Math.floor(t * anim.steps) / anim.steps;
      if (t === anim.shownT) {
        anim.raf = window.requestAnimationFrame(frame);
        return;
      }
      anim.shownT = t;
    }
    const p = showBatch(gd, batchAt(anim.path, t));
    moveThumb(Math.log2(p.b), p.b);
    anim.last = p.b;
    anim.frames += 1;
    if (t >= 1) return stopAnimation();
    anim.raf = window.requestAnimationFrame(frame);
  }

  /* The regime sentence is the server's, for the batch it last drew: faded while the sweep runs past it. */
  function staleSentence(stale) {
    const el = document.getElementById("readout-regime");
    if (el) el.classList.toggle("readout-stale", stale);
  }

  function startAnimation(cfg) {
    anim.batchId = cfg.batchId;
    anim.graphId = cfg.explorerGraph;
    anim.running = true;
    anim.frames = 0;
    anim.path = null;
    anim.steps = window.matchMedia("(prefers-reduced-motion: reduce)").matches ? REDUCED_MOTION_STEPS : 0;
    anim.shownT = null;
    anim.thumb = sliderParts(document.getElementById(anim.batchId));
    staleSentence(true);
    anim.start = performance.now();
    anim.raf = window.requestAnimationFrame(frame);
  }

  function stopAnimation() {
    const wasRunning = anim.running;
    anim.running = false;
    window.cancelAnimationFrame(anim.raf);
    staleSentence(false);
    const set = window.dash_clientside.set_props;
    set("btn-animate", { children: "Animate" });
    // Hand the final batch back to Dash: one server request, after the sweep.
    if (wasRunning && anim.last) set(anim.batchId, { value: Math.log2(anim.last) });
  }

  window.inferxAnimation = anim; // read by the browser tests and the benchmark

  /* --- Only the graphs in view are redrawn; the others are drawn when they come into view or the page is idle.
     Plotly redraws a graph in 12-25 ms of main-thread time, all of them in a few hundred, during which a
     dragged slider cannot move; and every figure the server builds costs it time too. So a redraw asks only
     for the graphs in the viewport and marks the others stale; a stale graph is asked for when it comes near
     the viewport (`margin`, ahead of the scroll) or nothing new has arrived for a while. An answer for a
     graph that has meanwhile left the viewport waits, the newest figure per graph, on the same two occasions. */
  const lazy = {
    inView: new WeakMap(), // wrapper -> in the viewport, as the IntersectionObserver last reported
    near: new WeakMap(), // wrapper -> within `margin` of it
    observers: null,
    waiting: new Map(), // fig -> {figure, el}: drawn when near the viewport or idle
    stale: new Map(), // fig -> el: not asked for since the controls changed
    idleTimer: 0,
    idleMs: 600,
    round: 0,
    margin: 300, // px
  };
  const whenIdle = (f) => (window.requestIdleCallback ? window.requestIdleCallback(f) : window.setTimeout(f, 0));

  function wrapperOf(fig) {
    return document.getElementById(`fig-${fig.slice(3)}`);
  }

  /* The page's registry figures, by key, with their wrappers (fig-6 for fig6). */
  function pageFigures() {
    return [...document.querySelectorAll(".graph-wrap")]
      .filter((el) => /^fig-\d+$/.test(el.id))
      .map((el) => ({ fig: `fig${el.id.slice(4)}`, el }));
  }

  /* The observers' word where they have reported (reading the layout during a drag forces a reflow of the
     whole page, tens of ms); the element's box until then. */
  function seen(el, map, margin) {
    if (map.has(el)) return map.get(el);
    const r = el.getBoundingClientRect();
    return r.bottom > -margin && r.top < window.innerHeight + margin;
  }
  const inView = (el) => seen(el, lazy.inView, 0);
  const nearView = (el) => seen(el, lazy.near, lazy.margin);

  const isStale = (fig) => lazy.stale.has(fig) && lazy.stale.get(fig) === wrapperOf(fig);

  function draw(fig) {
    const item = lazy.waiting.get(fig);
    lazy.waiting.delete(fig);
    // A figure kept for a page that has since been replaced (the router swaps pages) is dropped.
    if (item && item.el === wrapperOf(fig)) {
      window.dash_clientside.set_props({ role: "figure", fig: fig }, { figure: item.figure });
    }
  }

  /* A graph came near (or into) the viewport: draw what waits for it, ask for it if it is stale (a graph
     already near when it became stale is asked for once it is in view). */
  const arrived = (map) => (entries) => {
    let refresh = false;
    entries.forEach((e) => {
      const fig = `fig${e.target.id.slice(4)}`;
      map.set(e.target, e.isIntersecting);
      if (e.isIntersecting && lazy.waiting.has(fig)) draw(fig);
      refresh = refresh || (e.isIntersecting && isStale(fig));
    });
    if (refresh) refreshStale(true);
  };

  function observe(el) {
    if (!lazy.observers) {
      lazy.observers = [
        new IntersectionObserver(arrived(lazy.inView)),
        new IntersectionObserver(arrived(lazy.near), { rootMargin: `${lazy.margin}px 0px` }),
      ];
    }
    if (lazy.near.has(el) || lazy.inView.has(el)) return; // observed already
    lazy.observers.forEach((o) => o.observe(el));
  }

  function drawWaitingWhenIdle() {
    window.clearTimeout(lazy.idleTimer);
    const round = ++lazy.round; // new figures restart the quiet period and end an earlier round
    const next = () => {
      const fig = lazy.waiting.keys().next().value;
      if (fig === undefined || round !== lazy.round) return;
      draw(fig);
      whenIdle(next); // one graph per idle slot: a drag that starts again waits for at most one graph
    };
    lazy.idleTimer = window.setTimeout(() => {
      refreshStale(false); // its answer starts a new round
      next();
    }, lazy.idleMs);
  }

  window.inferxLazy = lazy; // read by the browser tests and the benchmark

  /* --- One redraw request in flight; a control state that arrives meanwhile waits, newest only. --- */
  // `last`: the newest control state asked for, which a refresh of stale graphs asks for again.
  const redraws = { inFlight: false, since: 0, next: null, last: null, giveUpMs: 10000, explorer: null };

  /* The request as sent: a control change asks for the graphs in view and leaves the others stale (a batch
     change concerns the explorer only); a refresh names its stale graphs, of which those drawn since drop out. */
  function narrowed(request) {
    const figs = pageFigures();
    figs.forEach(({ el }) => observe(el));
    if (request.figures) return { ...request, figures: request.figures.filter(isStale) };
    const figures = [];
    figs.forEach(({ fig, el }) => {
      if (inView(el)) figures.push(fig);
      else if (!request.batchOnly || fig === redraws.explorer) lazy.stale.set(fig, el);
    });
    return { ...request, figures };
  }

  function sendRedraw(request) {
    // An answer lost on the way (a page swapped mid-request, a dropped connection) must not stop redraws.
    if (redraws.inFlight && performance.now() - redraws.since < redraws.giveUpMs) {
      if (request.figures && redraws.next) return null; // the state waiting to go is newer than a refresh
      // All controls travel in every request; only "the batch alone changed" must survive merging.
      request.batchOnly = request.batchOnly && (!redraws.next || redraws.next.batchOnly);
      redraws.next = request;
      return null;
    }
    const sent = narrowed(request);
    if (request.figures && !sent.figures.length) return null; // drawn meanwhile: nothing to refresh
    redraws.inFlight = true;
    const since = (redraws.since = performance.now());
    // An answer that never comes would otherwise hold the newest state until the next change.
    window.setTimeout(() => {
      if (redraws.inFlight && redraws.since === since) redrawAnswered({});
    }, redraws.giveUpMs);
    return sent;
  }

  /* Ask again for the stale graphs of the newest state: those near the viewport (`near`), or all of them. */
  function refreshStale(near) {
    [...lazy.stale.keys()].filter((fig) => !isStale(fig)).forEach((fig) => lazy.stale.delete(fig)); // other pages'
    if (!redraws.last) return;
    const figures = [...lazy.stale.keys()].filter((fig) => !near || nearView(wrapperOf(fig)));
    const sent = figures.length && sendRedraw({ ...redraws.last, batchOnly: false, figures });
    if (sent) window.dash_clientside.set_props("redraw-request", { data: sent });
  }

  function redrawAnswered(updates) {
    Object.keys(updates || {}).forEach((fig) => lazy.stale.delete(fig));
    redraws.inFlight = false;
    const next = redraws.next;
    redraws.next = null;
    const sent = next && sendRedraw(next);
    if (sent) window.dash_clientside.set_props("redraw-request", { data: sent });
  }

  window.inferxRedraws = redraws; // read by the browser tests

  /* --- A dragged control slider skips Dash until it is let go. Through Dash a step of a drag cost about eight
     updates of its store and each repaint about 25, every one re-checked by every component of the page. So
     while the pointer holds a control's slider, the thumb and the label are moved here, each newest control
     state goes to the drag route (pages/_drag.py: the redraw's own reading and build; one request in flight,
     the newest waiting) and its figures go to Plotly.react on the graphs in view. Let go, the value goes to
     Dash once, and controlsChanged's redraw leaves the address, the stores, the graphs' figure props, the
     readouts and the text alternatives as any change does. Radix never sees this pointer: its own drag would
     set the value on every step. The batch slider's drag needs no server: the explorer's dot and readouts
     are placed here from its frontier, as the sweep places them. Keys still go through Dash
     (assets/a11y.js), one change a press. --- */
  // `gen` grows at each press and release: an answer from before belongs to a state Dash has since drawn.
  const drag = { on: null, gen: 0, inFlight: false, next: null, painted: new Set(), posts: 0, paints: 0 };

  function uiConfig() {
    const layout = window.dash_component_api && window.dash_component_api.getLayout("ui-config");
    return layout && layout.props.data;
  }

  /* The control slider a press lands on, with what a drag of it needs; null for anything else, and on a page
     with no figure of the registry (/inferencex, whose overlay redraws through Dash). */
  function pressedSlider(e) {
    if (e.button !== 0 || !(e.target instanceof Element)) return null;
    const parts = sliderParts(e.target.closest(".dash-slider-root"));
    const host = parts && parts.root.closest(".dash-slider-container[id]");
    const cfg = host && uiConfig();
    if (!cfg || !cfg.dragUrl || !host.id.startsWith(cfg.prefix) || !pageFigures().length) return null;
    const name = host.id.slice(cfg.prefix.length);
    const index = cfg.controls.indexOf(name);
    // The batch slider moves the explorer's dot, which the browser can place itself (as the sweep does).
    const explorer =
      host.id === cfg.batchId && !anim.running && document.querySelector(`#${cfg.explorerGraph} .js-plotly-plot`);
    const layout = window.dash_component_api.getLayout(host.id);
    const props = layout && layout.props;
    if (!explorer && (index < 0 || !cfg.sliders[name])) return null;
    if (explorer && !(explorer.data && explorer.data[0] && explorer.data[0].customdata)) return null;
    if (!props || !(props.step > 0) || props.disabled) return null;
    const { min, max, step, value } = props;
    return { id: host.id, name, index, cfg, parts, min, max, step, start: value, value, explorer };
  }

  /* The value under the pointer, as Radix reckons it: the root's width spans min to max, snapped to the step
     and rounded to the step's decimals. */
  function valueAt(d, clientX) {
    const raw = d.min + ((clientX - d.rect.left) / d.rect.width) * (d.max - d.min);
    const unit = Math.pow(10, (String(d.step).split(".")[1] || "").length);
    const snapped = Math.round((Math.round((raw - d.min) / d.step) * d.step + d.min) * unit) / unit;
    return Math.min(d.max, Math.max(d.min, snapped));
  }

  /* The control state as controlsChanged would send it, with the dragged slider at its new value. */
  function dragRequest(d) {
    const api = window.dash_component_api;
    const prop = (id, key) => {
      try {
        const c = api.getLayout(id);
        return c && c.props ? c.props[key] : undefined;
      } catch (err) {
        return undefined; // not on this page (an embed has no batch slider): Dash's getLayout throws
      }
    };
    const { controls, prefix } = d.cfg;
    const values = controls.map((name, k) => (k === d.index ? d.value : prop(prefix + name, "value") ?? null));
    const request = { values, batch: prop(d.cfg.batchId, "value") ?? null, figures: [] };
    const pinned = prop(d.cfg.pinnedId, "data");
    if (pinned) request.pinned = pinned;
    pageFigures().forEach(({ fig, el }) => inView(el) && request.figures.push(fig));
    return request;
  }

  function postDrag(request) {
    drag.inFlight = true;
    drag.posts += 1;
    const gen = drag.gen;
    let freed = false;
    const free = () => {
      if (freed) return;
      freed = true;
      drag.inFlight = false;
      const next = drag.next;
      drag.next = null;
      if (next) postDrag(next);
    };
    window.setTimeout(free, redraws.giveUpMs); // an answer that never comes must not stop the drag's redraws
    const init = { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(request) };
    window
      .fetch(drag.url, init)
      .then((r) => (r.ok ? r.json() : null)) // a refused state: the release's redraw says why
      .then((figs) => {
        free(); // the newest state goes to the server while this one is painted
        if (figs && gen === drag.gen) paintDrag(figs);
      })
      .catch(free);
  }

  function paintDrag(figs) {
    Object.keys(figs).forEach((fig) => {
      const gd = document.querySelector(`#fig-${fig.slice(3)} .js-plotly-plot`);
      if (!gd || !gd.data) return;
      window.Plotly.react(gd, figs[fig].data, figs[fig].layout); // the graph's config stays as dcc.Graph set it
      drag.painted.add(fig);
      drag.paints += 1;
    });
  }

  function dragTo(clientX) {
    const d = drag.on;
    const v = valueAt(d, clientX);
    if (v === d.value) return;
    d.value = v;
    placeThumb(d.parts, v);
    if (d.explorer) {
      const p = showBatch(d.explorer, toBatch(v));
      d.parts.thumb.setAttribute("aria-valuetext", `${fmt.batch(p.b)} requests`);
      return; // no request: the release's redraw brings the server's regime sentence for the new batch
    }
    writeLabel(d.name, v, d.cfg);
    const request = dragRequest(d);
    if (!request.figures.length) return;
    if (drag.inFlight) drag.next = request;
    else postDrag(request);
  }

  function dragEnd() {
    const d = drag.on;
    drag.on = null;
    drag.gen += 1;
    drag.next = null;
    if (d.parts.root.hasPointerCapture(d.pointerId)) d.parts.root.releasePointerCapture(d.pointerId);
    const painted = [...drag.painted];
    drag.painted.clear();
    if (d.explorer) staleSentence(false);
    if (d.explorer && d.value === d.start) showBatch(d.explorer, toBatch(d.start));
    if (d.box && d.value === d.start) d.box.setAttribute("data-unset-shown", ""); // let go unmoved: still unset
    if (d.value !== d.start) {
      window.dash_clientside.set_props(d.id, { value: d.value });
      return;
    }
    // Let go where it was taken: Dash has nothing to redraw, so the graphs get their own figures back.
    painted.forEach((fig) => {
      const graph = window.dash_component_api.getLayout({ role: "figure", fig });
      const gd = document.querySelector(`#fig-${fig.slice(3)} .js-plotly-plot`);
      const figure = graph && graph.props.figure;
      if (gd && figure) window.Plotly.react(gd, figure.data, figure.layout);
    });
  }

  function hold(e) {
    e.preventDefault();
    e.stopPropagation(); // before React's listeners, so Radix's handlers never run
  }

  document.addEventListener(
    "pointerdown",
    (e) => {
      const d = !drag.on && pressedSlider(e);
      if (!d) return;
      hold(e);
      d.pointerId = e.pointerId;
      d.rect = d.parts.root.getBoundingClientRect();
      d.parts.root.setPointerCapture(e.pointerId);
      d.parts.thumb.focus();
      // An unset slider's thumb is drawn at the value it stands for (assets/a11y.js): the drag takes it from there.
      d.box = d.parts.root.closest(".a11y-slider[data-unset-shown]");
      if (d.box) {
        d.parts.holder.style.left = d.box.style.getPropertyValue("--assumed-left");
        d.box.removeAttribute("data-unset-shown");
      }
      drag.on = d;
      drag.url = d.cfg.dragUrl;
      if (d.explorer) staleSentence(true);
      drag.gen += 1;
      // Pressing the thumb moves nothing; pressing the track moves the thumb there, as Radix does.
      if (!d.parts.thumb.contains(e.target)) dragTo(e.clientX);
    },
    true
  );
  document.addEventListener(
    "pointermove",
    (e) => {
      if (!drag.on || e.pointerId !== drag.on.pointerId) return;
      hold(e);
      dragTo(e.clientX);
    },
    true
  );
  ["pointerup", "pointercancel", "lostpointercapture"].forEach((type) =>
    document.addEventListener(
      type,
      (e) => {
        if (!drag.on || e.pointerId !== drag.on.pointerId) return;
        hold(e);
        dragEnd();
      },
      true
    )
  );

  window.inferxDrag = drag; // read by the browser tests and the benchmark

  /* --- The address bar follows the controls (the values that differ from what the preset and the machine
     give, and the batch). --- */
  const address = { next: null, path: null, model: null, timer: 0 };

  /* What the address may leave out: the preset's values, with bandwidth, compute, HBM and TP those of the GPU and
     count chosen (as applyMachine sets them, and as the server's resolve_params derives them from gpu and
     gpus). Written in, they would stay when a reader edits the GPU in a copied link. */
  /* The article's machine (a preset's values) that gpu × gpus is, whichever preset is chosen, or null: its
     values are the article's, not the catalog's (scenario.machines.article_machine). One machine, one answer. */
  function articleMachine(cfg, gpu, gpus) {
    const key = Object.keys(cfg.presets).find((k) => {
      const p = cfg.presets[k];
      return k !== cfg.custom && p.gpu === gpu && p.gpus === gpus;
    });
    return key ? cfg.presets[key] : null;
  }

  /* The shortcut whose GPU, count and link these are, or the custom entry (scenario.machines.resolve_params). */
  function shortcutOf(cfg, gpu, gpus, ic) {
    const named = Object.keys(cfg.presets).find((k) => {
      const p = cfg.presets[k];
      return k !== cfg.custom && p.gpu === gpu && p.gpus === gpus && p.ic === ic;
    });
    return named || cfg.custom;
  }

  function derivedValues(shown, cfg) {
    const base = Object.assign({}, cfg.presets[shown.preset] || {});
    const machine = window.inferx.applyMachine(shown.gpu, shown.gpus, shown.preset, shown.wdtype, cfg);
    cfg.machineControls.forEach((name, k) => {
      if (typeof machine[k] === "number") base[name] = controlValue(name, machine[k], cfg);
    });
    // And TP and the link the GPU and count take (fitTp, ownLink, resolve_params): written in, they would stay
    // when the GPU or count is edited.
    if (Number.isInteger(shown.gpus) && shown.gpus >= 1) base.tp = Math.pow(2, Math.floor(Math.log2(shown.gpus)));
    if (shown.gpu) base.ic = (cfg.defaultLinks && cfg.defaultLinks[shown.gpu]) || cfg.scaleUp;
    // A named workload's lengths and context (resolve_params): the address says `workload=8k1k` alone.
    const w = cfg.workloads && cfg.workloads[shown.workload];
    if (w) [base.isl, base.osl, base.ctx] = w;
    return base;
  }

  function followAddress(values, batchPos, pinned, cfg) {
    const shown = {};
    cfg.controls.forEach((name, k) => {
      shown[name] = controlValue(name, values[k], cfg);
    });
    const base = derivedValues(shown, cfg);
    const query = new URLSearchParams();
    cfg.controls.forEach((name) => {
      const v = shown[name];
      if (v === null || v === undefined) return;
      if (name === "preset" || String(v) !== String(base[name])) query.set(name, v);
    });
    const here = new URLSearchParams(window.location.search);
    // A page without the explorer (/inferencex) keeps the batch it was given, for the Dashboard link to carry.
    const batch = batchPos !== null ? toBatch(batchPos) : here.get("batch");
    if (batch !== null) query.set("batch", batch);
    const theme = here.get("theme"); // assets/theme.js reads it
    if (theme) query.set("theme", theme);
    // The pinned scenario A (pages/_url.encode_pinned): name:value pairs, separators left readable.
    let search = query.toString();
    if (pinned) {
      const pairs = Object.entries(pinned).map(([k, v]) => `${encodeURIComponent(k)}:${encodeURIComponent(v)}`);
      search += `${search ? "&" : ""}a=${pairs.join(",")}`;
    }
    // replaceState: no history entry per change. Written once the controls rest for a moment: Chrome stops
    // honouring replaceState (and says so in the console) after about 200 calls in 10 s, which a drag makes.
    address.path = window.location.pathname;
    address.next = `${address.path}?${search}`;
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
      if (rememberScenario()) {
        scenarioLinks().forEach(([id, href]) => window.dash_clientside.set_props(id, { href }));
      }
    }
    address.next = null;
  }

  /* The Dashboard and InferenceX links carry the scenario last shown in this tab (the controls of either page;
     the Dashboard's also its pinned A, which /inferencex does not take and so leaves as it was), so a visit to
     another page loses nothing. Kept in sessionStorage: the tab's, not written by embeds. */
  const SCENARIO_KEY = "inferx-scenario";
  const PINNED_KEY = "inferx-pinned";
  const NAV_LINKS = ["nav-dashboard", "nav-inferencex"];

  /* The path of navbar link `id`, or null on a page without one (an embed). From the page, or before it is
     drawn (a page's opening) from Dash's layout, whose getLayout throws for an id it does not hold. */
  function linkPath(id) {
    const el = document.getElementById(id);
    if (el && el.href) return new URL(el.href).pathname;
    try {
      const link = window.dash_component_api.getLayout(id);
      return link && link.props.href ? new URL(link.props.href, window.location.href).pathname : null;
    } catch (e) {
      return null;
    }
  }

  function stored(key) {
    try {
      return window.sessionStorage.getItem(key) || "";
    } catch (e) {
      return ""; // storage refused (a privacy mode): the links stay plain
    }
  }

  /* The address shown, if this page is the Dashboard or /inferencex: true when kept. */
  function rememberScenario() {
    const here = window.location.pathname;
    const page = NAV_LINKS.find((id) => linkPath(id) === here);
    if (!page) return false;
    const parts = window.location.search.replace(/^\?/, "").split("&").filter(Boolean);
    try {
      window.sessionStorage.setItem(SCENARIO_KEY, parts.filter((p) => !p.startsWith("a=")).join("&"));
      const pinned = parts.find((p) => p.startsWith("a=")) || "";
      if (page === "nav-dashboard") window.sessionStorage.setItem(PINNED_KEY, pinned);
    } catch (e) {
      return false;
    }
    return true;
  }

  function scenarioLinks() {
    const scenario = stored(SCENARIO_KEY);
    const pinned = stored(PINNED_KEY);
    const links = [];
    NAV_LINKS.forEach((id) => {
      const path = linkPath(id);
      if (path === null) return;
      const query = [scenario, id === "nav-dashboard" ? pinned : ""].filter(Boolean).join("&");
      links.push([id, path + (query ? `?${query}` : "")]);
    });
    return links;
  }

  // A change of the last moment (the address waits 150 ms) is written before a navbar link leaves the page.
  document.addEventListener(
    "click",
    (e) => {
      if (address.next !== null && e.target.closest && e.target.closest(".navbar a")) {
        window.clearTimeout(address.timer);
        writeAddress();
      }
    },
    true
  );

  /* The "value unit" text beside each moved slider's label, as format_slider_value writes it on the server
     (the unset word for a slider given back to the model). Written into the element itself, not through
     Dash: no callback reads it, and a set_props is two updates of Dash's store (the prop, then the page's
     paths), each re-checked by every component of the page, on every step of a drag. */
  const numberFormats = new Map(); // by decimals: toLocaleString would build a new formatter per step

  /* A number as shown and its unit: "1 GPU", "1 token per step", "2 GPUs" (inferx.text.counted). */
  const COUNTED = /^([A-Za-z ]*[A-Za-z]{3,})s( per [A-Za-z ]+)?$/;
  function counted(text, unit) {
    const match = text === "1" && unit ? COUNTED.exec(unit) : null;
    if (match) unit = match[1] + (match[2] || "");
    return unit ? `${text} ${unit}` : text;
  }
  function numberFormat(d) {
    if (!numberFormats.has(d)) {
      numberFormats.set(d, new Intl.NumberFormat("en-US", { minimumFractionDigits: d, maximumFractionDigits: d }));
    }
    return numberFormats.get(d);
  }

  function writeLabel(name, v, cfg) {
    const spec = cfg.sliders[name];
    const el = document.getElementById(`${cfg.prefix}${name}-value`); // pages/_ids.value_id
    if (!spec || !el || v === undefined) return;
    const [unit, d, unset] = spec;
    if (v === null && !unset) return; // no word for an empty slider
    v = controlValue(name, v, cfg);
    const log = cfg.log2[name];
    const text = v === null ? unset : numberFormat(log && !log[1] ? shownDecimals(v, d) : d).format(v);
    const shown = v !== null ? counted(text, unit) : text;
    if (el.textContent !== shown) el.textContent = shown;
  }

  function sliderLabels(values, fired, cfg) {
    cfg.controls.forEach((name, k) => {
      if (fired.includes(`${cfg.prefix}${name}.value`)) writeLabel(name, values[k], cfg);
    });
  }

  /* The explorer's thirteen outputs, in the order its callback declares them (pages/_callbacks.py). */
  /* The batch the explorer's dot stands for, capped at the frontier's last. After a redraw or the dot's own
     move (a new figure, which set_props feeds back as an input) it is the dot's: the slider's value lags a
     drag, and reading it would pull the dot back. Otherwise the slider's, its drag value while it moves. */
  function dotBatch(dragPos, pos, figure) {
    const trigger = window.dash_clientside.callback_context.triggered.map((t) => t.prop_id);
    const cd = figure.data[0].customdata;
    const maxB = cd[cd.length - 1][0];
    const dot = figure.data[1] && figure.data[1].customdata && figure.data[1].customdata[0];
    if (trigger.some((id) => id.endsWith(".figure")) && dot && dot[0]) return Math.min(dot[0], maxB);
    const usePos = trigger.some((id) => id.endsWith(".drag_value")) ? dragPos ?? pos : pos;
    return Math.min(toBatch(usePos ?? 3), maxB);
  }

  function explorerValues(dragPos, pos, figure, maxNow) {
    const none = Array(13).fill(NO());
    const trace = figure && figure.data && figure.data[0];
    const meta = (figure && figure.layout && figure.layout.meta) || {};
    if (!trace || !trace.customdata || !trace.customdata.length) {
      paintTime(meta, null, true); // the bars say why there are none
      return ["—", "—", "—", "—", NO(), NO(), NO(), NO(), "—", "—", "", "", ""];
    }
    const maxPos = Math.log2(trace.customdata[trace.customdata.length - 1][0]);
    const dot = figure.data[1];
    const b = dotBatch(dragPos, pos, figure);
    const p = pointAt(trace, b);
    // The regime sentence is the server's, for the batch it drew: it waits for the redraw while a drag runs.
    const server = [meta.priceNote || "", meta.regime || "", meta.goodput || ""];
    if (anim.running) return [...none.slice(0, 10), ...server]; // the animation owns the dot and the readouts
    // The server draws the dot at the chosen batch: patching it again would repaint Figure 6 a second
    // time after every control change (about 40 ms), so only a dot that is elsewhere is moved.
    const placed = dot && dot.x && dot.x[0] === p.x && dot.y[0] === p.y && dot.customdata[0][0] === p.b;
    let move = NO();
    if (!placed) {
      const patch = new window.dash_clientside.Patch();
      patch.assign(["data", 1, "x"], [p.x]).assign(["data", 1, "y"], [p.y]);
      patch.assign(["data", 1, "customdata"], [[p.b, p.itl, p.rho, p.regime]]);
      const regime = meta.regimes && meta.regimes[p.regime];
      if (regime) patch.assign(["data", 1, "marker", "color"], regime.colour);
      const theirs = window.inferxCompare && window.inferxCompare.dotOfA(figure, p.b);
      if (theirs) {
        patch.assign(["data", theirs.index, "x"], theirs.x).assign(["data", theirs.index, "y"], theirs.y);
        patch.assign(["data", theirs.index, "customdata"], theirs.customdata);
      }
      move = patch.build();
    }
    paintRegime(p, meta);
    paintBoth(meta, p.b);
    paintTime(meta, p.b, true);
    const sameMax = maxPos === maxNow; // the slider re-renders on every new max or marks
    const marks = [sameMax ? NO() : maxPos, sameMax ? NO() : batchMarks(maxPos)];
    return [...readoutTexts(p, meta), ...marks, move, ...economyTexts(p, meta), ...server];
  }

  /* A callback's outputs set one by one, only those whose value differs from the store's, then no output at
     all: Dash makes a store update of every output, no_update or unchanged included, and each store update
     has every component of the page re-check its props. The explorer runs on every step of a batch drag. */
  function setChanged(values) {
    const api = window.dash_component_api;
    window.dash_clientside.callback_context.outputs_list.forEach((out, k) => {
      const v = values[k];
      if (v === NO()) return;
      const prop = out.property.split("@")[0]; // allow_duplicate outputs carry "@hash"
      const layout = api.getLayout(out.id);
      const now = layout && layout.props ? layout.props[prop] : undefined;
      const object = typeof v === "object" && v !== null; // marks, or a Patch (always applied)
      const same = object ? !v.__dash_patch_update && JSON.stringify(now) === JSON.stringify(v) : now === v;
      if (!same) window.dash_clientside.set_props(out.id, { [prop]: v });
    });
    throw window.dash_clientside.PreventUpdate;
  }

  window.inferx = {
    /* The line over the figures and its button follow the Physics control (the words are the server's, in the
       banner's data attributes: pages/_cards.mode_banner). */
    modeBanner: (mode, lines, flips) => [JSON.parse(lines)[mode], JSON.parse(flips)[mode]],
    flipMode: (_clicks, mode) => (mode === "calibrated" ? "article" : "calibrated"),

    // A log2 slider's position to its value: assets/a11y.js says a thumb's value with it; the benchmark and
    // the browser tests read a control's value (its widget holds the position) with controlValue.
    fromPosition: fromPosition,
    shownDecimals: shownDecimals,
    counted: counted,
    controlValue: (name, v) => controlValue(name, v, uiConfig()),

    /* A control moved: the address follows, and the whole control state goes to the server now or after
       the request in flight. */
    controlsChanged: function (...args) {
      const cfg = args.pop();
      const pinned = args.pop() ?? null; // the pinned scenario A, where the page has one
      const batchPos = args.pop() ?? null; // undefined where the page has no explorer
      const fired = window.dash_clientside.callback_context.triggered.map((t) => t.prop_id);
      sliderLabels(args, fired, cfg);
      followAddress(args, batchPos, pinned, cfg);
      // A page without the registry's figures (/inferencex) draws through its own callback: nothing to ask for.
      if (!pageFigures().length) throw window.dash_clientside.PreventUpdate;
      const request = { values: args, batch: batchPos, batchOnly: fired.every((id) => id.startsWith(`${cfg.batchId}.`)) };
      if (pinned) request.pinned = pinned;
      redraws.explorer = `fig${cfg.explorerGraph.slice(4)}`;
      redraws.last = { ...request };
      const sent = sendRedraw(request);
      // Nothing to send (a request is in flight): no output at all, since even a no_update output costs
      // Dash a store update that every component on the page re-checks, on every step of a drag.
      if (!sent) throw window.dash_clientside.PreventUpdate;
      return sent;
    },

    // Read by assets/compare.js: A's point at the dot's batch, in the readouts' own words.
    pointAt: pointAt,
    dotBatch: dotBatch,
    formats: { ...fmt, money: money },

    /* The redraw's figures (by name) to the graphs of the page (by pattern id): those in view now, the others
       when they come into view or the page is idle. */
    showFigures: function (updates, ids) {
      redrawAnswered(updates);
      // Each figure goes to its graph by set_props, and the callback itself updates nothing: Dash turns every
      // output of a callback, no_update included, into a store update that each component of the page
      // re-checks, and this callback has one output per graph.
      (ids || []).forEach(({ fig }) => {
        const figure = updates && updates[fig];
        if (!figure) return;
        const el = wrapperOf(fig);
        if (!el || nearView(el)) {
          lazy.waiting.delete(fig);
          window.dash_clientside.set_props({ role: "figure", fig: fig }, { figure });
        } else {
          lazy.waiting.set(fig, { figure, el });
        }
      });
      if (updates && (lazy.waiting.size || lazy.stale.size)) drawWaitingWhenIdle();
      throw window.dash_clientside.PreventUpdate;
    },

    /* On a page's opening: the address it opened with, if it is the Dashboard or /inferencex, then its
       Dashboard and InferenceX links with the scenario this tab last showed. */
    scenarioLinks: function () {
      rememberScenario();
      const links = new Map(scenarioLinks());
      return NAV_LINKS.map((id) => links.get(id) || NO());
    },

    /* GPUs a page's address carries (pages/_controls.carried_gpu), added to the GPU table applyMachine reads. */
    learnGpus: function (carried, cfg) {
      if (!carried || !cfg) return NO();
      return Object.assign({}, cfg, { gpus: Object.assign({}, cfg.gpus, carried) });
    },

    /* The preset's values for the controls it sets (cfg.presetControls, from the parameters' declarations). */
    applyPreset: function (preset, gpu, gpus, ic, cfg) {
      const ctx = window.dash_clientside.callback_context;
      const fired = ctx && ctx.triggered_id;
      if (fired && fired !== `${cfg.prefix}preset`) {
        // The machine picked by hand: the shortcut that names it, else Custom (scenario.machines.shortcut_of).
        const named = shortcutOf(cfg, gpu, gpus, ic);
        return [...cfg.presetControls.map(NO), named !== preset ? named : NO()];
      }
      if (preset === cfg.custom) {
        // Custom keeps the machine; on one of the article's machines the menu names its shortcut again.
        const named = shortcutOf(cfg, gpu, gpus, ic);
        return [...cfg.presetControls.map(NO), named !== preset ? named : NO()];
      }
      const p = cfg.presets[preset];
      return [...cfg.presetControls.map((name) => (p ? positionOf(name, p[name], cfg) : NO())), NO()];
    },

    /* A GPU and count: the preset's own values when the preset is that machine, else the catalog's (or a carried
       GPU's) per-GPU values times the count (the same products scenario.machine_values takes). */
    applyMachine: function (gpu, gpus, preset, wdtype, cfg, carried) {
      const p = articleMachine(cfg, gpu, gpus);
      const at = (name, v) => positionOf(name, v, cfg);
      if (p) return cfg.machineControls.map((name) => at(name, p[name]));
      const one = cfg.gpus[gpu] || (carried && carried[gpu]); // a datasheet's GPU, before learnGpus has run
      if (!one || !Number.isInteger(gpus)) return cfg.machineControls.map(NO);
      const per = { bw: one.bw, hbm: one.hbm, compute: one.compute[wdtype] };
      return cfg.machineControls.map((name) => (per[name] === undefined ? NO() : at(name, per[name] * gpus)));
    },

    /* A weight format chosen on a GPU chosen by hand sets dense compute to that GPU's peak at the format, as
       choosing the GPU after the format does (resolve_params reads the format first either way). On the
       preset's own machine the preset's compute stays, as on the server. */
    formatCompute: function (wdtype, gpu, gpus, preset, cfg, carried) {
      if (articleMachine(cfg, gpu, gpus)) return NO();
      const machine = window.inferx.applyMachine(gpu, gpus, preset, wdtype, cfg, carried);
      return machine[cfg.machineControls.indexOf("compute")];
    },

    /* A GPU chosen by hand takes its default link (scenario.machines.default_link): the article's on the
       article's GPUs, so each of its machines is one answer however it is picked; its own scale-up link (its
       datasheet's) otherwise: an L40S has PCIe, not NVLink 4.0. A preset sets its GPU and link together. */
    ownLink: function (gpu, preset, cfg) {
      if (!gpu) return NO();
      return (cfg.defaultLinks && cfg.defaultLinks[gpu]) || cfg.scaleUp;
    },

    /* A GPU count chosen by hand sets TP to the largest power of two within it (scenario.machines.machine_tp). */
    fitTp: function (gpus, tp) {
      if (!Number.isInteger(gpus) || gpus < 1) return NO();
      const fitted = Math.pow(2, Math.floor(Math.log2(gpus)));
      return fitted === tp ? NO() : fitted;
    },

    /* A named workload sets the input and output sliders and the context (isl + osl/2); input or output moved
       by hand away from the workload's makes it custom (scenario.machines.resolve_params does the same). */
    workloadChanged: function (workload, islPos, oslPos, cfg) {
      const ctx = window.dash_clientside.callback_context;
      const fired = ctx && ctx.triggered_id;
      const named = cfg && cfg.workloads && cfg.workloads[workload];
      if (!named) return [NO(), NO(), NO(), NO()];
      const at = (name, v) => positionOf(name, v, cfg);
      if (fired === `${cfg.prefix}workload`) return [NO(), at("isl", named[0]), at("osl", named[1]), at("ctx", named[2])];
      const isl = controlValue("isl", islPos, cfg);
      const osl = controlValue("osl", oslPos, cfg);
      return isl === named[0] && osl === named[1] ? [NO(), NO(), NO(), NO()] : ["custom", NO(), NO(), NO()];
    },

    explorer: function (dragPos, pos, figure, maxNow) {
      return setChanged(explorerValues(dragPos, pos, figure, maxNow));
    },

    toggleAnimation: function (n, cfg) {
      if (anim.running) {
        stopAnimation();
        return "Animate";
      }
      startAnimation(cfg);
      return "Stop";
    },

    /* A control the catalog search reads moved (pages/_search.py): search again, once the button has run one. */
    searchAgain: function (...args) {
      if (!args.pop()) throw window.dash_clientside.PreventUpdate; // not searched yet: no request
      return Date.now();
    },

    copyLink: function () {
      writeAddress(); // a change of the last moment is in the link too
      return window.location.href;
    },
  };
})();
