"""The two answers a sizing question gets: the article's physics (ideal: what the hardware allows) and the
calibrated model (expected: what a serving stack is expected to reach, with how far it may be off)."""

from __future__ import annotations

from inferx.scenario.evaluation import Scenario
from inferx.serving.adapter import CALIBRATED_MODEL, scenario_calibration
from inferx.serving.stored import STACK_GROUPING, held_out_error, scenario_error

ANSWER_OF_MODE = {"article": "ideal", "calibrated": "expected"}
ANSWER_MEANING = {
    "ideal": "article physics: the bound the hardware allows, which serving stacks do not reach",
    "expected": "calibrated to measured InferenceX runs: what a serving stack is expected to reach",
}
ERROR_MEASURE = "[median, p90] of |predicted / measured - 1| per metric"

# What a goodput answer says in each mode's block (the targets and the machine are the command's own).
SLO_ANSWER = (
    "batch", "limited_by", "reason", "throughput_tok_s", "throughput_per_gpu_tok_s", "ttft_ms", "itl_ms", "regime",
    "cost_per_mtok_usd", "tokens_per_joule",
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
    the runs nearest this kind of extrapolation, and which kind it is."""
    if scn.params["model"] != CALIBRATED_MODEL:
        return {
            "kind": "unseen model",
            "note": "the calibration is fitted to DeepSeek-R1 runs only: its error on this model is not measured",
        }
    info = scenario_calibration(scn)
    nearest = scenario_error(info)
    if nearest is None:
        basis = "each measured GPU predicted by a fit without its runs"
        return {"kind": "unseen GPU", "basis": basis, "measure": ERROR_MEASURE, **held_out_error()}
    own = nearest["group"] == info["spread_key"]
    kind = "measured configuration" if own else "measured GPU, another stack or precision"
    basis = f"in sample: the runs of {STACK_GROUPING if own else 'GPU'} {nearest['group']}"
    return {"kind": kind, "basis": basis, "measure": ERROR_MEASURE, **nearest}
