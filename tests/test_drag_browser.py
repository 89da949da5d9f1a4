"""A dragged slider in real Chromium: the label and Figure 1 end on the drag's last value, and the steps taken
while a redraw is in flight write nothing to Dash's store, the label included (each store update is re-checked
by every component of the page, which is what a drag costs the browser)."""

from __future__ import annotations

import pytest
from browser_checks import SETTLED_IN_VIEW_JS, Mouse, figure_data, wait_js
from conftest import reset_browser, severe_console_errors

from inferx.figures import registry
from inferx.scenario.controls import PARAMS, value_at
from pages._controls import format_slider_value
from pages._ids import control_id, value_id

pytestmark = pytest.mark.browser
FIG1 = "document.querySelector('#fig-1 .js-plotly-plot')"


@pytest.fixture
def top(chromium, server):
    """`/` at its defaults with every graph drawn, scrolled to the top (Figure 1 in view), its store still
    (`settled`). The page is kept from one test to the next only if this fixture loaded it: the session's one
    Chromium may still show `/` as another test left it, in calibrated mode say, where Figure 1 never shows the
    article's slope BW / 37 GB these tests wait for (each wait then ran to its ten-minute timeout)."""
    return drawn_top(chromium, server)


@pytest.fixture
def fresh_top(chromium, server):
    """`top`, always newly loaded: for a test whose page must not carry what the tests before it left (a pinned
    A's table above the figures, a half-finished drag of a failed first attempt)."""
    chromium.execute_script("window.__dragTop = null")
    return drawn_top(chromium, server)


def drawn_top(chromium, server):
    if not chromium.execute_script("return window.__dragTop === arguments[0]", server.url):
        reset_browser(chromium)
        chromium.get(server.url)
        drawn = " && ".join(
            f"((document.querySelector('#fig-{f[3:]} .js-plotly-plot') || {{}}).data || []).length > 0"
            for f in registry.DASHBOARD
        )
        wait_js(chromium, f"return {drawn};", what="every figure of / drawn")
        chromium.execute_script("window.__dragTop = arguments[0]", server.url)
    chromium.execute_script("window.scrollTo({top: 0, behavior: 'instant'})")
    settled(chromium)
    return chromium


def label(browser, name: str) -> str:
    return browser.execute_script("return document.getElementById(arguments[0]).textContent", value_id(name))


def test_a_fast_drag_ends_on_its_exact_last_value(top):
    """Inputs every 4 ms for a second, far faster than a redraw: whatever was skipped, the last value wins."""
    browser = top
    last = browser.execute_async_script(
        """
        const id = arguments[0], done = arguments[1], t0 = performance.now();
        let bw = 0, i = 0;
        const step = () => {
          bw = 30 + ((i * 37) % 900) / 10 + 0.03;  // 30.03 to 120 TB/s, in no order (no rounding ties)
          i += 1;
          window.dash_clientside.set_props(id, {value: Math.log2(bw), drag_value: Math.log2(bw)});
          if (performance.now() - t0 < 1000) return setTimeout(step, 4);
          done(bw);
        };
        step();
        """,
        control_id("bw"),
    )
    # The roofline's memory-bound slope at B = 1 is BW / (P_active·b_w) = BW / 37 GB.
    wait_js(
        browser,
        f"return Math.abs({FIG1}.data[0].y[0] / ({last} * 1e12 / 37e9) - 1) < 1e-3 && !window.inferxRedraws.inFlight",
        what=f"Figure 1 at the last bandwidth, {last} TB/s",
    )
    assert label(browser, "bw") == format_slider_value("bw", last)
    assert browser.execute_script("return window.inferxRedraws.next") is None  # nothing left waiting
    assert severe_console_errors(browser) == []


def test_steps_during_a_redraw_write_nothing_to_dashs_store(top):
    """With a redraw in flight a step has nothing to send: the callback then updates no output (Dash would
    still turn a no_update output into a store update), and the moved slider's label is written in the page
    itself (a set_props would be two store updates)."""
    browser = top
    # Hold the request in flight: the browser waits for its answer before it sends the next state.
    browser.execute_script("window.inferxRedraws.inFlight = true; window.inferxRedraws.since = performance.now();")
    try:
        result = browser.execute_async_script(
            """
            const id = arguments[0], labelId = arguments[1], done = arguments[2], api = window.dash_component_api;
            const props = () => api.getLayout('redraw-request').props;  // replaced by any store update of it
            const before = props(), figure = api.getLayout({role: 'figure', fig: 'fig1'}).props;
            const label = api.getLayout(labelId).props;
            let k = 0;
            const step = () => {
              const bw = 40 + k;
              window.dash_clientside.set_props(id, {value: Math.log2(bw), drag_value: Math.log2(bw)});
              k += 1;
              if (k < 5) return setTimeout(step, 60);
              setTimeout(() => done({
                sameRequest: props() === before,
                sameFigure: api.getLayout({role: 'figure', fig: 'fig1'}).props === figure,
                sameLabel: api.getLayout(labelId).props === label,
                waiting: window.inferxRedraws.next && window.inferxRedraws.next.values,
                last: bw,
              }), 300);
            };
            step();
            """,
            control_id("bw"),
            value_id("bw"),
        )
        assert result["sameRequest"] and result["sameFigure"] and result["sameLabel"], result
        assert label(browser, "bw") == format_slider_value("bw", result["last"])
        # The newest state waits for the answer; the others were dropped.
        assert value_at(PARAMS["bw"], result["waiting"][list(PARAMS).index("bw")]) == result["last"]
    finally:
        browser.execute_script("window.inferxRedraws.inFlight = false; window.inferxRedraws.next = null;")
    # Released, the next step is sent and drawn as usual.
    browser.execute_script("window.dash_clientside.set_props(arguments[0], {value: Math.log2(47.5)})", control_id("bw"))
    wait_js(browser, f"return Math.abs({FIG1}.data[0].y[0] / (47.5e12 / 37e9) - 1) < 1e-3", what="Figure 1 redrawn")
    assert severe_console_errors(browser) == []


def test_an_answer_touches_only_the_graphs_it_draws(top):
    """An answer for the graphs in view leaves the store's other graphs alone: a no_update output would still
    replace each one's props (one store update per graph of the page)."""
    browser = top
    browser.execute_script("window.inferxLazy.idleMs = 600000")  # no idle drawing of the stale graphs here
    try:
        browser.execute_script(
            "window.__fig9 = window.dash_component_api.getLayout({role: 'figure', fig: 'fig9'}).props;"
            "window.dash_clientside.set_props(arguments[0], {value: Math.log2(61.5)})",
            control_id("bw"),
        )
        wait_js(browser, f"return Math.abs({FIG1}.data[0].y[0] / (61.5e12 / 37e9) - 1) < 1e-3", what="Figure 1")
        wait_js(browser, "return !window.inferxRedraws.inFlight", what="the answer handled")
        same = "return window.dash_component_api.getLayout({role: 'figure', fig: 'fig9'}).props === window.__fig9"
        assert browser.execute_script(same)
        assert browser.execute_script("return window.inferxLazy.stale.has('fig9')")
    finally:
        browser.execute_script("window.inferxLazy.idleMs = 600")
    # The next change, left alone, ends with every graph drawn.
    browser.execute_script("window.dash_clientside.set_props(arguments[0], {value: Math.log2(62)})", control_id("bw"))
    settled = "window.inferxLazy.waiting.size === 0 && window.inferxLazy.stale.size === 0"
    wait_js(browser, f"return {settled} && !({same[7:]})", what="Figure 9 drawn once the page is idle")
    assert severe_console_errors(browser) == []


def test_a_batch_step_sets_only_the_readouts_that_change(top):
    """The explorer's callback has thirteen outputs; a step of the batch slider changes the dot's readouts,
    not the price, the regime sentence or the goodput line (the server's, until the next redraw)."""
    browser = top
    browser.execute_script("document.getElementById('card-fig6').scrollIntoView({behavior: 'instant'})")
    browser.execute_script("window.inferxRedraws.inFlight = true; window.inferxRedraws.since = performance.now();")
    try:
        result = browser.execute_async_script(
            """
            const id = arguments[0], done = arguments[1], api = window.dash_component_api;
            const kept = ['readout-price', 'readout-regime', 'readout-goodput'];
            const before = kept.map((k) => api.getLayout(k).props);
            const shown = document.getElementById('batch-value').textContent;
            window.dash_clientside.set_props(id, {value: 5.5, drag_value: 5.5});  // 2^5.5 = 45 requests
            const wait = () => document.getElementById('batch-value').textContent === shown
              ? setTimeout(wait, 20)
              : done({same: kept.map((k, i) => api.getLayout(k).props === before[i]),
                      batch: document.getElementById('batch-value').textContent,
                      store: api.getLayout('batch-value').props.children});
            wait();
            """,
            control_id("batch"),
        )
        assert result["same"] == [True, True, True], result
        assert result["batch"] == result["store"] == "45", result
    finally:
        browser.execute_script("window.inferxRedraws.inFlight = false; window.inferxRedraws.next = null;")
        browser.execute_script("window.scrollTo({top: 0, behavior: 'instant'})")
    assert severe_console_errors(browser) == []


# Figure 1 shows bandwidth `v` (TB/s): its memory-bound slope at B = 1 is BW / 37 GB.
SHOWS = f"Math.abs({FIG1}.data[0].y[0] / (arguments[0] * 1e12 / 37e9) - 1) < 1e-3"
THUMB_NOW = "return Number(document.querySelector(`#${arguments[0]} [role=slider]`).getAttribute('aria-valuenow'))"


def tbs(position: float) -> float:
    """The bandwidth (TB/s) at a position of its log2 slider, as the server reads it."""
    return value_at(PARAMS["bw"], position)


COUNT_STORE = """
const s = window.store;
let prev = s.getState();
window.__storeUpdates = 0;
window.__unsubscribe = s.subscribe(() => {
  if (s.getState() !== prev) window.__storeUpdates += 1;
  prev = s.getState();
});
"""


# A page whose figures are all drawn still updates Dash's store for about a second after it loads (stale graphs
# given their figures, components added), and a redraw's answer updates it too: a count of a drag's store updates
# starts once the store has been still for half a second.
QUIET = """
if (!window.__storeQuietSince) {
  window.__storeQuietSince = performance.now();
  window.store.subscribe(() => { window.__storeQuietSince = performance.now(); });
}
return performance.now() - window.__storeQuietSince > 500
  && !window.inferxRedraws.inFlight && !(window.inferxDrag || {}).inFlight;
"""


def settled(browser) -> None:
    wait_js(browser, QUIET, what="no redraw pending and Dash's store still")


def test_a_pointer_drag_moves_figure_1_without_dash_and_ends_as_a_fresh_load_would(top):
    """Each step of a real drag reaches Figure 1 (through the drag route and Plotly) while Dash's store is not
    updated once; let go, the value goes to Dash, and the page, its address included, ends as a new page at
    that address draws it."""
    browser = top
    settled(browser)
    start = browser.execute_script("return window.dash_component_api.getLayout(arguments[0]).props.value", "ctl-bw")
    mouse = Mouse(browser, control_id("bw"))
    mouse.press()
    browser.execute_script(COUNT_STORE)
    try:
        seen = []
        for _ in range(5):
            mouse.move(6)  # about 15 TB/s a step
            now = browser.execute_script(THUMB_NOW, control_id("bw"))
            wait_js(browser, f"return {SHOWS};", args=(tbs(now),), what=f"Figure 1 at {tbs(now)} TB/s during the drag")
            assert label(browser, "bw") == format_slider_value("bw", tbs(now))
            seen.append(now)
        updates = browser.execute_script("return window.__storeUpdates")
        held = browser.execute_script("return window.dash_component_api.getLayout('ctl-bw').props.value")
    finally:
        mouse.release()
        browser.execute_script("window.__unsubscribe()")
    assert len(set(seen)) == 5 and start not in seen, seen
    assert updates == 0 and held == start, (updates, held)
    # Let go: Dash takes the last value, and the redraw, the address and the label follow it.
    final = seen[-1]
    assert browser.execute_script("return window.dash_component_api.getLayout('ctl-bw').props.value") == final
    wait_js(browser, f"return {SHOWS} && location.search.includes('bw=' + arguments[0]);", args=(tbs(final),))
    settled(browser)
    assert label(browser, "bw") == format_slider_value("bw", tbs(final))
    thumb = "return document.querySelector('#ctl-bw [role=slider]').getAttribute('aria-valuetext')"
    assert browser.execute_script(thumb) == format_slider_value("bw", tbs(final))
    dragged = figure_data(browser, 1)
    browser.get(browser.current_url)
    assert figure_data(browser, 1) == dragged
    assert severe_console_errors(browser) == []


def test_a_drag_let_go_where_it_started_gives_figure_1_its_own_figure_back(top):
    """Back where it was taken, the value does not change, so Dash draws nothing: the graph shows its own
    figure again instead of the drag's last step."""
    browser = top
    settled(browser)
    # A first drag puts the slider on the value under a known pixel, so the second can come back to it.
    mouse = Mouse(browser, control_id("bw"))
    mouse.press()
    mouse.move(8)
    x1 = mouse.x
    mouse.release()
    start = browser.execute_script(THUMB_NOW, control_id("bw"))
    wait_js(browser, f"return {SHOWS};", args=(tbs(start),), what="Figure 1 after the first drag")
    settled(browser)
    before = figure_data(browser, 1)
    mouse = Mouse(browser, control_id("bw"))
    mouse.press()
    mouse.send("mouseMoved", x1 + 20)
    moved = browser.execute_script(THUMB_NOW, control_id("bw"))
    wait_js(browser, f"return {SHOWS};", args=(tbs(moved),), what="Figure 1 following the drag")
    mouse.send("mouseMoved", x1)
    assert browser.execute_script(THUMB_NOW, control_id("bw")) == start
    mouse.release()
    wait_js(browser, f"return {SHOWS};", args=(tbs(start),), what="Figure 1 back at the start")
    settled(browser)
    assert figure_data(browser, 1) == before
    assert browser.execute_script("return window.dash_component_api.getLayout('ctl-bw').props.value") == start
    assert label(browser, "bw") == format_slider_value("bw", tbs(start))
    assert severe_console_errors(browser) == []


def test_a_drag_in_an_embeds_drawer_moves_its_figure_and_its_scenario_line(browser, server):
    """An embed has no batch slider and its controls in a drawer over the figure: the drag's state is made
    without the batch, its figure follows, and let go, the scenario line names the value."""
    browser.set_window_size(800, 500)
    browser.get(server.url + "embed/fig1")
    wait_js(browser, f"return ({FIG1} || {{}}).data && document.getElementById('embed-settings-toggle');")
    browser.execute_script("document.getElementById('embed-settings-toggle').click()")
    thumb = f"document.querySelector('#{control_id('bw')} [role=slider]')"
    wait_js(browser, f"return {thumb};", what="the drawer's bandwidth slider")
    # Pressed once the drawer has slid in and the thumb stands still.
    wait_js(browser, SETTLED_IN_VIEW_JS, args=(browser.execute_script(f"return {thumb}"),), what="the thumb still")
    start = browser.execute_script(THUMB_NOW, control_id("bw"))
    mouse = Mouse(browser, control_id("bw"))
    mouse.press()
    try:
        for _ in range(3):
            mouse.move(5)
            now = browser.execute_script(THUMB_NOW, control_id("bw"))
            wait_js(browser, f"return {SHOWS};", args=(tbs(now),), what=f"the embed's Figure 1 at {tbs(now)} TB/s")
        held = browser.execute_script("return window.dash_component_api.getLayout('ctl-bw').props.value")
    finally:
        mouse.release()
    assert now != start and held == start, (start, now, held)  # drawn by the drag's own redraws
    line = format_slider_value("bw", tbs(now))
    wait_js(
        browser, "return document.querySelector('.embed-scenario').textContent.includes(arguments[0])", args=(line,)
    )
    assert severe_console_errors(browser) == []


def test_a_drag_with_a_pinned_draws_a_beside_each_step(top):
    """The drag's state carries the pinned scenario A from Dash's store: every step's figure keeps A's dashed
    traces beside the moving ones."""
    browser = top
    settled(browser)
    has_a = f"return {FIG1}.data.some((t) => (t.name || '').startsWith('A: '))"
    browser.execute_script("document.getElementById('pin-a').click()")
    wait_js(browser, has_a, what="A's traces on Figure 1")
    settled(browser)
    # A drag draws the graphs in view only, and A's table now sits above Figure 1: a taller window holds both
    # the slider and the figure.
    size = browser.get_window_size()
    browser.set_window_size(size["width"], 1400)
    try:
        mouse = Mouse(browser, control_id("bw"))
        mouse.press()
        try:
            mouse.move(10)
            now = browser.execute_script(THUMB_NOW, control_id("bw"))
            wait_js(browser, f"return {SHOWS};", args=(tbs(now),), what=f"Figure 1 at {tbs(now)} TB/s during the drag")
            during = browser.execute_script(has_a)
            posts = browser.execute_script("return window.inferxDrag.posts")
        finally:
            mouse.release()
            browser.execute_script("document.getElementById('unpin-a').click()")
    finally:
        browser.set_window_size(size["width"], size["height"])
    assert during and posts > 0
    wait_js(browser, f"return !({has_a[7:]})", what="A gone after Unpin")
    settled(browser)
    assert severe_console_errors(browser) == []


EXPLORER = "document.querySelector('#fig-6 .js-plotly-plot')"
READOUTS = "return ['readout-throughput', 'readout-ttft', 'readout-itl', 'readout-rho', 'batch-value']" \
    ".map((id) => document.getElementById(id).textContent)"  # fmt: skip


def test_a_pointer_drag_of_the_batch_moves_the_explorer_without_dash_and_ends_as_a_fresh_load_would(fresh_top):
    """The batch slider's drag places the explorer's dot and readouts from its frontier in the browser, with no
    request and no update of Dash's store (through Dash a step cost about 40); let go, the batch goes to Dash
    once, and the page, its address included, ends as a new page at that address draws it."""
    browser = fresh_top
    thumb = browser.execute_script("return document.querySelector('#ctl-batch [role=slider]')")
    browser.execute_script("arguments[0].scrollIntoView({block: 'center', behavior: 'instant'})", thumb)
    wait_js(browser, SETTLED_IN_VIEW_JS, args=(thumb,), what="the batch slider in view")
    settled(browser)
    # Graphs left stale by earlier changes are drawn when near the view or idle, through Dash: let them be.
    lazy = "return window.inferxLazy.waiting.size === 0 && window.inferxLazy.stale.size === 0"
    wait_js(browser, lazy, what="every graph drawn")
    start = browser.execute_script("return window.dash_component_api.getLayout(arguments[0]).props.value", "ctl-batch")
    dot = f"{EXPLORER}.data[1].customdata[0][0]"
    mouse = Mouse(browser, control_id("batch"))
    mouse.press()
    browser.execute_script(COUNT_STORE + "window.__posts = window.inferxDrag.posts;")
    try:
        seen = []
        for _ in range(4):
            mouse.move(8)
            now = browser.execute_script(THUMB_NOW, control_id("batch"))
            batch = round(2**now)
            wait_js(browser, f"return {dot} === arguments[0];", args=(batch,), what=f"the dot at B = {batch}")
            assert browser.execute_script(READOUTS)[4] == f"{batch:,}"
            seen.append(now)
        updates = browser.execute_script("return window.__storeUpdates")
        posts = browser.execute_script("return window.inferxDrag.posts - window.__posts")
        held = browser.execute_script("return window.dash_component_api.getLayout('ctl-batch').props.value")
    finally:
        mouse.release()
        browser.execute_script("window.__unsubscribe()")
    assert len(set(seen)) == 4 and start not in seen, seen
    assert (updates, posts, held) == (0, 0, start)
    final = round(2 ** seen[-1])
    wait_js(browser, "return location.search.includes('batch=' + arguments[0]);", args=(final,), what="the address")
    settled(browser)
    wait_js(browser, f"return {dot} === arguments[0];", args=(final,), what="the dot after the release")
    shown = browser.execute_script(READOUTS)
    browser.get(browser.current_url)
    wait_js(browser, f"return ({EXPLORER} || {{}}).data && {dot} === arguments[0];", args=(final,), what="reloaded")
    same = f"{READOUTS}.join('|') === arguments[0];"
    wait_js(browser, same, args=("|".join(shown),), what="the same readouts after a reload")
    assert severe_console_errors(browser) == []
