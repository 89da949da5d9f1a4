"""Fitting the calibrated model to measured InferenceX rows (pandas + scipy).

Each software stack on each GPU at each weight precision ("gpu/framework/precision",
e.g. "b200/trt/fp4": the FP4 kernels are a different code path) gets its own
f_bw, f_c, f_pf, t_0, t_req, t_adm and f_q from its single-node rows without speculative decoding,
then its MTP acceptance α and first-token iterations m from its MTP rows with the rest held. The solver
is `scipy.optimize.least_squares` on the log errors of TPOT, TTFT and output tokens/s per GPU (the
throughput over the whole run, with the row's start-up stall: `startup_stall`), with a soft-L1
loss so that a few odd runs of a sweep do not drag the fit, and parameters in log form within
physical bounds. Their 1σ uncertainties come from the
Jacobian at the optimum.
"""

from __future__ import annotations

import logging
from dataclasses import fields

import numpy as np
import pandas as pd

from inferx.data.measured import MEAN_LENGTH_FRACTION, MeasuredDataError, filter_measured
from inferx.physics.hardware import GPUS
from inferx.physics.model_spec import DTYPE_BYTES
from inferx.serving import model as C
from inferx.serving import stored

# Fitted parameters and their physical bounds (fractions of peak, seconds, iterations).
BOUNDS = {
    "bw_fraction": (0.01, 1.0),
    "compute_fraction": (0.01, 1.0),
    "prefill_fraction": (0.01, 1.0),
    "step_overhead_s": (1e-5, 0.1),
    "request_overhead_s": (1e-4, 2.0),
    "admission_s": (1e-7, 0.1),
    "prefill_queue": (1e-5, 1.0),  # share of the other in-flight prompts' prefills a new one waits behind
    "dp_wait_steps": (0.01, 1000.0),  # only for stacks with attention-DP rows
}
FREE = tuple(BOUNDS)[:-1]
MIN_DP_ROWS = 3
METRICS = ("tpot", "ttft", "throughput_per_gpu")
MEASURED = {"tpot": "median_tpot_ms", "ttft": "median_ttft_ms", "throughput_per_gpu": "output_tput_per_gpu_tok_s",
            "e2e": "median_e2e_ms", "interactivity": "interactivity_tok_s_user"}  # fmt: skip
SCALE = {"tpot": 1e3, "ttft": 1e3, "e2e": 1e3, "throughput_per_gpu": 1.0, "interactivity": 1.0}  # to row units
MIN_ROWS = 6
# InferenceX re-runs a configuration as its software improves and the export keeps every run. A fit
# that weighed each run alike would follow the configurations re-run most often on older software; the
# newest run of each configuration counts fully, an older one by this factor (its residual is scaled by
# its square root). 1 weighs every run alike; 0 fits the newest runs only.
OLDER_RUN_WEIGHT = 0.1
CONFIGURATION = ("hardware", "framework", "precision", "spec_method", "isl", "osl", "concurrency", "n_gpus",
                 "decode_ep", "decode_dp_attention")  # fmt: skip

log = logging.getLogger("inferx.fit")  # progress of a long fit; `inferx calibrate` prints it


def single_node(df: pd.DataFrame) -> pd.DataFrame:
    return filter_measured(df, topology="single")


def fit_rows(df: pd.DataFrame) -> pd.DataFrame:
    """Single-node rows a fit can use: TPOT, TTFT and throughput all measured, GPU in the catalog."""
    rows = single_node(df)
    ok = rows["hardware"].isin(list(GPUS)) & rows["precision"].isin(list(DTYPE_BYTES))
    for column in ("median_tpot_ms", "median_ttft_ms", "output_tput_per_gpu_tok_s"):
        ok &= rows[column].gt(0)
    return rows[ok]


def newest_run(rows: pd.DataFrame) -> pd.Series:
    """True on the latest-dated run of each configuration (GPU, stack, precision, MTP, lengths, concurrency,
    GPUs, EP, attention DP); rows without a date count as one run each."""
    columns = [c for c in CONFIGURATION if c in rows.columns]
    dates = rows["date"].fillna("") if "date" in rows.columns else pd.Series("", index=rows.index)
    newest = dates.groupby([rows[c] for c in columns], dropna=False).transform("max")
    return dates.eq(newest)


def run_weights(rows: pd.DataFrame) -> np.ndarray:
    """Each row's weight in a fit: 1 for the newest run of its configuration, OLDER_RUN_WEIGHT for an older one."""
    return np.where(newest_run(rows).to_numpy(bool), 1.0, OLDER_RUN_WEIGHT)


def stack_key(rows: pd.DataFrame) -> pd.Series:
    return rows["hardware"] + "/" + rows["framework"].map(stored.base_framework) + "/" + rows["precision"]


def row_machine(rows: pd.DataFrame) -> C.Instance:
    """The serving instance of each single-node row: n GPUs, one TP group, KV copies per attention layout."""
    gpus = rows["n_gpus"].to_numpy(float)
    bw = np.array([C.resources(g, p)[0] for g, p in zip(rows["hardware"], rows["precision"], strict=True)])
    peak = np.array([C.resources(g, p)[1] for g, p in zip(rows["hardware"], rows["precision"], strict=True)])
    dp = rows["decode_dp_attention"].to_numpy(bool) & (gpus > 1)
    b_w = rows["precision"].map(DTYPE_BYTES).to_numpy(float)
    hbm = rows["hardware"].map(lambda g: GPUS[g].hbm).to_numpy(float) * gpus
    speed = np.array([C.attention_speed(g, p) for g, p in zip(rows["hardware"], rows["precision"], strict=True)])
    poll = np.ones(len(rows))
    for (gpu, framework, precision), part in rows.groupby(["hardware", "framework", "precision"]).groups.items():
        sel = rows.index.get_indexer(part)
        poll[sel] = C.poll_interval(gpu, framework, precision, rows["concurrency"].to_numpy(float)[sel], gpus[sel])
    return C.Instance(bw * gpus, peak * gpus, gpus, gpus, np.where(dp, 1.0, gpus), b_w, dp, hbm, attention_speed=speed,
                      poll_iterations=poll)  # fmt: skip


def lengths(rows: pd.DataFrame):
    """Mean input and output tokens per request of each row."""
    return MEAN_LENGTH_FRACTION * rows["isl"].to_numpy(float), MEAN_LENGTH_FRACTION * rows["osl"].to_numpy(float)


def startup_stall(rows: pd.DataFrame) -> np.ndarray:
    """Seconds a run lost once at its start (s): its p99 TTFT beyond the median, 0 where either is missing.

    A run whose first requests waited (a kernel compiled on first use) shows it in its p99 TTFT (~70 s on
    B200 SGLang runs of Nov–Dec 2025, against medians below 1 s) and in a throughput below its own
    concurrency · OSL / E2E; the medians do not move. `model.run_throughput` adds it to the run's length.
    """
    if "p99_ttft_ms" not in rows.columns:
        return np.zeros(len(rows))
    extra = (rows["p99_ttft_ms"].astype(float) - rows["median_ttft_ms"].astype(float)) / 1e3
    return np.clip(extra.fillna(0.0).to_numpy(float), 0.0, None)


def with_run(r: dict, stall) -> dict:
    """A closed-loop prediction with its throughput over the benchmark run (`model.run_throughput`)."""
    return {**r, "throughput_per_gpu": C.run_throughput(r["throughput_per_gpu"], r["e2e"], stall)}


def predict_single(cal: C.Calibration, rows: pd.DataFrame, mtp=None) -> dict:
    isl, osl = lengths(rows)
    mtp = rows["spec_method"].eq("mtp").to_numpy() if mtp is None else mtp
    r = _predict(cal, row_machine(rows), rows["concurrency"].to_numpy(float), isl, osl, mtp)
    return with_run(r, startup_stall(rows))


def _predict(cal, m, conc, isl, osl, mtp):
    mtp = np.broadcast_to(np.asarray(mtp, dtype=bool), conc.shape)
    if not mtp.any() or mtp.all():
        return C.closed_loop(cal, m, conc, isl, osl, mtp=bool(mtp.all()))
    out = {}
    for flag in (False, True):
        sel = mtp == flag
        part = C.Instance(**{f.name: np.broadcast_to(getattr(m, f.name), conc.shape)[sel] for f in fields(C.Instance)})
        r = C.closed_loop(cal, part, conc[sel], isl[sel], osl[sel], mtp=flag)
        for k, v in r.items():
            out.setdefault(k, np.empty(conc.shape))[sel] = v
    return out


def _measured(rows: pd.DataFrame) -> np.ndarray:
    return np.stack([rows[MEASURED[k]].to_numpy(float) / SCALE[k] for k in METRICS])


def fit(rows: pd.DataFrame, start: C.Calibration | None = None, free=None, min_rows=MIN_ROWS):
    """(Calibration, relative 1σ per parameter) of one stack on one GPU from its non-MTP rows.

    `free` names the parameters to fit (default: all that the rows can determine); the others
    keep their values in `start`.
    """
    rows = rows[rows["spec_method"].ne("mtp")]
    if len(rows) < min_rows:
        raise MeasuredDataError(f"need at least {min_rows} single-node non-MTP rows to fit, got {len(rows)}")
    m, conc = row_machine(rows), rows["concurrency"].to_numpy(float)
    isl, osl = lengths(rows)
    measured = _measured(rows)
    scale = np.sqrt(run_weights(rows))
    stall = startup_stall(rows)

    if free is None:
        free = FREE + (("dp_wait_steps",) if np.sum(m.dp_attention) >= MIN_DP_ROWS else ())
    lower, upper = (np.log([BOUNDS[f][i] for f in free]) for i in (0, 1))
    base = (start or C.Calibration(0.7, 0.2, 0.15, 0.008, 0.05)).__dict__

    def calibration(phi) -> C.Calibration:
        return C.Calibration(**{**base, **dict(zip(free, np.exp(phi), strict=True))})

    def residuals(phi):
        r = with_run(C.closed_loop(calibration(phi), m, conc, isl, osl, iterations=25), stall)
        return (np.log(np.stack([r[k] for k in METRICS]) / measured) * scale).ravel()

    first = {
        **base,
        "admission_s": base["admission_s"] or 1e-4,
        "dp_wait_steps": base["dp_wait_steps"] or 10.0,
        "prefill_queue": base["prefill_queue"] or 1e-3,
    }
    phi0 = np.clip(np.log([first[f] for f in free]), lower + 1e-9, upper - 1e-9)
    result = _solve(residuals, phi0, (lower, upper), x_scale=1.0)
    return calibration(result.x), dict(zip(free, _sigma(result), strict=True))


def _solve(residuals, x0, bounds, **options):
    """`scipy.optimize.least_squares` with the soft-L1 loss. scipy is imported here, by a fit only: scoring rows
    (`inferx validate`'s predictions, the /inferencex page's errors) does without it."""
    from scipy.optimize import least_squares

    return least_squares(residuals, x0, bounds=bounds, loss="soft_l1", f_scale=0.1, **options)


UNDETERMINED = 1e-6  # a parameter's share of a direction the rows leave free, past which it is not determined


def _sigma(result) -> np.ndarray:
    """1σ of the log parameters (≈ relative 1σ) from the Jacobian; a parameter at its bound gets ∞, one the rows
    do not determine (it moves along a direction no residual sees: six copies of one run fix three numbers, not
    nine) NaN. The pseudo-inverse alone would give such a parameter a finite σ, and a perfect fit 0."""
    jac = result.jac
    dof = max(jac.shape[0] - jac.shape[1], 1)
    s2 = float(np.sum(result.fun**2)) / dof
    try:
        _, singular, vt = np.linalg.svd(jac, full_matrices=True)
        cov = np.linalg.pinv(jac.T @ jac) * s2
        sigma = np.sqrt(np.clip(np.diag(cov), 0, None))
    except np.linalg.LinAlgError:
        return np.full(jac.shape[1], np.inf)
    # numpy's rank tolerance; every direction past the singular values is free too (fewer rows than parameters).
    tol = singular.max(initial=0.0) * max(jac.shape) * np.finfo(float).eps
    free = vt[np.concatenate([singular, np.zeros(jac.shape[1] - singular.size)]) <= tol]
    sigma[np.abs(free).max(axis=0, initial=0.0) > UNDETERMINED] = np.nan
    sigma[result.active_mask != 0] = np.inf
    return sigma


MTP_FREE = {"acceptance": (0.01, 0.99), "first_token_steps": (0.05, 4.0)}  # α; m, iterations before token 1


def fit_acceptance(cal: C.Calibration, rows: pd.DataFrame) -> tuple[dict, dict]:
    """({α, m}, their relative 1σ) from MTP rows, the stack's other parameters held: the chance each draft token
    is accepted and the verify iterations between a prompt's prefill and its first token."""
    rows = rows[rows["spec_method"].eq("mtp")]
    m, conc = row_machine(rows), rows["concurrency"].to_numpy(float)
    isl, osl = lengths(rows)
    measured = _measured(rows)
    scale = np.sqrt(run_weights(rows))
    stall = startup_stall(rows)

    names = tuple(MTP_FREE)

    def calibration(x) -> C.Calibration:
        return C.Calibration(**{**cal.__dict__, **dict(zip(names, (float(v) for v in x), strict=True))})

    def residuals(x):
        r = with_run(C.closed_loop(calibration(x), m, conc, isl, osl, mtp=True, iterations=25), stall)
        return (np.log(np.stack([r[k] for k in METRICS]) / measured) * scale).ravel()

    lower, upper = ([MTP_FREE[n][i] for n in names] for i in (0, 1))
    x0 = np.clip([getattr(cal, n) for n in names], np.add(lower, 1e-6), np.subtract(upper, 1e-6))
    result = _solve(residuals, x0, (lower, upper))
    sigma = _sigma(result) / np.maximum(result.x, 1e-9)  # fitted linearly: relative 1σ
    return dict(zip(names, map(float, result.x), strict=True)), dict(zip(names, map(float, sigma), strict=True))


def fit_all(df: pd.DataFrame) -> dict:
    """Every stack on every GPU with enough rows: {"gpu/framework": (Calibration, σ, rows)}."""
    rows = fit_rows(df)
    if rows.empty:
        raise MeasuredDataError("no single-node rows with TPOT, TTFT and throughput on a catalog GPU to fit")
    keys = stack_key(rows)
    fits = {}
    for key, part in rows.groupby(keys):
        if part["spec_method"].ne("mtp").sum() < MIN_ROWS:
            continue
        log.info("fitting %s on %d rows", key, len(part))
        cal, sigma = fit(part)
        if part["spec_method"].eq("mtp").sum() >= 3:
            values, spread = fit_acceptance(cal, part)
            cal = C.Calibration(**{**cal.__dict__, **values})
            sigma.update(spread)
        fits[key] = (cal, sigma, int(len(part)))
    if not fits:
        raise MeasuredDataError(f"no GPU and stack has {MIN_ROWS} single-node non-MTP rows to fit")
    # A stack with no MTP rows takes the typical α and m of those that have some (MTP is the model's).
    measured_mtp = [c for c, s, _ in fits.values() if "acceptance" in s]
    if measured_mtp:
        mtp = {n: float(np.exp(np.mean(np.log([getattr(c, n) for c in measured_mtp])))) for n in MTP_FREE}
        fits = {k: (c if "acceptance" in s else C.Calibration(**{**c.__dict__, **mtp}), s, n)
                for k, (c, s, n) in fits.items()}  # fmt: skip
    return fits


def power_rows(df: pd.DataFrame) -> pd.DataFrame:
    """Single-node rows on a catalog GPU that say what the GPUs drew (`avg_power_w`, per GPU) and the energy
    per output token."""
    if not {"avg_power_w", "joules_per_output_token"} <= set(df.columns):
        return df.iloc[:0]
    rows = fit_rows(df)
    return rows[rows["avg_power_w"].gt(0) & rows["joules_per_output_token"].gt(0)]


def busy_shares(rows: pd.DataFrame, calibrations: dict | None = None) -> pd.Series:
    """`model.busy_share` of each single-node row, at the decode batch its closed loop settles on, with
    the calibration each row's GPU, stack and precision take."""
    out = pd.Series(np.nan, index=rows.index)
    for (gpu, framework, precision), part in rows.groupby(["hardware", "framework", "precision"]):
        cal, _ = stored.calibration_for(gpu, framework, calibrations, precision)
        isl, osl = lengths(part)
        r = predict_single(cal, part)
        mtp = part["spec_method"].eq("mtp").to_numpy()
        memory, compute = C.resource_times(cal, row_machine(part), r["batch"], isl + osl / 2, isl, osl, mtp=mtp)
        out[part.index] = C.busy_share(memory, compute, r["tpot"])
    return out


def fit_power(df: pd.DataFrame, calibrations: dict | None = None) -> stored.PowerDraw | None:
    """The draw by load, `stored.PowerDraw`: avg_power_w / board power = floor + slope · busy share, by least
    squares over the rows that report power (None with fewer than three)."""
    rows = power_rows(df)
    if len(rows) < 3:
        return None
    busy = busy_shares(rows, calibrations).to_numpy()
    drawn = (rows["avg_power_w"] / rows["hardware"].map(lambda gpu: GPUS[gpu].power)).to_numpy(float)
    (floor, slope), *_ = np.linalg.lstsq(np.column_stack([np.ones_like(busy), busy]), drawn, rcond=None)
    return stored.PowerDraw(float(f"{floor:.4g}"), float(f"{slope:.4g}"), int(len(rows)))


def calibrations(fits: dict) -> dict[str, C.Calibration]:
    return {key: cal for key, (cal, _, _) in fits.items()}


def calibration_record(
    fits: dict, source: str, spread: dict | None = None, spread_by_key: dict | None = None, power=None
) -> dict:
    """The JSON committed as calibration.json (parameters and their uncertainty, never the rows)."""

    def num(x):
        return None if not np.isfinite(x) else float(f"{x:.4g}")

    return {
        "note": (
            "Fitted by `python -m inferx calibrate --measured PATH` on the single-node rows of the InferenceX "
            "DeepSeek-R1-0528 export, one calibration per GPU and software stack; uncertainty is the relative "
            "1σ from the fit's Jacobian (null: the parameter sits at a bound, or the rows do not determine it); "
            "`power` is the draw by load (share of board power = floor + slope × busy share), fitted on the rows "
            "that report power; see docs/calibration.md."
        ),
        "source": source,
        "parameters": {
            k: {f: float(f"{getattr(c, f):.6g}") for f in c.per_stack_fields()} for k, (c, _, _) in fits.items()
        },  # fmt: skip
        "uncertainty": {k: {f: num(v) for f, v in s.items()} for k, (_, s, _) in fits.items()},
        "rows": {k: n for k, (_, _, n) in fits.items()},
        "residual_spread": spread or {},
        "residual_spread_by_key": spread_by_key or {},
        "power": power.__dict__ if power is not None else None,
    }
