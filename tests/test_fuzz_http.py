"""Hostile requests against the app as deployed (gunicorn): the redraw callback and every page's router call.

The requests are what a browser sends to `/_dash-update-component`, with the callback's own values replaced by
values of every type and shape. The Dash envelope itself stays well formed (a malformed envelope never reaches
a callback), and the measured-data callbacks, which read uploads, are left to tests of their own.
"""

from __future__ import annotations

import http.client
import json
import random
import time
import urllib.parse
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inferx.figures.registry import FIGURES
from inferx.scenario.controls import PARAMS
from pages._cards import INTERNAL_ERROR
from pages._url import PINNED_KEY, controls, log2_controls, parse_pinned, parse_query

PAGES = ["/", "/inferencex", "/methods", *[f"/embed/{n}" for n in (*FIGURES, "explorer")]]


class Client:
    """One keep-alive connection to the server, reopened if the server closes it."""

    def __init__(self, server):
        self.host, self.port = "127.0.0.1", server.port
        self.conn = None
        self.statuses = Counter()

    def request(self, method: str, path: str, body: bytes | None = None) -> tuple[int, bytes]:
        for attempt in range(2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
            try:
                headers = {"Content-Type": "application/json"} if body is not None else {}
                self.conn.request(method, path, body=body, headers=headers)
                resp = self.conn.getresponse()
                data = resp.read()
            except (http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = None
                if attempt:
                    raise
                continue
            self.statuses[resp.status] += 1
            return resp.status, data
        raise AssertionError("unreachable")

    def callback(self, output: str, outputs: list, inputs: list, state: list) -> tuple[int, dict | bytes]:
        body = {
            "output": output,
            "outputs": outputs,
            "inputs": inputs,
            "changedPropIds": [f"{inputs[0]['id']}.{inputs[0]['property']}"],
            "state": state,
        }
        status, data = self.request("POST", "/_dash-update-component", json.dumps(body).encode())
        try:
            return status, json.loads(data)
        except ValueError:
            return status, data


@pytest.fixture(scope="module")
def client(server):
    c = Client(server)
    yield c
    print(f"\nHTTP statuses of {sum(c.statuses.values())} requests: {dict(c.statuses)}")


@pytest.fixture(scope="module")
def outputs(client) -> dict:
    """The callbacks' output keys, as the page reads them from /_dash-dependencies."""
    _, data = client.request("GET", "/_dash-dependencies")
    keys = [d["output"] for d in json.loads(data)]
    return {
        "redraw": next(k for k in keys if k.startswith("..figure-updates.data")),
        "router": next(k for k in keys if k.startswith(".._pages_content.children")),
    }


# --- The redraw callback ----------------------------------------------------------------------------------

json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**400), max_value=10**400),
    st.floats(allow_nan=True, allow_infinity=True),  # json.dumps writes NaN and Infinity; Python's reader takes them
    st.sampled_from([1e308, -1e308, 5e-324, -0.0, 10**400, 2**63, 2**64 + 1]),
    st.text(max_size=20),
)
json_value = st.recursive(
    json_leaf,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


def control_value(name: str):
    """A value the control could send, or anything at all."""
    p = PARAMS[name]
    if p.kind == "choice":
        valid = st.sampled_from(p.choices)
    elif name in log2_controls():
        valid = st.floats(7, 17)  # slider position, log2(tokens)
    elif p.kind == "pow2":
        valid = st.sampled_from([1, 2, 4, 8, 16])
    else:
        valid = st.floats(p.low, p.high)
    return st.one_of(valid, valid, json_value)


control_state = st.fixed_dictionaries(
    {
        "values": st.one_of(st.tuples(*[control_value(n) for n in controls()]).map(list), json_value),
        "batch": st.one_of(st.none(), st.floats(0, 30), json_value),
        "batchOnly": st.one_of(st.booleans(), json_value),
    },
    optional={"figures": st.one_of(st.lists(st.sampled_from(list(FIGURES)), max_size=4), json_value)},
)
# Mostly a control state with some values replaced; sometimes one with a key missing or anything at all.
redraw_request = st.one_of(
    control_state,
    control_state,
    control_state.flatmap(lambda r: st.sampled_from(list(r)).map(lambda k: {x: v for x, v in r.items() if x != k})),
    json_value,
)
figure_id = st.one_of(
    st.sampled_from(list(FIGURES)).map(lambda f: {"role": "figure", "fig": f}),
    st.sampled_from(list(FIGURES)).map(lambda f: {"role": "figure", "fig": f}),
    st.fixed_dictionaries({"role": st.just("figure")}, optional={"fig": json_value}),
    json_value,
)
figure_ids = st.one_of(
    st.lists(figure_id, max_size=len(FIGURES) + 2),
    st.sampled_from([50, 10_000]).map(lambda n: [{"role": "figure", "fig": "fig1"}] * n),  # a flood of ids
)


def post_redraw(client, output: str, request, ids):
    state = [
        [
            {"id": {"role": "figure", "fig": list(FIGURES)[k % len(FIGURES)]}, "property": "id", "value": i}
            for k, i in enumerate(ids)
        ]
    ]
    outputs = [
        {"id": "figure-updates", "property": "data"},
        {"id": "runtime-notice", "property": "children"},
        {"id": "runtime-notice", "property": "is_open"},
    ]
    inputs = [{"id": "redraw-request", "property": "data", "value": request}]
    return client.callback(output, outputs, inputs, state)


@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large],
)
@given(request=redraw_request, ids=figure_ids)
def test_the_redraw_callback_answers_any_request_with_figures_or_a_notice(client, outputs, request, ids):
    start = time.monotonic()
    status, body = post_redraw(client, outputs["redraw"], request, ids)
    assert status < 500, (status, body)
    elapsed = time.monotonic() - start
    if status == 400:  # a flood of ids is refused at the door, before Dash reads the request
        assert len(ids) > 64 and b"at most 64 components" in body and elapsed < 5, (status, body, elapsed)
        return
    assert status == 200, (status, body)
    out = body["response"]
    figs, notice, is_open = (
        out["figure-updates"]["data"],
        out["runtime-notice"]["children"],
        out["runtime-notice"]["is_open"],
    )
    if notice is None:  # drawn: the figures asked for (none, when the page shows none)
        assert is_open is False and set(figs) <= set(FIGURES)
    else:
        assert is_open is True and figs == {} and notice.startswith("Could not redraw: "), notice
        assert notice != INTERNAL_ERROR and len(notice) < 400, notice  # every bad input is named, not a bug
    if len(ids) > len(FIGURES):
        assert not figs and "at most" in notice
        assert elapsed < 5, elapsed  # refused before any work (generous: two cores shared with other jobs)


# --- Every page through the router ------------------------------------------------------------------------

HOSTILE_VALUES = [
    "1e308",
    "-1e308",
    "nan",
    "inf",
    "-inf",
    "-0.0",
    "0",
    "-1",
    "5e-324",
    str(10**400),
    "9" * 5000,
    "",
    " ",
    "%00",
    "%ff%fe",
    "%",
    "%%",
    "%zz",
    "\u202e",
    "ünïcødé",
    "\U0001f4a5",
    "３",
    "0x10",
    "1_000",
    "true",
    "null",
    "[1,2]",
    '{"a":1}',
    "<script>alert(1)</script>",
    "../../etc/passwd",
    "a" * 3000,
    "fig7",
    "explorer",
    # Shaped like a pinned scenario A (a=): good, bad and hostile pieces.
    "preset:mi300x4,ctx:8192",
    "ctx:nan,tp:3,:,,bw:",
    "preset:h200x8," * 300,
]
KEYS = [*PARAMS, "batch", "name", "a", "", "x", "__proto__", "constructor", "ctl-bw", "Batch", "bw[]", "%62w", "🙂"]


def hostile_query(rng: random.Random) -> str:
    """A query string: known and unknown keys, valid and hostile values, repeats, sometimes very many keys."""
    n = rng.choice([1, 2, 3, 5, 8]) if rng.random() < 0.95 else rng.choice([200, 2000])
    parts = []
    for _ in range(n):
        key = rng.choice(KEYS)
        if key in PARAMS and rng.random() < 0.4:
            p = PARAMS[key]
            value = (
                rng.choice(p.choices) if p.kind == "choice" else str(rng.choice([p.low, p.high, (p.low + p.high) / 2]))
            )
        elif key == "batch" and rng.random() < 0.4:
            value = str(rng.randint(1, 5000))
        else:
            value = rng.choice(HOSTILE_VALUES)
        raw = rng.random() < 0.3  # unencoded: the server sees the characters as typed
        quote = (lambda s: s) if raw else (lambda s: urllib.parse.quote(s, safe=""))
        parts.append(f"{quote(key)}={quote(value)}" if rng.random() < 0.9 else quote(key))
    return "?" + "&".join(parts)


def route(client, output: str, pathname: str, search: str):
    outputs = [{"id": "_pages_content", "property": "children"}, {"id": "_pages_store", "property": "data"}]
    inputs = [
        {"id": "_pages_location", "property": "pathname", "value": pathname},
        {"id": "_pages_location", "property": "search", "value": search},
    ]
    return client.callback(output, outputs, inputs, [])


def strings(value) -> str:
    """Every text in a JSON answer, one per line (the layout's notices among them)."""
    if isinstance(value, dict):
        return "\n".join(strings(v) for v in value.values())
    if isinstance(value, list):
        return "\n".join(strings(v) for v in value)
    return value if isinstance(value, str) else ""


def test_every_page_answers_hostile_addresses(client, outputs):
    """At least 500 hostile addresses over every page: the page shell (GET) and its layout through the router
    callback, as the browser asks for it. None answers 5xx, and a page that reads the controls from the
    address shows every notice about them."""
    rng = random.Random(15)
    failures, count = [], 0
    pages = PAGES + ["/embed/fig99", "/embed/" + urllib.parse.quote("ünï"), "/embed/fig1/extra"]
    for k in range(560):
        path = pages[k % len(pages)]
        search = hostile_query(rng)
        status, _ = client.request("GET", path + urllib.parse.quote(search, safe="?&=%"))
        routed, body = route(client, outputs["router"], path, search)
        count += 1
        if status >= 500 or routed >= 500:
            failures.append((path, search[:200], status, routed))
            continue
        assert routed == 200, (path, search[:200], routed)
        if path == "/" or path == "/inferencex" or path.removeprefix("/embed/") in (*FIGURES, "explorer"):
            query = {
                k: v[0] if len(v) == 1 else v
                for k, v in urllib.parse.parse_qs(search[1:], keep_blank_values=True).items()
            }
            if path.startswith("/embed/"):
                query.pop("name", None)  # the layout's own argument: the path decides
            shown = strings(body)
            said = parse_pinned(query.pop(PINNED_KEY, None))[1] if path != "/inferencex" else []  # A, where honoured
            for notice in parse_query(query)[2] + said:
                assert notice in shown, (path, search[:200], notice)
    assert not failures, f"{len(failures)} of {count} addresses answered 5xx, e.g. {failures[:5]}"


@pytest.mark.parametrize(
    "path,search,shows,notice",
    [
        ("/", "?batch=1&batch=2", '"children": "2"', "batch was given 2 times; used the last: batch=2."),
        ("/embed/fig1", "?name=fig7", "Figure 1 ", "Ignored name=fig7: the address's path names the figure."),
        ("/embed/fig1", "?name=a&name=b", "Figure 1 ", "Ignored name=['a', 'b']: the address's path names the figure."),
        ("/", "?tp=3", '"value": 8', "Ignored tp=3: must be a power of two from 1 to 64 GPUs."),
    ],
)
def test_repeated_keys_and_a_query_name_are_answered_in_words(client, outputs, path, search, shows, notice):
    status, body = route(client, outputs["router"], path, search)
    assert status == 200 and shows in json.dumps(body) and notice in strings(body)
    if path.startswith("/embed"):
        assert "Figure 7" not in strings(body)


def test_the_longest_address_the_page_writes_is_served(client):
    """A comparison of two carried models on two carried GPUs holds four keys of up to MAX_KEY_CHARS each; with
    every other control, its request line passes gunicorn's default limit (4,094 bytes), past which gunicorn
    answers with its own 414 page instead of ours."""
    from inferx.physics.model_config import MAX_KEY_CHARS

    model, gpu = "m" * MAX_KEY_CHARS, "g" * MAX_KEY_CHARS  # not keys of a real model: the page says so, with 200
    others = {name: p.default for name, p in PARAMS.items() if name not in ("model", "gpu") and p.default is not None}
    pinned = ",".join(f"{k}:{v}" for k, v in {"model": model, "gpu": gpu, **others}.items())
    query = urllib.parse.urlencode({"model": model, "gpu": gpu, **others, PINNED_KEY: pinned, "batch": 4096})
    assert len(query) > 6_000
    status, body = client.request("GET", "/?" + query)
    assert status == 200 and b"Request-URI Too Long" not in body
