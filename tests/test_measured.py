"""Loader, filters and row mapping for measured InferenceX files (both shapes, and broken ones)."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from conftest import MEASURED_DIR_ENV, ROOT

from inferx.data.measured import (
    REQUIRED,
    MeasuredDataError,
    filter_measured,
    filter_options,
    load_measured,
    model_quantities,
    parse_measured,
    parse_upload,
)

HEADER = "hardware,precision,framework,spec_method,disagg,is_multinode,isl,osl,concurrency,n_gpus,"
HEADER += "median_tpot_ms,output_tput_per_gpu_tok_s,median_ttft_ms,date,run_url"
ROW_1 = "h200,fp8,sglang,none,False,False,1024,1024,4,8,11.6,52.1,122.0,2025-12-01,https://example.org/run/1"
ROW_2 = "b200,fp8,trt,mtp,True,True,8192,1024,64,12,25.0,300.0,900.0,2026-01-02,https://example.org/run/2"


def api_item(**metrics) -> dict:
    base = {"median_tpot": 0.0116, "output_tput_per_gpu": 52.1, "median_ttft": 0.122, "median_intvty": 86.2}
    return {
        "hardware": "h200",
        "framework": "sglang",
        "precision": "fp8",
        "spec_method": "none",
        "disagg": False,
        "is_multinode": False,
        "decode_tp": 8,
        "decode_ep": 1,
        "decode_dp_attention": False,
        "num_prefill_gpu": 8,
        "num_decode_gpu": 8,
        "isl": 1024,
        "osl": 1024,
        "conc": 4,
        "date": "2025-12-01",
        "run_url": "https://example.org/run/1",
        "metrics": {**base, **metrics},
    }


def write(tmp_path, name: str, text: str):
    path = tmp_path / name
    path.write_text(text)
    return path


# --- Good files ---------------------------------------------------------------------


def test_small_csv_is_normalised(tmp_path):
    df = load_measured(write(tmp_path, "m.csv", f"{HEADER}\n{ROW_1}\n{ROW_2}\n"))
    assert len(df) == 2
    assert set(REQUIRED) <= set(df.columns)
    assert df.loc[0, "median_tpot_ms"] == pytest.approx(11.6)
    assert df["disagg"].tolist() == [False, True]
    assert df["spec_method"].tolist() == ["none", "mtp"]
    # Interactivity is derived from TPOT when the file leaves it out.
    assert df.loc[0, "interactivity_tok_s_user"] == pytest.approx(1000 / 11.6)


def test_json_latencies_become_ms_and_gpu_counts_are_derived(tmp_path):
    path = write(tmp_path, "api.json", json.dumps([api_item()]))
    df = load_measured(path)
    row = df.iloc[0]
    assert row["median_tpot_ms"] == pytest.approx(11.6)
    assert row["median_ttft_ms"] == pytest.approx(122.0)
    assert row["concurrency"] == 4 and row["n_gpus"] == 8
    assert row["output_tput_total_tok_s"] == pytest.approx(52.1 * 8)


def test_content_as_bytes_str_and_upload_all_agree(tmp_path):
    text = f"{HEADER}\n{ROW_1}\n"
    from_path = load_measured(write(tmp_path, "m.csv", text))
    from_bytes = parse_measured(text.encode(), "m.csv")
    from_str = parse_measured(text)
    upload = "data:text/csv;base64," + base64.b64encode(text.encode()).decode()
    from_upload = parse_upload(upload, "m.csv")
    for other in (from_bytes, from_str, from_upload):
        pd.testing.assert_frame_equal(from_path, other)
    # JSON recognised by its content when the name says nothing.
    assert len(parse_measured(json.dumps([api_item()]).encode(), "download")) == 1


def test_a_name_repeated_in_every_row_is_held_once(tmp_path):
    """A file at the row limit repeats a few names in every row; one string object a value, not one a cell, keeps the
    parsed frame small while the rest of an upload is read (the four-uploads memory test's margin)."""
    rows = [ROW_1.replace("h200", " H200") if i % 2 else ROW_1 for i in range(1000)]
    csv_text, json_text = f"{HEADER}\n" + "\n".join(rows), json.dumps([api_item()] * 1000)
    for df in (parse_measured(csv_text, "m.csv"), parse_measured(json_text)):
        assert set(df["hardware"]) == {"h200"}
        for column in ("hardware", "precision", "framework", "spec_method", "date", "run_url"):
            assert len({id(value) for value in df[column]}) == 1, column
        assert df["hardware"].dtype == df["model"].dtype  # still the text dtype the rest of the code reads


# --- Broken files -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("bad.json", '[{"hardware": "h200",', ["invalid JSON", "line 1"]),
        ("empty.csv", "", ["empty"]),
        ("header.csv", HEADER + "\n", ["no data rows"]),
        ("missing.csv", HEADER.replace(",median_tpot_ms", "") + "\n" + ROW_1.replace(",11.6", ""), ["median_tpot_ms"]),
        ("text.csv", f"{HEADER}\n{ROW_1}\n{ROW_2.replace(',25.0,', ',fast,')}\n", ["row 2", "median_tpot_ms", "fast"]),
        ("neg.csv", f"{HEADER}\n{ROW_1.replace(',122.0,', ',-5,')}\n", ["row 1", "median_ttft_ms", "negative"]),
        ("blank.csv", f"{HEADER}\n{ROW_1}\n{ROW_2.replace(',64,12,', ',,12,')}\n", ["row 2", "concurrency"]),
        ("flag.csv", f"{HEADER}\n{ROW_1.replace('False,False', 'maybe,False')}\n", ["row 1", "disagg"]),
    ],
)
def test_broken_file_names_row_and_column(tmp_path, name, text, expected):
    with pytest.raises(MeasuredDataError) as err:
        load_measured(write(tmp_path, name, text))
    for fragment in expected:
        assert fragment in str(err.value)
    # The file at fault, when a command line names several, as it was named: its folder too, once.
    assert str(err.value).startswith(f"{tmp_path / name}: ") and str(err.value).count(name) == 1


def test_broken_json_items_name_index_and_column(tmp_path):
    no_metrics = api_item()
    del no_metrics["metrics"]
    with pytest.raises(MeasuredDataError, match=r"item \[1\].*metrics"):
        load_measured(write(tmp_path, "a.json", json.dumps([api_item(), no_metrics])))
    with pytest.raises(MeasuredDataError, match=r"item \[0\].*median_tpot_ms.*'slow'"):
        load_measured(write(tmp_path, "b.json", json.dumps([api_item(median_tpot="slow")])))
    with pytest.raises(MeasuredDataError, match="array"):
        load_measured(write(tmp_path, "c.json", '"just a string"'))
    with pytest.raises(MeasuredDataError, match="cannot read"):
        load_measured(tmp_path / "absent.csv")
    with pytest.raises(MeasuredDataError, match="^no file name given$"):  # not "." as a folder
        load_measured("")


# --- Filters and mapping ------------------------------------------------------------


def test_filters_and_options(tmp_path):
    df = load_measured(write(tmp_path, "m.csv", f"{HEADER}\n{ROW_1}\n{ROW_2}\n"))
    assert filter_measured(df, topology="single")["hardware"].tolist() == ["h200"]
    assert filter_measured(df, topology="disagg")["hardware"].tolist() == ["b200"]
    assert len(filter_measured(df, hardware=["h200", "b200"], precision="fp8")) == 2
    assert len(filter_measured(df, isl=8192, osl="1024", framework="trt", spec_method="mtp")) == 1
    assert len(filter_measured(df, hardware="all", framework=None)) == 2
    assert filter_measured(df, hardware="mi300x").empty
    with pytest.raises(ValueError, match="topology"):
        filter_measured(df, topology="cluster")
    options = filter_options(df)
    assert options["hardware"] == ["b200", "h200"] and options["topology"] == ["single", "disagg"]


def test_model_quantities(tmp_path):
    df = load_measured(write(tmp_path, "m.csv", f"{HEADER}\n{ROW_1}\n"))
    q = model_quantities(df).iloc[0]
    assert q["batch"] == 4 and q["context"] == 1024 + 512 and q["tp"] == 8 and q["gpus"] == 8


# --- A whole export in both shapes (tests/fixtures, or InferenceX's own with $INFERX_TEST_MEASURED_DIR) ---------


def test_export_files_load_and_agree(measured_paths):
    csv_df, json_df = load_measured(measured_paths.csv), load_measured(measured_paths.json)
    raw = pd.read_csv(measured_paths.csv)
    assert len(csv_df) == len(raw) and len(json_df) == len(json.loads(measured_paths.json.read_text()))
    assert list(csv_df.columns) == list(json_df.columns)
    keys = ["run_url", "concurrency", "isl", "osl", "hardware", "framework", "precision", "spec_method"]
    keys += ["decode_tp", "decode_ep", "decode_dp_attention", "disagg"]
    both = json_df.merge(csv_df, on=keys, suffixes=("_json", "_csv"))
    assert len(both) > 0.9 * len(json_df)
    for column in ("median_tpot_ms", "median_ttft_ms", "output_tput_per_gpu_tok_s", "n_gpus"):
        same = np.isclose(both[f"{column}_json"], both[f"{column}_csv"], rtol=1e-3, equal_nan=True)
        assert same.mean() > 0.99, column


def test_fixture_rows_are_ours(measured_paths):
    if measured_paths.real:
        pytest.skip("$INFERX_TEST_MEASURED_DIR points at InferenceX's own rows")
    df = pd.concat([load_measured(measured_paths.csv), load_measured(measured_paths.json)])
    assert df["run_url"].str.startswith("https://example.invalid/").all()
    assert not df["run_url"].str.contains("SemiAnalysis").any()


def test_a_named_folder_without_the_files_fails_not_skips(tmp_path):
    test = f"{__file__}::test_export_files_load_and_agree"
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", test],
        cwd=ROOT,
        env={**os.environ, MEASURED_DIR_ENV: str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 1, run.stdout[-2000:]
    assert "1 error" in run.stdout and "deepseek_r1_measured.csv and api_benchmarks*.json not found" in run.stdout


def test_a_lone_surrogate_in_json_text_becomes_a_question_mark(tmp_path):
    """JSON may escape half a UTF-16 pair ("\\ud800"), which Python keeps as a lone surrogate: no JSON answer or
    printout can carry it, so every callback that sent the column back failed. It is read as "?"."""
    text = json.dumps([api_item()]).replace('"sglang"', '"sg\\ud800lang"')
    df = load_measured(write(tmp_path, "s.json", text))
    assert df.loc[0, "framework"] == "sg?lang"
    json.dumps(df.to_dict("records"), ensure_ascii=False).encode("utf-8")  # what a Dash answer does with it


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[]  garbage", "text after the array"),
        ("[" + "1" * 5000 + "]", "a number of more than 4,300 digits"),
    ],
)
def test_json_past_the_array_or_with_an_endless_number_is_refused_in_plain_words(tmp_path, text, message):
    with pytest.raises(MeasuredDataError, match=message) as err:
        load_measured(write(tmp_path, "x.json", text))
    assert "sys." not in str(err.value)
