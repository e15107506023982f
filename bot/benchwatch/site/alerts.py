"""The alerts page (``alerts.md.j2``): every alert as one line per event, grouped by benchmark and kind.

The pages are rendered from the records in ``reports/`` through the templates of
``bot/benchwatch/site/templates/`` (``benchwatch.site.render``): the page modules prepare the values and
format the cells (every upstream string escaped), the templates lay out the Markdown."""

from __future__ import annotations

from benchwatch.site.cells import helpers, name_cell
from benchwatch.site.escape import md
from benchwatch.site.names import alert_anchor, alert_title
from benchwatch.site.paths import page_of
from benchwatch.site.render import render

ALERT_KINDS = {"state": "state", "raised": "flag raised", "cleared": "flag cleared", "model": "item model"}


def alert_events(alerts: list[dict]) -> list[dict]:
    """The alerts as events, one per line of the alerts page: a benchmark's *watch* raised with its move to
    *stagnant* (the flag says what the state says) is one event, the state's; sorted by benchmark, kind and
    newest first."""
    stagnant = {
        (a["benchmark"], a.get("revision")) for a in alerts if a.get("kind") == "state" and a.get("to") == "stagnant"
    }
    events = []
    for a in alerts:
        folded = a.get("kind") == "raised" and a.get("flag") == "watch"
        if folded and (a["benchmark"], a.get("revision")) in stagnant:
            continue
        kind = ALERT_KINDS.get(str(a.get("kind")), str(a.get("kind") or "notice"))
        if a.get("kind") == "state" and a.get("to") == "stagnant":
            kind = "state (watch raised)"
        events.append({**a, "event_kind": kind})
    events.sort(key=lambda a: (a["raised_at"], a["id"]), reverse=True)
    return sorted(events, key=lambda a: (a["benchmark"], a["event_kind"]))


def alerts_page(alerts: list[dict], records: dict[str, dict] | None = None) -> str:
    """Every alert as one line per event, grouped by benchmark and kind, with filters."""
    records = records or {}
    rows = []
    for a in alert_events(alerts):
        rec = records.get(a["benchmark"])
        # an id for each alert the line stands for (a folded *watch* is its state's line): the feeds link here
        ids = [alert_anchor(a), *(alert_anchor(x) for x in alerts if _folded_into(x, a))]
        spans = "".join(f'<span id="{i}"></span>' for i in dict.fromkeys(ids))
        title = md(alert_title(a, rec))
        # an alert about no published benchmark (the reports themselves, or a benchmark since lost) links nowhere
        named = name_cell(a) if rec is None else f"[{name_cell(rec)}]({page_of(rec)})"
        rows.append([a["raised_at"][:10] + spans, named, md(a["event_kind"]), title])
    return render("alerts.md.j2", helpers(), any_alerts=bool(alerts), rows=rows)


def _folded_into(alert: dict, event: dict) -> bool:
    """Whether ``alert`` is a *watch* raised that the alerts page shows as ``event``, its move to stagnant."""
    same = (alert["benchmark"], alert.get("revision")) == (event["benchmark"], event.get("revision"))
    folded = alert.get("kind") == "raised" and alert.get("flag") == "watch"
    return same and folded and event.get("kind") == "state" and event.get("to") == "stagnant"
