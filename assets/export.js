/* A figure card's PNG and SVG downloads (pages/_export.py): the server names the file after the scenario,
   and Plotly draws the graph again at the size chosen beside the buttons. */
(function () {
  "use strict";
  const DEFAULT = [1200, 675];

  function chosenSize(fig) {
    const select = document.getElementById(`image-size-${fig}`);
    const [w, h] = ((select && select.value) || "").split("x").map(Number);
    return Number.isInteger(w) && Number.isInteger(h) && w > 0 && h > 0 ? [w, h] : DEFAULT;
  }

  window.inferxExport = {
    image: function (request, id) {
      if (!request || !request.name) return window.dash_clientside.no_update;
      const gd = document.querySelector(`#fig-${id.fig.slice(3)} .js-plotly-plot`);
      if (!gd) return "The figure is not drawn yet.";
      const [width, height] = chosenSize(id.fig);
      const file = `${request.name}.${request.kind}`;
      window.Plotly.downloadImage(gd, { format: request.kind, width: width, height: height, filename: request.name })
        .then(() => window.dash_clientside.set_props({ role: "image-status", fig: id.fig }, { children: `Downloading ${file} (${width}×${height} px)` }))
        .catch((err) => window.dash_clientside.set_props({ role: "image-status", fig: id.fig }, { children: `Could not draw the image: ${err}` }));
      return `Drawing ${file} at ${width}×${height} px…`;
    },
  };
})();
