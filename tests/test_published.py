"""Published measurements: every source's provenance and every row's trace to it, the loader on small fixtures,
and the stored transferable model's scores by source, model, GPU and stack (`inferx validate --transfer`)."""

import json

import numpy as np
import pandas as pd
import pytest

from inferx.cli.calibration import format_stored
from inferx.data import published as P
from inferx.physics.hardware import GPUS
from inferx.physics.models import MODELS
from inferx.serving import model as C
from inferx.serving import transfer as T
from inferx.serving import transfer_fit as TF
from tests.test_transfer import toy_transfer

# --- The shipped sources ----------------------------------------------------------------------------------------


def test_every_source_names_its_provenance_and_defines_its_numbers():
    for source_id, source in P.sources().items():
        assert all(source.get(field) for field in P.REQUIRED), source_id
        assert source["url"].startswith("https://"), source_id
        assert source["read"][:4].isdigit(), source_id  # a date first
        raw = pd.read_csv(P.PUBLIC_DIR / source["file"])
        measure = [c for c in P.THROUGHPUT if c in raw]
        assert len(measure) == 1 and measure[0] in source["definitions"], source_id
        assert "input tokens" in source["definitions"][measure[0]], source_id  # says whether they count


def test_every_row_traces_to_its_source_and_every_csv_has_one():
    files = {s["file"] for s in P.sources().values()}
    assert files == {p.name for p in P.PUBLIC_DIR.glob("*.csv")}  # no CSV without a source, no source without one
    for source_id, source in P.sources().items():
        raw = pd.read_csv(P.PUBLIC_DIR / source["file"])
        assert raw["source"].eq(source_id).all() and not raw.isna().any().any(), source_id


def test_the_loaded_rows_are_in_one_schema_with_units_that_hold():
    rows = P.load_published()
    required = [c for c in P.COLUMNS if c not in (*P.LATENCIES, "concurrency")]
    assert tuple(rows.columns) == P.COLUMNS and not rows[required].isna().any().any()
    closed = rows["load"].eq("concurrency")
    assert rows.loc[closed, "concurrency"].gt(0).all() and rows.loc[~closed, "concurrency"].isna().all()
    assert rows.loc[~closed, list(P.LATENCIES)].isna().all().all()  # an offline row measures no latency
    assert (rows.loc[closed, list(P.LATENCIES)].dropna(how="all") > 0).all().all()
    assert set(rows["model"]) <= set(MODELS) and set(rows["gpu"]) <= set(GPUS)
    assert set(rows["stack"]) == {s["stack"] for s in P.sources().values()}
    assert (rows["out_tok_s_total"] > 0).all() and (rows["tp"] <= rows["gpus"]).all()
    assert set(rows["load"]) <= set(P.LOADS) and set(rows["precision"]) <= set(P.PRECISIONS)
    # Per-GPU sources are multiplied out: no instance of several GPUs is quoted below its one-GPU share.
    per_gpu = pd.read_csv(P.PUBLIC_DIR / P.sources()["trtllm-perf-overview-devguide"]["file"])
    got = rows[rows["source"] == "trtllm-perf-overview-devguide"]["out_tok_s_total"].to_numpy()
    assert np.array_equal(got, (per_gpu["out_tok_s_per_gpu"] * per_gpu["gpus"]).to_numpy(float))


# --- The loader on small fixtures --------------------------------------------------------------------------------

ENTRY = {"title": "t", "url": "https://example.org/x", "publisher": "p", "licence": "l", "read": "2026-01-01",
         "stack": "vllm", "stack_version": "v", "benchmark": "b", "load": "offline", "attention_dp": "moe",
         "definitions": {"load": "a", "isl, osl": "b", "gpus, tp": "c", "dtype": "d", "out_tok_s_per_gpu": "e",
                         "out_tok_s_total": "f"}}  # fmt: skip
HEAD = "source,model,gpu,gpus,tp,dtype,isl,osl,"


def _fixture(tmp_path, body: str, measure: str = "out_tok_s_per_gpu", **entry):
    (tmp_path / "s.csv").write_text(HEAD + measure + "\n" + body)
    return {"s": {**ENTRY, "file": "s.csv", **entry}}


def test_a_fixture_is_read_into_the_schema(tmp_path):
    body = "s,Qwen3-235B-A22B,H200,4,4,fp8,1000,1000,3000\ns,Llama 3.1 70B,MI300X,8,8,fp8,128,2048,1500\n"
    rows = P.read_all(_fixture(tmp_path, body), tmp_path)
    assert rows["model"].tolist() == ["qwen3-235b-a22b", "llama-3.3-70b"]
    assert rows["gpu"].tolist() == ["h200", "mi300x"] and rows["stack"].eq("vllm").all()
    assert rows["out_tok_s_total"].tolist() == [12000.0, 12000.0]  # per GPU × GPUs
    assert rows["dp_attention"].tolist() == [True, False]  # the MoE model on 4 GPUs; the dense one never
    rows = P.read_all(_fixture(tmp_path, body, attention_dp="none"), tmp_path)
    assert not rows["dp_attention"].any()
    total = P.read_all(_fixture(tmp_path, body, measure="out_tok_s_total"), tmp_path)
    assert total["out_tok_s_total"].tolist() == [3000.0, 1500.0]


def test_a_concurrency_fixture_keeps_its_latencies_and_is_predicted_as_a_closed_loop(tmp_path):
    body = "s,Llama 3.3 70B,H100,2,2,fp8,5000,500,1,400,18,50\ns,Llama 3.3 70B,H100,2,2,fp8,5000,500,100,8000,90,900\n"
    (tmp_path / "s.csv").write_text(HEAD + "concurrency,ttft_ms,itl_ms,out_tok_s_total\n" + body)
    definitions = {**ENTRY["definitions"], "concurrency": "c", "ttft_ms": "t", "itl_ms": "i"}
    entries = {"s": {**ENTRY, "file": "s.csv", "load": "concurrency", "definitions": definitions}}
    rows = P.read_all(entries, tmp_path)
    assert rows["concurrency"].tolist() == [1.0, 100.0] and rows["itl_ms"].tolist() == [18.0, 90.0]
    tr = toy_transfer()
    r = TF.published_predictions(tr, rows)
    cal = T.calibration(tr, "h100", "vllm", "fp8", MODELS["llama-3.3-70b"], 2)
    loop = C.closed_loop(cal, TF.published_machine(rows), [1.0, 100.0], 5000.0, 500.0, MODELS["llama-3.3-70b"])
    assert r["tpot"] == pytest.approx(loop["tpot"]) and r["ttft"] == pytest.approx(loop["ttft"])
    assert r["throughput"] == pytest.approx(np.asarray(loop["throughput_per_gpu"]) * 2)
    metrics = TF.errors(tr, pd.DataFrame(), rows).groupby("metric").size().to_dict()
    assert metrics == {"throughput": 2, "tpot": 2, "ttft": 2}  # each measured number scored once
    entries["s"]["definitions"] = ENTRY["definitions"]
    with pytest.raises(P.PublishedDataError, match="concurrency, ttft_ms, itl_ms mean"):
        P.read_all(entries, tmp_path)


@pytest.mark.parametrize(
    "body, entry, words",
    [
        ("s,Mixtral 8x7B,H200,1,1,fp8,128,128,100\n", {}, "model not in the catalog"),
        ("s,Llama 3.3 70B,TPU,1,1,fp8,128,128,100\n", {}, "gpu not in the catalog"),
        ("s,Llama 3.3 70B,H200,1,1,fp8,128,128,\n", {}, "empty cells"),
        ("s,Llama 3.3 70B,H200,1,1,fp8,128,128,-5\n", {}, "not positive"),
        ("s,Llama 3.3 70B,H200,1,2,fp8,128,128,100\n", {}, "tp > gpus"),
        ("other,Llama 3.3 70B,H200,1,1,fp8,128,128,100\n", {}, "another source"),
        ("s,Llama 3.3 70B,H200,1,1,int3,128,128,100\n", {}, "dtype not in the catalog"),
        ("s,Llama 3.3 70B,H200,1,1,fp8,128,128,100\n", {"licence": ""}, "no licence"),
        ("s,Llama 3.3 70B,H200,1,1,fp8,128,128,100\n", {"load": "poisson"}, "load 'poisson'"),
        ("s,Llama 3.3 70B,H200,1,1,fp8,128,128,100\n", {"definitions": {"load": "a"}}, "definitions must say"),
    ],  # fmt: skip
)
def test_a_row_or_entry_that_breaks_the_schema_is_refused_in_words(tmp_path, body, entry, words):
    with pytest.raises(P.PublishedDataError, match=words):
        P.read_all(_fixture(tmp_path, body, **entry), tmp_path)


# --- The stored fit's scores by source, model, GPU and stack ------------------------------------------------------


def _two_sources(tmp_path):
    a = "a,Llama 3.3 70B,H200,1,1,fp8,1000,1000,2000\na,Llama 3.3 70B,H100,2,2,fp8,1000,1000,1800\n"
    b = "b,Qwen3-235B-A22B,B200,4,4,fp4,1000,1000,5000\n"
    (tmp_path / "a.csv").write_text(HEAD + "out_tok_s_per_gpu\n" + a)
    (tmp_path / "b.csv").write_text(HEAD + "out_tok_s_per_gpu\n" + b)
    entries = {"a": {**ENTRY, "file": "a.csv", "stack": "trt"}, "b": {**ENTRY, "file": "b.csv", "stack": "vllm"}}
    return P.read_all(entries, tmp_path)


def test_the_stored_fit_is_scored_per_source_model_gpu_and_stack(tmp_path):
    pub = _two_sources(tmp_path)
    tr = toy_transfer()
    scores = TF.stored_scores(tr, {"a"}, pd.DataFrame(), pub)
    assert set(scores) == {"source", "model", "GPU", "stack"}
    err = np.abs(TF.predict_published(tr, pub) / pub["out_tok_s_total"].to_numpy() - 1)
    by_source = {e["group"]: e for e in scores["source"]}
    assert by_source["a"]["sample"] == "in sample" and by_source["b"]["sample"] == "out of sample"
    assert by_source["a"]["rows"] == 2 and by_source["b"]["rows"] == 1
    assert by_source["a"]["throughput"][0] == pytest.approx(np.median(err[:2]), abs=1e-4)
    assert by_source["b"]["throughput"] == pytest.approx([err[2], err[2]], abs=1e-4)
    assert {(e["group"], e["sample"]) for e in scores["stack"]} == {("trt", "in sample"), ("vllm", "out of sample")}
    assert [e["group"] for e in scores["GPU"]] == ["b200", "h100", "h200"]
    assert [e["group"] for e in scores["model"]] == ["llama-3.3-70b", "qwen3-235b-a22b"]


def test_a_stack_the_fit_never_saw_takes_the_typical_stack(tmp_path):
    pub = _two_sources(tmp_path)
    tr = toy_transfer()
    vllm = pub[pub["stack"] == "vllm"]
    as_typical = TF.predict_published(T.Transfer(tr.silicon, {**tr.stack, "vllm": T._typical(tr.stack, T.STACK_FIELDS)},
                                                 tr.expert_rate, tr.mtp), vllm)  # fmt: skip
    assert TF.predict_published(tr, vllm) == pytest.approx(as_typical)


def test_the_validate_tables_print_each_breakdown_with_its_sample(tmp_path):
    text = format_stored(TF.stored_scores(toy_transfer(), {"a"}, pd.DataFrame(), _two_sources(tmp_path)))
    for title in ("by source", "by model", "by GPU", "by stack"):
        assert title in text
    line = next(ln for ln in text.splitlines() if ln.startswith("vllm"))
    assert "out of sample" in line and line.rstrip().endswith("1") and "%" in line


def test_validate_transfer_scores_the_shipped_fit_without_refitting():
    from tests.cli_checks import run_inferx
    from tests.test_cli import Path

    fixture = Path(__file__).parent / "fixtures" / "synthetic_api_benchmarks.json"
    out = run_inferx("validate", "--measured", str(fixture), "--transfer", timeout=120)
    assert out.returncode == 0, out.stderr
    for source_id, source in P.sources().items():
        assert source_id in out.stdout and source["stack_version"] in out.stdout
    assert "by stack" in out.stdout and "Held out when the stored fit was made" in out.stdout
    assert "fitting the transferable model" not in out.stderr  # no refit


def test_the_shipped_scores_of_every_source_are_finite():
    scores = TF.published_scores()
    assert {e["group"] for e in scores["source"]} == set(P.sources())
    assert json.dumps(scores).count("NaN") == 0


def test_methods_shows_every_source_by_source_model_gpu_and_stack():
    import app  # noqa: F401  (Dash Pages registers a page only once the app exists)
    from pages import methods

    section = methods.transfer_section()
    texts = [str(c.children) for c in section._traverse() if hasattr(c, "children") and isinstance(c.children, str)]
    for name in ("source", "model", "GPU", "stack"):
        assert f"Published rows by {name}" in texts
    firsts = [th.children.children[0].children for th in section._traverse() if type(th).__name__ == "Thead"]
    assert firsts[:4] == ["source", "model", "GPU", "stack"]
    assert firsts[4] == "group"  # the held-out tables after them keep their own header
    for source_id in P.sources():
        assert source_id in texts
    # A source is "out of sample" only while the stored fit has not been made from it (after a refit, none is).
    fitted = set(T.load_transfer_record()["source"]["published"])
    assert "in sample" in texts and ("out of sample" in texts) == bool(set(P.sources()) - fitted)


def test_the_fit_takes_every_source_and_load_together():
    """`inferx calibrate --transfer` fits offline and closed-loop rows of several stacks in one solve: each stack
    gets its own overheads, and rows drawn from a known model are fitted back to it."""
    pub = P.load_published()
    trt = pub["source"].eq("trtllm-perf-overview") & pub["gpu"].isin(["h100", "h200"])
    rows = pub[pub["source"].eq("nim-llm-benchmarking") | trt & pub["model"].eq("llama-3.3-70b")].reset_index(drop=True)
    truth = toy_transfer(stack={"trt": toy_transfer().stack["trt"], "nim": toy_transfer().stack["sglang"]})
    rows["out_tok_s_total"] = TF.predict_published(truth, rows)
    got = TF.fit_transfer(pd.DataFrame(columns=["hardware", "framework", "precision", "n_gpus",
                                                "decode_dp_attention"]), rows, truth.mtp)  # fmt: skip
    # TensorRT-LLM's rows here are offline only: it takes the typical stack's costs, NIM's closed loop its own.
    assert set(got.stack) == {"nim"} and all(type(k) is str for k in got.stack)
    assert np.allclose(TF.predict_published(got, rows), rows["out_tok_s_total"], rtol=0.03)
