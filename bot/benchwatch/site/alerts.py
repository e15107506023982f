"""The alerts page (``alerts.md.j2``): every alert as one line per event, grouped by benchmark and kind.

The pages are rendered from the records in ``reports/`` through the templates of
``bot/benchwatch/site/templates/`` (``benchwatch.site.render``): the page modules prepare the values and
format the cells (every upstream string escaped), the templates lay out the Markdown."""

from __future__ import annotations

from typing import NamedTuple

from benchwatch.history import Alert
from benchwatch.record import BenchmarkRecord, as_record
from benchwatch.site.cells import helpers, name_cell
from benchwatch.site.escape import md
from benchwatch.site.names import alert_anchor, alert_title
from benchwatch.site.paths import page_of
from benchwatch.site.render import render

ALERT_KINDS = {"state": "state", "raised": "flag raised", "cleared": "flag cleared", "model": "item model"}


class AlertEvent(NamedTuple):
    """One line of the alerts page: the alert it shows and its kind, in words."""

    alert: Alert
    kind: str


def _to_stagnant(alert: Alert) -> bool:
    """Whether an alert is a benchmark's move to *stagnant* (which raises its *watch*)."""
    return alert.kind == "state" and alert.to == "stagnant"


def _watch_raised(alert: Alert) -> bool:
    """Whether an alert is a *watch* raised (one event with its move to *stagnant*, where it has one)."""
    return alert.kind == "raised" and alert.flag == "watch"


def alert_events(alerts: list[Alert]) -> list[AlertEvent]:
    """The alerts as events, one per line of the alerts page: a benchmark's *watch* raised with its move to
    *stagnant* (the flag says what the state says) is one event, the state's; sorted by benchmark, kind and
    newest first."""
    stagnant = {(a.benchmark, a.revision) for a in alerts if _to_stagnant(a)}
    events = []
    for a in alerts:
        if _watch_raised(a) and (a.benchmark, a.revision) in stagnant:
            continue
        kind = ALERT_KINDS.get(a.kind, a.kind or "notice")
        events.append(AlertEvent(a, "state (watch raised)" if _to_stagnant(a) else kind))
    events.sort(key=lambda e: (e.alert.raised_at, e.alert.id), reverse=True)
    return sorted(events, key=lambda e: (e.alert.benchmark, e.kind))


def alerts_page(alerts: list[Alert], records: dict[str, BenchmarkRecord] | None = None) -> str:
    """Every alert as one line per event, grouped by benchmark and kind, with filters."""
    records = records or {}
    rows = []
    for a, kind in alert_events(alerts):
        rec = records.get(a.benchmark)
        # an id for each alert the line stands for (a folded *watch* is its state's line): the feeds link here
        ids = [alert_anchor(a), *(alert_anchor(x) for x in alerts if _folded_into(x, a))]
        spans = "".join(f'<span id="{i}"></span>' for i in dict.fromkeys(ids))
        title = md(alert_title(a, rec))
        # an alert about no published benchmark (the reports themselves, or a benchmark since lost) links nowhere:
        # its name is the one its id makes
        named = (
            name_cell(as_record({"benchmark": a.benchmark})) if rec is None else f"[{name_cell(rec)}]({page_of(rec)})"
        )
        rows.append([a.raised_at[:10] + spans, named, md(kind), title])
    return render("alerts.md.j2", helpers(), any_alerts=bool(alerts), rows=rows)


def _folded_into(alert: Alert, event: Alert) -> bool:
    """Whether ``alert`` is a *watch* raised that the alerts page shows as ``event``, its move to stagnant."""
    same = (alert.benchmark, alert.revision) == (event.benchmark, event.revision)
    return same and _watch_raised(alert) and _to_stagnant(event)
