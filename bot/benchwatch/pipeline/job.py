"""The audit job: sources -> store -> irt -> metrics -> rules/alerts -> reports -> site. ``gather`` fetches
and audits (``benchwatch.pipeline.gather``), ``apply_delta`` writes reports/ (``benchwatch.pipeline.apply``), and this
module runs them under the reports' lock, then builds the site with the build its caller hands it: the job imports
no stage after the reports' (the site is a later one)."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from filelock import FileLock, Timeout

from benchwatch.errors import BusyError, InputError
from benchwatch.history import Reports, load_alerts, load_changelog, load_history, load_latest, load_runs
from benchwatch.irt import DEFAULT_SCALE
from benchwatch.pipeline import phases
from benchwatch.pipeline.apply import JobResult, apply_delta
from benchwatch.pipeline.gather import gather
from benchwatch.pipeline.heal import heal
from benchwatch.pipeline.run_state import DEFAULT_RULES
from benchwatch.rules import RuleBook
from benchwatch.sources import SourceTable
from benchwatch.store import slug_collisions

__all__ = ["BusyError", "JobResult", "merge_parts", "run_job"]

LOCK_NAME = ".benchwatch.lock"


class SiteBuild(Protocol):
    """How the job builds the site from the reports folder: ``benchwatch.site.build_site``, handed in by the job's
    caller (``benchwatch.api.run``, ``benchwatch merge``)."""

    def __call__(
        self, reports_dir: Path, out_dir: str | Path, *, site_url: str | None, now: str, phase: Callable[[str], None]
    ) -> int: ...


def _build(
    reports: Reports,
    site_out: str | Path | None,
    build_site: SiteBuild | None,
    now: str,
    log: Callable[[str], None],
    site_url: str | None = None,
) -> int:
    """The site built into ``site_out`` by ``build_site`` (its pages), timed as the run's last stage; 0 without one."""
    if site_out is None or build_site is None:
        return 0
    with phases.stage("site", log) as notes:
        pages = build_site(reports.root, site_out, now=now, phase=phases.phase, site_url=site_url)
        notes.append(f"{pages} pages -> {site_out}")
    return pages


def _site_built(site_out: str | Path | None, build_site: SiteBuild | None) -> None:
    """Refuse, before any work, a site to build without the build that builds it (the caller's mistake)."""
    if site_out is not None and build_site is None:
        raise ValueError(f"a site to build in {site_out} needs the build_site that builds it")


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
    build_site: SiteBuild | None = None,
    log: Callable[[str], None] = print,
) -> JobResult:
    """Run every stage once for every source; with ``strict`` off a failing source never stops the others.

    The reports folder is locked for the whole run, the site build included, and its files (figures, history,
    alerts, tables and the snapshots of the data behind them) change together at the end, or not at all if the run dies
    before; the site (into ``site_out``, by ``build_site``) is built aside and swapped in only when the build
    succeeded. A source that has not started ``deadline`` seconds after the run did fails with that reason (its
    last good data is kept).

    With ``part_out`` the run writes nothing into the reports folder: what its sources produced goes to
    that folder as a part (``benchwatch.pipeline.parts``), for ``merge_parts`` to combine with the others'.
    """
    started = time.perf_counter()
    _site_built(site_out, build_site)
    now = now or phases.utc_now()
    reports = _open_reports(reports_dir)
    options: dict[str, Any] = {"now": now, "cache": Path(cache_dir), "force": force, "strict": strict, "method": method}
    options["sampler"] = sampler
    options.update({"scale": scale, "rules": rules, "deadline": deadline, "log": log})
    lock = _acquire(reports.root / LOCK_NAME, lock_timeout, log)
    try:
        if part_out is not None:
            from benchwatch.pipeline.parts import write_part

            delta, published = gather(sources, reports, **options)
            write_part(part_out, delta, reports, now=now, position=position)
            log(f"part      {len(delta.records)} benchmarks of {', '.join(delta.sources)} -> {part_out}")
            counts = (len(delta.records), len(delta.new_rows), len(delta.new_alerts))
            result = JobResult(*counts, 0, delta.ok, delta.failed)
        else:
            healed = heal(reports, now, log)  # what `repair` would rebuild, before anything is read or written
            with reports.transaction(on_commit=lambda: phases.phase("commit swap")):
                delta, published = gather(sources, reports, **options)
                if healed is not None:
                    delta.new_alerts.append(healed)
                result = apply_delta(reports, delta, now=now, started=started, log=log)
            _say_still_rebuilt(reports, delta.failed, log)
        for callback in published:  # after the commit: a run killed before this only reads again
            callback()
        if part_out is None:  # under the lock: two runs never build one site at once
            result = dataclasses.replace(result, pages=_build(reports, site_out, build_site, now, log, site_url))
    finally:
        lock.release()
    return result


def _say_still_rebuilt(reports: Reports, failed: int, log: Callable[[str], None]) -> None:
    """A run ends with no record rebuilt from history.csv left, or says which are left and why: no source of this
    run provided them (a source that failed keeps its records until it answers)."""
    left = sorted(name for name, rec in load_latest(reports).items() if rec.rebuilt)
    if left:
        why = f"{failed} source(s) failed this run (named above)" if failed else "no source of this run provides them"
        log(f"rebuilt   {len(left)} record(s) still as rebuilt from history.csv: {', '.join(left)}: {why}")


def merge_parts(
    part_dirs: list[str | Path],
    *,
    reports_dir: str | Path,
    site_out: str | Path | None,
    now: str | None = None,
    lock_timeout: float = 600.0,
    site_url: str | None = None,
    build_site: SiteBuild | None = None,
    log: Callable[[str], None] = print,
) -> JobResult:
    """Combine the parts of a fan-out (``run_job(part_out=...)`` on several runners) into reports/ in one
    commit, as one run over all their sources would have written it, then build the site (into ``site_out``, by
    ``build_site``).

    Refused, with nothing written: a part computed from other reports than these (the parts of one
    fan-out start from one commit), two parts that carry one source or one benchmark, names that would
    share a file.
    """
    from benchwatch.pipeline.parts import combine, read_part

    started = time.perf_counter()
    _site_built(site_out, build_site)
    parts = [read_part(p) for p in part_dirs]
    reports = _open_reports(reports_dir)
    lock = _acquire(reports.root / LOCK_NAME, lock_timeout, log)
    try:
        with reports.transaction(on_commit=lambda: phases.phase("commit swap")):
            for load in (load_history, load_alerts, load_changelog, load_runs):
                load(reports)
            delta, when = combine(parts, reports)
            for a, b in slug_collisions(set(delta.records) | set(load_latest(reports))):
                raise InputError(str(reports.root), f"benchmarks {a!r} and {b!r} would share one file name")
            result = apply_delta(reports, delta, now=now or when, started=started, log=log)
        return dataclasses.replace(result, pages=_build(reports, site_out, build_site, now or when, log, site_url))
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
