"""Fetch and audit every source against the reports as they stand, writing nothing: the run's ``Delta``."""

from __future__ import annotations

import dataclasses
import functools
import time
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from benchwatch.history import (
    Reports,
    load_alerts,
    load_changelog,
    load_history,
    load_latest,
    load_runs,
    load_snapshot,
    load_sources,
)
from benchwatch.irt import DEFAULT_SCALE
from benchwatch.pipeline import phases
from benchwatch.pipeline.apply import Delta
from benchwatch.pipeline.benchmark import public_location
from benchwatch.pipeline.joint import joint_rows
from benchwatch.pipeline.run_state import (
    DEFAULT_RULES,
    FIGURES_VERSION,
    Batch,
    RunState,
    SourceContext,
    as_of,
    audit_args,
    gate,
    provenance_of,
    with_chance,
)
from benchwatch.pipeline.workers import AUDIT_ERRORS, AuditPool
from benchwatch.progress import Progress
from benchwatch.rules import RuleBook
from benchwatch.sources import SourceTable
from benchwatch.store import content_revision, diff_snapshots, snapshot_bytes, validate_aggregates, validate_responses


def _per_item(
    run: RunState,
    batch: Batch,
    table: SourceTable,
    frame: pd.DataFrame,
    ctx: SourceContext,
    source: str,
    pool: AuditPool,
) -> Callable[[], list[str]]:
    """Start the audits of a source's per-item benchmarks; returns what publishes them, in order, once they are
    all in (it waits for them)."""
    notes = []
    method, scale = ctx.method, ctx.scale
    groups = list(frame.groupby("benchmark", sort=True))
    bar = Progress(len(groups), source)
    pages = [run.rules.page_for(name, table.pages.get(name)) for name, _ in groups]
    apart = len(set(pages)) == len(pages)  # no two share a page: no audit reads another's rows of this run
    pending: list[tuple] = []

    def publish(name, rows, joint, change, result, data: bytes | None = None) -> None:
        done, error, seconds = result
        if done is None:
            run.skip(batch, name, f"could not be audited: {error}")
            notes.append(f"{name} skipped: {error}")
            return
        audit, how = done
        phases.phase("fit")
        fig = provenance_of(audit.figures(), table, rows)
        if joint is not None:
            fig["joint_pool"] = joint
        run.record(batch, fig, source, change, table.pages.get(name))
        if audit.coverage is not None:  # items placed on the axis (scores only: no item table)
            batch.tables.append((run.reports.items(name), audit.items.sort_values("item_id")))
        batch.tables.append((run.reports.models(name), audit.models.sort_values("model")))
        if audit.by_date is not None:
            batch.tables.append((run.reports.by_date(name), audit.by_date))
        batch.snapshots.append((name, rows, "responses", data))
        notes.append(f"{name} {how} {seconds:.2f}s")
        if fig.get("blanks_warning"):
            flagged = fig["blanks_warning"]["flagged"]
            notes.append(
                f"{name}: WARNING {flagged} models leave blank the items they would likely fail: record a failed or "
                "errored sample as 0, never a blank"
            )
        elif fig.get("item_model") == "withheld":
            notes.append(f"{name}: bounds withheld, its item model does not fit (the page says why)")

    for (name, rows), page in zip(groups, pages, strict=True):
        bar.step(str(name))
        rows, chance_from = with_chance(rows, table, run.rules, name)
        if page in run.pending_pages:  # a source still auditing publishes on this page: its rows first
            run.settle()
        pool_rows, joint = joint_rows(
            name, rows, page, run.records, run.fresh, lambda other: load_snapshot(run.reports, other)
        )
        revision = content_revision(rows if pool_rows is None else pd.concat([rows, pool_rows], ignore_index=True))
        if run.unchanged(name, revision, method, scale):
            run.carry(batch, name)
            notes.append(f"{name} unchanged")
            continue
        from benchwatch.pipeline.audit import unauditable

        stop = gate(run, batch, name, rows, unauditable(rows))
        if stop:
            notes.append(stop)
            continue
        change = diff_snapshots(load_snapshot(run.reports, name), rows)
        try:
            args = audit_args(run, table, ctx, name, rows, pool_rows, chance_from)
        except AUDIT_ERRORS as exc:
            publish(name, rows, joint, change, (None, str(exc), 0.0))
            continue
        if apart:  # audited beside the run's other audits (on both cores), published in order at the end
            pending.append((name, rows, joint, change, pool.submit(args, bar)))
            continue
        ticket = pool.submit(args, bar)
        publish(name, rows, joint, change, pool.result(ticket))

    def finish() -> list[str]:
        # the snapshots' bytes while the audits run (the run would wait for them, then write these after)
        ready = [snapshot_bytes(rows) for _, rows, *_ in pending]
        for (name, rows, joint, change, ticket), data in zip(pending, ready, strict=True):
            publish(name, rows, joint, change, pool.result(ticket), data)
        bar.close()
        return notes

    return finish


def _aggregates(
    run: RunState, table: SourceTable, aggs: pd.DataFrame, source: str, pool: AuditPool
) -> Callable[[Batch], list[str]]:
    """The leaderboards' figures, started now beside the run's audits; returns what records them into the
    source's batch (after its per-item benchmarks, in name order)."""
    from benchwatch.pipeline.audit import with_tiers
    from benchwatch.pipeline.files import audit_leaderboard

    tickets = {}
    for name, rows in aggs.groupby("benchmark", sort=True):
        if not run.unchanged(name, content_revision(rows), None, None) and rows["model"].nunique() >= 2:
            where, ceiling = public_location(table.location), run.rules.ceiling_for(name)
            tickets[name] = pool.call(audit_leaderboard, rows=rows, source=where, ceiling=ceiling)

    def record(batch: Batch) -> list[str]:
        notes = []
        for name, rows in aggs.groupby("benchmark", sort=True):
            if run.unchanged(name, content_revision(rows), None, None):
                run.carry(batch, name)
                continue
            one = f"only one model ({rows['model'].iloc[0]}): a leaderboard of one cannot be ranked"
            stop = gate(run, batch, name, rows, one if rows["model"].nunique() < 2 else None)
            if stop:
                notes.append(stop)
                continue
            change = diff_snapshots(load_snapshot(run.reports, name, "aggregates"), rows)
            fig, by_date, tiers = pool.result(tickets[name])
            fig = provenance_of(fig, table, rows)
            run.record(batch, fig, source, change, table.pages.get(name))
            if by_date is not None:
                batch.tables.append((run.reports.by_date(name), by_date))
            board = rows.assign(date=rows["date"].dt.strftime("%Y-%m-%d")) if "date" in rows else rows
            board = with_tiers(board.drop(columns="benchmark"), tiers)
            batch.tables.append((run.reports.models(name), board.sort_values("model")))
            batch.snapshots.append((name, rows, "aggregates", None))
            notes.append(f"{name} leaderboard")
        return notes

    return record


def _keep_unchanged(run: RunState, name: str, ctx: SourceContext) -> str | None:
    """Keep a source whose downloads all answered as in its last published run, or None to read it anyway
    (its last run failed, held or skipped data, a record rebuilt, other rules, method or scale, or --force)."""
    status = ctx.statuses.get(name, {})
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
            or (fitted and (rec.get("method"), rec.get("scale")) != (ctx.method, ctx.scale))
        ):
            return None
    for rec in mine:
        run.owners.setdefault(rec["benchmark"], name)
    return f"every download as in the last run: {len(mine)} benchmark(s) kept, nothing read"


def _no_boards(_batch: Batch) -> list[str]:
    """What a source without leaderboards records: nothing."""
    return []


def _start_source(
    run: RunState, name: str, load: Callable[[], SourceTable], ctx: SourceContext, pool: AuditPool
) -> Callable[[], bool]:
    """Fetch and validate one source and start its audits; returns what finishes it (waits for its audits,
    then publishes all of it or nothing: a failure is recorded, or raised when strict)."""
    t0 = time.perf_counter()
    log, statuses = ctx.log, ctx.statuses
    status = statuses.get(name, {})
    batch = Batch()

    def failed(exc: Exception) -> bool:
        if ctx.strict:
            raise exc
        if status.get("status") != "failed":
            status["failed_since"] = run.now
        status.update({"status": "failed", "error": f"{type(exc).__name__}: {exc}"})
        statuses[name] = status
        ctx.outcomes.append(f"{name}:failed")
        log(f"source    {time.perf_counter() - t0:7.2f}s  {name}: FAILED (nothing new published): {exc}")
        return False

    try:
        if ctx.stop_at is not None and time.monotonic() > ctx.stop_at:
            raise TimeoutError("the run's deadline passed before this source started; its last good data is kept")
        table = load()
        phases.phase("fetch")
        if table.unchanged:
            kept = _keep_unchanged(run, name, ctx)
            if kept is not None:
                seconds = time.perf_counter() - t0

                def unchanged() -> bool:  # said in the sources' order, with the others
                    ctx.outcomes.append(f"{name}:not-modified")
                    log(f"source    {seconds:7.2f}s  {name}: not-modified; {kept}")
                    return True

                return unchanged
            assert table.reload is not None  # an unchanged table always carries how to read it again
            table = table.reload()
        frame = validate_responses(table.frame, table.location) if len(table.frame) else None
        aggs = None
        if table.aggregates is not None and len(table.aggregates):
            aggs = validate_aggregates(table.aggregates.astype(str), table.location)
        merges = [e for t in (frame, aggs) if t is not None for e in t.attrs.get("merged", [])]
        table = dataclasses.replace(table, excluded=(*table.excluded, *merges))
        names = [] if frame is None else list(frame["benchmark"].unique())
        names += [] if aggs is None else list(aggs["benchmark"].unique())
        if set(names) & run.pending_names:  # a source still auditing publishes one of these: it decides first
            run.settle()
        run.claim(names, name, table.location)
        per_item: Callable[[], list[str]]
        per_item = (lambda: []) if frame is None else _per_item(run, batch, table, frame, ctx, name, pool)
        boards = _no_boards if aggs is None else _aggregates(run, table, aggs, name, pool)
    except Exception as exc:
        return functools.partial(failed, exc)
    pages = {run.rules.page_for(n, table.pages.get(n)) for n in names}
    run.pending_names |= set(names)
    run.pending_pages |= pages

    def finish() -> bool:
        run.pending_names -= set(names)
        run.pending_pages -= pages
        try:
            notes = per_item()
            notes += boards(batch)
            gone = run.mark_gone(batch, name, set(names))
        except Exception as exc:
            return failed(exc)
        _commit(run, batch, name, names, table, [t for t in (frame, aggs) if t is not None], ctx, status, gone)
        prov = table.provenance
        fetched = prov.get("status", "read")
        if fetched == "bundled":  # a copy shipped with benchwatch, read from disk: never "fetched"
            fetched = f"read its bundled copy of {prov.get('bundled')}"
        size = f", {prov['bytes']:,} bytes" if "bytes" in prov else ""
        log(f"source    {time.perf_counter() - t0:7.2f}s  {name}: {fetched}{size}; {'; '.join(notes) or 'no change'}")
        for note in table.notes:
            log(f"source             {name}: {note}")
        for g in gone:
            log(f"source             {name}: {g} is gone upstream (kept, marked gone)")
        return True

    return finish


def _commit(
    run: RunState,
    batch: Batch,
    name: str,
    names: list[str],
    table: SourceTable,
    tables: list[pd.DataFrame],
    ctx: SourceContext,
    status: dict,
    gone: list[str],
) -> None:
    """Publish what a source that succeeded produced, and its status."""
    run.commit(batch, name, names)
    if table.published is not None:
        ctx.published.append(table.published)
    phases.phase("snapshot save")
    prov = table.provenance
    mine = sorted(r["revision"] for r in run.records.values() if r.get("source_name") == name)
    revision = prov.get("revision") or "+".join(mine)
    if status.get("revision") != revision or "data_since" not in status:
        status["data_since"] = run.now  # the age of the last good data counts from its first fetch
    status.pop("failed_since", None)
    status.pop("bundled", None)
    status.update(as_of(prov, tables))
    if prov.get("bundled"):
        status["bundled"] = prov["bundled"]
    status.update(
        {
            "status": "ok",
            "error": None,
            "url": public_location(str(prov.get("url", table.location))),  # never a path of this machine
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
    ctx.statuses[name] = status
    ctx.outcomes.append(f"{name}:{prov.get('status', 'read')}")


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
    for read in (load_history, load_alerts, load_changelog, load_runs):  # a damaged file stops the run here
        read(reports)
    run = RunState(reports, previous, dict(previous), now, force, rules)
    statuses = load_sources(reports)
    ctx = SourceContext(
        log=log,
        statuses=statuses,
        strict=strict,
        method=method,
        sampler=sampler,
        scale=scale,
        cache=cache,
        stop_at=None if deadline is None else time.monotonic() + deadline,
    )
    pool = AuditPool()
    finishing: list[Callable[[], bool]] = []
    results: list[bool] = []

    def settle() -> None:  # finish every source started so far, in order
        while finishing:
            results.append(finishing.pop(0)())

    run.settle = settle
    try:
        for name, load in sources:
            finishing.append(_start_source(run, name, load, ctx, pool))
        settle()
    finally:
        pool.close()
    names = [name for name, _ in sources]
    changed = {k: v for k, v in run.records.items() if previous.get(k) is not v}
    delta = Delta(
        sources=names,
        records=changed,
        new_rows=run.new_rows,
        new_alerts=run.new_alerts,
        changes=run.changes,
        statuses={n: statuses[n] for n in names if n in statuses},
        outcomes=ctx.outcomes,
        files=run.files,
        ok=sum(results),
        failed=len(results) - sum(results),
    )
    return delta, ctx.published
