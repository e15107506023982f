"""The audit job: sources -> store -> irt -> metrics -> rules/alerts -> reports -> site."""

from __future__ import annotations

import dataclasses
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePath
from typing import TYPE_CHECKING

import pandas as pd
from filelock import FileLock, Timeout

from bot.alerts import diff_alerts, notice_alert
from bot.errors import BusyError, InputError
from bot.history import (
    Reports,
    append_changelog,
    append_history,
    append_run,
    csv_text,
    load_alerts,
    load_changelog,
    load_history,
    load_latest,
    load_runs,
    load_snapshot,
    load_sources,
    load_table,
    read_table,
    write_alerts,
    write_latest,
    write_sources,
)
from bot.irt import DEFAULT_SCALE
from bot.metrics import UNIFORM, Target
from bot.pipeline.joint import joint_rows
from bot.pipeline.pages import compare_pages
from bot.progress import Progress
from bot.rules import RuleBook, beta_or_uniform, evaluate_flags, explain, recorded_verdicts, retirement, threshold_map
from bot.sources import SourceTable
from bot.store import (
    content_revision,
    diff_snapshots,
    safe_slug,
    slug_collisions,
    snapshot_bytes,
    validate_aggregates,
    validate_responses,
)
from bot.words import count

if TYPE_CHECKING:
    from bot.pipeline.audit import BenchmarkAudit

# The audit's modules (the fit, the figures, numba's kernels) are imported by the functions that audit: an
# unchanged run compares revisions and loads none of them.
LOCK_NAME = ".benchwatch.lock"
# The figures a record holds: bump when an audit of the same data would publish other figures (2: the model-free
# bounds and verdicts of issue 22), so that an unchanged upstream is audited again, once, by the new code.
FIGURES_VERSION = 3
DEFAULT_RULES = RuleBook()


@dataclass(frozen=True)
class JobResult:
    """What one run of the job did."""

    benchmarks: int
    new_snapshots: int
    alerts: int
    pages: int
    sources_ok: int = 0
    sources_failed: int = 0


def phase(name: str) -> None:
    """A boundary between two phases of a run: fetch, fit, snapshot save, staging, run log, commit swap, site
    build, site swap. Nothing happens here; the kill tests stop a run at each of them."""


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
    sampler: str = "auto",
    cache_dir: Path,
    target: Target = UNIFORM,
    ceiling: float = 1.0,
    thresholds: dict[str, float] | None = None,
    pool_rows: pd.DataFrame | None = None,
    progress: Callable[[str], None] = lambda _text: None,
) -> tuple[BenchmarkAudit, str]:
    """Audit one benchmark, calibrating only the new models or items when that is all that changed (the models
    answering every item alike are left out of the fit; too few informative models give scores only).
    ``pool_rows``: other benchmarks' responses on its items (``bot.pipeline.joint``), fitted with its own; such a
    benchmark is refitted whole."""
    from bot.irt import encode_responses, fit_rasch
    from bot.pipeline.audit import FLOOR_CACHE_ENV, floor_cache, measure, scores_only, split_uninformative, too_few
    from bot.pipeline.incremental import calibrated_fit, plan_update

    name = str(rows["benchmark"].iloc[0])
    both = rows if pool_rows is None else pd.concat([rows, pool_rows], ignore_index=True)
    fitted, uninformative = split_uninformative(both)
    uninformative = [u for u in uninformative if u["model"] in set(rows["model"])]
    reason = too_few(fitted)
    if reason is not None:
        audit = scores_only(
            rows,
            reason,
            source=_public(table.location),
            synthetic=table.synthetic,
            scale=scale,
            ceiling=ceiling,
            uninformative=uninformative,
        )
        return audit, "scores only"
    items, models = load_table(reports.items(name)), load_table(reports.models(name))
    models = models.dropna(subset=["theta"]) if models is not None and "theta" in models.columns else None
    update = plan_update(load_snapshot(reports, name), rows)
    joint = pool_rows is not None
    if method == "map" and not joint and update.kind != "refit" and items is not None and models is not None:
        fit = calibrated_fit(fitted, update, items, models)
        how = f"calibrated {len(update.new_models) or len(update.new_items)} new {update.kind.split('-')[1]}"
    else:
        init = _warm_start(items, models, fitted) if method == "map" and not joint else None
        progress(f"{method} fit")
        fit = fit_rasch(encode_responses(fitted), method, init=init, sampler=sampler)
        how = f"{method} fit" + (" (warm start)" if init is not None else "")
        if joint:
            how += f" with {pool_rows['model'].nunique()} models of its page's other sources"
    audit = measure(
        rows,
        fit,
        source=_public(table.location),
        synthetic=table.synthetic,
        scale=scale,
        target=target,
        ceiling=ceiling,
        cache=floor_cache(os.environ.get(FLOOR_CACHE_ENV) or cache_dir / "floors"),
        thresholds=thresholds,
        pool_rows=pool_rows,
        revision=None if pool_rows is None else content_revision(both),
        progress=progress,
    )
    return audit, how


@dataclass
class _Batch:
    """What one source would publish; it reaches the run only when the whole source succeeded."""

    records: dict[str, dict] = field(default_factory=dict)
    new_rows: list = field(default_factory=list)
    new_alerts: list = field(default_factory=list)
    changes: list = field(default_factory=list)
    snapshots: list = field(default_factory=list)  # (benchmark, rows, kind): last good data
    tables: list = field(default_factory=list)  # (path, frame): per-benchmark tables of reports/
    skipped: list = field(default_factory=list)  # {benchmark, reason}: listed, not published


@dataclass
class _Run:
    """What the job accumulates while it goes through the sources."""

    reports: Reports
    previous: dict[str, dict]
    records: dict[str, dict]
    now: str
    force: bool
    rules: RuleBook
    owners: dict[str, str] = field(default_factory=dict)  # benchmark -> the source that produced it this run
    fresh: dict[str, pd.DataFrame] = field(default_factory=dict)  # per-item rows published by this run
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

    def unchanged(self, name: str, revision: str, method: str | None, scale: str | None) -> bool:
        before = self.previous.get(name)
        same = before is not None and before.get("revision") == revision
        same = same and not before.get("rebuilt") and not before.get("refit")  # `repair` asks for a refit
        same = same and before.get("figures_version") == FIGURES_VERSION  # figures of an older benchwatch: redone
        return same and (before.get("method"), before.get("scale")) == (method, scale) and not self.force

    def shrunk(self, name: str, n_cells: int) -> str | None:
        """Why a benchmark that lost a large share of its rows since its last snapshot is held back."""
        before = self.previous.get(name) or {}
        old = before.get("n_cells")
        if not old or name in self.rules.expect_shrink:
            return None
        lost = 1 - n_cells / old
        if lost <= self.rules.max_shrink:
            return None
        return (
            f"lost {lost:.0%} of its rows since the last snapshot ({old:,} -> {n_cells:,}): held back, not "
            f"published (if the shrink is expected, list the benchmark in [rules] expect_shrink)"
        )

    def grew(self, before: dict | None, fig: dict) -> str | None:
        """The alert's title when the item count grew by more than [rules] max_growth since the last snapshot."""
        old, new = (before or {}).get("n_items"), fig.get("n_items")
        if not old or not new or new / old - 1 <= self.rules.max_growth:
            return None
        return (
            f"{fig['benchmark']}: {old:,} -> {new:,} items since the last snapshot (more than "
            f"{self.rules.max_growth:.0%} growth, [rules] max_growth): check that this is the same benchmark"
        )

    def skip(self, batch: _Batch, name: str, reason: str, held_revision: str | None = None) -> None:
        """List a benchmark that is not published this run; held data also raises an alert (once per revision)."""
        batch.skipped.append({"benchmark": name, "reason": reason})
        before = self.previous.get(name)
        if held_revision is not None:
            title = f"{name}: new data {reason.split(':')[0]}, held back"
            batch.new_alerts.append(notice_alert("held", name, held_revision, self.now, title))
        if before is not None:
            batch.records[name] = {**before, "notice": reason}

    def record(self, batch: _Batch, fig: dict, source: str, change: dict | None, page: str | None) -> None:
        """Flags, alerts and history for one benchmark's new figures."""
        name = fig["benchmark"]
        before = self.previous.get(name)
        same = before is not None and before.get("revision") == fig["revision"]
        fig["prior_state"] = before.get("prior_state") if same else (before or {}).get("state")
        flags = set((before or {}).get("flags", []))
        thresholds = self.rules.thresholds_for(name)
        fig["figures_version"] = FIGURES_VERSION
        fig["flags"] = evaluate_flags(fig, flags, fig["prior_state"], thresholds)
        fig["verdicts"] = recorded_verdicts(fig, thresholds, flags)
        fig["why"] = explain(fig, fig["flags"], flags, fig["prior_state"], thresholds)
        fig["retirement"] = retirement(fig, fig["prior_state"])[1]
        fig["snapshot_at"] = before["snapshot_at"] if same else self.now
        fig["source_name"] = source
        fig["page"] = self.rules.page_for(name, page)
        if self.rules.name_for(name):
            fig["display_name"] = self.rules.name_for(name)
        batch.records[name] = fig
        batch.new_alerts += diff_alerts(before, fig, self.now)
        grown = self.grew(before, fig) if not same else None
        if grown:
            batch.new_alerts.append(notice_alert("grew", name, fig["revision"], self.now, grown))
        if not same:
            batch.new_rows.append({**fig, "flags": " ".join(fig["flags"])})
            if change is not None:
                batch.changes.append(
                    {
                        "snapshot_at": self.now,
                        "source": source,
                        "benchmark": name,
                        "revision": fig["revision"],
                        **change,
                    }
                )

    def carry(self, batch: _Batch, name: str) -> None:
        """An unchanged benchmark keeps its record, without a notice of an earlier run."""
        before = self.previous[name]
        if "notice" in before or "gone_since" in before:
            batch.records[name] = {k: v for k, v in before.items() if k not in ("notice", "gone_since")}

    def mark_gone(self, batch: _Batch, source: str, produced: set[str]) -> list[str]:
        """Benchmarks this source published before and no longer has: kept, marked gone, alerted once."""
        gone = []
        for name, before in sorted(self.previous.items()):
            if before.get("source_name") != source or name in produced:
                continue
            gone.append(name)
            if before.get("gone_since"):
                continue
            batch.records[name] = {**before, "gone_since": self.now, "notice": "no longer published upstream"}
            title = f"{name} is no longer published by its source {source}"
            batch.new_alerts.append(notice_alert("gone", name, before.get("revision", ""), self.now, title))
        return gone

    def commit(self, batch: _Batch, source: str, names: list[str]) -> None:
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
        for bench, rows, kind in batch.snapshots:
            self.files[str(self.reports.snapshot(bench, kind).relative_to(root))] = snapshot_bytes(rows)
            if kind == "responses":
                self.fresh[bench] = rows


def _gate(run: _Run, batch: _Batch, name: str, rows: pd.DataFrame, unfit: str | None) -> str | None:
    """The log note of a benchmark that is not published this run (cannot be audited, or shrank), or None."""
    if unfit:
        run.skip(batch, name, unfit)
        return f"{name} skipped: {unfit}"
    held = run.shrunk(name, len(rows))
    if held:
        run.skip(batch, name, held, content_revision(rows))
        return f"{name} HELD: {held}"
    return None


def _as_of(prov: dict, tables: list[pd.DataFrame]) -> dict:
    """How current a source's data is by its own dates: the upstream's date (the server's Last-Modified or the
    configuration's ``as_of``), else the newest publication date in the data, else nothing known."""
    if prov.get("upstream_date"):
        return {"as_of": str(prov["upstream_date"]), "as_of_from": "upstream"}
    dates = [t["date"].max() for t in tables if "date" in t.columns and t["date"].notna().any()]
    if dates:
        return {"as_of": pd.Timestamp(max(dates)).strftime("%Y-%m-%d"), "as_of_from": "newest dated result"}
    return {"as_of": None, "as_of_from": None}


def _public(location: str) -> str:
    """A source's location as records and pages show it: a URL as it is, a local file by its name only (a page
    never shows the paths of the machine that built it)."""
    if "://" in location and not location.startswith("file://"):
        return location
    return PurePath(location.removeprefix("file://")).name or location


def _provenance(fig: dict, table: SourceTable, rows: pd.DataFrame) -> dict:
    """A record's size in rows, its data's origin (the bundled file's, or the URL) and its excluded models."""
    prov = table.provenance
    fig["n_cells"] = len(rows)
    origin = str(prov.get("origin") or prov.get("url") or table.location)
    fig["origin"] = origin if prov.get("origin") else _public(origin)
    fig["excluded"] = [e for e in table.excluded if e.get("benchmark") == fig["benchmark"]]
    return fig


def _target(run: _Run, name: str) -> Target:
    """The benchmark's target distribution; another benchmark's z comes from its items in the reports."""
    spec = run.rules.target_spec(name)
    if "benchmark" not in spec:
        return beta_or_uniform(spec)
    items = load_table(run.reports.items(spec["benchmark"]))
    if items is None:
        raise InputError(name, f"target benchmark {spec['benchmark']!r} has no item difficulties in the reports yet")
    return Target.empirical(items["z"].to_numpy())


def _audit_args(run: _Run, table: SourceTable, ctx: dict, name: str, rows: pd.DataFrame, pool_rows) -> dict:
    return {
        "rows": rows,
        "table": table,
        "method": ctx["method"],
        "sampler": ctx["sampler"],
        "scale": ctx["scale"],
        "reports": run.reports,
        "cache_dir": ctx["cache"],
        "target": _target(run, name),
        "ceiling": run.rules.ceiling_for(name),
        "thresholds": threshold_map(run.rules.thresholds_for(name)),
        "pool_rows": pool_rows,
    }


AUDIT_ERRORS = (InputError, ValueError, ArithmeticError)  # a benchmark that cannot be audited is skipped
PARALLEL_CELLS = 20_000_000  # above this many cells in all, a source's audits run one at a time (memory)
_FORKED: list[dict] = []  # the audits forked workers run: inherited at the fork, nothing pickled on the way in


def _die_with_parent() -> None:
    """A worker ends when its run does, even killed (-9): it holds a copy of the run's lock file, which would
    otherwise stay locked until the worker finished on its own (Linux's parent-death signal)."""
    import contextlib
    import ctypes
    import signal

    with contextlib.suppress(OSError, AttributeError):  # no prctl: the worker ends at its next read of the pipe
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG


def _forked_audit(k: int) -> tuple:
    start = time.perf_counter()
    try:
        audit, how = audit_with_history(**_FORKED[k])
    except AUDIT_ERRORS as exc:
        return None, str(exc), 0.0
    return (audit, how), None, time.perf_counter() - start


def _audits(jobs: list[dict], bar: Progress) -> list[tuple]:
    """Each job's (audit, how) or None, the error that stopped it, and its seconds: on both cores where the
    machine has them (forked workers, one benchmark each; Linux only, where fork is safe for these libraries),
    one at a time otherwise, and always for a single benchmark or a source too large to hold twice."""
    global _FORKED
    cells = sum(len(j["rows"]) for j in jobs)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    if len(jobs) < 2 or cores < 2 or cells > PARALLEL_CELLS or sys.platform != "linux":
        out = []
        for job in jobs:
            bar.note(f"auditing {job['rows']['benchmark'].iloc[0]}")
            start = time.perf_counter()
            try:
                out.append((audit_with_history(**job, progress=bar.note), None, time.perf_counter() - start))
            except AUDIT_ERRORS as exc:
                out.append((None, str(exc), 0.0))
        return out
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    _FORKED = jobs
    try:
        fork = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(min(2, cores, len(jobs)), mp_context=fork, initializer=_die_with_parent) as pool:
            futures = [pool.submit(_forked_audit, k) for k in range(len(jobs))]
            out = []
            for job, future in zip(jobs, futures, strict=True):
                out.append(future.result())
                bar.note(f"audited {job['rows']['benchmark'].iloc[0]}")
            return out
    finally:
        _FORKED = []


def _per_item(run: _Run, batch: _Batch, table: SourceTable, frame: pd.DataFrame, ctx: dict, source: str) -> list[str]:
    notes = []
    method, scale = ctx["method"], ctx["scale"]
    groups = list(frame.groupby("benchmark", sort=True))
    bar = Progress(len(groups), source)
    pages = [run.rules.page_for(name, table.pages.get(name)) for name, _ in groups]
    apart = len(set(pages)) == len(pages)  # no two share a page: no audit reads another's rows of this run
    pending: list[tuple] = []

    def publish(name, rows, joint, change, result) -> None:
        done, error, seconds = result
        if done is None:
            run.skip(batch, name, f"could not be audited: {error}")
            notes.append(f"{name} skipped: {error}")
            return
        audit, how = done
        phase("fit")
        fig = _provenance(audit.figures(), table, rows)
        if joint is not None:
            fig["joint_pool"] = joint
        run.record(batch, fig, source, change, table.pages.get(name))
        if audit.coverage is not None:  # items placed on the axis (scores only: no item table)
            batch.tables.append((run.reports.items(name), audit.items.sort_values("item_id")))
        batch.tables.append((run.reports.models(name), audit.models.sort_values("model")))
        if audit.by_date is not None:
            batch.tables.append((run.reports.by_date(name), audit.by_date))
        batch.snapshots.append((name, rows, "responses"))
        notes.append(f"{name} {how} {seconds:.2f}s")

    for (name, rows), page in zip(groups, pages, strict=True):
        bar.step(str(name))
        pool_rows, joint = joint_rows(
            name, rows, page, run.records, run.fresh, lambda other: load_snapshot(run.reports, other)
        )
        revision = content_revision(rows if pool_rows is None else pd.concat([rows, pool_rows], ignore_index=True))
        if run.unchanged(name, revision, method, scale):
            run.carry(batch, name)
            notes.append(f"{name} unchanged")
            continue
        from bot.pipeline.audit import unauditable

        stop = _gate(run, batch, name, rows, unauditable(rows))
        if stop:
            notes.append(stop)
            continue
        change = diff_snapshots(load_snapshot(run.reports, name), rows)
        try:
            args = _audit_args(run, table, ctx, name, rows, pool_rows)
        except AUDIT_ERRORS as exc:
            publish(name, rows, joint, change, (None, str(exc), 0.0))
            continue
        if apart:  # audited with the others of this source (on both cores), then published in order
            pending.append((name, rows, joint, change, args))
            continue
        publish(name, rows, joint, change, _audits([args], bar)[0])
    for (name, rows, joint, change, _), result in zip(pending, _audits([p[4] for p in pending], bar), strict=True):
        publish(name, rows, joint, change, result)
    bar.close()
    return notes


def _aggregates(
    run: _Run, batch: _Batch, table: SourceTable, aggs: pd.DataFrame, cache: Path, source: str
) -> list[str]:
    notes = []
    for name, rows in aggs.groupby("benchmark", sort=True):
        if run.unchanged(name, content_revision(rows), None, None):
            run.carry(batch, name)
            continue
        one = f"only one model ({rows['model'].iloc[0]}): a leaderboard of one cannot be ranked"
        stop = _gate(run, batch, name, rows, one if rows["model"].nunique() < 2 else None)
        if stop:
            notes.append(stop)
            continue
        change = diff_snapshots(load_snapshot(run.reports, name, "aggregates"), rows)
        from bot.pipeline.audit import with_tiers
        from bot.pipeline.files import audit_leaderboard

        fig, by_date, tiers = audit_leaderboard(
            rows, source=_public(table.location), ceiling=run.rules.ceiling_for(name)
        )
        fig = _provenance(fig, table, rows)
        run.record(batch, fig, source, change, table.pages.get(name))
        if by_date is not None:
            batch.tables.append((run.reports.by_date(name), by_date))
        board = rows.assign(date=rows["date"].dt.strftime("%Y-%m-%d")) if "date" in rows else rows
        board = with_tiers(board.drop(columns="benchmark"), tiers)
        batch.tables.append((run.reports.models(name), board.sort_values("model")))
        batch.snapshots.append((name, rows, "aggregates"))
        notes.append(f"{name} leaderboard")
    return notes


def _keep_unchanged(run: _Run, name: str, ctx: dict) -> str | None:
    """Keep a source whose downloads all answered as in its last published run, or None to read it anyway
    (its last run failed, held or skipped data, a record rebuilt, other rules, method or scale, or --force)."""
    status = ctx["statuses"].get(name, {})
    mine = [r for r in run.previous.values() if r.get("source_name") == name and not r.get("gone_since")]
    if run.force or not mine or status.get("status") != "ok" or status.get("rules") != run.rules.fingerprint():
        return None
    if status.get("skipped") or any("notice" in rec for rec in mine):  # held or skipped data: the rules decide
        return None
    if any(rec.get("figures_version") != FIGURES_VERSION for rec in mine):  # made by an older benchwatch
        return None
    for rec in mine:
        fitted = rec.get("method") is not None
        if (
            rec.get("rebuilt")
            or rec.get("refit")
            or (fitted and (rec.get("method"), rec.get("scale")) != (ctx["method"], ctx["scale"]))
        ):
            return None
    for rec in mine:
        run.owners.setdefault(rec["benchmark"], name)
    ctx["outcomes"].append(f"{name}:not-modified")
    return f"every download as in the last run: {len(mine)} benchmark(s) kept, nothing read"


def _run_source(run: _Run, name: str, load: Callable[[], SourceTable], ctx: dict) -> bool:
    """Fetch, validate and audit one source; all it publishes or nothing (a failure is recorded, or raised)."""
    t0 = time.perf_counter()
    log, statuses = ctx["log"], ctx["statuses"]
    status = statuses.get(name, {})
    batch = _Batch()
    try:
        if ctx["stop_at"] is not None and time.monotonic() > ctx["stop_at"]:
            raise TimeoutError("the run's deadline passed before this source started; its last good data is kept")
        table = load()
        phase("fetch")
        if table.unchanged:
            kept = _keep_unchanged(run, name, ctx)
            if kept is not None:
                log(f"source    {time.perf_counter() - t0:7.2f}s  {name}: not-modified; {kept}")
                return True
            table = table.reload()
        frame = validate_responses(table.frame, table.location) if len(table.frame) else None
        aggs = None
        if table.aggregates is not None and len(table.aggregates):
            aggs = validate_aggregates(table.aggregates.astype(str), table.location)
        merges = [e for t in (frame, aggs) if t is not None for e in t.attrs.get("merged", [])]
        table = dataclasses.replace(table, excluded=(*table.excluded, *merges))
        names = [] if frame is None else list(frame["benchmark"].unique())
        names += [] if aggs is None else list(aggs["benchmark"].unique())
        run.claim(names, name, table.location)
        notes = [] if frame is None else _per_item(run, batch, table, frame, ctx, name)
        notes += [] if aggs is None else _aggregates(run, batch, table, aggs, ctx["cache"], name)
        gone = run.mark_gone(batch, name, set(names))
    except Exception as exc:
        if ctx["strict"]:
            raise
        if status.get("status") != "failed":
            status["failed_since"] = run.now
        status.update({"status": "failed", "error": f"{type(exc).__name__}: {exc}"})
        statuses[name] = status
        ctx["outcomes"].append(f"{name}:failed")
        log(f"source    {time.perf_counter() - t0:7.2f}s  {name}: FAILED (nothing new published): {exc}")
        return False
    run.commit(batch, name, names)
    if table.published is not None:
        ctx["published"].append(table.published)
    phase("snapshot save")
    prov = table.provenance
    mine = sorted(r["revision"] for r in run.records.values() if r.get("source_name") == name)
    revision = prov.get("revision") or "+".join(mine)
    if status.get("revision") != revision or "data_since" not in status:
        status["data_since"] = run.now  # the age of the last good data counts from its first fetch
    status.pop("failed_since", None)
    status.update(_as_of(prov, [t for t in (frame, aggs) if t is not None]))
    status.update(
        {
            "status": "ok",
            "error": None,
            "url": _public(str(prov.get("url", table.location))),  # never a path of this machine
            "homepage": prov.get("homepage"),
            "revision": revision,
            "adapter": prov.get("adapter"),
            "excluded": list(table.excluded),
            "skipped": batch.skipped,
            "gone": gone,
            "notes": list(table.notes),
            "rules": run.rules.fingerprint(),
        }
    )
    statuses[name] = status
    fetched = prov.get("status", "read")
    ctx["outcomes"].append(f"{name}:{fetched}")
    size = f", {prov['bytes']:,} bytes" if "bytes" in prov else ""
    log(f"source    {time.perf_counter() - t0:7.2f}s  {name}: {fetched}{size}; {'; '.join(notes) or 'no change'}")
    for note in table.notes:
        log(f"source             {name}: {note}")
    for g in gone:
        log(f"source             {name}: {g} is gone upstream (kept, marked gone)")
    return True


@dataclass
class Delta:
    """What a run's sources produced, before any of it is written: what ``apply_delta`` writes into
    reports/, and what a fan-out part carries from its runner to the merge."""

    sources: list[str]
    records: dict[str, dict]  # the benchmarks whose record these sources set (new, changed, carried, gone)
    new_rows: list[dict]
    new_alerts: list[dict]
    changes: list[dict]
    statuses: dict[str, dict]
    outcomes: list[str]
    files: dict[str, bytes]  # per-benchmark tables and snapshots, by path relative to reports/
    ok: int
    failed: int


def gather(
    sources: list[tuple[str, Callable[[], SourceTable]]],
    reports: Reports,
    *,
    now: str,
    cache: Path,
    force: bool = False,
    strict: bool = True,
    method: str = "map",
    sampler: str = "auto",
    scale: str = DEFAULT_SCALE,
    rules: RuleBook = DEFAULT_RULES,
    deadline: float | None = None,
    log: Callable[[str], None] = print,
) -> tuple[Delta, list[Callable[[], None]]]:
    """Fetch and audit every source against the reports as they stand, writing nothing; returns the
    delta and the callbacks to run once it has been committed (the sources' unchanged-run manifests)."""
    previous = load_latest(reports)
    for load in (load_history, load_alerts, load_changelog, load_runs):  # a damaged file stops the run here
        load(reports)
    run = _Run(reports, previous, dict(previous), now, force, rules)
    statuses = load_sources(reports)
    ctx = {
        "log": log,
        "statuses": statuses,
        "outcomes": [],
        "strict": strict,
        "method": method,
        "sampler": sampler,
        "scale": scale,
        "cache": cache,
        "stop_at": None if deadline is None else time.monotonic() + deadline,
        "published": [],
    }
    results = [_run_source(run, name, load, ctx) for name, load in sources]
    names = [name for name, _ in sources]
    changed = {k: v for k, v in run.records.items() if previous.get(k) is not v}
    delta = Delta(
        sources=names,
        records=changed,
        new_rows=run.new_rows,
        new_alerts=run.new_alerts,
        changes=run.changes,
        statuses={n: statuses[n] for n in names if n in statuses},
        outcomes=ctx["outcomes"],
        files=run.files,
        ok=sum(results),
        failed=len(results) - sum(results),
    )
    return delta, ctx["published"]


def apply_delta(reports: Reports, delta: Delta, *, now: str, started: float, log: Callable[[str], None]) -> JobResult:
    """Write a delta into reports/ (inside its transaction): figures, history, alerts, changelog, source
    statuses, per-benchmark files and the run log's row. Returns the run's counts (no pages)."""
    records = {**load_latest(reports), **delta.records}
    new_alerts = list(delta.new_alerts)
    with stage("reports", log) as notes:
        for rel, data in sorted(delta.files.items()):
            path = reports.root / rel
            if reports.read_bytes(path) != data:
                reports.write_bytes(path, data)
        compare_pages(records, lambda name: read_table(reports, reports.models(name)))
        write_latest(reports, records)
        appended = append_history(reports, delta.new_rows)
        old_alerts = load_alerts(reports)
        seen = {a["id"] for a in old_alerts}
        new_alerts = [a for a in new_alerts if a["id"] not in seen]
        write_alerts(reports, old_alerts + new_alerts)
        append_changelog(reports, delta.changes)
        write_sources(reports, {**load_sources(reports), **delta.statuses})
        notes.append(f"{count(appended, 'new snapshot')}, {count(len(new_alerts), 'alert')} -> {reports.root}")
    phase("staging")
    ok, failed = delta.ok, delta.failed
    append_run(  # in the same commit as what the run did: the log never misses a run that changed reports/
        reports,
        {
            "started_at": now,
            "seconds": f"{time.perf_counter() - started:.2f}",
            "benchmarks": len(records),
            "new_snapshots": appended,
            "alerts": len(new_alerts),
            "status": "ok" if not failed else ("failed" if not ok else f"{failed} source(s) failed"),
            "sources": " ".join(delta.outcomes),
        },
    )
    phase("run log")
    return JobResult(len(records), appended, len(new_alerts), 0, ok, failed)


def _build(
    reports: Reports, site_out: str | Path | None, now: str, log: Callable[[str], None], site_url: str | None = None
) -> int:
    if site_out is None:
        return 0
    from bot.site import build_site

    with stage("site", log) as notes:
        pages = build_site(reports.root, site_out, now=now, phase=phase, site_url=site_url)
        notes.append(f"{pages} pages -> {site_out}")
    return pages


def _open_reports(reports_dir: str | Path) -> Reports:
    reports = Reports(Path(reports_dir))
    try:
        reports.root.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(str(reports.root), f"cannot create the reports folder ({exc.strerror or exc})") from None
    return reports


def run_job(
    sources: list[tuple[str, Callable[[], SourceTable]]],
    *,
    reports_dir: str | Path,
    site_out: str | Path | None,
    cache_dir: str | Path = ".cache",
    now: str | None = None,
    force: bool = False,
    strict: bool = True,
    method: str = "map",
    sampler: str = "auto",
    scale: str = DEFAULT_SCALE,
    rules: RuleBook = DEFAULT_RULES,
    lock_timeout: float = 600.0,
    deadline: float | None = None,
    part_out: str | Path | None = None,
    position: int = 0,
    site_url: str | None = None,
    log: Callable[[str], None] = print,
) -> JobResult:
    """Run every stage once for every source; with ``strict`` off a failing source never stops the others.

    The reports folder is locked for the whole run, the site build included, and its files (figures, history,
    alerts, tables and the snapshots of the data behind them) change together at the end, or not at all if the run dies
    before; the site is built aside and swapped in only when the build succeeded. A source that has not
    started ``deadline`` seconds after the run did fails with that reason (its last good data is kept).

    With ``part_out`` the run writes nothing into the reports folder: what its sources produced goes to
    that folder as a part (``bot.pipeline.parts``), for ``merge_parts`` to combine with the others'.
    """
    started = time.perf_counter()
    now = now or utc_now()
    reports = _open_reports(reports_dir)
    options = {"now": now, "cache": Path(cache_dir), "force": force, "strict": strict, "method": method}
    options["sampler"] = sampler
    options.update({"scale": scale, "rules": rules, "deadline": deadline, "log": log})
    lock = _acquire(reports.root / LOCK_NAME, lock_timeout, log)
    try:
        if part_out is not None:
            from bot.pipeline.parts import write_part

            delta, published = gather(sources, reports, **options)
            write_part(part_out, delta, reports, now=now, position=position)
            log(f"part      {len(delta.records)} benchmarks of {', '.join(delta.sources)} -> {part_out}")
            counts = (len(delta.records), len(delta.new_rows), len(delta.new_alerts))
            result = JobResult(*counts, 0, delta.ok, delta.failed)
        else:
            with reports.transaction(on_commit=lambda: phase("commit swap")):
                delta, published = gather(sources, reports, **options)
                result = apply_delta(reports, delta, now=now, started=started, log=log)
        for callback in published:  # after the commit: a run killed before this only reads again
            callback()
        if part_out is None:  # under the lock: two runs never build one site at once
            result = dataclasses.replace(result, pages=_build(reports, site_out, now, log, site_url))
    finally:
        lock.release()
    return result


def merge_parts(
    part_dirs: list[str | Path],
    *,
    reports_dir: str | Path,
    site_out: str | Path | None,
    now: str | None = None,
    lock_timeout: float = 600.0,
    site_url: str | None = None,
    log: Callable[[str], None] = print,
) -> JobResult:
    """Combine the parts of a fan-out (``run_job(part_out=...)`` on several runners) into reports/ in one
    commit, as one run over all their sources would have written it, then build the site.

    Refused, with nothing written: a part computed from other reports than these (the parts of one
    fan-out start from one commit), two parts that carry one source or one benchmark, names that would
    share a file.
    """
    from bot.pipeline.parts import combine, read_part

    started = time.perf_counter()
    parts = [read_part(p) for p in part_dirs]
    reports = _open_reports(reports_dir)
    lock = _acquire(reports.root / LOCK_NAME, lock_timeout, log)
    try:
        with reports.transaction(on_commit=lambda: phase("commit swap")):
            for load in (load_history, load_alerts, load_changelog, load_runs):
                load(reports)
            delta, when = combine(parts, reports)
            for a, b in slug_collisions(set(delta.records) | set(load_latest(reports))):
                raise InputError(str(reports.root), f"benchmarks {a!r} and {b!r} would share one file name")
            result = apply_delta(reports, delta, now=now or when, started=started, log=log)
        return dataclasses.replace(result, pages=_build(reports, site_out, now or when, log, site_url))
    finally:
        lock.release()


def _acquire(path: Path, timeout: float, log: Callable[[str], None]) -> FileLock:
    """The reports folder's lock; says so when it has to wait for another run, gives up after ``timeout``."""
    lock = FileLock(str(path), timeout=timeout)
    try:
        lock.acquire(timeout=0)
        return lock
    except Timeout:
        log(f"lock      another benchwatch run holds {path}: waiting up to {timeout:g} s (--lock-timeout)")
    except OSError as exc:
        raise InputError(str(path), f"cannot take the lock ({exc.strerror or exc})") from None
    try:
        lock.acquire()
    except Timeout:
        raise BusyError(f"another benchwatch run holds {path}; gave up after {timeout:g} s") from None
    return lock
