"""The calibrated decode model: the article's roofline plus what a real MoE server pays for.

Per decode step at batch B and mean context S, on an instance of n GPUs:

    t_step = t_0 + bytes(B, S) / (f_bw · BW) + flops(B, S) / (f_c · C)
    bytes  = b_w · (P_dense + L_moe · P_expert · D(B)) + r · B · S · κ
    D(B)   = E · (1 − (1 − k/E)^B)        expected distinct routed experts per MoE layer
    flops  = 2 · B · P_active + 2 · B · L · H · S · (2·d_c + d_r)   (weights + MLA attention)

with BW and C the datasheet HBM bandwidth and dense FP8 compute summed over the n GPUs,
and r the number of copies of the KV cache that are read (n under tensor parallelism,
where every GPU holds the whole MLA latent cache; 1 with data-parallel attention).
The two resource terms add rather than overlap: a step is a sequence of kernels,
each limited by one resource. In the closed loop that InferenceX measures, prefills of
new requests run between decode steps, so a user's time per output token (TPOT) also
carries each step's share of them:

    TPOT  = t_step + t_comm + (B / OSL) · t_prefill
    t_prefill = b_w · P_total / (f_bw · BW) + prefill_flops(ISL) / (f_pf · C)   (ISL tokens touch every expert)
    TTFT  ≈ t_prefill + t_step            (own prefill after the step in flight)
    output tokens/s per GPU = B / (TPOT + TTFT / OSL) / n

The free parameters per hardware family are f_bw, f_c, f_pf and t_0; they live in
`calibration.json` beside this file. Everything is numpy/pandas.
"""

from __future__ import annotations

import json
import sys
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd

from . import engine as E
from .measured import MeasuredDataError, load_measured, model_quantities, validation_rows
from .models import expected_distinct_experts
from .presets import DEEPSEEK_R1, HARDWARE, INTERCONNECTS, ModelSpec

CALIBRATION_FILE = Path(__file__).with_name("calibration.json")

# Scenario presets -> measured hardware family; per-GPU numbers come from the preset.
PRESET_FAMILY = {"h200x8": "h200", "mi300x4": "mi300x", "b200x8": "b200"}
FAMILY_PRESET = {family: preset for preset, family in PRESET_FAMILY.items()}
FAMILIES = tuple(FAMILY_PRESET)
FP8_BYTES = 1.0  # weights and KV cache of the FP8 runs the fit uses


@dataclass(frozen=True)
class GpuSpec:
    bw: float  # HBM bandwidth per GPU, bytes/s
    dense: float  # dense FP8 FLOP/s per GPU (what GEMMs can reach; no 2:4 sparsity)
    article: float  # the article's per-GPU compute figure (its table, sparse for NVIDIA)


def gpu_spec(family: str) -> GpuSpec:
    hw = HARDWARE[FAMILY_PRESET[family]]
    return GpuSpec(hw.bw / hw.n_gpus, hw.dense_fp8_per_gpu, hw.compute / hw.n_gpus)


@dataclass(frozen=True)
class Calibration:
    bw_fraction: float  # f_bw: achieved share of datasheet HBM bandwidth in decode
    compute_fraction: float  # f_c: achieved share of dense FP8 compute in decode
    prefill_fraction: float  # f_pf: achieved share of dense FP8 compute in prefill
    step_overhead_s: float  # t_0: launches, scheduling, sampling, synchronisation per step

    @classmethod
    def from_vector(cls, theta) -> Calibration:
        t0, inv_bw, inv_c, inv_pf = (float(v) for v in theta)
        return cls(1.0 / inv_bw, 1.0 / inv_c, 1.0 / inv_pf, t0)

    def vector(self) -> np.ndarray:
        return np.array(
            [self.step_overhead_s, 1 / self.bw_fraction, 1 / self.compute_fraction, 1 / self.prefill_fraction]
        )


# --- Physics ------------------------------------------------------------------------


def dense_params(model: ModelSpec = DEEPSEEK_R1) -> float:
    """Parameters read at every step whatever the routing: P_total − L_moe · E · P_expert.

    For DeepSeek R1: 671e9 − 58 · 256 · 44.04e6 ≈ 17.1e9, i.e. attention in all 61
    layers, the 3 dense FFN layers, the 58 shared experts and the embeddings. Check:
    P_dense + 58 · 8 · P_expert ≈ 37.5e9 ≈ P_active.
    """
    return model.p_total - model.n_moe_layers * model.n_routed_experts * model.expert_params


def distinct_experts(B, model: ModelSpec = DEEPSEEK_R1):
    """E · (1 − (1 − k/E)^B): expected routed experts per MoE layer that B tokens touch (uniform routing)."""
    return expected_distinct_experts(model, B)  # none for a dense model


def weight_bytes(B, model: ModelSpec = DEEPSEEK_R1, b_w: float = FP8_BYTES):
    """Weight bytes one decode step reads at batch B."""
    return b_w * (dense_params(model) + model.n_moe_layers * model.expert_params * distinct_experts(B, model))


def kv_bytes(B, S, kv_copies, model: ModelSpec = DEEPSEEK_R1, b_kv: float = FP8_BYTES):
    return np.asarray(B, dtype=float) * S * E.kv_bytes_per_token(model, b_kv) * kv_copies


def decode_flops(B, S, model: ModelSpec = DEEPSEEK_R1):
    """Weight GEMMs plus MLA attention in its absorbed form (scores over d_c + d_r, values over d_c)."""
    B = np.asarray(B, dtype=float)
    d_c = 512 if model.kv_latent else model.d_head
    attention = 2.0 * B * model.n_layers * model.n_q_heads * S * (model.kv_elements_per_layer + d_c)
    return 2.0 * B * model.p_active + attention


def prefill_flops(isl, model: ModelSpec = DEEPSEEK_R1):
    """The article's prefill FLOPs: 2·P_active·S_in + 4·L·H·d_h·S_in²."""
    return E.t_prefill(isl, model, 1.0)


def _features(B, S, isl, osl, kv_copies, bw, compute, model):
    """Columns multiplying (t_0, 1/f_bw, 1/f_c, 1/f_pf), and the two parts of one prefill.

    TPOT without comms is `x @ theta`. A prefill of ISL tokens touches every expert,
    so besides its FLOPs it reads all weights once: `prefill[..., 0]` (× 1/f_bw) is
    that read time at peak, `prefill[..., 1]` (× 1/f_pf) the FLOP time at peak.
    """
    B = np.asarray(B, dtype=float)
    memory = (weight_bytes(B, model) + kv_bytes(B, S, kv_copies, model)) / bw
    compute_time = decode_flops(B, S, model) / compute
    prefill = np.stack(np.broadcast_arrays(weight_bytes(isl, model) / bw, prefill_flops(isl, model) / compute), axis=-1)
    share = B / np.asarray(osl, dtype=float)  # prefills per decode step in the closed loop
    x = np.stack(
        np.broadcast_arrays(
            np.ones_like(memory), memory + share * prefill[..., 0], compute_time, share * prefill[..., 1]
        ),
        axis=-1,
    )
    return x, np.broadcast_to(prefill, x.shape[:-1] + (2,))


def comm_time(B, tp, model: ModelSpec = DEEPSEEK_R1):
    """The article's all-reduce term over NVLink, as the scenario adds it."""
    ic = INTERCONNECTS["nvlink"]
    B = np.asarray(B, dtype=float)
    tp = np.broadcast_to(np.asarray(tp), B.shape)
    out = np.zeros_like(B)
    for k in np.unique(tp):
        sel = tp == k
        out[sel] = E.t_allreduce(B[sel], int(k), model, FP8_BYTES, ic.bw, ic.alpha)
    return out


# --- Predictions on measured rows ----------------------------------------------------


def predict_closed_loop(
    cal: Calibration,
    family: str,
    batch,
    isl,
    osl,
    gpus,
    dp_attention=False,
    model: ModelSpec = DEEPSEEK_R1,
    bw_per_gpu: float | None = None,
    dense_per_gpu: float | None = None,
) -> dict:
    """Calibrated TPOT, TTFT (s) and output tokens/s per GPU for a closed-loop benchmark point."""
    spec = gpu_spec(family)
    gpus = np.asarray(gpus, dtype=float)
    bw = (bw_per_gpu or spec.bw) * gpus
    compute = (dense_per_gpu or spec.dense) * gpus
    batch = np.asarray(batch, dtype=float)
    S = np.asarray(isl) + np.asarray(osl) / 2.0
    kv_copies = np.where(dp_attention, 1.0, gpus)
    theta = cal.vector()
    x, prefill = _features(batch, S, isl, osl, kv_copies, bw, compute, model)
    tpot = x @ theta + comm_time(batch, gpus, model)
    t_prefill = prefill[..., 0] * theta[1] + prefill[..., 1] * theta[3]
    step = tpot - comm_time(batch, gpus, model) - batch / np.asarray(osl, dtype=float) * t_prefill
    ttft = t_prefill + step
    throughput = batch / (tpot + ttft / np.asarray(osl, dtype=float)) / gpus
    return {"tpot": tpot, "ttft": ttft, "throughput_per_gpu": throughput, "step": step}


def predict_article(
    family: str,
    batch,
    isl,
    osl,
    gpus,
    model: ModelSpec = DEEPSEEK_R1,
    bw_per_gpu: float | None = None,
    article_per_gpu: float | None = None,
) -> dict:
    """The article's ITL (t_step + all-reduce) at B = concurrency, S = isl + osl/2, n × per-GPU specs."""
    spec = gpu_spec(family)
    gpus = np.asarray(gpus, dtype=float)
    batch = np.asarray(batch, dtype=float)
    S = np.asarray(isl) + np.asarray(osl) / 2.0
    kappa = E.kv_bytes_per_token(model, FP8_BYTES)
    bw, compute = (bw_per_gpu or spec.bw) * gpus, (article_per_gpu or spec.article) * gpus
    step = E.t_step(batch, S, model, FP8_BYTES, kappa, bw, compute)
    itl = step + comm_time(batch, gpus, model)
    return {"tpot": itl, "throughput_per_gpu": batch / itl / gpus}


def _row_features(df: pd.DataFrame, model: ModelSpec = DEEPSEEK_R1):
    q = model_quantities(df)
    bw = np.array([gpu_spec(f).bw for f in df["hardware"]]) * q["gpus"].to_numpy()
    compute = np.array([gpu_spec(f).dense for f in df["hardware"]]) * q["gpus"].to_numpy()
    kv_copies = np.where(q["dp_attention"], 1.0, q["tp"])
    x, prefill = _features(q["batch"].to_numpy(), q["context"].to_numpy(), q["isl"].to_numpy(), q["osl"].to_numpy(),
                  kv_copies, bw, compute, model)  # fmt: skip
    return q, x, prefill, comm_time(q["batch"].to_numpy(), q["tp"].to_numpy(), model)


def predict_rows(df: pd.DataFrame, calibrations: dict[str, Calibration] | None = None) -> pd.DataFrame:
    """Both models' TPOT (ms) and output tokens/s per GPU beside each measured row."""
    calibrations = calibrations or load_calibration()
    out = pd.DataFrame(index=df.index)
    out["tpot_article_ms"] = np.nan
    out["tput_article"] = np.nan
    out["tpot_calibrated_ms"] = np.nan
    out["tput_calibrated"] = np.nan
    q = model_quantities(df)
    for family, rows in df.groupby("hardware"):
        if family not in FAMILIES:
            continue
        qq = q.loc[rows.index]
        art = predict_article(family, qq["batch"], qq["isl"], qq["osl"], qq["tp"])
        cal = calibrations.get(family) or calibrations["shared"]
        pred = predict_closed_loop(
            cal, family, qq["batch"], qq["isl"], qq["osl"], qq["tp"], qq["dp_attention"].to_numpy()
        )
        out.loc[rows.index, "tpot_article_ms"] = 1e3 * art["tpot"]
        out.loc[rows.index, "tput_article"] = art["throughput_per_gpu"]
        out.loc[rows.index, "tpot_calibrated_ms"] = 1e3 * pred["tpot"]
        out.loc[rows.index, "tput_calibrated"] = pred["throughput_per_gpu"]
    return out


# --- Fitting -------------------------------------------------------------------------


def fit(df: pd.DataFrame, iterations: int = 80) -> Calibration:
    """Fit (t_0, f_bw, f_c, f_pf) to TPOT and output throughput per GPU in log space.

    Start from a linear least squares on relative TPOT error (TPOT is linear in
    t_0, 1/f_bw, 1/f_c, 1/f_pf), then Levenberg–Marquardt on log errors of both TPOT
    and throughput, parameters in log form and clipped to physical bounds. Every few
    iterations the rows are reweighted by 1/|error| (iteratively reweighted least
    squares), which approximates a least-absolute-error fit: the target is a median
    error, and a few odd configurations in a sweep should not drag the whole fit.
    """
    rows = validation_rows(df, FAMILIES)
    if len(rows) < 8:
        raise MeasuredDataError(f"need at least 8 single-node non-MTP rows on {', '.join(FAMILIES)}, got {len(rows)}")
    q, x, prefill, comm = _row_features(rows)
    tpot = rows["median_tpot_ms"].to_numpy() / 1e3
    tput = rows["output_tput_per_gpu_tok_s"].to_numpy()
    osl = q["osl"].to_numpy(float)
    gpus = q["gpus"].to_numpy(float)
    batch = q["batch"].to_numpy()
    weights = np.ones(2 * len(rows))

    def residuals(phi):
        theta = np.exp(phi)
        t_prefill = prefill[:, 0] * theta[1] + prefill[:, 1] * theta[3]
        tpot_pred = x @ theta + comm
        ttft = t_prefill + tpot_pred - comm - batch / osl * t_prefill
        tput_pred = batch / (tpot_pred + ttft / osl) / gpus
        return np.sqrt(weights) * np.concatenate([np.log(tpot_pred / tpot), np.log(tput_pred / tput)])

    # Physical bounds: fractions of peak in [1 %, 100 %], overhead between 10 µs and 100 ms.
    lower, upper = np.log([1e-5, 1.0, 1.0, 1.0]), np.log([0.1, 100.0, 100.0, 100.0])
    start, *_ = np.linalg.lstsq(x / tpot[:, None], (tpot - comm) / tpot, rcond=None)
    phi = np.clip(np.log(np.clip(start, 1e-12, None)), lower, upper)
    damping = 1e-3
    cost = float(np.sum(residuals(phi) ** 2))
    for iteration in range(iterations):
        if iteration % 10 == 9:
            weights[:] = 1.0
            weights[:] = 1.0 / np.maximum(np.abs(residuals(phi)), 0.03)
            cost = float(np.sum(residuals(phi) ** 2))
        r = residuals(phi)
        jac = np.empty((r.size, phi.size))
        for j in range(phi.size):
            nudge = np.zeros_like(phi)
            nudge[j] = 1e-6
            jac[:, j] = (residuals(phi + nudge) - r) / 1e-6
        hessian = jac.T @ jac
        delta = np.linalg.solve(hessian + damping * np.diag(np.diag(hessian) + 1e-12), -jac.T @ r)
        candidate = np.clip(phi + delta, lower, upper)
        trial = float(np.sum(residuals(candidate) ** 2))
        if trial < cost:
            phi, cost, damping = candidate, trial, damping / 3
        else:
            damping = min(damping * 10, 1e8)
    return Calibration.from_vector(np.exp(phi))


ANCHOR_CONCURRENCY = 4  # rows at or below this concurrency set t_0 for unseen hardware


def anchor_overhead(cal: Calibration, df: pd.DataFrame) -> Calibration:
    """`cal` with t_0 re-measured on `df`'s low-concurrency rows (C ≤ ANCHOR_CONCURRENCY).

    The fractions of peak transfer between GPUs; the per-step overhead belongs to the
    software stack (kernel launches, scheduler, collectives library), so new hardware
    needs it measured once, where it dominates: at the smallest batches.
    """
    rows = validation_rows(df, FAMILIES)
    rows = rows[rows["concurrency"] <= ANCHOR_CONCURRENCY]
    if rows.empty:
        return cal
    without = replace(cal, step_overhead_s=0.0)
    pred = predict_rows(rows, {f: without for f in (*FAMILIES, "shared")})
    t0 = float(np.median(rows["median_tpot_ms"] - pred["tpot_calibrated_ms"])) / 1e3
    return replace(cal, step_overhead_s=max(t0, 1e-5))


def typical(calibrations) -> Calibration:
    """A typical software stack: the geometric mean of several families' calibrations, for hardware with
    no fit of its own. Fractions of peak and overheads are scale factors, so they average in log.

    One fit pooled over the families' rows instead blends stacks that differ: on B200 + MI300X it put
    f_bw at 0.52, below both families' own fits (0.67 and 1.00), trading it against f_c and f_pf.
    """
    logs = [np.log(cal.vector()) for cal in calibrations]
    return Calibration.from_vector(np.exp(np.mean(logs, axis=0)))


def fit_all(df: pd.DataFrame) -> dict[str, Calibration]:
    """One calibration per hardware family present, plus `shared`, the typical one of them all."""
    rows = validation_rows(df, FAMILIES)
    fits = {family: fit(part) for family, part in rows.groupby("hardware")}
    fits["shared"] = typical(fits.values())
    return fits


# --- Stored calibration ----------------------------------------------------------------


def load_calibration(path: Path = CALIBRATION_FILE) -> dict[str, Calibration]:
    data = json.loads(Path(path).read_text())
    return {name: Calibration(**values) for name, values in data["parameters"].items()}


def calibrated_step(scn, B):
    """Decode step time (s) of a Scenario in calibrated mode; the scenario adds comms.

    Uses the scenario's bandwidth and compute (rescaled from the article's table
    figure to dense FP8 with the preset's ratio, so the sliders still act), its TP
    size for KV copies, and, when the context exceeds the input (S = ISL + OSL/2,
    so OSL = 2·(S − ISL)), each step's share of the prefills of new requests.
    """
    calibrations = load_calibration()
    family = PRESET_FAMILY.get(scn.hardware)
    cal = calibrations.get(family) or calibrations["shared"]
    preset = HARDWARE[scn.hardware]
    dense = scn.compute * (preset.dense_fp8_per_gpu * preset.n_gpus / preset.compute)
    B = np.asarray(B, dtype=float)
    memory = (weight_bytes(B, scn.model, scn.b_w) + kv_bytes(B, scn.ctx, scn.tp, scn.model, scn.b_kv)) / scn.bw
    step = (
        cal.step_overhead_s
        + memory / cal.bw_fraction
        + decode_flops(B, scn.ctx, scn.model) / (cal.compute_fraction * dense)
    )
    osl = 2.0 * (scn.ctx - scn.isl)
    if osl >= 1:
        t_prefill = weight_bytes(scn.isl, scn.model, scn.b_w) / (cal.bw_fraction * scn.bw) + prefill_flops(
            scn.isl, scn.model
        ) / (cal.prefill_fraction * dense)
        step = step + B / osl * t_prefill
    return step


# --- Validation ------------------------------------------------------------------------


def _ape(pred, measured) -> float:
    pred, measured = np.asarray(pred, float), np.asarray(measured, float)
    ok = np.isfinite(pred) & np.isfinite(measured) & (measured > 0)
    return float(np.median(np.abs(pred[ok] / measured[ok] - 1.0))) if ok.any() else float("nan")


def validation_table(df: pd.DataFrame, calibrations: dict[str, Calibration] | None = None) -> pd.DataFrame:
    """Median absolute percentage errors per hardware family and overall.

    Columns `*_article` and `*_calibrated` (the stored per-family fit) score all rows.
    `*_holdout`: each family predicted by the typical calibration of the other families
    (`typical`), none fitted on its rows. `*_anchored`: the same, with t_0 re-measured on the family's rows at
    concurrency ≤ ANCHOR_CONCURRENCY, scored on its rows above it.
    """
    rows = validation_rows(df, FAMILIES)
    if rows.empty:
        raise MeasuredDataError(f"no single-node non-MTP rows on {', '.join(FAMILIES)} to validate against")
    pred = predict_rows(rows, calibrations)
    present = sorted(rows["hardware"].unique())
    columns = ["tpot_calibrated_ms", "tput_calibrated"]
    holdout = pd.DataFrame(np.nan, index=rows.index, columns=columns)
    anchored = pd.DataFrame(np.nan, index=rows.index, columns=columns)
    own = {family: fit(part) for family, part in rows.groupby("hardware")}
    for family in present if len(present) > 1 else ():  # a hold-out needs another GPU to learn from
        part = rows[rows["hardware"] == family]
        unseen = typical(cal for other, cal in own.items() if other != family)
        holdout.loc[part.index] = predict_rows(part, {"shared": unseen})[columns].to_numpy()
        scored = part[part["concurrency"] > ANCHOR_CONCURRENCY]
        if not scored.empty:
            local = anchor_overhead(unseen, part)
            anchored.loc[scored.index] = predict_rows(scored, {"shared": local})[columns].to_numpy()
    records = []
    for name, sel in [(f, rows["hardware"] == f) for f in present] + [("overall", rows["hardware"].notna())]:
        m = rows[sel]
        tpot, tput = m["median_tpot_ms"], m["output_tput_per_gpu_tok_s"]
        records.append(
            {
                "hardware": name,
                "rows": int(sel.sum()),
                "tpot_article": _ape(pred.loc[sel, "tpot_article_ms"], tpot),
                "tpot_calibrated": _ape(pred.loc[sel, "tpot_calibrated_ms"], tpot),
                "tpot_holdout": _ape(holdout.loc[sel, "tpot_calibrated_ms"], tpot),
                "tpot_anchored": _ape(anchored.loc[sel, "tpot_calibrated_ms"], tpot),
                "tput_article": _ape(pred.loc[sel, "tput_article"], tput),
                "tput_calibrated": _ape(pred.loc[sel, "tput_calibrated"], tput),
                "tput_holdout": _ape(holdout.loc[sel, "tput_calibrated"], tput),
                "tput_anchored": _ape(anchored.loc[sel, "tput_calibrated"], tput),
                "tpot_ratio_article": float(np.median(tpot / pred.loc[sel, "tpot_article_ms"])),
            }
        )
    return pd.DataFrame.from_records(records).set_index("hardware")


def format_validation(table: pd.DataFrame) -> str:
    head = (
        f"{'hardware':<9} {'rows':>4} | {'TPOT: article':>13} {'calibr.':>7} {'hold-out':>8} {'anchored':>8} | "
        f"{'tok/s/GPU: article':>18} {'calibr.':>7} {'hold-out':>8} {'anchored':>8} | {'TPOT meas./article':>18}"
    )
    lines = ["Median absolute percentage error, single-node FP8 non-MTP rows", head, "-" * len(head)]
    for name, r in table.iterrows():
        lines.append(
            f"{name:<9} {int(r['rows']):>4} | {r['tpot_article']:>13.1%} {r['tpot_calibrated']:>7.1%} "
            f"{r['tpot_holdout']:>8.1%} {r['tpot_anchored']:>8.1%} | {r['tput_article']:>18.1%} "
            f"{r['tput_calibrated']:>7.1%} {r['tput_holdout']:>8.1%} {r['tput_anchored']:>8.1%} | "
            f"{r['tpot_ratio_article']:>17.1f}×"
        )
    lines += [
        "calibr.: the stored per-hardware calibration (inferx/calibration.json).",
        "hold-out: the typical calibration of the other hardware (geometric mean of their fits).",
        f"anchored: hold-out with t_0 re-measured on the hardware's concurrency ≤ {ANCHOR_CONCURRENCY} rows, "
        f"scored on concurrency > {ANCHOR_CONCURRENCY}.",
    ]
    return "\n".join(lines)


def format_calibrations(fits: dict[str, Calibration]) -> str:
    head = f"{'family':<8} {'f_bw':>7} {'f_c':>7} {'f_pf':>7} {'t_0 (ms)':>9}"
    lines = [head, "-" * len(head)]
    for name, c in fits.items():
        lines.append(
            f"{name:<8} {c.bw_fraction:>7.3f} {c.compute_fraction:>7.3f} {c.prefill_fraction:>7.3f} "
            f"{1e3 * c.step_overhead_s:>9.2f}"
        )
    return "\n".join(lines)


def calibration_record(fits: dict[str, Calibration], source: str) -> dict:
    """The JSON committed as calibration.json (parameters only, never the rows)."""
    return {
        "note": (
            "Fitted by `python -m inferx calibrate --measured PATH` on the single-node, non-MTP FP8 rows "
            "(hardware h200, b200, mi300x) of the InferenceX DeepSeek-R1-0528 export; see docs/calibration.md."
        ),
        "source": source,
        "parameters": {name: {k: float(f"{v:.6g}") for k, v in asdict(c).items()} for name, c in fits.items()},
    }


def cli(command: str, path: str) -> int:
    """`inferx calibrate|validate --measured PATH`; returns the exit code."""
    try:
        df = load_measured(path)
        if command == "calibrate":
            fits = fit_all(df)
            print(format_calibrations(fits))
            print()
            print("calibration.json content:")
            print(json.dumps(calibration_record(fits, Path(path).name), indent=2))
            return 0
        print(format_validation(validation_table(df)))
        return 0
    except MeasuredDataError as err:
        print(f"inferx: {err}", file=sys.stderr)
        return 2
