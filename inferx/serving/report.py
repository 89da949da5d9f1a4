"""Scoring the calibrated model against measured rows: predictions per row, error tables, cross-validation.

Every row of a file is scored, whatever its GPU: a GPU and stack with a stored fit use it,
any other is predicted from its datasheet (`stored.calibration_for` says how, in the
`basis` column). Errors are |predicted / measured − 1|, summarised by median and p90.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from inferx.data.measured import MeasuredDataError, model_quantities
from inferx.physics import engine, model_spec
from inferx.physics.hardware import GPUS
from inferx.physics.models import catalog_key
from inferx.serving import adapter as economics
from inferx.serving import fit as F
from inferx.serving import stored as C
from inferx.serving.disagg import predict_disaggregated
from inferx.serving.model import predict_article

MODEL_KEY = "deepseek-r1"  # the catalog key of the only model the calibration is fitted to and predicts

METRIC_NAMES = {
    "tpot": "TPOT",
    "ttft": "TTFT",
    "throughput_per_gpu": "tok/s/GPU",
    "interactivity": "interactivity",
    "e2e": "E2E",
}


def _empty(index) -> pd.DataFrame:
    out = pd.DataFrame(index=index)
    for m in METRIC_NAMES:
        out[f"{m}_calibrated"] = np.nan
    out["basis"] = ""
    return out


def predict_calibrated(df: pd.DataFrame, calibrations: dict | None = None) -> pd.DataFrame:
    """The calibrated model's TPOT, TTFT, E2E (ms), tok/s/GPU and interactivity (tok/s/user) for each row.

        Single-node rows use the closed loop on one instance; disaggregated rows the prefill-pool /
        decode-pool model. Rows on a GPU outside the hardware catalog, or at a precision the model
    has no bytes for, stay NaN with basis "not modelled" (and are listed as such, not dropped).
    """
    fits = C.load_calibration() if calibrations is None else calibrations
    out = _empty(df.index)
    known = df["hardware"].isin(list(GPUS)) & df["precision"].isin(list(model_spec.DTYPE_BYTES))
    out.loc[~known, "basis"] = "not modelled"
    single = ~df["disagg"] & ~df["is_multinode"]
    for (gpu, framework, precision), part in df[known].groupby(["hardware", "framework", "precision"]):
        cal, basis = C.calibration_for(gpu, framework, fits, precision)
        for is_single, rows in part.groupby(single[part.index]):
            r = F.predict_single(cal, rows) if is_single else predict_disaggregated(cal, rows)
            for m in METRIC_NAMES:
                out.loc[rows.index, f"{m}_calibrated"] = np.asarray(r[m]) * F.SCALE[m]
            out.loc[rows.index, "basis"] = basis if is_single else f"{basis}, disaggregated"
    return out


def predict_rows(df: pd.DataFrame, calibrations: dict | None = None) -> pd.DataFrame:
    """Both models beside each row: the article's TPOT and tok/s/GPU (B = concurrency) and the calibrated ones.

    Columns tpot_article_ms, tput_article, tpot_calibrated_ms, tput_calibrated (the figures' names), plus
    every calibrated metric (`predict_calibrated`).
    """
    out = predict_calibrated(df, calibrations)
    out["tpot_article_ms"] = np.nan
    out["tput_article"] = np.nan
    q = model_quantities(df)
    for gpu, rows in df[df["hardware"].isin(list(GPUS))].groupby("hardware"):
        qq = q.loc[rows.index]
        art = predict_article(gpu, qq["batch"], qq["isl"], qq["osl"], qq["tp"])
        out.loc[rows.index, "tpot_article_ms"] = 1e3 * art["tpot"]
        out.loc[rows.index, "tput_article"] = art["throughput_per_gpu"]
    out["tpot_calibrated_ms"] = out["tpot_calibrated"]
    out["tput_calibrated"] = out["throughput_per_gpu_calibrated"]
    return out


def errors(
    df: pd.DataFrame, pred: pd.DataFrame, suffix: str = "calibrated", metrics=tuple(METRIC_NAMES)
) -> pd.DataFrame:
    """|predicted / measured − 1| per row and metric (NaN where either side is missing)."""
    out = pd.DataFrame(index=df.index)
    for m in metrics:
        measured = df[F.MEASURED[m]].astype(float)
        predicted = pred[f"{m}_{suffix}"].astype(float)
        ok = measured.gt(0) & predicted.gt(0)
        out[m] = (predicted / measured - 1.0).abs().where(ok)
    return out


def of_fitted_model(df: pd.DataFrame) -> pd.Series:
    """Which rows are of the model the calibration is fitted to, by any of its names (dsr1, DeepSeek-R1-0528); a
    row that names no model is taken as its."""
    names = df["model"].str.strip()
    ours = {name: catalog_key(name) == MODEL_KEY for name in names.unique() if name}
    return names.map(lambda name: not name or ours[name]).astype(bool)


SHOWN_METRICS = ("throughput_per_gpu", "interactivity")  # the two axes of /inferencex's chart


def shown_errors(rows: pd.DataFrame, calibrations: dict | None = None) -> dict | None:
    """Median and p90 of |predicted / measured − 1| over `rows` of the quantities InferenceX's chart plots, each
    row predicted at its own GPU, stack, precision, lengths and concurrency, as `inferx validate` scores it:
    {"runs": rows scored, metric: (median, p90), "unfitted": rows whose GPU, stack and precision have no fit of
    their own (predicted from a typical fit and the datasheet), "newest": the same over the newest run of each
    configuration, today's software (None where no configuration was run twice)}. None where no row can be
    scored: another model's runs, or GPUs outside the catalog."""
    rows = rows[of_fitted_model(rows)] if not rows.empty else rows
    if rows.empty:
        return None
    pred = predict_calibrated(rows, calibrations)
    err = errors(rows, pred, metrics=SHOWN_METRICS).dropna()
    if err.empty:
        return None

    def spread(part: pd.DataFrame) -> dict:
        return {m: (float(np.median(part[m])), float(np.quantile(part[m], 0.9))) for m in SHOWN_METRICS}

    newest = F.newest_run(rows.loc[err.index]).to_numpy(bool)
    unfitted = int((~pred.loc[err.index, "basis"].str.startswith("fitted")).sum())
    latest = {"runs": int(newest.sum()), **spread(err[newest])} if not newest.all() else None
    return {"runs": len(err), **spread(err), "unfitted": unfitted, "newest": latest}


def leave_one_gpu_out(df: pd.DataFrame) -> pd.DataFrame:
    """Each GPU's single-node rows predicted by a calibration fitted without any of them.

    Its stacks then come from the same stack on the other GPUs (or the typical fit of every
    stack), scaled to its datasheet. GPUs with too few rows elsewhere to fit stay NaN.
    """
    rows = F.fit_rows(df)
    out = _empty(df.index)
    for gpu, fits in _held_out_fits(rows):
        part = df.loc[rows.index[rows["hardware"] == gpu]]
        out.loc[part.index] = predict_calibrated(part, fits)
    return out


def _held_out_fits(rows: pd.DataFrame):
    """(GPU, calibrations fitted on every other GPU's rows) for each GPU that has others to learn from."""
    gpus = sorted(rows["hardware"].unique())
    for k, gpu in enumerate(gpus if len(gpus) > 1 else ()):
        F.log.info("leaving %s out of the fit (%d of %d GPUs)", gpu, k + 1, len(gpus))
        try:
            yield gpu, F.calibrations(F.fit_all(rows[rows["hardware"] != gpu]))
        except MeasuredDataError:
            continue


ANCHOR_CONCURRENCY = 4  # rows at or below it re-measure the fixed costs of a held-out GPU
ANCHORED = ("step_overhead_s", "request_overhead_s")


def leave_one_gpu_out_anchored(df: pd.DataFrame) -> pd.DataFrame:
    """`leave_one_gpu_out`, with each stack's fixed costs (t_0, t_req) re-measured on the held-out GPU.

    They come from its rows at concurrency ≤ ANCHOR_CONCURRENCY, where they dominate; those rows
    are then not scored. The fractions of peak, the queueing terms and α still come from other GPUs.
    """
    rows = F.fit_rows(df)
    out = _empty(df.index)
    for gpu, fits in _held_out_fits(rows):
        part = rows[rows["hardware"] == gpu]
        for (framework, precision), stack in part.groupby(["framework", "precision"]):
            cal, _ = C.calibration_for(gpu, framework, fits, precision)
            low = stack[stack["concurrency"] <= ANCHOR_CONCURRENCY]
            scored = stack[stack["concurrency"] > ANCHOR_CONCURRENCY]
            if scored.empty:
                continue
            if low["spec_method"].ne("mtp").sum() >= 2:
                cal, _ = F.fit(low, cal, ANCHORED, min_rows=2)
            r = F.predict_single(cal, scored)
            for m in METRIC_NAMES:
                out.loc[scored.index, f"{m}_calibrated"] = np.asarray(r[m]) * F.SCALE[m]
    return out


def _groups(df: pd.DataFrame):
    single = ~df["disagg"] & ~df["is_multinode"]
    mtp = np.where(df["spec_method"].eq("mtp"), "MTP", "no MTP")
    yield "single-node", single
    for name, key in (
        ("GPU", df["hardware"]),
        ("precision", df["precision"]),
        ("", pd.Series(mtp, index=df.index)),  # its values name themselves: "MTP", "no MTP"
        ("stack", df["framework"]),
        ("ISL/OSL", df["isl"].astype(str) + "/" + df["osl"].astype(str)),
    ):
        for value in sorted(key[single].unique()):
            yield f"{name} {value}".lstrip(), single & (key == value)
    for precision in sorted(df.loc[single, "precision"].unique()):
        for flag in ("no MTP", "MTP"):
            yield f"{precision} {flag}", single & (df["precision"] == precision) & (mtp == flag)
    yield "disaggregated", ~single
    for gpu in sorted(df.loc[~single, "hardware"].unique()):
        yield f"disagg. {gpu}", ~single & (df["hardware"] == gpu)


def summary(df: pd.DataFrame, err: pd.DataFrame) -> pd.DataFrame:
    """Median and p90 of each metric's |error| per group of rows (rows: the group's count)."""
    records = []
    for name, sel in _groups(df):
        if not sel.any():
            continue
        record = {"group": name, "rows": int(sel.sum())}
        for m in METRIC_NAMES:
            e = err.loc[sel, m].dropna()
            record[f"{m}_median"] = float(np.median(e)) if len(e) else np.nan
            record[f"{m}_p90"] = float(np.quantile(e, 0.9)) if len(e) else np.nan
        records.append(record)
    return pd.DataFrame.from_records(records).set_index("group")


def validation_table(
    df: pd.DataFrame,
    calibrations: dict | None = None,
    cross_validate: bool = True,
    held_out: pd.DataFrame | None = None,
) -> dict:
    """{"calibrated": summary, "leave-one-GPU-out": summary, "basis": counts} over every row of `df`. `held_out`:
    `leave_one_gpu_out(df)` where the caller has it (validate writing its error tables too)."""
    if df.empty:
        raise MeasuredDataError("no rows to validate against")
    pred = predict_rows(df, calibrations)
    err = errors(df, pred)
    tables = {"calibrated": summary(df, err)}
    # Today's software: the newest run of each configuration only (the export keeps every re-run).
    newest = F.newest_run(df)
    tables["newest"] = summary(df[newest], err[newest])
    if cross_validate:
        held_out = leave_one_gpu_out(df) if held_out is None else held_out
        tables["leave-one-GPU-out"] = summary(df, errors(df, held_out))
        tables["anchored"] = summary(df, errors(df, leave_one_gpu_out_anchored(df)))
    tables["energy"] = energy_table(df, pred, calibrations)
    tables["basis"] = pred.groupby([df["hardware"], df["framework"], df["precision"], pred["basis"]]).size()
    return tables


def energy_table(df: pd.DataFrame, pred: pd.DataFrame, calibrations: dict | None = None) -> pd.DataFrame:
    """Median and p90 of |error| of the power a GPU draws (a share of board power against `avg_power_w`) and of
    joules per output token (that power over the calibrated output tok/s per GPU, against
    `joules_per_output_token`), on the single-node rows that report both: at TDP, the article's convention, and
    by load, calibrated mode's default (`stored.PowerDraw` at each row's busy share). Empty where no row
    reports power (disaggregated rows are left out: their throughput is per decode GPU, their power not said)."""
    rows = F.power_rows(df)
    rows = rows[pred.loc[rows.index, "throughput_per_gpu_calibrated"].gt(0)]
    if rows.empty:
        return pd.DataFrame()
    board = rows["hardware"].map(lambda gpu: GPUS[gpu].power)
    tput = pred.loc[rows.index, "throughput_per_gpu_calibrated"]
    draw = economics.power_draw()
    shares = {"TDP (article physics)": pd.Series(engine.POWER_FRACTION, index=rows.index)}
    if draw is not None:
        shares["by load (calibrated)"] = pd.Series(draw.fraction(F.busy_shares(rows, calibrations)), index=rows.index)
    records = []
    for name, fraction in shares.items():
        watts = fraction * board
        power = (watts / rows["avg_power_w"] - 1).abs()
        joules = (watts / tput / rows["joules_per_output_token"] - 1).abs()
        records.append({"power drawn as": name, "rows": int(len(rows)), "fraction": float(fraction.median()),
                        "power_median": power.median(), "power_p90": power.quantile(0.9),
                        "joules_median": joules.median(), "joules_p90": joules.quantile(0.9)})  # fmt: skip
    return pd.DataFrame.from_records(records).set_index("power drawn as")


def format_energy(table: pd.DataFrame) -> str:
    lines = [
        "Energy, single-node rows that report power: |predicted / measured − 1| of the power a GPU draws and of "
        "joules per output token (that power over the calibrated output tok/s per GPU)",
        f"{'power drawn as':<30} {'n':>5} {'× TDP':>6} | {'power':>13} | {'J/token':>13}   (× TDP: the median)",
        f"{'':<30} {'':>5} {'':>6} | {'median':>6} {'p90':>6} | {'median':>6} {'p90':>6}",
    ]
    for name, r in table.iterrows():
        lines.append(
            f"{name:<30} {int(r['rows']):>5} {r['fraction']:>6.2f} | {r['power_median']:>6.1%} {r['power_p90']:>6.1%}"
            f" | {r['joules_median']:>6.1%} {r['joules_p90']:>6.1%}"
        )
    return "\n".join(lines)


# A calibration key's own band needs this many rows; with fewer, its p10/p90 would be noise and the band
# falls back to the pooled spread.
MIN_SPREAD_ROWS = 40


def _log_ratios(df: pd.DataFrame, calibrations: dict | None):
    rows = F.fit_rows(df)
    pred = predict_calibrated(rows, calibrations)
    ratios = {m: np.log(pred[f"{m}_calibrated"].astype(float) / rows[F.MEASURED[m]]) for m in METRIC_NAMES}
    return rows, ratios


def _quantiles(ratio: pd.Series):
    ratio = ratio.dropna()
    return [float(f"{q:.4g}") for q in np.quantile(ratio, [0.1, 0.9])] if len(ratio) else None


def residual_spread(df: pd.DataFrame, calibrations: dict | None = None) -> dict:
    """(p10, p90) of log(predicted / measured) per metric on single-node rows: the width of an honest band."""
    _, ratios = _log_ratios(df, calibrations)
    return {m: q for m, r in ratios.items() if (q := _quantiles(r))}


def residual_spread_by_key(df: pd.DataFrame, calibrations: dict | None = None, min_rows=MIN_SPREAD_ROWS) -> dict:
    """`residual_spread` per calibration key ("gpu/stack/precision", MTP rows included) with ≥ min_rows rows."""
    rows, ratios = _log_ratios(df, calibrations)
    keys = F.stack_key(rows)
    out = {}
    for key in sorted(keys.unique()):
        sel = keys == key
        if sel.sum() >= min_rows:
            out[key] = {m: q for m, r in ratios.items() if (q := _quantiles(r[sel]))}
    return out


CONCURRENCY_BINS = ((1, 8), (9, 32), (33, 128), (129, 1 << 30))  # users in the closed loop


def _concurrency_label(low: int, high: int) -> str:
    return f"≥ {low}" if high >= 1 << 30 else f"{low}–{high}"


def error_tables(df: pd.DataFrame, calibrations: dict | None = None, held_out: pd.DataFrame | None = None) -> dict:
    """Median and p90 |predicted / measured − 1| of the calibrated model on single-node rows, by GPU, precision,
    ISL/OSL, concurrency and calibration key: aggregates only (no row of the file), for `/methods` to show
    without the data. The last, `C.HELD_OUT_GROUPING`, scores each GPU's rows by a calibration fitted without any
    of them (`leave_one_gpu_out`, or `held_out` where the caller has it), and its pooled row what to expect on a
    GPU with no runs of its own."""
    single = ~df["disagg"] & ~df["is_multinode"]
    err = errors(df, predict_calibrated(df, calibrations))
    concurrency = df["concurrency"].astype(int)
    keys = {
        "GPU": df["hardware"].astype(str),
        "precision": df["precision"].astype(str),
        "ISL/OSL": df["isl"].astype(int).astype(str) + "/" + df["osl"].astype(int).astype(str),
        "concurrency": pd.Series("", index=df.index),
        C.STACK_GROUPING: F.stack_key(df),  # a calibration's own rows: what the page quotes for one
    }
    for low, high in CONCURRENCY_BINS:
        keys["concurrency"][concurrency.between(low, high)] = _concurrency_label(low, high)
    tables = {}
    for name, key in keys.items():
        values = key[single].unique()
        order = [_concurrency_label(*b) for b in CONCURRENCY_BINS] if name == "concurrency" else sorted(values)
        tables[name] = [_error_record(value, err, single & (key == value)) for value in order if value in values]
    err = errors(df, leave_one_gpu_out(df) if held_out is None else held_out)
    scored = single & err.notna().any(axis=1)  # a GPU with no other GPU to learn from has no prediction
    gpus = [_error_record(gpu, err, scored & (keys["GPU"] == gpu)) for gpu in sorted(keys["GPU"][scored].unique())]
    tables[C.HELD_OUT_GROUPING] = [*gpus, _error_record(C.HELD_OUT_POOLED, err, scored)] if gpus else []
    return tables


def _error_record(group: str, err: pd.DataFrame, sel: pd.Series) -> dict:
    """{"group", "rows", metric: [median, p90] to 3 significant figures, or None where no row has it}."""
    record = {"group": group, "rows": int(sel.sum())}
    for m in METRIC_NAMES:
        e = err.loc[sel, m].dropna()
        record[m] = [float(f"{np.median(e):.3g}"), float(f"{np.quantile(e, 0.9):.3g}")] if len(e) else None
    return record


def format_summary(table: pd.DataFrame, title: str) -> str:
    head = f"{'rows':<24} {'n':>5} | " + " | ".join(f"{METRIC_NAMES[m]:>13}" for m in METRIC_NAMES)
    sub = f"{'':<24} {'':>5} | " + " | ".join(f"{'median':>6} {'p90':>6}" for _ in METRIC_NAMES)
    lines = [title, head, sub, "-" * len(head)]

    def pct(x):  # past 999.9 % the digits would only push the columns apart (a run measured at 1e-300 ms)
        shown = f"{x:>6.1%}" if np.isfinite(x) else f"{'—':>6}"
        return shown if len(shown) <= 6 else ">1000%"

    for name, r in table.iterrows():
        cells = " | ".join(f"{pct(r[f'{m}_median'])} {pct(r[f'{m}_p90'])}" for m in METRIC_NAMES)
        lines.append(f"{name:<24} {int(r['rows']):>5} | {cells}")
    return "\n".join(lines)


def format_validation(tables: dict) -> str:
    parts = [
        format_summary(
            tables["calibrated"], "|predicted / measured − 1|, stored calibration (inferx/serving/calibration.json)"
        )
    ]
    if "newest" in tables:
        parts.append(
            format_summary(
                tables["newest"],
                "The same, scored on the newest run of each configuration only (GPU, stack, precision, MTP, "
                "lengths, concurrency, GPUs, EP, attention DP): today's software",
            )
        )
    if "leave-one-GPU-out" in tables:
        parts.append(
            format_summary(
                tables["leave-one-GPU-out"],
                "Leave-one-GPU-out: each GPU's single-node rows predicted by a fit that never saw that GPU",
            )
        )
    if "anchored" in tables:
        parts.append(
            format_summary(
                tables["anchored"],
                f"Anchored leave-one-GPU-out: as above, with t_0 and t_req re-measured on the GPU's rows at "
                f"concurrency ≤ {ANCHOR_CONCURRENCY}, scored on its rows above",
            )
        )
    if not tables.get("energy", pd.DataFrame()).empty:
        parts.append(format_energy(tables["energy"]))
    basis = tables["basis"].reset_index()
    lines = ["Where each row's calibration came from (fitted, stack typical, GPU typical, datasheet):"]
    for r in basis.itertuples():
        lines.append(f"  {r.hardware:<8} {r.framework:<14} {r.precision:<4} {r.basis:<40} {r[-1]:>5} rows")
    parts.append("\n".join(lines))
    parts.append(
        "E2E is TTFT plus the mean output (0.9 × OSL: InferenceX draws lengths in 0.8–1 × the nominal) × TPOT."
    )
    return "\n\n".join(parts)
