"""``benchwatch schedule``: run the job on a cron schedule with APScheduler (self-hosted boxes)."""

from __future__ import annotations

import argparse

import benchwatch
from benchwatch.cli import run as run_command
from benchwatch.jobs import DEFAULT_CRON


def register(parser: argparse.ArgumentParser) -> None:
    """The run command's options, plus the schedule's."""
    run_command.register(parser, scheduled=True)
    parser.add_argument("--cron", default=DEFAULT_CRON, help=f"crontab expression in UTC (default: {DEFAULT_CRON!r})")
    parser.add_argument("--once", action="store_true", help="run the job once through the scheduler, then exit")


def handle(args: argparse.Namespace) -> int:
    """Block until stopped (or, with --once, until the one run ends)."""
    outcomes: list[int] = []

    def job() -> str:
        status = run_command.handle(args)
        outcomes.append(status)
        return f"exit status {status}"

    benchwatch.schedule(job, cron=args.cron, once=args.once, progress=True)
    return outcomes[-1] if args.once and outcomes else 0
