"""Standings of your own results, as ``benchwatch tiers`` and ``benchwatch saturation`` give them: who can be told
apart (tiers of tied models, rank intervals), and how saturated each leaderboard of published scores is.

Only the standard library loads with this module; the stages load when a function runs, and neither function loads
the audit's pipeline (a small file answers at once).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from benchwatch import metrics, sources, store

if TYPE_CHECKING:
    from benchwatch.metrics import Tiers
    from benchwatch.record import BenchmarkRecord

__all__ = ["leaderboard_saturation", "tiers"]


def leaderboard_saturation(board: str | Path, *, percent: bool = False, ceiling: float = 1.0) -> list[BenchmarkRecord]:
    """The saturation index of each leaderboard in ``board``, a CSV of published scores (benchmark, model, score,
    n_items; date optional), as ``benchwatch saturation`` gives it: one typed record per benchmark, by name, with
    its index and band, the best and fifth-best scores, the state and what decided it.

    The file is checked as the command checks it (an ``InputError`` names the line and the column at fault);
    ``percent``: the scores are percentages (0-100); ``ceiling``: the highest score the benchmarks allow, as a
    proportion.
    """
    table = store.validate_aggregates(sources.read_csv_text(board), str(board), percent=percent)
    from benchwatch.record import as_record  # once the file is read: an input error loads no pydantic

    return [as_record(found) for found in metrics.leaderboard_saturation(table, ceiling=ceiling)]


def tiers(results: str | Path, *, percent: bool = False) -> dict[str, Tiers]:
    """Who can be told apart in each benchmark of ``results``, as ``benchwatch tiers`` says it: its tiers of tied
    models, by benchmark name (sorted), each a ``benchwatch.metrics.Tiers`` (``.table()``: every model with its
    score interval, tier, rank interval and note; ``.summary()``).

    ``results``: per-item results (a CSV of benchmark, model, item_id, score, trials optional; Inspect logs;
    lm-evaluation-harness samples; a folder of them), tested on the items both models of a pair answered; or a
    leaderboard of published scores (benchmark, model, score, n_items; stderr optional), tested on its standard
    errors (``percent``: its scores are percentages). Checked as the command checks it.
    """
    table = sources.read_input(results)
    columns = list(table.frame.columns)
    if "item_id" not in columns and {"score", "n_items"} <= set(columns):
        rows = store.validate_aggregates(table.frame, table.location, percent=percent)
        return {name: metrics.tiers_of_board(part) for name, part in rows.groupby("benchmark", sort=True)}
    rows = store.validate_responses(table.frame, table.location)
    return {name: metrics.tiers_of(part) for name, part in rows.groupby("benchmark", sort=True)}
