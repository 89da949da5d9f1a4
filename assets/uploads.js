/* A file a drop zone refuses itself, past its size limit or not of a type it takes, never reaches the server,
   and dcc.Upload says nothing of it: the page showed nothing at all. Said here instead, where the server's answer
   to a bad file goes (the zone's `data-note`: the line under it, or the measured data's alert). */
(function () {
  "use strict";

  function size(bytes) {
    return bytes >= 1 << 20 ? `${(bytes / 2 ** 20).toFixed(1)} MiB` : `${Math.ceil(bytes / 1024)} KiB`;
  }

  /* The rule dcc.Upload's `accept` applies: ".ext" matches the name's end, "type/sub" the file's MIME type. */
  function accepted(file, rules) {
    const name = (file.name || "").toLowerCase();
    const type = (file.type || "").toLowerCase();
    return !rules.length || rules.some((r) => (r.startsWith(".") ? name.endsWith(r) : type === r));
  }

  function problem(file, zone) {
    const input = zone.querySelector("input[type=file]");
    const rules = ((input && input.getAttribute("accept")) || "").toLowerCase().split(",").map((r) => r.trim());
    if (!accepted(file, rules.filter(Boolean))) {
      return `not a ${rules.filter((r) => r.startsWith(".")).join(" or ")} file`;
    }
    const max = Number(zone.dataset.maxBytes);
    if (max > 0 && file.size > max) return `the file is ${size(file.size)}; at most ${size(max)} is accepted`;
    return null;
  }

  function refused(event, files) {
    const zone = event.target && event.target.closest && event.target.closest("[data-max-bytes]");
    const file = files && files[0];
    const why = zone && file && problem(file, zone);
    if (!why || !window.dash_clientside) return;
    const text = `Could not ${zone.dataset.verb} ${String(file.name).slice(0, 80)}: ${why}.`;
    const alert = zone.dataset.alert === "true";
    window.dash_clientside.set_props(zone.dataset.note, alert ? { children: text, color: "danger", is_open: true } : { children: text });
  }

  // Capture: seen before the drop zone takes (and drops) the file.
  document.addEventListener("change", (e) => e.target.type === "file" && refused(e, e.target.files), true);
  document.addEventListener("drop", (e) => refused(e, e.dataTransfer && e.dataTransfer.files), true);
})();
