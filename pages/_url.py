"""Reading a page's address and the browser's control values into checked parameters."""

from __future__ import annotations

from inferx.scenario import (
    BATCH,
    PARAMS,
    InvalidParameter,
    as_number,
    check_batch,
    check_param,
    resolve_params,
    shown_value,
)

MAX_NOTICES = 8  # a hostile address with thousands of bad keys still gets a page of readable length
# `theme=` is read by the browser (assets/theme.js), not by the figures: an embed in a dark wiki asks for dark.
THEMES = ("light", "dark", "auto")


def controls() -> tuple[str, ...]:
    """Every parameter, in the order the control callbacks send their values."""
    return tuple(PARAMS)


def log2_controls() -> tuple[str, ...]:
    """Parameters whose slider position is log2 of the value."""
    return tuple(name for name, p in PARAMS.items() if p.log2)


def parse_query(query: dict) -> tuple[dict, int, list[str]]:
    """Control values and batch from URL query parameters, and a notice per bad value.

    A bad or out-of-range value is dropped (the default stays) and reported in the same words as the CLI's.
    A key given more than once (Dash hands over a list) takes its last value, and says so.
    """
    notices, single = [], {}
    for name, raw in query.items():
        if isinstance(raw, (list, tuple)):
            if not raw:
                continue
            key, last = shown_value(name), shown_value(raw[-1])
            notices.append(f"{key} was given {len(raw)} times; used the last: {key}={last}.")
            raw = raw[-1]
        single[name] = raw
    checked, batch = {}, BATCH.default
    for name, raw in single.items():
        if name == "theme":
            if raw not in THEMES:
                notices.append(f"Ignored theme={shown_value(raw)}: must be one of {', '.join(THEMES)}.")
            continue
        if name != "batch" and name not in PARAMS:
            notices.append(f"Ignored unknown parameter {shown_value(name)!r}.")
            continue
        try:
            if name == "batch":
                batch = check_batch(raw)
            else:
                checked[name] = check_param(name, raw)
        except InvalidParameter as err:
            notices.append(f"Ignored {err}.")
    values = resolve_params(checked)  # the preset's values, then the GPU and count's, then the address's
    if len(notices) > MAX_NOTICES:
        notices[MAX_NOTICES - 1 :] = [f"… and {len(notices) - MAX_NOTICES + 1} more ignored."]
    return values, batch, notices


def control_values_to_params(values: list) -> dict:
    """Control values in `controls()` order (log2 sliders converted back to counts); raises InvalidParameter
    for anything that is not one value per control."""
    names = controls()
    if not isinstance(values, list) or len(values) != len(names):
        raise InvalidParameter("values", f"must be a list of {len(names)} control values", values)
    params = dict(zip(names, values, strict=True))
    for name in log2_controls():
        if params[name] is not None:
            params[name] = tokens_from_position(name, params[name])
    return params


def tokens_from_position(name: str, position) -> int:
    """A log2 slider position back to a whole count, refusing positions no slider can reach."""
    number = as_number(position)
    if number is None or not 0 <= number <= 30:
        raise InvalidParameter(name, "slider position must be log₂ of the value, from 0 to 30", position)
    return max(1, round(2**number))
