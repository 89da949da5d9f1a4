"""Where the time of one output token goes at the explorer's operating point, under both models: two horizontal
stacked bars, the ideal (article physics) and the expected (the calibrated model), each split into the parts of
`inferx.analysis.breakdown` in ms per output token, its total (the ITL the explorer's readouts state) at its end,
the scenario's own model on top. A small plain dict the explorer carries in its `layout.meta` (`beyond.explorer`),
so the redraw that moves the explorer redraws it too."""

from __future__ import annotations

import math

from inferx import palette as P
from inferx.analysis.answers import ANSWER_OF_MODE, in_both_modes
from inferx.analysis.breakdown import PARTS, overlapped_parts, time_parts
from inferx.figures.both import _sig as _sig_finite
from inferx.figures.style import READOUT_DIGITS, add_note, plot_layout, round_sig
from inferx.scenario.evaluation import Scenario

BAR_NAMES = {"ideal": "Ideal (article physics)", "expected": "Expected (calibrated)"}
PART_NAMES = {
    "weights": "Weight reads",
    "kv": "KV-cache reads",
    "compute": "Arithmetic",
    "overhead": "Fixed step cost",
    "communication": "Communication",
    "prefill": "Prefill stalls",
}
# The article's hidden resource, in words: what it runs under.
HIDDEN_UNDER = {"compute": "the HBM reads", "weights": "the arithmetic", "kv": "the arithmetic"}
X_TITLE = "Time per output token (ms)"
BAR_WIDTH = 0.5  # of a category: the overlapped strip fits in the gap under the ideal bar
STRIP = {"width": 0.16, "offset": BAR_WIDTH / 2 + 0.04}  # below its bar (the y axis runs top to bottom)
HEIGHT = 340  # px on the page
TOTAL_ROOM = 100  # px right of the plot for the longer bar's total


def _sig(ms: float) -> str:
    """A time in the explorer readouts' words (three significant figures), a dash where the model gives none."""
    return _sig_finite(ms) if math.isfinite(ms) else "—"


def _in_ms(values: dict) -> dict[str, float]:
    return {part: 1e3 * float(v[0]) for part, v in values.items()}


def _answer(batch: int):
    def answer(scn: Scenario) -> dict:
        return {"parts": _in_ms(time_parts(scn, [batch])), "hidden": _in_ms(overlapped_parts(scn, [batch]))}

    return answer


def _error_said(error: dict | None) -> tuple[str, str]:
    """The expected ITL's error (its TPOT's) as the bar's end says it ("±8 %") and as a sentence says it."""
    if not error or "tpot" not in error:
        kind = f", {error['kind']}" if error else ""
        return "", f"its error not measured{kind}"
    median, p90 = (round(100 * e) for e in error["tpot"])
    return f" ±{median} %", f"off by {median} % at the median, {p90} % at p90, {error['kind']}"


def _lower(name: str) -> str:
    """A part's name inside a sentence: "weight reads", but "KV-cache reads"."""
    return name[0].lower() + name[1:] if name[1:2].islower() else name


def time_parts_figure(scn: Scenario, batch: int) -> dict:
    """The two bars at decode batch `batch` (the explorer's dot), the scenario's own model first (on top).

    layout.meta: {"summary": the text alternative, naming every part that is not zero with its ms, "batch": B,
    "order": ["ideal", "expected"] or the other way, "totals": {name: ITL ms}}. Where the scenario cannot run, no
    bars and a note saying why."""
    batch = int(batch)
    layout = plot_layout(X_TITLE, "", barmode="stack")
    # The totals hang past the bars' ends into the right margin, wide enough for "1,234 ms ±12 %" on a phone too.
    layout["margin"] = {"l": 12, "r": TOTAL_ROOM, "t": 4, "b": 44}
    layout["hovermode"] = "closest"
    layout["legend"] = {"orientation": "h", "y": -0.3, "x": 0, "font": {"size": 11}, "traceorder": "normal"}
    if scn.unfit_reason():
        add_note(layout, f"No operating point: {scn.unfit_reason()}")
        summary = f"Where an output token's time goes: nothing to split, {scn.unfit_reason()}."
        layout["meta"] = {"summary": summary, "batch": batch, "order": [], "totals": {}}
        layout["xaxis"]["visible"] = layout["yaxis"]["visible"] = False
        return {"data": [], "layout": layout}
    blocks = in_both_modes(scn, _answer(batch))
    order = list(blocks)
    rows = [BAR_NAMES[name] for name in order]
    data, totals, sentences = [], {}, []
    for part in PARTS:
        ms = [blocks[name]["parts"][part] for name in order]
        if not any(ms):
            continue
        data.append(
            {
                "type": "bar",
                "orientation": "h",
                "name": PART_NAMES[part],
                "x": round_sig(ms, READOUT_DIGITS),
                "y": rows,
                "width": BAR_WIDTH,
                "marker": {"color": P.PART[part], "line": {"width": 0}},
                "hovertemplate": f"%{{y}}<br>{PART_NAMES[part]}: %{{x:,.3~r}} ms per output token<extra></extra>",
                "meta": {"part": part},
            }
        )
    ends = []
    for name, row in zip(order, rows, strict=True):
        block = blocks[name]
        total = sum(block["parts"][part] for part in PARTS)
        totals[name] = round_sig([total], READOUT_DIGITS)[0]
        shown, said = _error_said(block.get("error")) if name == "expected" else ("", "")
        hidden = {part: ms for part, ms in block["hidden"].items() if ms > 0}
        base = 0.0
        for part, ms in hidden.items():  # drawn from 0 under the bar, not stacked: they add nothing
            data.append(_hidden_strip(part, ms, base, row))
            base += ms
        ends.append(max(total, base))
        layout["annotations"].append(
            {
                "x": total,
                "y": row,
                "xref": "x",
                "yref": "y",
                "text": f"<b>{_sig(total)} ms</b>{shown}",
                "showarrow": False,
                "xanchor": "left",
                "xshift": 4,
                "font": {"size": 12},
                "name": f"total-{name}",
            }
        )
        layout["annotations"].append(
            {
                "x": 0,
                "y": len(ends) - 1 - BAR_WIDTH / 2 - 0.03,  # the category's index, just above its bar
                "xref": "x",
                "yref": "y",
                "text": BAR_NAMES[name],
                "showarrow": False,
                "xanchor": "left",
                "yanchor": "bottom",
                "font": {"size": 12},
                "name": f"row-{name}",
            }
        )
        sentences.append(_sentence(name, block, total, said, hidden))
    layout["xaxis"].update(range=[0.0, 1.04 * max(ends)], autorange=False)
    layout["yaxis"].update(
        type="category",
        categoryorder="array",
        categoryarray=rows,
        # Top to bottom (the first, the scenario's own model, on top), with room above the first for its name.
        range=[len(rows) - 0.5, -0.7],
        autorange=False,
        showticklabels=False,  # each bar is named above its left end: a phone's width is the bars'
        fixedrange=True,
    )
    layout["xaxis"]["fixedrange"] = True
    first = ANSWER_OF_MODE[scn.mode]
    head = (
        f"Where an output token's time goes at B = {batch:,}, in ms per output token, the {first} first "
        "(parts that add up to the inter-token latency)."
    )
    layout["meta"] = {"summary": " ".join([head, *sentences]), "batch": batch, "order": order, "totals": totals}
    return {"data": data, "layout": layout}


def _hidden_strip(part: str, ms: float, base: float, row: str) -> dict:
    """The article's overlapped time as a hatched strip under its bar: drawn, but outside the sum."""
    name = f"{PART_NAMES[part]}, overlapped (under {HIDDEN_UNDER[part]}: adds 0 ms)"
    return {
        "type": "bar",
        "orientation": "h",
        "name": name,
        "x": round_sig([ms], READOUT_DIGITS),
        "y": [row],
        "base": [base],  # a trace with a base is drawn over the stack, not in it
        **STRIP,
        "marker": {
            "color": "rgba(255,255,255,0)",
            "line": {"color": P.PART[part], "width": 1},
            "pattern": {"shape": "/", "fgcolor": P.PART[part], "size": 6, "solidity": 0.3},
        },
        "hovertemplate": f"{name}: %{{x:,.3~r}} ms<extra></extra>",
        "meta": {"part": part, "overlapped": True},
    }


def _sentence(name: str, block: dict, total: float, said: str, hidden: dict) -> str:
    parts = ", ".join(f"{_lower(PART_NAMES[p])} {_sig(ms)} ms" for p in PARTS if (ms := block["parts"][p]) > 0)
    text = f"{BAR_NAMES[name]}: {_sig(total)} ms per output token"
    text += f" ({said})" if said else ""
    text += f": {parts}"
    for part, ms in hidden.items():
        text += f"; {_lower(PART_NAMES[part])} {_sig(ms)} ms overlapped, under {HIDDEN_UNDER[part]}, adding nothing"
    return text + "."
