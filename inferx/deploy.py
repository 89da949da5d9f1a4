"""Deployment settings from the environment, and the HTTP headers that make framing safe.

No Dash import here: `gunicorn.conf.py` and the Docker HEALTHCHECK use this module too, and the
health check runs it as a plain script (`python inferx/deploy.py healthcheck`) so it does not pay
for importing the engine every few seconds.

Environment variables (all optional; defaults suit a 2-core host):

    INFERX_PREFIX           /        path the app is served under, e.g. /tools/inferx/ behind a proxy
                                     that forwards the prefix unchanged (falls back to DASH_URL_BASE_PATHNAME)
    INFERX_FRAME_ANCESTORS  'self'   who may frame the app: CSP frame-ancestors sources, space or comma
                                     separated, e.g. "'self' https://wiki.example.com"; 'none' forbids all
    INFERX_REFERRER_POLICY  same-origin
    INFERX_WORKERS          2        gunicorn worker processes
    INFERX_THREADS          4        threads per worker (gthread)
    INFERX_TIMEOUT          60       seconds before gunicorn restarts a stuck worker
    INFERX_MAX_UPLOAD_MB    20       largest measured-data file a user may upload; the server refuses request
                                     bodies over its base64 size (4/3 of it) plus 1 MiB with 413
    INFERX_SECRET_KEY       random   key that signs the measured data kept in each user's browser (at least 32
                                     characters). Unset, each server process makes its own at start-up, which is
                                     right for one server; replicas behind a load balancer must share one
    INFERX_MODELS           (none)   Hugging Face config.json files whose models join the catalog, separated by ":"
                                     (read by app.py and the CLI: inferx/data/user_models.py)
    INFERX_GPUS             (none)   GPU datasheets as JSON (the fields of `inferx hardware --format json`) whose
                                     GPUs join the catalog, separated by ":" (inferx/data/user_gpus.py)
    HOST                    0.0.0.0  bind address
    PORT                    8050     bind port
"""

from __future__ import annotations

import ctypes
import gc
import json
import logging
import math
import os
import re
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass

REFERRER_POLICIES = (
    "no-referrer",
    "no-referrer-when-downgrade",
    "origin",
    "origin-when-cross-origin",
    "same-origin",
    "strict-origin",
    "strict-origin-when-cross-origin",
    "unsafe-url",
)

# Dash reads these at start-up even without app.run(debug=True); any of them would put dev tools
# (error pop-ups with tracebacks, dev bundles) in front of users, so production refuses them.
DASH_DEV_VARS = (
    "DASH_DEBUG",
    "DASH_UI",
    "DASH_PROPS_CHECK",
    "DASH_SERVE_DEV_BUNDLES",
    "DASH_HOT_RELOAD",
    "DASH_PRUNE_ERRORS",
    "DASH_VALIDATE_CALLBACKS",
)

_KEYWORDS = {"self": "'self'", "none": "'none'"}
_SCHEME_SOURCE = re.compile(r"[a-zA-Z][a-zA-Z0-9+.-]*:")
_HOST_SOURCE = re.compile(
    r"(?:[a-zA-Z][a-zA-Z0-9+.-]*://)?"  # optional scheme
    r"(?:\*|(?:\*\.)?[a-zA-Z0-9-]+(?:\.[a-zA-Z0-9-]+)*|\[[0-9a-fA-F:.]+\])"  # host, *.host or [ipv6]
    r"(?::(?:[0-9]{1,5}|\*))?"  # optional port
    r"(?:/[A-Za-z0-9._~%!$&()*+=:@/-]*)?"  # optional path; never ; , or quotes (header injection)
)


class ConfigError(ValueError):
    """A deployment environment variable has a value the app cannot run with."""


SECRET_ENV = "INFERX_SECRET_KEY"
_PROCESS_KEY = os.urandom(32)  # made before gunicorn forks (preload_app), so one server's workers share it


def secret_key(environ: Mapping[str, str] | None = None) -> bytes:
    """The key that signs what the app keeps in a browser: $INFERX_SECRET_KEY, else this process's random key."""
    env = os.environ if environ is None else environ
    raw = _env(env, SECRET_ENV)
    if raw is None:
        return _PROCESS_KEY
    if len(raw) < 32:
        raise ConfigError(
            f"{SECRET_ENV} is {len(raw)} characters; use at least 32 random ones (e.g. openssl rand -hex 32)"
        )
    return raw.encode("utf-8", "surrogateescape")


def _env(environ: Mapping[str, str], name: str) -> str | None:
    value = environ.get(name)
    return value.strip() if value is not None and value.strip() else None


def normalise_prefix(raw: str, var: str = "INFERX_PREFIX") -> str:
    """'tools/inferx' -> '/tools/inferx/'; '' or '/' -> '/'."""
    parts = [p for p in raw.strip().split("/") if p]
    for part in parts:
        if part in (".", "..") or not re.fullmatch(r"[A-Za-z0-9._~!$&'()*+,;=:@%-]+", part):
            raise ConfigError(f"{var}={raw!r}: each path segment must be plain URL characters, got {part!r}")
    return "/" + "".join(p + "/" for p in parts)


def parse_frame_ancestors(raw: str, var: str = "INFERX_FRAME_ANCESTORS") -> tuple[str, ...]:
    """Validate a CSP frame-ancestors source list; unquoted self/none are accepted and quoted."""
    sources: list[str] = []
    for token in re.split(r"[\s,]+", raw.strip()):
        if not token:
            continue
        bare = token.strip("'").lower()
        if bare in _KEYWORDS:
            source = _KEYWORDS[bare]
        elif _SCHEME_SOURCE.fullmatch(token) or _HOST_SOURCE.fullmatch(token):
            source = token
        else:
            raise ConfigError(
                f"{var}={raw!r}: {token!r} is not a frame-ancestors source; use 'self', 'none', "
                "a scheme such as https:, or an origin such as https://wiki.example.com or https://*.example.com"
            )
        if source not in sources:
            sources.append(source)
    if not sources:
        raise ConfigError(f"{var} is empty; leave it unset for same-origin only, or set 'none' to forbid framing")
    if "'none'" in sources and len(sources) > 1:
        raise ConfigError(f"{var}={raw!r}: 'none' cannot be combined with other sources")
    return tuple(sources)


def _int(environ: Mapping[str, str], name: str, default: int, lo: int, hi: int) -> int:
    raw = _env(environ, name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r}: expected a whole number between {lo} and {hi}") from None
    if not lo <= value <= hi:
        raise ConfigError(f"{name}={raw!r}: expected a whole number between {lo} and {hi}")
    return value


@dataclass(frozen=True)
class Settings:
    prefix: str = "/"
    frame_ancestors: tuple[str, ...] = ("'self'",)
    referrer_policy: str = "same-origin"
    workers: int = 2
    threads: int = 4
    timeout: int = 60
    host: str = "0.0.0.0"
    port: int = 8050
    max_upload_mb: int = 20

    @property
    def max_upload_bytes(self) -> int:
        return self.max_upload_mb * 2**20

    @property
    def max_request_bytes(self) -> int:
        """Largest request body: an upload arrives as a base64 data URL (4 bytes per 3) inside a JSON envelope."""
        return math.ceil(self.max_upload_bytes * 4 / 3) + 2**20

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        """Read and validate the environment; raises ConfigError naming the variable at fault."""
        env = os.environ if environ is None else environ
        for name in DASH_DEV_VARS:
            value = _env(env, name) or _env(env, name.lower())
            if value is not None and value.lower() not in ("false", "0", "no"):
                raise ConfigError(
                    f"{name}={value!r} would switch on Dash dev tools (tracebacks in the browser); "
                    "inferx never serves with them, unset it"
                )
        prefix_raw = _env(env, "INFERX_PREFIX")
        prefix_var = "INFERX_PREFIX"
        if prefix_raw is None and _env(env, "DASH_URL_BASE_PATHNAME") is not None:
            prefix_raw, prefix_var = _env(env, "DASH_URL_BASE_PATHNAME"), "DASH_URL_BASE_PATHNAME"
        ancestors_raw = _env(env, "INFERX_FRAME_ANCESTORS")
        referrer = (_env(env, "INFERX_REFERRER_POLICY") or cls.referrer_policy).lower()
        if referrer not in REFERRER_POLICIES:
            raise ConfigError(f"INFERX_REFERRER_POLICY={referrer!r}: expected one of {', '.join(REFERRER_POLICIES)}")
        secret_key(env)  # refused here, at start-up, rather than at the first upload
        host = _env(env, "HOST") or cls.host
        if not re.fullmatch(r"[A-Za-z0-9.:\[\]-]+", host):
            raise ConfigError(f"HOST={host!r}: expected an address such as 0.0.0.0, 127.0.0.1 or [::]")
        return cls(
            prefix=normalise_prefix(prefix_raw or "/", prefix_var),
            frame_ancestors=parse_frame_ancestors(ancestors_raw) if ancestors_raw else cls.frame_ancestors,
            referrer_policy=referrer,
            workers=_int(env, "INFERX_WORKERS", cls.workers, 1, 64),
            threads=_int(env, "INFERX_THREADS", cls.threads, 1, 256),
            timeout=_int(env, "INFERX_TIMEOUT", cls.timeout, 5, 3600),
            host=host,
            port=_int(env, "PORT", cls.port, 1, 65535),
            max_upload_mb=_int(env, "INFERX_MAX_UPLOAD_MB", cls.max_upload_mb, 1, 1024),
        )

    def headers(self) -> dict[str, str]:
        """Security headers for every response, assets and callbacks included."""
        headers = {
            "Content-Security-Policy": "frame-ancestors " + " ".join(self.frame_ancestors),
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": self.referrer_policy,
        }
        # Browsers too old for frame-ancestors still honour X-Frame-Options; it can only express the
        # two strict cases (ALLOW-FROM is obsolete), and modern browsers let CSP win when both are set.
        if self.frame_ancestors == ("'self'",):
            headers["X-Frame-Options"] = "SAMEORIGIN"
        elif self.frame_ancestors == ("'none'",):
            headers["X-Frame-Options"] = "DENY"
        return headers

    def install(
        self,
        server,
        callback_map: Callable[[], Mapping] | None = None,
        not_found=(),
        page_exists: Callable[[str], bool] | None = None,
    ) -> None:
        """Harden a Flask server: security headers on every response, debug off, no tracebacks, bounded request
        bodies, malformed callback requests refused with 400 before Dash sees them.

        `callback_map` returns the Dash app's callbacks (for the envelope check); exceptions in `not_found` (Dash's
        unknown-script error) answer 404. `page_exists` tells a page's address (without the prefix) from one no
        page has, which Dash answers with its page shell like any other: that answer keeps its body (the browser
        draws the not-found page from it) with the status 404, for crawlers, link checkers and a wiki's iframe."""
        headers = self.headers()
        # FLASK_DEBUG in the environment would otherwise turn on debug mode, which propagates
        # exceptions instead of answering a bare 500.
        server.debug = False
        server.config["PROPAGATE_EXCEPTIONS"] = False
        server.config["MAX_CONTENT_LENGTH"] = self.max_request_bytes
        from flask import Request, g, request
        from werkzeug.exceptions import BadRequest, HTTPException, RequestEntityTooLarge

        limit_mb = self.max_upload_mb

        class _Request(Request):
            def get_data(self, cache=True, as_text=False, parse_form_data=False):
                if not (self.method == "POST" and self.path.endswith("/_dash-update-component")):
                    return super().get_data(cache=cache, as_text=as_text, parse_form_data=parse_form_data)
                # A callback body is read once, as JSON (get_json caches what it parsed); keeping the raw bytes as
                # well would hold an upload twice (~28 MB more) while its callback runs.
                data = super().get_data(cache=False, as_text=False, parse_form_data=parse_form_data)
                # Counted before parsing: 28 MB of "[]," would parse into ~400 MB of empty lists.
                if data.count(b"[") + data.count(b"{") > MAX_JSON_CONTAINERS or data.count(b",") > MAX_JSON_ITEMS:
                    raise BadRequest("the callback request has too many JSON values")
                return data.decode(errors="replace") if as_text else data

        server.request_class = _Request
        libc = ctypes.CDLL(None) if sys.platform.startswith("linux") else None
        trim = getattr(libc, "malloc_trim", None)

        # One large body (an upload) at a time per worker: four threads each reading, parsing and loading a file at
        # the limit took a worker to 408 MB; queued, each stays within what one upload needs. Small requests pass.
        large_body = threading.BoundedSemaphore(1)

        @server.before_request
        def _one_large_body_at_a_time():
            if (request.content_length or 0) > LARGE_BODY_BYTES:
                if not large_body.acquire(timeout=LARGE_BODY_WAIT_S):
                    return plain("503 Service Unavailable: the server is busy with other uploads; try again", 503)
                g.inferx_large_body = True
            return None

        @server.teardown_request
        def _release_large_body(_exc):
            if g.pop("inferx_large_body", False):
                large_body.release()
                # glibc keeps the heap pages a large request freed (an upload's text, parse and store), and a worker
                # would stay ~100 MB larger after each; hand them back once the request is done, after collecting
                # the cycles it left (pandas frames), or the next upload would start on top of them.
                gc.collect()
                if trim is not None:
                    trim(0)

        def plain(text: str, status: int):
            return text + "\n", status, {"Content-Type": "text/plain; charset=utf-8"}

        @server.before_request
        def _check_callback_request():
            if callback_map is None or request.method != "POST" or not request.path.endswith("/_dash-update-component"):
                return None
            try:
                body = request.get_json(force=True)  # cached: Dash's own get_json reuses it
            except RecursionError:
                return plain("400 Bad Request: the callback request is nested too deeply", 400)
            except BadRequest as err:
                reason = (
                    err.description if "JSON values" in str(err.description) else "the callback request is not JSON"
                )
                return plain(f"400 Bad Request: {reason}", 400)
            problem = check_envelope(body, callback_map(), self.prefix)
            return plain(f"400 Bad Request: {problem}", 400) if problem else None

        @server.errorhandler(RequestEntityTooLarge)
        def _too_large(_err):
            _drain(request.environ, request.content_length or 0)
            return plain(
                f"413 Request Entity Too Large: the server accepts uploads of at most {limit_mb} MB "
                "(INFERX_MAX_UPLOAD_MB)",
                413,
            )

        @server.errorhandler(HTTPException)
        def _http_error(err):
            response = err.get_response()  # keeps headers such as a 405's Allow
            response.set_data(f"{err.code} {err.name}\n")
            response.content_type = "text/plain; charset=utf-8"
            return response

        @server.errorhandler(Exception)
        def _unexpected(err):
            if isinstance(err, tuple(not_found)):
                return plain("404 Not Found", 404)
            _log.error("unhandled error on %s %s", request.method, request.path, exc_info=err)
            return plain("500 Internal Server Error: the error is in the server log", 500)

        @server.after_request
        def _security_headers(response):
            for name, value in headers.items():
                response.headers[name] = value
            return response

        # Dash's page shell: its routes for the root and for any other path.
        shell_endpoints = {self.prefix, self.prefix + "<path:path>"}

        @server.after_request
        def _unknown_page_is_404(response):
            if (
                page_exists is not None
                and request.method in ("GET", "HEAD")
                and response.status_code == 200
                and request.url_rule is not None
                and request.url_rule.rule in shell_endpoints
                and not page_exists(request.path[len(self.prefix) :])
            ):
                response.status_code = 404
            return response

        compress(server, self.prefix)

    @property
    def health_url(self) -> str:
        host = {"0.0.0.0": "127.0.0.1", "::": "[::1]", "[::]": "[::1]"}.get(self.host, self.host)
        if ":" in host and not host.startswith("["):
            host = f"[{host}]"
        return f"http://{host}:{self.port}{self.prefix}health"


# --- Bodies too large, compression, caching ----------------------------------------------------------------

DRAIN_BYTES = 2**30  # a body over the limit is read and dropped up to this size before the 413 is sent
DRAIN_CHUNK = 2**16


def _drain(environ: Mapping, length: int) -> None:
    """Read and drop a refused request's body, so the client reads the 413 instead of a reset connection (a server
    that answers and closes while the client still sends makes the client's send fail). Past DRAIN_BYTES the
    connection is given up instead: the work a hostile Content-Length can ask for stays bounded."""
    if length > DRAIN_BYTES:
        return
    stream = environ["wsgi.input"]
    while length > 0 and (chunk := stream.read(min(DRAIN_CHUNK, length))):
        length -= len(chunk)


COMPRESS_LEVEL = 5  # gzip: a redraw's 90 KB of JSON to 21 KB in about 1 ms; static files are compressed once
YEAR_S = 31_536_000


class _VersionedOnly:
    """flask-compress's cache: the compressed bytes of a versioned URL (Dash's component suites, and an asset with
    its `?m=` version), which never change, kept for the worker's life; every other answer is compressed anew."""

    def __init__(self):
        self._kept: dict[str, bytes] = {}

    def get(self, key: str) -> bytes | None:
        return self._kept.get(key)

    def set(self, key: str, value: bytes) -> None:
        if not key.endswith(";"):  # `_versioned_key` gave none
            self._kept[key] = value


def compress(server, prefix: str = "/") -> None:
    """gzip every text answer (flask-compress), and let a browser keep a versioned asset for a year."""
    from flask import request
    from flask_compress import Compress

    def is_versioned() -> bool:
        path = request.path
        return request.method == "GET" and (
            path.startswith(prefix + "_dash-component-suites/")
            or (path.startswith(prefix + "assets/") and "m" in request.args)
        )

    server.config.update(
        COMPRESS_ALGORITHM=["gzip"],
        COMPRESS_LEVEL=COMPRESS_LEVEL,
        COMPRESS_CACHE_BACKEND=_VersionedOnly,
        COMPRESS_CACHE_KEY=lambda req: req.full_path if is_versioned() else "",
    )
    Compress(server)

    # Registered after Compress, so it runs before it (Flask runs after-request hooks last in, first out).
    @server.after_request
    def _cache_versioned_assets(response):
        if response.status_code == 200 and request.path.startswith(prefix + "assets/") and is_versioned():
            # Dash puts an asset's modification time in its URL: a new version is a new URL.
            response.cache_control.public = True
            response.cache_control.max_age = YEAR_S
            response.cache_control.immutable = True
            if response.direct_passthrough:  # a file sent as a stream: read it, so it is compressed once and kept
                response.direct_passthrough = False
                response.set_data(response.get_data())
        return response


# --- Dash callback envelopes ------------------------------------------------------------------------

_log = logging.getLogger("inferx.deploy")
MAX_DEPTH = 40  # a figure passed as a callback input nests about 8 deep
MAX_PATTERN_ITEMS = 64  # components one ALL input may list; the busiest page has 9 figures
# Bounds on a callback body's JSON, checked on the raw bytes: a figure sent as an input has a few thousand values,
# an upload a handful (its file is one base64 string).
LARGE_BODY_BYTES = 2**20
LARGE_BODY_WAIT_S = 30  # inside gunicorn's 60 s worker timeout; one upload at the limit takes ~2 s of CPU
MAX_JSON_CONTAINERS = 100_000
MAX_JSON_ITEMS = 1_000_000
_SURROGATE = re.compile("[\ud800-\udfff]")
_WILDCARDS = (["ALL"], ["ALLSMALLER"], ["MATCH"])
# Values Dash's own callbacks read without checking (the Pages router calls str methods on them); a browser always
# sends these types, so anything else is a malformed request, not a page to route.
DASH_VALUE_TYPES = {
    ("_pages_location", "pathname"): (str,),
    ("_pages_location", "search"): (str, type(None)),
    ("_pages_location", "hash"): (str, type(None)),
}


def _walk_problem(value) -> str | None:
    """Nesting too deep, or a key that cannot be encoded; checked without recursion. A lone surrogate in a text value
    (a Windows file name can hold one) becomes U+FFFD in place, so no callback echoes text that cannot be encoded."""
    stack = [(value, 0)]
    while stack:
        v, depth = stack.pop()
        if depth >= MAX_DEPTH:
            return f"nested more than {MAX_DEPTH} levels deep"
        if isinstance(v, dict):
            for k in v:
                if not k.isascii() and _SURROGATE.search(k):
                    return "a key with a lone surrogate"
            keys = list(v)
        elif isinstance(v, list):
            keys = range(len(v))
        else:
            continue
        for k in keys:
            child = v[k]
            if isinstance(child, str):
                if not child.isascii() and _SURROGATE.search(child):
                    v[k] = _SURROGATE.sub("\ufffd", child)
            elif isinstance(child, dict | list):
                stack.append((child, depth + 1))
    return None


def _declared_outputs(output: str) -> list[dict]:
    """'..a.x...b.y..' or 'a.x' as [{id, property}, …]. An allow_duplicate output's property keeps its '@hash'
    ('data@622e…'): the browser names the output so."""
    parts = output[2:-2].split("...") if output.startswith("..") and output.endswith("..") else [output]
    declared = []
    for part in parts:
        cid, _, prop = part.rpartition(".")
        declared.append({"id": cid, "property": prop})
    return declared


def _item_problem(item, declared: dict, where: str, prefix: str = "/") -> str | None:
    """Does one entry of inputs/state/outputs fit the dependency Dash declared for it?"""
    did, prop = declared["id"], declared["property"]
    if not did.startswith("{"):
        if not isinstance(item, dict) or item.get("id") != did or item.get("property") != prop:
            return f"{where} should be {did}.{prop}"
        types = DASH_VALUE_TYPES.get((did, prop))
        if types and not isinstance(item.get("value"), types):
            return f"{where}: {did}.{prop} must be text"
        # The Pages router refuses (with an exception) a path outside the app; a browser never sends one.
        if (did, prop) == ("_pages_location", "pathname") and not item["value"].startswith(prefix.rstrip("/") or "/"):
            return f"{where}: {did}.{prop} must be a path under {prefix}"
        return None
    pattern = json.loads(did)
    multi = any(v in (["ALL"], ["ALLSMALLER"]) for v in pattern.values())
    items = item if multi else [item]
    if not isinstance(items, list) or len(items) > MAX_PATTERN_ITEMS:
        return f"{where} should list at most {MAX_PATTERN_ITEMS} components"
    for one in items:
        cid = one.get("id") if isinstance(one, dict) else None
        if not isinstance(cid, dict) or set(cid) != set(pattern) or one.get("property") != prop:
            return f"{where} does not match {did}.{prop}"
        for key, want in pattern.items():
            got = cid[key]
            if want in _WILDCARDS:
                if not isinstance(got, str | int | float | bool) or (isinstance(got, float) and not math.isfinite(got)):
                    return f"{where}: id key {key!r} must be a string or number"
            elif got != want:
                return f"{where} does not match {did}.{prop}"
    return None


def check_envelope(body, callback_map: Mapping, prefix: str = "/") -> str | None:
    """Why a POST to /_dash-update-component is malformed, or None when Dash can run it.

    Checks the shape only: a known server-side callback, and inputs, state and outputs that are exactly the
    components and properties it declared. The values themselves are each callback's to check."""
    if not isinstance(body, dict):
        return "the callback request must be a JSON object"
    problem = _walk_problem(body)
    if problem:
        return f"the callback request has {problem}"
    output = body.get("output")
    if not isinstance(output, str):
        return "the callback request has no 'output'"
    cb = callback_map.get(output)
    if not isinstance(cb, Mapping) or "callback" not in cb:
        return "no server callback has that output"
    for key, declared_list in (("inputs", cb.get("inputs", [])), ("state", cb.get("state", []))):
        given = body.get(key, [])
        if not isinstance(given, list) or len(given) != len(declared_list):
            return f"'{key}' should list {len(declared_list)} entries"
        for n, (item, declared) in enumerate(zip(given, declared_list, strict=True)):
            problem = _item_problem(item, declared, f"{key}[{n}]", prefix)
            if problem:
                return problem
    declared_out = _declared_outputs(output)
    outputs = body.get("outputs")
    if outputs is None:  # the browser always sends them; Dash cannot answer without (IndexError, a 500)
        return "the callback request has no 'outputs'"
    outputs = outputs if output.startswith("..") else [outputs]
    if not isinstance(outputs, list) or len(outputs) != len(declared_out):
        return f"'outputs' should list {len(declared_out)} entries"
    for n, (item, declared) in enumerate(zip(outputs, declared_out, strict=True)):
        problem = _item_problem(item, declared, f"outputs[{n}]")
        if problem:
            return problem
    changed = body.get("changedPropIds", [])
    if not isinstance(changed, list) or not all(isinstance(c, str) for c in changed) or len(changed) > 256:
        return "'changedPropIds' must be a list of strings"
    return None


def healthcheck(environ: Mapping[str, str] | None = None, timeout: float = 4.0) -> int:
    """Exit status for Docker's HEALTHCHECK: 0 when the health endpoint answers 200."""
    import urllib.request

    url = Settings.from_env(environ).health_url
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            return 0 if resp.status == 200 else 1
    except OSError as exc:
        print(f"unhealthy: {url}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    if sys.argv[1:] != ["healthcheck"]:
        sys.exit("usage: python inferx/deploy.py healthcheck")
    sys.exit(healthcheck())
