/* Colour theme and print layout, and the figures' colours to match.

   The theme is the address's `theme=light|dark|auto` (an embed in a dark wiki asks for dark), else the reader's
   choice from the navbar (kept in localStorage; never on /embed/ pages, which keep no storage), else the
   system's prefers-color-scheme. Bootstrap 5.3 restyles itself from <html data-bs-theme>, style.css from the
   same attribute. The server's figures are theme-free (the same JSON for every reader); this file recolours
   them (and compacts them in a narrow graph) on their way into Plotly, so a figure is drawn once, already in
   the page's colours. */
(function () {
  "use strict";
  const KEY = "inferx-theme";
  const CHOICES = ["light", "dark", "auto"];
  const embedded = /\/embed\//.test(window.location.pathname);
  const systemDark = window.matchMedia("(prefers-color-scheme: dark)");
  const printMedia = window.matchMedia("print");
  // A4 or Letter, portrait, inside the 15 mm margins of style.css's @page (680 px) and a card's padding: the width
  // a printed figure is drawn at (at 680 px the right edge of every figure was cut off by its card).
  const PRINT_WIDTH = 640;

  const state = { choice: "auto", theme: "light", printing: false };

  function fromAddress() {
    const t = new URLSearchParams(window.location.search).get("theme");
    return CHOICES.includes(t) ? t : null;
  }

  function stored() {
    if (embedded) return null;
    try {
      const t = window.localStorage.getItem(KEY);
      return CHOICES.includes(t) ? t : null;
    } catch (e) {
      return null; // storage blocked (a sandboxed frame, strict privacy settings): follow the system
    }
  }

  function store(choice) {
    if (embedded) return;
    try {
      if (choice === "auto") window.localStorage.removeItem(KEY);
      else window.localStorage.setItem(KEY, choice);
    } catch (e) {
      /* not remembered, still applied */
    }
  }

  /* --- Colours: any CSS colour to [r, g, b, a], and a colour moved towards the text colour until it reads. --- */
  const parsed = new Map();
  let probe = null;
  function rgba(colour) {
    if (typeof colour !== "string") return null;
    if (parsed.has(colour)) return parsed.get(colour);
    if (!probe) {
      probe = document.createElement("span");
      probe.style.display = "none";
      document.body.appendChild(probe);
    }
    probe.style.color = "";
    probe.style.color = colour;
    const m = probe.style.color && getComputedStyle(probe).color.match(/[\d.]+/g);
    const value = m ? [+m[0], +m[1], +m[2], m[3] === undefined ? 1 : +m[3]] : null;
    parsed.set(colour, value);
    return value;
  }

  function luminance([r, g, b]) {
    const lin = (c) => ((c /= 255) <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4));
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  }

  function contrast(a, b) {
    const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (hi + 0.05) / (lo + 0.05);
  }

  /* `colour` if it has `ratio` contrast on `ground`, else the first blend towards `towards` that has. A grey
     is always mirrored first (black becomes near-white), so the figure's emphasised line stays the emphasised
     one and the grey ramp of an ordered parameter (inferx.palette.RAMP) keeps its order; a coloured note keeps
     its hue. */
  const legibleCache = new Map();
  function legible(colour, ground, towards, ratio) {
    const key = `${colour}|${ground}|${ratio}`;
    if (legibleCache.has(key)) return legibleCache.get(key);
    let c = rgba(colour);
    const g = rgba(ground);
    const t = rgba(towards);
    let out = colour;
    const grey = c && c[3] > 0.5 && Math.max(c[0], c[1], c[2]) - Math.min(c[0], c[1], c[2]) <= 24;
    if (grey && g && t && luminance(g) < 0.2) {
      c = [255 - c[0], 255 - c[1], 255 - c[2], c[3]].map((v, i) => (i < 3 ? Math.min(v, t[i]) : v));
      out = `rgba(${c.join(",")})`;
    }
    if (c && g && t && c[3] > 0.5 && contrast(c, g) < ratio) {
      for (let f = 0; f <= 1.0001 && contrast(c, g) < ratio; f += 0.1) {
        const mix = [0, 1, 2].map((i) => Math.round(c[i] + f * (t[i] - c[i])));
        out = `rgba(${mix.join(",")},${c[3]})`;
        if (contrast(mix, g) >= ratio) break;
      }
    }
    legibleCache.set(key, out);
    return out;
  }

  /* A band on the dark card. A grey haze on white is mirrored into a light haze; a coloured one (the queue's
     orange, Figure 9's crimson gap) is made more opaque until it stands out from the dark card as much as it
     does from white: at the same alpha the crimson gap all but vanished (1.08:1 against 1.33:1). */
  const MAX_DARK_FILL_ALPHA = 0.5;
  const fillCache = new Map();
  function darkFill(colour, surface) {
    const key = `${colour}|${surface}`;
    if (fillCache.has(key)) return fillCache.get(key);
    const c = rgba(colour);
    const g = rgba(surface);
    let out = colour;
    if (c && g) {
      if (Math.max(c[0], c[1], c[2]) - Math.min(c[0], c[1], c[2]) <= 24) {
        if (luminance(c) <= 0.2) out = `rgba(${255 - c[0]},${255 - c[1]},${255 - c[2]},${c[3]})`;
      } else if (c[3] < 1) {
        const over = (ground, a) => [0, 1, 2].map((i) => a * c[i] + (1 - a) * ground[i]);
        const wanted = contrast(over([255, 255, 255], c[3]), [255, 255, 255]);
        let a = c[3];
        while (a < MAX_DARK_FILL_ALPHA && contrast(over(g, a), g) < wanted) a = Math.min(a + 0.02, MAX_DARK_FILL_ALPHA);
        if (a > c[3]) out = `rgba(${c[0]},${c[1]},${c[2]},${a.toFixed(2)})`;
      }
    }
    fillCache.set(key, out);
    return out;
  }

  /* The plot colours of the dark theme, from style.css's variables (one place for the palette); read once per
     theme change, not on every redraw of a drag. */
  let paletteCache = null;
  function palette() {
    if (paletteCache) return paletteCache;
    const css = getComputedStyle(document.documentElement);
    const v = (name) => css.getPropertyValue(name).trim();
    return (paletteCache = {
      surface: v("--ix-surface"),
      text: v("--ix-plot-text"),
      muted: v("--ix-muted"),
      grid: v("--ix-plot-grid"),
      zero: v("--ix-plot-zero"),
    });
  }

  function axisNames(layout, data) {
    const names = new Set(["xaxis", "yaxis"]);
    Object.keys(layout || {}).forEach((k) => /^[xy]axis\d*$/.test(k) && names.add(k));
    (data || []).forEach((t) => {
      if (t && t.xaxis) names.add(`xaxis${t.xaxis.slice(1)}`);
      if (t && t.yaxis) names.add(`yaxis${t.yaxis.slice(1)}`);
    });
    return names;
  }

  const dark = () => state.theme === "dark" && !state.printing;

  /* A dark copy of a figure's layout (the original, the dcc.Graph's prop, is not touched). */
  function darkLayout(layout, data) {
    const c = palette();
    const out = Object.assign({}, layout);
    const text = (colour) => (colour ? legible(colour, c.surface, c.text, 4.5) : colour);
    out.paper_bgcolor = c.surface;
    out.plot_bgcolor = c.surface;
    out.font = Object.assign({}, layout.font, { color: c.text });
    axisNames(layout, data).forEach((name) => {
      out[name] = Object.assign({}, layout[name], { gridcolor: c.grid, zerolinecolor: c.zero, linecolor: c.zero });
    });
    const legend = Object.assign({ bgcolor: "rgba(0,0,0,0)" }, layout.legend);
    if (legend.font && legend.font.color) legend.font = Object.assign({}, legend.font, { color: text(legend.font.color) });
    out.legend = legend;
    out.modebar = Object.assign({}, layout.modebar, { bgcolor: "rgba(0,0,0,0)", color: c.muted, activecolor: c.text });
    if (Array.isArray(layout.annotations)) {
      out.annotations = layout.annotations.map((a) => {
        const b = Object.assign({}, a);
        if (a.font && a.font.color) b.font = Object.assign({}, a.font, { color: text(a.font.color) });
        if (a.bgcolor) b.bgcolor = c.surface;
        if (a.arrowcolor) b.arrowcolor = legible(a.arrowcolor, c.surface, c.text, 3);
        return b;
      });
    }
    // Plotly paints the active menu button a fixed near-white (#F4FAFF) whatever the menu's colours, so in the
    // layout (what an exported image shows) the buttons stay light chips with dark text; on screen style.css
    // draws them dark.
    if (Array.isArray(layout.updatemenus)) {
      out.updatemenus = layout.updatemenus.map((m) =>
        Object.assign({}, m, {
          bgcolor: "#c9d1da",
          bordercolor: c.zero,
          font: Object.assign({}, m.font, { color: "#16191d" }),
        })
      );
    }
    if (Array.isArray(layout.shapes)) {
      out.shapes = layout.shapes.map((s) => {
        const b = Object.assign({}, s);
        if (s.line && s.line.color) b.line = Object.assign({}, s.line, { color: legible(s.line.color, c.surface, c.text, 3) });
        if (s.fillcolor) b.fillcolor = darkFill(s.fillcolor, c.surface);
        return b;
      });
    }
    return out;
  }

  /* Dark copies of traces whose line, marker or text colour would vanish on the dark card (3:1, as WCAG asks
     of graphics); trace arrays are shared, not copied. */
  const PINNED_GROUP = "pinned-A"; // inferx.compare's legend group of A's traces
  const DARK_PINNED_OPACITY = 0.75;
  // One of A's traces with a legend entry of its own (one that coincides with a current curve is not drawn).
  const listedA = (t) => !!t && t.legendgroup === PINNED_GROUP && t.showlegend !== false && t.visible !== false;
  function darkData(data) {
    if (!Array.isArray(data)) return data;
    const c = palette();
    const fix = (obj, key, ratio) => {
      const v = obj && obj[key];
      if (typeof v !== "string") return null;
      const w = legible(v, c.surface, c.text, ratio);
      return w === v ? null : Object.assign({}, obj, { [key]: w });
    };
    return data.map((t) => {
      if (!t) return t;
      let out = t;
      const line = fix(t.line, "color", 3);
      const marker = fix(t.marker, "color", 3);
      const textfont = fix(t.textfont, "color", 4.5);
      const fill = typeof t.fillcolor === "string" && darkFill(t.fillcolor, c.surface) !== t.fillcolor;
      // A pinned A's faded curves at half opacity: a grey one all but vanished on the dark card.
      const faded = t.legendgroup === PINNED_GROUP && t.opacity < DARK_PINNED_OPACITY;
      if (line || marker || textfont || fill || faded) out = Object.assign({}, t);
      if (faded) out.opacity = DARK_PINNED_OPACITY;
      if (fill) out.fillcolor = darkFill(t.fillcolor, c.surface);
      if (line) out.line = line;
      if (marker) out.marker = marker;
      if (textfont) out.textfont = textfont;
      return out;
    });
  }

  /* A narrow graph (a phone, a small iframe): smaller type, and a legend below the plot moved above it, where
     it cannot run into the x-axis title (a paper-relative offset under a short plot did) and leaves the whole
     height to the y-axis title (Figure 8's was cut off at 420 px). */
  const NARROW = 576;
  const narrow = (el) => !!el && el.clientWidth > 0 && el.clientWidth < NARROW;
  /* A short graph (a frame a few hundred pixels tall) keeps its legend under the plot, but a pinned A's
     entries become one, as on a narrow graph: a legend title and a second row of A's entries pushed the plot
     to Plotly's 64 px minimum and the legend onto the x-axis title (Figure 6 in a 600×450 frame). */
  const SHORT = 320;
  const short = (el) => !!el && el.clientHeight > 0 && el.clientHeight < SHORT && !narrow(el) && !state.printing;
  /* A graph under MENU_ROOM px tall (a small frame's) drops the log/linear x buttons above its plot and the top
     margin they took: in a 480×360 frame they left the explorer a plot 40 px tall. The figure keeps the scale
     its data ask for (inferx.figures.curves.x_scale_toggle). */
  const MENU_ROOM = 300;
  const MENU_MARGIN = 16; // px: a figure's top margin without the buttons (inferx.figures.style.plot_layout)
  function withoutMenus(layout, el) {
    const menus = Array.isArray(layout.updatemenus) && layout.updatemenus.some((m) => !(m.y < 1));
    if (!menus || !el || !(el.clientHeight > 0) || el.clientHeight >= MENU_ROOM || state.printing) return layout;
    const margin = Object.assign({}, layout.margin, { t: MENU_MARGIN });
    return Object.assign({}, layout, { updatemenus: [], margin });
  }
  const oneEntryForA = (layout, data) =>
    !!(layout.legend && layout.legend.title && layout.legend.title.text) && (data || []).some(listedA);

  /* A long note in lines of about `chars` characters (Plotly does not wrap annotations); each of its own lines
     (a note per curve that cannot be drawn, Figures 7 and 9) wrapped apart. */
  const shownText = (text) => text.replace(/<[^>]+>/g, ""); // what a reader sees of a text: B<sub>max</sub> is 4
  function wrapped(text, chars) {
    if (typeof text !== "string" || shownText(text).length <= chars) return text;
    return text
      .split(/<br\s*\/?>/)
      .map((line) => {
        const lines = [""];
        line.split(" ").forEach((word) => {
          const last = lines.length - 1;
          if (lines[last] && shownText(lines[last]).length + shownText(word).length + 1 > chars) lines.push(word);
          else lines[last] = lines[last] ? `${lines[last]} ${word}` : word;
        });
        return lines.join("<br>");
      })
      .join("<br>");
  }

  /* Notes (paper-placed, no arrow, long enough to wrap) wrapped to the plot's width at any graph width, the
     layout itself where none needs it: a 600 px frame is not narrow, yet Figure 7's one-line note covered the
     y axis's labels. The graph keeps the widths it wrapped for, so a resize that changes them redraws it. */
  const isNote = (a) =>
    !!a && a.showarrow === false && a.xref === "paper" && typeof a.text === "string" && shownText(a.text).length > 20;
  const noteChars = (a, el) =>
    Math.max(20, Math.floor((el.clientWidth - 100) / (0.6 * ((a.font && a.font.size) || 12))));
  const notesKey = (layout, el) => (layout.annotations || []).filter(isNote).map((a) => noteChars(a, el)).join();
  function fittedNotes(layout, el) {
    if (!el || !el.clientWidth || !Array.isArray(layout.annotations)) return layout;
    const key = notesKey(layout, el);
    if (el.dataset.notesKey !== key) el.dataset.notesKey = key;
    if (!key) return layout;
    let changed = false;
    const annotations = layout.annotations.map((a) => {
      if (!isNote(a)) return a;
      const text = wrapped(a.text, noteChars(a, el));
      if (text === a.text) return a;
      changed = true;
      return Object.assign({}, a, { text });
    });
    return changed ? Object.assign({}, layout, { annotations }) : layout;
  }

  /* The plot's height in pixels as last drawn, else the graph's less its margins and `guess` more (a legend
     or buttons above it; a first draw is checked after, `settle`). */
  function plotHeight(el, layout, guess = 0) {
    const drawn = el._fullLayout && el._fullLayout._size;
    const margin = layout.margin || {};
    return drawn ? drawn.h : el.clientHeight - (margin.t || 0) - (margin.b || 0) - guess;
  }

  /* Labels hung under a level line's left end (Figure 2's ceilings: a name, then its value) that a short plot
     would stack on one another keep their first line, the name: the value is the line's height on the y axis.
     The lines' gap in pixels is read from the plot's height as last drawn, else guessed (a first draw is
     checked after, `settle`); `el.dataset.levels` keeps the labels cut, so a resize can tell when it changes. */
  const isLevel = (a) =>
    !!a && a.xref === "paper" && a.yref === "y" && a.yanchor === "top" && !a.xshift &&
    typeof a.text === "string" && a.text.includes("<br>");
  function levelCuts(layout, el) {
    const anns = layout.annotations;
    const axis = (el._fullLayout && el._fullLayout.yaxis) || layout.yaxis;
    if (!Array.isArray(anns) || !axis || !Array.isArray(axis.range)) return [];
    const span = axis.range[1] - axis.range[0]; // annotations and ranges both in log10 on a log axis
    const plot = plotHeight(el, layout, 60);
    const levels = anns.map((a, i) => ({ a, i })).filter(({ a }) => isLevel(a)).sort((p, q) => q.a.y - p.a.y);
    const cuts = [];
    levels.slice(0, -1).forEach(({ a, i }, k) => {
      const size = (a.font && a.font.size) || (layout.font && layout.font.size) || 12;
      const tall = 1.3 * size * a.text.split("<br>").length + 2; // plotly's line height, and the box's padding
      if (((a.y - levels[k + 1].a.y) / span) * plot < tall) cuts.push(i);
    });
    return cuts;
  }
  function unstackedLevels(layout, el) {
    if (!el || !el.clientHeight || state.printing) return layout;
    const cuts = levelCuts(layout, el);
    el.dataset.levels = cuts.join();
    if (!cuts.length) return layout;
    const annotations = layout.annotations.map((a, i) =>
      cuts.includes(i) ? Object.assign({}, a, { text: a.text.split("<br>")[0] }) : a
    );
    return Object.assign({}, layout, { annotations });
  }
  const levelsAstray = (gd) => {
    const fig = originals.get(gd);
    return !!fig && !state.printing && (gd.dataset.levels || "") !== levelCuts(fig.layout || {}, gd).join();
  };

  /* A horizontal legend under the plot moved above it (a copy), else the legend as it is. */
  function legendAbove(legend) {
    if (!legend || legend.orientation !== "h" || (legend.y !== undefined && legend.y >= 0)) return legend;
    return Object.assign({}, legend, { y: 1.02, yanchor: "bottom" });
  }

  /* Buttons above the plot (Figures 4 and 5's linear / log x) take the strip a legend moved above it lands in:
     the legend goes over them, a button row's height in pixels above the plot, as last drawn or guessed (a
     first draw is checked after, `settle`). */
  const MENU_ROW = 38; // the buttons are 33 px tall at 10 px type, from 1 % of the plot above it
  function overMenus(legend, layout, el) {
    const menus = Array.isArray(layout.updatemenus) && layout.updatemenus.some((m) => !(m.y < 1));
    if (!menus || !el) return legend;
    return Object.assign(legend, { y: 1 + MENU_ROW / Math.max(plotHeight(el, layout, 60), 80) });
  }

  // Plotly draws a legend when asked to, or by default for two or more traces that have an entry.
  const legendShown = (layout, data) =>
    layout.showlegend === true ||
    (layout.showlegend !== false && (data || []).filter((t) => t.showlegend !== false).length > 1);

  /* Y-axis titles in lines no longer than the plot is tall, at any width (a title running past the plot's ends
     met the tool bar on a phone, and was cut off over the short plot of a 640×480 frame): `el.dataset.titles`
     keeps them as drawn, so a first draw that guessed the height (too tall a guess where a legend lies above
     the plot) or a resize can tell when they change. `size`: the titles' type in px. */
  const COMPACT_TITLE = 11; // px: a compact graph's axis titles (compactLayout)
  function yTitles(layout, data, el, size) {
    const chars = Math.max(8, Math.floor(plotHeight(el, layout) / (0.6 * size)));
    const titles = {};
    axisNames(layout, data).forEach((name) => {
      const title = (layout[name] || {}).title;
      if (name.startsWith("y") && title && typeof title === "object") titles[name] = wrapped(title.text, chars);
    });
    return titles;
  }
  const titleSize = (layout) => (layout.font && layout.font.size) || 12;
  const titlesAstray = (gd) => {
    const fig = originals.get(gd);
    if (!fig || state.printing || gd.dataset.titles === undefined) return false;
    const layout = fig.layout || {};
    const size = gd.dataset.compact === "true" ? COMPACT_TITLE : titleSize(layout);
    return gd.dataset.titles !== JSON.stringify(yTitles(layout, fig.data, gd, size));
  };

  /* A graph at its full type with its y titles fitted to its plot's height (yTitles). */
  function fittedTitles(layout, data, el) {
    if (!el || !el.clientHeight) return layout;
    const titles = yTitles(layout, data, el, titleSize(layout));
    el.dataset.titles = JSON.stringify(titles);
    const changed = Object.keys(titles).filter((name) => titles[name] !== layout[name].title.text);
    if (!changed.length) return layout;
    const out = Object.assign({}, layout);
    changed.forEach((name) => {
      // The lines need more of the left margin than one did: Plotly widens it to fit them.
      const title = Object.assign({}, layout[name].title, { text: titles[name] });
      out[name] = Object.assign({}, layout[name], { title, automargin: true });
    });
    return out;
  }

  function compactLayout(layout, data, el) {
    const width = el.clientWidth;
    const out = Object.assign({}, layout);
    if (Array.isArray(layout.annotations)) {
      out.annotations = layout.annotations.map((a) => {
        // About 0.6 em a character, within the plot's width (the graph's less its margins): a 13 px note
        // wrapped for 11 px text ran off both sides of a phone.
        const size = (a.font && a.font.size) || 12;
        const text = wrapped(a.text, Math.max(20, Math.floor((width - 100) / (0.6 * size))));
        return text === a.text ? a : Object.assign({}, a, { text });
      });
    }
    const small = (font, size) => Object.assign({}, font, { size: Math.min((font && font.size) || size, size) });
    out.font = small(layout.font, 11);
    const titles = yTitles(layout, data, el, COMPACT_TITLE);
    el.dataset.titles = JSON.stringify(titles);
    axisNames(layout, data).forEach((name) => {
      const axis = Object.assign({}, layout[name]);
      if (axis.title && typeof axis.title === "object") {
        axis.title = Object.assign({}, axis.title, { font: small(axis.title.font, 11) });
        if (name in titles) axis.title.text = titles[name];
      }
      axis.tickfont = small(axis.tickfont, 10);
      out[name] = axis;
    });
    let legend = legendAbove(layout.legend);
    const title = legend && legend.title && legend.title.text;
    if (title && oneEntryForA(layout, data)) legend = untitled(legend);
    else if (title) {
      // A pinned A that draws nothing says so in the title alone: in lines the graph's width holds (Plotly does
      // not wrap it), at the legend's type size.
      const text = wrapped(title, Math.max(20, Math.floor((width - 70) / 6)));
      legend = Object.assign({}, legend, { title: Object.assign({}, legend.title, { text }) });
    }
    if (legend !== layout.legend) {
      out.legend = overMenus(tight(Object.assign(legend, { font: small(legend.font, 10) })), layout, el);
    }
    return cornerTools(out, legendShown(layout, data) ? "above" : "below", el);
  }

  /* A touch screen shows the tool bar all the time, where a compact graph's legend, now above the plot, would
     be, and over the labels at the top of any plot: keep only the image download and the reset (a finger
     zooms and pans the plot itself), side by side in a corner over the y axis's margin (style.css), `where`:
     "above", the top-left corner, which a legend above the plot, starting at the plot's left edge, leaves free
     (upright there, the bar reached down past the plot's top onto the y axis's title); "below", the bottom-left
     one, under the y axis's labels and left of the x axis's, where the plot starts right under the top one. */
  const CORNER_TOOLS = ["zoom2d", "pan2d", "select2d", "lasso2d", "zoomIn2d", "zoomOut2d", "autoScale2d"];
  function cornerTools(layout, where, el) {
    el.dataset.tools = where;
    return Object.assign({}, layout, { modebar: Object.assign({}, layout.modebar, { remove: CORNER_TOOLS, orientation: "h" }) });
  }
  const hoverless = window.matchMedia("(hover: none)");
  const touch = () => hoverless.matches;

  /* A's one entry says what A is (compactData). Plotly's own order back too: the comparison's "normal" order,
     there to flow A's entries on after the current ones, stacked Figure 10's entries (a legend group per
     regime) in a column that left its plot 64 px of a 480×360 frame. */
  const untitled = (legend) => Object.assign({}, legend, { title: { text: "" }, traceorder: undefined });
  /* A crowded legend's rows (a narrow graph's, a short one's with A's entries as one) closer: Plotly spaces
     its groups, and each entry without a group is one when A's entries have theirs, by 10 px, a row's worth
     in five over a short plot (Figure 8 with A pinned in a 480×360 frame). */
  const tight = (legend) => Object.assign(legend, { tracegroupgap: 0 });

  /* Legend entries too long for a narrow graph, in lines: Plotly neither wraps nor clips them, and the
     /inferencex band's name ran off the phone's edge. A trace's `meta.short`, where its figure gives one, names
     it there instead (Figure 10's six entries took four rows over a 69 px plot in a 480×360 frame). A pinned A's entries (inferx.compare: one legend group)
     become one, named by the legend's title: with A they doubled a legend that above a phone's plot took more
     room than the plot (Figure 2, twelve entries). Clicking it still shows or hides all of A. */
  function compactData(data, width, layout) {
    if (!Array.isArray(data)) return data;
    const chars = Math.max(20, Math.floor((width - 70) / 6)); // 10 px legend type after a 40 px swatch
    const title = layout.legend && layout.legend.title && layout.legend.title.text;
    const listed = (t) => title && listedA(t);
    // The entry's swatch is A's first curve (dashed), not a shaded band (a fill or a broad line behind curves).
    const thin = (t) => !t.fill && ((t.line && t.line.width) || 2) <= 4;
    const lines = data.filter((t) => listed(t) && String(t.mode || "lines").includes("lines") && thin(t));
    const shown = lines[0] || data.find(listed);
    return data.map((t) => {
      if (listed(t)) return Object.assign({}, t, t === shown ? { name: wrapped(title, chars) } : { showlegend: false });
      const name = t && wrapped((t.meta && t.meta.short) || t.name, chars);
      return name && name !== t.name ? Object.assign({}, t, { name }) : t;
    });
  }

  /* A legend under the plot sits a fixed distance in pixels below it, under the tick labels and the x-axis
     title: the figures' y = -0.22 of the plot's height left a gap of a hundred pixels under a tall graph and put
     the legend on the axis title under a short one (an 800×500 frame). Plotly makes room for the legend by
     shrinking the plot, so the distance is taken over the plot's height once the legend and the top margin
     (tool bar, menus) have theirs: as last drawn, else guessed (a first draw is checked after, `settle`). */
  const LEGEND_GAP = 60;
  function legendNear(layout, el, height) {
    const legend = layout.legend;
    const tall = height || (el && el.clientHeight);
    if (!legend || legend.orientation !== "h" || !(legend.y < 0) || !el || !tall) return layout;
    const drawn = el._fullLayout;
    const top = drawn && drawn._size ? drawn._size.t : (layout.margin || {}).t || 0;
    const rows = (drawn && drawn.legend && drawn.legend._height) || 30;
    const y = -LEGEND_GAP / Math.max(tall - top - LEGEND_GAP - rows, 40);
    return y === legend.y ? layout : Object.assign({}, layout, { legend: Object.assign({}, legend, { y }) });
  }

  /* --- Plotly: figures dressed on their way in. dcc.Graph calls Plotly.react(gd, {data, layout, ...}). --- */
  const originals = new WeakMap(); // graph div -> the theme-free {data, layout} it was last given
  let react = null;

  function themedArgs(gd, args) {
    const el = typeof gd === "string" ? document.getElementById(gd) : gd;
    const figureForm = args[0] && !Array.isArray(args[0]) && typeof args[0] === "object";
    const data = figureForm ? args[0].data : args[0];
    const sent = (figureForm ? args[0].layout : args[1]) || {};
    if (el) originals.set(el, { data, layout: sent });
    // On the x scale its user pressed, if they did (assets/scales.js).
    const given = window.inferxScales ? window.inferxScales.kept(el, sent) : sent;
    const layout = withoutMenus(unstackedLevels(given, el), el);
    const compact = narrow(el) && !state.printing;
    const merged = compact || (short(el) && oneEntryForA(layout, data));
    if (el) Object.assign(el.dataset, { compact, short: short(el) });
    let near = compact || state.printing ? layout : fittedTitles(fittedNotes(legendNear(layout, el), el), data, el);
    if (el && !compact) {
      // On a touch screen, its tool bar in a corner as a compact graph's is (compactLayout).
      if (touch()) near = cornerTools(near, "below", el);
      else delete el.dataset.tools;
    }
    if (merged && !compact) near = Object.assign({}, near, { legend: tight(untitled(near.legend)) });
    if (!dark() && !compact && near === sent) return args;
    let d = merged ? compactData(data, el.clientWidth, layout) : data;
    if (dark()) d = darkData(d);
    let l = compact ? compactLayout(layout, data, el) : near;
    if (dark()) l = darkLayout(l, data);
    return figureForm ? [Object.assign({}, args[0], { data: d, layout: l }), ...args.slice(1)] : [d, l, ...args.slice(2)];
  }

  function patch(Plotly) {
    if (!Plotly || Plotly.inferxThemed) return;
    react = Plotly.react;
    const newPlot = Plotly.newPlot;
    Plotly.react = function (gd, ...args) {
      return settle(react.call(this, gd, ...themedArgs(gd, args)));
    };
    Plotly.newPlot = function (gd, ...args) {
      return settle(newPlot.call(this, gd, ...themedArgs(gd, args)));
    };
    Plotly.inferxThemed = true;
  }

  if (window.Plotly) {
    patch(window.Plotly);
  } else {
    // plotly.js may load after this file: patch it the moment it is defined.
    let plotly;
    Object.defineProperty(window, "Plotly", {
      configurable: true,
      get: () => plotly,
      set: (value) => {
        plotly = value;
        patch(value);
      },
    });
  }

  /* A legend under the plot more than 2 px from where `legendNear` would put it now (the frame's height, or
     the legend's own, changed since it was placed), or one over a narrow graph's buttons from `overMenus`. */
  function legendAstray(gd) {
    const fig = originals.get(gd);
    const layout = gd.layout;
    if (!fig || !layout || !layout.legend || !gd._fullLayout || state.printing) return false;
    const compact = gd.dataset.compact === "true";
    const given = withoutMenus(fig.layout, gd);
    if (compact && !(given.updatemenus && given.updatemenus.length && given.legend && given.legend.y < 0)) return false;
    const near = compact ? overMenus(legendAbove(given.legend), given, gd) : legendNear(given, gd).legend;
    return !!near && Math.abs(near.y - layout.legend.y) * gd._fullLayout._size.h > 2;
  }

  /* A legend placed from a guess (a first draw) is placed again from what was drawn, up to `tries` times: a
     placement reads the heights the draw before it drew, so it stays, unless that draw changed them (a y title
     wrapped for the plot's height widened the left margin, and the legend under the plot took a second row). */
  function settle(drawing, tries = 2) {
    if (!drawing || typeof drawing.then !== "function") return drawing;
    return drawing.then((gd) => {
      if (gd && window.inferxScales) window.inferxScales.watch(gd);
      if (!gd || !tries || !(legendAstray(gd) || levelsAstray(gd) || titlesAstray(gd))) return gd;
      const fig = originals.get(gd);
      return settle(react.call(window.Plotly, gd, ...themedArgs(gd, [fig.data, fig.layout])), tries - 1);
    });
  }

  function graphs() {
    return Array.from(document.querySelectorAll(".js-plotly-plot"));
  }

  /* Every drawn graph again (or those `which` picks), in the current colours and width (theme, print or size
     changed). */
  function recolour(which = () => true) {
    if (!react) return;
    graphs().filter(which).forEach((gd) => {
      const fig = originals.get(gd);
      if (!fig || !gd._fullLayout) return;
      // On paper the legend goes above the plot too (no tool bar there): at the page's width a legend of two
      // rows under the plot ran into the x-axis title.
      const layout = state.printing
        ? Object.assign({}, fig.layout, { width: PRINT_WIDTH, legend: legendAbove(fig.layout.legend) })
        : fig.layout;
      const args = themedArgs(gd, [fig.data, layout]);
      originals.set(gd, fig); // the print width is not part of the figure
      react.call(window.Plotly, gd, ...args);
    });
  }

  /* A graph whose dress no longer fits its size: it crossed the narrow width (a rotated phone, a resized
     frame), its legend under the plot is no longer at its distance (a taller or shorter frame), or its level
     labels or y titles were fitted to another height. */
  function misfit(gd) {
    if (String(narrow(gd) && !state.printing) !== gd.dataset.compact || legendAstray(gd)) return true;
    if (String(short(gd)) !== gd.dataset.short || levelsAstray(gd) || titlesAstray(gd)) return true;
    const drawn = originals.get(gd);
    const key = drawn ? notesKey(drawn.layout || {}, gd) : "";
    return gd.dataset.compact === "false" && (gd.dataset.notesKey || "") !== key;
  }

  let resizeTimer = 0;
  window.addEventListener("resize", () => {
    window.clearTimeout(resizeTimer);
    resizeTimer = window.setTimeout(() => recolour(misfit), 250);
  });

  /* --- The navbar's Light / Dark / Auto buttons (event delegation: the router replaces the navbar). --- */
  function syncToggles() {
    document.querySelectorAll("button[data-theme-choice]").forEach((b) => {
      const on = String(b.dataset.themeChoice === state.choice);
      if (b.getAttribute("aria-pressed") !== on) b.setAttribute("aria-pressed", on);
    });
  }

  function apply() {
    state.theme = state.choice === "auto" ? (systemDark.matches ? "dark" : "light") : state.choice;
    const root = document.documentElement;
    const shown = state.printing ? "light" : state.theme;
    if (root.getAttribute("data-bs-theme") !== shown) root.setAttribute("data-bs-theme", shown);
    paletteCache = null;
    root.dataset.themeChoice = state.choice;
    if (document.body) syncToggles();
    recolour();
  }

  function choose(choice) {
    state.choice = choice;
    store(choice);
    // A theme in the address would otherwise win again on reload, and travel in copied links.
    const url = new URL(window.location.href);
    if (url.searchParams.has("theme")) {
      url.searchParams.delete("theme");
      window.history.replaceState(window.history.state, "", url.toString());
    }
    apply();
  }

  document.addEventListener("click", (e) => {
    const b = e.target.closest && e.target.closest("button[data-theme-choice]");
    if (b && CHOICES.includes(b.dataset.themeChoice)) choose(b.dataset.themeChoice);
  });
  systemDark.addEventListener("change", () => state.choice === "auto" && apply());
  window.addEventListener("storage", (e) => {
    // Another tab chose a theme.
    if (e.key === KEY && !fromAddress()) {
      state.choice = stored() || "auto";
      apply();
    }
  });

  /* --- Print: light colours, figures at the page's width. beforeprint comes before the print layout, so the
     width is a fixed one that fits A4 and Letter; the print media query also fires under emulation (PDF). --- */
  let printEvent = false; // between beforeprint and afterprint
  /* The printout's title block (pages/_cards.py print_head): the day and the address it is printed from. */
  function fillPrintHead() {
    const date = document.getElementById("print-date");
    const from = document.getElementById("print-url");
    if (date) date.textContent = new Date().toISOString().slice(0, 10);
    if (from) from.textContent = window.inferx && window.inferx.copyLink ? window.inferx.copyLink() : window.location.href;
  }
  function printChanged() {
    const on = printEvent || printMedia.matches;
    if (on) fillPrintHead();
    if (state.printing === on) return;
    state.printing = on;
    apply();
    if (!on && window.Plotly) graphs().forEach((gd) => gd._fullLayout && window.Plotly.Plots.resize(gd));
  }
  window.addEventListener("beforeprint", () => {
    printEvent = true;
    printChanged();
  });
  window.addEventListener("afterprint", () => {
    printEvent = false;
    printChanged();
  });
  printMedia.addEventListener("change", printChanged);

  // Toggles drawn by the router after a page change take the current state.
  new MutationObserver(() => syncToggles()).observe(document.documentElement, { childList: true, subtree: true });

  state.choice = fromAddress() || stored() || "auto";
  apply();

  window.inferxTheme = state; // read by the browser tests
  // A graph's layout with its legend placed for an image `height` px tall (assets/export.js).
  window.inferxLegendAt = (gd, height) => legendNear(gd.layout, gd, height);
})();
