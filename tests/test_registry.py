"""Each control, figure and preset is declared once; these add a throwaway one of each and find it everywhere
it should appear: the pages, the URL, the CLI, the embed routes, the redraw, the browser's config."""

import json

import pytest
from conftest import layout_text, slider_positions

import app  # noqa: F401 (pages register themselves on the app)
from inferx import cli
from inferx.figures import curves as figures
from inferx.figures import registry
from inferx.physics.hardware import GPUS, Machine
from inferx.physics.presets import HARDWARE, Hardware
from inferx.scenario.controls import PARAMS, Param
from inferx.scenario.evaluation import Scenario
from pages import embed, home, inferencex
from pages._callbacks import read_redraw
from pages._controls import ui_config
from pages._ids import control_id
from pages._url import control_values_to_params, parse_query


def ids_and_values(layout) -> dict:
    """Every component id on a page (as JSON text) with its `value` (None where it has none)."""
    found = {}
    for c in [layout, *layout._traverse()]:
        cid = getattr(c, "id", None)
        if cid is not None:
            found[json.dumps(cid, sort_keys=True)] = getattr(c, "value", None)
    return found


def hidden_ids(layout) -> set:
    """Ids inside a hidden container."""
    out = set()
    for c in [layout, *layout._traverse()]:
        if getattr(c, "hidden", None) is True and hasattr(c, "_traverse"):
            out |= {json.dumps(x.id, sort_keys=True) for x in c._traverse() if getattr(x, "id", None) is not None}
    return out


PAGES = {"home": home.layout, "embed": lambda **q: embed.layout(name="fig1", **q), "inferencex": inferencex.layout}


def cli_options() -> dict[str, set]:
    parser = cli.build_parser()
    return {name: set(sub._option_string_actions) for name, sub in parser._subparsers._group_actions[0].choices.items()}


def test_every_parameter_is_a_control_a_url_parameter_and_a_cli_option():
    options = cli_options()
    for page, layout in PAGES.items():
        ids = ids_and_values(layout())
        hidden = hidden_ids(layout())
        for name, p in PARAMS.items():
            assert json.dumps(control_id(name)) in ids, (page, name)
            # /inferencex shows only the controls that move its model curve; the rest are there, hidden.
            shown = p.overlay or page != "inferencex"
            assert (json.dumps(control_id(name)) not in hidden) == shown, (page, name)
    defaults = Scenario.from_params().params
    for name in PARAMS:
        given = PARAMS[name].unset if defaults[name] is None else str(defaults[name])  # unset: its word
        values, _, notices = parse_query({name: given})
        assert not notices and values[name] == defaults[name], name
        for command in ("point", "frontier"):
            assert f"--{name}" in options[command], (command, name)


def test_a_new_parameter_is_on_every_page_in_the_url_and_in_the_cli(monkeypatch, capsys):
    monkeypatch.setitem(PARAMS, "widgets", Param("Widgets", "per step", "float", 2.0, 0, 10, 0.5, help="a test"))
    for page, layout in PAGES.items():
        assert ids_and_values(layout(widgets="4"))[json.dumps(control_id("widgets"))] == 4.0, page
    values, _, notices = parse_query({"widgets": "3.5"})
    assert values["widgets"] == 3.5 and not notices
    _, _, notices = parse_query({"widgets": "11"})
    assert notices == ["Ignored widgets=11: must be a number from 0 to 10 per step."]
    assert Scenario.from_params(widgets="7").params["widgets"] == 7.0  # what the engine would read
    # The browser sends one value per control, the new one included.
    sent = list(slider_positions(Scenario.from_params().params).values())  # log2 sliders: their positions
    assert control_values_to_params(sent)["widgets"] == 2.0
    assert cli.main(["point", "--widgets", "5"]) == 0 and json.loads(capsys.readouterr().out)["batch"] == 8
    with pytest.raises(SystemExit) as exit_:
        cli.main(["point", "--widgets", "12"])
    assert exit_.value.code == 2 and "widgets=12: must be a number from 0 to 10 per step" in capsys.readouterr().err


def test_a_new_figure_is_on_the_dashboard_in_embeds_and_in_redraws(monkeypatch):
    def bandwidth_bar(scn, batch):
        return {"data": [{"type": "bar", "x": ["BW"], "y": [scn.bw / 1e12]}], "layout": {"title": {"text": "bw"}}}

    fig = registry.Figure(10, "bandwidth-bar", "Figure 10 · Bandwidth", "A bar.", r"\text{BW}", bandwidth_bar)
    monkeypatch.setitem(registry.FIGURES, fig.key, fig)
    page = home.layout(bw="50")
    ids = ids_and_values(page)
    assert json.dumps("card-fig10") in ids and json.dumps("fig-10") in ids
    assert "Figure 10 · Bandwidth" in layout_text(page)
    for name in ("fig10", "bandwidth-bar"):
        assert json.dumps("fig-10") in ids_and_values(embed.layout(name=name)), name
    request = {"values": [None] * len(PARAMS), "batch": None, "batchOnly": False}
    names, _, _ = read_redraw(request, [{"role": "figure", "fig": "fig10"}])
    assert names == ["fig10"]
    assert registry.build(Scenario.from_params(bw=50), ["fig10"])["fig10"]["data"][0]["y"] == [50.0]


@pytest.fixture
def fresh_references():
    """The other presets' scenarios are cached per state; a test that adds a preset starts and ends without
    those made before or during it."""
    figures._preset_refs.cache_clear()
    yield
    figures._preset_refs.cache_clear()


def test_a_new_preset_is_one_entry(monkeypatch, capsys, fresh_references):
    h100 = Machine(GPUS["h100"], 8)
    preset = Hardware("8×H100", h100, h100.bw, h100.peak("fp8"), h100.hbm, 8, "nvlink", "#CC79A7", False)
    monkeypatch.setitem(HARDWARE, "h100x8", preset)
    values, _, notices = parse_query({"preset": "h100x8"})
    assert not notices and values["bw"] == pytest.approx(8 * 3.35) and values["hbm"] == pytest.approx(640)
    options = [c.options for c in home.layout()._traverse() if getattr(c, "id", None) == control_id("preset")][0]
    assert {"label": "8×H100", "value": "h100x8"} in options
    config = ui_config().data
    assert config["presets"]["h100x8"]["bw"] == pytest.approx(26.8)
    # The other presets' figure draws it, or says why it cannot: DeepSeek-R1's 671 GB of FP8 weights leave
    # no room on 640 GB.
    notes = registry.build(Scenario.from_params(), ["fig5"])["fig5"]["layout"]["annotations"]
    assert any("8×H100" in a["text"] for a in notes)
    assert cli.main(["point", "--preset", "h100x8"]) == 2
    assert "needs 671 GB of weights; the machine has 640 GB" in capsys.readouterr().err


def test_the_browser_gets_the_preset_controls_from_the_declarations():
    config = ui_config().data
    assert config["presetControls"] == [n for n, p in PARAMS.items() if p.preset]
    assert config["controls"] == list(PARAMS) and list(config["log2"]) == [n for n, p in PARAMS.items() if p.log2]
    assert config["log2"]["bw"] == [PARAMS["bw"].step, 0] and config["log2"]["ctx"] == [PARAMS["ctx"].step, 1]
    for key in HARDWARE:
        assert set(config["presetControls"]) <= set(config["presets"][key])


def test_a_figure_without_curves_keeps_its_axis_titles_but_numbers_nothing():
    """DeepSeek-R1 on 4 × H100 (320 GB for 671 GB of weights): every figure is a note on empty axes, whose
    ticks would number plotly's placeholder range; a figure with curves keeps them."""
    unfit, fits = Scenario.from_params(gpu="h100", gpus=4), Scenario.from_params()
    for name, fig in registry.build(unfit).items():
        axes = {k: v for k, v in fig["layout"].items() if k.startswith(("xaxis", "yaxis"))}
        if fig["data"]:
            continue
        assert axes and all(a["showticklabels"] is False and a["showgrid"] is False for a in axes.values()), name
        assert all(a.get("title", {}).get("text") for a in axes.values()), name
        assert "needs 671 GB of weights" in json.dumps(fig["layout"]["annotations"]), name  # the note says why
        # Nor a line or label at a data height: on axes without numbers it would mark nothing.
        marks = [*fig["layout"]["shapes"], *fig["layout"]["annotations"]]
        assert [m for m in marks if m.get("xref") == "x" or m.get("yref") == "y"] == [], name
    for drawn in (registry.build(fits, ["fig1"]), registry.build(fits, ["fig1"], pinned=unfit)):
        assert drawn["fig1"]["data"] and drawn["fig1"]["layout"]["xaxis"].get("showticklabels") is not False
