"""The sources' table (``_sources.md.j2``, on the home page): each source's freshness, failure and
what it left out.

The pages are rendered from the records in ``reports/`` through the templates of
``bot/benchwatch/site/templates/`` (``benchwatch.site.render``): the page modules prepare the values and
format the cells (every upstream string escaped), the templates lay out the Markdown."""

from __future__ import annotations

import re

import pandas as pd

from benchwatch.history import SourceStatus
from benchwatch.site.cells import helpers, short_revision
from benchwatch.site.escape import md
from benchwatch.site.render import render


def _source_link(name: str, page: object) -> str:
    """A source's name, linked to the leaderboard page a person reads when the configuration names one."""
    if isinstance(page, str) and re.fullmatch(r"https?://[^\s\"'<>()\\]+", page):
        return f"[{md(name)}]({page})"
    return md(name)


STALE_DAYS = 180  # an upstream unchanged this long says so


def _as_of_cell(status: SourceStatus, now: str | None) -> str:
    """A source's "as of": its date, what the date is, and how long ago it was when it is long."""
    when = status.as_of
    if not isinstance(when, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", when):
        return "not stated upstream"
    what = "upstream date" if status.as_of_from == "upstream" else "newest dated result"
    cell = f'<span class="bw-as-of" title="{what}">{when}</span>'
    if now:
        days = (pd.Timestamp(now[:10]) - pd.Timestamp(when)).days
        if days >= STALE_DAYS:
            months = days // 30
            long_ago = f"unchanged upstream for {months} months" if what == "upstream date" else f"{months} months old"
            cell += f" ({long_ago})"
    return cell


def _source_rows(sources: dict[str, SourceStatus], now: str | None) -> list[list[str]]:
    rows = []
    for name in sorted(sources):
        s = sources[name]
        status = "ok" if s.status == "ok" else f"**failed** since {md(s.failed_since)}: {md(s.error)}"
        since = md((s.data_since or "–")[:10])
        if s.bundled and s.status == "ok":  # shipped with benchwatch: never fetched
            status, since = "bundled (no network)", f"bundled copy of {md(s.bundled)}"
        rows.append([_source_link(name, s.homepage), status, _as_of_cell(s, now), since, short_revision(s.revision)])
    return rows


def sources_context(sources: dict[str, SourceStatus], now: str | None) -> dict:
    """What the sources' table (``_sources.md.j2``) is rendered from: the sources, their rows, and what each left
    out (its skipped benchmarks, and those gone upstream), with the reason."""
    listed = [
        (name, item)
        for name in sorted(sources)
        for item in [
            *(sources[name].skipped or []),
            *({"benchmark": g, "reason": "gone upstream"} for g in sources[name].gone or []),
        ]
    ]
    return {"sources": sources, "source_rows": _source_rows(sources, now), "listed": listed}


def sources_section(sources: dict[str, SourceStatus], now: str | None) -> str:
    """One line per source: freshness of its last good data and any failure; then what each left out."""
    return render("_sources.md.j2", helpers(), **sources_context(sources, now))
