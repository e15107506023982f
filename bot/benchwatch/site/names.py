"""The names pages show: a benchmark's configured display name (``display_name`` in its
``[rules.benchmarks."NAME"]`` table), else one made from its source's own naming (Epoch's file ids become the
names Epoch's site gives them), else the benchmark's id as published."""

from __future__ import annotations

from benchwatch.history import Alert
from benchwatch.record import BenchmarkRecord, as_record
from benchwatch.spelling import EPOCH_TITLES, default_display_name  # one spelling for the pages and the run's log

__all__ = ["EPOCH_TITLES", "default_display_name"]


def display_name(rec: BenchmarkRecord) -> str:
    """The name a page shows for a record (unescaped)."""
    configured = rec.display_name
    return configured if isinstance(configured, str) and configured.strip() else default_display_name(rec.benchmark)


def shown_name(rec: BenchmarkRecord) -> str:
    """A record's display name as every page, feed and alert shows it, marked *(synthetic)* where its data are
    the bundled synthetic sample (unescaped)."""
    label = display_name(rec)
    if rec.self_reported:  # the makers' own scores, never to be read as measured ones
        label += " (self-reported)"
    return f"{label} (synthetic)" if rec.synthetic else label


def alert_title(alert: Alert, rec: BenchmarkRecord | None = None) -> str:
    """An alert's text as a person reads it (unescaped): the benchmark's display name where the stored title
    opens with its id (the id stays in the alert's record and the downloads), marked *(synthetic)* where the
    benchmark is synthetic; ``rec`` is the benchmark's record, when it has one."""
    bench = alert.benchmark
    named = (rec or as_record({})).model_copy(update={"benchmark": bench})
    title = alert.title
    if title.startswith(bench):
        return shown_name(named) + title[len(bench) :]
    return f"{shown_name(named)}: {title}" if named.synthetic or named.self_reported else title


def alert_anchor(alert: Alert) -> str:
    """The HTML id of an alert's line on the alerts page (stable: made from the alert's id)."""
    from benchwatch.store import safe_slug

    return "alert-" + safe_slug(alert.id, max_length=80)


def page_name(page_id: str, records: list[BenchmarkRecord]) -> str:
    """The display name of a benchmark page (its navigation entry, title and feed's title; unescaped): its own
    record's (``shown_name``) where one of ``records`` has the page's id, else one made from the id, marked
    *(synthetic)* where every record on it is synthetic."""
    for rec in records:
        if rec.benchmark == page_id:
            return shown_name(rec)
    synthetic = bool(records) and all(r.synthetic for r in records)
    return shown_name(as_record({"benchmark": page_id, "synthetic": synthetic}))
