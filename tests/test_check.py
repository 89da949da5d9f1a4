"""Every number the article prints is a row of `inferx check`; each row is a test."""

from dataclasses import replace

import pytest

from inferx.analysis import background_numbers as check
from inferx.analysis.article_numbers import ROWS
from inferx.analysis.check import FLAG, INCONSISTENT, MISMATCH, OK, format_table
from inferx.physics import models as M
from inferx.physics.hardware import GPUS


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
    table = format_table(ROWS)
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
    wrong = {r.quantity for r in check.background_rows() if r.status == MISMATCH}
    assert "H100 SXM5 ridge at dense BF16" in wrong and "TPOT floor, B=1, 2K context" in wrong
    monkeypatch.setattr(M, "LLAMA2_13B", replace(M.LLAMA2_13B, n_layers=20))
    wrong = {r.quantity for r in check.background_rows() if r.status == MISMATCH}
    assert "Llama-2-13B KV per 8,192-token sequence, BF16" in wrong


# Numbers the article prints, typed here from its text rather than read from analysis/article_numbers.py: a row whose
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
    ("speed-up, GPU draft", 3.4),
    ("8×H200 compute utilisation at B=1", 0.24),
    ("4×MI300X ridge I*", 493),
    ("4×MI300X compute utilisation at B=1", 0.41),
    ("8×B200 compute utilisation at B=1", 0.18),
    ("H100 ridge I* at dense BF16", 295),
    ("H100 compute utilisation at B=1, FP8", 0.34),
    ("(prose: ≈ 34 KB)", 34),
    ("(prose: 320 KB)", 320),
    ("GQA Llama-70B FP16 κ ÷ R1 FP8 κ", 9),
    ("4×MI300X bandwidth share of 8×H200", 55),
    ("t_prefill(1024), 8×H200, linear term", 2.4),
    ("(prose: 7 KB)", 7),
    ("collectives per decode step", 122),
    ("GPU draft step δ", 0.48),
    ("SRAM draft step δ", 0.011),
    ("verify t_v = t_prefill(5)", 0.012),
    ("SRAM draft cost 5·δ", 0.055),
    ("GPU draft cost 5·δ", 2.4),
    ("H100 HBM3 bandwidth density", 42),
    ("MI300X HBM3 bandwidth density", 28),
    ("Corsair SRAM bandwidth density", 75_000),
    ("E2E for 500 tokens", 15),
    ("with 2× the bandwidth ÷ as is", 0.5),
]


@pytest.mark.parametrize("fragment,printed", PRINTED, ids=[f for f, _ in PRINTED])
def test_the_article_printed_numbers_are_rows_that_agree(fragment, printed):
    rows = [r for r in ROWS if r.quantity.startswith(fragment) or fragment in r.quantity]
    matching = [r for r in rows if r.article == printed]
    assert matching, [(r.quantity, r.article) for r in rows]
    for r in matching:
        assert r.expect == OK and abs(r.engine - printed) <= r.rel_tol * printed, (r.quantity, r.engine)
        assert r.rel_tol <= 0.05  # a tolerance wide enough to hide a wrong formula is no check
