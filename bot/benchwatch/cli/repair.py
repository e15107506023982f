"""``benchwatch repair``: rebuild what can be rebuilt of a damaged reports folder, keeping a backup."""

from __future__ import annotations

import argparse
from pathlib import Path

from benchwatch import history, site  # stages: their names load when the command runs
from benchwatch.errors import InputError
from benchwatch.words import count


def register(parser: argparse.ArgumentParser) -> None:
    """Add this command's options."""
    parser.add_argument("--reports", default="reports", help="the reports folder (default: reports)")
    parser.add_argument("--site-out", default="_site", help="the built site to put back if a run died (default: _site)")


def handle(args: argparse.Namespace) -> int:
    """Print what was done, then what is still wrong; exit 1 if anything is (2: no such folder)."""
    if not Path(args.reports).is_dir():
        raise InputError("--reports", "no such reports folder (nothing to repair)", value=args.reports)
    done = history.repair_reports(args.reports)
    if site.restore_site(Path(args.site_out).resolve()):
        done.append(f"{args.site_out}: the last good site put back")
        print(done[-1])
    left = history.check_reports(args.reports, args.site_out, pending=False)  # what the next run mends: not left
    for line in left:
        print(f"still wrong: {line}")
    print(f"repaired {count(len(done), 'file')} in {args.reports}; {count(len(left), 'problem')} left")
    return 1 if left else 0
