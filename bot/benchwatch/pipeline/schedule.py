"""The same job on a self-hosted box: APScheduler 3 with a cron trigger, one run at a time."""

from __future__ import annotations

import logging
import signal
from collections.abc import Callable
from datetime import UTC, datetime

from apscheduler.events import EVENT_JOB_ERROR, EVENT_JOB_EXECUTED, EVENT_JOB_MAX_INSTANCES, EVENT_JOB_MISSED
from apscheduler.schedulers.base import BaseScheduler
from apscheduler.schedulers.blocking import BlockingScheduler
from apscheduler.triggers.cron import CronTrigger

DEFAULT_CRON = "0 6 * * *"
JOB_ID = "benchwatch-run"
# A run that could not start on time (the box was asleep, say) still runs within this many seconds;
# runs missed meanwhile are coalesced into one, and a second run never starts while one is running.
JOB_OPTIONS = {"coalesce": True, "max_instances": 1, "misfire_grace_time": 3600}


def add_job(scheduler: BaseScheduler, job: Callable[[], object], trigger, log: Callable[[str], None]) -> None:
    """Register the job with the project's options and a log line for each outcome."""

    def outcome(event) -> None:
        if event.code == EVENT_JOB_EXECUTED:
            log(f"schedule: run finished: {event.retval}")
        elif event.code == EVENT_JOB_ERROR:
            log(f"schedule: run failed: {type(event.exception).__name__}: {event.exception}")
        elif event.code == EVENT_JOB_MAX_INSTANCES:
            log("schedule: skipped a run: the previous one is still running")
        elif event.code == EVENT_JOB_MISSED:
            log("schedule: missed a run beyond the grace time")

    scheduler.add_listener(outcome, EVENT_JOB_EXECUTED | EVENT_JOB_ERROR | EVENT_JOB_MAX_INSTANCES | EVENT_JOB_MISSED)
    scheduler.add_job(job, trigger, id=JOB_ID, name="benchwatch run", replace_existing=True, **JOB_OPTIONS)


def run_schedule(
    job: Callable[[], object], *, cron: str = DEFAULT_CRON, once: bool = False, log: Callable[[str], None] = print
) -> None:
    """Block and run ``job`` on ``cron`` (UTC) until SIGINT or SIGTERM; ``once`` runs it now and returns."""
    logging.getLogger("apscheduler").setLevel(logging.WARNING)
    trigger = CronTrigger.from_crontab(cron, timezone="UTC")  # checked with --once too: a bad cron fails now
    scheduler = BlockingScheduler(timezone="UTC")
    if once:
        add_job(scheduler, job, "date", log)  # a date trigger with no date means now

        def stop(event) -> None:
            if event.job_id == JOB_ID:
                scheduler.shutdown(wait=False)

        scheduler.add_listener(stop, EVENT_JOB_EXECUTED | EVENT_JOB_ERROR)
    else:
        add_job(scheduler, job, trigger, log)

        def shutdown(signum, frame) -> None:
            log(f"schedule: {signal.Signals(signum).name} received, stopping after the current run")
            scheduler.shutdown(wait=True)

        signal.signal(signal.SIGINT, shutdown)
        signal.signal(signal.SIGTERM, shutdown)
        log(f"schedule: cron {cron!r} (UTC), next run at {trigger.get_next_fire_time(None, datetime.now(UTC))}")
    scheduler.start()
