"""What the site is built from, read from ``reports/`` and typed once, here: each benchmark's record as a
``BenchmarkRecord``, each alert, change and source's status as its class of ``benchwatch.history.records``. The
pages below read them by attribute (a misspelt field is mypy's error, and an ``AttributeError``, never a silent
``None``)."""

from __future__ import annotations

from pathlib import Path

from benchwatch.history import (
    Alert,
    Change,
    Reports,
    SourceStatus,
    as_typed,
    load_alerts,
    load_changelog,
    load_history,
    load_latest,
    load_sources,
    page_groups,
)
from benchwatch.record import BenchmarkRecord
from benchwatch.site.pages import PageInputs


def shown_records(reports: Reports) -> tuple[dict[str, BenchmarkRecord], dict[str, list[BenchmarkRecord]]]:
    """The records with figures to show, typed, by name and by page (``page_groups``'s order): not the bare ones
    ``benchwatch repair`` rebuilt until their refit."""
    records = {name: rec for name, rec in load_latest(reports).items() if not rec.rebuilt}
    return records, page_groups(records)


def page_inputs(reports: Reports, docs: Path, site_url: str, deferred: bool = False) -> PageInputs:
    """What every benchmark page is written from, read from the reports folder."""
    records, groups = shown_records(reports)
    alerts = [as_typed(Alert, alert) for alert in load_alerts(reports)]
    history = load_history(reports)
    changes = [as_typed(Change, change) for change in load_changelog(reports)]
    return PageInputs(reports, docs, site_url, records, history, alerts, changes, groups, deferred)


def source_statuses(reports: Reports) -> dict[str, SourceStatus]:
    """Every source's last attempt (``sources.json``), by name, typed."""
    return {name: as_typed(SourceStatus, status) for name, status in load_sources(reports).items()}
