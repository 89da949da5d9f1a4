"""`inferx calibrate` and `inferx validate`: fit the calibrated model to a measured file, or score it."""

from __future__ import annotations

import json
import logging
import os
import sys
from pathlib import Path

import numpy as np

from inferx.data.measured import MeasuredDataError, load_measured
from inferx.data.user_gpus import ENV as GPU_ENV
from inferx.physics.hardware import GPUS
from inferx.serving import fit as F
from inferx.serving import report as R
from inferx.serving import transfer as T


def _spread(s: float | None, field: str) -> str:
    """A relative 1σ in 8 characters: "±  54%", "± 1258%", "± >100×" past ten thousand per cent."""
    if s is None:  # not fitted: no attention-DP rows, or the typical MTP acceptance and first-token steps
        return "" if field == "dp_wait_steps" else "  (typ.)"
    if np.isnan(s):
        return "  undet."
    if not np.isfinite(s):
        return "±  bound"
    return f"±{s:>6.0%}" if s < 100 else "± >100×"


def format_calibrations(fits: dict) -> str:
    names = ("f_bw", "f_c", "f_pf", "t_0 ms", "t_req ms", "t_adm ms", "α MTP", "w_dp steps", "f_q", "m MTP")
    scale = (1, 1, 1, 1e3, 1e3, 1e3, 1, 1, 1, 1)
    width = max(len("GPU/stack"), *(len(key) for key in fits))
    head = f"{'GPU/stack':<{width}} {'rows':>5} " + " ".join(f"{n:>16}" for n in names)
    lines = [head, "-" * len(head)]
    for key, (cal, sigma, n) in fits.items():
        cells = []
        for field, k in zip(cal.per_stack_fields(), scale, strict=True):
            cells.append(f"{getattr(cal, field) * k:>7.3g} {_spread(sigma.get(field), field):>8}")
        lines.append(f"{key:<{width}} {n:>5} " + " ".join(cells))
    lines.append(
        "± is the relative 1σ from the fit's Jacobian; 'bound': the parameter sits at its limit; 'undet.': the rows "
        "do not determine it (too few distinct runs)."
    )
    return "\n".join(lines)


def _compact_json(record: dict) -> str:
    """JSON with one table row per line: readable in a diff, a fraction of indent=1's length."""
    tables = ",\n".join(
        f"  {json.dumps(name)}: [\n" + ",\n".join(f"   {json.dumps(r, ensure_ascii=False)}" for r in rows) + "\n  ]"
        for name, rows in record["tables"].items()
    )
    fields = (f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in record.items() if k != "tables")
    head = ",\n".join(fields)
    return "{\n" + head + ',\n "tables": {\n' + tables + "\n }\n}\n"


def run(command: str, path: str, error_tables: str | None = None, transfer=None) -> int:
    """`inferx calibrate|validate --measured PATH`; returns the exit code. With `error_tables`, validate also
    writes its error tables by GPU, precision, ISL/OSL and concurrency (aggregates, no rows) as JSON there. With
    `transfer` (a path for calibrate, True for validate) the transferable model is fitted and scored too."""
    # Progress on stderr: a validation fits every GPU's calibrations again with each GPU left out, minutes of work.
    progress = logging.StreamHandler(sys.stderr)
    progress.setFormatter(logging.Formatter("inferx: %(message)s"))
    F.log.addHandler(progress)
    F.log.setLevel(logging.INFO)
    try:
        if error_tables is not None:  # refused before the minutes of work, not after
            _check_writable(error_tables, path)
        if transfer and command == "calibrate":
            _check_writable(transfer, path)
        df = _calibrated_models_rows(load_measured(path))
        if transfer and command == "validate":  # the shipped fit, no refit: seconds, not the calibrate's minutes
            from inferx.data.published import sources

            print(format_stored(_stored_scores(df, path), sources()))
            print("\nHeld out when the stored fit was made (`inferx calibrate --transfer`), as stored:\n")
            print(format_transfer(T.load_transfer_record()))
            return 0
        if command == "calibrate":
            fits = F.fit_all(df)
            spread = R.residual_spread(df, F.calibrations(fits))
            by_key = R.residual_spread_by_key(df, F.calibrations(fits))
            # The table for the reader on stderr; stdout is the file itself: `> inferx/serving/calibration.json`.
            print(format_calibrations(fits), file=sys.stderr)
            power = F.fit_power(df, F.calibrations(fits))
            print(json.dumps(F.calibration_record(fits, Path(path).name, spread, by_key, power), indent=2))
            if transfer:
                record = _transfer_record(df, path, F.calibrations(fits))
                _write(transfer, json.dumps(record, indent=1, ensure_ascii=False) + "\n", "--transfer")
                print(format_transfer(record), file=sys.stderr)
            return 0
        held_out = R.leave_one_gpu_out(df)  # four fits: for the printed table and the error tables alike
        print(R.format_validation(R.validation_table(df, held_out=held_out)))
        if error_tables is not None:
            record = {
                "note": "Median and p90 of |predicted / measured − 1| of the calibrated model (stored calibration) "
                "on the single-node rows of the file, written by `inferx validate --measured FILE --error-tables "
                "PATH`; [median, p90] per metric.",
                "source": Path(path).name,
                "tables": R.error_tables(df, held_out=held_out),
            }
            _write(error_tables, _compact_json(record), "--error-tables")
        return 0
    except (MeasuredDataError, OSError) as err:
        print(f"inferx: {err}", file=sys.stderr)
        return 2
    finally:
        F.log.removeHandler(progress)


def _write(name: str, text: str, option: str) -> None:
    try:
        Path(name).write_text(text)
    except OSError as err:  # a full disk, found only when writing
        raise MeasuredDataError(f"{option} {name}: cannot write it ({err.strerror or err})") from None


def _transfer_record(df, path: str, per_stack: dict | None = None) -> dict:
    """The transferable model fitted to the file's DeepSeek-R1 rows and the published tables, with its held-out
    scores (`transfer_fit.transfer_record`)."""
    from inferx.data.published import load_published
    from inferx.serving import stored
    from inferx.serving import transfer_fit as TF

    mtp = TF.mtp_of(per_stack if per_stack is not None else stored.load_calibration())
    return TF.transfer_record(TF.inferencex_rows(df), load_published(), mtp, Path(path).name)


def _stored_scores(df, path: str) -> dict:
    """The stored transferable model (`transfer.json`) on the file's DeepSeek-R1 rows and every published row, by
    source, model, GPU and stack (`transfer_fit.stored_scores`). The file's rows are in sample where the stored fit
    was made from a file of that name."""
    from inferx.data.published import load_published
    from inferx.serving import transfer_fit as TF

    record = T.load_transfer_record()
    fitted = set(record["source"]["published"]) | ({"inferencex"} if record["source"]["inferencex"] == Path(path).name
                                                  else set())  # fmt: skip
    return TF.stored_scores(T.load_transfer(), fitted, TF.inferencex_rows(df), load_published())


METRIC_HEADS = {"tpot": "TPOT", "ttft": "TTFT", "throughput_per_gpu": "tok/s/GPU", "e2e": "E2E",
                "throughput": "inst. tok/s"}  # fmt: skip


def _score_lines(title: str, entries: list, width: int = 34, sample: bool = False) -> list[str]:
    """One table: a row per entry, median / p90 of |predicted / measured − 1| per metric, the rows it holds."""
    lines = [f"{title:<{width}}" + (f"{'':<15}" if sample else "") + "".join(f"{h:>16}" for h in METRIC_HEADS.values())
             + f"{'rows':>7}"]  # fmt: skip
    for entry in entries:
        cells = [f"{100 * entry[m][0]:6.1f} / {100 * entry[m][1]:5.1f} %" if m in entry else f"{'—':>16}"
                 for m in METRIC_HEADS]  # fmt: skip
        head = f"{entry['group']:<{width}}" + (f"{entry['sample']:<15}" if sample else "")
        lines.append(head + "".join(f"{c:>16}" for c in cells) + f"{entry['rows']:>7}")
    return lines


def format_stored(scores: dict, sources: dict | None = None) -> str:
    """`transfer_fit.stored_scores` as text tables: by source, model, GPU and stack; with `sources` (the published
    sources' entries), each one's stack version and load under the tables."""
    lines = ["Stored transferable model (inferx/serving/transfer.json), no refit: |predicted / measured − 1|, median /",
             "p90 (rows). 'in sample': rows of a source the stored fit was made from; 'out of sample': rows of a",
             "source added since (its model, GPU or stack may be new too). inst. tok/s: a published row's output",
             "tokens per second of the instance (at its maximum for an offline row); tok/s/GPU and E2E: InferenceX's",
             "DeepSeek-R1 runs; TPOT and TTFT: those and the published closed-loop rows."]  # fmt: skip
    for name, entries in scores.items():
        lines += ["", *_score_lines(f"by {name}", entries, width=28, sample=True)]
    if sources:
        lines += ["", "Published sources (inferx/data/public/sources.json: URL, licence, read date, definitions):"]
        lines += [f"  {key:<26} {s['stack_version']}; load {s['load']}" for key, s in sources.items()]
    return "\n".join(lines)


def format_transfer(record: dict) -> str:
    """The transferable model's scores as text tables: median / p90 of |predicted / measured − 1| by kind of
    extrapolation, by GPU and by model held out, the band coverage, and the sibling-GPU lookup beside it."""
    lines = ["Transferable model: |predicted / measured − 1|, median / p90 (rows)"]
    for title, entries in (*record["scores"].items(), ("sibling lookup (published rows)",
                                                       record["sibling_lookup"]["lookup"]),
                           ("model, same GPUs held out", record["sibling_lookup"]["model"])):  # fmt: skip
        lines += ["", *_score_lines(title, entries)]
    lines += ["", "p10–p90 bands of held-out runs, each GPU or model judged on a band built without it (share of "
              "its runs inside):"]  # fmt: skip
    for kind, c in record["coverage"].items():
        if isinstance(c, dict):
            lines.append(f"  {kind:<12} {100 * c['unwidened']:3.0f} % as measured; widened {c['widened_by']:g}× "
                         f"(as stored) {100 * c['widened']:3.0f} %, of {c['rows']:,} runs")  # fmt: skip
    return "\n".join(lines)


def _rows(n) -> str:
    return f"{int(n):,} row{'' if n == 1 else 's'}"


def _calibrated_models_rows(df):
    """The rows of the model the calibration is fitted to and predicts (DeepSeek-R1; rows that name no model are
    taken as its), on a catalog GPU. Rows of another model or GPU are left out and stderr says so; a file with
    none left, or none on a catalog GPU, is refused in words (its tables would be empty)."""
    other = ~R.of_fitted_model(df)
    if other.any():
        seen = ", ".join(sorted(set(df["model"].str.strip()[other]))[:3])
        print(f"inferx: note: left out {_rows(other.sum())} of other models ({seen}): the calibrated model is "
              "fitted to DeepSeek-R1 and predicts it only", file=sys.stderr)  # fmt: skip
        df = df[~other]
    if df.empty:
        raise MeasuredDataError("no rows of DeepSeek-R1 in the file")
    known = df["hardware"].isin(list(GPUS))
    if not known.any():
        found = ", ".join(sorted(set(df["hardware"]))[:5])
        raise MeasuredDataError(f"no rows on a catalog GPU (the file has {found}; the catalog: {', '.join(GPUS)})")
    if not known.all():  # no datasheet to predict them from: out of the tables and their counts, and said
        seen = ", ".join(repr(g) for g in sorted(set(df["hardware"][~known]))[:3])
        print(f"inferx: note: left out {_rows((~known).sum())} of GPUs not in the catalog ({seen}): name their "
              f"datasheet in ${GPU_ENV} to score them", file=sys.stderr)  # fmt: skip
        df = df[known]
    return df


def _check_writable(name: str, measured: str) -> None:
    if not name.strip():  # Path("") is the current folder
        raise MeasuredDataError("--error-tables: no file name given")
    path = Path(name)
    if path.exists() and Path(measured).exists() and path.samefile(measured):  # the tables would replace the rows
        raise MeasuredDataError(f"--error-tables {path}: is the --measured file itself; name another file")
    if path.is_dir():
        raise MeasuredDataError(f"--error-tables {path}: is a directory, not a file")
    if not path.parent.is_dir():
        raise MeasuredDataError(f"--error-tables {path}: no directory {path.parent}")
    if not os.access(path.parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise MeasuredDataError(f"--error-tables {path}: not writable")
