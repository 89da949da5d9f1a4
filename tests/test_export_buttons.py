"""The figure cards' downloads: file names from the scenario, the same CSV as the CLI, and every card has its
buttons, each named for a screen reader."""

from __future__ import annotations

import base64
import json
import subprocess
import sys

import pytest
from conftest import ROOT

import app  # noqa: F401 (the pages register with the app)
from inferx import export
from inferx import figure_registry as registry
from inferx.scenario import InvalidParameter, Scenario
from pages import embed, home, methods
from pages._export import download, export_tools, page_state
from pages._url import controls


@pytest.mark.parametrize(
    ("params", "fig", "kind", "pinned", "name"),
    [
        ({"ctx": 4096}, "fig4", "csv", None, "inferx_fig4_h200x8_tp8_ctx4096.csv"),
        ({"preset": "mi300x4"}, "fig10", "png", None, "inferx_fig10_mi300xx4_tp4_ctx1024.png"),
        ({"gpu": "b300", "gpus": 2, "tp": 2}, "fig1", "svg", None, "inferx_fig1_b300x2_tp2_ctx1024.svg"),
        ({"model": "llama-3.3-70b"}, "fig2", "json", None, "inferx_fig2_llama-3.3-70b_h200x8_tp8_ctx1024.json"),
        ({}, "fig5", "csv", {"preset": "b200x8", "ctx": 8192},
         "inferx_fig5_h200x8_tp8_ctx1024_vs_b200x8_tp8_ctx8192.csv"),
    ],
)  # fmt: skip
def test_file_names_say_the_figure_machine_tp_and_context(params, fig, kind, pinned, name):
    a = Scenario.from_params(**pinned) if pinned else None
    assert export.file_name(Scenario.from_params(**params), fig, kind, a) == name


def test_a_file_kind_outside_the_four_is_refused():
    with pytest.raises(ValueError, match="kind=exe: must be one of csv, json, png, svg"):
        export.file_name(Scenario.from_params(), "fig1", "exe")


@pytest.mark.parametrize("fig", ["fig3", "fig6", "fig11", "fig15"])
def test_the_csv_button_writes_what_the_cli_writes(fig):
    scn = Scenario.from_params(preset="b200x8", ctx=8192)
    sent = download(fig, "csv", scn, 8, None)
    text = base64.b64decode(sent["content"]).decode() if sent.get("base64") else sent["content"]
    cli = subprocess.run(
        [sys.executable, "-m", "inferx", "frontier", "--figure", fig[3:], "--format", "csv",
         "--preset", "b200x8", "--ctx", "8192"],
        cwd=ROOT, capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    assert text == cli.stdout and text.count("\n") > 3
    assert sent["filename"] == f"inferx_{fig}_b200x8_tp8_ctx8192.csv"


def test_the_json_button_holds_the_figure_record_with_a():
    a = Scenario.from_params(preset="mi300x4")
    sent = download("fig4", "json", Scenario.from_params(), 8, a)
    record = json.loads(sent["content"])
    names = [t["name"] for t in record["traces"]]
    assert record["figure"] == "fig4"
    assert (record["x_title"], record["y_title"]) == export.axis_titles(registry.build(a, ["fig4"])["fig4"])
    assert any(n.startswith("A: ") for n in names) and any(not n.startswith("A: ") for n in names)


def test_the_page_state_comes_from_the_controls_or_else_the_address():
    values = [None] * len(controls())
    scn, batch, a = page_state(values, None, None, "?model=llama-3.3-70b&ctx=9999")
    assert scn.params["model"] == "llama-3.3-70b" and scn.params["ctx"] == 1024 and batch == 8 and a is None
    with pytest.raises(InvalidParameter):
        page_state(values, 99, None, "")  # a batch slider position past 2^30
    with pytest.raises(InvalidParameter):
        page_state(values, None, {"preset": "tpu"}, "")


def buttons(layout) -> list:
    return [c for c in layout._traverse() if isinstance(getattr(c, "id", None), dict) and c.id["role"] == "export"]


def test_every_card_on_every_page_has_its_named_download_buttons():
    pages = {"home": home.layout(), "methods": methods.layout(), "embed": embed.layout(name="fig6")}
    shown = {"home": registry.DASHBOARD, "methods": ["fig15"], "embed": ["fig6"]}
    for page, layout in pages.items():
        found = buttons(layout)
        assert sorted({b.id["fig"] for b in found}) == sorted(shown[page]), page
        for b in found:
            label = getattr(b, "aria-label")
            assert label.startswith("Download Figure ") and b.id["kind"].upper() in label.upper()
    tools = export_tools("fig4")
    select = next(c for c in tools._traverse() if getattr(c, "id", None) == "image-size-fig4")
    assert getattr(select, "aria-label") == "Image size of Figure 4"
