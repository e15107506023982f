"""What a run accumulates while it goes through its sources (``RunState``), what one source would publish
(``Batch``), and the per-benchmark arguments of an audit."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from benchwatch.alerts import diff_alerts, notice_alert
from benchwatch.errors import InputError
from benchwatch.history import Alert, Reports, as_typed, csv_text, load_table, without, written
from benchwatch.metrics import Target
from benchwatch.pipeline.benchmark import public_location
from benchwatch.record import BenchmarkRecord
from benchwatch.rules import (
    RuleBook,
    beta_or_uniform,
    evaluate_flags,
    explain,
    recorded_verdicts,
    retirement,
    threshold_map,
)
from benchwatch.sources import SourceTable
from benchwatch.spelling import default_display_name
from benchwatch.store import content_revision, safe_slug, slug_collisions, snapshot_bytes

# The figures a record holds: bump when an audit of the same data would publish other figures (2: the model-free
# bounds and verdicts of issue 22), so that an unchanged upstream is audited again, once, by the new code.
# 4: chance floors, the fit check and design groups (issue 37); 5: the state from the best evidence (issue 38);
# 6: the spread of discriminations and agreeing samples as nuisances, bounds over them (issue 64)
FIGURES_VERSION = 6
DEFAULT_RULES = RuleBook()


@dataclass
class SourceContext:
    """What every source of a run is audited with, and what the sources report back."""

    log: Callable[[str], None]
    statuses: dict[str, dict]  # source name -> its status in sources.json, updated as each source ends
    strict: bool  # a failing source raises (tests, `audit`) instead of being recorded
    method: str  # the fit: "map" or "nuts"
    sampler: str
    scale: str  # the difficulty axis
    cache: Path  # the downloads' and simulations' cache
    stop_at: float | None  # the run's deadline (time.monotonic()), or None
    outcomes: list[str] = field(default_factory=list)  # "source:fetched", "source:failed", ... for the run log
    published: list = field(default_factory=list)  # callbacks to run once the run is committed


@dataclass
class Batch:
    """What one source would publish; it reaches the run only when the whole source succeeded."""

    records: dict[str, BenchmarkRecord] = field(default_factory=dict)
    new_rows: list = field(default_factory=list)
    new_alerts: list = field(default_factory=list)
    changes: list = field(default_factory=list)
    snapshots: list = field(default_factory=list)  # (benchmark, rows, kind, its bytes if made): last good data
    tables: list = field(default_factory=list)  # (path, frame): per-benchmark tables of reports/
    skipped: list = field(default_factory=list)  # {benchmark, reason}: listed, not published


@dataclass
class RunState:
    """What the job accumulates while it goes through the sources."""

    reports: Reports
    previous: dict[str, BenchmarkRecord]
    records: dict[str, BenchmarkRecord]
    now: str
    force: bool
    rules: RuleBook
    owners: dict[str, str] = field(default_factory=dict)  # benchmark -> the source that produced it this run
    fresh: dict[str, pd.DataFrame] = field(default_factory=dict)  # per-item rows published by this run
    pending_names: set[str] = field(default_factory=set)  # benchmarks of the sources still auditing
    pending_pages: set[str] = field(default_factory=set)  # the pages of their per-item benchmarks
    settle: Callable[[], None] = lambda: None  # finishes the sources still auditing, in order
    files: dict[str, bytes] = field(default_factory=dict)  # per-benchmark tables and snapshots, by path in reports/
    new_rows: list = field(default_factory=list)
    new_alerts: list = field(default_factory=list)
    changes: list = field(default_factory=list)

    def claim(self, names: list[str], source: str, location: str) -> None:
        """Refuse a source that publishes a benchmark another source of this run already published."""
        for name in names:
            owner = self.owners.get(name, source)
            if owner != source:
                raise InputError(
                    location, f"benchmark {name!r} is already published by source {owner!r}; set a `prefix` option"
                )
        for a, b in slug_collisions(set(names) | set(self.records)):
            if a in names or b in names:
                raise InputError(
                    location,
                    f"benchmarks {a!r} and {b!r} would share one file name ({safe_slug(a)}): refused, nothing "
                    "of this source published (rename one upstream or set a `prefix` option)",
                )

    def unchanged(self, name: str, source: str, revision: str, method: str | None, scale: str | None) -> bool:
        before = self.previous.get(name)
        if before is None:
            return False
        moved = before.source_name != source  # a benchmark another source took over: recorded anew
        same = before.revision == revision and not moved
        same = same and not before.rebuilt and not before.refit  # `repair` asks for a refit
        same = same and before.figures_version == FIGURES_VERSION  # figures of an older benchwatch: redone
        return same and (before.method, before.scale) == (method, scale) and not self.force

    def shrunk(self, name: str, n_cells: int) -> str | None:
        """Why a benchmark that lost a large share of its rows since its last snapshot is held back."""
        before = self.previous.get(name)
        old = before.n_cells if before is not None else None
        if not old or name in self.rules.expect_shrink:
            return None
        lost = 1 - n_cells / old
        if lost <= self.rules.max_shrink:
            return None
        return (
            f"lost {lost:.0%} of its rows since the last snapshot ({old:,} -> {n_cells:,}): held back, not "
            f"published (if the shrink is expected, list the benchmark in [rules] expect_shrink)"
        )

    def grew(self, before: BenchmarkRecord | None, fig: BenchmarkRecord) -> str | None:
        """The alert's title when the item count grew by more than [rules] max_growth since the last snapshot."""
        old, new = before.n_items if before is not None else None, fig.n_items
        if not old or not new or new / old - 1 <= self.rules.max_growth:
            return None
        return (
            f"{fig.benchmark}: {old:,} -> {new:,} items since the last snapshot (more than "
            f"{self.rules.max_growth:.0%} growth, [rules] max_growth): check that this is the same benchmark"
        )

    def skip(self, batch: Batch, name: str, reason: str, held_revision: str | None = None) -> None:
        """List a benchmark that is not published this run; held data also raises an alert (once per revision)."""
        batch.skipped.append({"benchmark": name, "reason": reason})
        before = self.previous.get(name)
        if held_revision is not None:
            title = f"{name}: new data {reason.split(':')[0]}, held back"
            batch.new_alerts.append(notice_alert("held", name, held_revision, self.now, title))
        if before is not None:
            batch.records[name] = before.model_copy(update={"notice": reason})

    def record(self, batch: Batch, fig: BenchmarkRecord, source: str, change: dict | None, page: str | None) -> None:
        """Flags, alerts and history for one benchmark's new figures."""
        name = fig.benchmark
        before = self.previous.get(name)
        same = before is not None and before.revision == fig.revision
        fig = self.judged(fig, before, source, page)
        batch.records[name] = fig
        batch.new_alerts += diff_alerts(before, fig, self.now)
        grown = self.grew(before, fig) if not same else None
        if grown:
            batch.new_alerts.append(notice_alert("grew", name, fig.revision, self.now, grown))
        if not same:
            batch.new_rows.append({**written(fig), "flags": " ".join(fig.flags)})
            if change is not None and change.get("upstream"):
                title = f"{name}: {change['upstream']}"
                batch.new_alerts.append(notice_alert("rescored", name, fig.revision, self.now, title))
            if change is not None:
                batch.changes.append(
                    {
                        "snapshot_at": self.now,
                        "source": source,
                        "benchmark": name,
                        "revision": fig.revision,
                        **change,
                    }
                )

    def judged(
        self, fig: BenchmarkRecord, before: BenchmarkRecord | None, source: str, page: str | None
    ) -> BenchmarkRecord:
        """A benchmark's new figures with what the rules make of them against its record ``before`` (flags,
        verdicts, why, retirement: with the hysteresis of its flags) and where it is published."""
        name = fig.benchmark
        same = before is not None and before.revision == fig.revision
        prior = before.prior_state if same and before is not None else (before.state if before is not None else None)
        flags = set(before.flags or []) if before is not None else set()
        thresholds = self.rules.thresholds_for(name)
        raised = evaluate_flags(fig, flags, prior, thresholds)
        shown = self.rules.name_for(name)
        update = {
            "prior_state": prior,
            "figures_version": FIGURES_VERSION,
            "flags": raised,
            "verdicts": recorded_verdicts(fig, thresholds, flags),
            "why": explain(fig, raised, flags, prior, thresholds),
            "retirement": retirement(fig, prior)[1],
            "snapshot_at": before.snapshot_at if same and before is not None else self.now,
            "source_name": source,
            "page": self.rules.page_for(name, page),
            **({"display_name": shown} if shown else {}),
        }
        return fig.model_copy(update=update)

    def carry(self, batch: Batch, name: str) -> None:
        """An unchanged benchmark keeps its record, without a notice of an earlier run."""
        before = self.previous[name]
        if {"notice", "gone_since"} & before.model_fields_set:
            batch.records[name] = without(before, "notice", "gone_since")

    def mark_gone(self, batch: Batch, source: str, produced: set[str]) -> list[str]:
        """Benchmarks this source published before and no longer has: kept, marked gone, alerted once."""
        gone = []
        for name, before in sorted(self.previous.items()):
            if before.source_name != source or name in produced:
                continue
            if self.owners.get(name, source) != source:  # another source of this run published it: moved
                title = f"{name} is now read from source {self.owners[name]} (before: {source})"
                batch.new_alerts.append(notice_alert("moved", name, before.revision or "", self.now, title))
                continue
            gone.append(name)
            if before.gone_since:
                continue
            update = {"gone_since": self.now, "notice": "no longer published upstream"}
            batch.records[name] = before.model_copy(update=update)
            title = f"{name} is no longer published by its source {source}"
            batch.new_alerts.append(notice_alert("gone", name, before.revision or "", self.now, title))
        return gone

    def moved(self, statuses: dict[str, dict]) -> None:
        """A benchmark that one source stopped publishing and another published in the same run has moved (a source
        that continues another's files in a new format: all-the-noises after eval-arena): its history goes on under
        its name. Where the first source ran first it raised a "gone" alert (``mark_gone`` could not know): that
        becomes the "moved" notice ``mark_gone`` raises where the other ran first, and its status no longer lists
        it as gone."""
        for n, entry in enumerate(self.new_alerts):
            alert = as_typed(Alert, entry)
            name = alert.benchmark
            if alert.kind != "gone" or name not in self.records or name not in self.previous:
                continue
            now, old = self.records[name], self.previous[name].source_name
            if now.gone_since or now.source_name in (None, old):
                continue
            title = f"{name} is now read from source {now.source_name} (before: {old})"
            self.new_alerts[n] = notice_alert("moved", name, now.revision or "", self.now, title)
            if old in statuses and name in statuses[old].get("gone", []):
                statuses[old]["gone"] = [g for g in statuses[old]["gone"] if g != name]

    def commit(self, batch: Batch, source: str, names: list[str]) -> None:
        """Publish what a source that succeeded produced (its files are written with the reports)."""
        for name in names:
            self.owners.setdefault(name, source)
        self.records.update(batch.records)
        self.new_rows += batch.new_rows
        self.new_alerts += batch.new_alerts
        self.changes += batch.changes
        root = self.reports.root
        for path, frame in batch.tables:
            self.files[str(path.relative_to(root))] = csv_text(frame).encode("utf-8")
        for bench, rows, kind, data in batch.snapshots:
            self.files[str(self.reports.snapshot(bench, kind).relative_to(root))] = (
                snapshot_bytes(rows) if data is None else data
            )
            if kind == "responses":
                self.fresh[bench] = rows


def gate(run: RunState, batch: Batch, name: str, rows: pd.DataFrame, unfit: str | None) -> str | None:
    """The log note of a benchmark that is not published this run (cannot be audited, or shrank), or None."""
    if unfit:
        run.skip(batch, name, unfit)
        return f"{logged_name(run.rules, name)} skipped: {unfit}"
    held = run.shrunk(name, len(rows))
    if held:
        run.skip(batch, name, held, content_revision(rows))
        return f"{logged_name(run.rules, name)} HELD: {held}"
    return None


def logged_name(rules: RuleBook, name: str) -> str:
    """A benchmark as the run's log names it: its configured display name (``display_name`` of its
    ``[rules.benchmarks."NAME"]`` table), else the readable name made from its source's ids, as its page shows it."""
    return rules.name_for(name) or default_display_name(name)


def as_of(prov: dict, tables: list[pd.DataFrame]) -> dict:
    """How current a source's data is by its own dates: the upstream's date (the server's Last-Modified or the
    configuration's ``as_of``), else the newest publication date in the data, else nothing known."""
    if prov.get("upstream_date"):
        return {"as_of": str(prov["upstream_date"]), "as_of_from": "upstream"}
    dates = [t["date"].max() for t in tables if "date" in t.columns and t["date"].notna().any()]
    if dates:
        return {"as_of": pd.Timestamp(max(dates)).strftime("%Y-%m-%d"), "as_of_from": "newest dated result"}
    return {"as_of": None, "as_of_from": None}


def provenance_of(fig: BenchmarkRecord, table: SourceTable, rows: pd.DataFrame) -> BenchmarkRecord:
    """A record with its size in rows, its data's origin (the bundled file's, or the URL) and its excluded
    models."""
    prov = table.provenance
    origin = str(prov.get("origin") or prov.get("url") or table.location)
    update = {
        "n_cells": len(rows),
        "origin": origin if prov.get("origin") else public_location(origin),
        "excluded": [e for e in table.excluded if e.get("benchmark") == fig.benchmark],
    }
    if prov.get("licence"):
        update["licence"] = str(prov["licence"])
    if prov.get("self_reported"):  # the makers' own reports: marked wherever the record is shown
        update["self_reported"] = True
    return fig.model_copy(update=update)


def target_of(run: RunState, name: str) -> Target:
    """The benchmark's target distribution; another benchmark's z comes from its items in the reports."""
    spec = run.rules.target_spec(name)
    if "benchmark" not in spec:
        return beta_or_uniform(spec)
    items = load_table(run.reports.items(spec["benchmark"]))
    if items is None:
        raise InputError(name, f"target benchmark {spec['benchmark']!r} has no item difficulties in the reports yet")
    return Target.empirical(items["z"].to_numpy())


def with_chance(rows: pd.DataFrame, table: SourceTable, rules, name: str) -> tuple[pd.DataFrame, str | None]:
    """A benchmark's rows with their chance floors, and where those came from in words: the data's own (the
    format's options, or a ``chance`` column) win; else the configuration's (the benchmark's ``chance`` in
    ``[rules.benchmarks]``, else its source's), written into the rows so that the revision changes with it;
    else none (an open-ended benchmark)."""
    from benchwatch.sources import configured_chance

    if "chance" in rows.columns and rows["chance"].notna().any():
        return rows, table.chance_from or "a chance column in the data"
    source = {"chance": table.provenance["chance"]} if "chance" in table.provenance else {}
    configured = configured_chance(source, rules, name)
    if configured is None:
        return rows, None
    value, words = configured
    return (rows.assign(chance=value), words) if value > 0 else (rows, None)


def audit_args(
    run: RunState,
    table: SourceTable,
    ctx: SourceContext,
    name: str,
    rows: pd.DataFrame,
    pool_rows,
    chance_from: str | None = None,
) -> dict:
    return {
        "rows": rows,
        "table": table,
        "method": ctx.method,
        "sampler": ctx.sampler,
        "scale": ctx.scale,
        "reports": run.reports,
        "cache_dir": ctx.cache,
        "target": target_of(run, name),
        "ceiling": run.rules.ceiling_for(name),
        "thresholds": threshold_map(run.rules.thresholds_for(name)),
        "pool_rows": pool_rows,
        "chance_from": chance_from,
    }
