"""Text stays readable on a phone, in real headless Chromium at 420 px: no two of Figure 2's labels (the
ceilings' labels, legend entries, tick labels, axis titles) overlap, no legend entry runs under the graph's
tool bar, which a touch screen keeps shown, and Figure 4's floor label is clear of its curve."""

from __future__ import annotations

import re
from contextlib import contextmanager

import pytest
from browser_checks import figure_data, viewport
from conftest import severe_console_errors

from benchmarks.chromium import wait_js

pytestmark = pytest.mark.browser

# Every piece of text plotly drew in the graph, with its box on the page.
TEXT_BOXES_JS = """
const gd = document.querySelector(`#fig-${arguments[0]} .js-plotly-plot`);
const kinds = {
  annotation: '.annotation-text', legend: '.legendtext', tick: '.xtick text, .ytick text',
  title: '.g-xtitle text, .g-ytitle text', tool: '.modebar-btn',
};
const out = [];
for (const [kind, sel] of Object.entries(kinds)) {
  gd.querySelectorAll(sel).forEach((el) => {
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.height > 0) out.push({kind, text: el.textContent || el.dataset.title || '',
                                               left: r.left, right: r.right, top: r.top, bottom: r.bottom});
  });
}
return out;
"""


@contextmanager
def phone(driver, scheme: str):
    driver.execute_cdp_cmd(
        "Emulation.setEmulatedMedia", {"media": "", "features": [{"name": "prefers-color-scheme", "value": scheme}]}
    )
    try:
        with viewport(driver, 420, 850):
            yield
    finally:
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "", "features": []})


def overlapping(boxes: list[dict], slack: float = 1.0) -> list[tuple[str, str]]:
    """Pairs of boxes that share more than `slack` px in both directions."""
    found = []
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            across = min(a["right"], b["right"]) - max(a["left"], b["left"])
            down = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
            if across > slack and down > slack:
                found.append((f"{a['kind']} {a['text']!r}", f"{b['kind']} {b['text']!r}"))
    return found


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_fig2_labels_do_not_overlap_on_a_phone(browser, server, scheme):
    with phone(browser, scheme):
        browser.get(server.url)
        wait_js(browser, "return document.getElementById('card-fig2')", what="Figure 2's card")
        browser.execute_script("document.getElementById('card-fig2').scrollIntoView({behavior: 'instant'})")
        figure_data(browser, 2)
        # Drawn compact (the legend above the plot, smaller type) and in the theme asked for.
        wait_js(browser, "return document.querySelector('#fig-2 .js-plotly-plot').dataset.compact === 'true'")
        wait_js(browser, f"return document.documentElement.getAttribute('data-bs-theme') === '{scheme}'")
        boxes = browser.execute_script(TEXT_BOXES_JS, 2)
        kinds = [b["kind"] for b in boxes]
        # The check sees what it checks: three ceilings' labels and three legend entries, ticks and the tool bar.
        assert kinds.count("annotation") == 3 and kinds.count("legend") == 3, boxes
        assert kinds.count("tick") >= 6 and kinds.count("tool") >= 1
        graph = browser.execute_script(
            "const r = document.querySelector('#fig-2 .js-plotly-plot').getBoundingClientRect();"
            "return {left: r.left, right: r.right};"
        )
        assert graph["right"] - graph["left"] < 420
        assert overlapping(boxes) == []
        # Every label inside the graph's width: none cut off at the phone's edge.
        outside = [b["text"] for b in boxes if b["left"] < graph["left"] - 1 or b["right"] > graph["right"] + 1]
        assert outside == []
        assert severe_console_errors(browser) == []


@pytest.mark.parametrize(("width", "height", "cut"), [(480, 360, True), (600, 450, False)])
def test_fig2_ceiling_labels_do_not_stack_in_a_small_frame(browser, server, width, height, cut):
    """In a short plot the ceilings a fraction of a decade apart would hang their two-line labels on one
    another: such a label keeps its first line, the name (assets/theme.js, `unstackedLevels`)."""
    with viewport(browser, width, height):
        browser.get(server.url + "embed/fig2")
        figure_data(browser, 2)
        labels = wait_js(
            browser,
            "const gd = document.querySelector('#fig-2 .js-plotly-plot');"
            "return gd.dataset.levels !== undefined && gd.layout.annotations.map((a) => a.text);",
            what="Figure 2 drawn with its level labels placed",
        )
        boxes = [b for b in browser.execute_script(TEXT_BOXES_JS, 2) if b["kind"] == "annotation"]
    assert len(boxes) == 3 and overlapping(boxes) == [], boxes
    one_line = [text for text in labels if "<br>" not in text]
    # At the default contexts (1,024; 8,192; 32,768) the middle ceiling is 0.6 decades over the lowest.
    assert one_line == (["T∞(8,192)"] if cut else [])
    assert severe_console_errors(browser) == []


# The pixels of each trace of a graph, its points and nine more along each segment between them.
CURVE_PIXELS_JS = """
const gd = document.querySelector(`#fig-${arguments[0]} .js-plotly-plot`);
const fl = gd._fullLayout, r = gd.querySelector('.main-svg').getBoundingClientRect();
const at = (x, y) => [r.left + fl._size.l + fl.xaxis.l2p(x), r.top + fl._size.t + fl.yaxis.l2p(y)];
const out = [];
gd.data.forEach((t) => {
  const xs = Array.from(t.x || []), ys = Array.from(t.y || []);
  xs.forEach((x, i) => {
    if (x === null || ys[i] === null) return;
    out.push(at(x, ys[i]));
    if (i + 1 < xs.length && xs[i + 1] !== null && ys[i + 1] !== null) {
      for (let k = 1; k < 10; k++) out.push(at(x + (xs[i + 1] - x) * k / 10, ys[i] + (ys[i + 1] - ys[i]) * k / 10));
    }
  });
});
return out;
"""


@pytest.mark.parametrize(
    "address",
    [
        "/",
        "/?ctx=32768",
        "/?mode=calibrated",
        "/?mode=calibrated&ctx=65536&isl=8192",
        "/?preset=mi300x4&tp=1&pp=4&mode=calibrated&wdtype=fp4",  # calibrated, its long label lifted
        "/?mode=calibrated&a=ctx:4096",  # beside a far faster A, whose climb runs along the floor: in the legend
    ],
)
def test_fig4_floor_label_is_clear_of_the_curve_on_a_phone(browser, server, address):
    """The ITL floor's label sat on the line at its right end, where on a phone it ran through the curve (the
    article's physics, whose curve hugs the floor until near full throughput); it now goes where the curve is
    not, whichever physics and context, and a pinned A's curves, which the label met at the right end of a
    log axis, count too."""
    with phone(browser, "light"):
        browser.get(server.url.rstrip("/") + address)
        wait_js(browser, "return document.getElementById('card-fig4')", what="Figure 4's card")
        browser.execute_script("document.getElementById('card-fig4').scrollIntoView({behavior: 'instant'})")
        figure_data(browser, 4)
        wait_js(browser, "return document.querySelector('#fig-4 .js-plotly-plot').dataset.compact === 'true'")
        label = [b for b in browser.execute_script(TEXT_BOXES_JS, 4) if b["text"].startswith("ITL floor")]
        assert len(label) == 1, label
        assert label[0]["kind"] == ("legend" if "a=" in address else "annotation"), label
        box = label[0]
        pixels = browser.execute_script(CURVE_PIXELS_JS, 4)
        assert len(pixels) > 100  # the check sees the curve
        inside = [p for p in pixels if box["left"] <= p[0] <= box["right"] and box["top"] <= p[1] <= box["bottom"]]
        assert inside == [], (box, inside[:5])
        # Within the plot's width: centred a fifth of the way along, the lifted label ran over the y tick labels.
        plot = browser.execute_script(
            "const r = document.querySelector('#fig-4 .nsewdrag').getBoundingClientRect();"
            "return {left: r.left, right: r.right};"
        )
        assert plot["left"] - 1 <= box["left"] and box["right"] <= plot["right"] + 1, (box, plot)
        assert severe_console_errors(browser) == []


@pytest.mark.parametrize(
    "size", [(390, 700), (480, 360), (640, 360), (720, 520)], ids=["phone", "frame", "short-frame", "embed-code-frame"]
)
@pytest.mark.parametrize("fig", range(1, 15))
def test_a_compact_or_short_graphs_tool_bar_covers_no_text(browser, server, fig, size):
    """A narrow graph's tool bar (always shown on a touch screen, and headless) lies flat in the top-left corner,
    beside a legend above the plot; upright there, it reached the y axis's title (Figures 1 and 11). A graph
    with no legend (Figure 6) has its plot right under that corner: its bar goes to the bottom-left one, and
    a y title longer than a short plot is tall (Figure 6 in a 480×360 frame) wraps rather than run under it.
    A wider graph (a 640×360 frame, or the 720×520 of the embed code) has its bar in the bottom-left corner too:
    at the top right it covered Figure 6's "ρ > 0.85" label, and Figure 3's in calibrated mode."""
    with viewport(browser, size[0], size[1]):
        browser.get(server.url + f"embed/fig{fig}" + ("?mode=calibrated" if size == (720, 520) else ""))
        figure_data(browser, fig)
        compact = "true" if size[0] < 576 else "false"
        wait_js(
            browser,
            f"const gd = document.querySelector('#fig-{fig} .js-plotly-plot');"
            f"return gd.dataset.compact === '{compact}' && gd.dataset.tools !== undefined",
            what="the tool bar placed",
        )
        wait_js(browser, f"return document.querySelectorAll('#fig-{fig} .modebar-btn').length > 0", what="tools")
        boxes = browser.execute_script(TEXT_BOXES_JS, fig)
    tools = [b for b in boxes if b["kind"] == "tool"]
    texts = [b for b in boxes if b["kind"] != "tool"]
    assert tools and texts
    covered = [pair for pair in overlapping(tools + texts) if pair[0].startswith("tool") != pair[1].startswith("tool")]
    assert covered == []
    assert severe_console_errors(browser) == []


@pytest.mark.parametrize(("width", "height"), [(480, 360), (640, 360)], ids=["narrow", "wider"])
def test_a_y_title_is_wrapped_for_the_plots_height_and_again_after_a_resize(browser, server, width, height):
    """Figure 6 in a 480×360 frame (compact type) or a 640×360 one (full type) has a plot 90–120 px tall,
    shorter than its y title on one line: the title takes lines, clear of the tick labels. A taller frame, after
    the resize, gives it back its one line."""
    title = "return document.querySelector('#fig-6 .js-plotly-plot')._fullLayout.yaxis.title.text"
    metrics = {"width": width, "deviceScaleFactor": 1, "mobile": False}
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {**metrics, "height": height})
    try:
        browser.get(server.url + "embed/fig6")
        figure_data(browser, 6)
        short = wait_js(browser, f"const t = (() => {{ {title} }})(); return t.includes('<br>') && t", what="lines")
        boxes = [b for b in browser.execute_script(TEXT_BOXES_JS, 6) if b["kind"] in ("title", "tick")]
        x_title = browser.execute_script(title.replace("yaxis", "xaxis"))
        browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {**metrics, "height": 900})
        tall = wait_js(browser, f"const t = (() => {{ {title} }})(); return !t.includes('<br>') && t", what="one line")
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    assert short.replace("<br>", " ") == tall == "Time to first token (ms)"
    # Both titles drawn (a title's lines join without spaces in its text), none on a tick label.
    titles = [re.sub(r"\s", "", b["text"]) for b in boxes if b["kind"] == "title"]
    assert "per instance" in x_title  # the unit says whose throughput (`figures.units`)
    assert titles == [re.sub(r"<br>|\s", "", x_title), "Timetofirsttoken(ms)"]
    assert overlapping(boxes) == []
    assert severe_console_errors(browser) == []


@pytest.mark.parametrize("fig", [4, 5])
def test_a_calibrated_legend_wraps_into_columns_at_desktop_width(browser, server, fig):
    """Plotly gives every item of a legend that wraps the widest item's width: the residual band's name, once
    70 characters, put Figure 5's legend of four items a row each under the plot at 1,000 px."""
    with viewport(browser, 1000, 600):
        browser.get(server.url + f"embed/fig{fig}?mode=calibrated&gpu=mi355x&framework=sglang")
        assert "p10–p90" in figure_data(browser, fig)
        boxes = [b for b in browser.execute_script(TEXT_BOXES_JS, fig) if b["kind"] == "legend"]
    assert len(boxes) >= 3
    assert len({round(b["left"]) for b in boxes}) >= 2, boxes  # more than one column
    assert overlapping(boxes) == []


# Each marker's text label and the plot area's box on the page.
POINT_LABELS_JS = """
const gd = document.querySelector(`#fig-${arguments[0]} .js-plotly-plot`);
const box = (el) => { const r = el.getBoundingClientRect(); return {left: r.left, right: r.right, top: r.top,
                                                                     bottom: r.bottom, text: el.textContent}; };
const labels = Array.from(gd.querySelectorAll('.textpoint text'), box).filter((b) => b.text);
const marks = gd.querySelectorAll('.scatterlayer .trace')[2];
return labels.length > 0 && {plot: box(gd.querySelector('.nsewdrag')), labels,
  points: Array.from(marks.querySelectorAll('.point'), box),
  lines: Array.from(gd.querySelectorAll('.shapelayer path'), box)};
"""


@pytest.mark.parametrize("size", [(480, 360), (800, 450)], ids=["small", "wide"])
@pytest.mark.parametrize(
    "query",
    ["", "?model=kimi-k2&gpu=mi355x&gpus=8&tp=4&pp=2&wdtype=fp4&ctx=65536&isl=8192"],
    ids=["default", "kimi-mi355x"],
)
def test_fig12s_concurrency_labels_stay_inside_the_plot_and_clear_of_each_other(browser, server, size, query):
    """Figure 12 labels its fixed-concurrency points. When the last one sat near the E2E curve's top, where it
    ends at the peak rate, its label above ran out of the plot and was cut; near the peak, where the points
    crowd, labels above and below in turn ran into each other and the peak line."""
    with viewport(browser, size[0], size[1]):
        browser.get(server.url + "embed/fig12" + query)
        figure_data(browser, 12)
        found = wait_js(browser, POINT_LABELS_JS, args=(12,), what="Figure 12's labelled points")
    plot = found["plot"]
    out = [b["text"] for b in found["labels"] if b["top"] < plot["top"] - 1 or b["bottom"] > plot["bottom"] + 1]
    assert out == [], (plot, found["labels"])
    labels = [{**b, "kind": "label"} for b in found["labels"]]
    others = [{**b, "kind": "point", "text": ""} for b in found["points"]]
    others += [{**b, "kind": "line", "text": ""} for b in found["lines"]]
    assert len(others) > len(labels)
    assert overlapping(labels) == []
    clash = [pair for pair in overlapping(labels + others) if pair[0].startswith("label") and "label" not in pair[1]]
    assert clash == [], clash
    assert severe_console_errors(browser) == []


# The current points' labels (traces before A's) and the peak rate's that one of A's lines runs through: A's
# paths sampled a pixel apart, against each label's box less a pixel all round.
LABELS_ON_A_JS = """
const gd = document.querySelector(`#fig-${arguments[0]} .js-plotly-plot`);
const pinned = gd && gd.layout && gd.layout.meta && gd.layout.meta.pinned;
const traces = gd ? gd.querySelectorAll('.scatterlayer .trace') : [];
if (!pinned || traces.length <= pinned.first) return false;
const peak = Array.from(gd.querySelectorAll('.annotation-text')).filter((el) => el.textContent.startsWith('peak'));
const labels = Array.from(gd.querySelectorAll('.textpoint text')).concat(peak).map((el) => {
  const r = el.getBoundingClientRect();
  return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, text: el.textContent};
}).filter((b) => b.text);
const points = [];
for (const trace of Array.from(traces).slice(pinned.first)) {
  const path = trace.querySelector('path.js-line');
  if (!path) continue;
  const m = path.getScreenCTM();
  for (let s = 0; s <= path.getTotalLength(); s += 1) {
    const p = path.getPointAtLength(s);
    points.push([m.a * p.x + m.e, m.d * p.y + m.f]);
  }
}
const on = (b) => points.some(([x, y]) => x > b.left + 1 && x < b.right - 1 && y > b.top + 1 && y < b.bottom - 1);
return labels.length > 0 && points.length > 0 && {labels: labels.length, boxes: labels,
                                                   on: labels.filter(on).map((b) => b.text)};
"""


@pytest.mark.parametrize(
    "query",
    [
        "?a=preset:mi300x4",
        # A's TTFT climbs to its peak through every height the peak label could take over its width on a phone,
        # up to the E2E curve: the label's words go to the legend.
        # (On NVLink 4.0 as drawn when the test was set: a GPU named alone now takes its own link.)
        "?model=kimi-k2&gpu=mi355x&ic=nvlink&a=model:kimi-k2,gpu:mi300x,ic:nvlink",
        "?gpu=b300&wdtype=fp4&mode=calibrated&mtp=on&osl=4096&a=model:qwen3-235b-a22b,gpu:mi355x",
    ],
    ids=["h200-beside-mi300x", "kimi-mi355x-beside-mi300x", "b300-beside-faster-mi355x"],
)
@pytest.mark.parametrize("size", [(480, 360), (800, 450)], ids=["small", "wide"])
def test_fig12s_labels_keep_off_a_pinned_as_curves_and_each_other(browser, server, query, size):
    """Beside a slower A, A's faded E2E curve runs just above the current one, through the labels set up and to
    the left of the current points (at 800×450, all seven of 4…256 beside 4×MI300X): they go below and to the
    right there, which the rising curve leaves clear as well. A far faster A (B300 beside Qwen3-235B on MI355X)
    widened the rate axis and drew "64128256" run together, with A's E2E curve through the peak label. Kimi-K2
    on MI355X beside MI300X: A's climb to its peak left the peak label no clear height, and ran through it."""
    with viewport(browser, size[0], size[1]):
        browser.get(server.url + "embed/fig12" + query)
        figure_data(browser, 12)
        found = wait_js(browser, LABELS_ON_A_JS, args=(12,), what="Figure 12's labels beside A's curves")
        texts = [b["text"] for b in browser.execute_script(TEXT_BOXES_JS, 12) if b["kind"] in ("annotation", "legend")]
    assert found["labels"] >= 4 and found["on"] == [], found
    assert [t for t in texts if t.startswith("peak ")], texts  # on the plot or in the legend
    assert overlapping([{**b, "kind": "label"} for b in found["boxes"]]) == []
    assert severe_console_errors(browser) == []


def test_fig5_opens_on_log_x_for_a_small_machine_beside_the_presets(browser, server):
    """Two L40S beside the presets: on the linear axis the current curve was a stroke against the y axis, 2.5 %
    of the plot's width. Opened on log x (its toggle pressed), it spans a good part of the plot."""
    with viewport(browser, 800, 450):
        browser.get(server.url + "embed/fig5?model=gemma-3-27b&gpu=l40s&gpus=2&tp=2")
        figure_data(browser, 5)
        found = wait_js(
            browser,
            """const gd = document.querySelector('#fig-5 .js-plotly-plot');
               const pressed = gd && gd.querySelector(".updatemenu-button[aria-pressed='true']");
               const k = gd && gd._fullData && gd._fullData.findIndex((t) => t.name.endsWith('(current)'));
               if (!pressed || k < 0) return false;
               const path = gd.querySelectorAll('.scatterlayer .trace')[k].querySelector('path.js-line');
               const plot = gd.querySelector('.nsewdrag').getBoundingClientRect();
               return {type: gd._fullLayout.xaxis.type, pressed: pressed.getAttribute('aria-label'),
                       share: path.getBoundingClientRect().width / plot.width};""",
            what="Figure 5's current curve",
        )
    assert found["type"] == "log" and found["pressed"] == "log x", found
    assert found["share"] > 0.3, found
    assert severe_console_errors(browser) == []


def test_the_check_tables_notes_read_as_prose_on_a_phone(browser, server):
    """The check table scrolls sideways on a phone; its last column, a sentence or two, was squeezed to about
    100 px, six words a line, and a note made its row 14 lines tall."""
    with phone(browser, "light"):
        browser.get(server.url + "methods")
        found = wait_js(
            browser,
            """const t = Array.from(document.querySelectorAll('table.num-table'))
                 .find((el) => el.querySelector('th:last-child')?.textContent === 'Note');
               if (!t) return false;
               const em = parseFloat(getComputedStyle(t.querySelector('td')).fontSize);
               const line = parseFloat(getComputedStyle(t.querySelector('td')).lineHeight);
               const rows = Array.from(t.querySelectorAll('tbody tr'));
               return {em, line, note: t.querySelector('th:last-child').getBoundingClientRect().width,
                       tallest: Math.max(...rows.map((r) => r.getBoundingClientRect().height))};""",
            what="the check table",
        )
    assert found["note"] >= 20 * found["em"], found
    assert found["tallest"] <= 8 * found["line"], found


@pytest.mark.parametrize("fig", range(1, 15))
def test_a_pinned_as_legend_flows_in_rows_in_a_small_frame(browser, server, fig):
    """With A pinned in a 480×360 frame, a legend stacked one entry a row, behind a scroll bar, left its plot
    64–70 px: Figure 10's, whose limits each have a legend group, in the comparison's "normal" trace order;
    Figures 8 and 9's, whose full names took a row each, 10 px apart (Plotly's gap between legend groups)."""
    with viewport(browser, 480, 360):
        browser.get(server.url + f"embed/fig{fig}?a=preset:mi300x4")
        figure_data(browser, fig)
        found = wait_js(
            browser,
            f"""const gd = document.querySelector('#fig-{fig} .js-plotly-plot');
               const entries = Array.from(gd.querySelectorAll('.legend .traces'), (el) => el.getBoundingClientRect());
               const bar = gd.querySelector('.legend .scrollbar');
               return gd.dataset.compact === 'true' && entries.length > 0 && {{
                 entries: entries.length, rows: new Set(entries.map((r) => Math.round(r.top))).size,
                 scrolls: !!bar && bar.getBoundingClientRect().height > 0, plot: gd._fullLayout._size.h,
                 graph: gd.clientHeight}};""",
            30,
            what=f"Figure {fig} drawn compact with A",
        )
    assert found["entries"] <= 3 or found["rows"] < found["entries"], found  # more than three share rows
    assert not found["scrolls"] and found["plot"] >= found["graph"] / 3, found
    assert severe_console_errors(browser) == []
