"""A figure's text alternative: one paragraph, from the plotted numbers, that a screen reader reads in the
graph's place. Builders stay as they are; `registry.build` puts the text in `layout.meta.summary` and the
browser (assets/a11y.js) copies it beside the graph after every redraw."""

from __future__ import annotations

import functools
import math
import re

import numpy as np

from inferx.text import _COUNTED, counted, number

MAX_TRACES = 6  # a legend longer than this is summarised by its first traces and a count
_UNIT = re.compile(r"^(.*?)\s*\(([^()]*)\)\s*$")


def spoken(markup: str) -> str:
    """Plotly's markup in a name as words: a subscript after a space ("B<sub>max</sub>" reads "B max"), other
    tags dropped."""
    return re.sub(r"<[^>]+>", "", markup.replace("<sub>", " ")) if "<" in markup else markup


def _axis(layout: dict, name: str) -> tuple[str, str]:
    """(quantity, unit) of an axis title such as "Decode throughput (tok/s)"."""
    title = (layout.get(name) or {}).get("title") or {}
    return _quantity_unit(title.get("text", "") if isinstance(title, dict) else str(title))


@functools.lru_cache(maxsize=256)  # a few dozen axis titles, parsed on every redraw
def _quantity_unit(text: str) -> tuple[str, str]:
    text = re.sub(r"<[^>]+>", "", text).strip()
    match = _UNIT.match(text)
    # A unit that defines itself, "tok/s per user = 1000 / TPOT ms", is said without its definition.
    return (match[1], match[2].split(" = ")[0]) if match else (text, "")


@functools.lru_cache(maxsize=4096)  # a redraw states the same few points in several figures' texts
def _with_unit(v: float, unit: str) -> str:
    """A number in its unit as a sentence says it: "41.2 ms", "87 %", "$17 per million output tokens",
    "1 concurrent request", "4,096 tokens per step" (a count in full: rounded, 4,096 would read 4,100)."""
    shown = f"{v:,.0f}" if float(v).is_integer() and _COUNTED.fullmatch(unit) else number(v)
    if unit == "%":
        return f"{shown} %"
    if unit.startswith("$"):
        return f"${shown}{unit[1:]}"
    return counted(shown, unit)


def _points(trace: dict) -> tuple:
    """The trace's (x, y) pairs where both are finite numbers (a gap is None, a label is text)."""
    xs, ys = trace.get("x"), trace.get("y")
    if isinstance(xs, list) and isinstance(ys, list):
        # Most traces are lists of finite floats: then their sums are finite (None or text raises, and an
        # infinite or NaN value makes the sum so), and the lists serve as they are, with no array built.
        n = min(len(xs), len(ys))
        xs, ys = (xs, ys) if len(xs) == len(ys) else (xs[:n], ys[:n])
        try:
            if math.isfinite(sum(xs)) and math.isfinite(sum(ys)):
                return xs, ys
        except TypeError:
            pass
    elif not isinstance(xs, (list, tuple, np.ndarray)) or not isinstance(ys, (list, tuple, np.ndarray)):
        return np.empty(0), np.empty(0)
    n = min(len(xs), len(ys))
    try:
        x, y = np.asarray(xs[:n], dtype=float), np.asarray(ys[:n], dtype=float)
    except (TypeError, ValueError):  # categories or text: no numbers to state
        return np.empty(0), np.empty(0)
    keep = np.isfinite(x) & np.isfinite(y)
    return x[keep], y[keep]


def _trace_text(trace: dict, x_unit: str, y_unit: str) -> str | None:
    name = trace.get("name")
    if not name or trace.get("visible") in (False, "legendonly"):
        return None
    meta = trace.get("meta")
    if isinstance(meta, dict) and meta.get("band") == "low":  # a band's lower edge: the upper one names the band
        return None
    name = str(name)
    name = spoken(name).strip()
    if not name:
        return None
    x, y = _points(trace)
    n = len(x)
    if not n:  # nothing drawn; a legend entry that states a fact ("no batch size meets …") is read as it is
        return name if isinstance(meta, dict) and meta.get("statement") else None
    first = f"{_with_unit(y[0], y_unit)} at {_with_unit(x[0], x_unit)}"
    if n == 1:
        return f"{name}: {first}"
    text = f"{name}: from {first} to {_with_unit(y[-1], y_unit)} at {_with_unit(x[-1], x_unit)}"
    peak = y.index(max(y)) if isinstance(y, list) else int(np.argmax(y))  # the first of equal highs, either way
    if 0 < peak < n - 1 and y[peak] > max(y[0], y[-1]):
        text += f", highest {_with_unit(y[peak], y_unit)} at {_with_unit(x[peak], x_unit)}"
    return text


def summary(title: str, fig: dict, max_traces: int = MAX_TRACES) -> str:
    """What the figure shows, in numbers: its title, its axes, and for each named trace where it starts and
    ends (and its peak where that lies between), e.g. "… ITL(B) vs T(B): from 2.19 ms at 457 tok/s to …"."""
    layout = fig.get("layout") or {}
    (x_name, x_unit), (y_name, y_unit) = _axis(layout, "xaxis"), _axis(layout, "yaxis")
    parts = [title.rstrip(".") + "."]
    if x_name and y_name:
        parts.append(f"{y_name} against {x_name[0].lower() + x_name[1:] if x_name[1:2].islower() else x_name}.")
    texts, more = [], 0
    for trace in fig.get("data") or []:
        if len(texts) < max_traces:
            text = _trace_text(trace, x_unit, y_unit)
            texts += [text] if text else []
        else:  # past the first few, only counted
            more += bool(trace.get("name")) and trace.get("visible") not in (False, "legendonly")
    parts += [t + "." for t in texts]
    if more:
        parts.append(f"And {more} more traces.")
    legend_title = ((layout.get("legend") or {}).get("title") or {}).get("text")
    if isinstance(legend_title, str):  # a comparison's: what A is, or that it is not drawn
        parts.append(legend_title.rstrip(".") + ".")
    if not texts:
        parts.append("Nothing is drawn for these settings.")
        if not fig.get("data"):  # its notes say why (and, in a comparison, when A comes back)
            notes = [a.get("text") for a in layout.get("annotations") or [] if isinstance(a, dict)]
            words = [" ".join(re.sub(r"<[^>]+>", " ", n).split()) for n in notes if isinstance(n, str)]
            parts += [w.rstrip(".") + "." for w in words if w]
    return " ".join(parts)


def with_summary(title: str, fig: dict, max_traces: int = MAX_TRACES) -> dict:
    """`fig` with its summary in `layout.meta.summary` (a builder's own meta is kept)."""
    layout = fig.setdefault("layout", {})
    meta = layout.get("meta")
    layout["meta"] = {**(meta if isinstance(meta, dict) else {}), "summary": summary(title, fig, max_traces)}
    return fig
