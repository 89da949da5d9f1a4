/* Drawers (the phone's controls on /, an embed's settings) and the navbar's collapse on a narrow screen.

   Plain class changes rather than Dash props: a closed drawer keeps its controls mounted (the shared callbacks
   take every control as an input), and opening one costs no callback. React leaves these classes alone because
   the components' own className props never change. */
(function () {
  "use strict";

  function toggleFor(drawer) {
    return document.querySelector(`[data-drawer-toggle][aria-controls="${drawer.id}"]`);
  }

  function open(drawer) {
    drawer.classList.add("open");
    const t = toggleFor(drawer);
    if (t) t.setAttribute("aria-expanded", "true");
    // Focus moves into the drawer once it is visible (a hidden element cannot take focus).
    const close = drawer.querySelector("[data-drawer-close]");
    if (close) window.setTimeout(() => close.focus({ preventScroll: true }), 0);
  }

  function close(drawer, refocus) {
    drawer.classList.remove("open");
    const t = toggleFor(drawer);
    if (t) {
      t.setAttribute("aria-expanded", "false");
      if (refocus) t.focus({ preventScroll: true });
    }
  }

  document.addEventListener("click", (e) => {
    if (!e.target.closest) return;
    const toggle = e.target.closest("[data-drawer-toggle]");
    if (toggle) {
      const drawer = document.getElementById(toggle.getAttribute("aria-controls"));
      if (drawer) (drawer.classList.contains("open") ? close : open)(drawer, false);
      return;
    }
    // A link of the figure index (or to the explorer) jumps to its card at once, closing the phone's sheet that
    // would cover it, and the keyboard's focus goes with it. Not the browser's own jump: Bootstrap makes it a
    // smooth scroll, and graphs drawn as it passes ended it off its card; nor a new hash in the address, which
    // Dash's location component would take for a navigation.
    const jump = e.target.closest('a[data-jump][href^="#"]');
    const card = jump && document.getElementById(jump.getAttribute("href").slice(1));
    if (card) {
      e.preventDefault();
      const sheet = jump.closest(".drawer-md.open");
      if (sheet) close(sheet, false);
      card.scrollIntoView({ block: "start", behavior: "instant" });
      if (!card.hasAttribute("tabindex")) card.setAttribute("tabindex", "-1");
      card.focus({ preventScroll: true });
      return;
    }
    const closer = e.target.closest("[data-drawer-close]");
    if (closer) {
      const drawer = closer.closest(".drawer, .drawer-md");
      if (drawer) close(drawer, true);
      return;
    }
    const collapse = e.target.closest("[data-collapse-toggle]");
    if (collapse) {
      const target = document.getElementById(collapse.getAttribute("aria-controls"));
      if (!target) return;
      const shown = target.classList.toggle("show");
      collapse.setAttribute("aria-expanded", String(shown));
    }
  });

  document.addEventListener("keydown", (e) => {
    if (e.key !== "Escape" || e.defaultPrevented) return; // inside an open dropdown, Escape closes the dropdown
    const drawer = document.querySelector(".drawer.open, .drawer-md.open");
    if (drawer) {
      close(drawer, drawer.contains(document.activeElement));
      return;
    }
    const menu = document.querySelector("[data-collapse-toggle][aria-expanded='true']");
    const target = menu && document.getElementById(menu.getAttribute("aria-controls"));
    if (target && target.classList.contains("show")) {
      const inside = target.contains(document.activeElement);
      target.classList.remove("show");
      menu.setAttribute("aria-expanded", "false");
      if (inside) menu.focus({ preventScroll: true });
    }
  });

  /* Focus moved out of an open drawer (Tab past its last control, Shift+Tab past its first, onto the toggle that
     the open sheet covers) would land on the page behind it, out of sight: the drawer closes instead. Only a
     pointer pressing the toggle keeps it open here: its click then closes the drawer itself. */
  let pressedAt = -Infinity;
  document.addEventListener("pointerdown", () => (pressedAt = performance.now()), true);
  document.addEventListener("focusin", (e) => {
    const drawer = document.querySelector(".drawer.open, .drawer-md.open");
    if (!drawer || drawer.contains(e.target)) return;
    const pressed = e.target === toggleFor(drawer) && performance.now() - pressedAt < 1000;
    if (!pressed) close(drawer, false);
  });
})();
