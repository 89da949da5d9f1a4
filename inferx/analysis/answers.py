"""The two answers a sizing question gets: the article's physics (ideal: what the hardware allows) and the
calibrated model (expected: what a serving stack is expected to reach, with how far it may be off)."""

from __future__ import annotations

from inferx.scenario.evaluation import Scenario
from inferx.serving.adapter import scenario_calibration
from inferx.serving.stored import STACK_GROUPING, held_out_error, scenario_error
from inferx.serving.transfer import KIND_WORDS

ANSWER_OF_MODE = {"article": "ideal", "calibrated": "expected"}
ANSWER_MEANING = {
    "ideal": "article physics: the bound the hardware allows, which serving stacks do not reach",
    "expected": "calibrated to measured runs (InferenceX, published tables): what a serving stack is expected to reach",
}
ERROR_MEASURE = "[median, p90] of |predicted / measured - 1| per metric"
# The kinds of extrapolation whose error is measured on runs held out of the transferable model's fit.
HELD_OUT_KINDS = frozenset(words for kind, words in KIND_WORDS.items() if kind != "measured")

# What a goodput answer says in each mode's block (the targets and the machine are the command's own).
SLO_ANSWER = (
    "batch", "limited_by", "reason", "throughput_tok_s", "throughput_per_gpu_tok_s", "ttft_ms", "itl_ms", "regime",
    "cost_per_mtok_usd", "tokens_per_joule", "error",
)  # fmt: skip


def slo_answer(result: dict) -> dict:
    """A goodput answer (`slo.goodput`) without what both models share: the targets and the machine."""
    return {k: result[k] for k in SLO_ANSWER if k in result}


def in_both_modes(scn: Scenario, answer) -> dict:
    """{"ideal": …, "expected": …}: `answer(scenario)` under each model, the scenario's own mode first; the
    expected answer says how far it may be off (`expected_error`)."""
    modes = ("article", "calibrated") if scn.mode == "article" else ("calibrated", "article")
    blocks = {}
    for mode in modes:
        s = scn if scn.mode == mode else scn.with_params(mode=mode)
        name = ANSWER_OF_MODE[mode]
        blocks[name] = {"mode": mode, "meaning": ANSWER_MEANING[name], **answer(s)}
        if mode == "calibrated":
            blocks[name]["error"] = expected_error(s)
    return blocks


def expected_error(scn: Scenario) -> dict:
    """How far the calibrated model may be off here: [median, p90] of |predicted / measured − 1| per metric, from
    the runs nearest this kind of extrapolation, and which kind it is.

    DeepSeek-R1 on a measured GPU, stack and precision: that calibration's runs, in sample. Anything else is the
    transferable model's: the runs held out of its fit as the same kind (an unmeasured GPU with or without a
    measured sibling, an unmeasured model), or its in-sample runs where GPU and model were both measured."""
    info = scenario_calibration(scn)
    if info["basis"] == "transferred":
        held = info["kind"] != "measured"
        basis = ("runs held out of the transferable model's fit as this kind" if held
                 else "in sample: the transferable model's runs of measured GPUs and models")  # fmt: skip
        return {"kind": KIND_WORDS[info["kind"]], "basis": basis, "measure": ERROR_MEASURE, **scenario_error(info)}
    nearest = scenario_error(info)
    if nearest is None:
        basis = "each measured GPU predicted by a fit without its runs"
        return {"kind": "unseen GPU", "basis": basis, "measure": ERROR_MEASURE, **held_out_error()}
    own = nearest["group"] == info["spread_key"]
    kind = "measured configuration" if own else "measured GPU, another stack or precision"
    basis = f"in sample: the runs of {STACK_GROUPING if own else 'GPU'} {nearest['group']}"
    return {"kind": kind, "basis": basis, "measure": ERROR_MEASURE, **nearest}


def error_brief(error: dict | None, metric: str = "throughput_per_gpu") -> str:
    """An expected answer's error on one metric in a few words: "±16 % (p90 41 %), unseen model"; which kind of
    extrapolation it is alone where that metric was never measured for the kind."""
    if not error:
        return "error not measured"
    if metric not in error:
        return f"error not measured, {error['kind']}"
    median, p90 = (round(100 * e) for e in error[metric])
    return f"±{median} % (p90 {p90} %), {error['kind']}"
