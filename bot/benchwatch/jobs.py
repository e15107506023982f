"""The job beyond one run, as ``benchwatch merge`` and ``benchwatch schedule`` do it: the parts of a fan-out merged
into the reports folder, and the run on a schedule.

Only the standard library loads with this module; the stages load when a function runs.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchwatch import pipeline, sources
from benchwatch import site as stage_site
from benchwatch.api import run
from benchwatch.errors import InputError
from benchwatch.pipeline import DEFAULT_CRON
from benchwatch.progress import silenced

if TYPE_CHECKING:
    from benchwatch.pipeline import JobResult

__all__ = ["DEFAULT_CRON", "merge", "schedule"]


def merge(
    parts: Sequence[str | Path],
    *,
    reports: str | Path = "reports",
    site_out: str | Path = "_site",
    site: bool = True,
    site_url: str | None = None,
    lock_timeout: float = 600.0,
    progress: bool = False,
) -> JobResult:
    """Merge the parts of a fan-out (``run(reports_out=...)`` on several runners) into ``reports`` in one commit,
    as one run over all their sources would have written it, then build the site into ``site_out`` (unless
    ``site`` is off), as ``benchwatch merge`` does. Returns the pipeline's ``JobResult``, as ``run``'s.

    Refused, with nothing written (an ``InputError``): a bad ``site_url``, parts computed from other reports than
    these, two parts that carry one source or one benchmark. ``progress``: the merge's log and progress shown.
    """
    if site_url:  # refused before any part is read, not once the merged reports are written
        sources.check_address(site_url, "--site-url")
    with silenced(not progress):
        return pipeline.merge_parts(
            list(parts),
            reports_dir=reports,
            site_out=site_out if site else None,
            lock_timeout=lock_timeout,
            site_url=site_url,
            build_site=stage_site.build_site,
            log=print if progress else _unsaid,
        )


def schedule(
    job: Callable[[], object] | None = None,
    *,
    cron: str = DEFAULT_CRON,
    once: bool = False,
    progress: bool = False,
    **options: Any,
) -> None:
    """Run the job on ``cron`` (a crontab expression, in UTC) with APScheduler until SIGINT or SIGTERM, as
    ``benchwatch schedule`` does: ``run(**options)`` each time, or ``job`` (a function of no arguments; the log
    names what it returns) instead. One run at a time; runs missed meanwhile are coalesced into one. ``once``: one
    run now, through the scheduler, then return. ``progress``: the schedule's log shown, and each run's as
    ``run`` shows it. A bad ``cron`` is an ``InputError``, raised before any run.
    """
    if job is not None and options:
        raise TypeError("schedule() takes a job or run()'s options, not both")
    work = job or functools.partial(run, progress=progress, **options)
    try:
        pipeline.run_schedule(work, cron=cron, once=once, log=print if progress else _unsaid)
    except ValueError as exc:
        raise InputError("--cron", str(exc), value=cron) from None


def _unsaid(line: str) -> None:
    """The log when no progress is asked for."""
