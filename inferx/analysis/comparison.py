"""Two scenarios side by side on the numbers that decide a choice, each under both models: the ideal (article
physics) and the expected (calibrated, with how far it may be off). `inferx compare` prints them and the page
renders them as a table while a scenario A is pinned; both read `comparison` and `comparison_rows`."""

from __future__ import annotations

from dataclasses import dataclass

from inferx.analysis.answers import ANSWER_MEANING, in_both_modes, slo_answer
from inferx.scenario.evaluation import Scenario
from inferx.text import number, percent

SIDES = ("a", "b")
ANSWERS = ("ideal", "expected")
NOT_MET = "—"  # no batch meets the targets: no point to read


@dataclass(frozen=True)
class Deciding:
    key: str  # of a goodput answer (`answers.slo_answer`)
    label: str
    unit: str
    error: str | None  # the metric of the calibrated model's error tables that measures it, if one does
    shown: str  # its format


DECIDING = (
    Deciding("batch", "users at the SLO", "concurrent requests", None, "{:,.0f}"),
    Deciding("itl_ms", "TPOT", "ms", "tpot", "{:,.1f}"),
    Deciding("ttft_ms", "TTFT", "ms", "ttft", "{:,.0f}"),
    Deciding("throughput_per_gpu_tok_s", "output throughput", "tok/s per GPU", "throughput_per_gpu", "{:,.0f}"),
    Deciding("cost_per_mtok_usd", "cost", "$ per million output tokens", None, ""),
    Deciding("tokens_per_joule", "energy", "tok/J", None, ""),
)


def answer(scn: Scenario) -> dict:
    """The scenario's controls and its best point under its own TTFT and TPOT targets, under both models."""
    from inferx.analysis import slo

    def best(s: Scenario) -> dict:
        p = s.params
        return slo_answer(slo.goodput(s, p["ttft"], p["tpot"], p["price"], p["power"]))

    return {"scenario": scn.params, **in_both_modes(scn, best)}


def comparison(a: Scenario, b: Scenario) -> dict:
    """{"a": answer(a), "b": answer(b)}."""
    return {"a": answer(a), "b": answer(b)}


def shown(row: Deciding, block: dict) -> str:
    """A block's value of a row as the table shows it (no unit: the header has it), or NOT_MET."""
    value = block.get(row.key)
    if value is None or not block.get("batch"):
        return NOT_MET
    return row.shown.format(value) if row.shown else number(value)


def error_of(row: Deciding, error: dict) -> str:
    """How far an expected value may be off, "± 8.6 % (p90 22 %)", from the error table of its metric; "" where
    none measures it (an unseen model, or a number no table keeps)."""
    spread = error.get(row.error) if row.error else None
    if not spread:
        return ""
    return f"± {percent(spread[0])} (p90 {percent(spread[1], 0)})"


# The metrics an expected answer's error may state (`answers.expected_error`), in the order they are said.
ERROR_WORDS = {"tpot": "TPOT", "ttft": "TTFT", "throughput_per_gpu": "output tok/s per GPU", "e2e": "E2E"}


def error_said(error: dict) -> str:
    """How far an expected answer may be off, in words, for whichever metrics its kind of extrapolation has been
    scored on: "TPOT off by 6 % (median), 12 % (p90); TTFT …". A calibrated DeepSeek-R1 configuration has all of
    them; the transferable model on another model only the published maximum throughput's; none, its note."""
    said = [
        f"{name} off by {percent(error[key][0], 0)} (median), {percent(error[key][1], 0)} (p90)"
        for key, name in ERROR_WORDS.items()
        if error.get(key)
    ]
    return "; ".join(said) or error.get("note") or "no measured runs of this kind to score it against"


def error_basis(error: dict) -> str:
    """What an expected block's error is, in one line: its kind of extrapolation and where the figures come from."""
    if not any(error.get(key) for key in ERROR_WORDS):
        return f"{error['kind']}: {error_said(error)}"
    return f"{error['kind']} ({error['basis']}); ± median, p90 of |predicted / measured − 1|"


def comparison_rows(record: dict) -> list[dict]:
    """The deciding numbers of a `comparison` as table rows: each a label, a unit and per side ("a", "b") the ideal
    and the expected value as shown, and the expected value's error where one is measured."""
    rows = []
    for row in DECIDING:
        cells = {}
        for side in SIDES:
            blocks = record[side]
            error = blocks["expected"].get("error") or {}
            expected = shown(row, blocks["expected"])
            cells[side] = {
                "ideal": shown(row, blocks["ideal"]),
                "expected": expected,
                "error": error_of(row, error) if expected != NOT_MET else "",
            }
        rows.append({"key": row.key, "label": row.label, "unit": row.unit, **cells})
    return rows


def meanings() -> dict[str, str]:
    """What the ideal and the expected answer are, for a table's notes."""
    return dict(ANSWER_MEANING)
