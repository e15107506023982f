"""The audit job: sources -> store -> irt -> metrics -> rules/alerts -> reports -> site."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from bot.alerts import diff_alerts
from bot.history import (
    Reports,
    append_history,
    append_run,
    load_alerts,
    load_latest,
    write_alerts,
    write_latest,
    write_table,
)
from bot.irt import DEFAULT_SCALE
from bot.pipeline.audit import audit_benchmark
from bot.rules import DEFAULT_THRESHOLDS, Thresholds, evaluate_flags
from bot.sources import SourceTable
from bot.store import content_revision, validate_responses


@dataclass(frozen=True)
class JobResult:
    """What one run of the job did."""

    benchmarks: int
    new_snapshots: int
    alerts: int
    pages: int


def utc_now() -> str:
    """The current time as an ISO 8601 UTC timestamp to the second."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@contextmanager
def stage(name: str, log: Callable[[str], None]) -> Iterator[list[str]]:
    """Time one stage and print one line for it (details appended by the caller)."""
    notes: list[str] = []
    start = time.perf_counter()
    yield notes
    log(f"{name:<9} {time.perf_counter() - start:7.2f}s  {'; '.join(notes)}")


def run_job(
    fetch: Callable[[], list[SourceTable]],
    *,
    reports_dir: str | Path,
    site_out: str | Path | None,
    now: str | None = None,
    force: bool = False,
    method: str = "map",
    scale: str = DEFAULT_SCALE,
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
    log: Callable[[str], None] = print,
) -> JobResult:
    """Run every stage once; unchanged benchmarks are not refitted unless ``force``."""
    started = time.perf_counter()
    now = now or utc_now()
    reports = Reports(Path(reports_dir))
    with stage("fetch", log) as notes:
        tables = fetch()
        notes += [f"{t.name}: {len(t.frame):,} rows" for t in tables]
    with stage("validate", log) as notes:
        frames = [(t, validate_responses(t.frame, t.location)) for t in tables]
        notes.append(f"{sum(f['benchmark'].nunique() for _, f in frames)} benchmarks")

    previous = load_latest(reports)
    records = dict(previous)
    new_rows, new_alerts = [], []
    with stage("fit", log) as notes:
        for table, frame in frames:
            for name, rows in frame.groupby("benchmark", sort=True):
                t0 = time.perf_counter()
                before = previous.get(name)
                same = before is not None and before.get("revision") == content_revision(rows)
                same = same and (before.get("method"), before.get("scale")) == (method, scale)
                if same and not force:
                    notes.append(f"{name} unchanged")
                    continue
                audit = audit_benchmark(rows, source=table.location, synthetic=table.synthetic, scale=scale)
                fig = audit.figures()
                fig["prior_state"] = before.get("prior_state") if same else (before or {}).get("state")
                fig["flags"] = evaluate_flags(fig, set((before or {}).get("flags", [])), fig["prior_state"], thresholds)
                fig["snapshot_at"] = before["snapshot_at"] if same else now
                records[name] = fig
                new_alerts += diff_alerts(before, fig, now)
                if not same:
                    new_rows.append({**fig, "flags": " ".join(fig["flags"])})
                write_table(reports.items(name), audit.items.sort_values("item_id"))
                write_table(reports.models(name), audit.models.sort_values("model"))
                notes.append(f"{name} {time.perf_counter() - t0:.2f}s")
    with stage("reports", log) as notes:
        write_latest(reports, records)
        append_history(reports, new_rows)
        write_alerts(reports, load_alerts(reports) + new_alerts)
        notes.append(f"{len(new_rows)} new snapshots, {len(new_alerts)} alerts -> {reports.root}")
    pages = 0
    if site_out is not None:
        from bot.site import build_site

        with stage("site", log) as notes:
            pages = build_site(reports.root, site_out)
            notes.append(f"{pages} pages -> {site_out}")
    append_run(
        reports,
        {
            "started_at": now,
            "seconds": f"{time.perf_counter() - started:.2f}",
            "benchmarks": len(records),
            "new_snapshots": len(new_rows),
            "alerts": len(new_alerts),
            "status": "ok",
        },
    )
    return JobResult(len(records), len(new_rows), len(new_alerts), pages)
