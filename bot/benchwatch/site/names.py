"""The names pages show: a benchmark's configured display name (``display_name`` in its
``[rules.benchmarks."NAME"]`` table), else one made from its source's own naming (Epoch's file ids become the
names Epoch's site gives them), else the benchmark's id as published."""

from __future__ import annotations

from benchwatch.spelling import EPOCH_TITLES, default_display_name  # one spelling for the pages and the run's log

__all__ = ["EPOCH_TITLES", "default_display_name"]


def display_name(rec: dict) -> str:
    """The name a page shows for a record (unescaped)."""
    configured = rec.get("display_name")
    return (
        str(configured)
        if isinstance(configured, str) and configured.strip()
        else default_display_name(str(rec["benchmark"]))
    )


def shown_name(rec: dict) -> str:
    """A record's display name as every page, feed and alert shows it, marked *(synthetic)* where its data are
    the bundled synthetic sample (unescaped)."""
    label = display_name(rec)
    if rec.get("self_reported"):  # the makers' own scores, never to be read as measured ones
        label += " (self-reported)"
    return f"{label} (synthetic)" if rec.get("synthetic") else label


def alert_title(alert: dict, rec: dict | None = None) -> str:
    """An alert's text as a person reads it (unescaped): the benchmark's display name where the stored title
    opens with its id (the id stays in the alert's record and the downloads), marked *(synthetic)* where the
    benchmark is synthetic; ``rec`` is the benchmark's record, when it has one."""
    bench = str(alert["benchmark"])
    rec = {**(rec or {}), "benchmark": bench}
    if alert.get("synthetic"):
        rec["synthetic"] = True
    title = str(alert["title"])
    if title.startswith(bench):
        return shown_name(rec) + title[len(bench) :]
    return f"{shown_name(rec)}: {title}" if rec.get("synthetic") or rec.get("self_reported") else title


def alert_anchor(alert: dict) -> str:
    """The HTML id of an alert's line on the alerts page (stable: made from the alert's id)."""
    from benchwatch.store import safe_slug

    return "alert-" + safe_slug(str(alert["id"]), max_length=80)


def page_name(page_id: str, records: list[dict]) -> str:
    """The display name of a benchmark page (its navigation entry, title and feed's title; unescaped): its own
    record's (``shown_name``) where one of ``records`` has the page's id, else one made from the id, marked
    *(synthetic)* where every record on it is synthetic."""
    for rec in records:
        if rec["benchmark"] == page_id:
            return shown_name(rec)
    synthetic = bool(records) and all(r.get("synthetic") for r in records)
    return shown_name({"benchmark": page_id, "synthetic": synthetic})
