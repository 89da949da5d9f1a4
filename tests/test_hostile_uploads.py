"""Hostile measured-data uploads and stores: every one gets a sentence, none a 500, none a silently wrong number.

The files are made here (no rows of the real InferenceX data): a header and rows of plausible values, and
whatever an attacker or a broken export puts in their place.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
import textwrap
import urllib.error
import urllib.request
import zlib
from pathlib import Path

import numpy as np
import pytest
from conftest import Server
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inferx.data.measured import INT_RANGES, MAX_ROWS, MeasuredDataError, load_measured_bytes, parse_upload

ROOT = Path(__file__).resolve().parents[1]
HEADER = "hardware,precision,framework,spec_method,disagg,is_multinode,isl,osl,concurrency,n_gpus,"
HEADER += "median_tpot_ms,output_tput_per_gpu_tok_s,median_ttft_ms,date,run_url"
ROW = "h200,fp8,sglang,none,False,False,1024,1024,{conc},8,11.6,52.1,122.0,2025-12-01,https://example.org/run/{n}"
FIELDS = HEADER.split(",")

UPLOAD = "..measured-data.data...measured-alert.children...measured-alert.color...measured-alert.is_open.."
UPLOAD_OUTPUTS = [
    {"id": "measured-data", "property": "data"},
    {"id": "measured-alert", "property": "children"},
    {"id": "measured-alert", "property": "color"},
    {"id": "measured-alert", "property": "is_open"},
]


def csv(rows: int = 2, **cells) -> bytes:
    """A small valid CSV; `cells` (column=value) replace that column in the last row."""
    lines = [HEADER] + [ROW.format(conc=2 ** (i % 8), n=i) for i in range(rows)]
    if cells:
        last = lines[-1].split(",")
        for column, value in cells.items():
            last[FIELDS.index(column)] = str(value)
        lines[-1] = ",".join(last)
    return ("\n".join(lines) + "\n").encode()


def api_item(**top) -> dict:
    item = {
        "hardware": "h200",
        "framework": "sglang",
        "precision": "fp8",
        "spec_method": "none",
        "disagg": False,
        "is_multinode": False,
        "decode_tp": 8,
        "isl": 1024,
        "osl": 1024,
        "conc": 4,
        "metrics": {"median_tpot": 0.0116, "output_tput_per_gpu": 52.1},
    }
    return item | top


def data_url(content: bytes, mime: str = "text/csv") -> str:
    return f"data:{mime};base64," + base64.b64encode(content).decode()


def upload_body(contents, filename) -> dict:
    return {
        "output": UPLOAD,
        "outputs": UPLOAD_OUTPUTS,
        "inputs": [{"id": "measured-upload", "property": "contents", "value": contents}],
        "state": [{"id": "measured-upload", "property": "filename", "value": filename}],
        "changedPropIds": ["measured-upload.contents"],
    }


@pytest.fixture(scope="module")
def client():
    import app

    return app.server.test_client()


def post_upload(client, contents, filename, raw: bytes | None = None):
    body = raw if raw is not None else json.dumps(upload_body(contents, filename))
    resp = client.post("/_dash-update-component", data=body, content_type="application/json")
    assert resp.status_code < 500, resp.data[:300]
    return resp


# --- The loader: numbers are checked before they are converted ------------------------------------


@pytest.mark.parametrize(
    ("content", "name", "fragments"),
    [
        (csv(isl="1e300"), "a.csv", ["row 2", "'isl'", "1e300", "outside"]),
        (csv(concurrency="99999999999999999999999"), "a.csv", ["row 2", "'concurrency'", "outside"]),
        (csv(concurrency="-3"), "a.csv", ["row 2", "'concurrency'", "outside"]),
        (csv(n_gpus="7.5"), "a.csv", ["row 2", "'n_gpus'", "not a whole number"]),
        (csv(osl="inf"), "a.csv", ["row 2", "'osl'", "not a finite number"]),
        (csv(median_tpot_ms="1e400"), "a.csv", ["row 2", "'median_tpot_ms'", "not a finite number"]),
        (csv(median_ttft_ms="5e13"), "a.csv", ["row 2", "'median_ttft_ms'", "outside"]),
        (csv(isl="0x10"), "a.csv", ["row 2", "'isl'", "not a number"]),
        (json.dumps([api_item(conc=10**400)]).encode(), "a.json", ["item [0]", "'concurrency'"]),
        (json.dumps([api_item(), api_item(isl=True)]).encode(), "a.json", ["item [1]", "'isl'", "not a number"]),
        (json.dumps([api_item(osl=[1, 2])]).encode(), "a.json", ["item [0]", "'osl'", "not a number"]),
        (b"[" + b"9" * 400 + b"]", "n.json", ["item [0]", "expected an object"]),
        (b"[" + b"9" * 5000 + b"]", "n.json", ["invalid JSON"]),
        (b"[" * 100_000 + b"]" * 100_000, "deep.json", ["nested too deeply"]),
        (json.dumps([api_item(isl=json.loads("[" * 40 + "]" * 40))]).encode(), "d.json", ["item [0]", "<list>"]),
        (b"5", "n.json", ["array"]),
        (b'{"a": 1}', "o.json", ["array"]),
        (b'"text"', "s.json", ["array"]),
        (b"\xff\xfe\x00", "b.csv", ["not UTF-8"]),
    ],
)
def test_bad_numbers_and_shapes_are_named_never_wrapped(content, name, fragments):
    with pytest.raises(MeasuredDataError) as err:
        load_measured_bytes(content, name)
    for fragment in fragments:
        assert fragment in str(err.value), err.value


def test_a_bad_row_deep_in_the_file_is_named_by_its_own_number():
    """Rows are parsed a block at a time; the number in the message is still the file's row."""
    lines = csv(45_000).decode().splitlines()
    lines[44_321] = lines[44_321].replace(",1024,1024,", ",1024,12.5,")
    with pytest.raises(MeasuredDataError, match=r"row 44321, column 'osl': 12.5 is not a whole number"):
        load_measured_bytes(("\n".join(lines) + "\n").encode(), "big.csv")


def test_values_at_the_bounds_load_exactly():
    lo, hi = INT_RANGES["concurrency"]
    df = load_measured_bytes(csv(concurrency=hi), "a.csv")
    assert df["concurrency"].iloc[-1] == hi and df["concurrency"].dtype == np.int64
    assert load_measured_bytes(csv(concurrency=f"{lo}.0"), "a.csv")["concurrency"].iloc[-1] == lo
    with pytest.raises(MeasuredDataError, match="outside"):
        load_measured_bytes(csv(concurrency=hi + 1), "a.csv")


def test_too_many_rows_are_refused_before_parsing():
    text = csv(0) + b"h200,fp8,sglang,none,False,False,1,1,1,1,1,1,1,d,\n" * (MAX_ROWS + 1)
    with pytest.raises(MeasuredDataError, match=f"{MAX_ROWS + 1:,} data lines; at most {MAX_ROWS:,}"):
        load_measured_bytes(text, "many.csv")
    # Old Mac line ends (\r alone): the line count sees one line, the parser still stops at the limit.
    with pytest.raises(MeasuredDataError, match=f"more than {MAX_ROWS:,} rows"):
        load_measured_bytes(text.replace(b"\n", b"\r"), "many.csv")


def test_a_million_row_file_is_refused_quickly():
    """A file of 1,000,000 rows: refused by size before decoding, and by row count without parsing."""
    import time

    row = ROW.format(conc=64, n=1).encode() + b"\n"
    data = HEADER.encode() + b"\n" + row * 1_000_000
    url = data_url(data)
    t0 = time.perf_counter()
    with pytest.raises(MeasuredDataError, match=r"the file is 9\d\.\d MB; at most 20 MB"):
        parse_upload(url, "million.csv", max_bytes=20 * 2**20)
    with pytest.raises(MeasuredDataError, match="1,000,000 data lines"):
        load_measured_bytes(data, "million.csv")
    assert time.perf_counter() - t0 < 2


def test_only_web_links_are_kept_as_run_links():
    df = load_measured_bytes(csv(run_url="javascript:alert(1)"), "a.csv")
    assert df["run_url"].iloc[-1] == "" and df["run_url"].iloc[0].startswith("https://")


def test_api_bytes_load_like_an_upload():
    """The path a server-side fetch of the InferenceX API will use: raw bytes and a name, same checks."""
    raw = json.dumps({"data": [api_item(), api_item(conc=8)]}).encode()
    df = load_measured_bytes(raw, "api.json")
    assert df["concurrency"].tolist() == [4, 8] and df["median_tpot_ms"].iloc[0] == pytest.approx(11.6)
    assert parse_upload(data_url(raw, "application/json"), "api.json").equals(df)


def test_a_disaggregated_flag_counts_its_gpus_however_it_is_written():
    pools = {"num_prefill_gpu": 4, "num_decode_gpu": 8, "prefill_num_workers": 1, "decode_num_workers": 1}
    items = [api_item(disagg=flag, **pools) for flag in (True, "true", "yes", "1", "Yes ")]
    df = load_measured_bytes(json.dumps(items).encode(), "api.json")
    assert df["disagg"].all() and df["n_gpus"].tolist() == [12] * len(items)


# Cells an attacker or a broken export might write, for the fuzz below.
CELL = st.one_of(
    st.sampled_from(
        ["", "nan", "inf", "-inf", "1e300", "-1", "0", "1", "1.5", "1e3", "True", "null", "9" * 30, "0x1f"]
    ),
    st.integers(min_value=-(10**25), max_value=10**25).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.text(max_size=12),
)


def test_rows_with_more_fields_than_the_header_are_refused():
    # pandas would make the surplus leading fields a text index (found by the fuzz test below)
    row = "h200,fp8,sglang,none,false,false,1024,1024,8,8,20,500,100,2026-01-01,x"
    for extra in (row + ",surplus", "h200," + row):
        with pytest.raises(MeasuredDataError, match="more fields than the header"):
            load_measured_bytes(f"{HEADER}\n{extra}\n{extra}\n".encode(), "extra.csv")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.lists(CELL, min_size=len(FIELDS), max_size=len(FIELDS)), min_size=1, max_size=4))
def test_fuzz_csv_rows_load_in_range_or_are_refused(rows):
    text = HEADER + "\n" + "\n".join(",".join(c.replace(",", ";").replace("\n", " ") for c in r) for r in rows) + "\n"
    try:
        df = load_measured_bytes(text.encode("utf-8", "surrogatepass"), "fuzz.csv")
    except MeasuredDataError as err:
        assert str(err)
        return
    for column in ("isl", "osl", "concurrency", "n_gpus"):
        lo, hi = INT_RANGES[column]
        assert df[column].between(lo, hi).all() and df[column].dtype == np.int64
    for column in ("median_tpot_ms", "output_tput_per_gpu_tok_s", "median_ttft_ms"):
        values = df[column].dropna()
        assert np.isfinite(values).all() and (values >= 0).all()


JSON_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(st.sampled_from(["isl", "osl", "conc", "decode_tp", "hardware", "disagg", "metrics"]), JSON_VALUE),
    st.dictionaries(st.sampled_from(["median_tpot", "output_tput_per_gpu", "median_ttft"]), JSON_VALUE),
)
def test_fuzz_api_items_load_in_range_or_are_refused(top, metrics):
    item = api_item()
    item.update(top)
    if isinstance(item.get("metrics"), dict):
        item["metrics"] = {**item["metrics"], **metrics}
    try:
        df = load_measured_bytes(json.dumps([item]).encode(), "fuzz.json")
    except MeasuredDataError:
        return
    assert df["concurrency"].between(*INT_RANGES["concurrency"]).all()
    assert df["isl"].between(*INT_RANGES["isl"]).all()


# --- The upload callback, over HTTP (Flask test client) ---------------------------------------------


@pytest.mark.parametrize(
    ("contents", "filename", "fragment"),
    [
        (5, "a.csv", "expected a data URL, got int"),
        ([1, 2], "a.csv", "got list"),
        ({"a": 1}, "a.csv", "got dict"),
        (True, "a.csv", "got bool"),
        ("data:text/csv;base64,@@@", ["x"], "not a base64 data URL"),
        (data_url(b"[" * 100_000), "deep.json", "nested too deeply"),
        (data_url(b"[" + b"9" * 400 + b"]"), "n.json", "expected an object"),
        (data_url(csv(isl="1e300")), "e.csv", "row 2, column 'isl'"),
        (data_url(csv(concurrency="99999999999999999999999")), "c.csv", "row 2, column 'concurrency'"),
    ],
)
def test_hostile_uploads_get_a_sentence(client, contents, filename, fragment):
    resp = post_upload(client, contents, filename)
    out = resp.get_json()["response"]
    assert "measured-data" not in out  # what was loaded before stays
    assert out["measured-alert"]["color"] == "danger" and fragment in out["measured-alert"]["children"]


def test_a_lone_surrogate_in_the_file_name_is_replaced_not_a_500(client):
    raw = json.dumps(upload_body(data_url(csv()), "run\ud800s.csv")).encode()  # json escapes it as \ud800
    out = post_upload(client, None, None, raw=raw).get_json()["response"]
    assert out["measured-alert"]["color"] == "success"
    assert "run\ufffds.csv" in out["measured-alert"]["children"]


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(
    contents=st.one_of(JSON_VALUE, st.text().map(lambda t: "data:text/csv;base64," + t), st.binary().map(data_url)),
    filename=JSON_VALUE,
)
def test_fuzz_upload_callback_never_5xx(client, contents, filename):
    resp = post_upload(client, contents, filename)
    if resp.status_code == 200:
        alert = resp.get_json()["response"].get("measured-alert")
        assert alert is None or alert["children"]  # a sentence whenever something was sent


# --- The store the browser sends back -----------------------------------------------------------------


def default_control_values() -> list:
    """Control values as the browser sends them (log2 slider positions for ctx and isl)."""
    import math

    from inferx.scenario.machines import default_params
    from pages._url import controls, log2_controls

    params = default_params("h200x8")
    return [math.log2(params[n]) if n in log2_controls() else params[n] for n in controls()]


@pytest.fixture(scope="module")
def good_store(client):
    from pages._measured import to_store

    return to_store(load_measured_bytes(csv(40), "ok.csv"), "ok.csv")


def test_a_good_store_round_trips_and_a_tampered_one_is_refused(client, good_store):
    from pages._measured import StoreError, from_store, show_status

    assert len(from_store(good_store)) == 40
    assert show_status(good_store).startswith("40 measured points from the upload ok.csv")
    columns = json.loads(zlib.decompress(base64.urlsafe_b64decode(good_store["body"])))
    columns["columns"]["isl"][0] = 4096  # a well-formed body, with one value changed and the old signature
    tampered = dict(good_store, body=base64.urlsafe_b64encode(zlib.compress(json.dumps(columns).encode())).decode())
    with pytest.raises(StoreError, match="signature"):
        from_store(tampered)
    assert "upload the file again" in show_status(tampered)


def test_a_store_signed_with_another_key_is_refused(monkeypatch, good_store):
    from pages._measured import StoreError, from_store

    monkeypatch.setenv("INFERX_SECRET_KEY", "k" * 40)
    with pytest.raises(StoreError, match="signature"):
        from_store(good_store)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(data=st.one_of(JSON_VALUE, st.fixed_dictionaries({"v": st.just(1), "body": st.text(), "sig": st.text()})))
def test_fuzz_store_values_never_raise(client, data):
    from pages._measured import overlay, show_status
    from pages.inferencex import FILTERS, fill_filters

    assert isinstance(show_status(data), str)
    out = overlay(["on"], data, "h200x8", "h200")
    assert out is None or set(out) == {"fig4", "fig5"}
    assert len(fill_filters(data)) == 2 * len(FILTERS)  # each filter's options, then whether it is disabled


def test_draw_with_a_bad_store_says_so(client):
    from pages.inferencex import FILTERS, draw

    fig, summary = draw(*default_control_values(), *[None] * len(FILTERS), "x")
    assert "upload the file again" in summary or "Could not draw" in summary


def test_store_at_the_limit_is_at_most_one_megabyte():
    """A file at the upload limit (20 MiB) keeps its first points, and the store says how many it had."""
    from pages._measured import STORE_MAX_BYTES, UPLOAD_MAX_BYTES, from_store, measured_frame, to_store

    rows = 90_000  # under MAX_ROWS, each padded with a column the loader skips to fill the limit
    pad = (UPLOAD_MAX_BYTES - len(HEADER) - 10) // rows - len(ROW.format(conc=64, n=99_999)) - 2
    body = "".join(ROW.format(conc=2 ** (i % 9), n=i) + "," + "x" * pad + "\n" for i in range(rows))
    text = (HEADER + ",notes\n" + body).encode()
    assert UPLOAD_MAX_BYTES - 2**20 < len(text) <= UPLOAD_MAX_BYTES
    df = load_measured_bytes(text, "big.csv")
    store = to_store(df, "big.csv")
    size = len(json.dumps(store))
    assert size <= STORE_MAX_BYTES * 1.01, size
    back = from_store(store)
    assert 0 < len(back) == store["rows"] < len(df)
    assert f"of its {len(df):,} points" in measured_frame(store)[1]


# --- The server: size limit, memory and time, replicas ------------------------------------------------


def test_a_body_over_the_limit_is_refused_with_413(client):
    import app

    too_big = b'{"x":"' + b"a" * app.settings.max_request_bytes + b'"}'
    resp = client.post("/_dash-update-component", data=too_big, content_type="application/json")
    assert resp.status_code == 413
    assert b"at most 20 MB (INFERX_MAX_UPLOAD_MB)" in resp.data
    assert resp.headers["X-Content-Type-Options"] == "nosniff"
    assert "frame-ancestors" in resp.headers["Content-Security-Policy"]


def upload_at_limit(kind: str, limit: int) -> bytes:
    """The request a browser sends for the largest upload allowed: the file as a base64 data URL in the envelope."""
    if kind == "csv":
        # As many rows as are allowed, each padded with a column the loader does not read, to fill the limit.
        rows = MAX_ROWS
        pad = (limit - len(HEADER) - 10) // rows - len(ROW.format(conc=64, n=rows)) - 2
        body = "".join(ROW.format(conc=2 ** (i % 9), n=i) + "," + "x" * pad + "\n" for i in range(rows))
        data, name, mime = (HEADER + ",notes\n" + body).encode(), "limit.csv", "text/csv"
    else:
        metrics = {"median_tpot": 0.0116, "output_tput_per_gpu": 52.1, "median_ttft": 0.1, "p99_ttft": 0.3}
        one = json.dumps(api_item(metrics=metrics | {"median_itl": 0.011, "p99_itl": 0.02, "median_e2el": 9.0}))
        data, name, mime = ("[" + ",".join([one] * ((limit - 2) // (len(one) + 1))) + "]").encode(), "limit.json", ""
    assert limit - 2**20 < len(data) <= limit, len(data)
    return json.dumps(upload_body(data_url(data, mime or "application/json"), name)).encode()


MEMORY_SCRIPT = textwrap.dedent(
    """
    import json, os, resource, sys, time
    sys.modules.setdefault("IPython", None)
    import app
    size = os.path.getsize(sys.argv[1])
    client = app.server.test_client()
    t0, cpu0 = time.perf_counter(), time.process_time()
    with open(sys.argv[1], "rb") as body:  # streamed, as a worker reads it from its socket
        resp = client.post("/_dash-update-component", input_stream=body, content_length=size,
                           content_type="application/json")
    seconds, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    hwm = next(line for line in open("/proc/self/status") if line.startswith("VmHWM:"))
    out = resp.get_json()["response"]
    print(json.dumps({"status": resp.status_code, "seconds": seconds, "cpu_seconds": cpu,
                      "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                      "vmhwm_mb": int(hwm.split()[1]) / 1024, "request_mb": size / 2**20,
                      "store_bytes": len(json.dumps(out.get("measured-data", {}))),
                      "message": out["measured-alert"]["children"]}))
    """
)
# Linux carries ru_maxrss across exec, and a child forked from pytest starts with pytest's resident pages: a small
# Python in between forks the measured process from a small one, so its ru_maxrss is its own.
SPAWN = "import subprocess, sys; sys.exit(subprocess.call(sys.argv[1:]))"


@pytest.mark.parametrize("kind", ["csv", "json"])
def test_an_upload_at_the_limit_stays_under_300_mb_and_5_s(kind, tmp_path):
    """A fresh process imports the app and answers the largest allowed upload: JSON envelope, base64, parse, store.
    ru_maxrss is its peak; the time bound is on the CPU time the request took."""
    from inferx.deploy import Settings

    path = tmp_path / "request.json"
    path.write_bytes(upload_at_limit(kind, Settings.from_env().max_upload_bytes))
    proc = subprocess.run(
        [sys.executable, "-c", SPAWN, sys.executable, "-c", MEMORY_SCRIPT, str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout.strip().splitlines()[-1])
    print(kind, result)
    assert result["status"] == 200 and result["message"].startswith("Loaded "), result
    assert result["request_mb"] > 26  # a 20 MiB file as base64 in the envelope
    assert result["peak_mb"] < 300, result
    # CPU time: this machine's cores are shared, and wall time measures the neighbours as much as the app.
    assert result["cpu_seconds"] < 5 and result["seconds"] < 20, result
    assert result["store_bytes"] <= 1_000_000 * 1.01, result


def http_post(url: str, body: dict) -> dict:
    req = urllib.request.Request(
        url + "_dash-update-component", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req, timeout=60) as resp:
        assert resp.status == 200
        return json.loads(resp.read())["response"]


def status_body(store) -> dict:
    return {
        "output": "measured-status.children",
        "outputs": {"id": "measured-status", "property": "children"},
        "inputs": [
            {"id": "measured-data", "property": "data", "value": store},
            {"id": "measured-upload", "property": "id", "value": "measured-upload"},  # the page's own input
        ],
        "changedPropIds": ["measured-data.data"],
    }


def filters_body(store) -> dict:
    keys = ("hardware", "precision", "workload", "framework", "spec_method", "topology")
    props = [(k, prop) for prop in ("options", "disabled") for k in keys]
    return {
        "output": ".." + "...".join(f"ix-{k}.{prop}" for k, prop in props) + "..",
        "outputs": [{"id": f"ix-{k}", "property": prop} for k, prop in props],
        "inputs": [
            {"id": "measured-data", "property": "data", "value": store},
            {"id": "ix-filters", "property": "id", "value": "ix-filters"},  # the page's own input
        ],
        "changedPropIds": ["measured-data.data"],
    }


def test_two_servers_serve_one_users_measured_data_alternately():
    """Stateless: an upload answered by one server process is used by another that shares INFERX_SECRET_KEY, request
    after request; a server with a different key refuses the store with a notice rather than trusting it."""
    key = "s" * 48
    servers = [Server(env={"INFERX_SECRET_KEY": key}) for _ in range(2)]
    other = Server(env={"INFERX_SECRET_KEY": "o" * 48})
    try:
        store = http_post(servers[0].url, upload_body(data_url(csv(12)), "mine.csv"))["measured-data"]["data"]
        for i in range(6):
            url = servers[i % 2].url
            assert http_post(url, status_body(store))["measured-status"]["children"].startswith("12 measured points")
            options = http_post(url, filters_body(store))["ix-hardware"]["options"]
            assert {"label": "H200", "value": "h200"} in options
        refused = http_post(other.url, status_body(store))["measured-status"]["children"]
        assert "upload the file again" in refused
    finally:
        for srv in (*servers, other):
            srv.stop()


def test_the_workers_of_one_server_share_its_key_without_configuration():
    """Without INFERX_SECRET_KEY the key is made once in gunicorn's master (preload_app), so every worker, including
    one started later, accepts a store another worker signed. Each request opens a new connection, so both of the two
    workers answer some of them."""
    from conftest import START_TIMEOUT, free_port, wait_http

    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "INFERX_SECRET_KEY"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "app:server", "--bind", f"127.0.0.1:{port}", "--workers", "2"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        wait_http(url + "health", timeout=START_TIMEOUT)
        store = http_post(url, upload_body(data_url(csv(5)), "five.csv"))["measured-data"]["data"]
        answers = [http_post(url, status_body(store))["measured-status"]["children"] for _ in range(12)]
        assert all(a.startswith("5 measured points") for a in answers), answers
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()


# The peak depends on how the four requests' parsing overlaps, which a loaded machine reorders: 231-255 MB idle
# (242-286 MB before a parsed file shared its repeated names). One rerun on a fresh server; a budget missed twice
# is a real regression.
@pytest.mark.flaky(reruns=1)
def test_four_uploads_at_the_limit_at_once_keep_a_worker_under_300_mb(tmp_path):
    """gunicorn with one worker of 4 threads, four uploads at the limit sent together: the server takes one large
    body at a time, so the worker's peak (VmHWM, read from /proc) is that of one upload, and every upload loads."""
    import threading

    from conftest import START_TIMEOUT, free_port, wait_http

    from inferx.deploy import Settings

    limit = Settings.from_env().max_upload_bytes
    bodies = [upload_at_limit(kind, limit) for kind in ("csv", "json", "csv", "json")]
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "app:server", "--bind", f"127.0.0.1:{port}", "--workers", "1"],
        cwd=ROOT,
        env={**os.environ, "INFERX_THREADS": "4"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_http(f"http://127.0.0.1:{port}/health", timeout=START_TIMEOUT)
        worker = int(Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()[0])
        answers = []

        def send(body: bytes) -> None:
            req = urllib.request.Request(
                f"http://127.0.0.1:{port}/_dash-update-component",
                data=body,
                headers={"Content-Type": "application/json"},
            )
            for attempt in range(4):
                try:
                    with urllib.request.urlopen(req, timeout=120) as resp:
                        answers.append(json.loads(resp.read())["response"]["measured-alert"]["children"])
                        return
                except urllib.error.HTTPError as err:
                    # On a loaded machine the last upload can wait past the server's 30 s and be told to try
                    # again (503), as a user would; anything else is a failure.
                    if err.code != 503 or attempt == 3:
                        raise

        threads = [threading.Thread(target=send, args=(b,)) for b in bodies]
        for t in threads:
            t.start()
        for t in threads:
            t.join(180)
        status = dict(line.split(":", 1) for line in Path(f"/proc/{worker}/status").read_text().splitlines())
        peak_mb = int(status["VmHWM"].split()[0]) / 1024
        print(f"worker peak {peak_mb:.0f} MB", answers)
        assert len(answers) == 4 and all(a.startswith("Loaded ") for a in answers), answers
        assert peak_mb < 300
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_a_body_over_the_limit_gets_its_413_over_a_real_connection():
    """gunicorn as deployed: the server reads the refused body before it answers, so a client still sending it
    reads the 413 and its words, not a reset connection (a broken pipe on the client's send)."""
    import http.client

    from conftest import Server

    server = Server(env={"INFERX_MAX_UPLOAD_MB": "1"})
    try:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=120)
        body = b'{"x":"' + b"a" * (48 * 2**20) + b'"}'  # far past the 2.3 MiB a 1 MB upload may take as a request
        conn.request("POST", "/_dash-update-component", body=body, headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        assert resp.status == 413
        assert b"the server accepts uploads of at most 1 MB (INFERX_MAX_UPLOAD_MB)" in resp.read()
        conn.close()
    finally:
        server.stop()
