/* The figure cards' downloads and the copy-link and copy-embed-code buttons, as plain elements with one listener for them all.

   pages/_export.py renders each download row as one empty element whose data-export spec says what to build:
   Dash's renderer has every component of the page re-check its props on each update of its store, many times
   per step of a slider drag, so rows of buttons, a size menu and status lines as Dash components cost every
   drag. CSV and JSON come from the app's export route, named after the scenario; for PNG and SVG the route
   answers the name only, and Plotly draws the graph again at the size chosen beside the buttons. */
(function () {
  "use strict";
  const DEFAULT = [1200, 675];
  const COPIED_MS = 1500;

  function element(tag, attrs, text) {
    const el = document.createElement(tag);
    Object.entries(attrs).forEach(([name, value]) => el.setAttribute(name, value));
    if (text) el.textContent = text;
    return el;
  }

  /* A row's buttons, size menu and status line, from its spec. React rendered the row empty and never touches
     its children, so they stay until the page is replaced (and the new page's rows are built again). */
  function build(row) {
    let spec;
    try {
      spec = JSON.parse(row.dataset.export);
    } catch (err) {
      return;
    }
    const parts = [element("span", { class: "export-label" }, "Download")];
    spec.buttons.forEach((b) => {
      const attrs = { type: "button", class: "btn btn-outline-secondary btn-sm", title: b.label, "aria-label": b.label };
      parts.push(element("button", { ...attrs, "data-export-kind": b.kind }, b.text));
    });
    const select = element("select", { id: spec.sizes.id, "aria-label": spec.sizes.label });
    spec.sizes.options.forEach((o, i) => {
      const option = element("option", { value: o.value }, o.text);
      option.selected = i === 0;
      select.appendChild(option);
    });
    parts.push(select, element("span", { class: "export-status", role: "status" }));
    row.replaceChildren(...parts);
  }

  /* A card's copy-embed-code button gets a status line beside it, as the share row's buttons have one: in the
     page before any copy, so that a screen reader announces what the copy then writes there. */
  function addCopyStatus(button) {
    const next = button.nextElementSibling;
    if (next && next.classList.contains("share-status")) return;
    button.after(element("span", { class: "share-status visually-hidden", role: "status" }));
  }

  function buildRows() {
    document.querySelectorAll(".export-tools[data-export]:empty").forEach(build);
    document.querySelectorAll(".card-head > .copy-btn").forEach(addCopyStatus);
  }

  // Dash renders the page after this script has run, and renders a new one on each navigation.
  let pending = false;
  new MutationObserver(() => {
    if (pending) return;
    pending = true;
    window.requestAnimationFrame(() => {
      pending = false;
      buildRows();
    });
  }).observe(document.documentElement, { childList: true, subtree: true });

  /* The page's state as the redraw reads it: the controls' values (null where the page has none), the
     explorer's batch, the pinned scenario A, and the address (on /methods, its model). */
  function pageState(spec) {
    const api = window.dash_component_api;
    const props = (id) => {
      try {
        const c = api.getLayout(id);
        return (c && c.props) || {};
      } catch (err) {
        return {}; // Dash's getLayout throws for an id the page lacks (the batch slider outside the explorer)
      }
    };
    const value = (id) => (props(id).value === undefined ? null : props(id).value);
    const cfg = props("ui-config").data || {};
    return {
      values: (cfg.controls || []).map((name) => value(`${cfg.prefix}${name}`)),
      batch: cfg.batchId ? value(cfg.batchId) : null,
      pinned: props(spec.pinned).data ?? null,
      search: window.location.search,
    };
  }

  function chosenSize(row) {
    const select = row.querySelector("select");
    const [w, h] = ((select && select.value) || "").split("x").map(Number);
    return Number.isInteger(w) && Number.isInteger(h) && w > 0 && h > 0 ? [w, h] : DEFAULT;
  }

  function save(blob, name) {
    const a = element("a", { href: URL.createObjectURL(blob), download: name });
    document.body.appendChild(a);
    a.click();
    a.remove();
    window.setTimeout(() => URL.revokeObjectURL(a.href), 60000);
  }

  async function download(row, kind) {
    const spec = JSON.parse(row.dataset.export);
    const status = row.querySelector(".export-status");
    const say = (text) => {
      if (status) status.textContent = text;
    };
    try {
      const response = await window.fetch(spec.url, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ fig: spec.fig, kind: kind, ...pageState(spec) }),
      });
      if (!response.ok) return say(await response.text());
      if (kind === "png" || kind === "svg") {
        const answer = await response.json();
        return say(await drawImage(row, spec.fig, kind, answer.filename, answer.scenario));
      }
      const name = /filename="([^"]+)"/.exec(response.headers.get("Content-Disposition") || "");
      const file = name ? name[1] : `${spec.fig}.${kind}`;
      save(await response.blob(), file);
      say(`Downloading ${file}`);
    } catch (err) {
      say(`Could not export: ${err}`);
    }
  }

  /* An image heads itself with the figure's title (on the page the card's heading stands outside the graph),
     the scenario line and its source (the page's address) under it, in a top margin grown to hold them: at the
     foot plotly's legend grows its own margin past what the layout says. The graph's own buttons (log or linear
     x) are the page's, not the image's: left out, with the room they took. */
  const TITLE_ROOM = 44;
  const LINE_ROOM = 16; // a line of the scenario or the source, at 11 px
  const BUTTONS_ROOM = 26; // what figures.curves.x_scale_toggle adds to the top margin for its buttons
  const CHAR_PX = 6.2; // an 11 px character's width, about: where the scenario line wraps

  /* Text wrapped at " · " into lines of at most `width` px, joined with <br> (plotly's line break). */
  function wrapped(text, width) {
    const most = Math.max(20, Math.floor(width / CHAR_PX));
    const lines = [];
    String(text).split(" · ").forEach((part) => {
      const last = lines.length - 1;
      if (last >= 0 && lines[last].length + 3 + part.length <= most) lines[last] += ` · ${part}`;
      else lines.push(part);
    });
    return lines;
  }

  /* Plotly reads <, > and & in text as markup: an address's "&" stays itself. */
  const plain = (text) => String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

  /* The subtitle's lines: the scenario wrapped at its " · ", then "Source: <address>" cut into lines that fit. */
  function headLines(width, scenario, source) {
    const most = Math.max(20, Math.floor((width - 32) / CHAR_PX));
    const lines = scenario ? wrapped(scenario, width - 32) : [];
    const said = `Source: ${source}`;
    for (let i = 0; i < said.length; i += most) lines.push(said.slice(i, i + most));
    return lines;
  }

  function titled(layout, title, lines) {
    const margin = Object.assign({}, layout.margin);
    const colour = (layout.font && layout.font.color) || "#444444";
    const out = Object.assign({}, layout);
    if (out.updatemenus) {
      delete out.updatemenus;
      margin.t = Math.max(16, (margin.t || 0) - BUTTONS_ROOM);
    }
    margin.t = (margin.t || 0) + TITLE_ROOM + lines.length * LINE_ROOM;
    out.margin = margin;
    out.title = {
      text: plain(title || ""), font: { size: 17, color: colour }, pad: { t: 12 },
      x: 0, xref: "paper", xanchor: "left", y: 1, yref: "container", yanchor: "top",
      subtitle: { text: lines.map(plain).join("<br>"), font: { size: 11, color: colour } },
    };
    return out;
  }

  async function drawImage(row, fig, kind, file, scenario) {
    const gd = document.querySelector(`#fig-${fig.slice(3)} .js-plotly-plot`);
    if (!gd) return "The figure is not drawn yet.";
    const [width, height] = chosenSize(row);
    const status = row.querySelector(".export-status");
    if (status) status.textContent = `Drawing ${file} at ${width}×${height} px…`;
    try {
      const name = file.replace(/\.[^.]+$/, "");
      // The legend as far under the plot as on screen: placed for a card graph's height, a 675 px image had
      // it 66 px under the x-axis title.
      const spec = JSON.parse(row.dataset.export);
      const lines = headLines(width, scenario, currentAddress());
      const plotted = height - TITLE_ROOM - lines.length * LINE_ROOM; // what the head leaves of the image's height
      const placed = window.inferxLegendAt ? window.inferxLegendAt(gd, plotted) : gd.layout;
      const layout = titled(placed, spec.title, lines);
      const figure = { data: gd.data, layout: layout, config: gd._context };
      await window.Plotly.downloadImage(figure, { format: kind, width: width, height: height, filename: name });
      return `Downloading ${file} (${width}×${height} px)`;
    } catch (err) {
      return `Could not draw the image: ${err}`;
    }
  }

  /* Copy text: the clipboard API where the page is a secure context, else a selected text area and the
     browser's copy command (a page served over plain http on a LAN). */
  async function copy(text) {
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    const area = element("textarea", { readonly: "", style: "position:fixed;top:0;left:0;opacity:0" });
    area.value = text;
    document.body.appendChild(area);
    area.select();
    const ok = document.execCommand("copy");
    area.remove();
    if (!ok) throw new Error("the browser refused to copy");
  }

  /* The share row's copy buttons: a tick on the button once copied and a line in the row's status, which a
     screen reader announces and which is shown when the browser refuses (no uncaught rejection either way). */
  async function copyFrom(button, text) {
    const box = button.closest(".share, .card-head");
    const status = box && box.querySelector(".share-status");
    const say = (line, shown) => {
      if (!status) return;
      status.textContent = line;
      status.classList.toggle("visually-hidden", !shown);
    };
    try {
      await copy(text);
      button.classList.add("copied");
      window.setTimeout(() => button.classList.remove("copied"), COPIED_MS);
      say(button.dataset.copyLink ? "Link copied" : "Embed code copied", false);
    } catch (err) {
      // Refused (an iframe without allow="clipboard-write", a browser's policy): the text in a field, selected,
      // for the reader to copy by hand; the browser's own words go to the button's tooltip only.
      button.title = `Could not copy: ${err && err.message ? err.message : err}`;
      if (!status) return;
      const what = button.dataset.copyLink ? "link" : "embed code";
      const field = element("input", { type: "text", readonly: "", class: "share-copy-field", "aria-label": `The ${what}` });
      field.value = text;
      status.replaceChildren(document.createTextNode(`Copy the ${what} by hand: `), field);
      status.classList.remove("visually-hidden");
      field.focus();
      field.select();
    }
  }

  // inferx.copyLink first writes an address change of the last moment, so what is copied has the current settings.
  const currentAddress = () => (window.inferx && window.inferx.copyLink ? window.inferx.copyLink() : window.location.href);

  function embedCode(button) {
    const src = `${window.location.origin}${button.dataset.embedPath}${new URL(currentAddress()).search}`;
    // clipboard-write: the embed's own Copy link works inside the wiki's page too.
    return (
      `<iframe src="${src}" width="720" height="520" style="border:0" loading="lazy" title="inferx figure" ` +
      `allow="clipboard-write"></iframe>`
    );
  }

  // Buttons are native, so Enter and Space reach this listener as clicks.
  document.addEventListener("click", (e) => {
    const target = e.target instanceof Element ? e.target : null;
    const kind = target && target.closest("[data-export-kind]");
    const row = kind && kind.closest(".export-tools[data-export]");
    if (row) return void download(row, kind.dataset.exportKind);
    const embed = target && target.closest("button[data-embed-path]");
    if (embed) return void copyFrom(embed, embedCode(embed));
    const link = target && target.closest("button[data-copy-link]");
    if (link) copyFrom(link, currentAddress());
  });

  window.inferxExport = { buildRows: buildRows }; // read by the browser tests
})();
