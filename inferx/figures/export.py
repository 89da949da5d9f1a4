"""A figure's data as rows: what `inferx frontier --figure NAME` writes as CSV or JSON, and what a figure
card's download buttons save, under a file name built from the scenario.

Figures are the plain dicts the builders return; every trace's (x, y) pairs become rows named after the
trace, under the figure's axis titles (units included), so a spreadsheet gets what the plot shows. A frontier
whose axes are not the batch size (Figures 4-7 and 9-12) carries each point's batch in its hover data; it
becomes a last column, so a point can be set up again with `inferx point --batch`.
"""

from __future__ import annotations

import csv
import hashlib
import io
import re

from inferx.figures import registry
from inferx.figures.style import level_lines, round_sig, x_extent
from inferx.scenario.controls import PARAMS
from inferx.scenario.evaluation import Scenario
from inferx.scenario.machines import default_link, default_params, machine_tp, machine_values

# What `--figure` takes besides a number, a key ("fig5") or a name as in `/embed/<name>` (`registry.by_name`):
# short names for Figures 13-15.
SHORT_NAMES = {"spec-k": "fig13", "spec-batch": "fig14", "moe": "fig15"}
FIGURE_NAMES = tuple(f.name for f in registry.FIGURES.values())


def figure_name(text: str) -> str:
    """A figure's key ("fig5") from what a user types: "5", "fig5" or its name; ValueError otherwise."""
    name = text.strip().lower()
    name = f"fig{name}" if name.isdigit() else SHORT_NAMES.get(name, name)
    entry = registry.by_name(name)
    if entry is None:
        count = len(registry.FIGURES)
        raise ValueError(f"figure={text}: must be 1–{count}, fig1–fig{count} or one of {', '.join(FIGURE_NAMES)}")
    return entry.key


def build_figure(scn: Scenario, name: str, batch: int = 8) -> dict:
    """The plotly dict of one figure by key (`batch` is the explorer's, Figure 6): what its card draws."""
    return registry.build(scn, (name,), batch)[name]


# An instance's throughput keeps the column name it always had ("Output throughput (tok/s)"); per GPU the
# column says so ("Output throughput per GPU (tok/s)"), a column of its own (figures.units).
_PER_INSTANCE = re.compile(r" per instance \([^()]*\)")


def axis_titles(fig: dict) -> tuple[str, str]:
    layout = fig["layout"]
    titles = (layout.get(axis, {}).get("title", {}).get("text", axis[0]) for axis in ("xaxis", "yaxis"))
    return tuple(_PER_INSTANCE.sub("", title) for title in titles)


def _is_statement(trace: dict) -> bool:
    """A legend entry that states a fact in words ("no batch size meets …", a label moved off the plot): it has
    no point to give, so a file lists it among the notes."""
    meta = trace.get("meta")
    return isinstance(meta, dict) and bool(meta.get("statement"))


def _traces(fig: dict) -> list[dict]:
    """The figure's traces that carry points, then its level lines (an ITL floor, a ceiling: layout shapes) as
    traces named by their labels across the traces' x extent, as a pinned A's are drawn (compare.merge)."""
    data = [t for t in fig["data"] if not _is_statement(t)]
    span = x_extent(data)
    if span is None:
        return data
    levels = level_lines(fig["layout"])
    return data + [{"name": text, "x": span, "y": round_sig([shape["y0"]] * 2)} for text, shape in levels]


BATCH_COLUMN = "Batch size B (concurrent requests)"

# A trace whose hover says "B = " (or "C = ", the concurrency) of its customdata, or of its first column, carries
# the batch there; other figures keep other things in it (Figure 13 the speed-up, 15 the experts read).
_BATCH_HOVER = re.compile(r"\b[BC] = %\{customdata(\[0\])?[:}]")


def batches(trace: dict) -> list | None:
    """The batch size of each point of a trace, from its hover data, or None for a trace without (a level
    line, a figure whose x axis is the batch)."""
    custom = trace.get("customdata")
    if not custom or not _BATCH_HOVER.search(trace.get("hovertemplate", "")):
        return None
    first = [c[0] if isinstance(c, (list, tuple)) else c for c in custom]
    return [int(b) if isinstance(b, float) and b.is_integer() else b for b in first]


def _with_batch(fig: dict) -> bool:
    """Whether the figure's rows get a batch column: a trace carries batch sizes that no axis shows."""
    return BATCH_COLUMN not in axis_titles(fig) and any(batches(t) is not None for t in fig["data"])


def columns(fig: dict) -> list[str]:
    """The CSV's header: the trace, the axis titles and, where a trace carries them, the batch sizes."""
    return ["trace", *axis_titles(fig), *([BATCH_COLUMN] if _with_batch(fig) else [])]


def plain_name(name: str) -> str:
    """A trace's or level line's name as plain text, the way the CLI writes the article's symbols:
    "B<sub>max</sub>" (a legend's subscript) is "B_max" in a file."""
    return re.sub(r"<[^>]+>", "", re.sub(r"<sub>(.*?)</sub>", r"_\1", name)) if "<" in name else name


def figure_rows(fig: dict) -> list[dict]:
    """One row per plotted point: {"trace": name, x title: x, y title: y} (None for a gap), and its batch size
    where the figure's traces carry it (`columns`)."""
    x_title, y_title = axis_titles(fig)
    with_batch = _with_batch(fig)
    rows = []
    for t in _traces(fig):
        xs, ys = t.get("x") or (), t.get("y") or ()
        bs = batches(t) or [None] * len(xs)
        for x, y, b in zip(xs, ys, bs, strict=False):
            rows.append(
                {
                    "trace": plain_name(t.get("name", "")),
                    x_title: x,
                    y_title: y,
                    **({BATCH_COLUMN: b} if with_batch else {}),
                }
            )
    return rows


def figure_record(name: str, fig: dict) -> dict:
    """The figure's data as JSON: axis titles, each trace's name and points, and any note it shows, on the plot
    or in its legend."""
    x_title, y_title = axis_titles(fig)
    return {
        "figure": name,
        "x_title": x_title,
        "y_title": y_title,
        "traces": [_trace_record(t) for t in _traces(fig)],
        "notes": [
            a["text"].replace("<br>", "; ")  # plotly's line breaks: a note is plain text here
            for a in fig["layout"].get("annotations", [])
            if a.get("xref") == "paper" and a.get("yref") == "paper"
        ]
        + [plain_name(t.get("name", "")) for t in fig["data"] if _is_statement(t)],
    }


def _trace_record(trace: dict) -> dict:
    record = {
        "name": plain_name(trace.get("name", "")),
        "x": list(trace.get("x") or ()),
        "y": list(trace.get("y") or ()),
    }
    batch = batches(trace)
    return record if batch is None else record | {"batch": batch}


def figure_csv(fig: dict) -> str:
    """The rows of `figure_rows` as CSV text under the header of `columns`."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=columns(fig), lineterminator="\n")
    writer.writeheader()
    writer.writerows(figure_rows(fig))
    return out.getvalue()


FILE_KINDS = ("csv", "json", "png", "svg")
MAX_STEM = 200  # of the 255 bytes file systems allow a name

# In every file name already: the machine, TP and context (and the model, where not the default).
_NAMED = ("preset", "gpu", "gpus", "tp", "ctx", "model")


def _machine_part(scn: Scenario) -> str:
    p = scn.params
    # As the preset keys write it: h200x8, mi300x4 (not mi300xx4).
    count = f"{p['gpus']}" if p["gpu"].endswith("x") else f"x{p['gpus']}"
    part = f"{p['gpu']}{count}_tp{p['tp']}_ctx{p['ctx']}"
    part = part if p["model"] == PARAMS["model"].default else f"{p['model']}_{part}"
    return "_".join([part, *_changed(p)])


def _changed(p: dict) -> list[str]:
    """The other settings that differ from what the preset and the machine give, as `bw-52`, `wdtype-fp4`: two
    downloads at different settings get different names."""
    base = default_params(p["preset"]) | machine_values(p["gpu"], p["gpus"], p["wdtype"])
    base |= {"tp": machine_tp(p["gpus"]), "ic": default_link(p["gpu"])}  # what the GPU and count take
    return [f"{name}-{_shown(p[name])}" for name in PARAMS if name not in _NAMED and p[name] != base[name]]


def _shown(value) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def file_name(scn: Scenario, fig: str, kind: str, pinned: Scenario | None = None) -> str:
    """The name a download of figure `fig` is saved under, e.g. `inferx_fig4_h200x8_tp8_ctx4096_bw-52.csv`: the
    machine, TP and context (and the model, where not the default), then any other setting that differs from
    what the preset and the machine give; with A pinned, A's after `_vs_`."""
    if kind not in FILE_KINDS:
        raise ValueError(f"kind={kind}: must be one of {', '.join(FILE_KINDS)}")
    stem = f"inferx_{fig}_{_machine_part(scn)}"
    if pinned is not None:
        stem += f"_vs_{_machine_part(pinned)}"
    stem = re.sub(r"[^a-z0-9._-]+", "-", stem.lower())
    if len(stem) > MAX_STEM:  # every setting changed: the name keeps its start and a digest of the rest
        stem = stem[: MAX_STEM - 9].rstrip("_-") + "_" + hashlib.sha1(stem.encode()).hexdigest()[:8]
    return f"{stem}.{kind}"
