"""Malformed Dash requests, unknown routes and a killed worker, against the app served as deployed.

The envelope is Dash's POST to /_dash-update-component: which callback (`output`), the components and properties
it reads (`inputs`, `state`) and writes (`outputs`). A request whose envelope does not fit a server callback is the
client's fault and answers 400 with the security headers; the values inside a well-formed envelope are each
callback's to check, and none of them may answer 5xx either.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from conftest import START_TIMEOUT, free_port, wait_http
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inferx.deploy import MAX_PATTERN_ITEMS, check_envelope

ROOT = Path(__file__).resolve().parents[1]
SECURITY_HEADERS = ("Content-Security-Policy", "X-Content-Type-Options", "Referrer-Policy")
# Callbacks whose value checks are this file's to assert: everything that reads the measured-data store or upload.


def connect(url: str) -> http.client.HTTPConnection:
    host, port = url.split("//")[1].split("/")[0].split(":")
    return http.client.HTTPConnection(host, int(port), timeout=60)


def request(conn, method: str, path: str, body: bytes | None = None) -> tuple[int, bytes, dict]:
    headers = {"Content-Type": "application/json"} if body is not None else {}
    for attempt in range(2):  # a keep-alive connection the server closed (e.g. after a 4xx) is reopened once
        try:
            conn.request(method, path, body=body, headers=headers)
            resp = conn.getresponse()
            return resp.status, resp.read(), dict(resp.getheaders())
        except (http.client.HTTPException, ConnectionError):
            conn.close()
            if attempt:
                raise
    raise AssertionError("unreachable")


# --- Templates: one well-formed envelope per server callback, from the app's own /_dash-dependencies ----------


def concrete_id(pattern: dict, n: int = 1) -> dict:
    return {k: (f"fig{n}" if isinstance(v, list) else v) for k, v in pattern.items()}


# What a browser sends where None would not do.
DEFAULT_VALUES = {("_pages_location", "pathname"): "/", ("_pages_location", "search"): ""}


def entry(dep: dict):
    """What the renderer sends for one dependency: a dict, or a list of dicts for an ALL pattern."""
    cid, value = dep["id"], DEFAULT_VALUES.get((dep["id"], dep["property"]))
    if not cid.startswith("{"):
        return {"id": cid, "property": dep["property"], "value": value}
    pattern = json.loads(cid)
    one = {"id": concrete_id(pattern), "property": dep["property"], "value": value}
    return [one] if any(v in (["ALL"], ["ALLSMALLER"]) for v in pattern.values()) else one


def templates(deps: list) -> list[dict]:
    out = []
    for cb in deps:
        if cb.get("clientside_function"):
            continue
        output = cb["output"]
        parts = output[2:-2].split("...") if output.startswith("..") else [output]
        outputs = []
        for part in parts:
            cid, _, prop = part.rpartition(".")
            outputs.append(entry({"id": cid, "property": prop.split("@")[0]}))
        for o in outputs:
            for one in o if isinstance(o, list) else [o]:
                one.pop("value")
        out.append(
            {
                "output": output,
                "outputs": outputs if output.startswith("..") else outputs[0],
                "inputs": [entry(d) for d in cb["inputs"]],
                "state": [entry(d) for d in cb["state"]],
                "changedPropIds": [f"{cb['inputs'][0]['id']}.{cb['inputs'][0]['property']}"] if cb["inputs"] else [],
            }
        )
    return out


# --- Unit: the envelope check against the real callback map ------------------------------------------------


@pytest.fixture(scope="module")
def dash_app():
    import app

    return app


@pytest.fixture(scope="module")
def app_templates(dash_app):
    client = dash_app.server.test_client()
    return templates(client.get("/_dash-dependencies").get_json())


def test_every_template_passes_the_check(dash_app, app_templates):
    assert len(app_templates) >= 5
    for t in app_templates:
        assert check_envelope(json.loads(json.dumps(t)), dash_app.app.callback_map) is None, t["output"]


def status_template(app_templates) -> dict:
    return json.loads(json.dumps(next(t for t in app_templates if t["output"] == "measured-status.children")))


@pytest.mark.parametrize(
    ("mutate", "fragment"),
    [
        (lambda t: [t], "JSON object"),
        (lambda t: {k: v for k, v in t.items() if k != "output"}, "no 'output'"),
        (lambda t: {**t, "output": "nope.children"}, "no server callback"),
        (lambda t: {**t, "output": ["x"]}, "no 'output'"),
        (lambda t: {**t, "inputs": "x"}, "'inputs' should list 2"),
        (lambda t: {**t, "inputs": []}, "'inputs' should list 2"),
        (lambda t: {**t, "inputs": [5, t["inputs"][1]]}, "inputs[0] should be measured-data.data"),
        (lambda t: {**t, "inputs": [{"id": "ctl-bw", "property": "data"}, t["inputs"][1]]}, "inputs[0] should be"),
        (
            lambda t: {**t, "inputs": [{"id": "measured-data", "property": "value"}, t["inputs"][1]]},
            "inputs[0] should be",
        ),
        (lambda t: {**t, "state": [{"id": "x", "property": "y"}]}, "'state' should list 0"),
        (lambda t: {**t, "outputs": [t["outputs"], t["outputs"]]}, "outputs[0] should be"),
        (lambda t: {k: v for k, v in t.items() if k != "outputs"}, "no 'outputs'"),
        (lambda t: {**t, "outputs": None}, "no 'outputs'"),
        (lambda t: {**t, "changedPropIds": [1]}, "changedPropIds"),
        (
            lambda t: {**t, "inputs": [{**t["inputs"][0], "value": json.loads("[" * 60 + "]" * 60)}, t["inputs"][1]]},
            "nested",
        ),
        (lambda t: {**t, "inputs": [{**t["inputs"][0], "\ud800": 1}, t["inputs"][1]]}, "lone surrogate"),
    ],
)
def test_malformed_envelopes_are_named(dash_app, app_templates, mutate, fragment):
    body = mutate(status_template(app_templates))
    assert fragment in (check_envelope(body, dash_app.app.callback_map) or "")


def test_pattern_lists_are_bounded(dash_app, app_templates):
    redraw = json.loads(json.dumps(next(t for t in app_templates if t["output"].startswith("..figure-updates"))))
    state = redraw["state"][0]
    redraw["state"] = [[{**state[0], "id": {"fig": f"f{i}", "role": "figure"}} for i in range(10_000)]]
    assert f"at most {MAX_PATTERN_ITEMS}" in check_envelope(redraw, dash_app.app.callback_map)
    redraw["state"] = [[{**state[0], "id": "fig1"}]]
    assert "does not match" in check_envelope(redraw, dash_app.app.callback_map)
    redraw["state"] = [[{**state[0], "id": {"fig": "fig1", "role": "other"}}]]
    assert "does not match" in check_envelope(redraw, dash_app.app.callback_map)


def test_the_pages_router_gets_text_or_a_400(dash_app, app_templates):
    router = next(t for t in app_templates if "_pages_content" in t["output"])
    client = dash_app.server.test_client()
    for pathname, search, status in (("/", "", 200), ("/", None, 200), (None, "", 400), (5, "", 400), ("/", {}, 400)):
        body = json.loads(json.dumps(router))
        body["inputs"][0]["value"], body["inputs"][1]["value"] = pathname, search
        assert client.post("/_dash-update-component", json=body).status_code == status, (pathname, search)


def test_clientside_outputs_are_not_server_callbacks(dash_app):
    clientside = [k for k, v in dash_app.app.callback_map.items() if "callback" not in v]
    assert clientside, "the app has clientside callbacks"
    assert "no server callback" in check_envelope({"output": clientside[0]}, dash_app.app.callback_map)


def test_an_allow_duplicate_output_is_named_with_its_hash():
    """The browser names an allow_duplicate output as Dash declares it, 'data@<hash>'; the check must agree."""
    output = "..note.children...store.data@622e50b1.."
    callback_map = {output: {"inputs": [{"id": "up", "property": "contents"}], "state": [], "callback": object()}}
    body = {
        "output": output,
        "outputs": [{"id": "note", "property": "children"}, {"id": "store", "property": "data@622e50b1"}],
        "inputs": [{"id": "up", "property": "contents", "value": None}],
    }
    assert check_envelope(body, callback_map) is None
    body["outputs"][1]["property"] = "data"
    assert check_envelope(body, callback_map) == "outputs[1] should be store.data@622e50b1"


# --- Served: the fuzz, unknown routes and a killed worker --------------------------------------------------


@pytest.fixture(scope="module")
def served(server):
    conn = connect(server.url)
    status, deps, _ = request(conn, "GET", "/_dash-dependencies")
    assert status == 200
    return server, conn, templates(json.loads(deps))


JSON_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(10**30), max_value=10**30) | st.floats() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
)
SHAPE_MUTATIONS = (
    "not json",
    "not an object",
    "no output",
    "unknown output",
    "output type",
    "inputs type",
    "inputs length",
    "input id",
    "input property",
    "input item",
    "state",
    "outputs",
    "changed",
    "deep",
    "surrogate key",
    "many ids",
)


def shape_mutation(data, t: dict) -> bytes:
    """A request whose envelope is wrong in one way; the server must answer it 4xx (or 2xx), never 5xx."""
    kind = data.draw(st.sampled_from(SHAPE_MUTATIONS), label="mutation")
    t = json.loads(json.dumps(t))
    if kind == "not json":
        return data.draw(st.binary(max_size=40).filter(lambda b: not b.strip().startswith((b"{", b"[", b'"'))))
    if kind == "not an object":
        return json.dumps(data.draw(JSON_VALUE.filter(lambda v: not isinstance(v, dict)))).encode()
    if kind == "no output":
        t.pop("output")
    elif kind == "unknown output":
        t["output"] = data.draw(st.text(max_size=30))
    elif kind == "output type":
        t["output"] = data.draw(JSON_VALUE.filter(lambda v: not isinstance(v, str)))
    elif kind == "inputs type":
        t["inputs"] = data.draw(JSON_VALUE.filter(lambda v: not isinstance(v, list)))
    elif kind == "inputs length":
        t["inputs"] = t["inputs"] + [t["inputs"][0]] * data.draw(st.integers(1, 3)) if t["inputs"] else [{}]
    elif kind == "input id" and t["inputs"]:
        first = t["inputs"][0]
        target = first[0] if isinstance(first, list) and first else first
        target["id"] = data.draw(JSON_VALUE)
    elif kind == "input property" and t["inputs"]:
        first = t["inputs"][0]
        target = first[0] if isinstance(first, list) and first else first
        target["property"] = data.draw(st.text(max_size=8).filter(lambda p: p != target.get("property")))
    elif kind == "input item":
        t["inputs"] = [data.draw(JSON_VALUE)] * max(1, len(t["inputs"]))
    elif kind == "state":
        t["state"] = data.draw(st.lists(JSON_VALUE, min_size=len(t["state"]) + 1, max_size=len(t["state"]) + 2))
    elif kind == "outputs":
        t["outputs"] = data.draw(st.one_of(st.lists(JSON_VALUE, max_size=2), st.text(max_size=5)))
    elif kind == "changed":
        t["changedPropIds"] = data.draw(st.one_of(st.text(max_size=5), st.lists(st.integers(), min_size=1)))
    elif kind == "deep":
        depth = data.draw(st.sampled_from([45, 500, 100_000]))
        text = json.dumps(t)
        return text[:-1].encode() + b', "x": ' + b"[" * depth + b"]" * depth + b"}"
    elif kind == "surrogate key":
        return json.dumps({**t, "\ud800x": 1}).encode()
    elif kind == "many ids":
        t["inputs"] = [[{"id": {"fig": f"f{i}", "role": "figure"}, "property": "id"} for i in range(5_000)]]
    return json.dumps(t).encode()


def value_mutation(data, t: dict) -> bytes:
    """A well-formed envelope with hostile values in the inputs and state."""
    t = json.loads(json.dumps(t))
    for key in ("inputs", "state"):
        for item in t[key]:
            for one in item if isinstance(item, list) else [item]:
                one["value"] = data.draw(
                    st.one_of(
                        JSON_VALUE,
                        st.just("x"),
                        st.just({}),
                        st.just({"v": 1, "body": "{}", "sig": "0" * 64}),
                        st.text(
                            alphabet=st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF), min_size=1, max_size=3
                        ),
                    ),
                    label="value",
                )
    return json.dumps(t).encode()


FUZZ_REQUESTS = int(os.environ.get("INFERX_FUZZ_REQUESTS", "2000"))  # more for a one-off attack run


def test_envelope_fuzz_gets_no_5xx(served):
    """≥ 2,000 malformed or hostile requests to the gunicorn-served app, over every server callback: shape errors
    answer 4xx, hostile values a notice; nothing answers 5xx."""
    server, conn, tpl = served
    counts = {"sent": 0, "4xx": 0, "5xx": 0}

    @settings(max_examples=FUZZ_REQUESTS, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(st.data())
    def one(data):
        t = data.draw(st.sampled_from(tpl), label="callback")
        shape = data.draw(st.booleans(), label="shape")
        body = shape_mutation(data, t) if shape else value_mutation(data, t)
        status, resp, headers = request(conn, "POST", "/_dash-update-component", body)
        counts["sent"] += 1
        counts["4xx"] += 400 <= status < 500
        assert all(h in headers for h in SECURITY_HEADERS)
        assert b"Traceback" not in resp
        counts["5xx"] += status >= 500
        assert status < 500, (status, resp[:300], body[:300])

    started = time.monotonic()
    one()
    print(counts, f"{time.monotonic() - started:.1f} s")
    assert counts["sent"] >= FUZZ_REQUESTS and counts["5xx"] == 0 and counts["4xx"] > FUZZ_REQUESTS // 4


@pytest.mark.parametrize(
    ("method", "path", "body", "status"),
    [
        ("GET", "/_dash-component-suites/nope/x.js", None, 404),
        ("GET", "/_dash-component-suites/dash/nope.js", None, 404),
        ("POST", "/_dash-update-component", b"", 400),
        ("POST", "/_dash-update-component", b"[" * 100_000 + b"]" * 100_000, 400),
        ("POST", "/_dash-update-component", b'{"output": "x", "inputs": "\\ud800"}', 400),
        ("POST", "/health", b"{}", 405),
        # Within the size limit, but it would parse into hundreds of MB of Python objects.
        ("POST", "/_dash-update-component", b"[" + b"[]," * 8_000_000 + b"[]]", 400),
        ("POST", "/_dash-update-component", b"[" + b"0," * 8_000_000 + b"0]", 400),
    ],
)
def test_unknown_routes_and_bodies_get_4xx_with_headers(served, method, path, body, status):
    server, conn, _ = served
    got, resp, headers = request(conn, method, path, body)
    assert got == status, resp[:300]
    assert all(h in headers for h in SECURITY_HEADERS) and b"Traceback" not in resp


# --- A worker killed mid-load -------------------------------------------------------------------------------


def worker_pids(master: int) -> list[int]:
    path = Path(f"/proc/{master}/task/{master}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def test_a_worker_killed_mid_requests_loses_no_request():
    """gunicorn with 2 workers × 4 threads; 4 clients request pages and callbacks; one worker gets SIGKILL. A client
    retries a request whose connection broke (as a browser or load balancer does); every request then succeeds,
    and the master has started a replacement."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    proc = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "app:server", "--bind", f"127.0.0.1:{port}", "--workers", "2"],
        cwd=ROOT,
        env={**os.environ, "INFERX_THREADS": "4"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_http(url + "health", timeout=START_TIMEOUT)
        deadline = time.monotonic() + 30
        while len(worker_pids(proc.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.1)
        before = worker_pids(proc.pid)
        assert len(before) == 2
        status_body = json.dumps(
            {
                "output": "measured-status.children",
                "outputs": {"id": "measured-status", "property": "children"},
                "inputs": [
                    {"id": "measured-data", "property": "data", "value": None},
                    {"id": "measured-upload", "property": "id", "value": "measured-upload"},
                ],
                "changedPropIds": [],
            }
        ).encode()
        results = {"ok": 0, "retried": 0, "failed": []}
        lock = threading.Lock()
        stop = time.monotonic() + 6.0

        def client(n: int):
            conn = connect(url)
            i = 0
            while time.monotonic() < stop:
                method, path, body = (
                    ("GET", "/", None) if i % 3 == 0 else ("POST", "/_dash-update-component", status_body)
                )
                i += 1
                tries = 0
                while True:
                    tries += 1
                    try:
                        status, resp, _ = request(conn, method, path, body)
                    except OSError:
                        status = None
                    if status == 200 or tries == 10:
                        break
                    conn.close()
                    conn = connect(url)
                    time.sleep(0.1)
                with lock:
                    if status == 200:
                        results["ok"] += 1
                        results["retried"] += tries > 1
                    else:
                        results["failed"].append((method, path, status))
            conn.close()

        threads = [threading.Thread(target=client, args=(n,)) for n in range(4)]
        for t in threads:
            t.start()
        time.sleep(2.0)
        os.kill(before[0], signal.SIGKILL)
        for t in threads:
            t.join(60)
        print(results)
        assert results["failed"] == [] and results["ok"] > 20
        deadline = time.monotonic() + 30
        while (len(worker_pids(proc.pid)) < 2 or before[0] in worker_pids(proc.pid)) and time.monotonic() < deadline:
            time.sleep(0.1)
        after = worker_pids(proc.pid)
        assert len(after) == 2 and before[0] not in after
    finally:
        proc.terminate()
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_the_load_benchmark_runs_and_replaces_only_its_section(tmp_path):
    """`python -m benchmarks --load-only --quick`: 10 users against gunicorn, every redraw answered."""
    (tmp_path / "RESULTS.md").write_text("# results\n\n| a | b |\n\n## Machine\n\n- Host: x\n")
    run = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--load-only", "--quick", "--out", str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    text = (tmp_path / "RESULTS.md").read_text()
    assert text.startswith("# results\n\n| a | b |") and text.rstrip().endswith("- Host: x")
    assert "| redraws answered | 30 of 30 (10 users × 3) | all | yes |" in text
    assert "| errors (non-200 or broken connection) | 0 | 0 | yes |" in text
    assert text.count("## Load: many users at once") == 1


@pytest.mark.parametrize("pathname", ["x", "", "embed/fig1"])
def test_a_router_request_for_a_path_outside_the_app_gets_400(served, pathname):
    server, conn, _ = served
    body = {
        "output": ".._pages_content.children..._pages_store.data..",
        "outputs": [{"id": "_pages_content", "property": "children"}, {"id": "_pages_store", "property": "data"}],
        "inputs": [
            {"id": "_pages_location", "property": "pathname", "value": pathname},
            {"id": "_pages_location", "property": "search", "value": ""},
        ],
        "state": [],
        "changedPropIds": ["_pages_location.pathname"],
    }
    status, resp, headers = request(conn, "POST", "/_dash-update-component", json.dumps(body).encode())
    assert status == 400 and b"must be a path under /" in resp, resp[:300]
    assert all(h in headers for h in SECURITY_HEADERS)
