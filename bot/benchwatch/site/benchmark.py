"""A benchmark's page (``benchmark.md.j2``) and the *Also* sections of its other records: the tables of
its tiers, top models, figures by date, snapshots, changes and alerts.

The pages are rendered from the records in ``reports/`` through the templates of
``bot/benchwatch/site/templates/`` (``benchwatch.site.render``): the page modules prepare the values and
format the cells (every upstream string escaped), the templates lay out the Markdown."""

from __future__ import annotations

import html

import pandas as pd

from benchwatch.history import Alert, Change
from benchwatch.record import BenchmarkRecord
from benchwatch.site.cells import (
    WITHHELD_CELL,
    bounds_withheld,
    csv_count,
    csv_float,
    name_cell,
    short_revision,
    state_cell,
    with_band,
)
from benchwatch.site.escape import md, printable
from benchwatch.site.figures import section_context, section_helpers
from benchwatch.site.fill import PLAN_COLUMNS, plan_rows
from benchwatch.site.names import alert_title, page_name, shown_name
from benchwatch.site.numbers import fmt, pct
from benchwatch.site.paths import benchmark_feed, plot_path
from benchwatch.site.render import render
from benchwatch.site.verdict import verdict_line
from benchwatch.store import safe_slug


def _difficulty_alt(rec: BenchmarkRecord) -> str:
    return html.escape(
        f"Every item of {printable(shown_name(rec))} on the difficulty axis z, the stretches shown thin and the "
        "widest one that may be empty marked, and the items' empirical CDF against the target's"
    )


RECENT_ROWS = 8  # rows of a long table shown; older ones wait behind a collapsed block


TIER_ROWS = 15  # models shown before the rest of the tiers table collapses


TIER_COLUMNS = [("Rank by score", "r"), ("Model", "l"), ("Score", "r"), ("95% interval of rank", "r")]


TIER_COLUMNS.append(("Tier", "r"))


def _tier_rows(rec: BenchmarkRecord, models: pd.DataFrame | None) -> list[list[str]] | None:
    """Every tiered model, best first, with its tier and rank interval (both from the tiers' tests) and its note
    (few items, or every item alike); None where the record has no tiers."""
    if not rec.tier_method or models is None or "tier" not in models.columns:
        return None
    table = models.dropna(subset=["tier"]).sort_values("score", ascending=False)
    return [
        [
            str(n),
            md(r.model) + (f" ({md(r.note)})" if isinstance(getattr(r, "note", None), str) and r.note else ""),
            pct(csv_float(r.score)),
            f"{int(r.rank_lo)} – {int(r.rank_hi)}",
            str(int(r.tier)),
        ]
        for n, r in enumerate(table.itertuples(), 1)
    ]


TOP_COLUMNS = [("Rank", "r"), ("Model", "l"), ("Score", "r"), ("95% interval", "r")]


BY_DATE_COLUMNS = [("Date", "l"), ("Models", "r"), ("Saturation index", "r"), ("State", "l")]


BY_DATE_COLUMNS += [("Top-1", "r"), ("Top-5", "r"), ("DDM (model-based)", "r"), ("Max Gap (model-based)", "r")]


BY_DATE_COLUMNS += [("Top tier", "r")]


HISTORY_COLUMNS = [("Snapshot", "l"), ("Revision", "l"), ("DDM (model-based)", "r"), ("Max Gap (model-based)", "r")]


HISTORY_COLUMNS += [("Saturation index", "r"), ("State", "l")]


CHANGED = ("models_added", "models_removed", "models_rescored", "items_added", "items_removed", "items_rescored")


def _model_based(value: str | float | None, withheld: bool) -> str:
    """A model-based coverage figure in a table of the page: withheld wherever the page withholds it (its item
    model does not fit these data), history included."""
    return WITHHELD_CELL if withheld else fmt(csv_float(value))


def _by_date_rows(by_date: pd.DataFrame | None, withheld: bool = False) -> list[list[str]]:
    """The figures at each model publication date, newest first."""
    if by_date is None or by_date.empty:
        return []
    rows = [
        [
            md(r.date),
            str(r.n_models),
            with_band(csv_float(r.saturation_index), r.band),
            md(r.state),
            pct(csv_float(r.top1)),
            pct(csv_float(r.top5)),
            _model_based(r.ddm, withheld),
            _model_based(r.max_gap, withheld),
            csv_count(getattr(r, "top_tier_size", None)),
        ]
        for r in by_date.itertuples()
    ]
    return rows[::-1]


def _snapshots(rec: BenchmarkRecord, history: pd.DataFrame) -> pd.DataFrame:
    """The benchmark's snapshots in the history (its rows), oldest first."""
    return history[history["benchmark"] == rec.benchmark]


def _history_rows(rec: BenchmarkRecord, history: pd.DataFrame) -> list[list[str]]:
    """The benchmark's snapshots in the history, newest first."""
    withheld = bounds_withheld(rec)
    rows = [
        [
            md(r.snapshot_at),
            short_revision(r.revision),
            _model_based(r.ddm, withheld),
            _model_based(r.max_gap, withheld),
            fmt(csv_float(r.saturation_index)),
            md(r.state),
        ]
        for r in _snapshots(rec, history).itertuples()
    ]
    return rows[::-1]


def _changes(rec: BenchmarkRecord, changes: list[Change] | None) -> list[tuple[str, str, list[tuple[str, list[str]]]]]:
    """The changelog of the benchmark, newest first: (when, what changed in words, the models named)."""
    out = []
    for change in reversed([c for c in (changes or []) if c.benchmark == rec.benchmark]):
        counted = {k: getattr(change, k) for k in CHANGED}  # each a count and names, or None where not recorded
        parts = [f"{v['count']} {k.replace('_', ' ')}" for k, v in counted.items() if v is not None and v["count"]]
        named = [
            (k.replace("_", " "), counted[k]["names"])
            for k in ("models_removed", "models_rescored")
            if counted[k] is not None and counted[k]["names"]
        ]
        words = ", ".join(parts) or "no model or item changed"
        if change.upstream:  # the source's own word: a rescoring, not progress
            words += f"; {change.upstream}"
        out.append((change.snapshot_at, words, named))
    return out


def _top_rows(rec: BenchmarkRecord) -> list[list[str]]:
    return [
        [
            str(i),
            md(m["model"]),
            pct(m["score"]),
            "" if m.get("lo") is None else f"{pct(m['lo'])} – {pct(m.get('hi'))}",
        ]
        for i, m in enumerate(rec.top_models, 1)
    ]


def _mine(rec: BenchmarkRecord, alerts: list[Alert]) -> list[Alert]:
    """The record's alerts, newest first, each titled as a person reads it (``alert_title``)."""
    return [a.model_copy(update={"title": alert_title(a, rec)}) for a in alerts if a.benchmark == rec.benchmark][::-1]


def benchmark_body(
    rec: BenchmarkRecord,
    history: pd.DataFrame,
    alerts: list[Alert],
    by_date: pd.DataFrame | None = None,
    changes: list[Change] | None = None,
    items: pd.DataFrame | None = None,
    page_id: str | None = None,
    plan: list[dict] | None = None,
    models: pd.DataFrame | None = None,
    group: list[BenchmarkRecord] | None = None,
) -> str:
    """One benchmark's page (its main record; ``also_section`` adds the others of its benchmark id, ``group``: every
    record of the page, named side by side at its top)."""
    page_id = page_id or rec.benchmark
    return render(
        "benchmark.md.j2",
        section_helpers(),
        **section_context(),
        rec=rec,
        verdict=verdict_line(rec),
        side_columns=SIDE_COLUMNS,
        side_rows=side_rows(group or [rec]),
        page_id=page_id,
        feed=benchmark_feed(page_id),
        title=md(page_name(page_id, [rec])),
        feed_title=page_name(page_id, [rec]),
        left_out=[f"{md(m['model'])} ({md(m['why'])})" for m in rec.uninformative or []],
        # raw HTML is not rewritten by MkDocs: relative to the page's address (benchmarks/SLUG/), not its file
        difficulty_src="../../" + plot_path(rec.benchmark, "difficulty"),
        difficulty_alt=_difficulty_alt(rec),
        plan_columns=PLAN_COLUMNS,
        plan_rows=plan_rows(plan),
        tier_columns=TIER_COLUMNS,
        tier_rows=_tier_rows(rec, models),
        tier_shown=TIER_ROWS,
        top_tier=rec.top_tier_size or 0,
        top_columns=TOP_COLUMNS,
        top_rows=_top_rows(rec),
        recent=RECENT_ROWS,
        by_date_columns=BY_DATE_COLUMNS,
        by_date_rows=_by_date_rows(by_date, bounds_withheld(rec)),
        history_columns=HISTORY_COLUMNS,
        history_rows=_history_rows(rec, history),
        changes=_changes(rec, changes),
        slug=safe_slug(rec.benchmark),
        alerts=_mine(rec, alerts),
    )


SIDE_COLUMNS = [("Record", "l"), ("Source", "l"), ("Data", "l"), ("Models", "r"), ("State", "l")]


def side_rows(group: list[BenchmarkRecord]) -> list[list[str]]:
    """Every record of one page, side by side: its name, source, kind, models and state (cells escaped; each
    record's flags, with why, are in its own section)."""
    rows = []
    for r in group:
        kind = "scores" if r.kind == "aggregate" else "per item"
        models = "–" if r.n_models is None else str(r.n_models)
        rows.append([name_cell(r), md(r.source_name or r.source), kind, models, state_cell(r)])
    return rows


def also_section(rec: BenchmarkRecord, history: pd.DataFrame, alerts: list[Alert]) -> str:
    """Another record of the same benchmark id: a board of published scores, or a second per-item fit."""
    snapshots = len(_snapshots(rec, history))
    return render(
        "also.md.j2", section_helpers(), **section_context(), rec=rec, alerts=_mine(rec, alerts), snapshots=snapshots
    )
