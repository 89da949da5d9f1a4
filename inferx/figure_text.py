"""A figure's text alternative: one paragraph, from the plotted numbers, that a screen reader reads in the
graph's place. Builders stay as they are; `figure_registry.build` puts the text in `layout.meta.summary` and the
browser (assets/a11y.js) copies it beside the graph after every redraw."""

from __future__ import annotations

import math
import re

MAX_TRACES = 6  # a legend longer than this is summarised by its first traces and a count
_UNIT = re.compile(r"^(.*?)\s*\(([^()]*)\)\s*$")


def number(v: float) -> str:
    """Three significant figures with thousands separators, whole numbers without decimals: 3,120 · 241,000 ·
    41.2 · 0.0834 · 1."""
    if v == 0:
        return "0"
    digits = 2 - math.floor(math.log10(abs(v)))
    rounded = round(v, digits)
    return f"{rounded:,.{0 if float(v).is_integer() else max(0, digits)}f}"


def _axis(layout: dict, name: str) -> tuple[str, str]:
    """(quantity, unit) of an axis title such as "Decode throughput (tok/s)"."""
    title = (layout.get(name) or {}).get("title") or {}
    text = title.get("text", "") if isinstance(title, dict) else str(title)
    text = re.sub(r"<[^>]+>", "", text).strip()
    match = _UNIT.match(text)
    return (match[1], match[2]) if match else (text, "")


def _with_unit(v: float, unit: str) -> str:
    return f"{number(v)} {unit}".strip() if unit != "%" else f"{number(v)} %"


def _points(trace: dict) -> list[tuple[float, float]]:
    xs, ys = trace.get("x"), trace.get("y")
    if not isinstance(xs, (list, tuple)) or not isinstance(ys, (list, tuple)):
        return []
    return [
        (float(x), float(y))
        for x, y in zip(xs, ys, strict=False)
        if isinstance(x, (int, float)) and isinstance(y, (int, float)) and math.isfinite(x) and math.isfinite(y)
    ]


def _trace_text(trace: dict, x_unit: str, y_unit: str) -> str | None:
    name = re.sub(r"<[^>]+>", "", str(trace.get("name") or "")).strip()
    pts = _points(trace)
    if not name or not pts or trace.get("visible") in (False, "legendonly"):
        return None
    at = lambda p: f"{_with_unit(p[1], y_unit)} at {_with_unit(p[0], x_unit)}"  # noqa: E731
    if len(pts) == 1:
        return f"{name}: {at(pts[0])}"
    peak = max(pts, key=lambda p: p[1])
    text = f"{name}: from {at(pts[0])} to {at(pts[-1])}"
    if peak not in (pts[0], pts[-1]):
        text += f", highest {at(peak)}"
    return text


def summary(title: str, fig: dict) -> str:
    """What the figure shows, in numbers: its title, its axes, and for each named trace where it starts and
    ends (and its peak where that lies between), e.g. "… ITL(B) vs T(B): from 2.19 ms at 457 tok/s to …"."""
    layout = fig.get("layout") or {}
    (x_name, x_unit), (y_name, y_unit) = _axis(layout, "xaxis"), _axis(layout, "yaxis")
    parts = [title.rstrip(".") + "."]
    if x_name and y_name:
        parts.append(f"{y_name} against {x_name[0].lower() + x_name[1:] if x_name[1:2].islower() else x_name}.")
    texts = [t for t in (_trace_text(tr, x_unit, y_unit) for tr in fig.get("data") or []) if t]
    parts += [t + "." for t in texts[:MAX_TRACES]]
    if len(texts) > MAX_TRACES:
        parts.append(f"And {len(texts) - MAX_TRACES} more traces.")
    if not texts:
        parts.append("Nothing is drawn for these settings.")
    return " ".join(parts)


def with_summary(title: str, fig: dict) -> dict:
    """`fig` with its summary in `layout.meta.summary` (a builder's own meta is kept)."""
    layout = fig.setdefault("layout", {})
    meta = layout.get("meta")
    layout["meta"] = {**(meta if isinstance(meta, dict) else {}), "summary": summary(title, fig)}
    return fig
