"""The audit of a file, as ``benchwatch audit`` does it: per-item responses in any format the command reads (or item
difficulties), checked, audited benchmark by benchmark, and the tables asked for written.

Only the standard library loads with this module; the stages load when ``audit_file`` runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from benchwatch import history, irt, metrics, pipeline, sources, store
from benchwatch.api import AuditResult, audit_rows
from benchwatch.errors import InputError
from benchwatch.irt import DEFAULT_SCALE

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["audit_file"]


def audit_file(
    path: str | Path,
    *,
    method: str = "map",
    scale: str = DEFAULT_SCALE,
    sampler: str = "auto",
    items_out: str | Path | None = None,
    eee_out: str | Path | None = None,
    reports: str | Path | None = None,
    progress: bool = False,
) -> list[AuditResult]:
    """Audit every benchmark of the file at ``path``, as ``benchwatch audit`` does: one ``AuditResult`` per
    benchmark, by name (``audit``'s, for each).

    ``path``: a CSV of responses (benchmark, model, item_id, score; date, trials and chance optional), Inspect
    logs, lm-evaluation-harness samples, Every Eval Ever records, or a folder of them; read and checked before the
    fit's libraries load (a bad file is an ``InputError`` at once, naming the line and the column at fault). A CSV
    of item difficulties (item_id, z) gets the coverage figures alone: no fit, so no verdicts, flags or models, its
    items as given. ``method``, ``scale``, ``sampler`` and ``progress``: as ``audit``'s. Written where asked:
    ``items_out``, every item's item_id, b, b_sd and z (a CSV; with the benchmark's name where there are several);
    ``eee_out``, the responses as Every Eval Ever records; ``reports``, each benchmark's history by date (in
    by_date/). A file of board scores alone is an ``InputError``: ``run(inputs=[path])`` publishes those.
    """
    table = sources.read_input(path)
    if table.frame.empty and table.aggregates is not None:
        raise InputError(
            table.location,
            "holds board scores only (no instance-level rows): an audit needs per-item scores; `run --input` "
            "publishes board scores",
        )
    if store.is_difficulty_file(list(table.frame.columns)):
        return _given_z(path, store.validate_difficulties(table.frame, table.location))
    rows = store.validate_responses(table.frame, table.location)
    chance_from = table.chance_from
    del table  # the file as read: the checked rows hold all of it
    if eee_out:
        store.write_eee_records(rows, eee_out, source=Path(path).name)
    irt.compile_ahead(metrics.compiled_kernels)  # a first audit after an install compiles on both cores
    results = audit_rows(
        rows,
        source=str(path),
        method=method,
        scale=scale,
        sampler=sampler,
        chance_from=chance_from,
        progress=progress,
    )
    if reports is not None:  # an audit of a file never touches a reports folder unless asked
        folder = history.Reports(Path(reports))
        for result in results:
            history.write_table(folder, folder.by_date(result.benchmark), result.by_date)
    if items_out:
        _write_items(items_out, results)
    return results


def _given_z(path: str | Path, rows: pd.DataFrame) -> list[AuditResult]:
    """The coverage figures of each benchmark of a file of item difficulties (``rows``: checked), its items as
    given."""
    import pandas as pd

    from benchwatch.record import as_record  # here, not with the module: an input error loads no pydantic

    given = dict(list(rows.groupby("benchmark", sort=True)))
    results = []
    for figures in pipeline.coverage_only(str(path), rows=rows):
        rec = as_record(figures)
        items = given[rec.benchmark][["item_id", "z"]].reset_index(drop=True)
        results.append(AuditResult(rec.benchmark, rec, {}, [], items, pd.DataFrame()))
    return results


def _write_items(out: str | Path, results: list[AuditResult]) -> None:
    """Every item's position, a CSV: item_id, b, b_sd, z (the benchmark's name first where there are several)."""
    import pandas as pd

    items = pd.concat([r.items.assign(benchmark=r.benchmark) for r in results], ignore_index=True)
    cols = ["item_id", "b", "b_sd", "z"] if len(results) == 1 else ["benchmark", "item_id", "b", "b_sd", "z"]
    store.atomic_write_text(out, items[cols].to_csv(index=False, lineterminator="\n"))
