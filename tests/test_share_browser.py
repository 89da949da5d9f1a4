"""Comparing and sharing in real headless Chromium against gunicorn: the table of A beside B, A's main curve
alone, /inferencex without data, an exported image that names its scenario and source, and the printout."""

from __future__ import annotations

import base64
import os
import re
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import unquote

import pytest
from browser_checks import click, element, figure_data, viewport
from conftest import severe_console_errors
from test_a11y_browser import assert_no_serious_violations
from test_compare_browser import a_traces, downloads, wait_file  # noqa: F401 (a fixture)
from test_dashboard_browser import open_page
from test_theme_browser import media

from benchmarks.chromium import wait_js
from inferx.analysis.comparison import DECIDING, comparison, comparison_rows
from inferx.figures import compare, export
from inferx.scenario.evaluation import Scenario
from pages._url import encode_pinned, scenario_line

pytestmark = pytest.mark.browser

A = Scenario.from_params(preset="mi300x4")
B = Scenario.from_params(preset="h200x8", ctx=2048)
PINNED = f"/?preset=h200x8&ctx=2048&a={encode_pinned(compare.compact_params(A.params))}"
TABLE_ROWS_JS = (
    "return [...document.querySelectorAll('#compare-table tbody tr')]"
    ".map(tr => [...tr.children].map(c => c.innerText.replace(/\\s+/g, ' ').trim()));"
)


PAPER_WIDTH = round((210 - 2 * 15) / 25.4 * 96)  # A4 inside the margins, CSS px (Letter is wider)
LETTER_HEIGHT = (279.4 - 2 * 15) / 25.4 * 96  # Letter inside the margins (A4 is taller)
CARD_HEIGHTS_JS = f"""
if (document.querySelector('.container-fluid').getBoundingClientRect().width > {PAPER_WIDTH}) return null;
// The explorer's card prints in two parts, split before its "Where the time goes" bars (style.css).
return [...document.querySelectorAll('.card, .fig-card')].flatMap(c => {{
  const r = c.getBoundingClientRect(), split = c.querySelector('.time-parts');
  if (!split) return [[c.id, r.height]];
  const at = split.getBoundingClientRect().top;
  return [[c.id, at - r.top], [c.id + ' .time-parts', r.bottom - at]];
}});
"""


def shots_dir(tmp_path: Path) -> Path:
    return Path(os.environ.get("INFERX_SCREENSHOT_DIR", tmp_path))


def test_pinning_a_shows_both_scenarios_numbers_with_units_and_a_s_main_curve_alone(browser, server):
    open_page(browser, server, PINNED, ["fig2", "fig7"])
    wait_js(browser, "return !document.getElementById('compare-card').hidden", what="the comparison table")
    head = browser.execute_script("return document.querySelector('#compare-table thead').innerText")
    assert f"A: {compare.describe(A)}" in head and f"B (current): {compare.describe(B)}" in head
    assert "ideal" in head and "expected ± error" in head
    rows = browser.execute_script(TABLE_ROWS_JS)
    expected = comparison_rows(comparison(A, B))
    assert [r[0] for r in rows] == [f"{d.label} ({d.unit})" for d in DECIDING]  # each with its unit
    for shown, row in zip(rows, expected, strict=True):
        cells = [row[side][w] + (f" {row[side]['error']}" if w == "expected" and row[side]["error"] else "")
                 for side in ("a", "b") for w in ("ideal", "expected")]  # fmt: skip
        assert shown[1:] == [c.replace("\xa0", " ") for c in cells], shown  # innerText's spaces, as read above
    # A brings its main curve alone: Figure 2's current context, Figure 7's current formats.
    for fig in ("fig2", "fig7"):
        names = browser.execute_script(f"return {a_traces(fig)}.map(t => t.name)")
        assert len(names) == 1 and "(current)" not in names[0], (fig, names)
    browser.execute_script("document.getElementById('card-fig10').scrollIntoView({block: 'center'})")
    wait_js(browser, f"return {a_traces('fig10')}.length > 0", what="A on Figure 10")
    names = browser.execute_script(f"return {a_traces('fig10')}.map(t => t.name)")
    assert names[0] == "A: frontier" and names[1].startswith("A: best under the SLO") and len(names) == 2
    # Unpin: the table goes.
    click(browser, element(browser, "#unpin-a"))
    wait_js(browser, "return document.getElementById('compare-card').hidden", what="the table hidden")
    assert severe_console_errors(browser) == []


def test_the_table_follows_the_controls_and_passes_axe(browser, server, tmp_path):
    open_page(browser, server, PINNED, ["fig1"])
    wait_js(browser, "return !document.getElementById('compare-card').hidden", what="the comparison table")
    now = Scenario.from_params(preset="h200x8", ctx=8192)
    users = comparison_rows(comparison(A, now))[0]["b"]["ideal"]
    assert users != browser.execute_script(TABLE_ROWS_JS)[0][3]
    browser.execute_script("window.dash_clientside.set_props('ctl-ctx', {value: 13})")  # log2(8,192 tokens)
    wait_js(browser, f"const r = (() => {{ {TABLE_ROWS_JS} }})(); return r[0][3] === {users!r};", what="the table")
    assert_no_serious_violations(browser, PINNED)
    browser.save_screenshot(str(shots_dir(tmp_path) / "compare-table.png"))


def test_inferencex_without_data_says_how_to_get_some_and_names_only_what_it_draws(browser, server):
    browser.get(server.url + "inferencex")
    figure_data(browser, "ix")
    empty = element(browser, "#ix-empty")
    assert empty.is_displayed()
    text = empty.text
    for said in ("No measured runs loaded", "inferx fetch -o results.json", "INFERX_MEASURED=results.json"):
        assert said in text, said
    assert element(browser, "#ix-empty-choose").is_displayed()  # opens the upload's file chooser
    # The legend names what is drawn: each entry a trace with points on the log axes.
    legend = browser.execute_script(
        "return [...document.querySelectorAll('#fig-ix .legend .traces .legendtext')].map(t => t.textContent)"
    )
    drawn = browser.execute_script(
        "const gd = document.querySelector('#fig-ix .js-plotly-plot');"
        "return gd.data.filter(t => t.showlegend !== false && t.visible !== false"
        "  && (t.y || []).some((y, i) => y > 0 && t.x[i] > 0)).map(t => t.name);"
    )
    assert legend and sorted(legend) == sorted(drawn)
    assert not browser.execute_script(
        "return [...document.querySelectorAll('#fig-ix .annotation-text')].map(a => a.textContent)"
    )  # no note over the plot: the box above says it
    assert severe_console_errors(browser) == []


def test_an_exported_svg_names_its_figure_scenario_and_source_without_the_graph_buttons(browser, server, downloads):  # noqa: F811
    scn = Scenario.from_params(ctx=2048)
    open_page(browser, server, "/?ctx=2048", ["fig4"])
    # Figure 4 has the log/linear x buttons on the page.
    assert browser.execute_script("return !!document.querySelector('#fig-4 .updatemenu-container')")
    browser.execute_script("document.getElementById('card-fig4').scrollIntoView({block: 'center'})")
    click(browser, element(browser, "[aria-label='Download Figure 4 as an SVG image']"))
    svg = wait_file(downloads, export.file_name(scn, "fig4", "svg")).read_text()
    address = browser.execute_script("return location.href")
    text = unquote(re.sub(r"<[^>]+>", "\n", svg)).replace("&amp;", "&")
    assert "Figure 4 · " in text
    line = scenario_line(scn.params)
    said = " ".join(text.split())  # the line wraps at its " · " where the image is narrow
    assert all(part in said for part in line.split(" · ")), line
    assert f"Source: {address}" in said
    assert "linear x" not in text and "log x" not in text and "updatemenu" not in svg
    assert severe_console_errors(browser) == []


def test_print_opens_with_a_title_block_and_leaves_the_controls_off(browser, server, tmp_path):
    open_page(browser, server, PINNED, ["fig1"])
    wait_js(browser, "return !document.getElementById('compare-card').hidden", what="the comparison table")
    shown = "return getComputedStyle(document.querySelector(arguments[0])).display !== 'none'"
    assert not browser.execute_script(shown, ".print-head")  # on paper only
    with media(browser, kind="print"):
        wait_js(browser, shown, what="the title block", args=(".print-head",))
        head = browser.execute_script("return document.querySelector('.print-head').innerText")
        assert head.startswith("inferx") and datetime.now(UTC).strftime("%Y-%m-%d") in head
        assert browser.execute_script("return location.href") in head
        assert scenario_line(B.params) in head
        top = browser.execute_script(
            "return [...document.querySelectorAll('main > *')]"
            ".find(e => e.offsetHeight > 0 && !e.matches('.visually-hidden')).className"
        )
        assert "print-head" in top  # the first thing printed
        for control in ("#catalog-search", "#pin-a", "#unpin-a", ".compare-bar", "#controls-drawer", ".export-tools"):
            if browser.execute_script("return !!document.querySelector(arguments[0])", control):
                assert not browser.execute_script(shown, control), control
        for card in ("#card-fig6 .time-parts", "#compare-card", "#card-search", "#card-fig10"):
            assert browser.execute_script(
                "return getComputedStyle(document.querySelector(arguments[0])).breakInside", card
            ) == "avoid", card  # fmt: skip
        assert browser.execute_script(  # the explorer's bars begin a page: with them the card outgrows one
            "return getComputedStyle(document.querySelector('#card-fig6 .time-parts')).breakBefore"
        ) == "page"  # fmt: skip
        assert browser.execute_script(shown, "#compare-card")  # the numbers print
        # At the paper's width every card fits a Letter page inside style.css's 15 mm margins: the explorer too.
        with viewport(browser, PAPER_WIDTH, 1000):
            tall = wait_js(browser, CARD_HEIGHTS_JS, what="the cards laid out at the paper's width")
            assert max(h for _, h in tall) <= LETTER_HEIGHT, tall
        pdf = base64.b64decode(
            browser.execute_cdp_cmd(
                "Page.printToPDF", {"paperWidth": 8.27, "paperHeight": 11.69, "printBackground": True}
            )["data"]
        )
        assert pdf.startswith(b"%PDF")
        (shots_dir(tmp_path) / "print.pdf").write_bytes(pdf)
    assert not browser.execute_script(shown, ".print-head")
    assert severe_console_errors(browser) == []
