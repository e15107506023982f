"""``benchwatch check``: verify a reports folder (and the built site) file by file and as a whole."""

from __future__ import annotations

import argparse

from bot import history  # its names load when the command runs


def register(parser: argparse.ArgumentParser) -> None:
    """Add this command's options."""
    parser.add_argument("--reports", default="reports", help="the reports folder (default: reports)")
    parser.add_argument("--site-out", default="_site", help="the built site to check (default: _site)")


def handle(args: argparse.Namespace) -> int:
    """Print each problem on one line; exit 1 if there is any, 0 otherwise."""
    problems = history.check_reports(args.reports, args.site_out)
    for line in problems:
        print(line)
    print(f"{len(problems)} problem(s) in {args.reports}" + (": run `benchwatch repair`" if problems else ""))
    return 1 if problems else 0
