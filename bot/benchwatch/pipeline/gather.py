"""Fetch and audit every source against the reports as they stand, writing nothing: the run's ``Delta``."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Generator
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
from benchwatch.pipeline.publish import Started, failed, log_source, publish
from benchwatch.pipeline.run_state import (
    DEFAULT_RULES,
    FIGURES_VERSION,
    RunState,
    SourceContext,
    audit_args,
    gate,
    logged_name,
    provenance_of,
    with_chance,
)
from benchwatch.pipeline.workers import AUDIT_ERRORS, Executor, ForkedExecutor
from benchwatch.progress import Progress
from benchwatch.rules import RuleBook
from benchwatch.sources import SourceTable
from benchwatch.store import content_revision, diff_snapshots, snapshot_bytes, validate_aggregates, validate_responses


def source_steps(
    run: RunState, name: str, load: Callable[[], SourceTable], ctx: SourceContext, pool: Executor
) -> Generator[None, None, bool]:
    """One source, its steps in the order they happen: fetch, validate, plan and start its audits; then (after
    the one ``yield``, where the run starts the next source while these audits run) judge each result by the
    rules and publish the source, all of it or nothing. Returns whether it succeeded; a failure is recorded (the
    last good data kept), or raised when ``ctx.strict``."""
    clock = time.perf_counter()
    status = ctx.statuses.get(name, {})
    try:
        fetched = fetch(run, name, load, ctx)
        if isinstance(fetched, str):  # every download as in the last published run: kept, nothing read
            seconds = time.perf_counter() - clock
            yield  # said in the sources' order, with the others
            ctx.outcomes.append(f"{name}:not-modified")
            ctx.log(f"source    {seconds:7.2f}s  {name}: not-modified; {fetched}")
            return True
        started = validate(run, name, fetched)
        start_audits(run, name, started, ctx, pool)
    except Exception as exc:
        yield
        return failed(run, name, ctx, status, clock, exc)
    run.pending_names |= set(started.names)
    run.pending_pages |= started.pages
    yield  # the audits run; the run goes on to the next source
    run.pending_names -= set(started.names)
    run.pending_pages -= started.pages
    try:
        judge(run, name, started, pool)
        gone = run.mark_gone(started.batch, name, set(started.names))
    except Exception as exc:
        return failed(run, name, ctx, status, clock, exc)
    publish(run, name, started, ctx, status, gone)
    log_source(name, started, ctx, clock, gone)
    return True


def _finish(steps: Generator[None, None, bool]) -> bool:
    """Resume a started source to its end: its result."""
    try:
        next(steps)
    except StopIteration as done:
        return bool(done.value)
    raise RuntimeError("a source's steps yield once")


def fetch(run: RunState, name: str, load: Callable[[], SourceTable], ctx: SourceContext) -> SourceTable | str:
    """The source's table, read; or, where every download answered as in its last published run and nothing
    asks for a new audit, why it is kept as it is."""
    if ctx.stop_at is not None and time.monotonic() > ctx.stop_at:
        raise TimeoutError("the run's deadline passed before this source started; its last good data is kept")
    table = load()
    phases.phase("fetch")
    if table.unchanged:
        kept = _keep_unchanged(run, name, ctx)
        if kept is not None:
            return kept
        assert table.reload is not None  # an unchanged table always carries how to read it again
        table = table.reload()
    return table


def validate(run: RunState, name: str, table: SourceTable) -> Started:
    """The source's rows checked (an ``InputError`` names the source, field and value) and its benchmarks
    claimed for it (two sources may not publish one benchmark)."""
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
    # the pages of its per-item benchmarks: what a later source's per-item benchmark of one of them pools
    # (``joint_rows`` reads per-item rows only: a leaderboard of the same page is no one's pool)
    items = [] if frame is None else frame["benchmark"].unique()
    pages = {run.rules.page_for(n, table.pages.get(n)) for n in items}
    return Started(table, frame, aggs, names, pages)


def start_audits(run: RunState, source: str, started: Started, ctx: SourceContext, pool: Executor) -> None:
    """Plan each benchmark (unchanged: carried; unauditable or shrunk: skipped, said why) and start the audits
    of the others beside the run's other work: the per-item fits, then the leaderboards' figures."""
    if started.frame is not None:
        _start_per_item(run, source, started, ctx, pool)
    if started.aggs is not None:
        from benchwatch.pipeline.files import audit_leaderboard

        for name, rows in started.aggs.groupby("benchmark", sort=True):
            if not run.unchanged(name, source, content_revision(rows), None, None) and rows["model"].nunique() >= 2:
                where, ceiling = public_location(started.table.location), run.rules.ceiling_for(name)
                started.boards[name] = pool.call(audit_leaderboard, rows=rows, source=where, ceiling=ceiling)


def _start_per_item(run: RunState, source: str, started: Started, ctx: SourceContext, pool: Executor) -> None:
    """Each benchmark's audit started beside the run's other audits (on both cores), judged in order once all are
    in (``judge``). Two of one page start at once too: a benchmark pools the rows its page's others published
    before this source (``joint_rows`` reads the run's records and rows, which a source's batch reaches only when
    it is published), never what this source judges."""
    table, frame, batch, notes = started.table, started.frame, started.batch, started.notes
    assert frame is not None
    groups = list(frame.groupby("benchmark", sort=True))
    started.bar = bar = Progress(len(groups), source)
    for name, rows in groups:
        bar.step(logged_name(run.rules, name))
        page = run.rules.page_for(name, table.pages.get(name))
        rows, chance_from = with_chance(rows, table, run.rules, name)
        if page in run.pending_pages:  # a source still auditing publishes on this page: its rows first
            run.settle()
        pool_rows, joint = joint_rows(
            name, rows, page, run.records, run.fresh, lambda other: load_snapshot(run.reports, other)
        )
        revision = content_revision(rows if pool_rows is None else pd.concat([rows, pool_rows], ignore_index=True))
        if run.unchanged(name, source, revision, ctx.method, ctx.scale):
            run.carry(batch, name)
            notes.append(f"{logged_name(run.rules, name)} unchanged")
            continue
        # imported once a benchmark has changed: an unchanged run never loads the audit's numerical stack
        from benchwatch.pipeline.audit import unauditable

        stop = gate(run, batch, name, rows, unauditable(rows))
        if stop:
            notes.append(stop)
            continue
        change = _upstream(diff_snapshots(load_snapshot(run.reports, name), rows), table, name)
        try:
            args = audit_args(run, table, ctx, name, rows, pool_rows, chance_from)
        except AUDIT_ERRORS as exc:
            _judge_item(run, source, started, name, rows, joint, change, (None, str(exc), 0.0))
            continue
        started.pending.append((name, rows, joint, change, pool.submit(args, bar)))


def _upstream(change: dict, table: SourceTable, name: str) -> dict:
    """A benchmark's change, with what its source says of it: a rescoring (its checker changed), not progress."""
    return {**change, "upstream": table.rescored[name]} if name in table.rescored else change


def judge(run: RunState, source: str, started: Started, pool: Executor) -> None:
    """Each audit's figures judged by the rules (flags, verdicts, alerts, history: ``RunState.record``) into the
    source's batch, per-item benchmarks first, then the leaderboards, each in name order."""
    # the snapshots' bytes while the audits run (the run would wait for them, then write these after)
    ready = [snapshot_bytes(rows) for _, rows, *_ in started.pending]
    for (name, rows, joint, change, ticket), data in zip(started.pending, ready, strict=True):
        _judge_item(run, source, started, name, rows, joint, change, pool.result(ticket), data)
    if started.bar is not None:
        started.bar.close()
    if started.aggs is not None:
        _judge_boards(run, source, started, pool)


def _judge_item(run, source, started: Started, name, rows, joint, change, result, data: bytes | None = None) -> None:
    """One per-item audit's result into the batch: skipped with its error, or judged with its tables."""
    batch, notes, table = started.batch, started.notes, started.table
    done, error, seconds = result
    shown = logged_name(run.rules, name)
    if done is None:
        run.skip(batch, name, f"could not be audited: {error}")
        notes.append(f"{shown} skipped: {error}")
        return
    audit, how = done
    phases.phase("fit")
    from benchwatch.pipeline.audit_record import benchmark_record  # with the audit's result: its stack is in

    fig = provenance_of(benchmark_record(audit), table, rows)
    if joint is not None:
        fig = fig.model_copy(update={"joint_pool": joint})
    run.record(batch, fig, source, change, table.pages.get(name))
    if audit.coverage is not None:  # items placed on the axis (scores only: no item table)
        batch.tables.append((run.reports.items(name), audit.items.sort_values("item_id")))
    batch.tables.append((run.reports.models(name), audit.models.sort_values("model")))
    if audit.by_date is not None:
        batch.tables.append((run.reports.by_date(name), audit.by_date))
    batch.snapshots.append((name, rows, "responses", data))
    notes.append(f"{shown} {how} {seconds:.2f}s")
    if fig.blanks_warning:
        flagged = fig.blanks_warning["flagged"]
        notes.append(
            f"{shown}: WARNING {flagged} models leave blank the items they would likely fail: record a failed or "
            "errored sample as 0, never a blank"
        )
    elif fig.item_model == "withheld":
        notes.append(f"{shown}: bounds withheld, its item model does not fit (the page says why)")


def _judge_boards(run: RunState, source: str, started: Started, pool: Executor) -> None:
    """The leaderboards' figures into the batch, judged, in name order."""
    from benchwatch.metrics import with_tiers

    table, batch, notes = started.table, started.batch, started.notes
    assert started.aggs is not None
    for name, rows in started.aggs.groupby("benchmark", sort=True):
        if run.unchanged(name, source, content_revision(rows), None, None):
            run.carry(batch, name)
            continue
        one = f"only one model ({rows['model'].iloc[0]}): a leaderboard of one cannot be ranked"
        stop = gate(run, batch, name, rows, one if rows["model"].nunique() < 2 else None)
        if stop:
            notes.append(stop)
            continue
        change = _upstream(diff_snapshots(load_snapshot(run.reports, name, "aggregates"), rows), table, name)
        fig, by_date, tiers = pool.result(started.boards[name])
        fig = provenance_of(fig, table, rows)
        run.record(batch, fig, source, change, table.pages.get(name))
        if by_date is not None:
            batch.tables.append((run.reports.by_date(name), by_date))
        board = rows.assign(date=rows["date"].dt.strftime("%Y-%m-%d")) if "date" in rows else rows
        board = with_tiers(board.drop(columns="benchmark"), tiers)
        batch.tables.append((run.reports.models(name), board.sort_values("model")))
        batch.snapshots.append((name, rows, "aggregates", None))
        notes.append(f"{logged_name(run.rules, name)} leaderboard")


def _keep_unchanged(run: RunState, name: str, ctx: SourceContext) -> str | None:
    """Keep a source whose downloads all answered as in its last published run, or None to read it anyway
    (its last run failed, held or skipped data, a record rebuilt, other rules, method or scale, or --force)."""
    status = ctx.statuses.get(name, {})
    mine = [r for r in run.previous.values() if r.source_name == name and not r.gone_since]
    if run.force or not mine or status.get("status") != "ok" or status.get("rules") != run.rules.fingerprint():
        return None
    if any(r.rebuilt and not r.source_name for r in run.previous.values()):
        return None  # a record rebuilt from history.csv names no source: every source is read, so its own refits it
    held = any("notice" in rec.model_fields_set for rec in mine)
    if status.get("skipped") or held:  # held or skipped data: the rules decide
        return None
    if any(rec.figures_version != FIGURES_VERSION for rec in mine):  # made by an older benchwatch
        return None
    for rec in mine:
        fitted = rec.method is not None
        if rec.rebuilt or rec.refit or (fitted and (rec.method, rec.scale) != (ctx.method, ctx.scale)):
            return None
    for rec in mine:
        run.owners.setdefault(rec.benchmark, name)
    return f"every download as in the last run: {len(mine)} benchmark(s) kept, nothing read"


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
    executor: Executor | None = None,
) -> tuple[Delta, list[Callable[[], None]]]:
    """Fetch and audit every source against the reports as they stand, writing nothing; returns the
    delta and the callbacks to run once it has been committed (the sources' unchanged-run manifests).

    Each source runs as ``source_steps``: its audits start, then the run starts the next source while they run,
    and the sources are judged and published in their order. The audits run on ``executor`` (by default two
    forked workers for the run, ``ForkedExecutor``; ``SerialExecutor`` runs them in this process, in turn)."""
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
    pool = executor if executor is not None else ForkedExecutor()
    running: list[Generator[None, None, bool]] = []  # sources whose audits run, in the sources' order
    results: list[bool] = []

    def settle() -> None:  # judge and publish every source started so far, in order
        while running:
            results.append(_finish(running.pop(0)))

    run.settle = settle
    try:
        for name, load in sources:
            steps = source_steps(run, name, load, ctx, pool)
            next(steps)  # fetch, validate, plan and start its audits
            running.append(steps)
        settle()
    finally:
        if executor is None:
            pool.close()
    run.moved(statuses)
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
