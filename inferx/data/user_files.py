"""JSON read from a user's file or a browser's upload: size-bounded, UTF-8, a key given twice refused, each
problem said in words."""

from __future__ import annotations

import base64
import binascii
import codecs
import json
import os
import sys
from pathlib import Path

from inferx.deploy import ConfigError


class DuplicateKey(ValueError):
    """A JSON object that names one key twice: which value was meant is not ours to guess (Python's json keeps
    the last one silently)."""


def _unique_keys(pairs: list[tuple]) -> dict:
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise DuplicateKey(f"the key {json.dumps(key)[:80]} appears twice in one object")
        obj[key] = value
    return obj


def loads(text: str):
    """The JSON value of a file we read (a model config, a GPU datasheet), refusing a key given twice."""
    return json.loads(text, object_pairs_hook=_unique_keys)


def json_problem(err: ValueError) -> str:
    """Why text is not JSON we read, in words: Python's own for an over-long integer names
    sys.set_int_max_str_digits, no help to a user."""
    if isinstance(err, DuplicateKey):
        return str(err)
    if isinstance(err, json.JSONDecodeError):
        return f"{err.msg} at line {err.lineno}"
    if isinstance(err, UnicodeDecodeError):  # Python's words name the codec and its "invalid start byte"
        return f"not UTF-8 text at byte {err.start}"
    if "digits" in str(err):
        return f"a number of more than {sys.get_int_max_str_digits():,} digits"
    return str(err)


def _text(raw: bytes) -> str:
    """UTF-8 text, a byte order mark (as some editors write) left out; a bad byte's offset counts the mark."""
    skip = len(codecs.BOM_UTF8) if raw.startswith(codecs.BOM_UTF8) else 0
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise UnicodeDecodeError(err.encoding, raw, err.start + skip, err.end + skip, err.reason) from None


def read_json_file(path: str | os.PathLike, max_bytes: int, error: type[ConfigError], what: str):
    """The JSON value in a file of at most `max_bytes`; `error` says which file and why it cannot be read."""
    if isinstance(path, str) and not path.strip():  # Path("") is the current folder
        raise error(f"no file name given, so not {what}")
    path = Path(path)
    try:
        with path.open("rb") as file:
            raw = file.read(max_bytes + 1)  # at most that: a device such as /dev/zero has no size to check first
    except OSError as err:
        raise error(f"{path}: cannot read it ({err.strerror or err})") from None
    if len(raw) > max_bytes:
        raise error(f"{path}: larger than {max_bytes >> 10} KiB, so not {what}")
    try:
        return loads(_text(raw))
    except UnicodeDecodeError:
        raise error(f"{path}: not UTF-8 text, so not {what}") from None
    except ValueError as err:
        raise error(f"{path}: not JSON ({json_problem(err)})") from None
    except RecursionError:  # JSON nested thousands deep
        raise error(f"{path}: JSON nested too deeply, so not {what}") from None


def json_from_upload(contents, max_bytes: int, error: type[ConfigError], what: str):
    """The JSON value of a file a browser sent (a dcc.Upload data URL) of at most `max_bytes`; `error` if not."""
    if not isinstance(contents, str) or not contents.startswith("data:") or "," not in contents:
        raise error("not a file upload")
    data = contents.split(",", 1)[1]
    if len(data) * 3 // 4 > max_bytes:
        size = f"{max_bytes >> 20} MiB" if max_bytes >= 1 << 20 else f"{max_bytes >> 10} KiB"
        raise error(f"larger than {size}: not {what}")
    try:
        return loads(_text(base64.b64decode(data, validate=True)))
    except (binascii.Error, ValueError) as err:  # bad base64, not UTF-8, not JSON
        raise error(f"not a JSON file ({json_problem(err)})") from None
    except RecursionError:
        raise error("not a JSON file we read: nested too deeply") from None
