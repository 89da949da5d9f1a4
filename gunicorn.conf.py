"""gunicorn settings shared by the Docker image and bare-metal serving.

gunicorn reads ./gunicorn.conf.py by default, so `gunicorn app:server` from the repo root serves exactly
as the image does. Tune with the environment variables documented in inferx/deploy.py and the README;
command-line flags still win over this file.
"""

import os
import sys
from pathlib import Path

# gunicorn loads this file before it puts the working directory on sys.path.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from inferx.deploy import ConfigError, Settings  # noqa: E402

try:
    _settings = Settings.from_env()  # fail at start-up, naming the bad variable, not at first request
except ConfigError as err:  # SystemExit passes gunicorn's config loader, which would print a traceback for others
    sys.exit(f"inferx: {err}")

bind = [f"{_settings.host}:{_settings.port}"]
worker_class = "gthread"  # threads overlap I/O; figures are numpy-bound and release the GIL in parts
workers = _settings.workers
threads = _settings.threads
timeout = _settings.timeout
graceful_timeout = 30
keepalive = 5
# The longest address the page writes (a comparison of two carried models on two carried GPUs: four keys of up
# to 1,500 characters) passes gunicorn's default 4,094-byte request line, past which it answers with its own 414.
limit_request_line = 8190  # gunicorn's largest
# Import the app once in the master: a broken app fails start-up instead of looping worker boots,
# and workers share the numpy/pandas/plotly pages copy-on-write.
preload_app = True
# Heartbeat files on tmpfs: a container's overlay filesystem can stall the worker heartbeat.
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None
accesslog = "-"
errorlog = "-"
# gunicorn 27's admin control socket lives in $HOME, which the image's user does not have; nothing uses it.
control_socket_disable = True
