"""Fitting the transferable serving model (`transfer`) to every source at once, and scoring it held out.

Two kinds of rows, each predicted as it was measured:

* InferenceX's single-node DeepSeek-R1 runs without speculative decoding: a closed loop of C users
  (`model.closed_loop`), scored on TPOT, TTFT and output tok/s per GPU over the run (`fit.with_run`);
* published maximum-throughput rows (`data.published`): an engine at an infinite request rate
  (`transfer.offline_throughput`), scored on output tok/s of the instance.

One least-squares solve (soft-L1 on log errors, parameters in log form within bounds) fits every die's f_bw and
f_c, every stack's overheads, and the experts' GEMM rate. `held_out` refits without one GPU, or one model, at a
time and scores the rows left out: the errors a reader should expect of a GPU or a model nobody measured.
"""

from __future__ import annotations

import functools
import logging
from dataclasses import fields

import numpy as np
import pandas as pd

from inferx.data.measured import MeasuredDataError
from inferx.physics.hardware import GPUS
from inferx.physics.models import DEEPSEEK_R1, MODELS
from inferx.serving import fit as F
from inferx.serving import model as C
from inferx.serving import transfer as T

log = logging.getLogger("inferx.fit")

SILICON_BOUNDS = {"bw": (0.2, 1.0), "fp8": (0.02, 1.0), "fp4": (0.02, 1.0)}
STACK_BOUNDS = {
    "layer_s": (1e-6, 1e-3),  # per layer per step: a few kernel launches and their gaps
    "collective_s": (1e-7, 1e-3),  # per collective: its latency and synchronisation
    "prefill": (0.05, 2.0),  # prefill GEMM rate over the decode GEMMs' peak share
    "request_s": (1e-3, 1.0),
    "queue": (1e-5, 1.0),
    "dp_wait_steps": (0.1, 1000.0),
}
SHARED_BOUNDS = {"expert_rate": (0.02, 1.0)}
PRIOR_WEIGHT = 0.5  # per unit of log: a factor e between two stacks' per-layer costs weighs as a 50 % error
PUBLISHED_WEIGHT = 4.0  # a published row's weight against one InferenceX metric: 165 rows beside ~700 × 3
METRICS = ("tpot", "ttft", "throughput_per_gpu", "e2e")


def inferencex_rows(df: pd.DataFrame) -> pd.DataFrame:
    """Single-node, non-MTP DeepSeek-R1 rows with the three metrics, on a catalog GPU."""
    rows = F.fit_rows(df)
    return rows[rows["spec_method"].ne("mtp")]


def published_machine(rows: pd.DataFrame) -> C.Instance:
    """The `Instance` of each published row (its GPUs, precision, attention layout), as arrays."""
    parts = [
        T.instance(GPUS[g], n, p, MODELS[key], dp)
        for key, g, n, p, dp in zip(
            rows["model"], rows["gpu"], rows["gpus"], rows["precision"], rows["dp_attention"], strict=True
        )
    ]
    return C.Instance(**{f.name: np.array([getattr(x, f.name) for x in parts]) for f in fields(C.Instance)})


class Layout:
    """Which parameter each position of the fitted vector is, given the rows' dies, precisions and stacks."""

    def __init__(self, ix: pd.DataFrame, pub: pd.DataFrame):
        gpus = list(ix["hardware"]) + list(pub["gpu"])
        precisions = list(ix["precision"]) + list(pub["precision"])
        pairs = {(T.silicon_of(g), p) for g, p in zip(gpus, precisions, strict=True)}
        self.silicon = sorted({s for s, _ in pairs})
        # A stack gets costs of its own only where some of its rows are a closed loop (InferenceX, or a published
        # concurrency sweep): at maximum throughput alone a per-step cost and the die's efficiency trade off
        # freely (AMD's eight vLLM rows fitted a per-collective cost 7× every other stack's, and a TPOT at B = 1
        # 22× the weights' read). Its offline rows are predicted with the typical stack's (`transfer.stack_params`);
        # with no closed loop at all, every stack is fitted as the rows have it.
        load = pub["load"] if "load" in pub else pd.Series("offline", index=pub.index)
        closed = _pub_stacks(pub)[load.eq("concurrency").to_numpy()]
        stacks = set(ix["framework"].map(C.base_framework)) | set(closed.tolist())
        self.stacks = sorted(stacks or set(_pub_stacks(pub).tolist()))
        dp_stacks = set(ix.loc[ix["decode_dp_attention"] & ix["n_gpus"].gt(1), "framework"].map(C.base_framework))
        dp_stacks |= set(_pub_stacks(pub)[pub["dp_attention"].astype(bool).to_numpy()].tolist())
        self.names, bounds = [], []
        for s in self.silicon:
            for f in _silicon_fields(s, pairs):
                self.names.append(("silicon", s, f))
                bounds.append(SILICON_BOUNDS[f])
        for st in self.stacks:
            for f in T.STACK_FIELDS:
                if f == "dp_wait_steps" and st not in dp_stacks:
                    continue
                self.names.append(("stack", st, f))
                bounds.append(STACK_BOUNDS[f])
        for f in SHARED_BOUNDS:
            self.names.append(("shared", "", f))
            bounds.append(SHARED_BOUNDS[f])
        self.lower, self.upper = np.log(np.array(bounds)).T

    def transfer(self, phi, mtp: dict) -> T.Transfer:
        values = np.exp(phi)
        silicon = {s: {"bw": 0.0, "fp8": 0.0, "fp4": 0.0} for s in self.silicon}
        stack = {st: {f: 0.0 for f in T.STACK_FIELDS} for st in self.stacks}
        shared = {}
        for (kind, key, field), v in zip(self.names, values, strict=True):
            table = silicon[key] if kind == "silicon" else stack[key] if kind == "stack" else shared
            table[field] = float(v)
        return T.Transfer(silicon, stack, shared["expert_rate"], mtp)

    def prior(self, phi) -> np.ndarray:
        """Residuals pulling each stack's per-layer and per-collective costs towards their mean over the stacks, in
        log form, by PRIOR_WEIGHT: a stack measured on one model only (every layer count and GPU count alike)
        cannot tell the two apart, and takes the split of the stacks that can."""
        out = []
        for field in ("layer_s", "collective_s"):
            idx = [i for i, (kind, _, f) in enumerate(self.names) if kind == "stack" and f == field]
            values = np.asarray(phi)[idx]
            out.append(PRIOR_WEIGHT * (values - values.mean()))
        return np.concatenate(out)

    def start(self) -> np.ndarray:
        guess = {
            "bw": 0.8,
            "fp8": 0.4,
            "fp4": 0.3,
            "layer_s": 5e-5,
            "collective_s": 2e-5,
            "prefill": 0.8,
            "request_s": 0.08,
            "queue": 0.02,
            "dp_wait_steps": 50.0,
            "expert_rate": 0.5,
        }
        phi = np.log([guess[f] for _, _, f in self.names])
        return np.clip(phi, self.lower + 1e-9, self.upper - 1e-9)


def _pub_stacks(pub: pd.DataFrame) -> np.ndarray:
    """Each published row's base stack (rows of a frame without the column: TensorRT-LLM's, the first source's)."""
    return (pub["stack"] if "stack" in pub else pd.Series("trt", index=pub.index)).to_numpy(str)


def _silicon_fields(family: str, pairs: set) -> list[str]:
    """bw, then f_c at each precision the rows measure on that die."""
    return ["bw"] + [p for p in ("fp8", "fp4") if (family, p) in pairs]


def _row_calibration(tr: T.Transfer, gpus, frameworks, precisions, model, n_gpus) -> C.Calibration:
    """A `Calibration` whose fields are arrays, one value per row."""
    cals = [
        T.calibration(tr, g, f, p, model, n) for g, f, p, n in zip(gpus, frameworks, precisions, n_gpus, strict=True)
    ]
    return C.Calibration(**{f.name: np.array([getattr(c, f.name) for c in cals]) for f in fields(C.Calibration)})


def predict_inferencex(tr: T.Transfer, rows: pd.DataFrame, iterations: int = 40) -> dict:
    """TPOT, TTFT, E2E (s) and output tok/s per GPU over the run of each InferenceX row."""
    cal = _row_calibration(tr, rows["hardware"], rows["framework"], rows["precision"], DEEPSEEK_R1, rows["n_gpus"])
    isl, osl = F.lengths(rows)
    r = C.closed_loop(
        cal, F.row_machine(rows), rows["concurrency"].to_numpy(float), isl, osl, DEEPSEEK_R1, iterations=iterations
    )
    return F.with_run(r, F.startup_stall(rows))


def published_predictions(tr: T.Transfer, rows: pd.DataFrame) -> dict:
    """{"throughput": output tok/s of the instance, "tpot", "ttft": s} of each published row, as it was measured:
    an offline row at an infinite request rate (`transfer.offline_throughput`; no TPOT or TTFT, NaN), a
    concurrency row as a closed loop of that many users (`model.closed_loop`)."""
    out = {k: np.full(len(rows), np.nan) for k in ("throughput", "tpot", "ttft")}
    load = rows["load"] if "load" in rows else pd.Series("offline", index=rows.index)
    for (key, kind), part in rows.groupby([rows["model"], load]):
        sel = rows.index.get_indexer(part.index)
        cal = _row_calibration(tr, part["gpu"], _pub_stacks(part), part["precision"], MODELS[key], part["gpus"])
        machine, isl, osl = published_machine(part), part["isl"].to_numpy(float), part["osl"].to_numpy(float)
        if kind == "offline":
            out["throughput"][sel] = T.offline_throughput(cal, machine, isl, osl, MODELS[key])["throughput"]
            continue
        r = C.closed_loop(cal, machine, part["concurrency"].to_numpy(float), isl, osl, MODELS[key])
        out["throughput"][sel] = np.asarray(r["throughput_per_gpu"]) * part["gpus"].to_numpy(float)
        out["tpot"][sel], out["ttft"][sel] = r["tpot"], r["ttft"]
    return out


def predict_published(tr: T.Transfer, rows: pd.DataFrame) -> np.ndarray:
    """Output tok/s of the instance of each published row (`published_predictions`)."""
    return published_predictions(tr, rows)["throughput"]


def fit_transfer(ix: pd.DataFrame, pub: pd.DataFrame, mtp: dict) -> T.Transfer:
    """The least-squares `Transfer` over InferenceX rows `ix` and published rows `pub` (either may be empty)."""
    ix, pub = ix.reset_index(drop=True), pub.reset_index(drop=True)
    if len(ix) + len(pub) < 20:
        raise MeasuredDataError(f"need at least 20 rows to fit the transferable model, got {len(ix) + len(pub)}")
    layout = Layout(ix, pub)
    measured = F._measured(ix) if len(ix) else np.zeros((3, 0))
    ix_scale = np.sqrt(F.run_weights(ix)) if len(ix) else np.zeros(0)
    pub_measured = pub["out_tok_s_total"].to_numpy(float)

    def residuals(phi):
        tr = layout.transfer(phi, mtp)
        parts = [layout.prior(phi)]
        if len(ix):
            r = predict_inferencex(tr, ix, iterations=25)
            parts.append((np.log(np.stack([r[k] for k in F.METRICS]) / measured) * ix_scale).ravel())
        if len(pub):
            parts.append(np.log(predict_published(tr, pub) / pub_measured) * np.sqrt(PUBLISHED_WEIGHT))
        return np.concatenate(parts)

    log.info(
        "fitting the transferable model: %d parameters on %d InferenceX and %d published rows",
        len(layout.names),
        len(ix),
        len(pub),
    )
    result = F._solve(residuals, layout.start(), (layout.lower, layout.upper), x_scale=1.0, max_nfev=100)
    return layout.transfer(result.x, mtp)


def mtp_of(per_stack: dict) -> dict:
    """α and m of the draft module: the geometric mean over the per-stack fits (the module is the model's)."""
    cals = list(per_stack.values())
    return {
        n: float(np.exp(np.mean(np.log([max(getattr(c, n), 1e-9) for c in cals])))) if cals else d
        for n, d in (("acceptance", C.DEFAULT_ACCEPTANCE), ("first_token_steps", C.MTP_FIRST_TOKEN_ITERATIONS))
    }


def errors(tr: T.Transfer, ix: pd.DataFrame, pub: pd.DataFrame) -> pd.DataFrame:
    """One row per measured number: its source, model, GPU, metric and log(predicted / measured)."""
    frames = []
    if len(ix):
        r = predict_inferencex(tr, ix)
        measured_e2e = ix["median_e2e_ms"].to_numpy(float) / 1e3 if "median_e2e_ms" in ix else np.full(len(ix), np.nan)
        for metric in METRICS:
            meas = measured_e2e if metric == "e2e" else ix[F.MEASURED[metric]].to_numpy(float) / F.SCALE[metric]
            frames.append(
                pd.DataFrame(
                    {
                        "source": "inferencex",
                        "model": "deepseek-r1",
                        "gpu": ix["hardware"].to_numpy(),
                        "stack": ix["framework"].map(C.base_framework).to_numpy(),
                        "metric": metric,
                        "log_error": np.log(np.asarray(r[metric]) / meas),
                    }
                )
            )
    if len(pub):
        r = published_predictions(tr, pub)
        measured = {"throughput": pub["out_tok_s_total"].to_numpy(float)}
        for metric, column in (("tpot", "itl_ms"), ("ttft", "ttft_ms")):  # a concurrency row's latencies, in s
            measured[metric] = pub[column].to_numpy(float) / 1e3 if column in pub else np.full(len(pub), np.nan)
        for metric, meas in measured.items():
            frames.append(
                pd.DataFrame(
                    {
                        "source": pub["source"].to_numpy(),
                        "model": pub["model"].to_numpy(),
                        "gpu": pub["gpu"].to_numpy(),
                        "stack": _pub_stacks(pub),
                        "metric": metric,
                        "log_error": np.log(r[metric] / meas),
                    }
                )
            )
    out = pd.concat(frames, ignore_index=True)
    finite = np.isfinite(out["log_error"])
    if not finite.all():  # a metric a row did not measure (E2E); a prediction that failed would show here too
        log.info("%d of %d numbers not scored (not measured)", int((~finite).sum()), len(out))
    return out[finite]


# Kinds of extrapolation a prediction can be, and how `held_out` measures each.
KINDS = {
    "measured": "a configuration the fit saw (in sample)",
    "pair": (
        "a GPU and a model each measured, never together (each published source, and InferenceX's runs of each "
        "GPU, held out in turn; scored on the rows whose pair that left unmeasured)"
    ),
    "gpu_sibling": "a GPU nobody measured, whose die a measured sibling shares (each GPU held out in turn)",
    "gpu_alone": "a GPU nobody measured, with no measured sibling (each GPU held out in turn)",
    "model": "a model nobody measured (each published model held out in turn)",
}


def _gpus(ix: pd.DataFrame, pub: pd.DataFrame) -> set:
    return set(ix["hardware"]) | set(pub["gpu"])


def _models(ix: pd.DataFrame, pub: pd.DataFrame) -> set:
    return ({"deepseek-r1"} if len(ix) else set()) | set(pub["model"])


def _pairs(ix: pd.DataFrame, pub: pd.DataFrame) -> set:
    """The (GPU, model) pairs measured together."""
    return {(g, "deepseek-r1") for g in ix["hardware"]} | set(zip(pub["gpu"], pub["model"], strict=True))


def _unmeasured_pair(rest_ix: pd.DataFrame, rest_pub: pd.DataFrame, gpu, model) -> np.ndarray:
    """For each (GPU, model): the rest measured the GPU and the model, but never that pair?"""
    pairs, gpus, models = _pairs(rest_ix, rest_pub), _gpus(rest_ix, rest_pub), _models(rest_ix, rest_pub)
    return np.array([(g, m) not in pairs and g in gpus and m in models for g, m in zip(gpu, model, strict=True)],
                    dtype=bool)  # fmt: skip


def pair_holdouts(ix: pd.DataFrame, pub: pd.DataFrame) -> list:
    """[(name, ix rows kept, pub rows kept, ix rows scored, pub rows scored)] of the pair kind: each published
    source held out in turn, and InferenceX's runs of each GPU (all of InferenceX at once would take every
    closed-loop stack with it). Scored are the rows held out whose (GPU, model) pair the rest never measured while
    it measured the GPU and the model; a hold-out with none is left out (no fit)."""
    out = []
    no_ix, no_pub = pd.Series(False, index=ix.index), pd.Series(False, index=pub.index)
    groups = [(f"inferencex {g}", ix["hardware"].eq(g), no_pub) for g in sorted(set(ix["hardware"]))]
    groups += [(s, no_ix, pub["source"].eq(s)) for s in sorted(set(pub["source"]))]
    for name, out_ix, out_pub in groups:
        rest_ix, rest_pub = ix[~out_ix], pub[~out_pub]
        held_ix, held_pub = ix[out_ix], pub[out_pub]
        score_ix = held_ix[_unmeasured_pair(rest_ix, rest_pub, held_ix["hardware"], ["deepseek-r1"] * len(held_ix))]
        score_pub = held_pub[_unmeasured_pair(rest_ix, rest_pub, held_pub["gpu"], held_pub["model"])]
        if len(score_ix) + len(score_pub):
            out.append((name, rest_ix, rest_pub, score_ix, score_pub))
    return out


def held_out(ix: pd.DataFrame, pub: pd.DataFrame, mtp: dict) -> pd.DataFrame:
    """`errors` of every row predicted by a fit without it: each GPU's rows by a fit without that GPU (kind
    gpu_sibling or gpu_alone, by whether another GPU of its die stays in the fit), each published model's by a fit
    without that model (kind model), and the rows of each `pair_holdouts` hold-out whose GPU and model stay
    measured apart (kind pair)."""
    frames = []
    for gpu in sorted(_gpus(ix, pub)):
        train_ix, train_pub = ix[ix["hardware"] != gpu], pub[pub["gpu"] != gpu]
        log.info("held out: %s", gpu)
        tr = fit_transfer(train_ix, train_pub, mtp)
        sibling = any(T.silicon_of(g) == T.silicon_of(gpu) for g in _gpus(train_ix, train_pub))
        e = errors(tr, ix[ix["hardware"] == gpu], pub[pub["gpu"] == gpu])
        frames.append(e.assign(kind="gpu_sibling" if sibling else "gpu_alone", held_out=gpu))
    for key in sorted(set(pub["model"])):
        log.info("held out: %s", key)
        tr = fit_transfer(ix, pub[pub["model"] != key], mtp)
        frames.append(errors(tr, ix.iloc[:0], pub[pub["model"] == key]).assign(kind="model", held_out=key))
    for name, rest_ix, rest_pub, score_ix, score_pub in pair_holdouts(ix, pub):
        log.info("held out: %s (pairs)", name)
        tr = fit_transfer(rest_ix, rest_pub, mtp)
        frames.append(errors(tr, score_ix, score_pub).assign(kind="pair", held_out=name))
    return pd.concat(frames, ignore_index=True)


def sibling_lookup(pub: pd.DataFrame) -> pd.DataFrame:
    """The baseline a model must beat: each published row's output tok/s per GPU copied from the same model,
    precision and lengths on a sibling GPU (same die), as log(copied / measured); rows without one are left out.
    Offline rows only: a concurrency row is another measurement."""
    pub = pub[pub["load"].eq("offline")] if "load" in pub else pub
    per_gpu = pub.assign(per_gpu=pub["out_tok_s_total"] / pub["gpus"], silicon=pub["gpu"].map(T.silicon_of))
    keys = ["model", "precision", "isl", "osl", "silicon"]
    merged = per_gpu.merge(per_gpu[keys + ["gpu", "per_gpu"]], on=keys, suffixes=("", "_sibling"))
    merged = merged[merged["gpu"] != merged["gpu_sibling"]]
    return pd.DataFrame(
        {
            "source": merged["source"],
            "model": merged["model"],
            "gpu": merged["gpu"],
            "metric": "throughput",
            "log_error": np.log(merged["per_gpu_sibling"] / merged["per_gpu"]),
        }
    )


def _pooled_metric(metric: str) -> str:
    """A published row's instance throughput and an InferenceX row's per-GPU throughput are one metric for a band:
    their log errors do not depend on the GPU count."""
    return "throughput_per_gpu" if metric == "throughput" else metric


def _summary(errs: pd.DataFrame) -> dict:
    """{rows, metric: [median, p90]} of |predicted / measured − 1|."""
    out = {"rows": int(errs.groupby("metric").size().max()) if len(errs) else 0}
    for metric, part in errs.groupby("metric"):
        a = np.abs(np.exp(part["log_error"].to_numpy()) - 1.0)
        out[metric] = [round(float(np.median(a)), 4), round(float(np.quantile(a, 0.9)), 4)]
    return out


def _pooled(errs: pd.DataFrame) -> pd.DataFrame:
    return errs.assign(metric=errs["metric"].map(_pooled_metric))


def _band(log_errors, widen: float = 1.0) -> list:
    """[p10, p90] of log(predicted / measured), each end moved `widen` times as far from the median."""
    p10, p50, p90 = np.quantile(log_errors, [0.1, 0.5, 0.9])
    return [round(float(p50 + widen * (p10 - p50)), 4), round(float(p50 + widen * (p90 - p50)), 4)]


def _inside(held: pd.DataFrame, widen: float) -> np.ndarray:
    """For every held-out error: inside the band built, `widen`ed, from the errors of the other groups (GPUs or
    models) held out as the same kind, of the same metric? Each is judged against a band it did not shape."""
    out = []
    for _, part in held.groupby(["kind", "metric"]):
        for group, mine in part.groupby("held_out"):
            ref = part.loc[part["held_out"] != group, "log_error"]
            if len(ref) >= 10:
                lo, hi = _band(ref, widen)
                out.append(((mine["log_error"] >= lo) & (mine["log_error"] <= hi)).to_numpy())
    return np.concatenate(out) if out else np.zeros(0, bool)


COVERAGE_TARGET = 0.8  # a p10–p90 band should hold 80 % of what it has not seen


def widening(held: pd.DataFrame) -> dict:
    """{kind: {widened_by, unwidened, widened}}: the smallest factor ≥ 1 (in steps of 0.05) by which a kind's
    held-out p10–p90 bands must be widened to hold COVERAGE_TARGET of the runs of a group they were not built from,
    and the share they hold before and after.

    GPUs differ from each other more than the runs of one GPU do, so a band from the other GPUs' errors is too
    narrow for a new one. The factor is found out of sample, as the band will be used."""
    out = {}
    for kind, part in _pooled(held).groupby("kind"):
        base = _inside(part, 1.0)
        if not len(base):
            continue
        factor, covered = 1.0, float(np.mean(base))
        while covered < COVERAGE_TARGET and factor < 4.0:
            factor = round(factor + 0.05, 2)
            covered = float(np.mean(_inside(part, factor)))
        out[kind] = {"rows": int(len(base)), "unwidened": round(float(np.mean(base)), 3), "widened_by": factor,
                     "widened": round(covered, 3)}  # fmt: skip
    return out


def bands(inside: pd.DataFrame, held: pd.DataFrame, widen: dict) -> dict:
    """{kind: {metric: [p10, p90]}} of log(predicted / measured): in sample for "measured", and for each held-out
    kind its errors' p10–p90 widened by that kind's factor (`widening`)."""
    out = {"measured": {m: _band(p["log_error"]) for m, p in _pooled(inside).groupby("metric")}}
    for kind, part in _pooled(held).groupby("kind"):
        factor = widen.get(kind, {}).get("widened_by", 1.0)
        out[kind] = {m: _band(p["log_error"], factor) for m, p in part.groupby("metric")}
    return out


def transfer_record(ix: pd.DataFrame, pub: pd.DataFrame, mtp: dict, source: str) -> dict:
    """transfer.json: the fitted parameters, what was measured, error bands and scores by kind of extrapolation,
    held-out scores by source, model and GPU, and the sibling-lookup baseline (aggregates only, never rows)."""
    tr = fit_transfer(ix, pub, mtp)
    inside = errors(tr, ix, pub).assign(kind="measured", held_out="")
    held = held_out(ix, pub, mtp)
    coverage = widening(held)
    everything = pd.concat([inside, held], ignore_index=True)
    sibling = sibling_lookup(pub)
    ours = held[held["kind"].eq("gpu_sibling") & held["source"].ne("inferencex")]

    def table(errs, column):
        return [{"group": g, **_summary(part)} for g, part in errs.groupby(column)]

    return {
        "note": (
            "Fitted by `inferx calibrate --measured FILE --transfer PATH` on InferenceX's DeepSeek-R1 rows and "
            "the published rows of inferx/data/public; bands are p10/p90 of log(predicted / measured) by kind "
            "of extrapolation, measured by holding that kind out; scores are [median, p90] of |predicted / "
            "measured − 1|; see docs/calibration.md."
        ),
        "source": {"inferencex": source, "published": sorted(set(pub["source"]))},
        "parameters": {"silicon": tr.silicon, "stack": tr.stack, "expert_rate": tr.expert_rate, "mtp": tr.mtp},
        "measured": {
            "gpus": sorted(_gpus(ix, pub)),
            "models": sorted({"deepseek-r1"} | set(pub["model"])),
            "pairs": [list(p) for p in sorted(_pairs(ix, pub))],
            "stacks": sorted(tr.stack),
        },
        "kinds": KINDS,
        "bands": bands(inside, held, coverage),
        "coverage": {"target": COVERAGE_TARGET, **coverage},
        "scores": {
            "kind": table(everything.assign(group=everything["kind"] + " · " + everything["source"]), "group"),
            "held-out GPU": table(held[held["kind"].isin(["gpu_sibling", "gpu_alone"])], "held_out"),
            "held-out pair": table(held[held["kind"] == "pair"], "held_out"),
            "held-out model": table(held[held["kind"] == "model"], "held_out"),
            "in-sample model": table(inside, "model"),
            "in-sample GPU": table(inside, "gpu"),
            "in-sample pair": table(inside.assign(pair=inside["gpu"] + " · " + inside["model"]), "pair"),
        },
        "sibling_lookup": {
            "note": (
                "Published rows: output tok/s per GPU copied from the same model, precision and lengths on a GPU "
                "of the same die, against the transferable model with that GPU held out, on the same GPUs."
            ),
            "lookup": table(sibling, "gpu"),
            "model": table(ours[ours["gpu"].isin(set(sibling["gpu"]))], "gpu"),
        },
    }


# --- The stored fit, scored on every row at hand ----------------------------------------------------------------

BREAKDOWNS = {"source": "source", "model": "model", "GPU": "gpu", "stack": "stack"}


def stored_scores(tr: T.Transfer, fitted: set, ix: pd.DataFrame, pub: pd.DataFrame) -> dict:
    """A fitted transferable model (the shipped one) scored on every row, with no refit: {breakdown: [{group,
    sample, rows, metric: [median, p90]}]} by source, model, GPU and stack, each group split into the rows of
    sources the fit saw (`fitted`: source ids, "inferencex" for the InferenceX rows) and those it did not (out of
    sample: a source added since, a new model, GPU or stack)."""
    errs = errors(tr, ix, pub)
    errs = errs.assign(sample=np.where(errs["source"].isin(list(fitted)), "in sample", "out of sample"))
    return {
        name: [{"group": g, "sample": s, **_summary(part)} for (g, s), part in errs.groupby([column, "sample"])]
        for name, column in BREAKDOWNS.items()
    }


@functools.lru_cache(maxsize=1)
def published_scores() -> dict:
    """`stored_scores` of the shipped fit on the published rows alone (no InferenceX file needed): what /methods
    shows."""
    from inferx.data.published import load_published

    record = T.load_transfer_record()
    return stored_scores(T.load_transfer(), set(record["source"]["published"]), pd.DataFrame(), load_published())
