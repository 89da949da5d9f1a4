"""Page layouts and the redraw callback, through the real Flask app (no browser)."""

import json
import re
import subprocess
import sys

import dash
import dash_bootstrap_components as dbc
import plotly
import pytest
from conftest import figure_ids, page_values, post_redraw, slider_positions

import app as inferx_app
from inferx.figures import article as figures
from inferx.figures import registry
from inferx.scenario.controls import BATCH, InvalidParameter
from inferx.scenario.evaluation import Scenario
from pages import embed, home, methods
from pages._cards import INTERNAL_ERROR, math_keeps_punctuation
from pages._url import control_values_to_params, controls, parse_query


@pytest.fixture(scope="module")
def client():
    return inferx_app.server.test_client()


def test_parse_query_keeps_good_values_and_reports_bad_ones():
    values, batch, notices = parse_query({"preset": "mi300x4", "ctx": "8192", "batch": "64"})
    assert (values["preset"], values["bw"], values["ctx"], batch, notices) == ("mi300x4", 21.2, 8192, 64, [])
    values, batch, notices = parse_query({"bw": "999", "util": "abc", "tp": "3", "batch": "-2", "x": "1"})
    assert values["bw"] == 38.4 and values["util"] == 87.0 and values["tp"] == 8 and batch == BATCH.default
    assert notices == [
        "Ignored bw=999: must be a number from 0.6 to 600 TB/s.",
        "Ignored util=abc: must be a number from 50 to 100 %.",
        "Ignored tp=3: must be a power of two from 1 to 64 GPUs.",
        "Ignored batch=-2: must be a whole number from 1 to 1,073,741,824 requests.",
        "Ignored unknown parameter 'x'.",
    ]


def test_a_misspelt_name_or_choice_gets_a_guess_and_a_control_character_is_escaped_once():
    _, _, notices = parse_query({"bww": "3", "gpu": "mi30x", "\x00": "1", "wdtype": "fp9"})
    assert notices == [
        "Ignored unknown parameter 'bww' (did you mean bw?).",
        "Ignored gpu=mi30x: must be one of a100, h100, h200, b200, b300, gb200, l40s, mi300x, mi325x, mi355x "
        "(did you mean mi300x?).",
        "Ignored unknown parameter '\\x00'.",  # shown as '\x00', not as '\\x00'
        "Ignored wdtype=fp9: must be one of fp16, bf16, fp8, int8, fp4, int4.",  # nothing close enough
    ]


def test_a_bad_preset_keeps_the_default_hardware_and_says_so():
    values, _, notices = parse_query({"preset": "tpu", "bw": "20"})
    assert (values["preset"], values["hbm"], values["bw"]) == ("h200x8", 1128.0, 20.0)
    assert notices == ["Ignored preset=tpu: must be one of h200x8, mi300x4, b200x8, custom."]


def test_a_repeated_url_key_takes_its_last_value_and_says_so():
    # Dash's router hands a repeated key over as a list.
    values, batch, notices = parse_query({"batch": ["1", "2"], "ctx": ["512", "banana"]})
    assert batch == 2 and values["ctx"] == 1024
    assert notices[:2] == [
        "batch was given 2 times; used the last: batch=2.",
        "ctx was given 2 times; used the last: ctx=banana.",
    ]
    assert notices[2].startswith("Ignored ctx=banana:")


def test_the_url_and_the_cli_refuse_the_same_values_in_the_same_words():
    """One definition per parameter: each refused value gives the URL notice `Ignored <message>.` and the CLI
    error `inferx point: error: <message>`, with the same message."""
    for name, raw in [("tp", "3"), ("bw", "1e308"), ("ctx", "100000000"), ("cv", "nan"), ("util", "-0.0")]:
        _, _, notices = parse_query({name: raw})
        out = subprocess.run(
            [sys.executable, "-m", "inferx", "point", f"--{name}", raw], capture_output=True, text=True, timeout=60
        )
        message = notices[0].removeprefix("Ignored ").removesuffix(".")
        assert out.returncode == 2 and f"inferx point: error: {message}\n" in out.stderr, (name, notices, out.stderr)


def as_json(component) -> str:
    return json.dumps(component, cls=plotly.utils.PlotlyJSONEncoder)


def test_layouts_render_for_every_page():
    assert '"fig-9"' in as_json(home.layout(preset="b200x8"))
    for key, fig in registry.FIGURES.items():
        for name in (key, fig.name, key.upper(), fig.name.title()):  # its number or what it draws, any case
            assert f'"fig-{fig.number}"' in as_json(embed.layout(name=name))
    assert "No figure called 'fig99'" in as_json(embed.layout(name="fig99"))


def test_a_batch_past_b_max_in_the_address_says_what_the_explorer_shows_instead():
    b_max = Scenario.from_params().b_max  # 11,050 on the default 8×H200 at 1,024 tokens
    for layout in (home.layout(batch=str(2**30)), embed.layout(name="explorer", batch=str(2**30))):
        assert f"Batch 1,073,741,824 is not below B_max = {b_max:,} of these settings" in as_json(layout)
    for layout in (home.layout(batch=str(b_max - 1)), embed.layout(name="fig1", batch=str(2**30))):
        assert "is not below B_max" not in as_json(layout)  # in range, or no explorer on the page


def component_ids(layout) -> list[str]:
    ids = [getattr(c, "id", None) for c in [layout, *layout._traverse()]]
    return [json.dumps(i, sort_keys=True) for i in ids if i is not None]


@pytest.mark.parametrize(
    "page", ["home", "inferencex", "methods", *[f"embed/{n}" for n in (*registry.FIGURES, "explorer")]]
)
def test_every_component_id_is_unique_on_its_page(page):
    """Dash routes a prop change to one component per id: a second one with the same id silently never
    updates (the embed pages' 'Copy embed code' did nothing while the card carried a button of the same id)."""
    from pages import inferencex, methods

    layouts = {"home": home.layout, "inferencex": inferencex.layout, "methods": methods.layout}
    layout = layouts[page]() if page in layouts else embed.layout(name=page.split("/")[1])
    ids = component_ids(layout)
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})


@pytest.mark.parametrize("page", ["home", "inferencex", "methods", "embed/fig6"])
def test_every_upload_on_a_page_finds_all_its_callbacks_outputs_there(page):
    """Dash refuses the whole answer of a callback with only some of its outputs on the page: the GPU datasheet's
    note on /inferencex never showed, since its callback also writes the `gpu-carried` store that page lacked."""
    from pages import inferencex

    layouts = {"home": home.layout, "inferencex": inferencex.layout, "methods": methods.layout}
    layout = layouts[page]() if page in layouts else embed.layout(name=page.split("/")[1])
    shell = inferx_app.app.layout() if callable(inferx_app.app.layout) else inferx_app.app.layout
    ids = (getattr(c, "id", None) for c in [*layout._traverse(), *shell._traverse()])
    here = {i for i in ids if isinstance(i, str)}
    uploads = 0
    for key, cb in inferx_app.app.callback_map.items():
        if any(i["property"] == "contents" and i["id"] in here for i in cb["inputs"]):
            uploads += 1
            outputs = [o.rsplit(".", 1)[0] for o in key.strip(".").split("...")]
            assert all(o in here for o in outputs), (key, [o for o in outputs if o not in here])
    assert uploads >= {"home": 3, "methods": 0}.get(page, 2)  # embeds have no measured data


@pytest.mark.parametrize("page", ["home", "inferencex", "methods", "embed/fig6"])
def test_headings_nest_one_level_at_a_time(page):
    """The control groups were H2s beside "Controls", and Figures 10–14 H2s beside "Beyond the article": a screen
    reader's outline had them as siblings of the headings they sit under."""
    from dash import html as h

    from pages import inferencex

    layouts = {"home": home.layout, "inferencex": inferencex.layout, "methods": methods.layout}
    layout = layouts[page]() if page in layouts else embed.layout(name=page.split("/")[1])
    kinds = (h.H1, h.H2, h.H3, h.H4, h.H5, h.H6)
    outline = [(kinds.index(type(c)) + 1, c.children) for c in [layout, *layout._traverse()] if type(c) in kinds]
    assert outline[0][0] in (1, 2) and outline[0][0] == min(level for level, _ in outline), outline[:3]
    for (above, _), (level, text) in zip(outline, outline[1:], strict=False):
        assert level <= above + 1, (text, level, above)
    groups = [level for level, text in outline if text in ("Hardware", "Measured data")]
    assert set(groups) == (set() if page == "methods" else {3})  # /methods has no controls
    if page == "home":
        beyond = [text for _, text in outline].index("Beyond the article")
        assert {level for level, _ in outline[beyond + 1 :]} == {3}


def test_every_slider_shows_its_value_and_unit():
    # The URL's values, in the same words the browser-side callback writes while a slider moves.
    text = as_json(home.layout(preset="mi300x4", ctx="8192", cv="0.5", util="95"))
    for name, shown in {
        "bw": "21.2 TB/s",
        "compute": "10.46 PFLOPS",
        "hbm": "768 GB",
        "ctx": "8,192 tokens",
        "isl": "1,024 tokens",
        "cv": "0.50",
        "util": "95 %",
    }.items():
        assert f'"children": "{shown}", "id": "ctl-{name}-value"' in text, name


@pytest.mark.parametrize("path", ["/", "/methods", "/embed/fig5?preset=b200x8", "/health"])
def test_pages_are_served(client, path):
    assert client.get(path).status_code == 200


def redraw_request(client, values: dict, figs, batch_pos=None, batch_only=False):
    """The server redraw as the browser asks for it: the whole control state in `redraw-request`."""
    request = {"values": [values[n] for n in controls()], "batch": batch_pos, "batchOnly": batch_only}
    return post_redraw(client, request, figure_ids(figs))


def test_redraw_callback_answers_with_engine_figures(client):
    values, _, _ = parse_query({"preset": "mi300x4", "ctx": "8192"})
    values = slider_positions(values)  # log2 sliders hold log2 of the value
    resp = redraw_request(client, values, ["fig5", "fig6"], batch_pos=6.0)
    assert resp.status_code == 200
    figs = resp.get_json()["response"]["figure-updates"]["data"]
    assert set(figs) == {"fig5", "fig6"}
    expected = figures.preset_frontiers(Scenario.from_params(preset="mi300x4", ctx=8192))
    assert figs["fig5"]["data"][-1]["y"] == expected["data"][-1]["y"]
    assert figs["fig6"]["data"][1]["customdata"][0][0] == 64


def test_bad_control_value_gives_notice_not_traceback(client):
    values, _, _ = parse_query({})
    values = slider_positions(values)
    values["util"] = 0  # outside (0, 100]
    resp = redraw_request(client, values, ["fig1"])
    assert resp.status_code == 200
    out = resp.get_json()["response"]
    assert out["runtime-notice"]["is_open"] is True and "util" in out["runtime-notice"]["children"]
    assert out["figure-updates"]["data"] == {}  # an answer all the same: the browser waits for one


def test_a_batch_change_redraws_only_the_explorer(client):
    values, _, _ = parse_query({})
    values = slider_positions(values)
    resp = redraw_request(client, values, ["fig1", "fig6"], batch_pos=5.0, batch_only=True)
    figs = resp.get_json()["response"]["figure-updates"]["data"]
    assert list(figs) == ["fig6"] and figs["fig6"]["data"][1]["customdata"][0][0] == 32


def test_a_redraw_builds_only_the_figures_the_browser_has_in_view(client):
    values, _, _ = parse_query({})
    values = slider_positions(values)
    request = {"values": [values[n] for n in controls()], "batch": None, "batchOnly": False, "figures": ["fig6"]}
    figs = post_redraw(client, request, figure_ids(["fig1", "fig6"])).get_json()["response"]["figure-updates"]
    assert list(figs["data"]) == ["fig6"]
    # Only graphs the page has: a figure in view that is not on the page is not built.
    request["figures"] = ["fig2", "fig6"]
    figs = post_redraw(client, request, figure_ids(["fig1", "fig6"])).get_json()["response"]["figure-updates"]
    assert list(figs["data"]) == ["fig6"]
    # A batch change concerns the explorer only, in view or not.
    request.update(batchOnly=True, figures=["fig1"])
    figs = post_redraw(client, request, figure_ids(["fig1", "fig6"])).get_json()["response"]["figure-updates"]
    assert figs["data"] == {}


@pytest.mark.parametrize("request_data", [None, "fig1", {"values": 3}, {"values": [], "batch": None}])
def test_a_malformed_redraw_request_gets_a_notice(client, request_data):
    out = post_redraw(client, request_data, figure_ids(["fig1"])).get_json()["response"]
    assert out["figure-updates"]["data"] == {} and out["runtime-notice"]["is_open"] is True


def test_log2_controls_convert_back_to_tokens():
    values = [None] * len(controls())
    values[controls().index("ctx")] = 13.0
    values[controls().index("isl")] = 10.0
    params = control_values_to_params(values)
    assert params["ctx"] == 8192 and params["isl"] == 1024
    values[controls().index("isl")] = 1024.0  # tokens where a position belongs: refused, not overflowed
    with pytest.raises(InvalidParameter, match="isl=1024.0: slider position"):
        control_values_to_params(values)


def default_state(**changes) -> dict:
    values, _, _ = parse_query({})
    values = slider_positions(values)  # log2 slider positions
    values.update(changes)
    return {"values": [values[n] for n in controls()], "batch": None, "batchOnly": False}


FIG1 = [{"role": "figure", "fig": "fig1"}]


@pytest.mark.parametrize(
    "request_data,ids,message",
    [
        # Each of these answered 500 (OverflowError, ZeroDivisionError, TypeError, KeyError) before they were checked.
        (default_state(bw=10**400), FIG1, "bw=100000000000000000"),
        ({**default_state(), "batch": 10**400}, FIG1, "batch=100000000000000000"),
        (default_state(cv=1e200), FIG1, "cv=1e+200: must be a number from 0 to 2"),
        (default_state(util=5e-324), FIG1, "util=5e-324: must be a number from 50 to 100 %"),
        (default_state(tp=3), FIG1, "tp=3: must be a power of two from 1 to 64 GPUs"),
        (default_state(preset=["h200x8"]), FIG1, "preset=['h200x8']: must be one of"),
        (default_state(), ["fig1"], "figures=fig1: each id must name one of fig1"),
        (default_state(), [{"role": "figure"}], "figures={'role': 'figure'}: each id must name one of"),
        (default_state(), [{"role": "figure", "fig": "fig99"}], "each id must name one of"),
        # thousands: 400 at the door
        (default_state(), FIG1 * 20, f"must be a list of at most {len(registry.FIGURES)} figure ids"),
        ({**default_state(), "batchOnly": "yes"}, FIG1, "batchOnly=yes: must be true or false"),
        ({**default_state(), "figures": "fig1"}, FIG1, "figures=fig1: must be a list of at most"),
        ({**default_state(), "figures": [["fig1"]]}, FIG1, "figures=[['fig1']]: must be a list of at most"),
        ({**default_state(), "figures": ["fig1"] * 99}, FIG1, "must be a list of at most"),
    ],
)
def test_a_hostile_redraw_is_refused_by_name(client, request_data, ids, message):
    resp = post_redraw(client, request_data, ids)
    assert resp.status_code == 200
    out = resp.get_json()["response"]
    assert out["figure-updates"]["data"] == {} and out["runtime-notice"]["is_open"] is True
    assert out["runtime-notice"]["children"].startswith("Could not redraw: ")
    assert message in out["runtime-notice"]["children"], out["runtime-notice"]["children"]


def test_a_failure_past_the_checks_is_logged_and_answered_with_a_short_notice(client, monkeypatch, caplog):
    """Inputs that pass every check yet fail is our bug: the log gets the traceback, the page a short notice
    (and still an answer, so the browser sends its next state)."""

    def broken(*_args, **_kwargs):
        raise RuntimeError("figure builder bug")

    monkeypatch.setattr(registry, "build", broken)
    resp = post_redraw(client, default_state(), figure_ids(["fig1"]))
    assert resp.status_code == 200
    out = resp.get_json()["response"]
    assert out["runtime-notice"]["children"] == INTERNAL_ERROR and out["figure-updates"]["data"] == {}
    assert "figure builder bug" not in resp.get_data(as_text=True)
    assert any(r.exc_info and "figure builder bug" in str(r.exc_info[1]) for r in caplog.records)


def test_the_methods_check_table_writes_numbers_as_a_reader_does():
    cells = [
        [str(td.children) for td in tr.children]
        for tr in methods.check_table().children.children[1].children  # the region's table's body rows
    ]
    compute = next(c for c in cells if c[1] == "8×H200 peak FP8 compute")
    assert compute[2:6] == ["31,664", "31,664", "TFLOPS", "0.0\u00a0%"]
    assert not [c for c in cells if any("e+" in x or "e-" in x or x.startswith("-0.0") for x in c[2:6])]


def test_an_unknown_address_gets_the_navigation_and_every_embed():
    """Dash Pages serves pages/not_found_404.py for /nope or /embed/ (Dash's bare "404" had no way back)."""
    from pages import not_found_404

    assert any(p["module"] == "pages.not_found_404" for p in dash.page_registry.values())
    page = not_found_404.layout()
    hrefs = {getattr(c, "href", None) for c in page._traverse()}
    assert any(getattr(c, "children", None) == "No page at this address" for c in page._traverse())
    assert {"/", "/inferencex", "/methods"} <= hrefs  # the navigation bar's and the text's
    assert {f"/embed/{f.name}" for f in registry.FIGURES.values()} <= hrefs


def test_an_address_no_page_has_answers_404_with_the_page_shell(client):
    """The browser still draws the not-found page from the shell, but a link checker or a wiki sees the 404."""
    pages = ["/", "/?gpu=b200", "/methods", "/methods/", "/inferencex"]
    pages += [f"/embed/{key}" for key in registry.FIGURES] + [f"/embed/{f.name}" for f in registry.FIGURES.values()]
    for path in pages:
        assert client.get(path).status_code == 200, path
    for path in ["/nope", "/nope/deeper", "/404", "/embed/", "/embed/nope", "/embed/fig1/x", "/Methods"]:
        answer = client.get(path)
        assert answer.status_code == 404, path
        assert b"new DashRenderer()" in answer.data, path  # the shell, from which the browser draws a page
    assert client.head("/nope").status_code == 404
    assert client.get("/health").status_code == 200 and client.get("/assets/nope.css").status_code == 404


def test_an_embed_of_no_figure_says_so_under_a_heading_with_every_embed_linked():
    page = embed.layout(name="nope")
    parts = list(page._traverse())
    assert isinstance(page, dash.html.Main)
    assert [c.children for c in parts if isinstance(c, dash.html.H1)] == ["No figure called 'nope'"]
    hrefs = {getattr(c, "href", None) for c in parts}
    assert {f"/embed/{f.name}" for f in registry.FIGURES.values()} <= hrefs
    assert embed.title("fig4") == "inferx · Figure 4 · Inter-token latency against throughput"
    assert embed.title("explorer") == f"inferx · {registry.FIGURES['fig6'].title}"
    assert embed.title("nope") == embed.title() == "inferx · no such figure"


def test_methods_says_which_address_values_it_ignores():
    """/methods reads only the model; it used to drop the rest without a word, bad values included."""

    def notices(**query):
        return [
            c.children for c in methods.layout(**query)._traverse() if isinstance(c, dbc.Alert) and c.color == "warning"
        ]

    assert notices(model="llama-3.3-70b") == []
    assert notices(ctx="8192", gpu="b300") == [
        "Ignored ctx, gpu: this page's tables cover every preset; it reads only model."
    ]
    assert notices(modle="x") == ["Ignored unknown parameter 'modle' (did you mean mode or model?)."]
    assert notices(theme="blue") == ["Ignored theme=blue: must be one of light, dark, auto."]
    assert notices(model="gpt-5")[0].startswith("Ignored model=gpt-5: must be one of")


def test_the_note_under_the_shortcuts_names_a_machine_no_shortcut_names():
    """Empty on a shortcut's own machine; a GPU, count or link that make another machine are named, in the page
    and by the callback (which answers nothing for values it cannot check: they have their own notices)."""
    from pages._callbacks import machine_changed  # noqa: PLC0415 (registers callbacks; the app is imported)
    from pages._controls import MACHINE_NOTE_ID  # noqa: PLC0415

    assert machine_changed("h200x8", "h200", 8) == machine_changed("mi300x4", "mi300x", 4) == ""
    # The article's 8×H200 and 8×B200 take sparse compute, so a machine of their GPU's datasheet has half of it.
    dense = ", a machine no shortcut names: datasheet numbers (dense compute), where the article's 8×H200 takes "
    dense += "the article's."
    assert machine_changed("h200x8", "h200", 4) == "Drawing 4×H200 SXM over NVLink 4.0" + dense
    # The article's 8×B200 picked by its parts from another shortcut is the shortcut's machine.
    assert machine_changed("h200x8", "b200", 8) == "Drawing the article's 8×B200, as its shortcut does."
    assert machine_changed("h200x8", "b200", 8, "fp8", "scale-up").endswith("the article's machine on another link, "
                                                                           "no shortcut.")  # fmt: skip
    own = "Drawing 2×L40S over PCIe Gen4 x16 (L40S), a machine no shortcut names."
    assert machine_changed("b200x8", "l40s", 2, "fp8", "scale-up") == own
    assert machine_changed("h200x8", "tpu", 2) == machine_changed("h200x8", "h100", 1000) == ""
    page = json.loads(json.dumps(home.layout(gpu="h200", gpus="4"), cls=plotly.utils.PlotlyJSONEncoder))
    assert layout_node(page, MACHINE_NOTE_ID)["children"] == "Drawing 4×H200 SXM over NVLink 4.0" + dense


def layout_node(node, node_id: str):
    """The props of the component `node_id` in a layout as JSON."""
    if isinstance(node, dict):
        if node.get("props", {}).get("id") == node_id:
            return node["props"]
        return next((n for n in (layout_node(v, node_id) for v in node.values()) if n is not None), None)
    if isinstance(node, list):
        return next((n for n in (layout_node(v, node_id) for v in node) if n is not None), None)
    return None


def test_a_context_shorter_than_the_input_is_drawn_corrected_with_a_warning():
    """ctx sizes each request's KV cache and isl its prefill; an 8,192-token prompt in a 1,024-token context
    gave B_max = 11,050 without a word. The page draws the context these lengths have (isl + osl/2) and says so:
    in the address's notices, and under the input length while the sliders hold such a pair."""
    from pages._callbacks import context_changed  # noqa: PLC0415 (registers callbacks; the app is imported)
    from pages._controls import CONTEXT_NOTE_ID  # noqa: PLC0415

    said = (
        "Context 1,024 tokens is shorter than the input (8,192 tokens), whose KV stays in the cache: drawn at "
        "ctx = 8,704 tokens (isl + osl/2)."
    )
    assert context_changed(10, 13, 10) == said  # log2 positions: 1,024, 8,192 and 1,024 tokens
    assert context_changed(13, 13, 10) == context_changed(14, 13, 10) == "" and context_changed("x", 13, 10) == ""
    values, _, notices = parse_query({"isl": "8192", "ctx": "1024"})
    assert values["ctx"] == 8704 and said in notices
    page = json.loads(json.dumps(home.layout(isl="8192", ctx="9216"), cls=plotly.utils.PlotlyJSONEncoder))
    assert layout_node(page, CONTEXT_NOTE_ID)["children"] == ""
    sent = page_values(isl=8192, ctx=9216)  # then the context slider dragged to 1,024 tokens (log2 position 10)
    sent[controls().index("ctx")] = 10
    assert control_values_to_params(sent)["ctx"] == 8704  # the redraw draws the corrected context


def test_inline_maths_takes_the_stop_after_it_so_no_line_starts_with_one():
    """MathJax sets `$…$` as one box a line may break after: "." alone began a line of Figure 5's caption."""
    text = "at $\\rho=0.99$. Then $B$, and $a$ b $c$; $$\nx = 1\n$$ and $t_a +\nt_b$."
    assert math_keeps_punctuation(text) == "at $\\rho=0.99.$ Then $B,$ and $a$ b $c;$ $$\nx = 1\n$$ and $t_a +\nt_b.$"
    pages = [home.layout(), methods.layout()]
    markdown = [c.children for p in pages for c in p._traverse() if isinstance(c, dash.dcc.Markdown) and c.mathjax]
    assert len(markdown) >= len(registry.FIGURES) + 1
    stray = [m[0] for text in markdown for m in re.finditer(r"(?<!\$)\$[^$]+\$[.,;]", text)]
    assert stray == []


def test_a_subtitles_relation_stays_on_one_line():
    """A subtitle's "past ρ = 0.85" broke a phone's line after the ρ: a relation is joined to both its sides."""
    shown = [c.children for c in home.layout()._traverse() if getattr(c, "className", None) == "fig-subtitle"]
    text = ["".join(p for p in s if isinstance(p, str)) if isinstance(s, list) else s for s in shown]
    assert len(text) >= len(registry.DASHBOARD)
    assert any("ρ\u00a0=\u00a00.85" in t for t in text) and not [t for t in text if re.search(r" [=<>≤≥≈] ", t)]
