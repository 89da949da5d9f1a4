"""Every number the article prints is a row of `inferx check`; each row is a test."""

from dataclasses import replace

import pytest

from inferx import check
from inferx import models as M
from inferx.check import FLAG, INCONSISTENT, MISMATCH, OK, ROWS, format_table
from inferx.hardware import GPUS


@pytest.mark.parametrize("row", ROWS, ids=[f"{r.section}:{r.quantity}" for r in ROWS])
def test_article_number(row):
    if row.expect == OK:
        assert abs(row.engine - row.article) <= row.rel_tol * abs(row.article), (row.article, row.engine)
    elif row.expect == INCONSISTENT:
        # A row marked inconsistent must really disagree beyond the article's rounding,
        # or the mark would hide an agreement.
        assert abs(row.rel_diff) > 0.03, row
        assert row.note
    else:
        assert row.expect == FLAG and row.note


def test_table_lists_every_row_and_no_mismatch():
    table = format_table()
    assert len(ROWS) >= 50
    for r in ROWS:
        assert r.quantity in table
    assert MISMATCH not in {r.status for r in ROWS}
    assert "article inconsistent" in table and "flag" in table


def test_sparse_compute_is_flagged_for_exactly_the_sparsity_doubled_presets():
    # The article's H200 and B200 figures are the 2:4-sparsity datasheet numbers; its MI300X figure is dense.
    flagged = {r.quantity.split()[0] for r in ROWS if r.expect == FLAG}
    assert flagged == {"H200", "B200"}


def test_background_texts_and_catalog_each_have_rows():
    sections = {r.section for r in ROWS}
    assert {"catalog", "levers", "roofline", "memwall"} <= sections
    for section in ("levers", "roofline", "memwall"):
        assert sum(r.section == section and r.status == OK for r in ROWS) >= 8, section


def test_background_rows_are_computed_from_the_catalogs(monkeypatch):
    # A wrong datasheet number must show up as mismatches, so the rows cannot be constants.
    monkeypatch.setitem(GPUS, "h100", replace(GPUS["h100"], bw=2 * GPUS["h100"].bw))
    wrong = {r.quantity for r in check._background_rows() if r.status == MISMATCH}
    assert "H100 SXM5 ridge at dense BF16" in wrong and "TPOT floor, B=1, 2K context" in wrong
    monkeypatch.setattr(M, "LLAMA2_13B", replace(M.LLAMA2_13B, n_layers=20))
    wrong = {r.quantity for r in check._background_rows() if r.status == MISMATCH}
    assert "Llama-2-13B KV per 8,192-token sequence, BF16" in wrong
