"""Which limit binds at each batch size of a frontier, and what more hardware would buy there.

Five limits, each a boolean mask over the batch sizes (several can hold at once):

- bandwidth: the step's memory time (weights + KV read at HBM bandwidth) exceeds its compute time;
- compute: the compute time (2·P_active·B / FLOP/s in the article's model) is the larger;
- communication: t_comm (all-reduce + pipeline) is more than `COMM_SHARE` of the step (ITL);
- queue: ρ = B / B_max past `RHO_QUEUE`, where the boxed TTFT's wait is over 6.7× its residual;
- kv_capacity: ρ at or past `RHO_KV`: the KV cache is nearly full, so the batch cannot grow.

`binding` names one limit per batch size, the first of `PRIORITY` that holds: capacity, then the queue, then
communication, then whichever roofline term is larger. Each model mode splits its own step
(`Scenario.resource_times`): the article's two terms, or the calibrated model's HBM and arithmetic time (its
weights read at the experts a batch touches, its prefill stall included), so the limit named and the gains
the sentence gives come from one model.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from inferx.physics import engine as E
from inferx.scenario.evaluation import Scenario

COMM_SHARE = 0.5  # communication-bound: t_comm more than half the inter-token latency
RHO_QUEUE = 0.85  # the one edge of the ρ band every figure and sentence uses: past it TTFT turns upward
RHO_KV = 0.95  # the last 5 % of the KV room: the batch is pinned against B_max
PRIORITY = ("kv_capacity", "queue", "communication", "compute", "bandwidth")
LABELS = {
    "bandwidth": "bandwidth-bound",
    "compute": "compute-bound",
    "communication": "communication-bound",
    "queue": "queue-bound",
    "kv_capacity": "KV-capacity-bound",
}
# The ρ band's one name, on Figures 3 and 6 and in the captions: the queue binds there (Figure 10 colours the same
# stretch), which is not instability: a batch there may still meet the SLO, and Figure 10's star may sit in it.
RHO_BAND = f"ρ > {RHO_QUEUE:g}: {LABELS['queue']}"
# In a narrow graph's legend (`meta.short` of a trace, which assets/theme.js shows there): the colours say "bound".
SHORT_LABELS = {key: label.removesuffix("-bound") for key, label in LABELS.items()}
# H200 over H100 HBM bandwidth (4.8 / 3.35 TB/s): the upgrade the article's readers weigh most often.
BW_GAIN = 0.43
COMPUTE_GAIN = 1.0  # "doubling compute"


def regime_masks(scn: Scenario, B) -> dict[str, np.ndarray]:
    """One boolean array per limit (keys of `LABELS`), aligned with the batch sizes `B`."""
    return _masks(scn, B)[0]


def _masks(scn: Scenario, B) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """`regime_masks` and t_comm at `B`, which the sensitivity readout reuses."""
    B = np.atleast_1d(np.asarray(B, dtype=float))
    memory, compute = scn.resource_times(B)
    if scn.mode == "calibrated":
        step, comm = scn.step_and_comm(B)
    else:  # the article's step is the larger of the two terms just computed
        step, comm = np.maximum(memory, compute), scn.comm_time(B)
    rho = E.utilisation(B, scn.b_max)
    masks = {
        "bandwidth": memory >= compute,
        "compute": compute > memory,
        "communication": comm > COMM_SHARE * (step + comm),
        "queue": rho > RHO_QUEUE,
        "kv_capacity": rho >= RHO_KV,
    }
    return masks, comm


def binding(scn: Scenario, B) -> np.ndarray:
    """The binding limit's key at each batch size (an array of strings), by `PRIORITY`."""
    return _KEYS[binding_index(scn, B)]


_KEYS = np.array(PRIORITY)
_BANDWIDTH = PRIORITY.index("bandwidth")


def binding_index(scn: Scenario, B) -> np.ndarray:
    """`binding` as indices into `PRIORITY` (whole numbers select faster than strings)."""
    return _first_holding(regime_masks(scn, B))


def _first_holding(masks: dict[str, np.ndarray]) -> np.ndarray:
    index = np.full(np.shape(masks["bandwidth"]), _BANDWIDTH)
    for k in range(len(PRIORITY) - 1, -1, -1):  # the first of PRIORITY that holds is written last (np.select's rule)
        index[masks[PRIORITY[k]]] = k
    return index


def segments(scn: Scenario, B) -> list[dict]:
    """Runs of consecutive batch sizes with the same binding limit, for colouring a frontier:
    [{"regime": key, "label": words, "first": index, "last": index, "b_first": B, "b_last": B}, …]."""
    B = np.atleast_1d(np.asarray(B))
    keys = binding_index(scn, B)
    if keys.size == 0:
        return []
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
    ends = np.r_[starts[1:] - 1, keys.size - 1]
    return [
        {
            "regime": PRIORITY[keys[a]],
            "label": LABELS[PRIORITY[keys[a]]],
            "first": int(a),
            "last": int(b),
            "b_first": int(B[a]),
            "b_last": int(B[b]),
        }
        for a, b in zip(starts.tolist(), ends.tolist(), strict=True)
    ]


def _scaled(scn: Scenario, bw: float = 1.0, compute: float = 1.0) -> Scenario:
    # SI fields directly: a gain may carry bandwidth past the controls' range, and B_max does not depend on either.
    return replace(scn, bw=scn.bw * bw, compute=scn.compute * compute)


def _scaled_throughputs(scn: Scenario, B, factors, comm=None) -> np.ndarray:
    """T(B) with bandwidth and compute multiplied by each (bw, compute) pair of `factors`, one row each. In the
    article's model every row comes from one numpy pass (the explorer's readout asks for seven at one batch
    size on every redraw); the calibrated model's step is evaluated per row. `comm`: t_comm at B, if known."""
    B = np.atleast_1d(np.asarray(B, dtype=float))
    f = np.asarray(factors, dtype=float)
    if scn.mode == "calibrated":
        return np.array([E.throughput(B, np.add(*_scaled(scn, b, c).step_and_comm(B))) for b, c in f])
    step = E.t_step(B, scn.ctx, scn.model, scn.b_w, scn.kappa, scn.bw * f[:, :1], scn.compute * f[:, 1:],
                    scn.replicated)  # fmt: skip
    return E.throughput(B, step + (scn.step_and_comm(B)[1] if comm is None else comm))


def throughput_gain(scn: Scenario, B, bw: float = 0.0, compute: float = 0.0) -> np.ndarray:
    """Relative throughput change at fixed batch sizes when bandwidth grows by `bw` and compute by `compute`
    (0.43 = +43 %): T'(B) / T(B) − 1. At fixed B the queue and B_max are unchanged."""
    B = np.atleast_1d(np.asarray(B, dtype=float))
    base = E.throughput(B, np.add(*scn.step_and_comm(B)))
    more = _scaled(scn, 1.0 + bw, 1.0 + compute)
    return E.throughput(B, np.add(*more.step_and_comm(B))) / base - 1.0


def elasticities(scn: Scenario, B, h: float = 1e-3) -> dict[str, np.ndarray]:
    """d ln T / d ln BW and d ln T / d ln compute at each batch size, by central differences of relative
    size `h`: 1 means throughput follows that resource one for one, 0 that it does not care."""
    B = np.atleast_1d(np.asarray(B, dtype=float))
    out = {}
    for name, up, down in (
        ("bw", _scaled(scn, bw=1 + h), _scaled(scn, bw=1 - h)),
        ("compute", _scaled(scn, compute=1 + h), _scaled(scn, compute=1 - h)),
    ):
        t_up = E.throughput(B, np.add(*up.step_and_comm(B)))
        t_down = E.throughput(B, np.add(*down.step_and_comm(B)))
        out[name] = np.log(t_up / t_down) / np.log((1 + h) / (1 - h))
    return out


def sensitivity(scn: Scenario, batch: int, bw_gain: float = BW_GAIN, compute_gain: float = COMPUTE_GAIN) -> dict:
    """What binds at one batch size and what more bandwidth or compute would give there (fractions)."""
    return _sensitivity(scn, batch, bw_gain, compute_gain)[0]


def _sensitivity(scn: Scenario, batch: int, bw_gain: float, compute_gain: float) -> tuple[dict, dict]:
    """`sensitivity` and the limits' masks at `batch`, which the sentence reads too."""
    masks, comm = _masks(scn, [batch])
    regime = PRIORITY[_first_holding(masks)[0]]
    h = 1e-3  # as `elasticities` and `throughput_gain` take them, in one pass
    factors = [(1, 1), (1 + bw_gain, 1), (1, 1 + compute_gain), (1 + h, 1), (1 - h, 1), (1, 1 + h), (1, 1 - h)]
    t, bw_more, compute_more, bw_up, bw_down, c_up, c_down = _scaled_throughputs(scn, [batch], factors, comm)[:, 0]
    step = np.log((1 + h) / (1 - h))
    return {
        "batch": int(batch),
        "regime": regime,
        "label": LABELS[regime],
        "bw_gain": bw_gain,
        "compute_gain": compute_gain,
        "throughput_gain_bw": float(bw_more / t - 1.0),
        "throughput_gain_compute": float(compute_more / t - 1.0),
        "elasticity_bw": float(np.log(bw_up / bw_down) / step),
        "elasticity_compute": float(np.log(c_up / c_down) / step),
    }, masks


def _percent(x: float) -> str:
    return f"{x * 100:+.0f} %" if abs(x) >= 0.005 else "nothing"


def sentence(scn: Scenario, batch: int, bw_gain: float = BW_GAIN, compute_gain: float = COMPUTE_GAIN) -> str:
    """The readout: "At B = 64 this machine is bandwidth-bound; doubling compute changes nothing,
    +43 % bandwidth gives +31 % throughput"."""
    s, masks = _sensitivity(scn, batch, bw_gain, compute_gain)
    what = "doubling compute" if compute_gain == 1.0 else f"{compute_gain * 100:+.0f} % compute"
    c, b = s["throughput_gain_compute"], s["throughput_gain_bw"]
    c_text = "changes nothing" if _percent(c) == "nothing" else f"gives {_percent(c)} throughput"
    b_text = "changes nothing" if _percent(b) == "nothing" else f"gives {_percent(b)} throughput"
    label = s["label"]
    if s["regime"] not in ("bandwidth", "compute"):  # say which roofline term sets the step beneath it
        step = "bandwidth" if masks["bandwidth"][0] else "compute"
        label += f" (its step {step}-bound)"
    return f"At B = {batch:,} this machine is {label}; {what} {c_text}, {bw_gain * 100:+.0f} % bandwidth {b_text}"
