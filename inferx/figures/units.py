"""Throughput in the unit the `tput` control asks for, said on every axis: per instance (the article's figures,
one serving instance of N GPUs) or per GPU (InferenceX's). The builders draw an instance's tokens/s; `in_units`
names the axis and, per GPU, divides what lies on it by the GPU count of the machine each trace is (a trace's
`meta.gpus`, else the scenario's), so Figure 5's other machines are each divided by their own."""

from __future__ import annotations

import math
import re

from inferx.figures.style import decade_ticks, si

_THROUGHPUT = re.compile(r"throughput \(tok/s\)$", re.IGNORECASE)  # an axis in an instance's tokens/s
_LABELLED = re.compile(r"throughput (?:per GPU |per instance \([^()]*\) )\(tok/s\)$", re.IGNORECASE)
# The count and "GPUs" kept on one line where a long axis title wraps: "(4\u00a0GPUs)".
# A rate in a hover template or label, but not one per user (interactivity) or already per GPU.
_RATE_UNIT = re.compile(r"tok/s(?!/user| per user|/GPU| per GPU)")
_RATE_VALUE = re.compile(r"(\d[\d,.]*) ?([kMGT]?) ?tok/s(?!/user| per user|/GPU| per GPU)")
_PREFIX = {"": 1.0, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def unit_words(per_gpu: bool, gpus: int | None) -> str:
    """ "per GPU", or "per instance (8 GPUs)" (of the current machine; `gpus` None: each machine's own)."""
    if per_gpu:
        return "per GPU"
    if gpus is None:
        return "per instance (each machine's GPUs)"
    return f"per instance ({gpus:,}\u00a0GPU{'s' * (gpus != 1)})"


def readout_unit(per_gpu: bool) -> str:
    """The unit a readout of throughput gives: "tok/s per GPU" or "tok/s per instance"."""
    return "tok/s per GPU" if per_gpu else "tok/s per instance"


def throughput_axis(layout: dict, labelled: bool = True) -> str | None:
    """The axis ("x" or "y") of `layout` titled as throughput in tok/s, or None; `labelled`: once `in_units`
    has said its unit, else before."""
    pattern = _LABELLED if labelled else _THROUGHPUT
    for axis in ("x", "y"):
        title = (layout.get(f"{axis}axis") or {}).get("title") or {}
        text = title.get("text", "") if isinstance(title, dict) else str(title)
        if pattern.search(text):
            return axis
    return None


def _own_gpus(trace: dict) -> int | None:
    meta = trace.get("meta")
    return meta.get("gpus") if isinstance(meta, dict) else None


def in_units(fig: dict, per_gpu: bool, gpus: int) -> dict:
    """`fig` with its throughput axis titled in the unit asked for and, `per_gpu`, every value on it divided by
    its trace's GPU count (changed in place and returned). Where traces are machines of other counts (Figure
    5), the per-instance title says each machine's count rather than the current one's."""
    layout = fig.get("layout") or {}
    axis = throughput_axis(layout, labelled=False)
    if axis is None:
        return fig
    title = layout[f"{axis}axis"]["title"]
    each_own = any(_own_gpus(t) not in (None, gpus) for t in fig.get("data") or [])
    words = unit_words(per_gpu, None if each_own else gpus)
    title["text"] = _THROUGHPUT.sub(lambda m: f"{m[0][: -len('(tok/s)')]}{words} (tok/s)", title["text"])
    if layout.get("meta") is None:
        layout["meta"] = {}
    if isinstance(layout["meta"], dict):  # the explorer's readouts (assets/inferx.js) say the unit too
        layout["meta"]["tput"] = {"perGpu": per_gpu, "gpus": gpus, "unit": readout_unit(per_gpu)}
    if not per_gpu:
        return fig
    for trace in fig.get("data") or []:
        n = _own_gpus(trace) or gpus
        values = trace.get(axis)
        if isinstance(values, (list, tuple)):
            # 4 significant figures, as every figure's numbers are sent
            trace[axis] = [float(f"{v / n:.4g}") if isinstance(v, (int, float)) and not isinstance(v, bool) else v
                           for v in values]  # fmt: skip
        elif hasattr(values, "__truediv__"):
            trace[axis] = values / n
        for key in ("hovertemplate", "text"):
            if isinstance(trace.get(key), str):
                trace[key] = _RATE_UNIT.sub("tok/s/GPU", trace[key])
    _shift_marks(layout, axis, gpus)
    decade_ticks(fig, redo=True)
    return fig


def _shift_marks(layout: dict, axis: str, gpus: int) -> None:
    """Shapes, labels and a fixed range placed on the throughput axis, moved with the values (a log axis places
    labels and ranges in decades)."""
    log = (layout.get(f"{axis}axis") or {}).get("type") == "log"
    for shape in layout.get("shapes") or []:
        if shape.get(f"{axis}ref") == axis:
            for end in (f"{axis}0", f"{axis}1"):
                if isinstance(shape.get(end), (int, float)):
                    shape[end] /= gpus
    for note in layout.get("annotations") or []:
        if note.get(f"{axis}ref", axis) == axis and isinstance(note.get(axis), (int, float)):
            note[axis] = note[axis] - math.log10(gpus) if log else note[axis] / gpus
        if isinstance(note.get("text"), str) and "tok/s" in note["text"]:
            note["text"] = _RATE_VALUE.sub(lambda m: _divided(m, gpus), note["text"])
    for menu in layout.get("updatemenus") or []:  # the log/linear buttons carry the labels' places on each scale
        for button in menu.get("buttons") or []:
            for change in button.get("args") or []:
                if isinstance(change, dict):
                    _shift_relayout(change, axis, gpus)
    span = (layout.get(f"{axis}axis") or {}).get("range")
    if isinstance(span, list) and all(isinstance(v, (int, float)) for v in span):
        layout[f"{axis}axis"]["range"] = [v - math.log10(gpus) if log else v / gpus for v in span]


def _shift_relayout(change: dict, axis: str, gpus: int) -> None:
    log = change.get(f"{axis}axis.type") == "log"
    for key, value in change.items():
        if re.fullmatch(rf"annotations\[\d+\]\.{axis}", key) and isinstance(value, (int, float)):
            change[key] = value - math.log10(gpus) if log else value / gpus


def _divided(match: re.Match, gpus: int) -> str:
    value = float(match[1].replace(",", "")) * _PREFIX[match[2]] / gpus
    return si(value, unit="tok/s/GPU")
