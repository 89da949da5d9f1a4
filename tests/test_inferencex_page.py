"""The measured-data half of the app: uploads, the /inferencex page, the Figure 4/5 overlays and /methods.

The rows are the synthetic fixture of tests/fixtures, or InferenceX's own where $INFERX_TEST_MEASURED_DIR names them.
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import pandas as pd
import pytest
from browser_checks import click, element, figure_data, press_slider, storage_state, wait_figure_change, wait_js
from conftest import Server, severe_console_errors
from selenium.webdriver.common.keys import Keys

BROKEN_CSV = "hardware,precision,framework,isl,osl,concurrency,n_gpus,median_tpot_ms,output_tput_per_gpu_tok_s\n" + (
    "h200,fp8,sglang,1024,1024,4,8,20.5,180\nh200,fp8,sglang,1024,1024,lots,8,30.1,400\n"
)


def data_url(content: bytes, mime: str = "text/csv") -> str:
    return f"data:{mime};base64," + base64.b64encode(content).decode()


@pytest.fixture(scope="module")
def dash_app():
    import app

    return app


@pytest.fixture(scope="module")
def csv_store(dash_app, measured_paths):
    from inferx.data.measured import load_measured
    from pages._measured import to_store

    return to_store(load_measured(measured_paths.csv), measured_paths.csv.name)


def default_control_values(preset: str = "h200x8") -> list:
    """Control values as the browser sends them (log2 slider positions for ctx and isl)."""
    import math

    from inferx.scenario.machines import default_params
    from pages._url import controls, log2_controls

    params = default_params(preset)
    return [math.log2(params[n]) if n in log2_controls() else params[n] for n in controls()]


def post_callback(client, outputs: list[tuple[str, str]], inputs: list[tuple[str, str, object]], state=()) -> dict:
    """One `_dash-update-component` request, as the renderer sends it."""
    body = {
        "output": ".." + "...".join(f"{i}.{p}" for i, p in outputs) + "..",
        "outputs": [{"id": i, "property": p} for i, p in outputs],
        "inputs": [{"id": i, "property": p, "value": v} for i, p, v in inputs],
        "changedPropIds": [f"{inputs[0][0]}.{inputs[0][1]}"],
        "state": [{"id": i, "property": p, "value": v} for i, p, v in state],
    }
    resp = client.post("/_dash-update-component", json=body)
    assert resp.status_code in (200, 204), resp.data[:500]
    return resp.get_json() if resp.status_code == 200 else {}


UPLOAD_OUTPUTS = [
    ("measured-data", "data"),
    ("measured-alert", "children"),
    ("measured-alert", "color"),
    ("measured-alert", "is_open"),
]


# --- Non-browser: the callbacks -------------------------------------------------------


def test_store_is_compact_and_round_trips(dash_app, csv_store, measured_paths):
    from inferx.data.measured import load_measured
    from inferx.figures.measured import inferencex_figure, overlay_traces
    from inferx.scenario.evaluation import Scenario
    from pages._measured import from_store

    df = load_measured(measured_paths.csv)
    back = from_store(csv_store)
    assert len(back) == len(df) == csv_store["rows"]
    size = len(json.dumps(csv_store, separators=(",", ":")))
    assert size < 150_000, f"store is {size:,} bytes"
    scn = Scenario.from_params(preset="b200x8")
    for a, b in zip(inferencex_figure(scn, df)["data"], inferencex_figure(scn, back)["data"], strict=True):
        assert a["name"] == b["name"] and len(a["x"]) == len(b["x"])
        assert a.get("customdata") == b.get("customdata")
    assert sum(len(t["x"]) for t in overlay_traces(back, "fig5")) == sum(
        len(t["x"]) for t in overlay_traces(df, "fig5")
    )


def test_upload_callback_accepts_csv_and_json(dash_app, measured_paths):
    from inferx.data.measured import load_measured

    client = dash_app.server.test_client()
    for path, mime in ((measured_paths.csv, "text/csv"), (measured_paths.json, "application/json")):
        out = post_callback(
            client,
            UPLOAD_OUTPUTS,
            [("measured-upload", "contents", data_url(path.read_bytes(), mime))],
            [("measured-upload", "filename", path.name)],
        )["response"]
        assert out["measured-alert"] == {
            "children": out["measured-alert"]["children"],
            "color": "success",
            "is_open": True,
        }
        assert out["measured-data"]["data"]["rows"] == len(load_measured(path))
        assert path.name in out["measured-alert"]["children"]


def test_broken_upload_reports_row_and_column_and_keeps_data(dash_app):
    client = dash_app.server.test_client()
    out = post_callback(
        client,
        UPLOAD_OUTPUTS,
        [("measured-upload", "contents", data_url(BROKEN_CSV.encode()))],
        [("measured-upload", "filename", "broken.csv")],
    )["response"]
    assert "measured-data" not in out  # the data loaded before stays
    text = out["measured-alert"]["children"]
    assert "row 2" in text and "'concurrency'" in text and "broken.csv" in text
    assert out["measured-alert"]["color"] == "danger" and out["measured-alert"]["is_open"] is True
    # Not base64 at all: still a message, not a server error.
    out = post_callback(
        client,
        UPLOAD_OUTPUTS,
        [("measured-upload", "contents", "data:text/csv;base64,@@@")],
        [("measured-upload", "filename", "x.csv")],
    )["response"]
    assert "Could not load x.csv" in out["measured-alert"]["children"]


def test_inferencex_figure_callback(dash_app, csv_store):
    from pages.inferencex import FILTERS, draw, fill_filters, filters_from_values

    filled = fill_filters(csv_store)
    options, disabled = filled[: len(FILTERS)], filled[len(FILTERS) :]
    assert len(options) == len(FILTERS) and disabled == [False] * len(FILTERS)
    assert fill_filters(None) == [[]] * len(FILTERS) + [True] * len(FILTERS)  # no data: nothing to open
    assert {"label": "H200", "value": "h200"} in options[0]
    assert {"label": "1,024 / 8,192", "value": "1024/8192"} in options[2]

    values = default_control_values("h200x8")
    fig, summary = draw(*values, *[None] * len(FILTERS), csv_store)
    measured = [t for t in fig["data"] if t.get("meta", {}).get("measured")]
    points = sum(len(t["x"]) for t in measured)
    assert points > 20 and f"{points:,} of {csv_store['rows']:,}" in summary
    assert all(len(c) == 5 and c[3].startswith("https://") for t in measured for c in t["customdata"])
    assert "concurrency" in measured[0]["hovertemplate"] and "date" in measured[0]["hovertemplate"]

    # Narrow to one framework; widen to all hardware.
    only_trt = draw(*values, None, None, None, "trt", None, None, csv_store)[0]
    assert {t["meta"]["framework"] for t in only_trt["data"] if t.get("meta", {}).get("measured")} == {"trt"}
    wide = draw(*values, "all", "all", "all", None, "all", "all", csv_store)[0]
    assert sum(len(t["x"]) for t in wide["data"] if t.get("meta", {}).get("measured")) > points

    assert filters_from_values(None, None, "8192/1024", "all", None, None) == {"isl": 8192, "osl": 1024}
    # No data: the model curves alone, and a note.
    fig, summary = draw(*values, *[None] * len(FILTERS), None)
    curves = [t["meta"]["model"] for t in fig["data"] if "band" not in t["meta"]]  # the band shades the curve
    text = "".join(part if isinstance(part, str) else part.children for part in summary)
    assert curves == ["article", "calibrated"] and text.startswith("No measured")
    assert "inferx fetch -o results.json" in text  # and how to get some


def test_the_runs_shown_are_scored_by_hand(dash_app, csv_store, monkeypatch):
    """The error sentence's numbers: |predicted / measured − 1| over the runs of the calibrated model shown, by
    hand on three runs with known predictions; another model's run is left out, and so is its prediction."""
    from inferx.figures import measured as M
    from inferx.serving import fit as F
    from inferx.serving import report as R
    from pages._measured import from_store

    rows = from_store(csv_store).head(4).copy()
    rows["model"] = ["", "DeepSeek-R1-0528", "dsr1", "gpt-oss-120b"]
    # The first two runs are one configuration, run again later: the second is its newest.
    for column in F.CONFIGURATION:
        rows.loc[rows.index[1], column] = rows.loc[rows.index[0], column]
    rows["date"] = ["2025-12-01", "2026-05-01", "2026-01-01", "2026-01-01"]
    rows["output_tput_per_gpu_tok_s"] = [100.0, 200.0, 400.0, 50.0]
    rows["interactivity_tok_s_user"] = [50.0, 40.0, 10.0, 5.0]

    def predicted(part, calibrations=None):
        assert list(part.index) == list(rows.index[:3])  # only the fitted model's runs are predicted
        out = pd.DataFrame({f"{m}_calibrated": 1.0 for m in R.METRIC_NAMES}, index=part.index)
        out["throughput_per_gpu_calibrated"] = [110.0, 180.0, 400.0]
        out["interactivity_calibrated"] = [50.0, 30.0, 11.0]
        out["basis"] = ["fitted", "stack typical", "fitted, disaggregated"]
        return out

    monkeypatch.setattr(R, "predict_calibrated", predicted)
    found = R.shown_errors(rows)
    # Throughput: 0.1, 0.1, 0; interactivity: 0, 0.25, 0.1 (p90 by linear interpolation: 0.1 + 0.8 · 0.15).
    assert found["runs"] == 3 and found["unfitted"] == 1
    assert found["throughput_per_gpu"] == pytest.approx((0.1, 0.1))
    assert found["interactivity"] == pytest.approx((0.1, 0.22))
    # The newest run of each configuration: the second and third (throughput 0.1, 0; interactivity 0.25, 0.1).
    assert found["newest"]["runs"] == 2
    assert found["newest"]["throughput_per_gpu"][0] == pytest.approx(0.05)
    assert found["newest"]["interactivity"][0] == pytest.approx(0.175)
    M._scored.clear()
    text = M.scored_text(rows)
    assert "by 10.0\u00a0% and 10.0\u00a0% at the median, over these 3 runs;" in text
    assert "On the newest run of each configuration (2 runs): 5.0\u00a0% and 17.5\u00a0% at the median." in text
    assert "at p90" not in text  # three runs have no tail to speak of
    assert text.endswith(
        " 1 of them is predicted from a typical fit scaled to the datasheet, as no fit has their GPU and stack."
    )
    assert R.shown_errors(rows.tail(1)) is None and M.scored_text(rows.tail(1)) == ""  # another model's run


def test_the_summary_says_how_far_the_model_is_from_the_runs_shown(dash_app, csv_store, monkeypatch):
    from inferx.figures import measured as M
    from inferx.scenario.evaluation import Scenario
    from inferx.serving import report as R
    from pages._measured import from_store
    from pages._url import controls
    from pages.inferencex import FILTERS, draw

    M._scored.clear()
    values = default_control_values("h200x8")
    fig, summary = draw(*values, *[None] * len(FILTERS), csv_store)
    rows = M.shown_rows(Scenario.from_params(preset="h200x8"), from_store(csv_store))[0]
    found = R.shown_errors(rows)
    points = sum(len(t["x"]) for t in fig["data"] if t.get("meta", {}).get("measured"))
    assert found["runs"] == len(rows) == points >= M.MIN_P90_RUNS
    (tput, tput90), (inter, inter90) = found["throughput_per_gpu"], found["interactivity"]
    pct = "{:.1f}\u00a0%".format  # a no-break space keeps each number with its unit
    said = f"by {pct(100 * tput)} and {pct(100 * inter)} at the median, {pct(100 * tput90)} and {pct(100 * inter90)}"
    assert f"{said} at p90, over these {points:,} runs;" in summary
    # A drag of a slider redraws over the same runs: their scores are kept, not computed again.
    monkeypatch.setattr(R, "shown_errors", lambda *a: pytest.fail("scored again"))
    moved = list(values)
    moved[controls().index("bw")] *= 1.2
    assert said in draw(*moved, *[None] * len(FILTERS), csv_store)[1]
    # Scoring that fails costs the sentence, not the chart.
    M._scored.clear()
    monkeypatch.setattr(R, "shown_errors", lambda *a: 1 / 0)
    fig_without, summary_without = draw(*moved, *[None] * len(FILTERS), csv_store)
    assert summary_without.startswith(f"{points:,} of ") and "Run by run" not in summary_without
    assert len(fig_without["data"]) == len(fig["data"])


def test_overlay_traces_follow_the_gpu_else_the_preset(dash_app, csv_store):
    from inferx.physics.hardware import GPUS
    from pages._measured import from_store, overlay

    assert overlay([], csv_store, "h200x8", "h200") is None
    df = from_store(csv_store)
    machines = (("h200x8", None, "h200"), ("mi300x4", None, "mi300x"), ("h200x8", "b200", "b200"))
    for preset, gpu, family in machines:
        out = overlay(["on"], csv_store, preset, gpu)
        rows = df[(df["hardware"] == family) & df["median_tpot_ms"].gt(0)]
        assert sum(len(t["x"]) for t in out["fig4"]) == len(rows)
        named = f"measured {GPUS[family].name} · "
        assert all(t["name"].startswith(named) and t["meta"]["measured"] for t in out["fig5"])


def test_methods_section_with_and_without_env_file(dash_app, monkeypatch, measured_paths):
    from pages import methods

    monkeypatch.delenv("INFERX_MEASURED", raising=False)
    assert "INFERX_MEASURED=" in json.dumps(methods.layout().to_plotly_json(), default=str)
    monkeypatch.setenv("INFERX_MEASURED", str(measured_paths.csv))
    section = methods.divergence_section()
    said, described = section[1:]  # what the figure shows, then the graph with its text alternative
    assert "open markers for the article's model" in said.children
    assert "each single-node FP8 run without speculative decoding" in said.children
    fig = described.children[0].figure
    assert {t["meta"]["model"] for t in fig["data"]} == {"article", "calibrated"}
    monkeypatch.setenv("INFERX_MEASURED", str(Path(__file__)))  # not a measured file: a note, no crash
    without = json.dumps([part.to_plotly_json() for part in methods.divergence_section()], default=str)
    assert "could not be read" in without and "open markers" not in without  # no figure, so no words about one


# --- Browser ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def measured_server(measured_paths):
    """gunicorn with $INFERX_MEASURED set."""
    srv = Server(env={"INFERX_MEASURED": str(measured_paths.csv)})
    yield srv
    srv.stop()


@pytest.fixture
def live(measured_server, browser):
    return measured_server, browser


MEASURED_POINTS_JS = """
const gd = document.querySelector('#fig-{fig} .js-plotly-plot');
if (!gd || !gd.data) return null;
const n = gd.data.filter(t => t.meta && t.meta.measured && t.mode === 'markers')
                 .reduce((s, t) => s + (t.x ? t.x.length : 0), 0);
return n > 0 ? n : null;
"""


FILTER_OPTIONS = "(window.dash_component_api.getLayout('ix-{key}').props.options || []).map((o) => o.value)"
FILTERS_DISABLED = (  # a JS expression: each filter's `disabled`
    "['hardware', 'precision', 'workload', 'framework', 'spec_method', 'topology']"
    ".map((k) => window.dash_component_api.getLayout('ix-' + k).props.disabled === true)"
)


@pytest.mark.browser
def test_browser_filters_wait_for_data(browser, server, measured_paths):
    """Without data each filter opened to an empty menu: they are disabled until a file is loaded."""
    browser.get(server.url + "inferencex")
    figure_data(browser, "ix")
    assert browser.execute_script(f"return {FILTERS_DISABLED};") == [True] * 6
    element(browser, "#measured-upload input[type=file]").send_keys(str(measured_paths.csv))
    wait_js(browser, f"return {FILTERS_DISABLED}.every((d) => !d);", what="the filters enabled by the upload")
    # The upload stays in the page's memory across a visit to another page, and the filters come back filled.
    click(browser, element(browser, "#nav-methods"))
    wait_js(browser, "return document.querySelector('#nav-methods.active');", what="/methods drawn")
    click(browser, element(browser, "#nav-inferencex"))
    wait_js(browser, f"return {FILTERS_DISABLED}.every((d) => !d);", what="the filters enabled again")
    assert len(wait_js(browser, f"const o = {FILTER_OPTIONS.format(key='hardware')}; return o.length > 1 && o;")) > 1
    assert "measured points from the upload" in element(browser, "#measured-status").text
    assert severe_console_errors(browser) == []


@pytest.mark.browser
def test_browser_inferencex_controls_move_their_labels_and_the_address(browser, server):
    """The page's controls write their value labels and the address, as on `/`, so Copy link copies what is drawn."""
    browser.get(server.url + "inferencex?model=kimi-k2&ctx=8192")
    figure_data(browser, "ix")
    browser.execute_script("window.dash_clientside.set_props('ctl-ctx', {value: 11})")  # log2(2,048 tokens)
    wait_js(browser, "return document.getElementById('ctl-ctx-value').textContent === '2,048 tokens';", what="label")
    wait_js(browser, "return location.search.includes('ctx=2048') && location.search.includes('model=kimi-k2');",
            what="the address")  # fmt: skip
    assert browser.execute_script("return window.inferxRedraws.inFlight") is False  # no redraw asked of `/`'s kind
    assert severe_console_errors(browser) == []


@pytest.mark.browser
def test_browser_inferencex_page_shows_measured_points(live, tmp_path, measured_paths):
    from inferx.data.measured import load_measured

    srv, driver = live
    driver.get(srv.url + "inferencex")
    points = wait_js(driver, MEASURED_POINTS_JS.format(fig="ix"), what="measured points on #fig-ix")
    assert points > 20
    assert driver.execute_script(f"return {FILTERS_DISABLED};") == [False] * 6  # the server's file: data at once
    # ... and their choices with it, and the status line under the upload names the file.
    hardware = wait_js(driver, f"const o = {FILTER_OPTIONS.format(key='hardware')}; return o.length > 1 && o;")
    assert hardware[0] == "all" and "h200" in hardware
    status = wait_js(driver, "return document.getElementById('measured-status').textContent;", what="the status")
    rows = len(load_measured(measured_paths.csv))
    assert status == f"{rows:,} measured points from the server file ($INFERX_MEASURED)."
    summary = driver.find_element("id", "ix-summary").text
    assert f"{points:,} of {rows:,}" in summary
    shots = Path(os.environ.get("INFERX_SCREENSHOT_DIR", tmp_path))
    driver.save_screenshot(str(shots / "inferencex.png"))
    assert severe_console_errors(driver) == []

    # A broken upload: a visible alert naming row and column; the page keeps working.
    broken = tmp_path / "broken.csv"
    broken.write_text(BROKEN_CSV)
    element(driver, "#measured-upload input[type=file]").send_keys(str(broken))
    alert = wait_js(
        driver,
        "const a = document.querySelector('#measured-alert'); return a && a.offsetParent && a.textContent;",
        what="the upload alert",
    )
    assert "row 2" in alert and "concurrency" in alert
    # The reason sits right under the box it was dropped on, above the status line.
    tops = driver.execute_script(
        "return ['measured-upload', 'measured-alert', 'measured-status']"
        ".map(id => document.getElementById(id).getBoundingClientRect().top);"
    )
    assert tops == sorted(tops), tops
    before = figure_data(driver, "ix")
    press_slider(driver, "ctl-bw", Keys.END)  # more bandwidth: the model curves move, the points stay
    wait_figure_change(driver, "ix", before)
    assert wait_js(driver, MEASURED_POINTS_JS.format(fig="ix")) == points

    # A good upload replaces the server's file, in memory only.
    element(driver, "#measured-upload input[type=file]").send_keys(str(measured_paths.json))
    wait_js(driver, "return document.querySelector('#ix-summary').textContent.includes('upload');", what="upload")
    # Nothing of the data is stored: the tab keeps only the address (for the navbar's links).
    assert storage_state(driver) == {"cookie": "", "local": [], "session": ["inferx-scenario"]}
    kept = driver.execute_script("return window.sessionStorage.getItem('inferx-scenario')")
    assert kept == driver.execute_script("return location.search").lstrip("?") and len(kept) < 200
    assert [e for e in severe_console_errors(driver) if "favicon" not in e] == []


@pytest.mark.browser
def test_browser_dashboard_overlay_switch(live, tmp_path):
    srv, driver = live
    driver.get(srv.url)
    wait_js(
        driver, "const gd = document.querySelector('#fig-5 .js-plotly-plot'); return gd && gd.data && gd.data.length;"
    )
    assert driver.execute_script(MEASURED_POINTS_JS.format(fig="5")) is None  # off by default
    click(driver, driver.find_element("css selector", "#ctl-measured input[type=checkbox]"))
    assert wait_js(driver, MEASURED_POINTS_JS.format(fig="5"), what="measured points on Figure 5") > 20
    n4 = wait_js(driver, MEASURED_POINTS_JS.format(fig="4"), what="measured points on Figure 4")
    # A slider move redraws Figure 4 on the server; the browser merges the points back in.
    before = figure_data(driver, 4)
    press_slider(driver, "ctl-bw", Keys.HOME)
    wait_figure_change(driver, 4, before)
    assert wait_js(driver, MEASURED_POINTS_JS.format(fig="4")) == n4
    # The points' hover says the axis's unit: each run's instance, then per GPU once the page is.
    hovers = (
        "return (document.querySelector('#fig-4 .js-plotly-plot').data || []).filter(t => t.meta && t.meta.measured)"
    )
    unit = driver.execute_script(hovers + ".map(t => [t.hovertemplate, t.customdata[0][5]]);")
    assert unit and all("tok/s %{customdata[5]} ·" in h and said.startswith("per instance (") for h, said in unit)
    click(driver, element(driver, "#ctl-tput input[value='gpu']"))
    per_gpu = wait_js(
        driver, hovers + ".map(t => t.hovertemplate).filter(h => h.includes('tok/s per GPU ·'));", what="per GPU"
    )
    assert len(per_gpu) == len(unit) and not any("per instance" in h for h in per_gpu)
    driver.execute_script("document.querySelector('#fig-5').scrollIntoView({behavior: 'instant'});")
    driver.save_screenshot(str(Path(os.environ.get("INFERX_SCREENSHOT_DIR", tmp_path)) / "dashboard_fig5.png"))
    assert severe_console_errors(driver) == []


def test_curves_follow_the_model_of_the_measured_rows():
    import pandas as pd

    from inferx.scenario.evaluation import Scenario
    from pages.inferencex import rows_model

    llama = Scenario.from_params(model="llama-3.3-70b")
    scn, about = rows_model(llama, pd.DataFrame({"model": ["DeepSeek-R1-0528"] * 3}))
    assert scn.params["model"] == "deepseek-r1" and about == "Curves: DeepSeek-R1, the model of the measured rows."
    scn, about = rows_model(llama, pd.DataFrame({"model": ["Kimi-K2.5"]}))
    assert scn is llama and "Kimi-K2.5, which the model catalog lacks" in about
    scn, about = rows_model(llama, None)
    assert scn is llama and about == "Curves: Llama-3.3-70B."
