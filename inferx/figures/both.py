"""The explorer's six readouts at its operating point under both models, as the page shows them: the ideal
(article physics, the bound) beside the expected (the calibrated model, with how far it has been from measured
runs), the scenario's own model first. Words and numbers only; the page places them (assets/inferx.js)."""

from __future__ import annotations

import math

from inferx.analysis import economics
from inferx.analysis.answers import ANSWER_OF_MODE, expected_error, in_both_modes
from inferx.scenario.evaluation import Scenario

# The readouts in the explorer's order, and the error metric of the calibrated model each one follows: cost
# and energy per token are a price and a power over the throughput, so they are off as far as it is.
READOUTS = ("throughput", "ttft", "itl", "rho", "cost", "energy")
ERROR_METRIC = {
    "throughput": "throughput_per_gpu",
    "ttft": "ttft",
    "itl": "tpot",
    "cost": "throughput_per_gpu",
    "energy": "throughput_per_gpu",
}


def _sig(x: float, digits: int = 3) -> str:
    """A number to `digits` significant figures with thousands separators (1,234; 12.3; 0.123)."""
    if x == 0:
        return "0"
    places = max(0, digits - 1 - math.floor(math.log10(abs(x))))
    return f"{x:,.{places}f}"


def _rho(rho: float) -> str:
    """Utilisation to two decimals, or two significant figures below 0.01 (an idle machine is not 0.00)."""
    return f"{rho:.2f}" if rho >= 0.01 or rho == 0 else _sig(rho, 2)


def _texts(r: dict, econ: dict) -> dict[str, str]:
    """The six readouts' words at one point, in the explorer's units; a dash where the point has none."""
    stable = bool(r["stable"])
    throughput = float(r["throughput"])
    cost, energy = float(econ["cost_per_mtok"]), float(econ["tokens_per_joule"])
    return {
        "throughput": f"{_sig(throughput)} tok/s" if throughput > 0 else "—",
        "ttft": f"{_sig(1e3 * float(r['ttft']))} ms" if stable and math.isfinite(r["ttft"]) else "— (queue grows)",
        "itl": f"{_sig(1e3 * float(r['itl']))} ms",
        "rho": _rho(float(r["rho"])),
        "cost": f"${_sig(cost)}" if math.isfinite(cost) and cost > 0 else "—",
        "energy": f"{_sig(energy)} tok/J" if math.isfinite(energy) and energy > 0 else "—",
    }


def _at(batch: int):
    def answer(scn: Scenario) -> dict:
        r = {k: v[0] for k, v in scn.evaluate([batch]).items()}
        econ = economics.along(scn, r["throughput"], scn.params["price"], scn.params["power"], batch)
        return {"texts": _texts(r, econ)}

    return answer


def _error_texts(error: dict) -> dict[str, str]:
    """How far each expected readout may be off: the median and p90 of |predicted / measured − 1| of its metric
    on the runs nearest this kind of extrapolation ("error not measured" where no such run measured it: a model
    held out was scored on its throughput only); ρ, a ratio of the model's own, has none measured."""
    out = {}
    for key in READOUTS:
        metric = ERROR_METRIC.get(key)
        if metric is None:  # ρ: the model's own ratio, never measured
            out[key] = ""
        elif metric in error:
            median, p90 = (round(100 * e) for e in error[metric])
            out[key] = f"±{median} % (p90 {p90} %)"
        else:
            out[key] = "error not measured"
    where = error.get("basis") or error.get("note") or "its measured runs"
    out["basis"] = f"median (p90) of |predicted / measured − 1|: {where} ({error['kind']})"
    return out


def readouts_in_both_modes(scn: Scenario, batch: int) -> dict:
    """The explorer's readouts at `batch` under each model, the scenario's own first:

    {"batch": B, "order": ["ideal", "expected"] (or the other way round), "ideal": {key: text},
     "expected": {key: text}, "error": {key: text, "basis": what the error is},
     "errorKind": "measured configuration" | …, "first": "ideal" | "expected"}

    The expected's error is per readout (`ERROR_METRIC`); where the scenario cannot be evaluated the answer is
    empty ({"batch": B, "order": []})."""
    batch = int(batch)
    if scn.unfit_reason():
        return {"batch": batch, "order": []}
    blocks = in_both_modes(scn, _at(batch))
    out = {"batch": batch, "order": list(blocks)}
    for name, block in blocks.items():
        out[name] = block["texts"]
    error = blocks["expected"].get("error") or expected_error(scn.with_params(mode="calibrated"))
    out["error"] = _error_texts(error)
    out["errorKind"] = error["kind"]
    out["first"] = ANSWER_OF_MODE[scn.mode]
    return out
