"""The figure cards' downloads: file names from the scenario, the same CSV as the CLI through the export route,
bad requests refused with a reason, and every card has its buttons, each named for a screen reader."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from browser_checks import click, element
from conftest import ROOT, page_values, severe_console_errors
from dash.development.base_component import Component

import app  # the pages register with the app
from benchmarks.chromium import wait_js
from inferx.figures import export, registry
from inferx.scenario.controls import InvalidParameter
from inferx.scenario.evaluation import Scenario
from pages import embed, home, methods
from pages._cards import figure_card
from pages._export import export_spec, page_state
from pages._url import controls, scenario_line


@pytest.mark.parametrize(
    ("params", "fig", "kind", "pinned", "name"),
    [
        ({"ctx": 4096}, "fig4", "csv", None, "inferx_fig4_h200x8_tp8_ctx4096.csv"),
        ({"preset": "mi300x4"}, "fig10", "png", None, "inferx_fig10_mi300x4_tp4_ctx1024.png"),
        ({"gpu": "b300", "gpus": 2, "tp": 2}, "fig1", "svg", None, "inferx_fig1_b300x2_tp2_ctx1024.svg"),
        ({"model": "llama-3.3-70b"}, "fig2", "json", None, "inferx_fig2_llama-3.3-70b_h200x8_tp8_ctx1024.json"),
        ({}, "fig5", "csv", {"preset": "b200x8", "ctx": 8192},
         "inferx_fig5_h200x8_tp8_ctx1024_vs_b200x8_tp8_ctx8192.csv"),
        # Any other setting that differs from what the preset and the machine give is named too, so A and the
        # current settings, or two downloads, at different bandwidths differ.
        ({"bw": 52}, "fig1", "csv", {"bw": 40}, "inferx_fig1_h200x8_tp8_ctx1024_bw-52_vs_h200x8_tp8_ctx1024_bw-40.csv"),
        ({"gpu": "b300", "gpus": 8, "wdtype": "fp4", "price": 2.5}, "fig11", "png", None,
         "inferx_fig11_b300x8_tp8_ctx1024_wdtype-fp4_price-2.5.png"),
    ],
)  # fmt: skip
def test_file_names_say_the_figure_machine_tp_and_context(params, fig, kind, pinned, name):
    a = Scenario.from_params(**pinned) if pinned else None
    assert export.file_name(Scenario.from_params(**params), fig, kind, a) == name


def test_a_name_with_every_setting_changed_stays_within_what_a_file_system_takes():
    every = {
        "bw": 52,
        "compute": 100,
        "hbm": 2000,
        "ctx": 300,
        "isl": 200,
        "wdtype": "fp4",
        "kvdtype": "fp4",
        "cv": 1,
        "util": 50,
        "tp": 4,
        "pp": 2,
        "ic": "roce",
        "mode": "calibrated",
        "osl": 4096,
        "framework": "trt",
        "mtp": "on",
        "acceptance": 70,
        "ttft": 300,
        "tpot": 20,
        "price": 3,
        "power": 0.5,
    }
    scn = Scenario.from_params(**every)
    name = export.file_name(scn, "fig1", "svg", Scenario.from_params(**(every | {"cv": 2})))
    other = export.file_name(scn, "fig1", "svg", Scenario.from_params(**(every | {"cv": 1.5})))
    assert len(name) <= export.MAX_STEM + len(".svg") and name != other and "__" not in name


def test_a_file_kind_outside_the_four_is_refused():
    with pytest.raises(ValueError, match="kind=exe: must be one of csv, json, png, svg"):
        export.file_name(Scenario.from_params(), "fig1", "exe")


@pytest.fixture
def client():
    return app.server.test_client()


def ask(client, fig, kind, values=None, batch=None, pinned=None, search=""):
    """The POST assets/export.js sends for a button press."""
    values = [None] * len(controls()) if values is None else values
    body = {"fig": fig, "kind": kind, "values": values, "batch": batch, "pinned": pinned, "search": search}
    return client.post("/_export", json=body)


@pytest.mark.parametrize("fig", ["fig3", "fig6", "fig11", "fig15"])
def test_the_csv_button_writes_what_the_cli_writes(client, fig):
    sent = ask(client, fig, "csv", page_values(preset="b200x8", ctx=8192), batch=3.0)
    cli = subprocess.run(
        [sys.executable, "-m", "inferx", "frontier", "--figure", fig[3:], "--format", "csv",
         "--preset", "b200x8", "--ctx", "8192"],
        cwd=ROOT, capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    assert sent.status_code == 200 and sent.mimetype == "text/csv"
    assert sent.get_data(as_text=True) == cli.stdout and cli.stdout.count("\n") > 3
    disposition = f'attachment; filename="inferx_{fig}_b200x8_tp8_ctx8192.csv"'
    assert sent.headers["Content-Disposition"] == disposition


def test_the_explorers_csv_at_another_batch_is_what_the_cli_writes_with_batch(client):
    """Figure 6 marks the explorer's batch (64 here, slider position 6): `--batch` gives the CLI the same file;
    other figures and the frontier table have no point to mark and refuse it."""
    sent = ask(client, "fig6", "csv", page_values(preset="b200x8"), batch=6.0)
    run = [sys.executable, "-m", "inferx", "frontier", "--preset", "b200x8"]
    cli = subprocess.run([*run, "--figure", "6", "--batch", "64"], cwd=ROOT, capture_output=True, text=True,
                         check=True, timeout=120)  # fmt: skip
    assert sent.get_data(as_text=True) == cli.stdout
    at_8 = subprocess.run([*run, "--figure", "6"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert at_8.stdout != cli.stdout and at_8.stdout.splitlines()[:-1] == cli.stdout.splitlines()[:-1]
    for extra, message in ((["--figure", "5"], "goes with --figure 6, not 5"), ([], "has every batch size")):
        refused = subprocess.run([*run, *extra, "--batch", "64"], cwd=ROOT, capture_output=True, text=True,
                                 timeout=120)  # fmt: skip
        assert refused.returncode == 2 and message in refused.stderr and len(refused.stderr.splitlines()) == 2


def test_a_legend_statement_is_a_note_in_the_json_and_no_row_in_the_csv():
    """Figure 10 says in its legend that no batch size meets a tight target, and a comparison moves Figure 12's
    peak label there: words with no point. The JSON gives them among the notes; the CSV has no numberless row."""
    tight = registry.build(Scenario.from_params(ttft=10, tpot=1), ["fig10"])["fig10"]
    kimi = Scenario.from_params(model="kimi-k2", gpu="mi355x", ic="nvlink")
    peak = registry.build(kimi, ["fig12"], pinned=Scenario.from_params(model="kimi-k2", gpu="mi300x"))["fig12"]
    for name, fig, said in (
        ("fig10", tight, "no batch size meets TTFT ≤ 10 ms and TPOT ≤ 1 ms"),
        ("fig12", peak, "peak 292 req/s at C = 25,318"),
    ):
        assert said in [t["name"] for t in fig["data"]]  # the legend says it
        record = export.figure_record(name, fig)
        assert said in record["notes"] and said not in [t["name"] for t in record["traces"]]
        rows = export.figure_rows(fig)
        x_title, y_title = export.axis_titles(fig)
        assert rows and all(r[x_title] is not None or r[y_title] is not None for r in rows), name
        assert said not in export.figure_csv(fig)


def test_a_frontiers_rows_give_each_points_batch_size():
    """Figures 4-6, 11 and 12 plot against throughput, interactivity or rate: each row also gives the batch
    size behind its point, so `inferx point --batch` sets it up again. Figures whose x axis is the batch, and
    those whose hover data is something else (13: the speed-up), get no such column."""
    scn = Scenario.from_params(preset="mi300x4", ctx=4096)
    figs = registry.build(scn, ["fig1", "fig5", "fig6", "fig13"], 64)
    rows = [r for r in export.figure_rows(figs["fig5"]) if r["trace"] == "4×MI300X (current)"]
    batch = [r[export.BATCH_COLUMN] for r in rows]
    assert batch[:3] == [1, 2, 3] and all(isinstance(b, int) for b in batch)
    engine = scn.evaluate(batch)
    throughput = [r["Output throughput (tok/s)"] for r in rows]
    assert throughput == pytest.approx(engine["throughput"], rel=1e-3)  # the figure's 4 significant figures
    assert [r[export.BATCH_COLUMN] for r in export.figure_rows(figs["fig6"])][-1] == 64  # the explorer's point
    record = export.figure_record("fig6", figs["fig6"])
    frontier, dot = record["traces"]
    assert len(frontier["batch"]) == len(frontier["x"]) and frontier["batch"][-1] < scn.b_max and dot["batch"] == [64]
    for fig in ("fig1", "fig13"):
        assert export.columns(figs[fig]) == ["trace", *export.axis_titles(figs[fig])]
        assert "batch" not in export.figure_record(fig, figs[fig])["traces"][0]
    assert export.figure_csv(figs["fig5"]).splitlines()[0].endswith(",Batch size B (concurrent requests)")


def test_the_json_button_holds_the_figure_record_with_a(client):
    a = Scenario.from_params(preset="mi300x4")
    sent = ask(client, "fig4", "json", page_values(), pinned={"preset": "mi300x4"})
    record = json.loads(sent.get_data(as_text=True))
    names = [t["name"] for t in record["traces"]]
    name = "inferx_fig4_h200x8_tp8_ctx1024_vs_mi300x4_tp4_ctx1024.json"
    assert sent.headers["Content-Disposition"] == f'attachment; filename="{name}"'
    assert record["figure"] == "fig4"
    assert (record["x_title"], record["y_title"]) == export.axis_titles(registry.build(a, ["fig4"])["fig4"])
    assert any(n.startswith("A: ") for n in names) and any(not n.startswith("A: ") for n in names)


def test_an_image_button_gets_its_file_name_and_the_address_gives_the_model_where_there_are_no_controls(client):
    sent = ask(client, "fig15", "svg", search="?model=llama-3.3-70b&ctx=9999")
    scn = Scenario.from_params(model="llama-3.3-70b")
    # With the scenario line the image carries under its title (the page's own: pages._url.scenario_line).
    assert sent.get_json() == {"filename": "inferx_fig15_llama-3.3-70b_h200x8_tp8_ctx1024.svg",
                               "scenario": scenario_line(scn.params)}  # fmt: skip
    assert "Llama-3.3-70B" in sent.get_json()["scenario"]
    # Beside a pinned A, the line names A too.
    pinned = ask(client, "fig4", "png", pinned={"preset": "mi300x4"}).get_json()["scenario"]
    assert pinned.endswith(" · beside A: 4×MI300X")


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("not json", "the request must be a JSON object"),
        ({"fig": "fig99", "kind": "csv"}, "fig must be one of fig1, "),
        ({"fig": "fig1", "kind": "exe"}, "kind must be one of csv, json, png, svg"),
        ({"fig": "fig1", "kind": "csv", "values": "abc"}, "values=abc: must be a list of control values"),
        ({"fig": "fig1", "kind": "csv", "values": [1, 2]}, "values=[1, 2]: must be a list of "),
        ({"fig": "fig1", "kind": "csv", "values": [None], "batch": 99}, "batch=99: slider position must be"),
        ({"fig": "fig1", "kind": "png", "values": [None], "pinned": {"preset": "tpu"}}, "preset=tpu"),
    ],
)  # fmt: skip
def test_a_bad_request_is_refused_with_its_reason(client, body, reason):
    sent = client.post("/_export", json=body) if isinstance(body, dict) else client.post("/_export", data=body)
    assert sent.status_code == 400 and sent.mimetype == "text/plain"
    assert sent.get_data(as_text=True).startswith(f"Could not export: {reason}"), sent.get_data(as_text=True)


def test_a_body_nested_past_the_parser_is_refused_not_a_500(client):
    deep = '{"fig": "fig1", "kind": "csv", "values": ' + "[" * 100_000 + "]" * 100_000 + "}"
    sent = client.post("/_export", data=deep, content_type="application/json")
    assert sent.status_code == 400
    assert sent.get_data(as_text=True) == "Could not export: the request must be a JSON object"


def test_the_page_state_comes_from_the_controls_or_else_the_address():
    values = [None] * len(controls())
    scn, batch, a = page_state(values, None, None, "?model=llama-3.3-70b&ctx=9999")
    assert scn.params["model"] == "llama-3.3-70b" and scn.params["ctx"] == 1024 and batch == 8 and a is None
    scn, batch, _ = page_state(page_values(preset="mi300x4", ctx=4096), 5.0, None, "?model=llama-3.3-70b")
    assert scn.params["preset"] == "mi300x4" and scn.params["ctx"] == 4096 and batch == 32
    with pytest.raises(InvalidParameter):
        page_state(values, 99, None, "")  # a batch slider position past 2^30
    with pytest.raises(InvalidParameter):
        page_state(values, None, {"preset": "tpu"}, "")


def rows(layout) -> list[dict]:
    """The specs of the download rows a layout holds (assets/export.js builds each row from its spec)."""
    return [json.loads(getattr(c, "data-export")) for c in layout._traverse() if hasattr(c, "data-export")]


def test_every_card_on_every_page_has_its_named_download_buttons():
    pages = {"home": home.layout(), "methods": methods.layout(), "embed": embed.layout(name="fig6")}
    shown = {"home": registry.DASHBOARD, "methods": ["fig15"], "embed": ["fig6"]}
    for page, layout in pages.items():
        found = rows(layout)
        assert sorted(r["fig"] for r in found) == sorted(shown[page]), page
        for r in found:
            title = registry.FIGURES[r["fig"]].title.split(" · ")[0]
            assert [b["kind"] for b in r["buttons"]] == list(export.FILE_KINDS)
            for b in r["buttons"]:
                assert b["label"].startswith(f"Download {title} ") and b["text"] in b["label"]
            assert r["sizes"]["label"] == f"Image size of {title}" and r["sizes"]["id"] == f"image-size-{r['fig']}"
            assert r["url"] == "/_export"


def test_a_card_is_a_handful_of_dash_components():
    """Every Dash component re-checks its props on each store update, many per step of a slider drag: a card's
    downloads and copy button are plain elements (assets/export.js), not a row of components each."""
    card = figure_card("fig4", {})
    components = [c for c in card._traverse() if isinstance(c, Component)]
    assert len(components) + 1 <= 12, sorted(type(c).__name__ for c in components)


@pytest.mark.browser
def test_every_card_builds_its_row_in_the_browser_and_again_after_a_page_change(browser, server):
    """assets/export.js fills each empty row from its spec as Dash renders a page, the router's next page too."""
    browser.get(server.url)
    count = "document.querySelectorAll(arguments[0] + ' .export-tools button').length"
    wait_js(browser, f"return {count} === {4 * len(registry.DASHBOARD)};", what="the rows of /", args=("#figures",))
    named = "return [...document.querySelectorAll('#card-fig4 .export-tools [aria-label]')].map(e => e.ariaLabel);"
    spec = export_spec("fig4")
    assert browser.execute_script(named) == [b["label"] for b in spec["buttons"]] + [spec["sizes"]["label"]]
    click(browser, element(browser, "#nav-methods"))
    wait_js(browser, f"return {count} === 4;", what="the row on /methods", args=("#card-fig15",))
    assert browser.execute_script("return location.pathname").endswith("/methods")
    assert severe_console_errors(browser) == []
