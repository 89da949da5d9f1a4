"""The route a dragged slider asks its redraws from (pages/_drag.py): the figures the redraw callback answers for
the same control state, byte for byte as the browser reads them, and a bad request refused with its reason."""

from __future__ import annotations

import pytest
from conftest import figure_ids, page_values, post_redraw

import app as inferx_app
from inferx.figures import compare
from inferx.scenario.evaluation import Scenario
from pages._controls import DRAG_ROUTE
from pages._url import controls

ROUTE = f"/{DRAG_ROUTE}"


@pytest.fixture(scope="module")
def client():
    return inferx_app.server.test_client()


@pytest.mark.parametrize(
    ("params", "batch", "figures", "pinned"),
    [
        ({"bw": 61.3}, None, ["fig1"], None),
        ({"preset": "b200x8", "ctx": 8192}, 5.5, ["fig1", "fig2", "fig6"], None),
        ({"compute": 3.1, "util": 70}, 3.0, ["fig4", "fig6", "fig11"], {"preset": "mi300x4"}),
    ],
)
def test_a_drag_step_draws_what_the_redraw_callback_draws(client, params, batch, figures, pinned):
    values = page_values(**params)
    request = {"values": values, "batch": batch, "figures": figures}
    if pinned:
        request["pinned"] = compare.compact_params(Scenario.from_params(**pinned).params)
    sent = client.post(ROUTE, json=request)
    assert sent.status_code == 200 and sent.mimetype == "application/json", sent.get_data(as_text=True)[:300]
    dash = post_redraw(client, {**request, "batchOnly": False}, figure_ids(figures)).get_json()
    expected = dash["response"]["figure-updates"]["data"]
    assert sorted(sent.get_json()) == sorted(figures)
    assert sent.get_json() == expected


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("not json", "the request must be a JSON object"),
        pytest.param('{"a":' * 20_000 + "1" + "}" * 20_000, "the request must be a JSON object", id="past-json-depth"),
        ({"values": [], "batch": None}, "figures must name the graphs to draw"),
        ({"values": [None], "batch": None, "figures": "fig1"}, "figures=fig1: must be a list of at most"),
        ({"values": [None], "batch": None, "figures": ["fig99"]}, "figures=['fig99']: must be a list"),
        ({"values": "abc", "batch": None, "figures": ["fig1"]}, "values=abc: must be a list of "),
        ({"batch": None, "figures": ["fig1"]}, "request="),
        ({"values": [None], "batch": 99, "figures": ["fig1"]}, "batch=99: slider position must be"),
        ({"values": page_values(), "batch": None, "figures": ["fig1"], "pinned": {"preset": "tpu"}}, "preset=tpu"),
    ],
)  # fmt: skip
def test_a_bad_request_is_refused_with_its_reason(client, body, reason):
    sent = (
        client.post(ROUTE, json=body)
        if isinstance(body, dict)
        else client.post(ROUTE, data=body, content_type="application/json")
    )
    assert sent.status_code == 400 and sent.mimetype == "text/plain"
    assert sent.get_data(as_text=True).startswith(f"Could not redraw: {reason}"), sent.get_data(as_text=True)


def test_a_bad_slider_value_is_refused_in_the_redraws_words(client):
    values = page_values()
    values[list(controls()).index("bw")] = -3  # log₂ of 0.125 TB/s, below the slider's 0.6
    sent = client.post(ROUTE, json={"values": values, "batch": None, "figures": ["fig1"]})
    said = post_redraw(client, {"values": values, "batch": None, "batchOnly": False}, figure_ids(["fig1"])).get_json()
    assert sent.status_code == 400
    assert sent.get_data(as_text=True) == said["response"]["runtime-notice"]["children"]
