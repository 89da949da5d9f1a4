"""The command line's JSON/CSV contract and exit codes, run as a subprocess."""

import csv
import io
import json
import subprocess
import sys

import pytest

from inferx.cli import FRONTIER_FIELDS, POINT_FIELDS
from inferx.scenario import Scenario


def run(*args):
    return subprocess.run([sys.executable, "-m", "inferx", *args], capture_output=True, text=True, timeout=60)


def test_point_json_contract_matches_engine():
    out = run("point", "--preset", "mi300x4", "--ctx", "8192", "--batch", "64")
    assert out.returncode == 0, out.stderr
    rec = json.loads(out.stdout)
    assert tuple(rec) == POINT_FIELDS
    s = Scenario.from_params(preset="mi300x4", ctx=8192)
    r = s.evaluate([64])
    assert rec["throughput_tok_s"] == pytest.approx(r["throughput"][0], rel=1e-5)
    assert rec["ttft_ms"] == pytest.approx(1e3 * r["ttft"][0], rel=1e-5)
    assert rec["itl_ms"] == pytest.approx(rec["t_step_ms"] + rec["t_comm_ms"], rel=1e-5)
    assert rec["b_max"] == s.b_max and rec["stable"] is True
    assert rec["kv_headroom_gb"] == pytest.approx(97.0)


def test_unstable_point_has_null_ttft():
    rec = json.loads(run("point", "--batch", "100000").stdout)
    assert rec["stable"] is False and rec["ttft_ms"] is None and rec["rho"] > 1


@pytest.mark.parametrize(
    "args,message",
    [
        (["point", "--batch", "8", "--wdtype", "fp16"], "weights 1,342 GB exceed HBM 1,128 GB"),
        (["point", "--batch", "8", "--util", "150"], "util: must be in (0, 100] %"),
        (["point", "--batch", "8", "--preset", "tpu"], "invalid choice"),
        (["point", "--batch", "8", "--ctx", "abc"], "invalid int value"),
        (["point"], "--batch"),
        (["frontier", "--tp", "0"], "tp: must be a whole number"),
    ],
)
def test_bad_input_exits_2_with_message(args, message):
    out = run(*args)
    assert out.returncode == 2
    assert message in out.stderr
    assert "Traceback" not in out.stderr


def test_frontier_csv_every_batch_and_json_samples():
    out = run("frontier", "--preset", "mi300x4", "--ctx", "8192", "--util", "50")
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    b_max = Scenario.from_params(preset="mi300x4", ctx=8192, util=50).b_max
    assert tuple(rows[0]) == FRONTIER_FIELDS
    assert [int(r["batch"]) for r in rows] == list(range(1, b_max + 1))
    assert rows[-1]["ttft_ms"] == ""  # B = B_max: the queue is unstable
    sampled = json.loads(run("frontier", "--points", "30", "--format", "json").stdout)
    assert 10 <= len(sampled) <= 30
    assert sampled[0]["batch"] == 1
    ttft = [r["ttft_ms"] for r in sampled if r["ttft_ms"] is not None]
    assert ttft == sorted(ttft)


def test_check_exits_zero_and_prints_table():
    out = run("check")
    assert out.returncode == 0, out.stdout
    assert "0 mismatch" in out.stdout
