"""The command line's JSON/CSV contract and exit codes, run as a subprocess."""

import csv
import dataclasses
import importlib.metadata
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from cli_checks import run_inferx

from inferx import cli
from inferx.analysis import article_numbers as check
from inferx.analysis import economics, regimes
from inferx.analysis.answers import error_brief
from inferx.cli import FRONTIER_FIELDS, POINT_FIELDS, main, records
from inferx.scenario.evaluation import Scenario
from inferx.serving import transfer


def test_point_json_contract_matches_engine():
    out = run_inferx("point", "--preset", "mi300x4", "--ctx", "8192", "--batch", "64")
    assert out.returncode == 0, out.stderr
    rec = json.loads(out.stdout)
    assert tuple(rec) == (*POINT_FIELDS, "ideal", "expected")  # the two answers follow the contract fields
    s = Scenario.from_params(preset="mi300x4", ctx=8192)
    r = s.evaluate([64])
    assert rec["throughput_tok_s"] == pytest.approx(r["throughput"][0], rel=1e-5)
    assert rec["ttft_ms"] == pytest.approx(1e3 * r["ttft"][0], rel=1e-5)
    assert rec["itl_ms"] == pytest.approx(rec["t_step_ms"] + rec["t_comm_ms"], rel=1e-5)
    assert rec["b_max"] == s.b_max and rec["stable"] is True
    assert rec["kv_headroom_gb"] == pytest.approx(97.0)
    # The explorer's readouts at B = 64: 4 × 750 W at TDP (article physics) and 4 × $2.50/h assumed.
    assert rec["regime"] == str(regimes.binding(s, [64])[0])
    assert rec["tokens_per_joule"] == pytest.approx(rec["throughput_tok_s"] / 3000, rel=1e-5)
    assert rec["cost_per_mtok_usd"] == pytest.approx(1e6 * 10.0 / (3600 * rec["throughput_tok_s"]), rel=1e-5)
    assert (rec["usd_per_gpu_hour"], rec["price_assumed"], rec["power_fraction_of_tdp"]) == (2.5, True, 1.0)
    # Calibrated, the GPUs draw by load: the share at B = 64 of 4 × 750 W.
    cal = json.loads(run_inferx("point", "--preset", "mi300x4", "--batch", "64", "--mode", "calibrated").stdout)
    share = float(economics.drawn_fraction(Scenario.from_params(preset="mi300x4", mode="calibrated"), None, 64))
    assert cal["power_fraction_of_tdp"] == pytest.approx(share, abs=1e-4) and 0.37 < share < 0.64
    assert cal["tokens_per_joule"] == pytest.approx(cal["throughput_tok_s"] / (3000 * share), rel=1e-3)


def test_a_utilisation_just_below_one_is_not_printed_as_one():
    """With B_max in the millions, B = B_max − 1 has ρ = 0.9999996, a stable queue with a finite TTFT:
    6 significant figures would round it to 1.0, the saturated value. The wall itself stays 1.0."""
    big = ["--hbm", "21000", "--ctx", "128", "--isl", "128", "--kvdtype", "fp4"]
    b_max = Scenario.from_params(hbm=21000, ctx=128, isl=128, kvdtype="fp4").b_max
    assert b_max > 2_000_000  # so that 1 − 1/B_max rounds to 1 at 6 figures
    rec = json.loads(run_inferx("point", *big, "--batch", str(b_max - 1)).stdout)
    assert rec["stable"] is True and rec["ttft_ms"] is not None and rec["rho"] == 0.999999
    assert json.loads(run_inferx("point", *big, "--batch", str(b_max)).stdout)["rho"] == 1.0
    assert records._utilisation(0.5) == 0.5 and records._utilisation(float("inf")) is None


def test_unstable_point_has_null_ttft():
    out = run_inferx("point", "--batch", "100000")
    rec = json.loads(out.stdout)
    assert rec["stable"] is False and rec["ttft_ms"] is None and rec["rho"] > 1
    # Past B_max the roofline still answers, but the caches do not fit: stderr says so, the JSON stays clean.
    b_max = Scenario.from_params().b_max
    assert out.stderr.startswith(f"inferx: note: B = 100,000 passes B_max = {b_max:,}, the most requests whose KV")
    at_wall = run_inferx("point", "--batch", str(b_max))
    assert at_wall.stderr == "" and json.loads(at_wall.stdout)["stable"] is False


NO_FIT = ["--preset", "mi300x4", "--hbm", "680", "--ctx", "131072", "--kvdtype", "fp16", "--util", "50"]


def test_batch_defaults_to_eight_as_on_the_page():
    assert json.loads(run_inferx("point").stdout)["batch"] == 8


@pytest.mark.parametrize(
    "args,message",
    [
        (["point", "--batch", "8", "--wdtype", "fp16"], "needs 1,342 GB of weights; the machine has 1,128 GB"),
        (["point", "--batch", "8", "--util", "150"], "util=150: must be a number from 50 to 100 %"),
        (["point", "--batch", "8", "--preset", "tpu"], "preset=tpu: must be one of h200x8, mi300x4, b200x8"),
        (["point", "--batch", "8", "--ctx", "abc"], "ctx=abc: must be a whole number from 1 to 131,072 tokens"),
        (["point", "--batch", "0"], "batch=0: must be a whole number from 1 to 1,073,741,824 requests"),
        (["point", "--batch", "8", "--tp", "3"], "tp=3: must be a power of two from 1 to 64 GPUs"),
        (["point", "--batch", "8", "--cv", "1e308"], "cv=1e308: must be a number from 0 to 2"),
        (["frontier", "--tp", "0"], "tp=0: must be a power of two"),
        (["point", "--model", "llama3-8b"], "llama-2-13b (did you mean llama-3-8b?)"),
        (["point", "--gpu", "mi30x"], "mi355x (did you mean mi300x?)"),
        (["frontier", "--points", "1"], "points=1: must be a whole number from 2 to 1,000,000"),
        # No request fits: `point` exits as `frontier` does, with the same reason.
        (["point", *NO_FIT], "no request fits: one 131,072-token KV cache needs 18.42 GB"),
        (["frontier", *NO_FIT], "no request fits: one 131,072-token KV cache needs 18.42 GB"),
    ],
)
def test_bad_input_exits_2_with_message(args, message):
    out = run_inferx(*args)
    assert out.returncode == 2
    assert message in out.stderr
    assert "Traceback" not in out.stderr


def test_frontier_csv_every_batch_and_json_samples():
    out = run_inferx("frontier", "--preset", "mi300x4", "--ctx", "8192", "--util", "50")
    rows = list(csv.DictReader(io.StringIO(out.stdout)))
    b_max = Scenario.from_params(preset="mi300x4", ctx=8192, util=50).b_max
    assert tuple(rows[0]) == FRONTIER_FIELDS
    assert [int(r["batch"]) for r in rows] == list(range(1, b_max + 1))
    assert rows[-1]["ttft_ms"] == ""  # B = B_max: the queue is unstable
    # Each row names the limit that binds there, as Figure 10 colours it: at B_max the KV cache.
    scn = Scenario.from_params(preset="mi300x4", ctx=8192, util=50)
    assert [r["regime"] for r in rows] == [str(k) for k in regimes.binding(scn, np.arange(1, b_max + 1))]
    assert rows[-1]["regime"] == "kv_capacity" and len({r["regime"] for r in rows}) > 1


@pytest.mark.parametrize("points", [2, 5, 30, 1000])
def test_frontier_points_gives_that_many_geometric_samples(points):
    sampled = json.loads(run_inferx("frontier", "--points", str(points), "--format", "json").stdout)
    batches = np.array([r["batch"] for r in sampled])
    assert len(batches) == points
    assert batches[0] == 1 and batches[-1] == Scenario.from_params().b_max
    assert (np.diff(batches) > 0).all()
    # Geometric: once past the whole-number crowding at the low end, successive ratios are one constant.
    ratios = batches[1:] / batches[:-1]
    spread = ratios[batches[:-1] >= 2 * points]
    assert spread.size == 0 or spread.max() / spread.min() < 1.2
    ttft = [r["ttft_ms"] for r in sampled if r["ttft_ms"] is not None]
    assert ttft == sorted(ttft)


def test_every_batch_output_is_refused_past_its_cap_with_the_way_out():
    biggest = ["--hbm", "4096", "--ctx", "128", "--isl", "128", "--wdtype", "fp4", "--kvdtype", "fp4", "--util", "100"]
    out = run_inferx("frontier", *biggest)
    assert out.returncode == 2 and "pass --points N" in out.stderr and "Traceback" not in out.stderr
    assert "inferx frontier --help lists the options" in out.stderr  # the subcommand's help, not the top level's
    assert len(out.stderr.splitlines()) == 2  # the error and where the options are, not fifteen lines of usage
    sampled = run_inferx("frontier", *biggest, "--points", "50", "--format", "json")
    assert len(json.loads(sampled.stdout)) == 50


@pytest.mark.parametrize("command", ["point", "frontier", "check", "calibrate", "validate"])
def test_help_of_every_subcommand(command):
    out = run_inferx(command, "--help")
    assert out.returncode == 0 and "usage: inferx " + command in out.stdout, out.stderr


@pytest.mark.parametrize(
    ("command", "option", "chooser"), [("models", "--model-config", "--model"), ("hardware", "--gpu-spec", "--gpu")]
)
def test_a_listing_help_names_no_option_it_lacks(command, option, chooser):
    """`models` and `hardware` list the catalog: a file added there is listed, not served, and they have no
    --model or --gpu to name another."""
    out = run_inferx(command, "--help")
    flat = " ".join(out.stdout.split())
    assert out.returncode == 0 and option in flat and chooser + " " not in flat.replace(option, ""), flat
    served = " ".join(run_inferx("point", "--help").stdout.split())
    assert f"unless {chooser} names another, serves it" in served


def test_calibrate_prints_the_calibration_file_on_stdout_and_its_table_on_stderr():
    """`inferx calibrate … > inferx/serving/calibration.json` must write a file the model reads."""
    fixture = Path(__file__).parent / "fixtures" / "synthetic_api_benchmarks.json"
    out = run_inferx("calibrate", "--measured", str(fixture))
    assert out.returncode == 0, out.stderr
    record = json.loads(out.stdout)
    assert {"parameters", "uncertainty", "rows", "residual_spread"} <= record.keys()
    assert record["source"] == fixture.name
    fitted = next(iter(record["parameters"]))  # e.g. "b200/sglang/fp4"
    assert fitted.count("/") == 2 and fitted in out.stderr and "f_bw" in out.stderr


def test_a_reader_that_leaves_early_gets_no_traceback():
    command = [sys.executable, "-m", "inferx", "frontier"]
    inferx = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    inferx.stdout.readline()
    inferx.stdout.close()  # as `inferx frontier | head -1` does
    assert inferx.wait(60) == 1
    assert b"Traceback" not in inferx.stderr.read()


def test_check_exits_zero_and_prints_table():
    out = run_inferx("check")
    assert out.returncode == 0, out.stdout
    assert "0 mismatch" in out.stdout


def test_check_exits_one_when_a_number_disagrees(monkeypatch, capsys):
    wrong = dataclasses.replace(check.ROWS[0], article=2 * check.ROWS[0].article)
    monkeypatch.setattr(cli, "ROWS", [wrong, *check.ROWS[1:]])
    assert main(["check"]) == 1
    assert "1 mismatch" in capsys.readouterr().out


def test_installed_inferx_command_runs_the_cli():
    # `pip install -e .` puts `inferx` on PATH beside the interpreter; it is the same program as `python -m inferx`.
    script = shutil.which("inferx", path=str(Path(sys.executable).parent)) or shutil.which("inferx")
    assert script, "the inferx console script is not installed: pip install -e .[test]"
    out = subprocess.run([script, "point", "--batch", "8"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == json.loads(run_inferx("point", "--batch", "8").stdout)


def test_a_gpu_named_without_ic_takes_its_default_link_and_says_what_its_own_would_be():
    """A GPU named without --ic takes its default link (scenario.machines.default_link), as an address and the
    page's GPU menu do: an L40S its own PCIe (the same numbers as --ic scale-up, nothing to say); one of the
    article's GPUs the article's NVLink 4.0, so 8×B200 is one answer however it is named, with a note on its own
    NVLink 5."""
    args = ("point", "--gpu", "l40s", "--gpus", "2", "--tp", "2", "--model", "llama-3.3-70b", "--batch", "64")
    default, own_link = run_inferx(*args), run_inferx(*args, "--ic", "scale-up")
    assert default.returncode == own_link.returncode == 0, default.stderr
    assert default.stderr == own_link.stderr == ""
    assert json.loads(default.stdout) == json.loads(own_link.stdout)
    b200 = run_inferx("point", "--gpu", "b200", "--gpus", "8")
    assert "article's NVLink 4.0 (450 GB/s one way)" in b200.stderr
    assert "NVLink 5 (900 GB/s one way): --ic scale-up uses it" in b200.stderr
    assert json.loads(b200.stdout) == json.loads(run_inferx("point", "--preset", "b200x8").stdout)
    assert json.loads(b200.stdout) == json.loads(run_inferx("point", "--preset", "mi300x4", "--gpu", "b200",
                                                             "--gpus", "8").stdout)  # fmt: skip
    faster = json.loads(run_inferx("point", "--gpu", "b200", "--gpus", "8", "--ic", "scale-up").stdout)
    assert faster["t_comm_ms"] < json.loads(b200.stdout)["t_comm_ms"]  # a machine of another link, another answer


def test_the_link_note_in_calibrated_mode_says_what_the_fits_used():
    out = run_inferx("point", "--mode", "calibrated", "--gpu", "b200", "--gpus", "4", "--wdtype", "fp4")
    assert out.returncode == 0, out.stderr
    assert "NVLink 5 (900 GB/s one way): --ic scale-up uses it (the calibration was fitted with NVLink 4.0" in (
        out.stderr
    )


def test_options_the_article_model_does_not_read_get_a_note_and_change_nothing():
    """--mtp on in article mode gives the article's numbers, as --mtp off does: stderr says so, for each command.
    The output length changes only Figure 12 (its E2E) there, so it is noted everywhere else."""
    note = "inferx: note: in article mode --framework, --mtp change nothing here: the calibrated model reads them"
    for command in (["frontier", "--points", "4"], ["frontier", "--figure", "4"]):
        plain = run_inferx(*command)
        given = run_inferx(*command, "--mtp", "on", "--framework", "trt")
        assert given.stdout.replace('"trt"', '"sglang"').replace('"on"', '"off"') == plain.stdout, command
        assert given.stderr.startswith(note) and plain.stderr == "", (command, given.stderr)
    # point and slo print the expected answer too, which reads them: only it moves, and stderr says so.
    note = "inferx: note: in article mode --framework, --mtp change only the expected answer: the calibrated model"
    for command in (["point"], ["slo"]):
        plain = json.loads(run_inferx(*command).stdout)
        out = run_inferx(*command, "--mtp", "on", "--framework", "trt")
        given = json.loads(out.stdout.replace('"trt"', '"sglang"').replace('"on"', '"off"'))
        assert given.pop("expected") != plain.pop("expected") and given == plain, command
        assert out.stderr.startswith(note), (command, out.stderr)
    single = run_inferx("point", "--osl", "2048")
    assert json.loads(single.stdout)["ideal"] == json.loads(run_inferx("point").stdout)["ideal"]
    assert single.stderr.startswith("inferx: note: in article mode --osl changes only the expected answer")
    assert run_inferx("point", "--mtp", "on", "--mode", "calibrated").stderr == ""
    # Figure 12's E2E reads the output length in either mode: no note there, and other numbers.
    figure = run_inferx("frontier", "--figure", "12", "--osl", "8192")
    assert figure.stderr == "" and figure.stdout != run_inferx("frontier", "--figure", "12").stdout


def test_the_cv_in_calibrated_mode_gets_a_note_and_changes_nothing():
    """The calibrated TTFT queues prompts of one length (M/D/1): the output length's CV is the article's only."""
    plain = run_inferx("point", "--mode", "calibrated")
    given = run_inferx("point", "--mode", "calibrated", "--cv", "1.5")
    ours, theirs = json.loads(plain.stdout), json.loads(given.stdout.replace('"cv": 1.5', '"cv": 0'))
    # Only the ideal answer (the article's M/G/1 wait) reads it.
    assert theirs.pop("ideal")["ttft_ms"] > ours.pop("ideal")["ttft_ms"] and theirs == ours and plain.stderr == ""
    assert given.stderr.startswith(
        "inferx: note: in calibrated mode --cv changes only the ideal answer: the article's model reads it"
    )
    frontier = run_inferx("frontier", "--points", "4", "--mode", "calibrated", "--cv", "1.5")
    assert frontier.stderr.startswith("inferx: note: in calibrated mode --cv changes nothing here")
    assert run_inferx("point", "--cv", "1.5").stderr == ""  # the article's M/G/1 reads it


def test_a_context_given_shorter_than_the_input_is_refused_and_a_default_one_raised_with_a_note():
    """`--isl 65536 --ctx 1024` was drawn as asked: a request whose cache could not hold its own prompt. A --ctx
    given is refused, naming the context these lengths have; a context left to its default is raised to
    isl + osl/2, and stderr says so."""
    refused = run_inferx("point", "--isl", "65536", "--ctx", "1024")
    assert refused.returncode == 2 and refused.stdout == ""
    assert "ctx=1024: must be at least the input length isl=65,536 tokens" in refused.stderr
    assert "isl + osl/2 = 66,048 tokens" in refused.stderr
    workload = run_inferx("point", "--workload", "8k1k", "--ctx", "1024")
    assert workload.returncode == 2 and "isl=8,192 tokens" in workload.stderr
    note = "inferx: note: Context 1,024 tokens is shorter than the input (8,192 tokens)"
    for command in (["point"], ["frontier", "--points", "4"], ["slo"]):
        out = run_inferx(*command, "--isl", "8192")
        assert out.returncode in (0, 1) and out.stderr.startswith(note), (command, out.stderr)
    raised = json.loads(run_inferx("point", "--isl", "8192").stdout)
    assert raised == json.loads(run_inferx("point", "--isl", "8192", "--ctx", "8704").stdout)
    assert run_inferx("point", "--isl", "8192", "--ctx", "9216").stderr == ""


def test_a_named_workload_sets_the_lengths_and_the_context_unless_given():
    """`--workload 8k1k` is --isl 8192 --osl 1024 with the context their mean KV length, 8,192 + 1,024/2."""
    named = json.loads(run_inferx("point", "--workload", "8k1k").stdout)
    by_hand = json.loads(run_inferx("point", "--isl", "8192", "--osl", "1024", "--ctx", "8704").stdout)
    assert named == by_hand
    given = json.loads(run_inferx("point", "--workload", "8k1k", "--ctx", "16384").stdout)
    assert given == json.loads(run_inferx("point", "--isl", "8192", "--ctx", "16384").stdout) != named
    bad = run_inferx("point", "--workload", "8k2k")
    assert bad.returncode == 2 and "workload=8k2k: must be one of custom, 1k1k, 8k1k, 1k8k" in bad.stderr


def test_throughput_per_gpu_is_added_beside_the_instances():
    """point gives both (throughput_tok_s keeps its meaning: the instance's); frontier --tput gpu adds a column."""
    four = json.loads(run_inferx("point", "--preset", "mi300x4").stdout)
    assert four["gpus"] == 4
    assert four["throughput_per_gpu_tok_s"] == pytest.approx(four["throughput_tok_s"] / 4, rel=1e-5)
    rows = list(csv.DictReader(io.StringIO(run_inferx("frontier", "--points", "3", "--tput", "gpu").stdout)))
    plain = list(csv.DictReader(io.StringIO(run_inferx("frontier", "--points", "3").stdout)))
    assert "throughput_per_gpu_tok_s" not in plain[0]
    assert [r["throughput_tok_s"] for r in rows] == [r["throughput_tok_s"] for r in plain]
    for r in rows:
        assert float(r["throughput_per_gpu_tok_s"]) == pytest.approx(float(r["throughput_tok_s"]) / 8, rel=1e-5)


def test_the_explorer_figure_says_when_the_batch_asked_for_is_past_b_max():
    """--figure 6 --batch 20,000 marked B = 10,939 (the largest batch drawn) with nothing said; the page says
    the same thing in its notice."""
    b_max = Scenario.from_params().b_max
    past = run_inferx("frontier", "--figure", "6", "--batch", "20000")
    assert past.returncode == 0 and past.stderr.startswith(
        f"inferx: note: Batch 20,000 is not below B_max = {b_max:,} of these settings"
    )
    assert run_inferx("frontier", "--figure", "6", "--batch", str(b_max - 1)).stderr == ""


def test_slo_says_what_it_does_not_read_as_point_does():
    """`slo` with a GPU named and no --ic gave no word of the preset's link (point and frontier do), and
    `--search` dropped --tp, --pp and --ic, which it sets for each machine, without a word."""
    link = "inferx: note: the collectives run over the article's NVLink 4.0"
    assert run_inferx("slo", "--gpu", "b200", "--gpus", "8").stderr.startswith(link)
    assert run_inferx("point", "--gpu", "b200", "--gpus", "8").stderr.startswith(link)
    assert run_inferx("slo", "--gpu", "b200", "--gpus", "8", "--ic", "scale-up").stderr == ""
    search = run_inferx("slo", "--search", "--gpu", "h200", "--gpus", "8", "--tp", "2", "--ic", "infiniband")
    note = "inferx: note: --search sets --ic, --tp for each machine it tries: the values given are not read\n"
    assert search.stderr == note
    assert [(r["tp"], r["ic"]) for r in json.loads(search.stdout)["candidates"]] == [(8, "scale-up")]
    assert run_inferx("slo", "--search", "--gpu", "h200", "--gpus", "8").stderr == ""


def test_targets_prices_and_a_lone_acceptance_get_a_note_where_nothing_reads_them():
    """point and the frontier table give no goodput, and the table no cost or energy, so --ttft … --power
    changed nothing there without a word; nor does --acceptance without MTP. point reads --price and --power."""
    plain = run_inferx("point")
    given = run_inferx("point", "--ttft", "10", "--tpot", "20")
    assert given.stdout == plain.stdout
    note = "inferx: note: --ttft, --tpot change nothing here: inferx slo and --figure 6, 10 and 11 read them\n"
    assert given.stderr == note
    priced = run_inferx("point", "--price", "1")
    assert priced.stderr == "" and json.loads(priced.stdout)["usd_per_gpu_hour"] == 1.0
    assert run_inferx("frontier", "--points", "4", "--power", "0.5").stderr.startswith("inferx: note: --power changes")
    assert run_inferx("slo", "--ttft", "100").stderr == ""
    assert run_inferx("frontier", "--figure", "11", "--price", "1").stderr == ""
    lone = run_inferx("point", "--mode", "calibrated", "--acceptance", "90")
    assert lone.stderr == "inferx: note: --acceptance changes nothing without --mtp on\n"
    assert run_inferx("point", "--mode", "calibrated", "--mtp", "on", "--acceptance", "90").stderr == ""


def test_an_unknown_option_is_named_with_the_command_it_was_given_to():
    bad = run_inferx("point", "--bogus")
    assert bad.returncode == 2
    said = "inferx point: error: unrecognized arguments: --bogus\ninferx point --help lists the options.\n"
    assert bad.stderr == said
    assert run_inferx("validate", "--measured", "x.csv", "--nope").stderr.startswith("inferx validate: error:")


def test_an_option_is_not_taken_from_a_prefix():
    """argparse reads any unique prefix as the option it begins: `--a preset:mi300x4` became `--acceptance`,
    refused only because a preset is not a number, and `--bat 4` became `--batch 4`."""
    bad = run_inferx("frontier", "--figure", "12", "--a", "preset:mi300x4")
    assert bad.returncode == 2 and "unrecognized arguments: --a preset:mi300x4" in bad.stderr, bad.stderr
    assert run_inferx("point", "--bat", "4").stderr.startswith("inferx point: error: unrecognized arguments: --bat")
    assert run_inferx("point", "--batch", "4").returncode == 0


# --- Ideal beside expected -------------------------------------------------------------------------------------


def test_version():
    out = run_inferx("--version")
    assert out.returncode == 0 and out.stdout.strip() == f"inferx {importlib.metadata.version('inferx')}"


@pytest.mark.parametrize("mode, first", [("article", "ideal"), ("calibrated", "expected")])
def test_point_gives_the_ideal_and_the_expected_answer_its_own_mode_first(mode, first):
    out = run_inferx("point", "--mode", mode, "--batch", "64")
    record = json.loads(out.stdout)
    blocks = [k for k in record if k in ("ideal", "expected")]
    assert blocks == [first, *({"ideal", "expected"} - {first})]
    ideal, expected = record["ideal"], record["expected"]
    assert (ideal["mode"], expected["mode"]) == ("article", "calibrated")
    # The top-level fields stay the chosen mode's, and its block says the same.
    assert record[first]["throughput_tok_s"] == record["throughput_tok_s"]
    # The article's physics is the bound: the calibrated stack reaches less.
    assert ideal["throughput_tok_s"] > expected["throughput_tok_s"] and ideal["b_max"] > expected["b_max"]
    assert expected["throughput_per_gpu_tok_s"] == pytest.approx(expected["throughput_tok_s"] / 8, rel=1e-4)
    assert "error" not in ideal and expected["error"]["kind"] == "measured configuration"
    median, p90 = expected["error"]["tpot"]
    assert 0 < median <= p90


@pytest.mark.parametrize(
    "args, kind",
    [
        (("--gpu", "b300", "--gpus", "8"), "gpu_sibling"),  # B200 and GB200 share its die
        (("--gpu", "mi325x", "--gpus", "8"), "gpu_sibling"),  # MI300X
        (("--gpu", "l40s", "--gpus", "8", "--model", "llama-3-8b"), "gpu_alone"),
        (("--model", "gemma-3-27b"), "model"),
        (("--model", "llama-3.3-70b", "--gpu", "h200", "--gpus", "1"), "measured"),  # TensorRT-LLM's table
        (("--model", "qwen3-235b-a22b", "--gpu", "mi300x", "--gpus", "8"), "pair"),  # Qwen on NVIDIA, MI300X with R1
    ],
)
def test_the_expected_answer_says_which_kind_of_extrapolation_it_is(args, kind):
    out = json.loads(run_inferx("point", "--mode", "calibrated", *args).stdout)
    assert out["calibration"]["extrapolation"] == kind and out["calibration"]["basis"] == "transferred"
    error = out["expected"]["error"]
    assert error["kind"] == transfer.KIND_WORDS[kind]
    # The errors of the runs held out as that kind (in sample where both GPU and model were measured together:
    # that pair's own rows, TensorRT-LLM's two tables' 15 of Llama 3.3 70B on H200).
    assert error["rows"] >= (10 if kind == "measured" else 20)
    assert 0 < error["throughput_per_gpu"][0] <= error["throughput_per_gpu"][1]
    if kind == "measured":
        assert {k: v for k, v in error.items() if k in ("rows", "throughput_per_gpu")} == transfer.kind_error(
            "measured", "llama-3.3-70b", gpu="h200"
        )
    if kind in ("gpu_sibling", "gpu_alone", "pair"):  # InferenceX's runs held out: TPOT and TTFT were measured
        assert {"tpot", "ttft", "e2e"} <= set(error)
    if kind == "model":  # a model held out was scored on the offline tables' throughput and on NIM's TTFT
        assert error["throughput_per_gpu"] == transfer.kind_error("model")["throughput_per_gpu"]
        assert error["ttft"] == transfer.kind_error("model")["ttft"]


def test_slo_gives_both_answers():
    out = run_inferx("slo", "--preset", "b200x8", "--ttft", "1000", "--tpot", "50")
    record = json.loads(out.stdout)
    ideal, expected = record["ideal"], record["expected"]
    assert record["batch"] == ideal["batch"] > expected["batch"] > 0
    assert expected["error"]["kind"] == "measured configuration"


def test_slo_search_table_sets_both_answers_side_by_side():
    args = ("slo", "--search", "--model", "llama-3.3-70b", "--ttft", "1000", "--tpot", "30", "--ctx", "8192")
    table = run_inferx(*args, "--format", "table", "--mode", "calibrated").stdout.splitlines()
    assert table[0].split()[:5] == ["machine", "TP", "PP", "expected:", "batch"] and "ideal:" in table[0]
    rows = json.loads(run_inferx(*args, "--mode", "calibrated").stdout)["candidates"]
    first = rows[0]
    assert table[2].startswith(first["machine"])  # a machine's name may hold a space ("8×H100 SXM")
    assert f"{first['expected']['cost_per_mtok_usd']:,.2f}" in table[2]
    assert f"{first['ideal']['cost_per_mtok_usd']:,.2f}" in table[2]
    assert first["expected"]["batch"] == first["batch"]
    # Each row says how far the expected throughput may be off, and the footnote what that number is.
    assert table[2].endswith(error_brief(first["expected"]["error"])) and first["expected"]["error"]["kind"]
    assert any("held out of the fit" in line for line in table[-3:])


def test_compare_sets_two_scenarios_side_by_side_under_both_models():
    record = json.loads(run_inferx("compare", "preset=mi300x4&ctx=8192", "preset=b200x8", "--format", "json").stdout)
    a, b = record["a"], record["b"]
    assert (a["scenario"]["preset"], a["scenario"]["ctx"], b["scenario"]["preset"]) == ("mi300x4", 8192, "b200x8")
    for side in (a, b):
        assert list(k for k in side if k in ("ideal", "expected")) == ["ideal", "expected"]
        # Each block is that mode's answer to the scenario's own SLO, as `inferx slo` gives it.
        for block in ("ideal", "expected"):
            mode = side[block]["mode"]
            slo = json.loads(run_inferx("slo", "--mode", mode, *_options(side["scenario"])).stdout)
            assert side[block]["batch"] == slo["batch"]
            assert side[block]["cost_per_mtok_usd"] == pytest.approx(slo["cost_per_mtok_usd"], rel=1e-5)
    table = run_inferx("compare", "preset=mi300x4&ctx=8192", "preset=b200x8").stdout.splitlines()
    assert table[0].split() == ["A", "ideal", "A", "expected", "B", "ideal", "B", "expected"]
    users = table[2].split()
    assert users[:4] == ["users", "at", "the", "SLO"] and users[-1] == f"{b['expected']['batch']:,}"
    assert table[-4].startswith("A expected: measured configuration; TPOT off by")


@pytest.mark.parametrize("mode", ["article", "calibrated"])
def test_compare_answers_for_a_model_other_than_deepseek_r1(mode):
    """`inferx compare "model=llama-3.3-70b" "model=llama-3.3-70b&gpu=h200"` stopped on a KeyError: its expected
    errors are the published maximum throughput's only, with no TPOT."""
    a, b = f"model=llama-3.3-70b&mode={mode}", f"model=llama-3.3-70b&gpu=h200&mode={mode}"
    out = run_inferx("compare", a, b)
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    said = [line for line in out.stdout.splitlines() if " expected: " in line]
    assert [line[:11] for line in said] == ["A expected:", "B expected:"]
    assert all("output tok/s per GPU off by" in line for line in said)
    record = json.loads(run_inferx("compare", a, b, "--format", "json").stdout)
    assert record["b"]["scenario"]["gpu"] == "h200" and record["a"]["expected"]["error"]["throughput_per_gpu"]


def _options(params: dict) -> list[str]:
    return ["--preset", params["preset"], "--ctx", str(params["ctx"])]


def test_compare_refuses_what_is_not_a_control():
    out = run_inferx("compare", "preset=mi300x4&bogus=1", "preset=b200x8")
    assert out.returncode == 2 and "'bogus' is not a control" in out.stderr and "Traceback" not in out.stderr
