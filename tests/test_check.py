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


# Numbers the article prints, typed here from its text rather than read from inferx/check.py: a row whose
# article value had been edited towards the engine's (or dropped) would otherwise still pass.
PRINTED = [
    ("8×H200 ridge I*", 824),
    ("8×H200 ridge batch B*", 412),
    ("4×MI300X ridge batch B*", 247),
    ("8×B200 ridge batch B*", 563),
    ("8×B200 ridge I*", 1_125),
    ("κ, DeepSeek R1, FP8 KV", 35_136),
    ("κ, DeepSeek R1, FP16 KV", 70_272),
    ("T∞(8192), 8×H200", 133_000),
    ("4×MI300X KV headroom", 97),
    ("8×H200 KV headroom", 457),
    ("8×B200 KV headroom", 865),
    ("ITL floor", 0.96),
    ("t_AR(B=1, TP=8)", 1.2),
    ("ITL at B=1, 8×H200", 2.2),
    ("base t_step(B=256", 1.2),
    ("E[accept]", 3.69),
    ("effective ITL, GPU draft", 0.65),
    ("effective ITL, SRAM draft", 0.018),
    ("speed-up, SRAM draft", 122),
]


@pytest.mark.parametrize("fragment,printed", PRINTED, ids=[f for f, _ in PRINTED])
def test_the_article_printed_numbers_are_rows_that_agree(fragment, printed):
    rows = [r for r in ROWS if r.quantity.startswith(fragment) or fragment in r.quantity]
    matching = [r for r in rows if r.article == printed]
    assert matching, [(r.quantity, r.article) for r in rows]
    for r in matching:
        assert r.expect == OK and abs(r.engine - printed) <= r.rel_tol * printed, (r.quantity, r.engine)
        assert r.rel_tol <= 0.05  # a tolerance wide enough to hide a wrong formula is no check
