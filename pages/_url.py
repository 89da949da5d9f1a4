"""Reading a page's address, the browser's control values and its requests' bodies into checked parameters."""

from __future__ import annotations

import math

from flask import request

from inferx.analysis.answers import error_brief, expected_error
from inferx.scenario.controls import (
    BATCH,
    PARAMS,
    InvalidParameter,
    as_number,
    check_batch,
    check_param,
    near_miss,
    value_at,
)
from inferx.scenario.evaluation import Scenario
from inferx.scenario.machines import fitted_context, resolve_params
from inferx.text import shown_value

QUERY_NAMES = (*PARAMS, "batch", "theme")  # what an address may name besides A (`a=`, read by the page)
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
            notices.append(f"Ignored unknown parameter {_quoted(name)}{near_miss(name, QUERY_NAMES)}.")
            continue
        try:
            if name == "batch":
                batch = check_batch(raw)
            else:
                checked[name] = check_param(name, raw)
        except InvalidParameter as err:
            notices.append(f"Ignored {err}.")
    try:
        values = resolve_params(checked)  # the preset's values, then the GPU and count's, then the address's
    except InvalidParameter as err:  # a GPU whose datasheet at this count passes a control's range
        given = [k for k in ("gpu", "gpus") if k in checked]
        notices.append(f"Ignored {' and '.join(f'{k}={shown_value(checked[k])}' for k in given)}: {err.reason}.")
        values = resolve_params({k: v for k, v in checked.items() if k not in given})
    values, note = fitted_context(values)  # a context shorter than the prompt: drawn corrected, and said
    if note:
        notices.append(note)
    if len(notices) > MAX_NOTICES:
        notices[MAX_NOTICES - 1 :] = [f"… and {len(notices) - MAX_NOTICES + 1} more ignored."]
    return values, batch, notices


def _quoted(name: str) -> str:
    """A parameter's name as a notice quotes it: 'modle', or escaped (once) where it holds control characters."""
    shown = shown_value(name)
    return repr(shown) if name.isprintable() else shown


def control_values_to_params(values: list) -> dict:
    """Control values in `controls()` order (log2 slider positions converted back to values); raises
    InvalidParameter for anything that is not one value per control."""
    names = controls()
    if not isinstance(values, list) or len(values) != len(names):
        raise InvalidParameter("values", f"must be a list of {len(names)} control values", values)
    params = dict(zip(names, values, strict=True))
    for name in log2_controls():
        if params[name] is not None:
            params[name] = value_from_position(name, params[name])
    if all(isinstance(params[n], int) for n in ("ctx", "isl", "osl")):  # the note under the input length says so
        params = fitted_context(params)[0]
    return params


def value_from_position(name: str, position):
    """A log2 slider's position back to its value (`scenario.value_at`), refusing positions no slider can
    reach (2**position of a hostile number would overflow or take its time)."""
    p = BATCH if name == "batch" else PARAMS[name]
    low, high = math.log2(p.low), math.log2(p.high)
    number = as_number(position)
    if number is None or not low - 1e-9 <= number <= high + 1e-9:
        raise InvalidParameter(name, f"slider position must be log₂ of the value, from {low:.4g} to {high:.4g}",
                               position)  # fmt: skip
    return value_at(p, number)


# --- The pinned scenario A of a comparison: `a=preset:mi300x4,ctx:8192` ---------------------------------------

PINNED_KEY = "a"
MAX_PINNED_CHARS = 2000  # every control at its longest value fits in a few hundred; more is not an A


def encode_pinned(compact: dict) -> str:
    """A's controls as the `a=` value: `name:value` pairs joined by commas, in the order given. Every value is
    a catalog key or a number, so neither separator can occur inside one (check_param refuses any that does)."""
    return ",".join(f"{name}:{_plain(value)}" for name, value in compact.items())


def _plain(value) -> str:
    # The shortest text that reads back as the same number, as the browser's String(v) writes it: 4096, 38.4.
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def parse_pinned(raw) -> tuple[dict | None, list[str]]:
    """A's checked controls (the preset and those that differ from it) from the `a=` value, and a notice per
    piece ignored; None when nothing in it is a valid control. Each value goes through check_param, like the
    address's own."""
    notices = []
    if isinstance(raw, (list, tuple)):  # given more than once: the last, as for any other key
        if not raw:
            return None, []
        notices.append(f"a was given {len(raw)} times; used the last: a={shown_value(raw[-1])}.")
        raw = raw[-1]
    if raw is None or raw == "":
        return None, notices
    if not isinstance(raw, str) or len(raw) > MAX_PINNED_CHARS:
        return None, [*notices, f"Ignored a={shown_value(raw)}: must be name:value pairs, at most "
                                f"{MAX_PINNED_CHARS:,} characters, so nothing is pinned."]  # fmt: skip
    checked = {}
    for piece in raw.split(","):
        name, colon, value = piece.partition(":")
        if not colon or name not in PARAMS:
            notices.append(f"Ignored {_quoted(piece)} in a=: each piece must be name:value with a control's name.")
            continue
        try:
            value = check_param(name, value)
        except InvalidParameter as err:
            notices.append(f"Ignored A's {err}.")
            continue
        if name in checked:
            notices.append(f"a= gave {name} more than once; used the last valid one.")
        checked[name] = value
    if not checked:
        notices.append("Nothing is pinned: a= held no valid control.")
    else:
        try:  # each value was valid; together they may not be (a GPU count whose bandwidth leaves the slider)
            Scenario.from_params(**pinned_values(checked))
        except InvalidParameter as err:
            notices.append(f"Nothing is pinned: A's settings give {err}.")
            checked = {}
    if len(notices) > MAX_NOTICES:
        notices[MAX_NOTICES - 1 :] = [f"… and {len(notices) - MAX_NOTICES + 1} more ignored in a=."]
    return (checked or None), notices


def pinned_values(compact) -> dict:
    """Every control of A from its compact controls as the page's store and redraw request carry them
    (anyone can send those, so each value is checked); raises InvalidParameter."""
    if not isinstance(compact, dict) or not 0 < len(compact) <= len(PARAMS):
        raise InvalidParameter("pinned", f"must be an object of 1 to {len(PARAMS)} controls", compact)
    return resolve_params({name: check_param(name, value) for name, value in compact.items()})


def json_body():
    """The request's JSON body, or None where it is not JSON or nests past the parser's depth (it comes from the
    browser, so from anyone: the caller checks each field)."""
    try:
        return request.get_json(silent=True)
    except RecursionError:
        return None


def scenario_line(values: dict) -> str:
    """One line naming what the figures show (an embed's line under its title, a printout's head, an image's
    subtitle): which answer it is (ideal or expected, with the expected one's TPOT error), machine, model,
    precisions and lengths, with units; in calibrated mode also the software stack, the output length and
    speculative decoding, which only that mode reads."""
    label = {name: PARAMS[name].label_of for name in ("gpu", "model", "wdtype", "kvdtype", "framework")}
    if values["mode"] == "calibrated":
        try:
            error = expected_error(Scenario.from_params(**values))
            answer = f"expected (calibrated), TPOT {error_brief(error, 'tpot')}"
        except InvalidParameter:  # settings no figure draws either (the page says why): no error to state
            answer = "expected (calibrated)"
    else:
        answer = "ideal (article physics: the hardware's bound)"
    parts = [
        answer,
        f"{values['gpus']}×{label['gpu'](values['gpu'])}, {values['bw']:,.1f} TB/s",
        label["model"](values["model"]),
        f"{label['wdtype'](values['wdtype'])} weights, {label['kvdtype'](values['kvdtype'])} KV cache",
        f"context {values['ctx']:,} tokens, input {values['isl']:,} tokens",
    ]
    switched = [words for name, words in (("ep", "expert parallelism"), ("dp", "attention data parallelism"))
                if values.get(name) == "1"]  # fmt: skip
    if switched:  # the layout across the TP group, where the address sets one
        parts.append(f"{' and '.join(switched)} across TP {values['tp']}")
    if values["mode"] == "calibrated":
        stack = f"served by {label['framework'](values['framework'])}, output {values['osl']:,} tokens"
        if values["mtp"] == "on":
            alpha = values["acceptance"]
            stack += f", MTP with α {'fitted' if alpha is None else f'{alpha:g} %'}"
        parts.append(stack)
    return " · ".join(parts)
