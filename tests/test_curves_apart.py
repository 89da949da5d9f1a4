"""Every legend entry can be told apart on its figure: no curve named in a legend hides under another.

A curve hides when nearly all of its length runs within a few pixels of a curve drawn over it, as Figure 8's
"TP 8, NVLink 4" did under the current settings' line (the same configuration) and Figure 9's ideal workload under
the current one. The check works on the plotted numbers as a reader's screen would show them: each axis's span
(in decades on a log axis) mapped onto a plot of a desktop's and a phone's size in pixels.
"""

from __future__ import annotations

import numpy as np
import pytest

from inferx.figures import registry
from inferx.scenario.evaluation import Scenario

PLOTS = {"desktop": (900, 290), "phone": (300, 230)}  # the plot area's width and height in px
NEAR_PX = 3.0  # closer than this, two 2-px lines read as one
HIDDEN_SHARE = 0.8  # a curve of which more than this runs under another is not seen as a curve of its own
HALO_PX = 4.0  # a line this much wider than the one on top of it shows as a band around it
SCENARIOS = [
    {},  # the defaults, where the article's references and the current settings meet
    {"preset": "mi300x4"},
    {"preset": "b200x8", "ctx": 8192},
    {"tp": 4, "ic": "infiniband"},
    {"cv": 1.0},
]


def entries(fig: dict) -> list[dict]:
    """The traces that have a legend entry and draw lines or markers (not fills, not invisible lines)."""
    out = []
    for t in fig["data"]:
        colour = str((t.get("line") or {}).get("color", ""))
        if t.get("showlegend") is False or t.get("fill") or colour.endswith(",0)") or "x" not in t:
            continue
        out.append(t)
    return out


def in_pixels(fig: dict, traces: list[dict], size: tuple[int, int]) -> list[np.ndarray]:
    """Each trace's points in plot pixels, the axes spanning every legend entry (a fixed range where set)."""
    layout = fig["layout"]
    logs = [layout[a].get("type") == "log" for a in ("xaxis", "yaxis")]
    with np.errstate(divide="ignore", invalid="ignore"):
        pts = [
            np.column_stack([np.log10(v) if log else v for v, log in zip(xy, logs, strict=True)])
            for xy in ((np.asarray(t["x"], float), np.asarray(t["y"], float)) for t in traces)
        ]
    pts = [p[np.isfinite(p).all(axis=1)] for p in pts]
    every = np.concatenate([np.zeros((0, 2)), *pts])
    lo, hi = every.min(axis=0), every.max(axis=0)
    for k, axis in enumerate(("xaxis", "yaxis")):
        if isinstance(layout[axis].get("range"), list):
            lo[k], hi[k] = layout[axis]["range"]
    scale = np.asarray(size) / np.where(hi > lo, hi - lo, 1.0)
    return [(p - lo) * scale for p in pts]


def share_within(a: np.ndarray, b: np.ndarray, near: float) -> float:
    """The share of polyline a's length that lies within `near` px of polyline b (or of b's points, if b is
    markers)."""
    if len(a) == 1:
        dense = a
    else:
        s = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(a, axis=0), axis=1))])
        u = np.linspace(0.0, s[-1], 400)
        dense = np.column_stack([np.interp(u, s, a[:, 0]), np.interp(u, s, a[:, 1])])
    if len(b) == 1:
        return float((np.linalg.norm(dense - b[0], axis=1) < near).mean())
    p, d = b[:-1], np.diff(b, axis=0)
    t = np.clip(((dense[:, None] - p) * d).sum(axis=2) / np.maximum((d * d).sum(axis=1), 1e-12), 0, 1)
    return float((np.linalg.norm(dense[:, None] - p - t[..., None] * d, axis=2).min(axis=1) < near).mean())


def hidden(fig: dict, size: tuple[int, int]) -> list[tuple[str, str, float]]:
    """(hidden entry, entry over it, share hidden) for every legend entry that does not show as its own."""
    traces = entries(fig)
    pts = in_pixels(fig, traces, size)
    found = []
    for i, (a, pa) in enumerate(zip(traces, pts, strict=True)):
        for b, pb in zip(traces[i + 1 :], pts[i + 1 :], strict=True):  # b is drawn over a
            if not len(pa) or not len(pb):
                continue
            a_line, b_line = "lines" in a.get("mode", "lines"), "lines" in b.get("mode", "lines")
            if a_line != b_line:
                continue  # markers on a line show (that is how a coinciding reference is drawn)
            if a_line:
                wa, wb = (t.get("line", {}).get("width", 2) for t in (a, b))
                if wa >= wb + HALO_PX:
                    continue
                share = share_within(pa, pb, NEAR_PX)
            else:  # two sets of markers: one hides the other where they sit on the same spots
                share = float(np.mean([np.linalg.norm(pb - q, axis=1).min() < NEAR_PX for q in pa]))
            if share > HIDDEN_SHARE:
                found.append((a["name"], b["name"], round(share, 2)))
    return found


@pytest.mark.parametrize("params", SCENARIOS, ids=lambda p: ",".join(f"{k}={v}" for k, v in p.items()) or "default")
def test_no_legend_entry_hides_under_another(params):
    figs = registry.build(Scenario.from_params(**params))
    found = {(key, where): hidden(fig, size) for key, fig in figs.items() for where, size in PLOTS.items()}
    assert {k: v for k, v in found.items() if v} == {}


def test_the_check_sees_a_curve_hidden_under_another():
    """The check itself: the same curve twice, or within a pixel, is found; curves that part are not."""
    B = np.geomspace(1, 1e4, 80)
    fig = {
        "layout": {"xaxis": {"type": "log"}, "yaxis": {"type": "log"}},
        "data": [
            {"name": "a", "x": B, "y": 1 + B / 100, "mode": "lines"},
            {"name": "a again", "x": B, "y": (1 + B / 100) * 1.01, "mode": "lines"},
            {"name": "twice as steep", "x": B, "y": 1 + B / 50, "mode": "lines"},
            {"name": "a, as markers", "x": B[::8], "y": 1 + B[::8] / 100, "mode": "markers"},
        ],
    }
    assert hidden(fig, PLOTS["desktop"]) == [("a", "a again", 1.0)]


def test_the_references_that_meet_the_current_settings_show_as_markers_on_it():
    """At the defaults (TP 8 over NVLink, CV 0) Figure 8's "TP 8, NVLink 4" is the current configuration and
    Figure 9's ideal workload runs on the current curve: each is drawn as markers, named for it, with the
    current line last; the gap between ideal and realistic stays shaded."""
    figs = registry.build(Scenario.from_params(), ["fig8", "fig9"])
    f8 = {t["name"]: t for t in figs["fig8"]["data"]}
    same = f8["TP 8, NVLink 4 = current settings"]
    current = figs["fig8"]["data"][-1]
    assert current["name"].startswith("8×H200 (current)") and current["mode"] == "lines"
    assert same["mode"] == "markers" and 8 <= len(same["x"]) <= 13
    on_current = dict(zip(current["x"], current["y"], strict=True))
    assert [on_current[x] for x in same["x"]] == same["y"]
    # Two references on one curve (TP 4 over InfiniBand is the current one, and PP 4 adds three hops to its
    # 122 all-reduces) take turns along it, each with its own symbol and marking its own end.
    ib = registry.build(Scenario.from_params(tp=4, ic="infiniband"), ["fig8"])["fig8"]["data"]
    on_it = [t for t in ib if t["name"].endswith("current settings")]
    assert [t["name"] for t in on_it] == [
        "TP 4, InfiniBand = current settings",
        "TP 4 + PP 4, InfiniBand ≈ current settings",
    ]
    assert len({t["marker"]["symbol"] for t in on_it}) == 2
    assert not set(on_it[0]["x"][:-1]) & set(on_it[1]["x"][:-1])
    f9 = {t["name"]: t for t in figs["fig9"]["data"]}
    assert f9["Ideal (CV 0, utilisation 100 %) ≈ current settings"]["mode"] == "markers"
    assert f9["Realistic (CV 1, utilisation 87 %)"]["mode"] == "lines"
    assert f9["Ideal-to-realistic gap"]["fill"] == "toself"
    # Away from the defaults the NVLink and ideal references are lines again; what meets the current settings
    # there is drawn on them instead.
    moved = registry.build(Scenario.from_params(tp=4, pp=2, ic="infiniband", cv=1), ["fig8", "fig9"])
    modes = {t["name"]: t["mode"] for f in moved.values() for t in f["data"]}
    assert modes["TP 4, NVLink 4"] == modes["Ideal (CV 0, utilisation 100 %)"] == "lines"
    assert modes["Realistic (CV 1, utilisation 87 %) = current settings"] == "markers"
