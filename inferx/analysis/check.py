"""Every number the article prints, beside the engine's value.

Sections `levers`, `roofline` and `memwall` hold the numbers of three background
texts on the same physics (a roofline series' "six levers" part, a course module on
serving metrics and the roofline, and "The Memory Wall"), computed from the model
and hardware catalogs; `catalog` rows compare the article's machines with the GPU
datasheets. A row's status is `ok` when the engine agrees within the row's tolerance (set by
how the article rounds), `MISMATCH` when it should agree and does not, `article
inconsistent` when the article's prose contradicts its own formula (both values
are shown and the formula's wins), and `flag` for a caveat on an input.
"""

from __future__ import annotations

from dataclasses import dataclass

OK, MISMATCH, INCONSISTENT, FLAG = "ok", "MISMATCH", "article inconsistent", "flag"


@dataclass(frozen=True)
class Row:
    section: str
    quantity: str
    article: float
    engine: float
    unit: str
    rel_tol: float = 0.02
    expect: str = OK  # OK: must agree; INCONSISTENT or FLAG: known disagreement
    note: str = ""

    @property
    def rel_diff(self) -> float:
        return (self.engine - self.article) / self.article

    @property
    def status(self) -> str:
        if self.expect != OK:
            return self.expect
        return OK if abs(self.rel_diff) <= self.rel_tol else MISMATCH


# Accelerators the background texts use that are not GPUs in the catalog (dense BF16 FLOP/s, HBM bytes/s):
TPU_V4 = (275e12, 1.2e12)  # Google Cloud TPU v4 system architecture page
TPU_V5E = (197e12, 819e9)  # Google Cloud TPU v5e page
L40S = (362.05e12, 864e9)  # NVIDIA L40S datasheet (733 TFLOPS BF16 with sparsity), GDDR6
PCIE5_X16 = 64e9  # PCIe Gen5 x16, bytes/s, as the roofline text quotes it


def format_table(rows: list[Row]) -> str:
    head = f"{'section':8} {'quantity':62} {'article':>12} {'engine':>12} {'unit':12} {'diff':>7}  status"
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(
            f"{r.section:8} {r.quantity:62} {r.article:12,.4g} {r.engine:12,.4g} {r.unit:12} "
            f"{100 * r.rel_diff:+6.1f}%  {r.status}{'  — ' + r.note if r.note else ''}"
        )
    count = {s: sum(r.status == s for r in rows) for s in (OK, MISMATCH, INCONSISTENT, FLAG)}
    lines.append(
        f"{len(rows)} rows: {count[OK]} ok, {count[MISMATCH]} mismatch, "
        f"{count[INCONSISTENT]} article inconsistent, {count[FLAG]} flagged"
    )
    return "\n".join(lines)
