"""Pin as A: the merge of A's figures, the `a=` parameter's round trip, and bad or hostile values of it."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest
from conftest import figure_ids, layout_text, post_redraw
from hypothesis import given, settings
from hypothesis import strategies as st

import app as inferx_app
from inferx.figures import article as F
from inferx.figures import compare, registry, style
from inferx.figures import studies as rate
from inferx.figures.explorer import BAND_LABEL, LABEL_SPAN, axis_shares
from inferx.figures.style import RHO_BAND_LABEL, level_lines
from inferx.figures.text import MAX_TRACES, spoken, with_summary
from inferx.scenario.controls import PARAMS, check_param
from inferx.scenario.evaluation import Scenario
from pages import embed, home
from pages._compare import COMPARE_CARD_ID as COMPARE_CARD
from pages._compare import pinned_scenario
from pages._url import MAX_NOTICES, PINNED_KEY, controls, encode_pinned, parse_pinned, parse_query

A = Scenario.from_params(preset="mi300x4", ctx=8192)
NOW = Scenario.from_params(ctx=2048, tp=4)


@pytest.fixture(scope="module")
def client():
    return inferx_app.server.test_client()


def line(name, x, y, **more):
    return {"type": "scatter", "mode": "lines", "name": name, "x": x, "y": y, **more}


# --- The merge ------------------------------------------------------------------------------------------------


def test_a_s_traces_follow_the_current_ones_dashed_muted_and_named():
    current = {"data": [line("Frontier", [1, 2], [3, 4]), line("Floor", [1, 2], [1, 1], line={"dash": "dot"})],
               "layout": {"xaxis": {}, "yaxis": {}}}  # fmt: skip
    pinned = {"data": [line("Frontier", [1, 2], [5, 6], line={"color": "#000"}), line("Floor", [1, 2], [2, 2],
              line={"dash": "dot"})], "layout": {"xaxis": {}, "yaxis": {}}}  # fmt: skip
    before = copy.deepcopy((current, pinned))
    merged = compare.merge(current, pinned, "4×MI300X")
    assert (current, pinned) == before  # A's figures are memoised and the current ones may be: neither changes
    assert merged["data"][:2] == current["data"]
    a_frontier, a_floor = merged["data"][2:]
    assert a_frontier["name"] == "A: Frontier" and a_floor["name"] == "A: Floor"
    assert a_frontier["line"] == {"color": "#000", "dash": "dash"}  # the hue kept, solid becomes dashed
    assert a_floor["line"]["dash"] != "dot"  # a dotted reference stays told apart from the current one
    assert {a_frontier["opacity"], a_floor["opacity"]} == {compare.PINNED_OPACITY} and compare.PINNED_OPACITY < 1
    assert a_frontier["legendgroup"] == a_floor["legendgroup"] == compare.PINNED_GROUP
    assert merged["layout"]["legend"]["title"]["text"] == "A = 4×MI300X (faded)"  # A's machine, said once
    assert merged["layout"]["meta"]["pinned"] == {"label": "4×MI300X", "first": 2}


def test_a_trace_a_change_did_not_move_keeps_its_place_undrawn():
    """Drawn faded over the current one, it only changed that curve's colour (Figure 5's presets)."""
    same = line("Reference", [1, 2], [3, 4])
    merged = compare.merge({"data": [same], "layout": {}}, {"data": [same, line("Own", [1], [9])], "layout": {}}, "x")
    assert merged["data"][1]["visible"] is False and "visible" not in merged["data"][2]
    assert merged["data"][1]["legendgroup"] == compare.PINNED_GROUP  # A's traces still start at meta.pinned.first
    assert merged["layout"]["legend"]["title"]["text"] == "A = x (faded)"
    # Figure 5 draws every preset: pinning another preset there gives A no curve of its own (its main curve is
    # the current figure's reference of that preset), which it says.
    fig5 = registry.build(Scenario.from_params(), ["fig5"], pinned=Scenario.from_params(preset="mi300x4"))["fig5"]
    assert [t["visible"] for t in fig5["data"] if t.get("legendgroup") == compare.PINNED_GROUP] == [False]
    assert fig5["layout"]["legend"]["title"]["text"] == "A = 4×MI300X (its curves coincide with these)"


def test_the_legends_name_a_by_what_sets_it_apart():
    """ "A = 8×H200 SXM" beside a current 8×H200 said nothing: the settings of A's own that differ are named."""
    now = Scenario.from_params(preset="h200x8", ctx=8192)
    assert compare.legend_label(Scenario.from_params(preset="h200x8", ctx=4096), now) == "8×H200 SXM · ctx 4,096 tokens"
    assert compare.legend_label(Scenario.from_params(preset="h200x8", ctx=8192), now) == "8×H200 SXM"
    assert compare.legend_label(A, NOW) == "4×MI300X · ctx 8,192 tokens"  # NOW's tp 4 is A's preset's own
    many = Scenario.from_params(preset="mi300x4", ctx=8192, isl=512, cv=1.5, util=60)
    expected = "4×MI300X · isl 512 tokens, ctx 8,192 tokens, cv 1.5, …"
    assert compare.legend_label(many, Scenario.from_params()) == expected
    # A that kept its preset's values where the current scenario moved them: named by those values.
    plain = Scenario.from_params(preset="h200x8")
    assert compare.legend_label(plain, now) == "8×H200 SXM · ctx 1,024 tokens"
    assert compare.legend_label(plain, Scenario.from_params(bw=40)) == "8×H200 SXM · bw 38.4 TB/s"
    assert compare.legend_label(plain, Scenario.from_params(preset="mi300x4", bw=30)) == "8×H200 SXM"  # its machine
    assert compare.legend_label(plain, Scenario.from_params(mode="calibrated", cv=1)) == "8×H200 SXM · mode article"
    fig = registry.build(now, ["fig4"], pinned=Scenario.from_params(preset="h200x8", ctx=4096))["fig4"]
    assert fig["layout"]["legend"]["title"]["text"] == "A = 8×H200 SXM · ctx 4,096 tokens (faded)"


def test_a_s_level_lines_come_as_named_faded_traces_where_they_differ():
    """Figure 4's ITL floor is a shape, not a trace: with A pinned at another bandwidth, A's floor was missing."""
    current, a = Scenario.from_params(preset="h200x8", bw=9.6), Scenario.from_params(preset="h200x8")
    fig4 = registry.build(current, ["fig4"], pinned=a)["fig4"]
    levels = [t for t in fig4["data"] if t["name"].startswith("A: ITL floor")]
    floor = 1e3 * 37e9 / 38.4e12  # A's P_active · b_w / BW, ms
    assert [t["name"] for t in levels] == [f"A: ITL floor = {floor:.3g} ms"]
    (level,) = levels
    assert level["y"] == [pytest.approx(floor)] * 2 and level["line"]["dash"] == "dot"
    assert level["legendgroup"] == compare.PINNED_GROUP and level["opacity"] == compare.PINNED_OPACITY
    xs = [x for t in fig4["data"] if t is not level for x in t["x"]]
    assert level["x"] == [min(xs), max(xs)]
    # A the same as now: its floor is the current one, drawn once.
    same = registry.build(a, ["fig4"], pinned=a)["fig4"]
    assert not [t for t in same["data"] if "floor" in t["name"]]
    # Figure 2 draws reference contexts, each with its ceiling: A brings its current context's curve alone.
    fig2 = registry.build(current, ["fig2"], pinned=a)["fig2"]
    assert [t["name"] for t in fig2["data"] if t["name"].startswith("A: ")] == ["A: S = 1,024, B<sub>max</sub> = 11k"]


def test_a_level_label_that_a_s_curves_cross_is_named_in_the_legend_instead():
    """Beside a far faster A, Figure 4 goes to log x and A's climb to its peak runs along the floor's label at
    the right end: the floor then becomes a current trace, named in the legend (shortly where a legend is
    crowded), as A's floor is. Beside an A whose curves keep away from the label, it stays on the plot."""
    now = Scenario.from_params(mode="calibrated")
    fig = registry.build(now, ["fig4"], pinned=Scenario.from_params(ctx=4096))["fig4"]
    floor = 1e3 * 37e9 / 38.4e12  # P_active · b_w / BW, ms
    assert fig["layout"]["xaxis"]["type"] == "log"
    assert not [n for n in fig["layout"]["annotations"] if "floor" in n["text"]]
    assert not [s for s in fig["layout"]["shapes"] if s["y0"] == pytest.approx(floor)]
    first = fig["layout"]["meta"]["pinned"]["first"]
    ours, theirs = fig["data"][:first], fig["data"][first:]
    assert theirs and all(t["name"].startswith("A: ") for t in theirs)
    (level,) = [t for t in ours if "floor" in t["name"]]
    assert level["name"] == f"ITL floor at peak bandwidth = {floor:.3g} ms"
    assert level["meta"]["short"] == f"ITL floor = {floor:.3g} ms"
    assert level["y"] == [pytest.approx(floor)] * 2 and level["line"]["dash"] == "dash"
    assert level["line"]["color"] == style.RIDGE and "legendgroup" not in level
    # Where A's climb is: past the middle of the log axis, from the floor to a tenth of the axis above it.
    (a_curve,) = [t for t in theirs if t["name"] == "A: ITL(B) vs T(B)"]
    x, y = np.log10(a_curve["x"]), np.asarray(a_curve["y"])
    middle = np.mean(np.log10(level["x"]))
    assert np.any((x > middle) & (y < floor + 0.1 * max(y.max(), *ours[0]["y"])))
    # A at a longer context in the same physics: slower, at the left, above the label: it stays where it was.
    calm = registry.build(now, ["fig4"], pinned=Scenario.from_params(mode="calibrated", ctx=4096))["fig4"]
    assert [n["text"] for n in calm["layout"]["annotations"]] == [level["name"]]
    assert not [t for t in calm["data"] if t["name"].startswith("ITL floor")]
    # A label on a backing keeps its place (Figure 13's plain ITL: A's curves pass behind it).
    fig13 = registry.build(now, ["fig13"], pinned=Scenario.from_params(ctx=4096))["fig13"]
    assert [n["text"].split(":")[0] for n in fig13["layout"]["annotations"]] == ["no speculation"]


def test_a_curve_meets_a_box_along_a_climb_between_two_samples():
    climb = [([0, 1, 2, 3], [0, 0, 0, 100])]
    assert F.curve_meets_box(climb, 0.5, 1, 40, 60)  # between its last two samples, none of them in the box
    assert not F.curve_meets_box(climb, 0, 0.4, 40, 60)
    assert not F.curve_meets_box(climb, 0.5, 1, 40, 60, span=[0, 30])  # on a wider axis the climb is left of it
    assert F.curve_meets_box([([1, 10, 100, 1000], [0, 0, 50, 50])], 0.5, 0.7, 40, 60, log_x=True)
    assert F.curve_meets_box([([1, 10, 100, 1000], [0, 0, 50, 50])], 0.5, 0.6, 40, 60)  # a flat segment across
    assert not F.curve_meets_box([([1, 10, 100, 1000], [0, 0, 50, 50])], 0.5, 0.6, 55, 60)
    assert F.curve_meets_box([([0, 10], [45, 45]), ([5], [0])], 0.4, 0.6, 40, 60)  # a level line from two points


def test_markers_open_labels_dropped_and_axis_ranges_widened():
    dots = {"type": "scatter", "mode": "markers+text", "name": "C", "x": [1], "y": [2], "text": ["C = 1"],
            "marker": {"symbol": "star"}}  # fmt: skip
    current = {"data": [line("c", [1], [1])], "layout": {"xaxis": {"range": [0, 2], "type": "log"}}}
    pinned = {"data": [dots], "layout": {"xaxis": {"range": [-1, 1.5], "type": "log"}}}
    merged = compare.merge(current, pinned, "x")
    a = merged["data"][1]
    assert a["mode"] == "markers" and "text" not in a and a["marker"]["symbol"] == "star-open"
    assert merged["layout"]["xaxis"]["range"] == [-1, 2]


def test_a_that_does_not_fit_is_named_and_current_settings_that_do_not_fit_stay_as_drawn():
    current = {"data": [line("c", [1], [1])], "layout": {}}
    merged = compare.merge(current, {"data": [], "layout": {}}, "1×A100")
    assert merged["data"] == current["data"]
    # Said in the legend's title, above the plot: a note at the plot's top ran over the curves and labels there.
    assert merged["layout"]["legend"]["title"]["text"] == "A = 1×A100: does not fit its machine, not drawn"
    assert "annotations" not in merged["layout"]
    assert "A = 1×A100: does not fit its machine, not drawn." in with_summary("F", merged)["layout"]["meta"]["summary"]
    # Current settings that do not fit keep their note, and say that A waits for them (A, not drawn, has no
    # place on axes that the current settings give no range).
    empty = {"data": [], "layout": {"annotations": [{"text": "does not fit"}]}}
    waiting = compare.merge(empty, current, "x")
    assert waiting["data"] == [] and len(waiting["layout"]["annotations"]) == 1
    said = waiting["layout"]["annotations"][0]["text"]
    assert said.startswith("does not fit<br>") and "A (x) is drawn again once the current settings fit" in said
    assert empty["layout"]["annotations"][0] == {"text": "does not fit"}  # the input is left as it was
    assert compare.merge(empty, {"data": [], "layout": {}}, "x") == empty
    # The text alternative gives the reason and A's return.
    built = registry.build(Scenario.from_params(wdtype="fp16"), ["fig4"], 8, pinned=A)["fig4"]["layout"]["meta"]
    assert "needs 1,342 GB of weights" in built["summary"] and "is drawn again once the current" in built["summary"]


def test_build_with_pinned_is_the_merge_of_both_builds_and_memoises_a():
    names = list(registry.DASHBOARD)
    merged = registry.build(NOW, names, 64, pinned=A)
    mine, theirs = registry.build(NOW, names, 64), registry.build(A, names, 64)
    stated = []
    for name in names:
        summary = merged[name]["layout"]["meta"].pop("summary")  # of the merged figure: A's curves named too
        expected = compare.merge(mine[name], theirs[name], "4×MI300X · ctx 8,192 tokens")
        expected["layout"]["meta"].pop("summary")
        assert merged[name] == expected, name
        assert summary.startswith(mine[name]["layout"]["meta"]["summary"].split(". ")[0])
        ours = len(mine[name]["data"])
        named = [t for t in merged[name]["data"][ours:] if t.get("name") and t.get("visible", True) is not False]
        if named and ours < MAX_TRACES:  # within the traces a summary states one by one
            assert f"{spoken(named[0]['name'])}: " in summary, name
            stated.append(name)
        # A's traces, and a trace for each of A's level lines (a floor, a ceiling) the current figure lacks, and
        # for each current one whose label A's curves cross (it leaves the plot for the legend).
        # A's main curve alone: in a figure of reference curves, without its level lines.
        levels = {(s["y0"], s["line"].get("color")) for _, s in level_lines(theirs[name]["layout"])}
        levels -= {(s["y0"], s["line"].get("color")) for _, s in level_lines(mine[name]["layout"])}
        if any(compare.CURRENT in t["name"] for t in theirs[name]["data"]):
            levels = set()
        moved = len(level_lines(mine[name]["layout"])) - len(level_lines(merged[name]["layout"]))
        extra = len(mine[name]["data"]) + len(compare.main_of_a(theirs[name]["data"])) + len(levels) + moved
        assert len(merged[name]["data"]) == extra, name
    assert {"fig1", "fig4", "fig6"} <= set(stated), stated
    hits = registry._pinned_figures.cache_info().hits
    registry.build(NOW.with_params(ctx=4096), names, 64, pinned=A)  # the controls move, A stays
    assert registry._pinned_figures.cache_info().hits == hits + 1
    # The explorer's readouts find A's frontier and A's price and power where meta.pinned says.
    fig6 = merged["fig6"]
    pin = fig6["layout"]["meta"]["pinned"]
    assert fig6["data"][pin["first"]]["customdata"] == theirs["fig6"]["data"][0]["customdata"]
    assert pin["usdPerHour"] == theirs["fig6"]["layout"]["meta"]["usdPerHour"] != fig6["layout"]["meta"]["usdPerHour"]
    # The explorer has no legend of its own; with A it gets one, so A's faded curve has a name.
    assert mine["fig6"]["layout"]["showlegend"] is False and fig6["layout"].get("showlegend", True) is True


def test_the_targets_and_price_of_a_are_its_own():
    # A Scenario compares by its SI fields only: two A's that differ in price alone must not share figures.
    cheap, dear = Scenario.from_params(price=1), Scenario.from_params(price=9)
    one = registry.build(NOW, ["fig11"], pinned=cheap)["fig11"]["data"][-2]["name"]
    two = registry.build(NOW, ["fig11"], pinned=dear)["fig11"]["data"][-2]["name"]
    assert "$1.00/GPU-h" in one and "$9.00/GPU-h" in two


# --- The address's a= -----------------------------------------------------------------------------------------

SCENARIOS = [
    {"preset": "mi300x4", "ctx": 8192},
    {"gpu": "b300", "gpus": 4, "model": "llama-3.3-70b", "wdtype": "fp4"},
    {"preset": "b200x8", "bw": 12.5, "cv": 0.35, "mode": "calibrated", "acceptance": 70.0, "price": 2.25},
    {},
]


@pytest.mark.parametrize("given_params", SCENARIOS)
def test_pin_share_reopen_gives_back_both_scenarios(given_params):
    """Pin A, share the address (current params plus a=), open it: the page has the same A and current state."""
    a = Scenario.from_params(**given_params)
    compact = compare.compact_params(a.params)
    address = {"ctx": "4096", "preset": "b200x8", PINNED_KEY: encode_pinned(compact)}
    pinned, notices = parse_pinned(address[PINNED_KEY])
    assert notices == [] and pinned == compact
    assert pinned_scenario(pinned).params == a.params
    page = home.layout(**address)
    store = next(c for c in page._traverse() if getattr(c, "id", None) == "pinned")
    assert store.data == compact
    values, _, _ = parse_query({k: v for k, v in address.items() if k != PINNED_KEY})
    expected = registry.build(Scenario.from_params(**values), ["fig4"], pinned=a)["fig4"]
    graph = next(c for c in page._traverse() if getattr(c, "id", None) == {"role": "figure", "fig": "fig4"})
    assert graph.figure == expected


def test_the_a_value_is_compact_and_readable():
    compact = compare.compact_params(Scenario.from_params(preset="mi300x4", ctx=8192, cv=0.5).params)
    assert encode_pinned(compact) == "preset:mi300x4,ctx:8192,cv:0.5"


BAD = [
    ("preset:tpu", ["Ignored A's preset=tpu: must be one of h200x8, mi300x4, b200x8, custom.",
                    "Nothing is pinned: a= held no valid control."]),
    ("ctx:8192,bw:999", ["Ignored A's bw=999: must be a number from 0.6 to 600 TB/s."]),
    ("ctx", ["Ignored 'ctx' in a=: each piece must be name:value with a control's name.",
             "Nothing is pinned: a= held no valid control."]),
    ("batch:64,ctx:4096", ["Ignored 'batch:64' in a=: each piece must be name:value with a control's name."]),
    # A control character is escaped once: '\x00', not "'\\x00'".
    ("\x00,ctx:4096", ["Ignored '\\x00' in a=: each piece must be name:value with a control's name."]),
    ("ctx:2048,ctx:4096", ["a= gave ctx more than once; used the last valid one."]),
    ("ctx:2048,ctx:0", ["Ignored A's ctx=0: must be a whole number from 1 to 131,072 tokens."]),
    ("ctx:nan", ["Ignored A's ctx=nan: must be a whole number from 1 to 131,072 tokens.",
                 "Nothing is pinned: a= held no valid control."]),
]  # fmt: skip


@pytest.mark.parametrize(("raw", "said"), BAD)
def test_a_bad_a_value_is_a_notice(raw, said):
    pinned, notices = parse_pinned(raw)
    assert notices == said
    for name, value in (pinned or {}).items():
        assert check_param(name, value) == value


def test_a_bad_repeat_keeps_the_valid_value_before_it():
    assert parse_pinned("ctx:2048,ctx:0")[0] == {"ctx": 2048}
    assert parse_pinned("ctx:2048,ctx:4096")[0] == {"ctx": 4096}


def test_a_bad_a_value_shows_its_notice_on_the_page_and_the_embed():
    for layout in (home.layout(a="preset:tpu"), embed.layout(name="fig4", a="preset:tpu")):
        text = layout_text(layout)
        assert "Ignored A's preset=tpu" in text and '"A: ' not in text


def test_an_embed_draws_the_comparison():
    page = embed.layout(name="fig5", a="preset:mi300x4")
    graph = next(c for c in page._traverse() if getattr(c, "id", None) == {"role": "figure", "fig": "fig5"})
    names = [t["name"] for t in graph.figure["data"]]
    # A's own curve is the current one of A's machine, named after it (the preset MI300X, not the page's H200),
    # without "(current)": the current settings are the page's
    assert "A: 4×MI300X" in names and "8×H200 (current)" in names, names
    assert not any(n.startswith("A: ") and "(current)" in n for n in names), names


a_values = st.one_of(
    st.text(max_size=60),
    st.lists(st.tuples(st.sampled_from([*PARAMS, "batch", "", "x"]), st.text(max_size=12)), max_size=8).map(
        lambda pairs: ",".join(f"{k}:{v}" for k, v in pairs)
    ),
    st.lists(st.text(max_size=10), min_size=0, max_size=3),  # a= given several times
    st.just("ctx:1," * 2000),
)


@settings(max_examples=300, deadline=None)
@given(raw=a_values)
def test_any_a_value_pins_only_checked_values_or_says_why(raw):
    pinned, notices = parse_pinned(raw)
    assert len(notices) <= MAX_NOTICES and all(isinstance(n, str) and len(n) < 400 for n in notices)
    if pinned is None:
        return
    for name, value in pinned.items():
        assert check_param(name, value) == value
    assert pinned_scenario(pinned) is not None


# --- The redraw request's pinned field ------------------------------------------------------------------------


def request_for(values: dict, pinned) -> dict:
    """The browser's redraw request: every control's value in order, log2 sliders as their position."""
    state = [math.log2(values[n]) if PARAMS[n].log2 else values[n] for n in controls()]
    return {"values": state, "batch": None, "batchOnly": False, "pinned": pinned}


def test_a_redraw_with_a_pinned_a_draws_it_and_a_bad_one_is_a_notice(client):
    values, _, _ = parse_query({})
    compact = compare.compact_params(A.params)
    body = post_redraw(client, request_for(values, compact), figure_ids(["fig4"])).get_json()
    figs = body["response"]["figure-updates"]["data"]
    assert figs["fig4"] == registry.build(Scenario.from_params(**values), ["fig4"], pinned=A)["fig4"]
    for bad, said in [({"ctx": "huge"}, "ctx=huge"), ([1, 2], "pinned="), ({}, "pinned="), ({"zz": 1}, "zz")]:
        answer = post_redraw(client, request_for(values, bad), figure_ids(["fig4"]))
        assert answer.status_code == 200
        notice = answer.get_json()["response"]["runtime-notice"]
        assert notice["is_open"] is True and said in notice["children"], (bad, notice)


def _log_span(spec: dict, fig: dict, key: str) -> tuple[float, float]:
    """The values a log axis must label: its traces' positive values and any fixed range."""
    values = [v for t in fig["data"] for v in (t.get(key) or []) if v is not None and v > 0]
    if isinstance(spec.get("range"), list):
        values += [10.0**r for r in spec["range"]]
    return min(values), max(values)


def test_ticks_are_redone_for_the_merged_span_with_a_bounded_minor_grid():
    # A's batch axis reaches 10,940 (ctx 1,024) while the current one ends at 85 (ctx 128K): the current 1-2-5
    # ticks stopped at 100, and plotly spaced an array axis's minor lines by its 0.5 tick gap, ~22,000 of them.
    figs = registry.build(Scenario.from_params(ctx=131072), batch=64, pinned=Scenario.from_params(ctx=1024))
    checked = 0
    for name, fig in figs.items():
        for axis, key in (("xaxis", "x"), ("yaxis", "y")):
            spec = fig["layout"].get(axis, {})
            if spec.get("type") != "log" or "minor" not in spec:
                continue
            low, high = _log_span(spec, fig, key)
            if "tickvals" in spec:
                assert spec["minor"].get("dtick") == "D1", (name, axis)
                ticks = spec["tickvals"]
                assert min(ticks) <= low * 2 and max(ticks) >= high / 2, (name, axis, ticks, low, high)
            else:
                assert spec["dtick"] == 1 and high >= 100 * low, (name, axis)
            checked += 1
    assert checked >= 10
    # The memoised current figures keep their own ticks.
    alone = registry.build(Scenario.from_params(ctx=131072), ["fig3"], batch=64)["fig3"]
    assert alone["layout"]["xaxis"]["range"][1] < figs["fig3"]["layout"]["xaxis"]["range"][1]


@pytest.mark.usefixtures("linear_x")
def test_a_label_left_near_the_left_edge_by_a_s_wider_axis_turns_to_stay_on_the_plot():
    # A's frontier runs nine times further: the axis stays linear (at ten, it goes to log), widened.
    scn, a = Scenario.from_params(ctx=32768), Scenario.from_params(ctx=1024)
    alone = registry.build(scn, ["fig6"], batch=64)["fig6"]
    merged = registry.build(scn, ["fig6"], batch=64, pinned=a)["fig6"]
    label = next(n for n in alone["layout"]["annotations"] if n["text"] == RHO_BAND_LABEL)
    assert label["xanchor"] == "right"  # it ends at the band, which sits near the right of its own axis
    span = merged["layout"]["xaxis"]["range"]
    assert label["x"] < 0.15 * span[1]  # A's frontier reaches much further
    moved = next(n for n in merged["layout"]["annotations"] if n["text"] == RHO_BAND_LABEL)
    assert moved["xanchor"] == "left" and moved["xshift"] > 0 and moved["x"] == label["x"]
    assert next(n for n in alone["layout"]["annotations"] if n["text"] == RHO_BAND_LABEL)["xanchor"] == "right"


def test_as_labels_give_each_setting_in_its_unit_and_leave_out_what_the_machine_gives():
    """5×B300 sets bandwidth, compute and HBM: the label's machine says them; a bandwidth of one's own is
    named, in TB/s, and every other number carries its unit."""
    chosen = Scenario.from_params(preset="h200x8", gpu="b300", gpus=5, ic="scale-up", util=80, power=0.8)
    # TP 4 and the B300's own link are what the machine takes (one machine, one answer): not named
    assert compare.describe(chosen) == "5×B300 · util 80 %, power 0.8 × TDP"
    slower = Scenario.from_params(preset="h200x8", gpu="b300", gpus=5, bw=30, ctx=16384)
    assert compare.describe(slower) == "5×B300 · bw 30 TB/s, ctx 16,384 tokens"
    # A model by its name, not its catalog key; one GPU of TP in the singular.
    other = Scenario.from_params(model="llama-3.3-70b", tp=1)
    assert compare.describe(other) == "8×H200 SXM · tp 1 GPU, model Llama-3.3-70B"


def test_an_article_mode_a_is_named_by_its_mode_not_by_controls_it_does_not_read():
    # The address of a page that had been in calibrated mode still carries the stack and MTP: the article's
    # model ignores them, so A's labels must not read "framework trt" beside a current vLLM curve.
    a = Scenario.from_params(preset="h200x8", framework="trt", mtp="on")
    current = Scenario.from_params(mode="calibrated", framework="vllm", mtp="on")
    assert compare.describe(a) == "8×H200 SXM"
    assert compare.legend_label(a, current) == "8×H200 SXM · mode article"
    assert compare.legend_label(current, a) == "8×H200 SXM · mode calibrated, framework vllm"
    # Nor is a calibrated A named by the CV, which only the article's model reads.
    assert compare.describe(Scenario.from_params(mode="calibrated", cv=1)) == "8×H200 SXM · mode calibrated"
    assert compare.describe(Scenario.from_params(cv=1)) == "8×H200 SXM · cv 1"


def test_the_compute_bound_label_turns_right_when_a_leaves_its_mark_near_the_y_axis():
    """Calibrated H200 against an article-physics A at a 48k context: A's frontier runs five times further, so
    the current bend sits in the first third of the widened linear axis, and its label, up and to the left, ran
    off the plot ("mpute-bound from B = 297" in a 600 px embed, beside a 4×MI300X A before such an axis went
    to log)."""
    scn, a = Scenario.from_params(mode="calibrated"), Scenario.from_params(ctx=49152)
    alone = registry.build(scn, ["fig6"])["fig6"]
    merged = registry.build(scn, ["fig6"], pinned=a)["fig6"]
    assert merged["layout"]["xaxis"]["type"] == "linear"
    bend = next(n for n in alone["layout"]["annotations"] if "compute-bound" in n["text"])
    assert bend["ax"] < 0 and bend["ay"] < 0  # up and to the left: on its own axis there is room
    x_share, y_share = axis_shares(merged["layout"], bend["x"], bend["y"])
    assert x_share < LABEL_SPAN and y_share > 0.6  # near the y axis and the top: up would leave a short plot
    turned = next(n for n in merged["layout"]["annotations"] if "compute-bound" in n["text"])
    assert turned["xanchor"] == "left" and turned["ax"] > 0 and turned["x"] == bend["x"]
    assert turned["ay"] > 0 and turned["yanchor"] == "top"  # down and to the right, under the rising frontier
    # A's own labels, along the axis it sets, keep their places.
    theirs = registry.build(a, ["fig6"])["fig6"]
    mine = registry.build(a, ["fig6"], pinned=scn)["fig6"]
    assert theirs["layout"]["annotations"] and theirs["layout"]["annotations"] == mine["layout"]["annotations"]


@pytest.mark.parametrize("pinned", [{"ctx": 49152}, {"preset": "mi300x4"}], ids=["linear", "log"])
def test_the_unstable_label_moves_off_a_curves_and_the_compute_bound_label(pinned):
    """Calibrated H200 against an article-physics A whose frontier runs five times further (on a linear axis) or
    fourteen (4×MI300X, on log): "ρ > 0.85: unstable", put at the foot for the current curve alone, lay on
    A's curve. Placed again, no point of either curve, nor the compute-bound label's words, lies under it."""
    scn, a = Scenario.from_params(mode="calibrated"), Scenario.from_params(**pinned)
    alone = registry.build(scn, ["fig6"])["fig6"]
    merged = registry.build(scn, ["fig6"], pinned=a)["fig6"]
    layout = merged["layout"]
    (x0, x1), (y0, y1) = layout["xaxis"]["range"], layout["yaxis"]["range"]
    label = next(n for n in layout["annotations"] if n["text"].startswith("ρ > 0.85"))
    assert layout["xaxis"]["type"] == ("log" if "preset" in pinned else "linear") and label["yanchor"] == "bottom"
    width = LABEL_SPAN * (x1 - x0)  # the width the words take on a phone
    start, end = (label["x"], label["x"] + width) if label["xanchor"] == "left" else (label["x"] - width, label["x"])
    if layout["xaxis"]["type"] == "log":
        start, end = 10**start, 10**end
    under = []
    for trace in merged["data"]:
        x, y = np.asarray(trace["x"], dtype=float), np.asarray(trace["y"], dtype=float)
        share = (np.log10(y) - y0) / (y1 - y0)
        under += list(share[(x >= start) & (x <= end) & (share >= label["y"]) & (share <= label["y"] + 0.08)])
    assert under == []
    bend = next(n for n in layout["annotations"] if "compute-bound" in n["text"])
    mark = (bend["y"] - y0) / (y1 - y0)
    # Its words go down from the mark on the linear axis (it lies near the y axis there), up on the log one.
    words = (mark - 0.45, mark) if bend["ay"] > 0 else (mark, mark + 0.65)
    assert (bend["ay"] > 0) == (layout["xaxis"]["type"] == "linear") and not words[0] < label["y"] < words[1]
    # Where the curve was the only one, the label kept its place; so it does where nothing else is in the way.
    before = next(n for n in alone["layout"]["annotations"] if n["text"].startswith("ρ > 0.85"))
    assert before["y"] == 0.02 and label["y"] > 0.02
    long = Scenario.from_params(ctx=32768)
    far = Scenario.from_params(preset="mi300x4")
    figs = (registry.build(long, ["fig6"])["fig6"], registry.build(long, ["fig6"], pinned=far)["fig6"])
    kept = [next(n["y"] for n in f["layout"]["annotations"] if n["text"].startswith("ρ > 0.85")) for f in figs]
    assert kept[0] == kept[1]


def test_a_long_label_near_the_left_of_a_widened_axis_starts_at_its_mark():
    """A much faster A widens Figure 12's rate axis: the current peak line a third along it, "peak 0.402 req/s at
    C = 66" ended at the line and ran off the plot's left edge on a phone. It starts at the line instead."""
    scn = Scenario.from_params(model="gemma-3-27b", gpu="l40s", gpus=2, tp=2, mode="calibrated", ctx=16384, isl=4096)
    a = Scenario.from_params(preset="mi300x4")
    alone = registry.build(scn, ["fig12"])["fig12"]
    merged = registry.build(scn, ["fig12"], pinned=a)["fig12"]

    def peak(fig):
        return next(n for n in fig["layout"]["annotations"] if n["text"].startswith("peak"))

    assert peak(alone)["xanchor"] == "right"
    x0, x1 = merged["layout"]["xaxis"]["range"]
    label = peak(merged)
    width = compare.PHONE_CHAR * len(label["text"]) * (x1 - x0)
    assert label["x"] - x0 < width  # ending at the line, it would start left of the plot
    assert label["xanchor"] == "left" and label["xshift"] > 0 and label["x"] + width <= x1


def _point_labels(fig: dict) -> dict:
    return next(t for t in fig["data"] if "text" in t.get("mode", ""))


def test_figure_12s_labels_go_below_and_right_of_their_points_where_a_slower_as_curve_runs_above():
    """4×MI300X as A: its E2E curve runs just over 8×H200's, through the labels up and to the left of the
    points, and they go below and to the right. A faster A leaves every label where it was, and the memoised
    current figure is not changed."""
    scn, slower, faster = (Scenario.from_params(preset=p) for p in ("h200x8", "mi300x4", "b200x8"))
    alone = registry.build(scn, ["fig12"])["fig12"]
    merged = _point_labels(registry.build(scn, ["fig12"], pinned=slower)["fig12"])
    assert _point_labels(alone)["textposition"] == "top left"
    said = [i for i, text in enumerate(merged["text"]) if text]
    assert len(said) >= 6 and [merged["textposition"][i] for i in said] == ["bottom right"] * len(said)
    beside_faster = _point_labels(registry.build(scn, ["fig12"], pinned=faster)["fig12"])
    assert beside_faster["textposition"] == "top left"
    assert _point_labels(registry.build(scn, ["fig12"])["fig12"])["textposition"] == "top left"


def test_figure_12s_labels_thin_out_and_its_peak_label_moves_off_a_far_faster_as_curve():
    """Qwen3-235B on 8×MI355X as A beside DeepSeek-R1 FP4 on 8×B300 reaches 300 req/s against 9: the rate axis
    widens thirty-fold, and labels planned for the current axis alone printed "64128256" run together. A's E2E
    curve also ran through the peak label, midway between the current TTFT and E2E curves."""
    scn = Scenario.from_params(gpu="b300", gpus=8, wdtype="fp4", mode="calibrated", mtp="on", osl=4096)
    a = Scenario.from_params(model="qwen3-235b-a22b", gpu="mi355x")
    alone = registry.build(scn, ["fig12"])["fig12"]
    merged = registry.build(scn, ["fig12"], pinned=a)["fig12"]
    before, after = _point_labels(alone)["text"], _point_labels(merged)["text"]
    assert set(after) - {""} < set(before) - {""} and after[0] == before[0]  # fewer, from the left
    x0, x1 = merged["layout"]["xaxis"]["range"]
    shown = [x for x, t in zip(_point_labels(merged)["x"], after, strict=True) if t]
    apart = np.diff(np.log10(shown)) / (x1 - x0)
    assert min(apart) >= rate.LABEL_BOX[0]  # on a rising curve: room across for each label

    def peak(fig):
        return next(n for n in fig["layout"]["annotations"] if n.get("name") == rate.PEAK_LABEL)

    a_e2e = next(t for t in merged["data"] if t["name"].startswith("A: E2E"))
    a_level = np.log10(np.median(a_e2e["y"]))  # A's E2E is near flat up to its peak
    assert peak(alone)["y"] - 0.3 < a_level < peak(alone)["y"] + 0.3  # where the label was
    y_span = np.log10([min(t["y"]) for t in merged["data"]]).min(), np.log10([max(t["y"]) for t in merged["data"]])
    top = peak(merged)["y"] + rate.LABEL_ROOM * (max(y_span[1]) - y_span[0])  # a label's height in a 360 px frame
    assert peak(merged)["yanchor"] == "bottom" and top < a_level  # wholly below it now


def test_figure_12s_peak_label_goes_to_the_legend_where_a_s_climb_leaves_it_no_clear_height():
    """Kimi-K2 on 8×MI355X beside 8×MI300X: A's TTFT climbs to its own peak (200 req/s) across the whole width
    the peak label takes left of the current peak line (292 req/s), through every height up to the E2E
    curves. The words go to the legend, with a swatch of the peak line, which stays on the plot."""
    scn = Scenario.from_params(model="kimi-k2", gpu="mi355x", ic="nvlink")
    a = Scenario.from_params(model="kimi-k2", gpu="mi300x")
    alone = registry.build(scn, ["fig12"])["fig12"]
    merged = registry.build(scn, ["fig12"], pinned=a)["fig12"]
    (label,) = [n for n in alone["layout"]["annotations"] if n.get("name") == rate.PEAK_LABEL]
    assert label["text"] == "peak 292 req/s at C = 25,318"
    assert not [n for n in merged["layout"]["annotations"] if n.get("name") == rate.PEAK_LABEL]
    assert merged["layout"]["shapes"] == alone["layout"]["shapes"]  # the line itself stays
    first = merged["layout"]["meta"]["pinned"]["first"]
    entry = merged["data"][first - 1]
    assert entry["name"] == label["text"] and entry["x"] == entry["y"] == [None]
    assert entry["line"] == alone["layout"]["shapes"][0]["line"] and entry["meta"] == {"statement": True}
    assert all(t["name"].startswith("A: ") for t in merged["data"][first:])
    assert f"{label['text']}." in merged["layout"]["meta"]["summary"]
    # A's climb to its peak, within the label's reach on the log rate axis: left of the current peak, and
    # across the gap between the current TTFT and E2E where the label sat.
    a_ttft = next(t for t in merged["data"] if t["name"] == "A: TTFT")
    peak_x = alone["layout"]["shapes"][0]["x0"]
    climb = [y for x, y in zip(a_ttft["x"], a_ttft["y"], strict=True) if peak_x / 3 < x < peak_x]
    assert min(climb) < 10 ** (label["y"] - 0.5) and max(climb) > 10 ** label["y"]


@pytest.mark.usefixtures("linear_x")
def test_beside_a_far_larger_a_the_throughput_axes_open_on_log_x_and_the_memo_keeps_them_linear():
    """Two L40S beside 8×H200 pinned as A: A's curves run to 240k tok/s, the current ones end near 4k, a stroke
    against the y axis on the linear scale. Figure 4 opens on its toggle's log x; alone it stays linear, and
    the merge leaves the memoised figure (its axis and menu) as it was."""
    small, large = Scenario.from_params(model="gemma-3-27b", gpu="l40s", gpus=2, tp=2), Scenario.from_params()
    alone = registry.build(small, ["fig4"])["fig4"]
    kept = copy.deepcopy(alone)
    assert alone["layout"]["xaxis"]["type"] == "linear" and alone["layout"]["updatemenus"][0]["active"] == 0
    merged = registry.build(small, ["fig4"], pinned=large)["fig4"]["layout"]
    assert merged["xaxis"]["type"] == "log" and merged["updatemenus"][0]["active"] == 1
    assert merged["xaxis"]["dtick"] == 1 and "rangemode" not in merged["xaxis"]  # the log button's settings
    assert registry.build(small, ["fig4"])["fig4"] == kept
    beside_small = registry.build(large, ["fig4"], pinned=small)["fig4"]["layout"]
    assert beside_small["xaxis"]["type"] == "linear"
    # Figures 7, 9 and 10 too. The explorer's stays fixed (the
    # animation keeps it still), in decades around both frontiers, its labels placed on it at log10 of their x.
    explorer_alone = registry.build(small, ["fig6"])["fig6"]
    merged = registry.build(small, ["fig6", "fig7", "fig9", "fig10"], pinned=large)
    assert {k: f["layout"]["xaxis"].get("type") for k, f in merged.items()} == {
        "fig6": "log", "fig7": "log", "fig9": "log", "fig10": "log"
    }  # fmt: skip
    assert all(f["layout"]["xaxis"]["dtick"] == 1 for f in merged.values())
    explorer = merged["fig6"]["layout"]
    low, high = explorer["xaxis"]["range"]
    xs = [x for t in merged["fig6"]["data"] for x in t["x"]]
    assert explorer["xaxis"]["autorange"] is False and low < np.log10(min(xs)) < np.log10(max(xs)) < high
    assert high - low < 1.1 * np.log10(max(xs) / min(xs))  # a little room at either end, no more
    band = next(n for n in explorer["annotations"] if n.get("name") == BAND_LABEL)
    (alone_band,) = [n for n in explorer_alone["layout"]["annotations"] if n.get("name") == BAND_LABEL]
    assert band["x"] == pytest.approx(np.log10(alone_band["x"]))
    assert explorer_alone["layout"]["xaxis"]["type"] == "linear"  # the memo keeps its own


def test_a_draws_its_main_curve_only():
    """Figure 10 had ten legend entries with A pinned: A brought its runs by binding limit and its band. A now
    brings its main curve alone: the current settings' curve where a figure draws references, pieces of one curve
    joined, no backdrop and nothing a builder marks as a reference."""
    figs = registry.build(NOW, ["fig2", "fig7", "fig8", "fig9", "fig10", "fig13"], pinned=A)
    theirs = registry.build(A, ["fig2", "fig7", "fig8", "fig9", "fig10", "fig13"])

    def of_a(fig):
        return [t for t in fig["data"][fig["layout"]["meta"]["pinned"]["first"] :]]

    for name in ("fig2", "fig7", "fig8", "fig9"):
        (current,) = [t for t in theirs[name]["data"] if compare.CURRENT in t["name"]]
        (a,) = of_a(figs[name])
        assert a["name"] == "A: " + current["name"].replace(compare.CURRENT, "") and a["x"] == current["x"], name
    joined, best = of_a(figs["fig10"])
    runs = [t for t in theirs["fig10"]["data"] if (t.get("meta") or {}).get("part") == "frontier"]
    assert len(runs) >= 2 and joined["name"] == "A: frontier" and joined["line"]["dash"] == "dash"
    points = [(x, y) for t in runs for x, y in zip(t["x"], t["y"], strict=True)]
    assert sorted(set(points)) == sorted(zip(joined["x"], joined["y"], strict=True))  # every run, joints once
    assert best["name"].startswith("A: best under the SLO")
    mine = registry.build(NOW, ["fig10"])["fig10"]
    legend = [t for t in figs["fig10"]["data"] if t.get("showlegend", True) and t.get("visible", True) is not False]
    assert len(legend) == len([t for t in mine["data"] if t.get("showlegend", True)]) + 2  # A's two entries
    assert [t["name"] for t in of_a(figs["fig13"])][0] == f"A: α = {rate.ALPHA:g}"
    assert not [t for t in of_a(figs["fig13"]) if "article" in t["name"]]


@pytest.mark.parametrize("mode", ["article", "calibrated"])
def test_the_table_of_a_beside_b_answers_for_another_model_with_the_errors_it_has(client, mode):
    """A pinned Llama beside a Llama on H200 filled the table; `inferx compare` with the same pair stopped on a
    KeyError. The redraw answers both, each error named by the metric that measured it."""
    values, _, _ = parse_query({"model": "llama-3.3-70b", "gpu": "h200", "mode": mode})
    pinned = Scenario.from_params(model="llama-3.3-70b", mode=mode)
    body = post_redraw(client, request_for(values, compare.compact_params(pinned.params)), figure_ids(["fig6"]))
    answer = body.get_json()
    assert answer["response"]["runtime-notice"].get("is_open") is not True, answer["response"]["runtime-notice"]
    side = answer["sideUpdate"]  # set_props: the table rides in the redraw's answer
    table = layout_text(side["compare-table"]["children"])
    assert "A beside B" in table and "tok/s per GPU" in table
    assert side[COMPARE_CARD]["hidden"] is False
    from inferx.analysis.comparison import comparison, error_said

    record = comparison(pinned, Scenario.from_params(**values))
    for side in ("a", "b"):
        error = record[side]["expected"]["error"]
        assert f"{side.upper()} expected: {error['kind']}" in table
        assert record[side]["expected"]["itl_ms"] and f"{record[side]['ideal']['itl_ms']:,.1f}" in table
    # Throughput's error, beside TPOT and TTFT where NIM's closed loop measured them.
    assert error_said(record["a"]["expected"]["error"]).count("output tok/s per GPU off by") == 1
