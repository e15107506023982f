"""``benchwatch check``: verify a reports folder (and the built site) file by file and as a whole."""

from __future__ import annotations

import argparse

import benchwatch
from benchwatch.upkeep import DEFAULT_CONFIG
from benchwatch.words import count

ADVICE = "; run `benchwatch check` for every problem, `benchwatch repair` to fix"  # a reader's advice, not check's


def register(parser: argparse.ArgumentParser) -> None:
    """Add this command's options."""
    parser.add_argument(
        "--reports",
        default=None,
        help="the reports folder (default: reports when it holds a run, else the folder of the last "
        "`run --sample` or `run --input`)",
    )
    parser.add_argument("--site-out", default=None, help="the built site to check (default: that run's site)")
    parser.add_argument(
        "--config",
        default=None,
        help=f"the configuration to check first: its sources' adapters and options (default: {DEFAULT_CONFIG} "
        "when there is one)",
    )


def handle(args: argparse.Namespace) -> int:
    """Print each problem on one line; exit 1 if there is any, 0 otherwise (2: no such folder, or no run, or
    a configuration with an unknown adapter or an unknown or mistyped option: one line, before the reports)."""
    found = benchwatch.check(args.reports, site_out=args.site_out, config=args.config)
    if found.fallback:
        print(f"checking {found.reports}, the last run's reports (reports/ holds no run yet)")
    for line in found.problems:
        print(line.replace(ADVICE, ""))
    print(
        f"{count(len(found.problems), 'problem')} in {found.reports}"
        + (": run `benchwatch repair`" if found.problems else "")
    )
    return 1 if found.problems else 0
