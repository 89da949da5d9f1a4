"""Running the command line as a user does: `python -m inferx …` in a subprocess from the repository root."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_inferx(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """The finished command, its output as text (the caller checks the exit code)."""
    return subprocess.run(
        [sys.executable, "-m", "inferx", *args], capture_output=True, text=True, cwd=ROOT, timeout=timeout
    )
