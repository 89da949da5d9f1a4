"""Download measured results from InferenceX's public API (`inferx fetch`).

`GET <base>/api/v1/benchmarks?model=<display name>[&date=YYYY-MM-DD]` answers a JSON array of benchmark
rows, the API shape `inferx.measured` reads. The answer is checked with that loader before anyone writes
it, so a file saved by `inferx fetch` always loads. Standard library only.
"""

from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from pathlib import Path

from inferx.data.measured import MeasuredDataError, parse_measured

DEFAULT_BASE_URL = "https://inferencex.semianalysis.com"
BASE_URL_ENV = "INFERX_API_URL"
DEFAULT_MODEL = "DeepSeek-R1-0528"
ENDPOINT = "/api/v1/benchmarks"
MAX_BYTES = 200 * 2**20  # the DeepSeek-R1 answer is about 0.5 MB; anything near this is not an answer
CHUNK = 64 * 1024
DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


class FetchError(Exception):
    """The download failed or its answer is unusable; the message is one line for the user."""


def base_url_from_env() -> str:
    return os.environ.get(BASE_URL_ENV) or DEFAULT_BASE_URL


def _is_day(text: str) -> bool:
    try:
        datetime.date.fromisoformat(text)
    except ValueError:  # 2026-13-01, 2026-02-30
        return False
    return True


def benchmarks_url(model: str, base_url: str | None = None, date: str | None = None) -> str:
    base = (base_url_from_env() if base_url is None else base_url).strip()  # "" given is refused, not the default
    try:
        parts = urllib.parse.urlsplit(base)
    except ValueError:  # an unclosed IPv6 bracket, "http://[::1"
        raise FetchError(f"base URL is not a URL: {base!r}") from None
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise FetchError(f"base URL must be http:// or https:// with a host, got {base!r}")
    if not model.strip():
        raise FetchError("model: give a display name, e.g. DeepSeek-R1-0528")
    query = {"model": model.strip()}
    if date is not None:
        if not (DATE.fullmatch(date) and _is_day(date)):
            raise FetchError(f"date: expected a day as YYYY-MM-DD, got {date!r}")
        query["date"] = date
    return base.rstrip("/") + ENDPOINT + "?" + urllib.parse.urlencode(query)


def fetch_benchmarks(
    model: str,
    *,
    base_url: str | None = None,
    timeout: float = 30.0,
    date: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> bytes:
    """The raw JSON InferenceX answers for `model` (its latest results on or before `date`, if given).

    `base_url` defaults to $INFERX_API_URL, else the public site. `timeout` (s) bounds the whole exchange,
    not only each read. `progress` is called with the bytes received so far. Raises FetchError when the
    server cannot be reached, answers an HTTP error, or answers anything but a JSON array of benchmark rows.
    """
    url = benchmarks_url(model, base_url, date)
    host = urllib.parse.urlsplit(url).netloc
    deadline = time.monotonic() + timeout
    request = urllib.request.Request(url, headers={"Accept": "application/json", "User-Agent": "inferx-fetch"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = _read(response, deadline, timeout, progress)
    except urllib.error.HTTPError as err:
        raise FetchError(f"{host} answered HTTP {err.code}{_reason(err)} for {url}") from None
    except TimeoutError:
        raise FetchError(f"no answer from {host} within {timeout:g} s") from None
    except urllib.error.URLError as err:
        if isinstance(err.reason, TimeoutError):
            raise FetchError(f"no answer from {host} within {timeout:g} s") from None
        raise FetchError(f"cannot reach {host}: {_text(err.reason)}") from None
    except OSError as err:  # a connection dropped mid-answer
        raise FetchError(f"download from {host} failed: {_text(err)}") from None
    check_answer(body, model)
    return body


def _read(response, deadline: float, timeout: float, progress) -> bytes:
    chunks, size = [], 0
    # read1 returns what has arrived, so a server dripping bytes cannot hold the download past the deadline.
    while chunk := response.read1(CHUNK):
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_BYTES:
            raise FetchError(f"the answer is over {MAX_BYTES // 2**20} MB: not a benchmark list")
        if time.monotonic() > deadline:
            raise TimeoutError
        if progress:
            progress(size)
    return b"".join(chunks)


def check_answer(body: bytes, model: str) -> None:
    """Raise FetchError unless `body` is a non-empty JSON array of rows the measured loader accepts."""
    try:
        data = json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise FetchError(f"the answer is not JSON (it starts {body[:40]!r})") from None
    if not isinstance(data, list):
        raise FetchError(f"the answer is JSON but not an array of benchmark rows (a {type(data).__name__})")
    if not data:
        raise FetchError(f"no benchmark results for model {model!r}")
    try:
        parse_measured(body, "answer.json")
    except MeasuredDataError as err:
        raise FetchError(f"the answer is not InferenceX benchmark rows: {err}") from None


def _reason(err: urllib.error.HTTPError) -> str:
    """The API's own {"error": "..."} message, else the HTTP reason phrase."""
    try:
        message = json.loads(err.read(4096)).get("error")
    except (OSError, ValueError, AttributeError):
        message = None
    message = message if isinstance(message, str) and message else err.reason
    return f" ({_text(message)})" if message else ""


def _text(value) -> str:
    return " ".join(str(value).split())[:200]


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and 0 < value <= 3600):
        raise argparse.ArgumentTypeError(f"expected a number of seconds above 0, up to 3600; got {text!r}")
    return value


def _unwritable(output: str) -> str:
    """Why `output` cannot be written, or "" (stdout, or a file its folder lets us create or replace)."""
    if output == "-":
        return ""
    if not output.strip():
        return "no file name given (use '-' for stdout)"
    path = Path(output)
    if path.is_dir():
        return "it is a folder"
    folder = path.parent
    if not folder.is_dir():
        return f"no folder {str(folder)!r}"
    if not os.access(folder, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        return "permission denied"
    return ""


def add_fetch_parser(subparsers) -> None:
    p = subparsers.add_parser("fetch", help="download measured results from InferenceX's public API")
    p.add_argument("-o", "--output", required=True, help="file to write the API JSON to ('-' for stdout)")
    p.add_argument("--model", default=DEFAULT_MODEL, help=f"model display name (default {DEFAULT_MODEL})")
    p.add_argument("--date", help="the latest results on or before this day, YYYY-MM-DD (default: the latest)")
    p.add_argument("--base-url", help=f"API server (default ${BASE_URL_ENV}, else {DEFAULT_BASE_URL})")
    p.add_argument("--timeout", type=_seconds, default=30.0, help="give up after this many seconds (default 30)")


def cli(model: str, output: str, base_url: str | None, date: str | None, timeout: float) -> int:
    """`inferx fetch`: download, check, write; a progress line on stderr; exit 2 with one line on failure."""
    err = sys.stderr
    tty = err.isatty()
    unwritable = _unwritable(output)
    if unwritable:  # said before the download, not after it
        print(f"inferx: cannot write {output!r}: {unwritable}", file=err)
        return 2
    try:
        url = benchmarks_url(model, base_url, date)
        print(f"inferx: fetching {url}", file=err, flush=True)

        def progress(size: int) -> None:
            if tty:
                print(f"\rinferx: {size / 1e3:,.0f} kB received", end="", file=err, flush=True)

        body = fetch_benchmarks(model, base_url=base_url, timeout=timeout, date=date, progress=progress)
    except FetchError as error:
        if tty:
            print(file=err)
        print(f"inferx: {error}", file=err)
        return 2
    rows = len(json.loads(body))
    if tty:
        print(file=err)
    if output == "-":
        sys.stdout.buffer.write(body)
        sys.stdout.flush()
    else:
        try:
            with open(output, "wb") as f:
                f.write(body)
        except OSError as error:
            print(f"inferx: cannot write {output}: {error.strerror or error}", file=err)
            return 2
    where = "stdout" if output == "-" else output
    print(f"inferx: {rows:,} benchmark rows ({len(body) / 1e3:,.0f} kB) written to {where}", file=err)
    return 0
