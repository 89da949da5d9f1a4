"""Every number the article prints is a row of `inferx check`; each row is a test."""

import pytest

from inferx.check import FLAG, INCONSISTENT, MISMATCH, OK, ROWS, format_table


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
