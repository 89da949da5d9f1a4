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
    HOST                    0.0.0.0  bind address
    PORT                    8050     bind port
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
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

    def install(self, server) -> None:
        """Harden a Flask server: security headers on every response, debug off, no tracebacks."""
        headers = self.headers()
        # FLASK_DEBUG in the environment would otherwise turn on debug mode, which propagates
        # exceptions instead of answering a bare 500.
        server.debug = False
        server.config["PROPAGATE_EXCEPTIONS"] = False

        @server.after_request
        def _security_headers(response):
            for name, value in headers.items():
                response.headers[name] = value
            return response

    @property
    def health_url(self) -> str:
        host = {"0.0.0.0": "127.0.0.1", "::": "[::1]", "[::]": "[::1]"}.get(self.host, self.host)
        if ":" in host and not host.startswith("["):
            host = f"[{host}]"
        return f"http://{host}:{self.port}{self.prefix}health"


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
