"""One benchmark, one page: the records shown together, and how their scores agree where both cover a model."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd

from benchwatch.history import page_groups, without
from benchwatch.metrics import compare_scores
from benchwatch.record import BenchmarkRecord

LISTED = 50  # compared models listed per board; the counts are always complete


def compare_pages(records: dict[str, BenchmarkRecord], models_of: Callable[[str], pd.DataFrame | None]) -> None:
    """Attach to each board that shares a page with a per-item fit its comparison with that fit (in place: each
    record of ``records`` replaced by one with its comparison, or none): of several fits on the page (the same
    benchmark run another way), the one that shares the most models with it."""
    for recs in page_groups(records).values():
        fits = [r for r in recs if r.kind != "aggregate"]
        for rec in recs:
            mine = models_of(rec.benchmark) if rec.kind == "aggregate" and fits else None
            found = None if mine is None else _comparison(rec, mine, fits, models_of)
            if found is not None:
                records[rec.benchmark] = rec.model_copy(update={"comparison": found})
            elif "comparison" in rec.model_fields_set:
                records[rec.benchmark] = without(rec, "comparison")


def _comparison(
    rec: BenchmarkRecord,
    mine: pd.DataFrame,
    fits: list[BenchmarkRecord],
    models_of: Callable[[str], pd.DataFrame | None],
) -> dict | None:
    """A board's comparison with the fit of its page that shares the most models with it, or None where no fit
    has a models table."""
    best: tuple[BenchmarkRecord, list] | None = None
    for fit in fits:
        theirs = models_of(fit.benchmark)
        if theirs is None:
            continue
        rows = compare_scores(theirs, mine, int(fit.n_items), int(rec.n_items))
        if best is None or len(rows) > len(best[1]):
            best = (fit, rows)
    if best is None:
        return None
    fit, rows = best
    return {
        "with": fit.benchmark,
        "fit_models": int(fit.n_models),
        "board_models": int(rec.n_models),
        "both": len(rows),
        "disagreements": sum(r["disagree"] for r in rows),
        "rows": rows[:LISTED],
    }
