"""The audit job: sources -> store -> irt -> metrics -> rules/alerts -> reports -> site."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from bot.alerts import diff_alerts
from bot.history import (
    Reports,
    append_history,
    append_run,
    load_alerts,
    load_latest,
    load_table,
    write_alerts,
    write_latest,
    write_table,
)
from bot.irt import DEFAULT_SCALE, encode_responses, fit_rasch
from bot.pipeline.audit import N_DRAWS, BenchmarkAudit, measure
from bot.pipeline.incremental import calibrated_fit, plan_update
from bot.rules import DEFAULT_THRESHOLDS, Thresholds, evaluate_flags
from bot.sources import SourceTable
from bot.store import content_revision, load_snapshot, save_snapshot, validate_responses


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


def _warm_start(fit_items: pd.DataFrame | None, fit_models: pd.DataFrame | None, rows: pd.DataFrame):
    """Previous estimates for the models and items still present (zeros for new ones), or None."""
    if fit_items is None or fit_models is None:
        return None
    data_models = sorted(rows["model"].unique())
    data_items = sorted(rows["item_id"].unique())
    theta = fit_models.set_index("model")["theta"].reindex(data_models).fillna(0.0).to_numpy()
    b = fit_items.set_index("item_id")["b"].reindex(data_items).fillna(0.0).to_numpy()
    return theta, b


def audit_with_history(
    rows: pd.DataFrame,
    table: SourceTable,
    *,
    method: str,
    scale: str,
    reports: Reports,
    cache_dir: Path,
) -> tuple[BenchmarkAudit, str]:
    """Audit one benchmark, calibrating only the new models or items when that is all that changed."""
    name = str(rows["benchmark"].iloc[0])
    items, models = load_table(reports.items(name)), load_table(reports.models(name))
    update = plan_update(load_snapshot(cache_dir, name), rows)
    if method == "map" and update.kind != "refit" and items is not None and models is not None:
        fit = calibrated_fit(rows, update, items, models, n_draws=N_DRAWS)
        how = f"calibrated {len(update.new_models) or len(update.new_items)} new {update.kind.split('-')[1]}"
    else:
        init = _warm_start(items, models, rows) if method == "map" else None
        fit = fit_rasch(encode_responses(rows), method, init=init, n_draws=N_DRAWS)
        how = f"{method} fit" + (" (warm start)" if init is not None else "")
    audit = measure(rows, fit, source=table.location, synthetic=table.synthetic, scale=scale)
    save_snapshot(cache_dir, name, rows)
    return audit, how


def run_job(
    fetch: Callable[[], list[SourceTable]],
    *,
    reports_dir: str | Path,
    site_out: str | Path | None,
    cache_dir: str | Path = ".cache",
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
                audit, how = audit_with_history(
                    rows, table, method=method, scale=scale, reports=reports, cache_dir=Path(cache_dir)
                )
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
                if audit.by_date is not None:
                    write_table(reports.by_date(name), audit.by_date)
                notes.append(f"{name} {how} {time.perf_counter() - t0:.2f}s")
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
