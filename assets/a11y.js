/* Accessibility the Dash 4 widgets lack, and the graphs' text alternatives.

   Dash 4's sliders (Radix) take no aria props, its radio items nest radios in listbox options, its dropdown
   keeps a focusable input under aria-hidden, and plotly's tool bars put ~70 buttons in the tab order. One
   observer repairs each as React renders it; every repair checks before it writes, so its own writes settle. */
(function () {
  "use strict";

  /* --- Sliders: a name, the value in its unit, and keyboard steps that cross the range in <= 100 presses. --- */
  // Each slider sits in a .a11y-slider box whose data-* attributes come from PARAMS (pages/_controls.py).
  const boxOf = (thumb) => thumb.closest(".a11y-slider");

  // One formatter per number of decimals: toLocaleString builds a new one per call, and every thumb's text is
  // checked on each repair, which a slider drag asks for on every step.
  const formats = new Map();
  function valueText(d, pos) {
    let decimals = Number(d.decimals);
    // A log2 slider says its value (tokens, TB/s), not the exponent: assets/inferx.js turns one into the other,
    // and shows a quantity to 2 % of its value or finer.
    const log = d.log2 === "1" && window.inferx;
    const v = log ? window.inferx.fromPosition(pos, Number(d.step), decimals, d.whole === "1") : pos;
    if (log && d.whole !== "1") decimals = window.inferx.shownDecimals(v, decimals);
    if (!formats.has(decimals)) {
      formats.set(decimals, new Intl.NumberFormat("en-US", { minimumFractionDigits: decimals, maximumFractionDigits: decimals }));
    }
    const text = formats.get(decimals).format(v);
    if (window.inferx && window.inferx.counted) return window.inferx.counted(text, d.unit);
    return d.unit ? `${text} ${d.unit}` : text;
  }

  function setAttr(el, name, value) {
    if (el.getAttribute(name) !== value) el.setAttribute(name, value);
  }

  /* Whether a slider that may be left to the model (price "assumed", MTP acceptance "fitted") is: its label
     then reads that word. */
  function unset(box) {
    const slider = box.dataset.unset && box.querySelector(".dash-slider-container[id]");
    const label = slider && document.getElementById(`${slider.id}-value`);
    return !!label && label.textContent === box.dataset.unset;
  }

  /* The value an unset slider stands for on the current machine (pages/_controls.assumed_values), or null. */
  function assumed(box) {
    const v = box.dataset.assumed;
    return v === undefined || v === "" || !Number.isFinite(Number(v)) ? null : Number(v);
  }

  /* An unset slider's thumb drawn where the value it stands for, `v`, lies, not at the minimum where Radix leaves
     it (style.css places it by --assumed-left while data-unset-shown is on the box; a drag takes it from there,
     assets/inferx.js). With no such value (a set slider, or one the page knows no value for), Radix's place. */
  function placeUnset(box, thumb, v) {
    if (v === null) {
      if (box.hasAttribute("data-unset-shown")) box.removeAttribute("data-unset-shown");
      return;
    }
    const min = Number(thumb.getAttribute("aria-valuemin"));
    const max = Number(thumb.getAttribute("aria-valuemax"));
    const pos = box.dataset.log2 === "1" ? Math.log2(v) : v;
    const pct = Math.min(100, Math.max(0, (100 * (pos - min)) / (max - min)));
    const left = `calc(${pct}% + ${(thumb.offsetWidth / 2) * (1 - pct / 50)}px)`; // as Radix keeps it inside
    if (box.style.getPropertyValue("--assumed-left") !== left) box.style.setProperty("--assumed-left", left);
    setAttr(box, "data-unset-shown", "");
  }

  function nameThumb(thumb) {
    const box = boxOf(thumb);
    if (!box) return;
    setAttr(thumb, "aria-label", box.dataset.label);
    // Left to the model, its label reads the unset word ("assumed"): so does the thumb, drawn at the value the
    // word stands for where the page knows it ("assumed: $3.50/GPU-h").
    const isUnset = unset(box);
    const v = isUnset ? assumed(box) : null;
    placeUnset(box, thumb, v);
    if (isUnset) {
      // Its value, too, is the one it stands for, not the minimum where Radix leaves it; the words are the
      // label's ("by load" where the value grows with the load from there), else the value in its unit.
      if (v !== null) setAttr(thumb, "aria-valuenow", String(box.dataset.log2 === "1" ? Math.log2(v) : v));
      const slider = box.querySelector(".dash-slider-container[id]");
      const said = slider && document.getElementById(`${slider.id}-assumed`);
      const words = said && said.textContent ? said.textContent : v === null ? "" : valueText(box.dataset, v);
      return setAttr(thumb, "aria-valuetext", words ? `${box.dataset.unset}: ${words}` : box.dataset.unset);
    }
    const now = thumb.getAttribute("aria-valuenow");
    if (now !== null && now !== "") setAttr(thumb, "aria-valuetext", valueText(box.dataset, Number(now)));
  }

  // Arrow keys move one keyboard step (inferx.scenario.keyboard_step), PageUp/PageDown and Shift+arrow ten.
  // The drag keeps the slider's finer step; a key lands on a multiple of its step, so values stay round.
  const KEYS = { ArrowRight: 1, ArrowUp: 1, ArrowLeft: -1, ArrowDown: -1, PageUp: 10, PageDown: -10 };

  function onKey(e) {
    const thumb = e.target;
    const move = KEYS[e.key];
    if (!move || e.altKey || e.ctrlKey || e.metaKey || !(thumb instanceof Element)) return;
    if (thumb.getAttribute("role") !== "slider") return;
    const box = boxOf(thumb);
    const slider = box && box.querySelector(".dash-slider-container[id]");
    if (!slider) return;
    e.preventDefault();
    e.stopPropagation(); // Radix would move by the drag step
    const step = Number(box.dataset.keyStep) * (e.shiftKey && Math.abs(move) === 1 ? 10 : Math.abs(move));
    // An unset slider's thumb stands at the value the model gives, not at its aria-valuenow: a key moves from there.
    const stood = unset(box) ? assumed(box) : null;
    const now = stood === null ? Number(thumb.getAttribute("aria-valuenow")) : stood;
    const min = Number(thumb.getAttribute("aria-valuemin"));
    const max = Number(thumb.getAttribute("aria-valuemax"));
    const grid = move > 0 ? Math.floor(now / step + 1e-9) + 1 : Math.ceil(now / step - 1e-9) - 1;
    const next = Math.min(max, Math.max(min, Number((grid * step).toFixed(9))));
    if (next !== now) window.dash_clientside.set_props(slider.id, { value: next });
  }

  /* --- Radio items and checklists: a group of native inputs, named by the control's label. --- */
  function labelText(id) {
    const label = id && document.querySelector(`label[for="${CSS.escape(id)}"]`);
    const name = label && label.firstChild && label.firstChild.nodeType === 3 ? label.firstChild.textContent : "";
    return (name || (label && label.textContent) || "").trim();
  }

  function repairOptions(group) {
    setAttr(group, "role", group.classList.contains("dash-radioitems") ? "radiogroup" : "group");
    const name = labelText(group.id);
    if (name) setAttr(group, "aria-label", name);
    group.querySelectorAll("[role='option'], [aria-selected]").forEach((option) => {
      option.removeAttribute("role"); // the native input inside says what it is, and whether it is checked
      option.removeAttribute("aria-selected");
    });
  }

  /* --- Dropdowns: Dash's Tab stop (an input that hands focus to the button) is named, not hidden. --- */
  function repairDropdown(target) {
    const button = target.parentElement && target.parentElement.querySelector("button.dash-dropdown");
    target.removeAttribute("aria-hidden");
    const name = labelText(button && button.id);
    if (name) setAttr(target, "aria-label", name);
  }

  /* The button, which takes the focus, is named by its value alone ("FP8", the weights' and the KV cache's
     alike): its control's label goes first (`<id>-label`, pages/_controls.py). */
  function nameDropdownButton(button) {
    const label = button.id && document.getElementById(`${button.id}-label`);
    const ids = (button.getAttribute("aria-labelledby") || "").split(" ").filter(Boolean);
    if (label && ids[0] !== label.id) setAttr(button, "aria-labelledby", [label.id, ...ids.filter((i) => i !== label.id)].join(" "));
  }

  /* A note under the controls that their changes rewrite (the machine drawn, a prompt past the context, a parallel
     layout without effect) describes the controls that move it (`data-note`, pages/_controls.py): a live region
     re-read it, a hundred characters, on every arrow-key step of the GPU count. */
  function describeByNote(ctl) {
    const note = ctl.dataset.note;
    ctl.querySelectorAll("[role='slider'], button.dash-dropdown, input[type='radio']")
      .forEach((el) => setAttr(el, "aria-describedby", note));
  }

  /* The open menu (a dialog holding a group of radios) is named after its control, as its button is. */
  function nameOpenMenu(menu) {
    const button = document.querySelector("button.dash-dropdown[aria-expanded='true']");
    const name = labelText(button && button.id);
    if (!name) return;
    setAttr(menu, "aria-label", name);
    const group = menu.querySelector("[role='group'], [role='radiogroup']");
    if (group) setAttr(group, "aria-label", name);
  }

  /* --- A file input is named by its drop zone's text. --- */
  function repairFileInput(input) {
    const zone = input.parentElement;
    const text = zone ? zone.textContent.replace(/\s+/g, " ").trim() : "";
    setAttr(input, "aria-label", text || "Choose a file");
  }

  const MADE_BUTTONS = ".updatemenu-button[role='button']";

  /* Enter or Space on an element made a button here (a plotly menu button) clicks it. An SVG element has no
     click(). */
  function onButtonKey(e) {
    const el = e.target;
    if ((e.key === "Enter" || e.key === " ") && el instanceof Element && el.matches(MADE_BUTTONS)) {
      e.preventDefault();
      el.dispatchEvent(new MouseEvent("click", { bubbles: true }));
    }
  }

  /* --- Graphs: plotly's tool bar leaves the tab order (the cards have their own download buttons); the text
     alternative under each graph follows every redraw, from the summary the server put in layout.meta. --- */
  function showSummary(gd) {
    const wrap = gd.closest(".graph-wrap[role='figure']");
    const p = wrap && document.getElementById(`${wrap.id}-text`);
    const text = gd.layout && gd.layout.meta && gd.layout.meta.summary;
    if (p && text && p.textContent !== text) p.textContent = text;
  }

  /* Plotly draws a menu's buttons (Figures 4 and 5's linear / log x) as SVG that neither Tab nor a screen
     reader finds: each becomes a named toggle button in the tab order, pressed with Enter or Space. */
  function repairMenus(gd) {
    const menus = (gd.layout && gd.layout.updatemenus) || [];
    gd.querySelectorAll(".updatemenu-container").forEach((menu, m) => {
      // The layout keeps the figure's first choice; plotly_buttonclicked says which button was pressed since.
      const pressed = gd.inferxMenus && gd.inferxMenus[m];
      const active = pressed !== undefined ? pressed : menus[m] ? menus[m].active : -1;
      menu.querySelectorAll(".updatemenu-button").forEach((button, k) => {
        setAttr(button, "tabindex", "0");
        setAttr(button, "role", "button");
        setAttr(button, "aria-label", button.textContent.trim());
        setAttr(button, "aria-pressed", String(k === active));
      });
    });
  }

  function hookGraph(gd) {
    if (gd.inferxA11y || typeof gd.on !== "function") return;
    gd.inferxA11y = true;
    gd.on("plotly_afterplot", () => {
      showSummary(gd);
      repairMenus(gd);
    });
    gd.on("plotly_buttonclicked", (e) => {
      gd.inferxMenus = Object.assign({}, gd.inferxMenus, { [e.menu._index]: e.active });
      repairMenus(gd);
    });
    showSummary(gd);
    repairMenus(gd);
  }

  /* A page change inside the app (a navbar link: Dash's router draws the new page without a load) left focus on
     <body>, so the next Tab started from the top and a screen reader said nothing: focus goes to the new page's
     heading once it is drawn. */
  let leftHeading = null;
  let headingDue = false;
  let shownPath = window.location.pathname;
  function pageChanged() {
    if (window.location.pathname === shownPath) return; // the same page at another address: focus stays
    shownPath = window.location.pathname;
    leftHeading = document.querySelector("main h1");
    headingDue = true;
  }

  function focusHeading() {
    const heading = headingDue && document.querySelector("main h1");
    if (!heading || heading === leftHeading) return;
    headingDue = false;
    setAttr(heading, "tabindex", "-1");
    heading.focus({ preventScroll: true });
  }

  function repair() {
    focusHeading();
    document.querySelectorAll(".a11y-slider [role='slider']").forEach(nameThumb);
    document.querySelectorAll(".dash-options-list").forEach(repairOptions);
    document.querySelectorAll(".dash-dropdown-focus-target[aria-hidden]").forEach(repairDropdown);
    document.querySelectorAll("button.dash-dropdown").forEach(nameDropdownButton);
    document.querySelectorAll(".ctl[data-note]").forEach(describeByNote);
    document.querySelectorAll(".dash-dropdown-content[role='dialog']").forEach(nameOpenMenu);
    document.querySelectorAll("input[type='file']").forEach(repairFileInput);
    document.querySelectorAll(".modebar-btn:not([tabindex='-1'])").forEach((b) => b.setAttribute("tabindex", "-1"));
    document.querySelectorAll(".graph-wrap .js-plotly-plot").forEach(hookGraph);
    // MathJax makes every formula a Tab stop (for its context menu): 46 on the dashboard, between the controls
    // and the figures. A screen reader still reads each from its hidden MathML.
    document.querySelectorAll("mjx-container[tabindex='0']").forEach((m) => m.setAttribute("tabindex", "-1"));
  }

  let pending = false;
  function repairSoon() {
    if (pending) return;
    pending = true;
    window.requestAnimationFrame(() => {
      pending = false;
      repair();
    });
  }

  const observer = new MutationObserver((records) => {
    let more = false;
    for (const r of records) {
      if (r.attributeName === "aria-valuenow") nameThumb(r.target); // at once: a screen reader reads it now
      else more = true;
    }
    if (more) repairSoon();
  });
  observer.observe(document.documentElement, {
    subtree: true,
    childList: true,
    attributes: true,
    attributeFilter: ["aria-valuenow", "aria-hidden", "aria-selected", "role", "tabindex", "data-assumed"],
  });
  // The skip link moves focus itself, without a new fragment in the address: Dash's router would take the
  // changed address for a navigation and render the page again, dropping focus back to the top.
  document.addEventListener("click", (e) => {
    const skip = e.target.closest && e.target.closest("a.skip-link");
    const target = skip && document.getElementById(skip.getAttribute("href").slice(1));
    if (!target) return;
    e.preventDefault();
    if (!target.hasAttribute("tabindex")) target.setAttribute("tabindex", "-1");
    target.focus();
  });
  window.addEventListener("_dashprivate_pushstate", pageChanged); // what Dash's links fire on a new address
  window.addEventListener("popstate", pageChanged);
  document.addEventListener("keydown", onKey, true); // capture: before Radix's own handler
  document.addEventListener("keydown", onButtonKey);
  repairSoon();

  window.inferxA11y = { valueText: valueText }; // read by the browser tests
})();
