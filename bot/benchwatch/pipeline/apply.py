"""Write a run's ``Delta`` into reports/ (inside its transaction); what a run did (``JobResult``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from benchwatch.history import (
    Alert,
    Reports,
    append_changelog,
    append_history,
    append_run,
    as_typed,
    load_alerts,
    load_latest,
    load_sources,
    read_table,
    write_alerts,
    write_latest,
    write_sources,
)
from benchwatch.pipeline import phases
from benchwatch.pipeline.pages import compare_pages
from benchwatch.record import BenchmarkRecord
from benchwatch.words import count


@dataclass(frozen=True)
class JobResult:
    """What one run of the job did."""

    benchmarks: int
    new_snapshots: int
    alerts: int
    pages: int
    sources_ok: int = 0
    sources_failed: int = 0
    unreached: int = 0  # sources whose server no connection could be made to (``benchwatch.sources.unreachable``)


@dataclass
class Delta:
    """What a run's sources produced, before any of it is written: what ``apply_delta`` writes into
    reports/, and what a fan-out part carries from its runner to the merge."""

    sources: list[str]
    records: dict[str, BenchmarkRecord]  # the benchmarks whose record these sources set (new, changed, carried, gone)
    new_rows: list[dict]
    new_alerts: list[dict]
    changes: list[dict]
    statuses: dict[str, dict]
    outcomes: list[str]
    files: dict[str, bytes]  # per-benchmark tables and snapshots, by path relative to reports/
    ok: int
    failed: int


def _shown(records: dict[str, BenchmarkRecord]) -> dict[str, tuple]:
    """What the pages' comparisons read of each record: its data's revision, its page, its kind, whether it is gone."""
    return {name: (r.revision, r.page, r.kind, bool(r.gone_since)) for name, r in records.items()}


def apply_delta(reports: Reports, delta: Delta, *, now: str, started: float, log: Callable[[str], None]) -> JobResult:
    """Write a delta into reports/ (inside its transaction): figures, history, alerts, changelog, source
    statuses, per-benchmark files and the run log's row. Returns the run's counts (no pages)."""
    before = load_latest(reports)
    records = {**before, **delta.records}
    new_alerts = list(delta.new_alerts)
    with phases.stage("reports", log) as notes:
        for rel, data in sorted(delta.files.items()):
            path = reports.root / rel
            if reports.read_bytes(path) != data:
                reports.write_bytes(path, data)
        if _shown(before) != _shown(records):  # else every page holds the records it held, compared as they were
            compare_pages(records, lambda name: read_table(reports, reports.models(name)))
        write_latest(reports, records)
        appended = append_history(reports, delta.new_rows)
        old_alerts = load_alerts(reports)
        seen = {as_typed(Alert, a).id for a in old_alerts}
        new_alerts = [a for a in new_alerts if as_typed(Alert, a).id not in seen]
        write_alerts(reports, old_alerts + new_alerts)
        append_changelog(reports, delta.changes)
        write_sources(reports, {**load_sources(reports), **delta.statuses})
        notes.append(f"{count(appended, 'new snapshot')}, {count(len(new_alerts), 'alert')} -> {reports.root}")
    phases.phase("staging")
    ok, failed = delta.ok, delta.failed
    append_run(  # in the same commit as what the run did: the log never misses a run that changed reports/
        reports,
        {
            "started_at": now,
            "seconds": f"{time.perf_counter() - started:.2f}",
            "benchmarks": len(records),
            "new_snapshots": appended,
            "alerts": len(new_alerts),
            "status": "ok" if not failed else ("failed" if not ok else f"{failed} source(s) failed"),
            "sources": " ".join(delta.outcomes),
        },
    )
    phases.phase("run log")
    return JobResult(len(records), appended, len(new_alerts), 0, ok, failed)
