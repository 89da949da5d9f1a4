"""Named workloads, the context they derive, one machine one answer, and throughput per instance or per GPU."""

import math

import pytest

from inferx.figures import registry, units
from inferx.physics.presets import HARDWARE
from inferx.scenario import machines
from inferx.scenario.controls import PARAMS, WORKLOADS, InvalidParameter, check_param, workload_context
from inferx.scenario.evaluation import Scenario
from inferx.scenario.machines import (
    checked_context,
    default_link,
    fitted_context,
    machine_tp,
    resolve_params,
    shortcut_of,
)
from pages._url import parse_query

# --- Workloads ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(WORKLOADS))
def test_a_named_workload_sets_isl_osl_and_the_mean_context(name):
    """1k/1k, 8k/1k and 1k8k: the input and output lengths their names say, and the context the engine reads,
    the mean KV length over the decode (isl + osl/2), unless ctx is given."""
    isl, osl = (int(part) * 1024 for part in name.replace("k", " ").split())
    values = resolve_params({"workload": name})
    assert (values["isl"], values["osl"]) == (isl, osl) == WORKLOADS[name]
    assert values["ctx"] == workload_context(isl, osl) == isl + osl // 2
    assert values["workload"] == name
    given = resolve_params({"workload": name, "ctx": 65536})
    assert given["ctx"] == 65536 and (given["isl"], given["osl"]) == (isl, osl)


def test_a_workload_whose_lengths_are_changed_is_custom():
    assert resolve_params({"workload": "8k1k", "isl": 4096})["workload"] == "custom"
    assert resolve_params({"workload": "8k1k", "isl": 8192})["workload"] == "8k1k"
    base = resolve_params({"workload": "1k8k"})
    assert resolve_params({"osl": 2048}, base)["workload"] == "custom"
    assert resolve_params({"util": 90}, base)["workload"] == "1k8k"
    assert resolve_params({})["workload"] == PARAMS["workload"].default == "custom"  # the article's figures stay
    with pytest.raises(InvalidParameter, match=r"^workload=2k2k: must be one of custom, 1k1k, 8k1k, 1k8k"):
        check_param("workload", "2k2k")


def test_a_context_shorter_than_the_input_is_refused_when_given_and_raised_when_not():
    values = resolve_params({"isl": 65536, "ctx": 1024})
    with pytest.raises(InvalidParameter, match=r"^ctx=1024: must be at least the input length isl=65,536 tokens"):
        checked_context(values, ctx_given=True)
    fixed, note = checked_context(values, ctx_given=False)
    assert fixed["ctx"] == 65536 + 1024 // 2 and str(fixed["ctx"]).replace("", "") in note.replace(",", "")
    assert fitted_context(resolve_params({"isl": 8192, "ctx": 8192})) == (resolve_params({"isl": 8192, "ctx": 8192}),
                                                                         "")  # fmt: skip
    longest = fitted_context(resolve_params({"isl": 131072, "osl": 131072, "ctx": 128}))[0]
    assert longest["ctx"] == PARAMS["ctx"].high  # within the control's range, still holding the input


def test_the_address_carries_a_workload_and_warns_of_a_short_context():
    values, _, notices = parse_query({"workload": "8k1k"})
    assert not notices and (values["isl"], values["osl"], values["ctx"]) == (8192, 1024, 8704)
    values, _, notices = parse_query({"isl": "65536", "ctx": "1024"})
    assert values["ctx"] == 66048 and any("drawn at ctx = 66,048 tokens" in n for n in notices)


# --- One machine, one answer ----------------------------------------------------------------------------------


def _answer(**given) -> tuple:
    scn = Scenario.from_params(**given)
    r = scn.evaluate([64])
    return scn.bw, scn.compute, scn.hbm, scn.tp, scn.ic_bw, float(r["throughput"][0]), float(r["ttft"][0])


@pytest.mark.parametrize("key", list(HARDWARE))
@pytest.mark.parametrize("mode", ["article", "calibrated"])
def test_each_article_machine_is_one_answer_however_it_is_picked(key, mode):
    """8×B200 gave three answers: its preset, its GPU and count from another preset (datasheet numbers, the other
    preset's TP), and the same with the GPU's own link. A GPU and count now mean one machine with the article's
    numbers, its TP and its link, from any preset; another link is another machine (the picker's third axis)."""
    hw = HARDWARE[key]
    shortcut = _answer(preset=key, mode=mode)
    for other in HARDWARE:
        assert _answer(preset=other, gpu=hw.family, gpus=hw.n_gpus, mode=mode) == shortcut, other
    assert _answer(gpu=hw.family, gpus=hw.n_gpus, mode=mode) == shortcut
    assert resolve_params({"preset": "h200x8", "gpu": hw.family, "gpus": hw.n_gpus})["preset"] == key
    assert shortcut_of(hw.family, hw.n_gpus, hw.ic) == key and shortcut_of(hw.family, hw.n_gpus, "roce") is None


def test_a_gpu_takes_its_default_link_and_a_count_its_tp():
    assert default_link("b200") == HARDWARE["b200x8"].ic  # the article's figure for its GPUs
    assert default_link("l40s") == "scale-up"  # its own PCIe otherwise
    assert resolve_params({"gpu": "l40s", "gpus": 2})["ic"] == "scale-up"
    assert resolve_params({"gpu": "l40s", "gpus": 2, "ic": "nvlink"})["ic"] == "nvlink"  # chosen
    assert [machine_tp(n) for n in (1, 2, 3, 5, 8, 12, 72)] == [1, 2, 2, 4, 8, 8, 64]


@pytest.mark.parametrize(
    "query",
    [
        {"preset": "mi300x4", "ctx": "8192"},
        {"preset": "b200x8", "isl": "4096", "ctx": "8192"},
        {"preset": "h200x8", "gpu": "h100", "gpus": "8", "ic": "scale-up"},  # the old page's GPU chosen by hand
        {"preset": "b200x8", "tp": "4", "ic": "infiniband"},
        {"preset": "h200x8", "gpus": "4"},
    ],
)
def test_old_addresses_load_the_same_scenario(query):
    """Addresses the page wrote before the picker: each control it names is kept, and the machine's numbers are
    the preset's (the article's) or the GPU's datasheet, as they were."""
    values, _, notices = parse_query(query)
    assert not notices
    for name, raw in query.items():
        if name != "preset":
            assert str(values[name]) == raw, name
    hw = HARDWARE[query["preset"]]  # the numbers of the machine the address named (on another link: custom)
    if "gpu" not in query and "gpus" not in query:
        assert (values["bw"], values["compute"], values["hbm"]) == (hw.bw / 1e12, hw.compute / 1e15, hw.hbm / 1e9)
        assert values["tp"] == int(query.get("tp", hw.tp))
    # and the address the page writes for it reads back to the same values
    again, _, _ = parse_query({k: str(v) for k, v in values.items() if v is not None})
    assert again == values


# --- Throughput per instance or per GPU -----------------------------------------------------------------------


def _axis(fig: dict) -> tuple[str, list]:
    axis = units.throughput_axis(fig["layout"])
    return fig["layout"][f"{axis}axis"]["title"]["text"], fig["data"]


@pytest.mark.parametrize("preset", ["h200x8", "mi300x4"])
def test_every_throughput_axis_says_its_unit_and_per_gpu_divides_by_the_count(preset):
    names = ["fig1", "fig2", "fig4", "fig5", "fig6", "fig7", "fig9", "fig10"]
    per_instance = registry.build(Scenario.from_params(preset=preset), names)
    per_gpu = registry.build(Scenario.from_params(preset=preset, tput="gpu"), names)
    n = HARDWARE[preset].n_gpus
    for name in names:
        title, data = _axis(per_instance[name])
        title_gpu, data_gpu = _axis(per_gpu[name])
        assert "per instance (" in title and "per GPU" in title_gpu, name
        assert name == "fig5" or f"per instance ({n}\u00a0GPUs)" in title, name
        axis = units.throughput_axis(per_instance[name]["layout"])
        mine = next(t for t in data if t.get("name", "").endswith("(current)") or not t.get("meta")) if name == "fig5" \
            else data[0]  # fmt: skip
        theirs = data_gpu[data.index(mine)]
        assert theirs[axis] == pytest.approx([v / n for v in mine[axis]], rel=1e-3), name
    # Figure 5's other machines: each divided by its own count
    for trace, trace_gpu in zip(per_instance["fig5"]["data"], per_gpu["fig5"]["data"], strict=True):
        own = (trace.get("meta") or {}).get("gpus")
        if own:
            assert trace_gpu["x"] == pytest.approx([v / own for v in trace["x"]], rel=1e-3)
    assert per_gpu["fig6"]["layout"]["meta"]["tput"] == {"perGpu": True, "gpus": n, "unit": "tok/s per GPU"}
    # The log/linear buttons move the labels placed on x with the values
    for fig, fig_gpu in ((per_instance[k], per_gpu[k]) for k in names if per_instance[k]["layout"].get("updatemenus")):
        for b, b_gpu in zip(fig["layout"]["updatemenus"][0]["buttons"], fig_gpu["layout"]["updatemenus"][0]["buttons"],
                            strict=True):  # fmt: skip
            placed = {k: v for k, v in b["args"][0].items() if k.startswith("annotations[")}
            for key, x in placed.items():
                log = b["args"][0]["xaxis.type"] == "log"
                assert b_gpu["args"][0][key] == pytest.approx(x - math.log10(n) if log else x / n), key


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ({"gpu": "h100", "gpus": "2"}, "custom"),  # none of the article's machines
        ({"preset": "b200x8", "gpus": "2"}, "custom"),  # an old address: the shortcut's GPU at another count
        ({"preset": "custom", "gpu": "b200", "gpus": "8"}, "b200x8"),  # the article's machine under its name
        ({"preset": "custom"}, "h200x8"),  # custom alone is the default machine, which has a shortcut
        ({"preset": "mi300x4"}, "mi300x4"),
    ],
)
def test_a_machine_no_shortcut_names_is_custom_and_reads_back(query, named):
    """The menu said the last shortcut (8×B200) while drawing 2×B200; the machine is named by what it is."""
    values, _, notices = parse_query(query)
    assert not notices and values["preset"] == named
    again, _, _ = parse_query({k: str(v) for k, v in values.items() if v is not None})
    assert again == values
    if named == "custom":
        assert machines.shortcut_of(values["gpu"], values["gpus"], values["ic"]) is None
        assert Scenario.from_params(**values).params["preset"] == "custom"
