"""Dark mode, print, the phone's controls drawer and embeds sized to their frame, in real headless Chromium.

Sizes and media are set through Chrome DevTools (device metrics, emulated media) so the viewport is exact; each
test puts them back, since the session shares one browser.
"""

from __future__ import annotations

import base64
import time
from contextlib import contextmanager

import pytest
from browser_checks import click, element, figure_data, press_slider, viewport, wait_figure_change, wait_js
from conftest import severe_console_errors
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

pytestmark = pytest.mark.browser

# The relative luminance (WCAG) of an element's computed CSS colour, or of a colour string.
LUMINANCE_JS = """
function luminance(colour) {
  const probe = document.createElement('span');
  probe.style.color = colour;
  document.body.appendChild(probe);
  const [r, g, b] = getComputedStyle(probe).color.match(/[\\d.]+/g).map(Number);
  probe.remove();
  const lin = (c) => ((c /= 255) <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4));
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}
"""
DARK, LIGHT = 0.05, 0.8  # luminance below DARK reads as a dark surface, above LIGHT as a light one
# A4 portrait inside style.css's 15 mm @page margins, in CSS pixels (96 per inch).
A4_PRINT_WIDTH = (210 - 2 * 15) / 25.4 * 96


# Text the page styles itself (style.css), checked in both themes against the background it sits on.
TEXT = (
    *(".ctl-group", ".ctl-label", ".ctl-value", ".unit", ".caption", ".readout-label", ".readout-value"),
    *(".section-lead", ".card-title", ".embed-title", ".embed-scenario", ".theme-toggle .btn", ".navbar .nav-link"),
)
CONTRAST_JS = (
    LUMINANCE_JS
    + r"""
function background(el) {
  for (; el; el = el.parentElement) {
    const c = getComputedStyle(el).backgroundColor;
    if (!/rgba\(.*, 0\)$/.test(c) && c !== 'transparent') return c;
  }
  return 'rgb(255, 255, 255)';
}
return arguments[0].flatMap((sel) => [...document.querySelectorAll(sel)].slice(0, 3).map((el) => {
  const a = luminance(getComputedStyle(el).color), b = luminance(background(el));
  return [sel, (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)];
}));
"""
)


def low_contrast(driver, settle: float = 3.0) -> list:
    """The page's own text below 4.5:1 against its background (WCAG AA), as (selector, ratio). Buttons fade
    between colours for 0.15 s after a click, so a low ratio counts only once it has lasted `settle` seconds."""
    deadline = time.monotonic() + settle
    while True:
        found = driver.execute_script(CONTRAST_JS, list(TEXT))
        assert found, "none of the checked text is on the page"
        low = [(sel, round(ratio, 2)) for sel, ratio in found if ratio < 4.5]
        if not low or time.monotonic() > deadline:
            return low
        time.sleep(0.25)


def page_background(driver) -> float:
    """Luminance of what the reader sees behind the content: the body's background colour."""
    return driver.execute_script(LUMINANCE_JS + "return luminance(getComputedStyle(document.body).backgroundColor);")


def paper(driver, fig: int) -> float:
    """Luminance of the paper colour Plotly drew figure `fig` with."""
    script = LUMINANCE_JS + (
        f"const gd = document.querySelector('#fig-{fig} .js-plotly-plot');"
        "return gd && gd._fullLayout ? luminance(gd._fullLayout.paper_bgcolor) : null;"
    )
    return wait_js(driver, script, what=f"figure {fig}'s paper colour")


def wait_paper(driver, fig: int, dark: bool) -> None:
    test = f"< {DARK}" if dark else f"> {LIGHT}"
    script = LUMINANCE_JS + (
        f"const gd = document.querySelector('#fig-{fig} .js-plotly-plot');"
        f"return !!(gd && gd._fullLayout) && luminance(gd._fullLayout.paper_bgcolor) {test};"
    )
    wait_js(driver, script, what=f"figure {fig} drawn {'dark' if dark else 'light'}")


@contextmanager
def media(driver, kind: str = "", scheme: str | None = None):
    features = [{"name": "prefers-color-scheme", "value": scheme}] if scheme else []
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": kind, "features": features})
    try:
        yield
    finally:
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "", "features": []})


def rect(driver, selector: str) -> dict:
    return driver.execute_script(
        "const r = document.querySelector(arguments[0]).getBoundingClientRect();"
        "return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width, height: r.height};",
        selector,
    )


def visible(driver, selector: str) -> bool:
    return driver.execute_script(
        "const e = document.querySelector(arguments[0]); if (!e) return false;"
        "const s = getComputedStyle(e), r = e.getBoundingClientRect();"
        "return s.visibility === 'visible' && s.display !== 'none' && r.width > 0 &&"
        " r.right > 0 && r.bottom > 0 && r.left < innerWidth && r.top < innerHeight;",
        selector,
    )


def wait_settled(driver, selector: str) -> dict:
    """The element's box once it has stopped moving (a drawer slides in over 0.2 s)."""
    script = (
        "const el = document.querySelector(arguments[0]), r = el.getBoundingClientRect();"
        "const key = [r.left, r.top, r.width, r.height].join(); const same = key === el.dataset.ixRect;"
        "el.dataset.ixRect = key; return same;"
    )
    wait_js(driver, script, what=f"{selector} to settle", args=(selector,))
    return rect(driver, selector)


def test_theme_from_the_address_makes_an_embed_dark(browser, server):
    browser.get(server.url + "embed/fig5?theme=dark")
    figure_data(browser, 5)
    wait_paper(browser, 5, dark=True)
    assert page_background(browser) < DARK
    # The figure's text is light on it, and the card's text reads at >= 4.5:1.
    font = browser.execute_script(
        LUMINANCE_JS + "return luminance(document.querySelector('#fig-5 .js-plotly-plot')._fullLayout.font.color);"
    )
    assert (font + 0.05) / (paper(browser, 5) + 0.05) >= 4.5
    assert low_contrast(browser) == []
    assert browser.execute_script("return document.documentElement.getAttribute('data-bs-theme')") == "dark"
    # An embed keeps no storage, whatever its theme.
    assert browser.execute_script("return Object.keys(localStorage).length") == 0
    assert severe_console_errors(browser) == []


def test_theme_follows_the_system_and_the_toggle_remembers_a_choice(browser, server):
    with media(browser, scheme="dark"):
        browser.get(server.url)
        figure_data(browser, 1)
        wait_paper(browser, 1, dark=True)
        assert page_background(browser) < DARK
        assert browser.execute_script("return document.documentElement.dataset.themeChoice") == "auto"
        assert low_contrast(browser) == []

        # Light, from the keyboard: the choice wins over the system and is remembered.
        light = element(browser, "[data-theme-choice='light']")
        browser.execute_script("arguments[0].focus()", light)
        light.send_keys(Keys.ENTER)
        wait_paper(browser, 1, dark=False)
        assert page_background(browser) > LIGHT
        assert low_contrast(browser) == []
        assert light.get_attribute("aria-pressed") == "true"
        assert browser.execute_script("return localStorage.getItem('inferx-theme')") == "light"

        browser.refresh()
        figure_data(browser, 1)
        wait_paper(browser, 1, dark=False)
        # The address's theme wins over the remembered one.
        browser.get(server.url + "?theme=dark")
        figure_data(browser, 1)
        wait_paper(browser, 1, dark=True)
        # ... and is no unknown parameter to the page.
        assert browser.execute_script("return document.getElementById('url-notice')") is None

        # Auto forgets the choice and follows the (dark) system again.
        click(browser, element(browser, "[data-theme-choice='auto']"))
        wait_paper(browser, 1, dark=True)
        assert browser.execute_script("return localStorage.getItem('inferx-theme')") is None
        assert "theme=" not in browser.execute_script("return location.search")
    # The system turns light: auto follows without a reload.
    wait_paper(browser, 1, dark=False)
    assert severe_console_errors(browser) == []


def test_print_hides_navigation_and_fits_figures_to_the_page(browser, server):
    browser.get(server.url + "?theme=dark")
    figure_data(browser, 1)
    wait_paper(browser, 1, dark=True)
    with media(browser, kind="print"):
        wait_js(browser, "return getComputedStyle(document.querySelector('.navbar')).display === 'none'")
        for hidden in ("#controls-drawer", ".drawer-toggle-md", "#fig-1 .modebar-container"):
            assert browser.execute_script(f"return getComputedStyle(document.querySelector('{hidden}')).display") == (
                "none"
            ), hidden
        # Light on paper, whatever the screen's theme.
        wait_paper(browser, 1, dark=False)
        assert page_background(browser) > LIGHT
        width = "return document.querySelector('#fig-1 .main-svg').getBoundingClientRect().width"
        wait_js(browser, f"{width} <= {A4_PRINT_WIDTH}", what="Figure 1 at the printed page's width")
        assert browser.execute_script(width) > 0.9 * A4_PRINT_WIDTH
        card = "getComputedStyle(document.getElementById('card-fig1'))"
        assert browser.execute_script(f"return {card}.breakInside") == "avoid"
        pdf = base64.b64decode(
            browser.execute_cdp_cmd("Page.printToPDF", {"paperWidth": 8.27, "paperHeight": 11.69})["data"]
        )
        assert pdf.startswith(b"%PDF") and pdf.count(b"/Type /Page\n") + pdf.count(b"/Type/Page") >= 1
    # Back on screen: dark again, and the figure follows its column's width.
    wait_paper(browser, 1, dark=True)
    wait_js(
        browser,
        "const w = document.querySelector('#fig-1 .main-svg').getBoundingClientRect().width;"
        "return Math.abs(w - document.getElementById('fig-1').getBoundingClientRect().width) < 2;",
        what="Figure 1 back at its column's width",
    )
    assert severe_console_errors(browser) == []


def test_phone_shows_figures_first_and_controls_in_a_drawer(browser, server):
    with viewport(browser, 420, 850):
        browser.get(server.url)
        before = figure_data(browser, 1)
        # The first figure is whole in the first screen; the controls are out of the way, and nothing is wider.
        first = rect(browser, "#fig-1")
        assert 0 <= first["top"] and first["bottom"] <= 850
        assert not visible(browser, "#ctl-bw")
        assert browser.execute_script("const d = document.documentElement; return d.scrollWidth <= d.clientWidth")

        # The navbar folds into its toggler.
        assert not visible(browser, "#nav-inferencex")
        click(browser, element(browser, ".navbar-toggler"))
        wait_js(
            browser, "const a = document.getElementById('nav-inferencex'); return a.getBoundingClientRect().height > 0"
        )

        # The sticky Controls button stays on screen down the page and opens the drawer; at the page's end it sits
        # under the last figure, not over its last lines.
        browser.execute_script("window.scrollTo({top: 3000, behavior: 'instant'})")
        assert visible(browser, ".drawer-toggle-md")
        browser.execute_script("window.scrollTo({top: document.documentElement.scrollHeight, behavior: 'instant'})")
        assert rect(browser, ".drawer-toggle-md")["top"] >= rect(browser, "#figures")["bottom"]
        # Figure 1's card at the top of the screen: above it / says what inferx is and which model it shows.
        browser.execute_script("document.getElementById('card-fig1').scrollIntoView({behavior: 'instant'})")
        toggle = element(browser, ".drawer-toggle-md")
        toggle.click()
        wait_js(browser, "return getComputedStyle(document.getElementById('controls-drawer')).visibility === 'visible'")
        drawer = wait_settled(browser, "#controls-drawer")
        assert toggle.get_attribute("aria-expanded") == "true"
        # A bottom sheet: Figure 1 is still in view above it while a slider in the drawer moves it.
        assert drawer["top"] > rect(browser, "#fig-1")["top"] + 100
        press_slider(browser, "ctl-bw", Keys.END)
        wait_figure_change(browser, 1, before)
        # Scrolled down its controls, the drawer keeps its Close button in view, over the controls it passes.
        browser.execute_script("document.getElementById('controls-drawer').scrollTop = 600")
        close = browser.execute_script(
            "const b = document.querySelector('#controls-drawer .drawer-head button').getBoundingClientRect();"
            "const d = document.getElementById('controls-drawer').getBoundingClientRect();"
            "const hit = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);"
            "return {inside: b.top >= d.top - 1 && b.bottom <= d.bottom, top: !!hit && !!hit.closest('.drawer-head')};"
        )
        assert close == {"inside": True, "top": True}

        # Escape closes it and gives focus back to the button.
        browser.switch_to.active_element.send_keys(Keys.ESCAPE)
        wait_js(browser, "return getComputedStyle(document.getElementById('controls-drawer')).visibility === 'hidden'")
        assert (
            browser.execute_script("return document.activeElement.getAttribute('aria-controls')") == "controls-drawer"
        )
    assert severe_console_errors(browser) == []


def test_phone_shows_the_inferencex_figure_before_its_controls(browser, server):
    with viewport(browser, 420, 850):
        browser.get(server.url + "inferencex")
        wait_js(browser, "return document.querySelector('#fig-ix .main-svg')", what="the InferenceX figure")
        figure = rect(browser, "#fig-ix")
        assert figure["top"] < 850
        assert not visible(browser, "#ctl-bw")
        # The filters wait in a bottom sheet too: nothing stands between the card's title and the figure.
        assert not visible(browser, "#ix-filters") and not visible(browser, "#ix-hardware")
        # Only the empty state (no runs loaded: how to load some) may stand there.
        title = rect(browser, "#card-ix .card-title")
        empty = rect(browser, ".ix-empty") if visible(browser, ".ix-empty") else {"height": 0}
        assert figure["top"] - title["bottom"] - empty["height"] < 60, (title, empty, figure)
        # The sheet opens below the figure: the empty state above it can push it down, so bring it up first.
        browser.execute_script(
            "document.getElementById('fig-ix').scrollIntoView({block: 'start', behavior: 'instant'})"
        )
        figure = wait_settled(browser, "#fig-ix")
        toggle = element(browser, "[aria-controls='ix-filters']")
        click(browser, toggle)
        wait_js(browser, "return getComputedStyle(document.getElementById('ix-filters')).visibility === 'visible'")
        sheet = wait_settled(browser, "#ix-filters")
        assert toggle.get_attribute("aria-expanded") == "true" and visible(browser, "#ix-hardware")
        assert sheet["top"] > figure["top"] + 100 and sheet["bottom"] <= 851  # the figure stays in view above it
        browser.switch_to.active_element.send_keys(Keys.ESCAPE)
        wait_js(browser, "return getComputedStyle(document.getElementById('ix-filters')).visibility === 'hidden'")
        assert browser.execute_script("return document.activeElement.getAttribute('aria-controls')") == "ix-filters"

        click(browser, element(browser, ".drawer-toggle-md"))
        wait_js(browser, "return getComputedStyle(document.getElementById('controls-drawer')).visibility === 'visible'")
        wait_settled(browser, "#controls-drawer")
        assert visible(browser, "#controls-drawer .ctl-label")
    # On a desktop the filters sit above the figure, with no button.
    browser.get(server.url + "inferencex")
    wait_js(browser, "return document.querySelector('#fig-ix .main-svg')", what="the InferenceX figure")
    assert visible(browser, "#ix-hardware") and not visible(browser, "[aria-controls='ix-filters']")
    assert rect(browser, "#ix-filters")["bottom"] <= rect(browser, "#fig-ix")["top"]
    assert severe_console_errors(browser) == []


# Each tick label that reaches past its graph's edges, as "fig-N: label" (what Plotly's default check hides).
LABELS_PAST_EDGE_JS = """
return [...document.querySelectorAll('.js-plotly-plot')].flatMap((gd) => {
  const box = gd.getBoundingClientRect(), id = (gd.closest('[id^=fig-]') || gd).id;
  return [...gd.querySelectorAll('.xtick text, .ytick text')].filter((t) => {
    const r = t.getBoundingClientRect();
    return r.width > 0 && (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 ||
      r.bottom > box.bottom + 1);
  }).map((t) => `${id}: ${t.textContent}`);
});
"""


@pytest.mark.parametrize(
    "path", ["/", "/?mode=calibrated&a=preset:mi300x4", "/methods", "/inferencex", "/embed/fig8?a=preset:mi300x4"]
)
@pytest.mark.parametrize("size", [(1280, 900), (390, 844)])
def test_no_tick_label_reaches_past_its_graph(browser, server, path, size):
    """The figures turn off Plotly's check of every tick label against the graph's edges (`figures.AXIS`: it
    forced a layout of the page per label), so the margins must keep every label inside, where the check
    would have hidden it, at a desktop's width and a phone's, on every page with graphs."""
    with viewport(browser, *size):
        browser.get(server.url.rstrip("/") + path)
        graphs = wait_js(browser, "const n = document.querySelectorAll('.js-plotly-plot').length; return n > 0 && n")
        # Every graph drawn at this width (those out of view are drawn once the page is idle).
        wait_js(
            browser,
            "return [...document.querySelectorAll('.js-plotly-plot')].every((gd) => gd._fullLayout &&"
            " Math.abs(gd._fullLayout.width - gd.getBoundingClientRect().width) < 2 &&"
            " gd.querySelectorAll('.xtick text, .ytick text').length > 0)",
            what=f"{graphs} graphs drawn at {size[0]} px",
            timeout=90,
        )
        assert browser.execute_script(LABELS_PAST_EDGE_JS) == []


@pytest.mark.parametrize("width", [992, 1100, 1200, 1280])
def test_the_methods_tables_fit_a_desktop_column(browser, server, width):
    """On a desktop every table of /methods, the article's checks with their notes included, is read whole: no
    column runs past its box behind a sideways scroll bar (a phone scrolls the long check table sideways)."""
    with viewport(browser, width, 900):
        browser.get(server.url + "methods")
        wait_js(browser, "return document.querySelectorAll('.num-table').length > 3", what="the methods tables")
        wide = browser.execute_script(
            "return [...document.querySelectorAll('.table-responsive')]"
            ".filter((b) => b.scrollWidth > b.clientWidth + 1).map((b) => [b.scrollWidth, b.clientWidth]);"
        )
        assert wide == []


def test_dashboard_in_a_wiki_sized_window_does_not_scroll_sideways(browser, server):
    """800 px: the controls beside a 500 px column of figures, whose readouts and notes must fit it."""
    with viewport(browser, 800, 500):
        browser.get(server.url)
        figure_data(browser, 1)
        # Bootstrap makes scrolling smooth; a smooth scroll still running would undo the scroll back up.
        browser.execute_script("document.getElementById('card-fig7').scrollIntoView({behavior: 'instant'})")
        figure_data(browser, 7)
        fits = "const d = document.documentElement; return d.scrollWidth <= d.clientWidth;"
        wait_js(browser, fits, what="the page to fit 800 px")
        # The navbar folds behind its toggler rather than spilling its links and theme buttons.
        browser.execute_script("window.scrollTo({top: 0, behavior: 'instant'})")
        wait_js(browser, "return scrollY === 0", what="the page back at its top")
        assert visible(browser, ".navbar-toggler"), rect(browser, ".navbar-toggler")
        assert not visible(browser, ".theme-toggle")
    assert severe_console_errors(browser) == []


NOTE_JS = (
    "const box = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };"
    "const note = [...document.querySelectorAll('#fig-7 .annotation')].find((a) => a.textContent.includes('needs'));"
    "return note && {note: box(note), lines: Math.max(1, note.querySelectorAll('tspan.line').length),"
    " ticks: [...document.querySelectorAll('#fig-7 .ytick text')].map(box)};"
)


def test_a_note_in_a_600_px_frame_is_wrapped_clear_of_the_y_axis(browser, server):
    """600 px is not narrow (no compact layout), yet Figure 7's one-line note ran over the y axis's labels,
    so "1000" read as "10". A frame resized from wide to 600 px wraps it again."""
    with viewport(browser, 1000, 450):  # the same height: only the width calls for a redraw
        browser.get(server.url + "embed/fig7")
        figure_data(browser, 7)
        wide = wait_js(browser, f"const n = (() => {{ {NOTE_JS} }})(); return n && n.lines === 1 && n;", 30)
        assert wide["note"][2] <= 1000
        browser.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride", {"width": 600, "height": 450, "deviceScaleFactor": 1, "mobile": False}
        )
        boxes = wait_js(browser, f"const n = (() => {{ {NOTE_JS} }})(); return n && n.lines > 1 && n;", 30)
        wait_settled(browser, "#fig-7 .main-svg")
        boxes = browser.execute_script(NOTE_JS)
    left, top, right, bottom = boxes["note"]
    overlaps = [t for t in boxes["ticks"] if t[0] < right and left < t[2] and t[1] < bottom and top < t[3]]
    assert boxes["ticks"] and overlaps == [], boxes
    assert right <= 600
    assert severe_console_errors(browser) == []


@pytest.mark.parametrize("fig", [7, 9])
def test_a_note_of_several_lines_is_wrapped_to_a_small_frame(browser, server, fig):
    """A model that fits no format: Figures 7 and 9 give one line per curve that cannot be drawn, each longer
    than a 480 px frame is wide; only notes of one line were wrapped, so these ran off both sides."""
    notes = (
        f"return [...document.querySelectorAll('#fig-{fig} .annotation')].filter((a) => a.textContent.includes("
        "'needs')).map((a) => { const r = a.getBoundingClientRect();"
        " return {left: r.left, right: r.right, lines: a.querySelectorAll('tspan.line').length}; });"
    )
    with viewport(browser, 480, 360):
        browser.get(server.url + f"embed/fig{fig}?model=llama-3.1-405b&gpu=l40s&gpus=1")  # no trace: no figure_data
        boxes = wait_js(
            browser, f"const n = (() => {{ {notes} }})(); return n.length === 1 && n[0].lines > 3 && n;", 30
        )
        wait_settled(browser, f"#fig-{fig} .main-svg")
        boxes = browser.execute_script(notes)
    assert len(boxes) == 1 and boxes[0]["lines"] > 3  # three curves' reasons, at least one of them wrapped
    assert 0 <= boxes[0]["left"] and boxes[0]["right"] <= 480, boxes
    assert severe_console_errors(browser) == []


# Every drawn point of a figure's traces in page pixels, ten steps between neighbours, interpolated on the axes'
# own (log or linear) scale; and the box of each note that names a curve it cannot draw.
NOTE_AND_CURVES_JS = """
const gd = document.querySelector(`#fig-${arguments[0]} .js-plotly-plot`);
const fl = gd._fullLayout, r = gd.querySelector('.main-svg').getBoundingClientRect();
const xa = fl.xaxis, ya = fl.yaxis, pixels = [];
gd.data.forEach((t) => {
  const xs = Array.from(t.x || []).map((v) => v === null ? null : xa.d2l(v));
  const ys = Array.from(t.y || []).map((v) => v === null ? null : ya.d2l(v));
  xs.forEach((x, i) => {
    const n = i + 1 < xs.length && xs[i + 1] !== null && ys[i + 1] !== null ? 10 : 1;
    if (x === null || ys[i] === null) return;
    for (let k = 0; k < n; k++) {
      const px = x + (n > 1 ? (xs[i + 1] - x) * k / n : 0), py = ys[i] + (n > 1 ? (ys[i + 1] - ys[i]) * k / n : 0);
      const at = [r.left + fl._size.l + xa.l2p(px), r.top + fl._size.t + ya.l2p(py)];
      if (at.every(Number.isFinite)) pixels.push(at);  // a zero on a log axis is not drawn
    }
  });
});
const notes = [...gd.querySelectorAll('.annotation')].filter((a) => /needs|No communication/.test(a.textContent))
  .map((a) => { const b = a.querySelector('.cursor-pointer, rect') || a; const q = b.getBoundingClientRect();
                return {left: q.left, right: q.right, top: q.top, bottom: q.bottom}; });
return {pixels, notes};
"""


@pytest.mark.parametrize("size", [(480, 360), (800, 450)], ids=["frame", "wide"])
@pytest.mark.parametrize(
    ("fig", "address"),
    [
        (5, "?model=llama-3.1-405b&gpu=l40s&gpus=1"),
        (7, ""),
        (7, "?model=gemma-3-27b&gpu=l40s&gpus=1"),
        (8, "?model=llama-3-8b&gpu=l40s&gpus=1&tp=1"),
    ],
)
def test_a_note_beside_drawn_curves_covers_none_of_them(browser, server, fig, address, size):
    """A note naming a curve that cannot be drawn sits at the top of the plot over the curves that can: in a
    480×360 frame the walls of Figure 5's presets ran through it when the current machine did not fit, and
    Figure 8's "no communication" note at the foot covered the references' lowest points. The axis now reaches
    high enough that the curves stay under the note."""
    with viewport(browser, *size):
        browser.get(server.url + f"embed/fig{fig}{address}")
        figure_data(browser, fig)
        wait_settled(browser, f"#fig-{fig} .main-svg")
        got = browser.execute_script(NOTE_AND_CURVES_JS, fig)
    assert len(got["notes"]) == 1 and len(got["pixels"]) > 50, got["notes"]
    box = got["notes"][0]
    inside = [p for p in got["pixels"] if box["left"] <= p[0] <= box["right"] and box["top"] <= p[1] <= box["bottom"]]
    assert inside == [], (box, inside[:5])
    assert severe_console_errors(browser) == []


def test_the_explorers_readouts_show_every_value_whole_beside_the_controls(browser, server):
    """At 900 px three readouts a row in Figure 6's card cut "0.0007 (0.072 %)" to "0.0007 (0.072…"."""
    with viewport(browser, 900, 800):
        browser.get(server.url)
        figure_data(browser, 6)
        cut = (
            "const v = [...document.querySelectorAll('#card-fig6 .explorer-readouts .readout-value')];"
            "return v.length > 0 && v.every((e) => e.textContent.trim())"
            "  && v.filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => e.textContent);"
        )
        wait_js(browser, "const c = (() => { " + cut + " })(); return Array.isArray(c);", what="the readouts filled")
        assert browser.execute_script(cut) == []
    assert severe_console_errors(browser) == []


@pytest.mark.parametrize("size", [(800, 500), (420, 500)])
@pytest.mark.parametrize("fig", [5, 6])
def test_embed_fits_its_frame_with_title_and_scenario_first(browser, server, fig, size):
    width, height = size
    with viewport(browser, width, height):
        browser.get(server.url + f"embed/fig{fig}?preset=b200x8")
        figure_data(browser, fig)
        wait_settled(browser, f"#fig-{fig} .main-svg")
        scroll = browser.execute_script(
            "const d = document.documentElement; return [d.scrollWidth, d.scrollHeight, d.clientWidth, innerHeight];"
        )
        assert scroll[0] <= scroll[2] and scroll[1] <= scroll[3], f"scrolls at {width}×{height}: {scroll}"
        graph = rect(browser, f"#fig-{fig}")
        assert graph["bottom"] <= height and graph["height"] >= 150
        assert rect(browser, ".embed-title")["bottom"] <= rect(browser, ".embed-scenario")["top"] <= graph["top"]
        line = browser.find_element("id", "embed-scenario").text
        assert "8×B200" in line and "TB/s" in line and "tokens" in line

        # The settings drawer opens over the figure, which neither moves nor shrinks.
        click(browser, browser.find_element("id", "embed-settings-toggle"))
        wait_js(browser, "return getComputedStyle(document.getElementById('embed-settings')).visibility === 'visible'")
        wait_settled(browser, "#embed-settings")
        assert rect(browser, f"#fig-{fig}") == graph
        assert browser.execute_script("return document.documentElement.scrollHeight <= innerHeight")

        # A control in it redraws the figure, and the scenario line follows.
        before = figure_data(browser, fig)
        press_slider(browser, "ctl-bw", Keys.HOME)
        wait_figure_change(browser, fig, before)
        wait_js(browser, "return !document.getElementById('embed-scenario').textContent.includes('64.0 TB/s');")
    assert severe_console_errors(browser) == []


@pytest.mark.parametrize("size", [(420, 500), (800, 500)])
def test_explorer_embed_gives_its_graph_over_half_a_short_frame(browser, server, size):
    """Readouts and the batch slider share the frame with the graph: in a 500 px frame the readouts are one strip
    (scrolled sideways where narrow) and the graph keeps at least 55 % of the height, with no page scroll."""
    width, height = size
    with viewport(browser, width, height):
        browser.get(server.url + "embed/explorer")
        figure_data(browser, 6)
        wait_js(browser, "return document.getElementById('readout-energy').textContent.includes('tok/J')")
        graph = wait_settled(browser, "#fig-6 .main-svg")
        assert graph["height"] >= 0.55 * height, f"graph {graph['height']:.0f} px of a {height} px frame"
        scroll = browser.execute_script(
            "const d = document.documentElement; return [d.scrollWidth, d.scrollHeight, d.clientWidth, innerHeight];"
        )
        assert scroll[0] <= scroll[2] and scroll[1] <= scroll[3], f"the page scrolls at {width}×{height}: {scroll}"
        strip = rect(browser, ".embed-readouts")
        assert graph["bottom"] <= strip["top"] and rect(browser, "#btn-animate")["bottom"] <= height
        # Every readout is in the strip's one row, its whole value shown (none cut off with an ellipsis).
        cells = browser.execute_script(
            "return [...document.querySelectorAll('.embed-readouts .readout')].map((c) => {"
            " const r = c.getBoundingClientRect(), v = c.querySelector('.readout-value');"
            " return [Math.round(r.top), v.scrollWidth <= v.clientWidth + 1]; });"
        )
        assert len(cells) == 6 and len({top for top, _ in cells}) == 1 and all(whole for _, whole in cells), cells
        # The last readout can be scrolled into view from the keyboard: the strip takes focus.
        strip_el = element(browser, ".embed-readouts")
        browser.execute_script("arguments[0].focus()", strip_el)
        assert browser.execute_script("return document.activeElement.classList.contains('embed-readouts')")
        shown = (
            "const s = document.querySelector('.embed-readouts').getBoundingClientRect(),"
            " e = document.getElementById('readout-energy').getBoundingClientRect();"
            "return e.right <= s.right + 1 && e.left >= s.left - 1;"
        )
        for _ in range(30):  # an arrow key scrolls the focused strip by about 40 px
            if browser.execute_script(shown):
                break
            strip_el.send_keys(Keys.ARROW_RIGHT)
        assert browser.execute_script(shown), "the energy readout stays out of the strip's view"
    assert severe_console_errors(browser) == []


def test_a_legend_under_the_plot_keeps_its_distance_when_the_frame_grows(browser, server):
    """A legend placed in plot heights would drift away from a plot that grows: it is placed again on resize.
    (Figure 9: Figure 8 names its lines beside them, with no legend.)"""
    gap = (
        "const gd = document.querySelector('#fig-9 .js-plotly-plot'), s = gd._fullLayout._size;"
        "const g = gd.querySelector('.legend').getBoundingClientRect().top - gd.getBoundingClientRect().top"
        " - (s.t + s.h);"
    )
    with viewport(browser, 800, 500):
        browser.get(server.url + "embed/fig9")
        figure_data(browser, 9)
        wait_settled(browser, "#fig-9 .legend")
        small = browser.execute_script(gap + "return g;")
    with viewport(browser, 800, 1000):
        height = "return document.querySelector('#fig-9 .js-plotly-plot')._fullLayout._size.h > 600"
        wait_js(browser, height, what="the plot grown with its frame")
        wait_settled(browser, "#fig-9 .legend")
        near = gap + "return Math.abs(g - arguments[0]) < 20;"
        wait_js(browser, near, args=(small,), timeout=10, what=f"the legend {small:.0f} px under the plot again")
    assert severe_console_errors(browser) == []


@pytest.mark.parametrize(("fig", "height"), [(9, 500), (5, 440), (10, 440)])
def test_a_legend_under_a_short_plot_clears_the_x_axis_title(browser, server, fig, height):
    """In a wiki's 800×500 frame (or a shorter one) the plot is 150 px tall or less, and a legend 0.22 plot
    heights under it sat on the x-axis title; it is placed a fixed distance in pixels below the title."""
    boxes = (
        f"const gd = document.querySelector('#fig-{fig} .js-plotly-plot');"
        "const box = (s) => gd.querySelector(s).getBoundingClientRect();"
        "return [box('.g-xtitle').bottom, box('.legend').top];"
    )
    with viewport(browser, 800, height):
        browser.get(server.url + f"embed/fig{fig}")
        figure_data(browser, fig)
        wait_settled(browser, f"#fig-{fig} .legend")
        title_bottom, legend_top = browser.execute_script(boxes)
    assert legend_top >= title_bottom, (title_bottom, legend_top)
    assert severe_console_errors(browser) == []


@pytest.mark.parametrize(("fig", "width", "height"), [(6, 600, 450), (2, 800, 360)])
def test_a_short_frames_legend_gives_a_pinned_a_one_entry(browser, server, fig, width, height):
    """With A pinned, the legend's title and A's own row pushed a short frame's plot to Plotly's 64 px minimum
    and the legend onto the x-axis title: A's entries become one, named as the title named A."""
    boxes = (
        f"const gd = document.querySelector('#fig-{fig} .js-plotly-plot');"
        "const box = (s) => gd.querySelector(s).getBoundingClientRect();"
        "const names = [...gd.querySelectorAll('.legend .traces .legendtext')].map((e) => e.textContent);"
        "return {title: box('.g-xtitle').bottom, legend: box('.legend').top, names,"
        " titled: gd.querySelector('.legend .legendtitletext') !== null};"
    )
    with viewport(browser, width, height):
        browser.get(server.url + f"embed/fig{fig}?ctx=8192&a=preset:mi300x4,ctx:4096")
        figure_data(browser, fig)
        wait_js(browser, f"return !!document.querySelector('#fig-{fig} .legend .traces')", 30, what="a legend")
        wait_settled(browser, f"#fig-{fig} .legend")
        shown = browser.execute_script(boxes)
    a_entries = [n for n in shown["names"] if n.startswith("A")]
    assert a_entries == ["A = 4×MI300X · ctx 4,096 tokens (faded)"] and not shown["titled"], shown
    assert shown["legend"] >= shown["title"], shown
    assert severe_console_errors(browser) == []


def test_a_narrow_frame_names_figure_10s_entries_shortly_and_gives_the_plot_the_room(browser, server):
    """In a 480×360 frame Figure 10's six legend entries, in full, took four rows and left the plot 69 px: a
    narrow graph names them by their traces' short names (the regime without "-bound"), a wide one in full."""
    shown = (
        "const gd = document.querySelector('#fig-10 .js-plotly-plot');"
        "return [gd._fullLayout._size.h, [...gd.querySelectorAll('.legend .legendtext')].map((e) => e.textContent)];"
    )
    sizes = {}
    for width, height in ((480, 360), (800, 450)):
        with viewport(browser, width, height):
            browser.get(server.url + "embed/fig10")
            figure_data(browser, 10)
            wait_settled(browser, "#fig-10 .legend")
            sizes[width] = browser.execute_script(shown)
    plot, names = sizes[480]
    assert names == ["meets TTFT ≤ 500, TPOT ≤ 50 ms", "communication", "compute", "queue", "KV-capacity",
                     "best: B = 10,562"], names  # fmt: skip
    assert plot >= 90, plot
    assert sizes[800][1][1:3] == ["communication-bound", "compute-bound"], sizes[800]
    assert severe_console_errors(browser) == []


def on_a_phone(browser, server, fig: int, script: str):
    """`script`'s answer on Figure `fig`'s embed at 390 × 700, once its legend has settled."""
    with viewport(browser, 390, 700):
        browser.get(server.url + f"embed/fig{fig}")
        figure_data(browser, fig)
        wait_settled(browser, f"#fig-{fig} .legend")
        return browser.execute_script(script)


@pytest.mark.parametrize("fig", [4, 5])
def test_a_phones_legend_sits_above_the_linear_log_buttons(browser, server, fig):
    """On a narrow graph the legend moves above the plot, into the strip where Figures 4 and 5 keep their
    linear / log x buttons: it goes over them, and neither hides the other."""
    boxes = (
        f"const gd = document.querySelector('#fig-{fig} .js-plotly-plot');"
        "const box = (s) => gd.querySelector(s).getBoundingClientRect();"
        "return [box('.legend').bottom, box('.updatemenu-container').top, box('.updatemenu-container').bottom,"
        " gd.getBoundingClientRect().top + gd._fullLayout._size.t];"
    )
    legend_bottom, menu_top, menu_bottom, plot_top = on_a_phone(browser, server, fig, boxes)
    assert legend_bottom <= menu_top and menu_bottom <= plot_top, (legend_bottom, menu_top, menu_bottom, plot_top)
    assert severe_console_errors(browser) == []


@pytest.mark.parametrize("fig", [2, 4, 11])
def test_a_phones_tool_bar_leaves_the_legend_alone(browser, server, fig):
    """A narrow graph's legend sits above the plot, where Plotly's tool bar (always shown on a touch screen)
    covered its right end (Figure 11's "(assumed price)"): the bar moves to the corner over the y axis. And no
    graph offers plotly.js 3's "Share chart", which would upload the figure to Plotly Cloud."""
    boxes = (
        f"const gd = document.querySelector('#fig-{fig} .js-plotly-plot');"
        "const r = (b) => [b.left, b.top, b.right, b.bottom];"
        "const tools = [...gd.querySelectorAll('.modebar-btn')];"
        "const boxes = tools.map((b) => r(b.getBoundingClientRect()));"  # the buttons: the bar's box is wider
        "const bar = [0, 1, 2, 3].map((i) => (i < 2 ? Math.min : Math.max)(...boxes.map((b) => b[i])));"
        "return [bar, r(gd.querySelector('.legend').getBoundingClientRect()), tools.map((b) => b.dataset.title)];"
    )
    bar, legend, tools = on_a_phone(browser, server, fig, boxes)
    apart = bar[2] <= legend[0] or legend[2] <= bar[0] or bar[3] <= legend[1] or legend[3] <= bar[1]
    assert apart, (bar, legend)
    assert tools and not any("Share" in t for t in tools), tools
    assert severe_console_errors(browser) == []


def test_a_phones_legend_gives_a_pinned_a_one_entry_that_still_hides_all_of_it(browser, server):
    """With A pinned, Figure 2's legend above a phone's plot had twelve entries and a scroll bar, taller than
    the plot: A's entries become one, named as the desktop legend's title names A, and its click hides all of A."""
    legend = (
        "const gd = document.querySelector('#fig-2 .js-plotly-plot');"
        "const names = [...gd.querySelectorAll('.legend .traces .legendtext')].map((e) => e.textContent);"
        "const a = gd.data.filter((t) => t.legendgroup === 'pinned-A');"
        "return {names, title: gd.querySelector('.legend .legendtitletext') !== null,"
        " a: a.length, hidden: a.filter((t) => t.visible === 'legendonly').length,"
        " legend: gd.querySelector('.legend').getBoundingClientRect().height, plot: gd._fullLayout._size.h};"
    )
    with viewport(browser, 390, 700):
        browser.get(server.url + "embed/fig2?a=preset:mi300x4")
        figure_data(browser, 2)
        entries = "return document.querySelectorAll('#fig-2 .legend .traces').length === 4"
        wait_js(browser, entries, 30, what="the current three contexts and A")
        wait_settled(browser, "#fig-2 .legend")
        shown = browser.execute_script(legend)
        assert shown["names"][-1] == "A = 4×MI300X (faded)" and not shown["title"], shown
        # A draws its main curve alone (compare.main_of_a); its one entry still names it and hides all of it.
        assert not any(n.startswith("A:") for n in shown["names"]) and shown["a"] >= 1 and shown["hidden"] == 0
        assert shown["legend"] < shown["plot"], shown
        click(browser, browser.find_elements("css selector", "#fig-2 .legend .traces")[-1])
        wait_js(browser, legend.replace("return {", "const r = {") + " return r.hidden === r.a;", 30, what="A hidden")
    assert severe_console_errors(browser) == []


@pytest.mark.parametrize(("theme", "opacity"), [("light", 0.5), ("dark", 0.75)])
def test_a_pinned_as_faded_curves_stay_visible_in_the_dark(browser, server, theme, opacity):
    """At half opacity A's grey curves all but vanished on the dark card: there they are drawn at 0.75."""
    # A on another machine: A's main curve on the same machine would coincide with a current context's, undrawn.
    browser.get(server.url + f"embed/fig2?theme={theme}&ctx=4096&a=preset:mi300x4")
    figure_data(browser, 2)
    faded = (
        "return document.querySelector('#fig-2 .js-plotly-plot').data"
        ".filter((t) => t.legendgroup === 'pinned-A' && t.visible !== false).map((t) => t.opacity)"
    )
    wait_js(browser, f"const o = (() => {{ {faded} }})(); return o.length > 0", 30, what="A drawn")
    assert set(browser.execute_script(faded)) == {opacity}
    assert severe_console_errors(browser) == []


def _channels(colour: str) -> list[float]:
    """[r, g, b, a] of "#rrggbb", "#rgb", "rgb(…)" or "rgba(…)"."""
    if colour.startswith("#"):
        hexes = colour[1:] if len(colour) == 7 else "".join(c * 2 for c in colour[1:])
        return [int(hexes[i : i + 2], 16) for i in (0, 2, 4)] + [1.0]
    values = [float(v) for v in colour[colour.index("(") + 1 : -1].split(",")]
    return values + [1.0] * (4 - len(values))


def _band_contrast(fill: str, paper: str) -> float:
    """Contrast of a translucent fill ("rgba(r,g,b,a)") drawn on `paper` ("rgb(r,g,b)"), against the paper."""
    *rgb, alpha = _channels(fill)
    ground = _channels(paper)[:3]
    over = [alpha * c + (1 - alpha) * g for c, g in zip(rgb, ground, strict=True)]

    def lum(c):
        lin = [(v / 255) / 12.92 if v / 255 <= 0.04045 else ((v / 255 + 0.055) / 1.055) ** 2.4 for v in c]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted([lum(over), lum(ground)], reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_a_coloured_band_stands_out_from_the_dark_card_as_from_the_light_one(browser, server):
    """Figure 9's crimson gap at the light theme's alpha was 1.08:1 on the dark card (1.33:1 on white)."""
    band = (
        "const gd = document.querySelector('#fig-9 .js-plotly-plot');"
        "const t = gd && gd.data && gd.data.find((t) => t.name === 'Ideal-to-realistic gap');"
        "return t ? [t.fillcolor, gd._fullLayout.paper_bgcolor] : null;"
    )
    seen = {}
    for theme in ("light", "dark"):
        browser.get(server.url + f"embed/fig9?theme={theme}")
        figure_data(browser, 9)
        wait_paper(browser, 9, theme == "dark")
        seen[theme] = _band_contrast(*wait_js(browser, band, 30, what="the gap band"))
    assert seen["light"] > 1.25, seen
    assert seen["dark"] >= seen["light"] - 0.01, seen
    assert severe_console_errors(browser) == []


def tab_until(driver, script: str, limit: int = 200) -> int:
    """Tab presses until `script` (about document.activeElement) holds; fails after `limit`."""
    for presses in range(1, limit + 1):
        ActionChains(driver).send_keys(Keys.TAB).perform()  # to the page: a file input takes typed keys as a path
        if driver.execute_script(script):
            return presses
    raise AssertionError(f"not reached in {limit} Tab presses: {script}")


def test_a_phone_keyboard_reaches_the_controls_early_and_never_tabs_behind_the_drawer(browser, server):
    focused = "return document.activeElement.getAttribute('aria-controls') === 'controls-drawer'"
    drawer_shown = "return getComputedStyle(document.getElementById('controls-drawer')).visibility === 'visible'"
    with viewport(browser, 390, 844):
        browser.get(server.url)
        figure_data(browser, 1)
        browser.execute_script("document.body.focus()")
        # Skip link, brand, menu, then the Controls button: not after every figure's tools (135 presses).
        assert tab_until(browser, focused) <= 6

        # The navbar's menu closes on Escape, focus back on its button.
        click(browser, element(browser, ".navbar-toggler"))
        wait_js(browser, "return document.getElementById('navbar-menu').classList.contains('show')")
        element(browser, "#nav-inferencex").send_keys(Keys.ESCAPE)
        wait_js(browser, "return !document.getElementById('navbar-menu').classList.contains('show')")
        assert browser.execute_script("return document.activeElement.getAttribute('aria-controls')") == "navbar-menu"

        # Tab past the drawer's last control closes it rather than move focus to the page hidden behind it.
        click(browser, element(browser, ".drawer-toggle-md"))
        wait_js(browser, drawer_shown)
        wait_settled(browser, "#controls-drawer")
        inside = "return document.getElementById('controls-drawer').contains(document.activeElement)"
        assert browser.execute_script(inside)
        tab_until(browser, "return !document.getElementById('controls-drawer').contains(document.activeElement)")
        wait_js(browser, drawer_shown.replace("'visible'", "'hidden'"), what="the drawer closed")

        # Shift+Tab from the drawer's first stop reaches its toggle, which the open sheet covers: it closes too.
        element(browser, ".drawer-toggle-md").send_keys(Keys.ENTER)
        wait_js(browser, drawer_shown)
        wait_js(browser, "return document.activeElement.hasAttribute('data-drawer-close')", what="focus inside")
        ActionChains(browser).key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT).perform()
        wait_js(browser, drawer_shown.replace("'visible'", "'hidden'"), what="the drawer closed on Shift+Tab")
        seen = "const t = document.activeElement, r = t.getBoundingClientRect();"
        seen += "return document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2) === t;"
        assert browser.execute_script(focused) and browser.execute_script(seen)  # focused, and in sight
    assert severe_console_errors(browser) == []


@pytest.mark.parametrize(
    ("path", "stored", "system", "expected"),
    [
        ("methods", "dark", "light", "dark"),  # the reader's choice
        ("methods?theme=light", "dark", "dark", "light"),  # the address wins
        ("embed/fig5", "dark", "light", "light"),  # an embed keeps no choice: the system's
        ("", None, "dark", "dark"),  # no choice: the system's
    ],
)
def test_the_theme_is_set_before_the_page_is_drawn(browser, server, path, stored, system, expected):
    """On a slow connection the page showed light until the scripts at its end ran: the theme is on <html> by
    the time <body> is parsed, as assets/theme.js would choose it."""
    browser.get(server.url + "health")  # the origin, for its storage
    set_stored = (
        "localStorage.removeItem('inferx-theme')"
        if stored is None
        else f"localStorage.setItem('inferx-theme', '{stored}')"
    )
    browser.execute_script(set_stored)
    watch = browser.execute_cdp_cmd(
        "Page.addScriptToEvaluateOnNewDocument",
        {
            "source": "new MutationObserver((_, o) => { if (document.body) { o.disconnect();"
            " window.__themeAtBody = document.documentElement.getAttribute('data-bs-theme'); } })"
            ".observe(document, {childList: true, subtree: true});"
        },
    )
    try:
        with media(browser, scheme=system):
            browser.get(server.url + path)
            wait_js(browser, "return window.__themeAtBody !== undefined", what="<body> parsed")
            assert browser.execute_script("return window.__themeAtBody") == expected
            wait_js(browser, f"return document.documentElement.getAttribute('data-bs-theme') === '{expected}'")
    finally:
        browser.execute_cdp_cmd("Page.removeScriptToEvaluateOnNewDocument", watch)
        browser.execute_script("localStorage.removeItem('inferx-theme')")
