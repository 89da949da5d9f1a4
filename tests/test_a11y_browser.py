"""Accessibility in real Chromium against gunicorn: axe-core on every page, slider names and keyboard steps, the
tab order, the skip link and the graphs' text alternatives.

axe-core (MPL-2.0, from the npm registry) is vendored in tests/assets so the suite needs no network."""

from __future__ import annotations

import time

import pytest
from browser_checks import click, element
from conftest import ROOT, severe_console_errors
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from benchmarks.chromium import wait_js
from inferx.figures import registry
from inferx.scenario.controls import KEY_PRESSES, PARAMS, decimals, value_at
from inferx.text import number
from pages._ids import control_id, value_id

pytestmark = pytest.mark.browser
AXE = (ROOT / "tests" / "assets" / "axe.min.js").read_text(encoding="utf-8")
SETTLE_S = 120  # a11y.js repairs a widget within a frame of React drawing it; minutes mean it never will

READY_JS = """
const graphs = document.querySelectorAll('.graph-wrap');
const drawn = [...graphs].every(g => g.querySelector('.main-svg'));
const sliders = document.querySelectorAll('.a11y-slider').length;
const thumbs = document.querySelectorAll('.a11y-slider [role=slider]').length;
return (graphs.length > 0 || document.querySelector('table')) && drawn && sliders === thumbs;
"""

AXE_RUN_JS = """
const done = arguments[arguments.length - 1];
requestAnimationFrame(() => requestAnimationFrame(() =>  // a11y.js repairs on the next frame
  axe.run(document, {resultTypes: ['violations']}).then(
    r => done(r.violations.map(v => ({id: v.id, impact: v.impact,
      nodes: v.nodes.map(n => n.target.join(' ')).slice(0, 5), count: v.nodes.length}))),
    e => done([{id: 'axe-error', impact: 'critical', nodes: [String(e)], count: 1}]))));
"""


def load(driver, server, path: str) -> None:
    driver.get(server.url.rstrip("/") + path)
    wait_js(driver, f"{READY_JS}", what=f"{path} drawn, with its sliders")


def axe_violations(driver) -> list[dict]:
    driver.execute_script(AXE)
    return driver.execute_async_script(AXE_RUN_JS)


def assert_no_serious_violations(driver, where: str) -> None:
    bad = [v for v in axe_violations(driver) if v["impact"] in ("critical", "serious")]
    assert not bad, f"{where}: " + "; ".join(f"{v['id']} ({v['impact']}, {v['count']}×: {v['nodes']})" for v in bad)


def page_basics(driver) -> dict:
    return driver.execute_script(
        "return {lang: document.documentElement.lang, h1: document.querySelectorAll('h1').length,"
        " main: document.querySelectorAll('main, [role=main]').length};"
    )


PAGES = ["/", "/inferencex", "/methods", "/embed/fig6"]


@pytest.mark.parametrize("path", PAGES + [f"{p}?theme=dark" for p in PAGES[:3]])
def test_axe_finds_no_critical_or_serious_violations(browser, server, path):
    load(browser, server, path)
    assert page_basics(browser) == {"lang": "en", "h1": 1, "main": 1}
    assert_no_serious_violations(browser, path)


@pytest.mark.parametrize(
    ("path", "title"), [("/nope", "inferx · page not found"), ("/embed/nope", "inferx · no such figure")]
)
def test_a_page_for_an_unknown_address_has_its_heading_landmark_and_title(browser, server, path, title):
    """/embed/nope was a bare warning titled "inferx · embed", with neither a heading nor a main landmark."""
    browser.get(server.url.rstrip("/") + path)
    wait_js(browser, "return document.querySelector('main h1') !== null", 30, what=f"{path} drawn")
    wait_js(browser, f"return document.title === {title!r}", 30, what=f"the title {title!r}")
    assert page_basics(browser) == {"lang": "en", "h1": 1, "main": 1}
    links = browser.execute_script("return [...document.querySelectorAll('main a')].map(a => a.pathname)")
    assert {f"/embed/{f.name}" for f in registry.FIGURES.values()} <= set(links)
    assert_no_serious_violations(browser, path)


@pytest.mark.parametrize("path", ["/", "/inferencex", "/methods"])
def test_axe_finds_no_critical_or_serious_violations_on_a_phone(browser, server, path):
    """At 390 px wide tables scroll sideways in their boxes and the controls sit in a drawer: each scrolling box
    must be reachable from the keyboard, and nothing else may break."""
    browser.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": False}
    )
    try:
        load(browser, server, path)
        assert_no_serious_violations(browser, f"{path} at 390 px")
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_axe_on_inferencex_with_an_uploaded_file(browser, server, measured_paths):
    load(browser, server, "/inferencex")
    element(browser, "#measured-upload input[type=file]").send_keys(str(measured_paths.json))
    wait_js(browser, "return document.querySelector('#ix-summary').textContent.includes('upload');", what="upload")
    wait_js(browser, READY_JS, SETTLE_S, "the measured figure drawn")
    assert_no_serious_violations(browser, "/inferencex after an upload")
    same = f"const s = (() => {{ {TEXT_JS} }})(); return s.text === s.meta && s.text;"
    text = wait_js(browser, same, SETTLE_S, "the measured figure's text alternative", args=("fig-ix",))
    assert text.startswith("Throughput per GPU against interactivity") and "measured" in text


# --- Sliders ---------------------------------------------------------------------------------------------------

THUMB = "#{} [role=slider]"


def ax_node(driver, css: str, tries: int = 3) -> dict:
    """Chromium's accessibility-tree node of the element `css` finds: its name and description are what a
    screen reader says of it. A page that replaces the element between the two CDP calls (React re-rendering
    an open menu) leaves a stale node id: asked again, the replacement answers."""
    for attempt in range(tries):
        root = driver.execute_cdp_cmd("DOM.getDocument", {})["root"]["nodeId"]
        node = driver.execute_cdp_cmd("DOM.querySelector", {"nodeId": root, "selector": css})["nodeId"]
        assert node, f"nothing matches {css}"
        try:
            tree = driver.execute_cdp_cmd("Accessibility.getPartialAXTree", {"nodeId": node, "fetchRelatives": False})
            return tree["nodes"][0]
        except WebDriverException as err:
            if "Could not find node" not in str(err) or attempt == tries - 1:
                raise
        time.sleep(0.1)


def accessible_name(driver, css: str) -> str:
    return ax_node(driver, css)["name"]["value"]


def accessible_description(driver, css: str) -> str:
    return ax_node(driver, css).get("description", {}).get("value", "")


def thumb_state(driver, control: str) -> dict:
    return driver.execute_script(
        "const t = document.querySelector(arguments[0]);"
        "return {now: +t.getAttribute('aria-valuenow'), min: +t.getAttribute('aria-valuemin'),"
        " max: +t.getAttribute('aria-valuemax'), label: t.getAttribute('aria-label'),"
        " text: t.getAttribute('aria-valuetext'), focused: document.activeElement === t};",
        THUMB.format(control),
    )


def press(driver, control: str, key) -> dict:
    """One key on the focused thumb, as a user presses it; returns the thumb once its value has moved."""
    before = thumb_state(driver, control)["now"]
    ActionChains(driver).send_keys(key).perform()
    wait_js(
        driver,
        "const t = document.querySelector(arguments[0]); return +t.getAttribute('aria-valuenow') !== arguments[1];",
        SETTLE_S,
        f"{control} to move on {key!r}",
        args=(THUMB.format(control), before),
    )
    return thumb_state(driver, control)


def presses_across(driver, control: str, key, until) -> int:
    n = 0
    state = thumb_state(driver, control)
    while state["now"] != until:
        assert n <= KEY_PRESSES, f"{control}: {n} presses of {key!r} and still at {state['now']}"
        state = press(driver, control, key)
        assert state["focused"], f"{control} lost the focus after {n + 1} presses"
        n += 1
    return n


def test_one_gpu_is_said_in_the_singular_by_the_label_and_the_thumb(browser, server):
    """The browser writes a moved slider's label and its thumb's value text itself: "1 GPU", as the server does."""
    load(browser, server, "/?gpu=h100&gpus=2")
    control = control_id("gpus")
    browser.execute_script("document.querySelector(arguments[0]).focus();", THUMB.format(control))
    state = press(browser, control, Keys.ARROW_LEFT)
    assert state["now"] == 1 and state["text"] == "1 GPU", state
    said = "return document.getElementById(arguments[0]).textContent;"
    assert wait_js(browser, f"const t = (() => {{ {said} }})(); return t === '1 GPU' && t;", SETTLE_S,
                   "the count's label", args=(value_id("gpus"),)) == "1 GPU"  # fmt: skip


def test_the_notes_a_count_or_length_rewrites_describe_their_controls_rather_than_speak_each_step(browser, server):
    """The note under the shortcuts ("Drawing 9×H200 SXM over NVLink 4.0, …") was a live region, re-read whole on
    every arrow-key step of the GPU count; it now describes the controls that move it, and speaks with them."""
    load(browser, server, "/")
    live = "return !!document.getElementById(arguments[0]).closest('[role=status], [role=alert], [aria-live]');"
    assert not browser.execute_script(live, "machine-note") and not browser.execute_script(live, "context-note")
    control = control_id("gpus")
    wait_js(browser, "return document.querySelector(arguments[0]).getAttribute('aria-describedby') === 'machine-note';",
            SETTLE_S, "the count's description", args=(THUMB.format(control),))  # fmt: skip
    browser.execute_script("document.querySelector(arguments[0]).focus();", THUMB.format(control))
    press(browser, control, Keys.ARROW_RIGHT)
    wait_js(browser, "return document.getElementById('machine-note').textContent.includes('no shortcut names');",
            SETTLE_S, "the note")  # fmt: skip
    described = accessible_description(browser, THUMB.format(control))
    assert described.startswith("Drawing 9×H200 SXM over NVLink 4.0, a machine no shortcut names"), described
    assert browser.execute_script("return document.querySelector('#ctl-isl [role=slider]')"
                                  ".getAttribute('aria-describedby');") == "context-note"  # fmt: skip


@pytest.mark.parametrize(
    ("name", "address", "said", "first"),
    [
        ("price", "/", "assumed: 3.50 $/GPU-h", 4.0),  # 8×H200: $3.50 assumed; one 0.5 step up
        ("acceptance", "/?mode=calibrated&mtp=on", "fitted: 50 %", 51.0),  # H200 SGLang FP8: 50.1 % fitted
        # Calibrated, the draw grows with the load from its floor, 0.3718 of board power: a key goes to 0.40.
        ("power", "/?mode=calibrated", "default: by load", 0.4),
    ],
)
def test_a_slider_left_to_the_model_says_what_it_stands_for_and_moves_from_there(
    browser, server, name, address, said, first
):
    """Price unset is the GPU's assumed price, acceptance the calibration's fitted one: the thumb sat at the
    minimum and said so, and the first arrow key went to $0.10 or 1 %. It says the word and the value it
    stands for, in its label too, moves one key step from that value, and, given back to the model, says the
    word again. The button that gives it back shows only while there is something to give back."""
    load(browser, server, address)
    control = control_id(name)
    word, value = said.split(": ")
    text = "const t = document.querySelector(arguments[0]); return t && t.getAttribute('aria-valuetext');"
    same = f"return (() => {{ {text} }})() === arguments[1];"
    wait_js(browser, same, SETTLE_S, "unset", args=(THUMB.format(control), said))
    assert_label(browser, control, (f"{PARAMS[name].label} {word} {value}", False))
    # Its value is the one it stands for too, not the slider's minimum (the draw by load from its floor).
    assumed = float(
        browser.execute_script("return document.getElementById(arguments[0]).dataset.assumed", f"{control}-box")
    )
    assert thumb_state(browser, control)["now"] == pytest.approx(assumed)
    browser.execute_script("document.querySelector(arguments[0]).focus();", THUMB.format(control))
    state = press(browser, control, Keys.ARROW_RIGHT)
    assert state["now"] == first and not state["text"].startswith(word), state
    wait_js(browser, "return document.getElementById(arguments[0]).offsetParent !== null;", SETTLE_S,
            "the button back to the model", args=(f"{control}-reset",))  # fmt: skip
    assert_label(browser, control, (f"{PARAMS[name].label} {state['text']}", True))
    # Pressed from the keyboard, the button hides itself: focus goes on to the slider's thumb, not the page.
    browser.execute_script("document.getElementById(arguments[0]).focus();", f"{control}-reset")
    ActionChains(browser).send_keys(Keys.ENTER).perform()
    wait_js(browser, same, SETTLE_S, "reset", args=(THUMB.format(control), said))
    focused = "return document.activeElement === document.querySelector(arguments[0]);"
    wait_js(browser, focused, SETTLE_S, "focus on the thumb", args=(THUMB.format(control),))
    wait_js(browser, "return document.getElementById(arguments[0]).offsetParent === null;", SETTLE_S,
            "the button hidden", args=(f"{control}-reset",))  # fmt: skip
    assert_label(browser, control, (f"{PARAMS[name].label} {word} {value}", False))


def assert_label(browser, control: str, expected: tuple[str, bool]) -> None:
    """The slider's label comes to show `expected` within SETTLE_S: callbacks of their own write its word and
    its reset button, a moment after the thumb's value text changes."""
    deadline = time.monotonic() + SETTLE_S
    while (shown := visible_label(browser, control)) != expected and time.monotonic() < deadline:
        time.sleep(0.2)
    assert shown == expected


def visible_label(browser, control: str) -> tuple[str, bool]:
    """What a slider's label shows (the texts of its parts on screen, space-separated: CSS margins part them)
    and whether its reset button shows."""
    return tuple(browser.execute_script(
        "const label = document.querySelector(`label[for='${arguments[0]}']`);"
        "const reset = document.getElementById(`${arguments[0]}-reset`);"
        "const parts = [...label.childNodes].filter((n) => n.nodeType === 3 || n.offsetParent !== null);"
        "return [parts.map((n) => n.textContent.trim()).filter(Boolean).join(' '), reset.offsetParent !== null];",
        control,
    ))  # fmt: skip


def test_an_unset_price_follows_the_gpu_chosen(browser, server):
    """The assumed price is the GPU's: choosing an MI300X (assumed $2.50) moves what the thumb and label say,
    and where the thumb is drawn."""
    load(browser, server, "/")
    thumb = THUMB.format(control_id("price"))
    centre = "const r = document.querySelector(arguments[0]).getBoundingClientRect(); return r.left + r.width / 2;"
    shown = "return document.getElementById(arguments[0]).hasAttribute('data-unset-shown');"
    wait_js(browser, shown, SETTLE_S, "the unset thumb placed", args=(f"{control_id('price')}-box",))
    at_h200 = browser.execute_script(centre, thumb)
    browser.execute_script("dash_clientside.set_props(arguments[0], {value: 'mi300x'});", control_id("gpu"))
    text = "const t = document.querySelector(arguments[0]); return t && t.getAttribute('aria-valuetext');"
    wait_js(browser, f"return (() => {{ {text} }})() === 'assumed: 2.50 $/GPU-h';", SETTLE_S, "MI300X's price",
            args=(THUMB.format(control_id("price")),))  # fmt: skip
    assert_label(browser, control_id("price"), ("Price assumed 2.50 $/GPU-h", False))
    # $1 less on a $0.05–50 slider: about 2 % of its width further left.
    wait_js(browser, f"return (() => {{ {centre} }})() < arguments[1] - 2;", SETTLE_S, "the thumb moved",
            args=(thumb, at_h200))  # fmt: skip


def test_an_unset_slider_draws_its_thumb_at_the_value_it_stands_for_and_a_drag_starts_there(browser, server):
    """The price left unset stood for $3.50 (8×H200) while its thumb sat at the minimum, $0.05, and a drag
    from the thumb started there. The thumb is drawn where the slider set to $3.50 draws it, and the same drag
    from it ends where it ends from a thumb set to $3.50."""
    load(browser, server, "/")
    control = control_id("price")
    thumb = THUMB.format(control)
    centre = "const r = document.querySelector(arguments[0]).getBoundingClientRect(); return r.left + r.width / 2;"
    shown = "return document.getElementById(arguments[0]).hasAttribute('data-unset-shown');"
    value = "return window.dash_component_api.getLayout(arguments[0]).props.value;"  # the slider's, in Dash

    def drag_from_thumb() -> float:
        before = browser.execute_script(value, control)
        ActionChains(browser).click_and_hold(element(browser, thumb)).move_by_offset(4, 0).release().perform()
        wait_js(browser, f"return (() => {{ {value} }})() !== arguments[1];", SETTLE_S, "the drag's value",
                args=(control, before))  # fmt: skip
        return browser.execute_script(value, control)

    def give_back() -> None:
        click(browser, element(browser, f"#{control}-reset"))
        wait_js(browser, shown, SETTLE_S, "unset", args=(f"{control}-box",))

    wait_js(browser, shown, SETTLE_S, "the unset thumb placed", args=(f"{control}-box",))
    unset_x = browser.execute_script(centre, thumb)
    browser.execute_script("document.querySelector(arguments[0]).focus();", thumb)
    assert press(browser, control, Keys.ARROW_RIGHT)["now"] == 4.0
    assert press(browser, control, Keys.ARROW_LEFT)["now"] == 3.5
    assert abs(browser.execute_script(centre, thumb) - unset_x) < 1.0
    from_set = drag_from_thumb()
    give_back()
    assert abs(browser.execute_script(centre, thumb) - unset_x) < 1.0
    from_unset = drag_from_thumb()
    assert from_set > 3.5 and abs(from_unset - from_set) <= 0.1, (from_set, from_unset)
    assert not browser.execute_script(shown, f"{control}-box")


@pytest.mark.parametrize("name", ["compute", "ctx"])
def test_a_slider_is_crossed_in_a_hundred_arrow_presses_and_ten_page_presses(browser, server, name):
    load(browser, server, "/")
    control = control_id(name)
    browser.execute_script("document.querySelector(arguments[0]).focus();", THUMB.format(control))
    p = PARAMS[name]
    ActionChains(browser).send_keys(Keys.HOME).perform()  # Radix's own key: the slider's minimum
    # …on the drag step's grid: compute's minimum, log2(0.1 PFLOPS) = -3.3219, is reached as -3.32, which
    # stands for the same 0.1 PFLOPS.
    wait_js(
        browser,
        "const t = document.querySelector(arguments[0]);"
        " return +t.getAttribute('aria-valuenow') - +t.getAttribute('aria-valuemin') < arguments[1];",
        SETTLE_S,
        f"{control} at its minimum",
        args=(THUMB.format(control), p.step),
    )
    low = thumb_state(browser, control)
    assert value_at(p, low["now"]) == p.low
    arrows = presses_across(browser, control, Keys.ARROW_RIGHT, low["max"])
    pages = presses_across(browser, control, Keys.PAGE_DOWN, low["min"])
    assert 0 < arrows <= KEY_PRESSES and 0 < pages <= KEY_PRESSES // 10, (arrows, pages)

    # The thumb is named, and says its value in its unit: tokens on a log2 slider, not the exponent.
    state = press(browser, control, Keys.ARROW_RIGHT)
    shown = value_at(p, state["now"])
    places = decimals(p, shown)
    assert state["label"] == p.label
    assert state["text"] == f"{shown:,.{places}f} {p.unit}"
    # …the same words the label beside it shows (written by inferx.js controlsChanged).
    wait_js(
        browser,
        "return document.getElementById(arguments[0]).textContent === arguments[1];",
        SETTLE_S,
        f"{value_id(name)} to read {state['text']}",
        args=(value_id(name), state["text"]),
    )


# --- Tab order, skip link --------------------------------------------------------------------------------------

ACTIVE_JS = """
const a = document.activeElement;
return {id: a.id, tag: a.tagName, cls: String(a.className), text: (a.textContent || '').trim().slice(0, 40),
        role: a.getAttribute('role'), modebar: Boolean(a.closest('.modebar')),
        inFigures: Boolean(a.closest('#figures')), formula: Boolean(a.closest('mjx-container'))};
"""


def tab(driver, shift: bool = False) -> dict:
    keys = ActionChains(driver)
    (keys.key_down(Keys.SHIFT).send_keys(Keys.TAB).key_up(Keys.SHIFT) if shift else keys.send_keys(Keys.TAB)).perform()
    return driver.execute_script(ACTIVE_JS)


def test_tab_reaches_the_skip_link_first_and_every_control_and_animate_before_any_plotly_tool_bar(browser, server):
    load(browser, server, "/")
    browser.execute_script("document.activeElement.blur(); window.scrollTo({top: 0, behavior: 'instant'});")
    stops = [tab(browser)]
    assert stops[0]["text"] == "Skip to figures" and stops[0]["tag"] == "A"
    while stops[-1]["id"] != "btn-animate":
        assert len(stops) < 150, f"Animate not reached in 150 Tab presses; last stops: {stops[-5:]}"
        stops.append(tab(browser))
    assert not [s for s in stops if s["modebar"]], "a plotly tool-bar button comes before Animate"
    thumbs = browser.execute_script("return document.querySelectorAll('.sidebar .a11y-slider [role=slider]').length")
    assert sum(s["role"] == "slider" for s in stops) > thumbs  # every control's slider, then the batch slider
    print(f"Tab stops from the top to Animate: {len(stops)}")
    for _ in range(40):  # and past it, through the figures below: no tool-bar button or formula takes a stop
        stops.append(tab(browser))
    assert not [s for s in stops if s["modebar"] or s["formula"]], "a tool-bar button or a formula takes a Tab stop"
    # MathJax made each caption's formula a Tab stop; each is left to a screen reader's hidden MathML.
    formulas = browser.execute_script(
        "return [...document.querySelectorAll('mjx-container')]"
        ".map(m => [m.tabIndex, !!m.querySelector('mjx-assistive-mml')])"
    )
    assert len(formulas) >= len(registry.FIGURES) and set(map(tuple, formulas)) == {(-1, True)}, formulas


def test_the_skip_link_moves_on_to_the_figures(browser, server):
    load(browser, server, "/")
    browser.execute_script("document.activeElement.blur(); window.scrollTo({top: 0, behavior: 'instant'});")
    assert tab(browser)["text"] == "Skip to figures"
    ActionChains(browser).send_keys(Keys.ENTER).perform()
    wait_js(browser, "return document.activeElement.id === 'figures';", SETTLE_S, "the skip link followed")
    assert tab(browser)["inFigures"], "the Tab after the skip link did not land among the figures"


# --- Text alternatives -----------------------------------------------------------------------------------------

TEXT_JS = """
const wrap = document.getElementById(arguments[0]);
const gd = wrap.querySelector('.js-plotly-plot');
const p = document.getElementById(wrap.getAttribute('aria-describedby'));
return {text: p.textContent, meta: gd.layout.meta && gd.layout.meta.summary, role: wrap.getAttribute('role'),
        y0: gd.data[0].y[0]};
"""


def test_each_graph_text_states_its_numbers_and_follows_the_redraw(browser, server):
    load(browser, server, "/")
    first = browser.execute_script(TEXT_JS, "fig-1")
    assert first["role"] == "figure" and first["text"] == first["meta"] and first["text"].startswith("Figure 1")
    assert f" {number(first['y0'])} tok/s" in first["text"]  # its first throughput, in words
    empty = browser.execute_script(
        "return [...document.querySelectorAll('.graph-wrap')].filter(w =>"
        " !document.getElementById(w.getAttribute('aria-describedby')).textContent).map(w => w.id);"
    )
    assert empty == []
    control = control_id("bw")
    browser.execute_script("document.querySelector(arguments[0]).focus();", THUMB.format(control))
    press(browser, control, Keys.PAGE_UP)
    after = wait_js(
        browser,
        f"const s = (() => {{ {TEXT_JS} }})(); return s.text !== arguments[1] && s.text === s.meta && s;",
        SETTLE_S,
        "Figure 1's text to follow the redraw",
        args=("fig-1", first["text"]),
    )
    assert after["text"].startswith("Figure 1")


def test_a_copy_button_is_reached_and_pressed_with_the_keyboard(browser, server):
    load(browser, server, "/")
    browser.execute_script("document.activeElement.blur(); window.scrollTo({top: 0, behavior: 'instant'});")
    stops = [tab(browser) for _ in range(12)]
    copy = [s for s in stops if s["id"] == "copy-link"]
    assert copy and copy[0]["tag"] == "BUTTON", stops
    origin = browser.execute_script("return location.origin")
    browser.execute_cdp_cmd(
        "Browser.grantPermissions", {"permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"], "origin": origin}
    )
    while browser.execute_script("return document.activeElement.id") != "copy-link":
        tab(browser, shift=True)
    ActionChains(browser).send_keys(Keys.ENTER).perform()
    status = "return document.querySelector('.share .share-status').textContent"
    wait_js(browser, f"return ({status.removeprefix('return ')}) === 'Link copied'", SETTLE_S, "copied")
    read = "const done = arguments[0]; navigator.clipboard.readText().then(done, e => done('error: ' + e));"
    assert browser.execute_async_script(read) == browser.current_url


def test_a_refused_copy_says_so_on_the_page_with_no_console_error(browser, server):
    """A browser that refuses the clipboard (no permission, an iframe without clipboard-write, plain http) gets the
    link in a selected field to copy by hand, not the browser's raw error and no uncaught rejection."""
    load(browser, server, "/")
    origin = browser.execute_script("return location.origin")
    permission = {"permission": {"name": "clipboard-write"}, "setting": "denied", "origin": origin}
    browser.execute_cdp_cmd("Browser.setPermission", permission)
    try:
        click(browser, browser.find_element("id", "copy-link"))
        status = wait_js(
            browser,
            "const s = document.querySelector('.share .share-status');"
            "const shown = !s.classList.contains('visually-hidden');"
            "return shown && s.textContent.startsWith('Copy the link by hand') && s.textContent;",
            SETTLE_S,
            "the link offered to copy by hand",
        )
        field = browser.execute_script(
            "const f = document.querySelector('.share .share-status input');"
            "return [f.value, f.readOnly, f.getAttribute('aria-label'), document.activeElement === f,"
            " f.selectionStart, f.selectionEnd];"
        )
        assert field == [browser.current_url, True, "The link", True, 0, len(browser.current_url)]
        assert "NotAllowedError" not in status and "Could not copy" in browser.find_element(
            "id", "copy-link"
        ).get_attribute("title")
        assert severe_console_errors(browser) == []
    finally:
        browser.execute_cdp_cmd("Browser.setPermission", {**permission, "setting": "granted"})


def test_a_cards_copy_embed_code_says_what_it_did(browser, server):
    """The cards' copy-embed-code buttons on / had no status line: a copy was never announced, and a refused
    one shown only in the button's tooltip."""
    load(browser, server, "/")
    origin = browser.execute_script("return location.origin")
    permission = {"permission": {"name": "clipboard-write"}, "origin": origin}
    said = "const s = document.querySelector('#card-fig1 .share-status');"
    said += "const hidden = s.classList.contains('visually-hidden');"
    try:
        browser.execute_cdp_cmd("Browser.setPermission", {**permission, "setting": "granted"})
        click(browser, browser.find_element("id", "embed-copy-fig1"))
        wait_js(browser, said + "return s.textContent === 'Embed code copied' && hidden;", SETTLE_S, "announced")
        assert browser.execute_script(said + "return s.getAttribute('role');") == "status"
        browser.execute_cdp_cmd("Browser.setPermission", {**permission, "setting": "denied"})
        click(browser, browser.find_element("id", "embed-copy-fig1"))
        wait_js(
            browser,
            said + "return s.textContent.startsWith('Copy the embed code by hand') && !hidden;",
            SETTLE_S,
            "shown",
        )
        assert browser.execute_script(said + "return s.querySelector('input').value").startswith("<iframe")
        assert severe_console_errors(browser) == []
    finally:
        browser.execute_cdp_cmd("Browser.setPermission", {**permission, "setting": "granted"})


def test_the_linear_log_buttons_are_toggle_buttons_the_keyboard_reaches_and_presses(browser, server):
    """Plotly draws Figure 5's linear / log x as SVG that Tab skipped; they are named toggle buttons. At the
    defaults the figure opens on log x (its frontiers span over two decades): the keyboard presses linear."""
    load(browser, server, "/embed/fig5?theme=dark")
    buttons = "[...document.querySelectorAll('#fig-5 .updatemenu-button')]"
    state = f"return {buttons}.map(b => [b.getAttribute('aria-label'), b.getAttribute('aria-pressed')])"
    wait_js(browser, f"return {buttons}.every(b => b.getAttribute('role') === 'button')", what="the menu repaired")
    assert browser.execute_script(state) == [["linear x", "false"], ["log x", "true"]]
    browser.execute_script("document.body.focus()")
    for _ in range(30):
        ActionChains(browser).send_keys(Keys.TAB).perform()
        if browser.execute_script("return document.activeElement.getAttribute('aria-label') === 'linear x'"):
            break
    assert browser.execute_script("return document.activeElement.getAttribute('aria-label')") == "linear x"
    ActionChains(browser).send_keys(Keys.ENTER).perform()
    axis = "return document.querySelector('#fig-5 .js-plotly-plot')._fullLayout.xaxis.type"
    wait_js(browser, f"{axis} === 'linear'", what="the x axis on linear")
    wait_js(browser, f"{state.replace('return ', 'return JSON.stringify(')}) === "
            "JSON.stringify([['linear x', 'true'], ['log x', 'false']])", what="linear x pressed")  # fmt: skip
    # On the dark page the buttons are dark too (plotly paints them near-white inline).
    fill = "return getComputedStyle(document.querySelector('#fig-5 .updatemenu-item-rect')).fill"
    r, g, b = (int(v) for v in browser.execute_script(fill).removeprefix("rgb(").rstrip(")").split(","))
    assert max(r, g, b) < 128, (r, g, b)


def test_a_link_to_another_page_moves_focus_to_its_heading(browser, server):
    """Dash's router draws the new page in place: focus was left on <body>, so the next Tab began at the top
    and a screen reader announced nothing."""
    load(browser, server, "/")
    link = element(browser, "#nav-methods")
    browser.execute_script("arguments[0].focus()", link)
    link.send_keys(Keys.ENTER)
    wait_js(browser, "return location.pathname.endsWith('/methods')", what="the methods page")
    wait_js(browser, "const h = document.querySelector('main h1');"
            "return !!h && document.activeElement === h && h.textContent.includes('Methods')",
            what="focus on the methods page's heading")  # fmt: skip
    # A control's change rewrites the address of the same page: focus stays where it is.
    load(browser, server, "/")
    browser.execute_script("document.getElementById('pin-a').focus()")
    browser.execute_script("window.dash_clientside.set_props('ctl-ctx', {value: 12})")
    wait_js(browser, "return location.search.includes('ctx=4096')", what="the address rewritten")
    assert browser.execute_script("return document.activeElement.id") == "pin-a"


def test_a_dropdown_is_named_by_its_label_where_the_focus_lands_and_when_open(browser, server):
    """Dash's dropdown hands the focus from its Tab stop to its button, which Dash names by its value alone: the
    weights' and the KV cache's formats both said "FP8, button". The label now goes first, and the open menu
    is named after it too."""
    load(browser, server, "/")
    wait_js(browser, "return document.getElementById('ctl-kvdtype').getAttribute('aria-labelledby')"
                     ".startsWith('ctl-kvdtype-label')", SETTLE_S, what="the button's name")  # fmt: skip
    assert accessible_name(browser, "#ctl-wdtype") == "Weight dtype FP8"
    assert accessible_name(browser, "#ctl-kvdtype") == "KV dtype FP8"
    assert accessible_name(browser, "#ctl-preset").startswith("Machine shortcut 8×H200")
    click(browser, element(browser, "#ctl-ic"))
    menu = "const m = document.querySelector('.dash-dropdown-content[role=dialog]');"
    wait_js(browser, menu + "return m && m.getAttribute('aria-label') === 'Interconnect';", SETTLE_S, what="open")
    # Radix renders the menu's options after the dialog: the group is named once it is there.
    group = ".dash-dropdown-content [role=group]"
    named = (
        f"const g = document.querySelector('{group}'); return !!g && g.getAttribute('aria-label') === 'Interconnect';"
    )
    wait_js(browser, named, SETTLE_S, what="the open menu's options named")
    assert accessible_name(browser, group) == "Interconnect"
    assert severe_console_errors(browser) == []


def test_a_file_drop_is_one_tab_stop_that_shows_its_focus(browser, server):
    """Each drop zone was two stops: a "choose" link (href="#", which put "#" in the address) and Dash's file
    input at opacity 0.00001, whose focus showed nothing at all."""
    load(browser, server, "/")
    assert browser.execute_script("return document.querySelectorAll('a[href=\"#\"]').length") == 0
    browser.execute_script("document.activeElement.blur(); window.scrollTo({top: 0, behavior: 'instant'});")
    stops = []
    while not browser.execute_script("return document.activeElement.matches('#gpu-upload input[type=file]')"):
        assert len(stops) < 60, f"the GPU drop zone not reached in 60 Tab presses: {stops[-5:]}"
        stops.append(tab(browser))
    inside = "return !!document.activeElement.closest('#gpu-upload')"
    tab(browser, shift=True)
    assert not browser.execute_script(inside), "a second stop in the drop zone, before its input"
    tab(browser)
    tab(browser)
    assert not browser.execute_script(inside), "a second stop in the drop zone, after its input"
    tab(browser, shift=True)
    ring = browser.execute_script(
        "const s = getComputedStyle(document.querySelector('#gpu-upload .file-drop'));"
        "return [s.outlineStyle, s.outlineWidth];"
    )
    assert ring == ["solid", "2px"], ring


def test_a_focused_button_has_a_solid_ring_on_the_dark_card(browser, server):
    """Bootstrap's half-transparent focus glow measured 1.8:1 on the dark card around Pin as A."""
    load(browser, server, "/?theme=dark")
    browser.execute_script("document.activeElement.blur(); window.scrollTo({top: 0, behavior: 'instant'});")
    stops = [tab(browser)]
    while stops[-1]["id"] != "pin-a":
        assert len(stops) < 60, f"Pin as A not reached in 60 Tab presses: {stops[-5:]}"
        stops.append(tab(browser))
    ring, ground = browser.execute_script(
        "const a = document.activeElement, s = getComputedStyle(a);"
        "let e = a.parentElement, bg = 'rgba(0, 0, 0, 0)';"
        "while (e && (bg = getComputedStyle(e).backgroundColor).startsWith('rgba') && bg.endsWith(' 0)'))"
        "  e = e.parentElement;"  # the first ancestor that paints a background
        "return [[s.outlineStyle, s.outlineWidth, s.outlineColor], bg];"
    )
    assert ring[:2] == ["solid", "2px"], ring
    assert contrast(ring[2], ground) >= 3, (ring, ground)


def contrast(a: str, b: str) -> float:
    """WCAG contrast of two computed CSS colours ("rgb(…)" or "rgba(…)", alpha ignored)."""

    def luminance(colour: str) -> float:
        rgb = [float(v) / 255 for v in colour[colour.index("(") + 1 : -1].split(",")[:3]]
        lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted([luminance(a), luminance(b)], reverse=True)
    return (hi + 0.05) / (lo + 0.05)
