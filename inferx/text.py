"""Numbers and values in words: how a sentence, a message or a text alternative writes them."""

from __future__ import annotations

import math
import re
import reprlib

_SHORT = reprlib.Repr()
_SHORT.maxlevel, _SHORT.maxdict, _SHORT.maxlist, _SHORT.maxtuple = 3, 4, 4, 4


def shown_value(value, limit: int = 40) -> str:
    """A value as a message may quote it: short, and cheap and safe for any input (reprlib stops at a few
    levels and items; an integer past Python's 4,300-digit limit cannot even be printed)."""
    try:
        printable = isinstance(value, str) and value.isprintable()  # control characters are shown escaped
        text = value if printable else _SHORT.repr(value)
    except (ValueError, RecursionError):
        text = f"a very long {type(value).__name__}"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def number(v: float) -> str:
    """Three significant figures with thousands separators, whole numbers without decimals: 3,120 · 241,000 ·
    41.2 · 0.0834 · 1."""
    v = float(v)
    if v == 0:
        return "0"
    digits = 2 - math.floor(math.log10(abs(v)))
    if digits < 0:
        return f"{round(v, digits):,.0f}"
    if digits == 0 or v.is_integer():  # ".0f" rounds as round(v, 0) would, half to even
        return f"{v:,.0f}"
    return f"{v:.{digits}f}"


def percent(share: float, decimals: int = 1) -> str:
    """A share as a percentage in a sentence: 0.078 -> "7.8 %", with a no-break space (a phone broke the line
    between "7.8" and "%")."""
    return f"{100 * share:.{decimals}f}\u00a0%"


# A unit that counts things ("requests", "concurrent requests", "GPUs", "tokens per step"), not a rate ("tok/s")
# or a time ("ms"): its plural, and what follows it. assets/inferx.js `counted` is its twin.
_COUNTED = re.compile(r"([A-Za-z ]*[A-Za-z]{3,})s( per [A-Za-z ]+)?")


def counted(shown: str, unit: str) -> str:
    """A number as shown and its unit: "1 GPU", "1 token per step", "2 GPUs" (a unit only where there is one)."""
    if shown == "1" and (match := _COUNTED.fullmatch(unit)):
        unit = match[1] + (match[2] or "")
    return f"{shown} {unit}" if unit else shown
