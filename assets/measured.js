/* Measured-point overlays on Figures 4 and 5, merged in the browser so the server's redraw stays as it is. */
(function () {
  "use strict";
  const isMeasured = (t) => Boolean(t && t.meta && t.meta.measured);

  window.inferxMeasured = {
    /* The figure's own traces plus the overlay's for `kind`; old measured traces are dropped first. */
    merge: function (overlay, figure, kind) {
      const NO = window.dash_clientside.no_update;
      if (!figure || !figure.data) return NO;
      const base = figure.data.filter((t) => !isMeasured(t));
      let extra = (overlay && overlay[kind]) || [];
      // A figure drawn per GPU (figures/units.py) gets each run's throughput per GPU, and a hover that says so.
      const tput = figure.layout && figure.layout.meta && figure.layout.meta.tput;
      if (tput && tput.perGpu) {
        extra = extra.map((t) =>
          t.meta && t.meta.xPerGpu
            ? Object.assign({}, t, { x: t.meta.xPerGpu, hovertemplate: t.meta.hoverPerGpu || t.hovertemplate })
            : t,
        );
      }
      if (!extra.length && base.length === figure.data.length) return NO; // nothing to add or remove
      return Object.assign({}, figure, { data: base.concat(extra) });
    },

    /* The run link of the clicked point (customdata[3]) below the InferenceX figure. */
    runLink: function (click) {
      const NO = window.dash_clientside.no_update;
      const p = click && click.points && click.points[0];
      const url = p && p.customdata && p.customdata[3];
      if (!url || !/^https:\/\//.test(String(url))) return [NO, NO, NO];
      const c = p.customdata;
      return [`Run for concurrency ${c[0]}, ${c[2]}, ${c[1]} ↗`, url, false];
    },
  };
})();

/* The empty state's "Choose a file" (pages/inferencex.py) opens the Measured data upload's file chooser, which
   on a phone sits in the closed Controls drawer. */
document.addEventListener("click", (e) => {
  const button = e.target.closest && e.target.closest("button[data-upload]");
  if (!button) return;
  const input = document.querySelector(`#${button.dataset.upload} input[type=file]`);
  if (input) input.click();
});
