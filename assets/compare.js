/* The explorer's readouts against the pinned scenario A (pages/_compare.py): A's value at the dot's batch
   and the current value's signed change from it, read from A's frontier in the explorer's figure. */
(function () {
  "use strict";
  const KEYS = ["throughput", "ttft", "itl", "rho", "cost", "energy"];

  /* "+23.4 % vs A: 9,876 tok/s": how far the current value is from A's, in per cent of A's (a colon, not
     brackets: utilisation's own text has them). */
  function against(now, theirs, text) {
    if (!(Number.isFinite(now) && Number.isFinite(theirs))) return "";
    if (theirs === 0) return `vs A: ${text}`;
    const d = (100 * (now - theirs)) / theirs;
    const size = Math.abs(d) < 10 ? Math.abs(d).toFixed(1) : Math.round(Math.abs(d)).toLocaleString("en-US");
    const sign = size === "0.0" ? "±" : d > 0 ? "+" : "−";
    return `${sign}${size} % vs A: ${text}`;
  }

  /* Cost per million tokens and tokens per joule at a point of the frontier, from a machine's $/hour and the
     watts it draws there (the point's, else the meta's). */
  function economy(p, meta) {
    const watts = p.watts > 0 ? p.watts : meta && meta.watts;
    if (!meta || !meta.usdPerHour || !watts || !(p.x > 0)) return [NaN, NaN];
    const x = meta.tput && meta.tput.perGpu ? p.x * meta.tput.gpus : p.x; // an instance's tokens/s
    return [(1e6 * meta.usdPerHour) / (3600 * x), x / watts];
  }

  /* Where A's traces start in a figure (or a graph div: both have data and layout), or null without A. */
  function pinOf(figure) {
    return (figure && figure.layout && figure.layout.meta && figure.layout.meta.pinned) || null;
  }

  /* A's frontier and dot in a figure, or null without A. */
  function pinnedTraces(figure) {
    const data = figure && figure.data;
    const pin = pinOf(figure);
    if (!pin || !data || !data[0] || !data[pin.first]) return null;
    const mine = data[0];
    const theirs = data[pin.first];
    if (!mine.customdata || !mine.customdata.length || !theirs.customdata || !theirs.customdata.length) {
      return null;
    }
    return { pin, mine, theirs, dot: pin.first + 1 };
  }

  /* A pinned but with nothing drawn: its model does not fit its machine (inferx/figures/compare.py `merge`). */
  function drawsNothing(figure) {
    const data = figure && figure.data;
    const pin = pinOf(figure);
    return !!pin && Array.isArray(data) && data.length > 0 && data.length <= pin.first;
  }

  /* The readouts against A at batch b, in the order of KEYS. */
  function textsAt(b, figure) {
    const found = pinnedTraces(figure);
    if (!found) return KEYS.map((_, i) => (i === 0 && drawsNothing(figure) ? "A does not fit its machine" : ""));
    const { pin, mine, theirs } = found;
    const meta = figure.layout.meta;
    const edge = theirs.customdata[theirs.customdata.length - 1][0];
    if (b > edge) {
      return [`A stops at B = ${edge.toLocaleString("en-US")}, its B_max`, "", "", "", "", ""];
    }
    const inferx = window.inferx;
    const f = inferx.formats;
    const p = inferx.pointAt(mine, b);
    const a = inferx.pointAt(theirs, b);
    const [costNow, energyNow] = economy(p, meta);
    const [costA, energyA] = economy(a, pin);
    return [
      // In the unit of the axis and the readout above it (per instance or per GPU).
      against(p.x, a.x, meta.tput ? `${Math.round(a.x).toLocaleString("en-US")} ${meta.tput.unit}` : f.throughput(a.x)),
      against(p.y, a.y, f.ms(a.y)),
      against(p.itl, a.itl, f.ms(a.itl)),
      against(p.rho, a.rho, f.rho(a.rho)),
      against(costNow, costA, Number.isFinite(costA) ? f.money(costA) : ""),
      against(energyNow, energyA, Number.isFinite(energyA) ? `${energyA.toPrecision(3)} tok/J` : ""),
    ];
  }

  /* Unpin disables itself, which drops the keyboard's focus to the page's start: focus goes to Pin as A first. */
  document.addEventListener("click", (e) => {
    if (!e.target.closest || !e.target.closest("#unpin-a")) return;
    const pin = document.getElementById("pin-a");
    if (pin) pin.focus({ preventScroll: true });
  });

  window.inferxCompare = {
    KEYS: KEYS,
    textsAt: textsAt,

    /* A's dot at batch b (at A's B_max past it): its trace index and point, or null without A. */
    dotOfA: function (figure, b) {
      const found = pinnedTraces(figure);
      if (!found || !figure.data[found.dot]) return null;
      const cd = found.theirs.customdata;
      const p = window.inferx.pointAt(found.theirs, Math.min(b, cd[cd.length - 1][0]));
      return { index: found.dot, x: [p.x], y: [p.y], customdata: [[p.b, p.itl, p.rho, p.regime]] };
    },

    differences: function (dragPos, pos, figure) {
      if (!pinnedTraces(figure)) return textsAt(0, figure); // no A frontier: no batch to read it at
      return textsAt(window.inferx.dotBatch(dragPos, pos, figure), figure);
    },
  };
})();
