"""The figures' colours: two sets that share no colour, so a colour means one thing on every figure.

- `REGIME`: the five limits of `inferx.regimes` (Okabe–Ito). Only a limit, or a mark of one, takes these: the
  HBM bandwidth (the ITL floor, the ridge B*), compute (prefill), communication, the queue (ρ > 0.85) and the KV
  capacity (B_max). A curve coloured blue is bandwidth-bound, wherever it is drawn.
- `SERIES`: the named series of a legend that are not limits: the three preset machines (`MACHINE`, the same on
  every figure and on `/inferencex`), reference curves (other contexts, precisions, workloads, TP/PP layouts),
  frameworks, draft models. Chosen away from every regime colour under the three common colour-vision
  deficiencies (CIELAB distance ≥ 16 after Machado et al.'s simulation); all but sky have ≥ 4.5:1 contrast on
  the light card and ≥ 3:1 on the dark one, so the dark theme draws them as they are. Sky is pale (2.3:1 on
  white): it draws lines, never a label.
- `CURRENT` (black) is the current settings; `GUIDE` (grey) marks targets and reference levels.

Reference curves are also dashed and named in their legends, so no figure relies on colour alone.
`tests/test_palette.py` builds every figure and checks the rule.
"""

from __future__ import annotations

REGIME = {
    "bandwidth": "#0072B2",  # blue
    "compute": "#009E73",  # bluish green
    "communication": "#CC79A7",  # reddish purple
    "queue": "#E69F00",  # orange
    "kv_capacity": "#D55E00",  # vermillion
}
# Each limit's colour as text on the light card: the same hue darkened to 4.5:1 on white (blue has it already).
# The dark theme lightens text to its own 4.5:1 in the browser (assets/theme.js).
TEXT = {**REGIME, "compute": "#008561", "communication": "#A16084", "queue": "#8A5A00", "kv_capacity": "#C05500"}
QUEUE_TEXT = TEXT["queue"]
_TEXT_OF = {REGIME[key]: shade for key, shade in TEXT.items()}


def text(colour: str) -> str:
    """The shade a label in `colour` is written in: a limit's text shade, any other colour as it is."""
    return _TEXT_OF.get(colour, colour)


VIOLET, CRIMSON, SKY, GREY = "#9933FF", "#DD0044", "#56B4E9", "#737373"
SERIES = (VIOLET, CRIMSON, SKY, GREY)  # in the order a figure hands them out
MACHINE = {"h200x8": VIOLET, "mi300x4": CRIMSON, "b200x8": SKY}

CURRENT = "#000000"
GUIDE = "#555555"  # a target or a reference level: a dashed grey line with its label


def tint(colour: str, alpha: float) -> str:
    """`colour` ("#RRGGBB") as a translucent fill: a band keeps the meaning of its colour."""
    r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"
