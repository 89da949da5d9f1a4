/* The log/linear x choice of a frontier figure (inferx.figures.curves.set_scale_buttons) kept across redraws.
   The buttons are a plotly relayout with no callback, so every figure the server sends (a control's redraw, a
   drag's step, a recolour) came back on the scale its data ask for. The button a user pressed is kept here, per
   graph wrapper (#fig-6), and each figure on its way into that graph (assets/theme.js dresses every
   Plotly.react) gets that button's relayout applied, from the new figure's own arguments (they carry where the
   labels on x go on each scale), with the button shown pressed. Kept for the page's life in this tab; pressing
   the other button changes it. */
(function () {
  "use strict";

  const chosen = new Map(); // wrapper id -> index of the pressed button of the scale menu (0 linear, 1 log)

  const keyOf = (gd) => {
    const wrap = gd && gd.closest && gd.closest(".graph-wrap");
    return wrap && wrap.id ? wrap.id : null;
  };

  /* The index of the menu whose buttons set the x axis type, or -1. */
  function scaleMenu(layout) {
    const menus = (layout && layout.updatemenus) || [];
    return menus.findIndex(
      (m) =>
        Array.isArray(m.buttons) &&
        m.buttons.length > 1 &&
        m.buttons.every((b) => b && Array.isArray(b.args) && b.args[0] && "xaxis.type" in b.args[0]),
    );
  }

  /* `obj` with the value at the relayout path `parts` (["xaxis", "minor", "showgrid"], ["annotations", 3, "x"])
     set, or removed where `value` is null (as relayout resets it); each object on the path is copied. */
  function withPath(obj, parts, value) {
    const [head, ...rest] = parts;
    const copy = Array.isArray(obj) ? obj.slice() : Object.assign({}, obj);
    if (!rest.length) {
      if (value === null || value === undefined) delete copy[head];
      else copy[head] = value;
      return copy;
    }
    const inner = copy[head];
    if ((inner === null || typeof inner !== "object") && typeof rest[0] === "number") return copy; // no such item
    copy[head] = withPath(inner && typeof inner === "object" ? inner : {}, rest, value);
    return copy;
  }

  const pathOf = (key) =>
    key
      .replace(/\[(\d+)\]/g, ".$1")
      .split(".")
      .map((p) => (/^\d+$/.test(p) ? Number(p) : p));

  /* `layout` on the scale pressed in its graph, or `layout` itself where none was pressed or it is that one. */
  function kept(el, layout) {
    const key = keyOf(el);
    if (!key || !chosen.has(key) || !layout) return layout;
    const m = scaleMenu(layout);
    const index = chosen.get(key);
    const menu = m >= 0 ? layout.updatemenus[m] : null;
    const button = menu && menu.buttons[index];
    if (!button || menu.active === index) return layout;
    let out = layout;
    Object.entries(button.args[0]).forEach(([path, value]) => {
      out = withPath(out, pathOf(path), value);
    });
    out.updatemenus = out.updatemenus.slice();
    out.updatemenus[m] = Object.assign({}, menu, { active: index });
    return out;
  }

  /* Listen to a graph's menu once: a press of a scale button is kept for its wrapper. */
  function watch(gd) {
    if (!gd || gd.inferxScales || typeof gd.on !== "function") return;
    gd.inferxScales = true;
    gd.on("plotly_buttonclicked", (e) => {
      const key = keyOf(gd);
      const menus = (gd.layout && gd.layout.updatemenus) || [];
      if (key && e && e.menu && e.menu._index === scaleMenu(gd.layout) && menus.length) chosen.set(key, e.active);
    });
  }

  window.inferxScales = { kept: kept, watch: watch, chosen: chosen };
})();
