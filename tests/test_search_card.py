"""The catalog search card on `/` (pages/_search.py): its answer through Dash against `slo.search`, a bad control
refused in words, and in real Chromium the button, the re-search when a control it reads moves, no request
before the first click, and axe on the table."""

from __future__ import annotations

import json

import pytest
from browser_checks import click, element, wait_js
from conftest import page_values, severe_console_errors
from test_a11y_browser import assert_no_serious_violations
from test_dashboard_browser import open_page

import app as inferx_app
from inferx.analysis import slo
from inferx.analysis.answers import error_brief
from inferx.figures.beyond import money
from inferx.serving.transfer import KIND_WORDS
from inferx.text import number
from pages._ids import control_id
from pages._search import BUTTON_ID, OFF_BY, RESULT_ID
from pages._url import controls

RESULT = f"document.getElementById('{RESULT_ID}')"


@pytest.fixture(scope="module")
def client():
    return inferx_app.server.test_client()


def post_search(client, values: list, clicks: int = 1):
    """The browser's POST for the search callback: the button's clicks, the re-search store, every control."""
    deps = client.get("/_dash-dependencies").get_json()
    dep = next(d for d in deps if d["output"] == f"{RESULT_ID}.children")
    body = {
        "output": dep["output"],
        "outputs": {"id": RESULT_ID, "property": "children"},
        "inputs": [
            {"id": BUTTON_ID, "property": "n_clicks", "value": clicks},
            {"id": "catalog-search-again", "property": "data", "value": None},
        ],
        "changedPropIds": [f"{BUTTON_ID}.n_clicks"],
        "state": [
            {"id": control_id(n), "property": "value", "value": v} for n, v in zip(controls(), values, strict=True)
        ],
    }
    response = client.post("/_dash-update-component", json=body)
    assert response.status_code == 200, response.get_data(as_text=True)[:300]
    return response.get_json()["response"][RESULT_ID]["children"]


def texts(node) -> list[str]:
    """Every string in a serialised Dash component tree, in document order."""
    if isinstance(node, str):
        return [node]
    if isinstance(node, list):
        return [t for child in node for t in texts(child)]
    if isinstance(node, dict):
        return texts(node.get("props", {}).get("children"))
    return []


def cheapest_of_each_gpu(rows: list[dict]) -> list[dict]:
    """The rows the table shows, found another way: each GPU's cheapest row that meets, ordered by its cost."""
    met = [r for r in rows if r["batch"]]
    best = [
        min((r for r in met if r["gpu"] == g), key=lambda r: r["cost_per_mtok_usd"]) for g in {r["gpu"] for r in met}
    ]
    return sorted(best, key=lambda r: r["cost_per_mtok_usd"])


def test_the_table_is_the_cheapest_configuration_of_each_gpu(client):
    shown = texts(post_search(client, page_values(tpot=20, osl=2048)))
    rows = slo.search({"tpot": 20, "osl": 2048}, tpot_ms=20)
    met = [r for r in rows if r["batch"]]
    assert shown[0] == (
        f"{len(met)} of {len(rows)} configurations serve DeepSeek-R1 within TTFT ≤ 500 ms and TPOT ≤ 20 ms. The "
        "cheapest of each GPU, per million output tokens:"
    )
    best = cheapest_of_each_gpu(rows)
    assert [m for m in shown if m in {r["machine"] for r in rows}] == [r["machine"] for r in best]
    first = best[0]
    cells = shown[shown.index(first["machine"]) :][:9]
    assert cells == [
        first["machine"],
        money(first["cost_per_mtok_usd"]),
        cells[2],  # the expected answer's, checked in its own test
        f"{first['tp']} × {first['pp']}",
        f"{first['batch']:,}",
        cells[5],
        cells[6],  # three significant figures with an SI prefix, checked below
        number(first["tokens_per_joule"]),
        slo.LIMITED_BY[first["limited_by"]],
    ]
    assert float(cells[6].rstrip("k")) * 1e3 == pytest.approx(first["throughput_per_gpu_tok_s"], rel=5e-3)
    # 8 × 80 GB (A100, H100) is 640 GB and 8 × 48 GB (L40S) 384 GB, short of DeepSeek-R1's 671 GB of FP8 weights.
    assert shown[-1] == (
        "No configuration serves it on 8×A100 80GB SXM (needs 671 GB of weights; the machine has 640 GB); "
        "8×H100 SXM (needs 671 GB of weights; the machine has 640 GB); 8×L40S (needs 671 GB of weights; the "
        "machine has 384 GB)."
    )


def test_each_row_says_how_far_its_expected_answer_may_be_off_in_either_mode(client):
    """The last cell of each row is the calibrated answer's error on its metric and its kind of extrapolation,
    whichever answer leads: a measured configuration's own runs, an unmeasured GPU's held-out runs."""
    expected = slo.search({"mode": "calibrated", "framework": "trt"})
    error_of = {r["machine"]: r["error"] for r in expected}
    for mode in ("calibrated", "article"):
        shown = texts(post_search(client, page_values(mode=mode, framework="trt")))
        assert shown[shown.index("Stopped by") + 1] == OFF_BY
        for r in cheapest_of_each_gpu(slo.search({"mode": mode, "framework": "trt"})):  # each row's last cell
            row = shown[shown.index(r["machine"]) :]
            assert row[9] == error_brief(error_of[r["machine"]])
    rows = cheapest_of_each_gpu(expected)
    # TRT has DeepSeek-R1 rows on B200 and H200 only: the other GPUs take the transferable model, their error
    # that of a GPU held out of its fit.
    kinds = {r["gpu"]: r["error"]["kind"] for r in rows}
    assert kinds["b200"] == kinds["h200"] == "measured configuration"
    assert "not measured" in kinds["b300"] and kinds["b300"] != kinds["b200"]
    # H100 was measured with other models (TensorRT-LLM's tables), DeepSeek-R1 on other GPUs: never together.
    assert {r["error"]["kind"] for r in expected if r["gpu"] == "h100" and r.get("error")} == {KIND_WORDS["pair"]}
    first = error_brief(rows[0]["error"])
    assert first.startswith("±") and "p90" in first


def test_a_model_nothing_serves_and_a_bad_control_are_said_in_words(client):
    # A 32k-token prompt takes longer than 10 ms to prefill on every machine of the catalog.
    none = texts(post_search(client, page_values(isl=32768, ctx=32768, ttft=10)))
    assert none == ["None of the 43 configurations serves DeepSeek-R1 within TTFT ≤ 10 ms and TPOT ≤ 50 ms."]
    values = page_values()
    values[list(controls()).index("tpot")] = -5
    assert texts(post_search(client, values)) == ["Could not search: tpot=-5: must be a number from 1 to 500 ms"]
    # Values as a hostile client may spell them: checked and normalised before anything reads them.
    values = page_values()
    values[list(controls()).index("model")] = " DeepSeek-R1 "
    values[list(controls()).index("mode")] = "CALIBRATED"
    values[list(controls()).index("ttft")] = "500"
    said = texts(post_search(client, values))
    met = sum(1 for r in slo.search({"mode": "calibrated"}) if r["batch"])
    assert said[0].startswith(f"{met} of 43 configurations serve DeepSeek-R1 within TTFT ≤ 500 ms")
    assert said[said.index("Machine") + 1] == "Expected: $ per M tokens"  # "CALIBRATED" read as calibrated


def search_requests(driver) -> int:
    """Requests for the search callback since the last call, from Chromium's performance log."""
    sent = 0
    for entry in driver.get_log("performance"):
        msg = json.loads(entry["message"])["message"]
        if msg["method"] == "Network.requestWillBeSent":
            sent += RESULT_ID in (msg["params"]["request"].get("postData") or "")
    return sent


@pytest.mark.browser
def test_the_button_searches_and_a_control_it_reads_searches_again(browser, server):
    open_page(browser, server, "/", ["fig11"])
    search_requests(browser)
    browser.execute_script("window.dash_clientside.set_props('ctl-ttft', {value: 400})")
    wait_js(browser, "return location.search.includes('ttft=400')", what="the target in the address")
    assert search_requests(browser) == 0  # nothing asked of the server before the first click
    click(browser, element(browser, f"#{BUTTON_ID}"))
    best = cheapest_of_each_gpu(slo.search({"ttft": 400}, ttft_ms=400))
    wait_js(browser, f"return {RESULT}.querySelectorAll('tbody tr').length === {len(best)}", what="the table")
    first = browser.execute_script(f"return {RESULT}.querySelector('tbody th').textContent")
    assert first == best[0]["machine"]
    assert "within TTFT ≤ 400 ms and TPOT ≤ 50 ms" in browser.execute_script(f"return {RESULT}.textContent")
    assert_no_serious_violations(browser, "/ with the search's table")
    # A control the search reads moves: it runs again. A hardware control does not ask for it.
    search_requests(browser)
    browser.execute_script("window.dash_clientside.set_props('ctl-tpot', {value: 20})")
    wait_js(browser, f"return {RESULT}.textContent.includes('TPOT ≤ 20 ms')", what="the search again")
    assert search_requests(browser) == 1
    browser.execute_script("window.dash_clientside.set_props('ctl-util', {value: 70})")
    wait_js(browser, "return location.search.includes('util=70')", what="util in the address")
    assert search_requests(browser) == 1
    browser.execute_script("window.dash_clientside.set_props('ctl-gpus', {value: 4})")
    wait_js(browser, "return location.search.includes('gpus=4')", what="the GPU count in the address")
    assert search_requests(browser) == 0
    assert severe_console_errors(browser) == []


def test_each_row_gives_the_other_models_answer_on_the_same_machine(client):
    """Ideal beside expected: in article mode the last two columns are the calibrated model's answer for the same
    machine (and the other way round), so the table never shows one model's numbers alone."""
    shown = texts(post_search(client, page_values()))
    head = shown[shown.index("Machine") : shown.index("Stopped by") + 1]
    assert head == ["Machine", "Ideal: $ per M tokens", "Expected: $ per M tokens", "TP × PP", "Largest batch",
                    "Expected: largest batch", "tok/s per GPU", "tok/J", "Stopped by"]  # fmt: skip
    assert shown[1].startswith("The numbers are the ideal answer (article physics") and "expected answer" in shown[1]
    first = cheapest_of_each_gpu(slo.search({}))[0]
    twin = next(r for r in slo.search({"mode": "calibrated"}) if all(r[k] == first[k] for k in slo.MACHINE_OPTIONS))
    cells = shown[shown.index(first["machine"]) :][:9]
    expected = [money(twin["cost_per_mtok_usd"]), f"{twin['batch']:,}"] if twin["batch"] else ["none meets them", "—"]
    assert [cells[2], cells[5]] == expected
    calibrated = texts(post_search(client, page_values(mode="calibrated")))
    assert calibrated[calibrated.index("Machine") + 1 : calibrated.index("Machine") + 3] == [
        "Expected: $ per M tokens",
        "Ideal: $ per M tokens",
    ]
