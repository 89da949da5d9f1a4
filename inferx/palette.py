"""The figures' colours: sets that share no colour, so a colour means one thing on every figure.

- `REGIME`: the five limits of `inferx.regimes` (Okabe–Ito). Only a limit, or a mark of one, takes these: the
  HBM bandwidth (the ITL floor, the ridge B*), compute (prefill), communication, the queue (ρ > 0.85) and the KV
  capacity (B_max). A curve coloured blue is bandwidth-bound, wherever it is drawn.
- `GPU`: one colour per GPU, the same on every figure that draws a machine (Figure 5's presets and the current
  machine, Figures 7–9's current curve, a pinned A's, the measured runs on Figures 4 and 5 and `/inferencex`,
  whose markers say the serving stack): violet is H200 wherever it is drawn, and a colour no GPU owns (`SPARE`)
  goes to a GPU read from a datasheet. Families share a hue (AMD crimsons, Hopper violets, Blackwell sky and
  teal). `MACHINE` names the three presets' colours.
- `RAMP`: a grey ramp for the values of an ordered parameter (context S, weight bytes, TP degree, acceptance α,
  draft bandwidth, …): light for the smallest, dark for the largest, never a hue, so no hue means two things.
  The dark theme mirrors greys (assets/theme.js), so the order reads the same way on both cards.
- `PART`: the parts of one output token's time (`inferx.analysis.breakdown.PARTS`, the explorer's "Where the
  time goes" bars): weight reads, KV-cache reads, arithmetic, the fixed step cost, communication and prefill
  stalls. A part is a time spent, not a limit that binds, so none takes a limit's colour (the arithmetic is
  spent while HBM binds too, in the calibrated step), nor a GPU's; the two HBM reads share a hue, dark and light.
- `CURRENT` (black) is the current settings where no machine is named; `GUIDE` (grey) marks targets and
  reference levels.

Reference curves are also dashed and named (in a legend or a direct label), so no figure relies on colour alone.
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


TEXT_GREY = "#767676"  # the lightest grey with 4.5:1 on white: a light ramp step's label


def text(colour: str) -> str:
    """The shade a label in `colour` is written in: a limit's text shade, a ramp grey lighter than 4.5:1 on
    white darkened to it, any other colour as it is."""
    if colour in _TEXT_OF:
        return _TEXT_OF[colour]
    grey = len(colour) == 7 and colour[1:3] == colour[3:5] == colour[5:7]
    if grey:
        return TEXT_GREY if int(colour[1:3], 16) > int(TEXT_GREY[1:3], 16) else colour
    return _darkened(colour) if len(colour) == 7 and colour.startswith("#") else colour


def _luminance(rgb) -> float:
    def channel(v: float) -> float:
        c = v / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _darkened(colour: str) -> str:
    """`colour` darkened, its hue kept, until it has 4.5:1 on white (a pale GPU colour's label: sky)."""
    rgb = [int(colour[i : i + 2], 16) for i in (1, 3, 5)]
    scale = 1.0
    while 1.05 / (_luminance([v * scale for v in rgb]) + 0.05) < 4.5 and scale > 0:
        scale -= 0.02
    return "#" + "".join(f"{round(v * scale):02X}" for v in rgb)


VIOLET, CRIMSON, SKY, GREY = "#9933FF", "#DD0044", "#56B4E9", "#737373"
GPU = {
    "h200": VIOLET,
    "h100": "#6B2FB3",
    "a100": "#8C564B",
    "l40s": "#7A7A00",
    "b200": SKY,
    "b300": "#2AA3A3",
    "gb200": "#1B7F9E",
    "mi300x": CRIMSON,
    "mi325x": "#A8003A",
    "mi355x": "#FF5C7A",
}
SPARE = "#B8860B"  # a GPU the catalog does not colour (a user's datasheet): dark gold, no catalog GPU's
MACHINE = {"h200x8": GPU["h200"], "mi300x4": GPU["mi300x"], "b200x8": GPU["b200"]}


def gpu_colour(key: str) -> str:
    """The colour of the GPU `key` on every figure."""
    return GPU.get(key, SPARE)


RAMP_ENDS = (0x95, 0x4D)  # the light and dark ends of the grey ramp: 3:1 and 8.3:1 on the light card
RAMP = tuple(f"#{v:02X}{v:02X}{v:02X}" for v in (0x95, 0x71, 0x4D))  # three steps, light to dark


def ramp(n: int) -> list[str]:
    """`n` greys from light to dark, for `n` values of an ordered parameter from the smallest to the largest."""
    light, dark = RAMP_ENDS
    if n <= 1:
        return [f"#{dark:02X}{dark:02X}{dark:02X}"]
    steps = [round(light + (dark - light) * i / (n - 1)) for i in range(n)]
    return [f"#{v:02X}{v:02X}{v:02X}" for v in steps]


PART = {
    "weights": "#2E3A87",  # navy indigo
    "kv": "#98A3DA",  # periwinkle: the other HBM read, the weights' hue lighter
    "compute": "#8DB600",  # apple green
    "overhead": "#C2B280",  # ecru
    "communication": "#5C2A5E",  # plum
    "prefill": "#D4A5A5",  # dusty rose
}

CURRENT = "#000000"
GUIDE = "#555555"  # a target or a reference level: a dashed grey line with its label


def tint(colour: str, alpha: float) -> str:
    """`colour` ("#RRGGBB") as a translucent fill: a band keeps the meaning of its colour."""
    r, g, b = (int(colour[i : i + 2], 16) for i in (1, 3, 5))
    return f"rgba({r},{g},{b},{alpha})"
