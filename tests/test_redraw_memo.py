"""The redraw's memos: a kept figure equals a fresh build, is rebuilt when a control it reads changes, and is
handed out as a copy; scenarios that compare equal but draw different figures get their own entries."""

from __future__ import annotations

import pytest

from inferx.figures import beyond, registry, studies, variants
from inferx.scenario import frontier
from inferx.scenario.evaluation import Scenario

BEYOND = {"fig10": beyond.regimes_slo, "fig11": beyond.economics_fig, "fig12": beyond.rate_fig}
BEYOND |= {"fig13": beyond.spec_k, "fig14": beyond.spec_batch, "fig15": beyond.moe}


def clear_memos() -> None:
    for builder in [*BEYOND.values(), variants.communication]:
        builder.cache_clear()
    frontier._FRONTIERS.clear()


@pytest.fixture(autouse=True)
def fresh():
    clear_memos()
    yield
    clear_memos()


def fresh_build(scn: Scenario, name: str) -> dict:
    clear_memos()
    return registry.build(scn, [name])[name]


@pytest.mark.parametrize("name", list(BEYOND))
def test_a_kept_figure_equals_a_fresh_build(name):
    scn = Scenario.from_params(preset="mi300x4", ctx=4096, ttft=800, price=2.0)
    first = registry.build(scn, [name])[name]
    again = registry.build(Scenario.from_params(preset="mi300x4", ctx=4096, ttft=800, price=2.0), [name])[name]
    assert again == first == fresh_build(scn, name)
    again["data"].clear()  # a copy: changing it leaves the kept figure alone
    assert registry.build(scn, [name])[name] == first


# A control each figure reads, and the value it moves to; every one changes the figure.
READS = {
    "fig10": ("ttft", 200.0),  # the SLO band and the star
    "fig11": ("price", 9.0),  # the cost axis
    "fig12": ("ctx", 16384),
    "fig13": ("bw", 20.0),  # the B = 1 step
    "fig14": ("hbm", 600.0),  # B_max, where the curves end
    "fig15": ("wdtype", "fp4"),  # the bytes a step reads
}


@pytest.mark.parametrize("name", list(BEYOND))
def test_a_figure_is_rebuilt_when_a_control_it_reads_changes(name):
    control, value = READS[name]
    before = registry.build(Scenario.from_params(), [name])[name]
    moved = Scenario.from_params(**{control: value})
    after = registry.build(moved, [name])[name]
    assert after != before and after == fresh_build(moved, name)


INNER = {"fig12": "fig_rate", "fig13": "fig_spec_k", "fig14": "fig_spec_batch", "fig15": "fig_moe"}


@pytest.mark.parametrize("name", list(INNER))
def test_a_control_a_figure_does_not_read_keeps_it(name, monkeypatch):
    registry.build(Scenario.from_params(), [name])
    module, attr = studies, INNER[name]
    calls = []
    real = getattr(module, attr)
    monkeypatch.setattr(module, attr, lambda *a, **k: calls.append(a) or real(*a, **k))
    registry.build(Scenario.from_params(ttft=123, tpot=7, price=4.5, power=0.6), [name])
    assert calls == []
    registry.build(Scenario.from_params(wdtype="fp4"), [name])  # a control it reads: built again
    assert len(calls) == 1


def test_fp8_and_int8_weights_keep_their_own_quantization_references():
    """One byte each, so their Scenarios compare equal; Figure 7 still draws the references of its own dtypes."""
    int8 = Scenario.from_params(wdtype="int8", kvdtype="fp8")
    fp8 = Scenario.from_params(wdtype="fp8", kvdtype="fp8")
    assert int8 == fp8
    registry.build(int8, ["fig7"])
    names = [t["name"] for t in registry.build(fp8, ["fig7"])["fig7"]["data"]]
    assert "FP8 weights + FP8 KV" not in names and any(n.endswith("(current): FP8 weights + FP8 KV") for n in names)


def test_fig8_is_kept_while_bandwidth_moves_and_rebuilt_when_what_it_reads_moves(monkeypatch):
    """Figure 8 reads the collectives' inputs and B_max (its axis's end), not bandwidth: a bandwidth drag keeps
    it; TP, and a context long enough to move B_max past 1,024, build it again, equal to a fresh build."""
    registry.build(Scenario.from_params(ctx=16384), ["fig8"])
    calls = []
    real = variants.comm_times
    monkeypatch.setattr(variants, "comm_times", lambda *a: calls.append(a) or real(*a))
    kept = registry.build(Scenario.from_params(ctx=16384, bw=20.0, compute=2.0), ["fig8"])["fig8"]
    assert calls == [] and kept == fresh_build(Scenario.from_params(ctx=16384, bw=20.0, compute=2.0), "fig8")
    calls.clear()
    for moved in ({"ctx": 16384, "tp": 4}, {"ctx": 1024}):
        assert Scenario.from_params(**moved).b_max > 1024 or "tp" in moved  # the axis moves, or TP does
        after = registry.build(Scenario.from_params(**moved), ["fig8"])["fig8"]
        assert len(calls) == 1  # built again
        assert after != kept and after == fresh_build(Scenario.from_params(**moved), "fig8")
        calls.clear()
