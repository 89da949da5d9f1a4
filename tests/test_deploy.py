"""Deployment settings (inferx/deploy.py), gunicorn.conf.py, and the real app's response headers."""

from __future__ import annotations

import gzip
import json
import os
import re
import runpy
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from browser_checks import router_request
from conftest import ROOT
from flask import Flask

from inferx.deploy import ConfigError, Settings, healthcheck, normalise_prefix, parse_frame_ancestors


def test_defaults_from_an_empty_environment():
    s = Settings.from_env({})
    assert s == Settings()
    assert (s.prefix, s.frame_ancestors, s.workers, s.threads, s.host, s.port) == (
        "/",
        ("'self'",),
        2,
        4,
        "0.0.0.0",
        8050,
    )
    assert s.health_url == "http://127.0.0.1:8050/health"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("", "/"),
        ("/", "/"),
        ("///", "/"),
        ("tools/inferx", "/tools/inferx/"),
        ("/tools/inferx", "/tools/inferx/"),
        ("/tools//inferx/", "/tools/inferx/"),
        ("inferx/", "/inferx/"),
    ],
)
def test_prefix_is_normalised_to_start_and_end_with_a_slash(raw, expected):
    assert normalise_prefix(raw) == expected
    assert Settings.from_env({"INFERX_PREFIX": raw}).prefix == expected


@pytest.mark.parametrize("raw", ["/a b/", "/../x/", "/x/./", "/a?b=1", "/a#b", '/a"b'])
def test_bad_prefix_names_the_variable(raw):
    with pytest.raises(ConfigError, match="INFERX_PREFIX"):
        Settings.from_env({"INFERX_PREFIX": raw})


def test_dash_url_base_pathname_is_honoured_when_inferx_prefix_is_unset():
    assert Settings.from_env({"DASH_URL_BASE_PATHNAME": "/wiki/tools"}).prefix == "/wiki/tools/"
    assert Settings.from_env({"DASH_URL_BASE_PATHNAME": "/a/", "INFERX_PREFIX": "/b/"}).prefix == "/b/"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("'self'", ("'self'",)),
        ("self", ("'self'",)),
        ("'none'", ("'none'",)),
        ("'self' https://wiki.example.com", ("'self'", "https://wiki.example.com")),
        (
            "self, https://wiki.example.com,https://*.corp.example",
            ("'self'", "https://wiki.example.com", "https://*.corp.example"),
        ),
        ("http://127.0.0.2:8123", ("http://127.0.0.2:8123",)),
        ("https:", ("https:",)),
        ("'self' 'self' wiki.example.com:*", ("'self'", "wiki.example.com:*")),
        ("http://[::1]:8080/wiki/", ("http://[::1]:8080/wiki/",)),
    ],
)
def test_frame_ancestors_parsing(raw, expected):
    assert parse_frame_ancestors(raw) == expected
    assert Settings.from_env({"INFERX_FRAME_ANCESTORS": raw}).frame_ancestors == expected


@pytest.mark.parametrize(
    "raw",
    [
        "https://wiki.example.com; script-src *",  # would smuggle a second directive into the header
        "'unsafe-inline'",
        "https://wiki.example.com'",
        "'none' https://wiki.example.com",
        'https://exa mple.com/pa"th',
        ",, ,",
    ],
)
def test_bad_frame_ancestors_are_refused(raw):
    with pytest.raises(ConfigError, match="INFERX_FRAME_ANCESTORS"):
        Settings.from_env({"INFERX_FRAME_ANCESTORS": raw})


@pytest.mark.parametrize(
    ("env", "var"),
    [
        ({"INFERX_WORKERS": "0"}, "INFERX_WORKERS"),
        ({"INFERX_WORKERS": "two"}, "INFERX_WORKERS"),
        ({"INFERX_THREADS": "-1"}, "INFERX_THREADS"),
        ({"INFERX_TIMEOUT": "1"}, "INFERX_TIMEOUT"),
        ({"PORT": "70000"}, "PORT"),
        ({"HOST": "0.0.0.0; rm"}, "HOST"),
        ({"INFERX_REFERRER_POLICY": "everything"}, "INFERX_REFERRER_POLICY"),
        ({"DASH_DEBUG": "true"}, "DASH_DEBUG"),
        ({"DASH_UI": "True"}, "DASH_UI"),
        ({"dash_serve_dev_bundles": "true"}, "DASH_SERVE_DEV_BUNDLES"),
        ({"INFERX_MAX_UPLOAD_MB": "0"}, "INFERX_MAX_UPLOAD_MB"),
        ({"INFERX_MAX_UPLOAD_MB": "20MB"}, "INFERX_MAX_UPLOAD_MB"),
        ({"INFERX_SECRET_KEY": "short"}, "INFERX_SECRET_KEY"),
    ],
)
def test_bad_values_fail_with_a_clear_message(env, var):
    with pytest.raises(ConfigError, match=var):
        Settings.from_env(env)


def test_numbers_and_dev_vars_that_are_fine():
    s = Settings.from_env(
        {"INFERX_WORKERS": " 3 ", "INFERX_THREADS": "8", "PORT": "9000", "HOST": "::", "DASH_DEBUG": "false"}
    )
    assert (s.workers, s.threads, s.port) == (3, 8, 9000)
    assert s.health_url == "http://[::1]:9000/health"


def test_upload_limit_and_request_limit():
    s = Settings.from_env({"INFERX_MAX_UPLOAD_MB": "5"})
    assert s.max_upload_bytes == 5 * 2**20
    # The request carries the file as base64 (4 bytes for every 3) inside a JSON envelope.
    assert 5 * 2**20 * 4 / 3 < s.max_request_bytes <= 5 * 2**20 * 4 / 3 + 2**20 + 1


def test_secret_key_from_the_environment_or_one_per_process():
    from inferx.deploy import secret_key

    assert secret_key({"INFERX_SECRET_KEY": "k" * 32}) == b"k" * 32
    assert secret_key({}) == secret_key({}) and len(secret_key({})) == 32
    assert secret_key({}) != b"k" * 32


@pytest.mark.parametrize(
    ("command", "var", "value"),
    [
        ([sys.executable, "app.py"], "INFERX_WORKERS", "abc"),
        ([sys.executable, "app.py"], "INFERX_PREFIX", "bad prefix"),
        ([sys.executable, "-m", "gunicorn", "app:server"], "INFERX_WORKERS", "abc"),
        ([sys.executable, "-m", "gunicorn", "app:server"], "INFERX_PREFIX", "bad prefix"),
        ([sys.executable, "-m", "gunicorn", "app:server"], "INFERX_SECRET_KEY", "short"),
        ([sys.executable, "app.py"], "INFERX_MODELS", "/nowhere/config.json"),
        ([sys.executable, "-m", "gunicorn", "app:server"], "INFERX_MODELS", "/nowhere/config.json"),
        ([sys.executable, "app.py"], "INFERX_GPUS", "/nowhere/gpu.json"),
        ([sys.executable, "-m", "gunicorn", "app:server"], "INFERX_GPUS", "/nowhere/gpu.json"),
    ],
)
def test_bad_settings_stop_start_up_with_one_line(command, var, value):
    """Not a traceback: one line on stderr naming the variable, and a failing exit status."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("INFERX_", "DASH_"))}
    proc = subprocess.run(command, cwd=ROOT, env={**env, var: value}, capture_output=True, text=True, timeout=120)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode != 0
    assert len(lines) == 1 and lines[0].startswith(f"inferx: {var}"), proc.stderr


def test_headers_for_same_origin_none_and_a_wiki():
    assert Settings().headers() == {
        "Content-Security-Policy": "frame-ancestors 'self'",
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "same-origin",
        "X-Frame-Options": "SAMEORIGIN",
    }
    assert Settings(frame_ancestors=("'none'",)).headers()["X-Frame-Options"] == "DENY"
    wiki = Settings(frame_ancestors=("'self'", "https://wiki.example.com")).headers()
    assert wiki["Content-Security-Policy"] == "frame-ancestors 'self' https://wiki.example.com"
    assert "X-Frame-Options" not in wiki  # it would forbid the wiki, and it cannot name one


def test_install_sets_headers_everywhere_and_hides_tracebacks():
    server = Flask(__name__)
    server.debug = True  # as FLASK_DEBUG=1 in the environment would leave it

    @server.route("/boom")
    def boom():
        raise RuntimeError("secret internals")

    Settings.from_env({"INFERX_FRAME_ANCESTORS": "https://wiki.example.com"}).install(server)
    assert server.debug is False
    client = server.test_client()
    for path, status in (("/boom", 500), ("/missing", 404)):
        resp = client.get(path)
        assert resp.status_code == status
        assert resp.headers["Content-Security-Policy"] == "frame-ancestors https://wiki.example.com"
        assert resp.headers["X-Content-Type-Options"] == "nosniff"
        assert resp.headers["Referrer-Policy"] == "same-origin"
    body = client.get("/boom").get_data(as_text=True)
    assert "Traceback" not in body and "secret internals" not in body


# --- gunicorn.conf.py and the health check -----------------------------------------------


def test_gunicorn_conf_reads_the_environment(monkeypatch):
    monkeypatch.setenv("INFERX_WORKERS", "3")
    monkeypatch.setenv("INFERX_THREADS", "6")
    monkeypatch.setenv("PORT", "9123")
    monkeypatch.setenv("HOST", "127.0.0.1")
    conf = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    assert conf["bind"] == ["127.0.0.1:9123"]
    assert (conf["workers"], conf["threads"], conf["worker_class"]) == (3, 6, "gthread")
    assert conf["preload_app"] is True


def test_gunicorn_conf_defaults_suit_two_cores(monkeypatch):
    for var in ("INFERX_WORKERS", "INFERX_THREADS", "PORT", "HOST", "INFERX_TIMEOUT"):
        monkeypatch.delenv(var, raising=False)
    conf = runpy.run_path(str(ROOT / "gunicorn.conf.py"))
    assert (conf["bind"], conf["workers"], conf["threads"], conf["timeout"]) == (["0.0.0.0:8050"], 2, 4, 60)


def test_gunicorn_conf_refuses_bad_values(monkeypatch):
    monkeypatch.setenv("INFERX_WORKERS", "many")
    # SystemExit with one line: gunicorn's config loader prints a traceback for any other exception.
    with pytest.raises(SystemExit, match="^inferx: INFERX_WORKERS='many'"):
        runpy.run_path(str(ROOT / "gunicorn.conf.py"))


@pytest.fixture
def health_stub():
    """A stand-in server whose /p/health answers 200 and everything else 503."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802 (http.server's name)
            self.send_response(200 if self.path == "/p/health" else 503)
            self.end_headers()

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield httpd.server_address[1]
    httpd.shutdown()
    httpd.server_close()


def test_healthcheck_follows_port_and_prefix(health_stub):
    env = {"PORT": str(health_stub), "HOST": "0.0.0.0"}
    assert healthcheck({**env, "INFERX_PREFIX": "p"}) == 0
    assert healthcheck(env) == 1  # /health is not where the app lives


def test_healthcheck_script_runs_without_importing_the_engine(health_stub):
    """Docker runs it as `python inferx/deploy.py healthcheck` every few seconds: it must stay light."""
    probe = (
        "import runpy, sys; sys.argv = ['deploy.py', 'healthcheck']\n"
        "try:\n    runpy.run_path('inferx/deploy.py', run_name='__main__')\n"
        "except SystemExit as exc:\n    print(exc.code, 'numpy' in sys.modules, 'dash' in sys.modules)\n"
    )
    env = {"PATH": "/usr/bin:/bin", "PORT": str(health_stub), "INFERX_PREFIX": "/p/"}
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["0", "False", "False"], out.stderr


# --- The real app ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def client():
    import app

    return app.server.test_client()


def test_a_fresh_workers_first_requests_at_once_all_succeed():
    """Dash sets itself up in a before-request hook that marks itself done first; in gunicorn's threaded
    workers, a page's first requests raced it and its scripts answered 500, so the page never drew."""
    probe = (
        "import threading, app\n"
        "paths = ['/_dash-dependencies', '/_dash-component-suites/dash/deps/polyfill@7.12.1.min.js',\n"
        "         '/_dash-component-suites/dash/dcc/dash_core_components.js', '/_dash-layout'] * 3\n"
        "gate, codes = threading.Barrier(len(paths)), []\n"
        "def get(path):\n    gate.wait(); codes.append(app.server.test_client().get(path).status_code)\n"
        "threads = [threading.Thread(target=get, args=(p,)) for p in paths]\n"
        "[t.start() for t in threads]; [t.join() for t in threads]\n"
        "print(sorted(codes))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert out.stdout.strip() == str([200] * 12), out.stdout + out.stderr[-2000:]


def test_real_app_sends_security_headers_on_pages_assets_and_callbacks(client):
    layout = client.get("/_dash-layout")
    paths = ["/", "/embed/fig5?preset=b200x8", "/methods", "/health", "/_dash-layout", "/_dash-dependencies"]
    suite = next(p for p in client.get("/").get_data(as_text=True).split('"') if "/_dash-component-suites/" in p)
    paths.append(suite)
    for path in paths:
        resp = client.get(path)
        assert resp.status_code == 200, path
        assert resp.headers["Content-Security-Policy"] == "frame-ancestors 'self'", path
        assert resp.headers["X-Content-Type-Options"] == "nosniff", path
        assert resp.headers["Referrer-Policy"] == "same-origin", path
        assert "Set-Cookie" not in resp.headers, path
    assert layout.status_code == 200


def test_real_app_serves_no_dev_tools(client):
    html = client.get("/embed/fig5").get_data(as_text=True)
    config = json.loads(html.split('<script id="_dash-config" type="application/json">')[1].split("</script>")[0])
    assert config["ui"] is False and config["props_check"] is False
    assert "dev_tools" not in config
    assert "/_reload-hash" not in html
    # a malformed callback request gets a bare error, never a traceback
    resp = client.post("/_dash-update-component", json={"output": "nope.children", "inputs": []})
    assert resp.status_code >= 400
    assert "Traceback" not in resp.get_data(as_text=True)


def test_real_app_routes_an_embed_page_through_its_callback(client):
    resp = client.post("/_dash-update-component", json=router_request("/embed/fig5", "?preset=b200x8"))
    assert resp.status_code == 200
    assert resp.headers["Content-Security-Policy"] == "frame-ancestors 'self'"
    layout = json.dumps(resp.get_json()["response"]["_pages_content"]["children"])
    assert '"fig-5"' in layout and "b200x8" in layout


def test_compose_runs_replicas_with_a_shared_key_and_the_health_check():
    yaml = pytest.importorskip("yaml")
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    app = compose["services"]["inferx"]
    assert app["deploy"]["replicas"] >= 2
    assert app["environment"]["INFERX_SECRET_KEY"].startswith("${INFERX_SECRET_KEY:?")  # required, never a default
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert '["python", "inferx/deploy.py", "healthcheck"]' in dockerfile
    assert app["healthcheck"]["test"] == ["CMD", "python", "inferx/deploy.py", "healthcheck"]
    # The balancer must pass the largest upload the app accepts.
    nginx = compose["configs"]["nginx"]["content"]
    mb = int(nginx.split("client_max_body_size")[1].split("m;")[0])
    limit = Settings.from_env({"INFERX_MAX_UPLOAD_MB": str(app["environment"]["INFERX_MAX_UPLOAD_MB"])})
    assert mb * 2**20 >= limit.max_request_bytes


# --- Compression and caching ------------------------------------------------------------------------


def gunzipped(resp) -> bytes:
    assert resp.headers["Content-Encoding"] == "gzip", resp.headers
    return gzip.decompress(resp.data)


def test_pages_and_answers_are_gzipped_for_a_browser_that_asks(client):
    page = client.get("/", headers={"Accept-Encoding": "gzip, deflate, br"})
    assert b"<html" in gunzipped(page) and "Accept-Encoding" in page.headers["Vary"]
    layout = client.get("/_dash-layout", headers={"Accept-Encoding": "gzip"})
    assert json.loads(gunzipped(layout))["type"]
    plain = client.get("/_dash-layout")  # a client that does not ask gets plain JSON
    assert "Content-Encoding" not in plain.headers and json.loads(plain.data) == json.loads(gunzipped(layout))


def test_a_versioned_asset_is_kept_for_a_year_and_an_unversioned_one_is_checked(client):
    versioned = client.get("/assets/inferx.js?m=12345", headers={"Accept-Encoding": "gzip"})
    assert versioned.status_code == 200
    assert versioned.cache_control.max_age == 31_536_000 and versioned.cache_control.immutable
    assert gunzipped(versioned) == (ROOT / "assets" / "inferx.js").read_bytes()
    again = client.get("/assets/inferx.js?m=12345", headers={"Accept-Encoding": "gzip"})
    assert again.data == versioned.data  # the kept compressed bytes
    unversioned = client.get("/assets/inferx.js")
    assert unversioned.cache_control.max_age is None and not unversioned.cache_control.immutable


def test_the_page_names_each_asset_by_its_version(client):
    page = client.get("/").data.decode()
    assert re.search(r'src="/assets/inferx\.js\?m=[0-9.]+"', page)
    assert re.search(r"/_dash-component-suites/dash/dash-renderer/build/dash_renderer\.v[0-9_]+m[0-9]+\.min\.js", page)


def test_python_app_py_listens_on_the_port_it_is_given():
    from conftest import START_TIMEOUT, free_port, wait_http

    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "app.py", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT,
        env={**os.environ, "PORT": "1"},  # the option wins over the environment
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_http(f"http://127.0.0.1:{port}/health", timeout=START_TIMEOUT)
    finally:
        proc.terminate()
        proc.wait(10)
