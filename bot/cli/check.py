"""``benchwatch check``: verify a reports folder (and the built site) file by file and as a whole."""

from __future__ import annotations

import argparse
from pathlib import Path

from bot import history  # its names load when the command runs
from bot.errors import InputError
from bot.words import count


def register(parser: argparse.ArgumentParser) -> None:
    """Add this command's options."""
    parser.add_argument("--reports", default="reports", help="the reports folder (default: reports)")
    parser.add_argument("--site-out", default="_site", help="the built site to check (default: _site)")


def handle(args: argparse.Namespace) -> int:
    """Print each problem on one line; exit 1 if there is any, 0 otherwise (2: no such folder)."""
    if not Path(args.reports).is_dir():  # nothing to check or repair: a mistyped path, not a damaged folder
        raise InputError("--reports", "no such reports folder (nothing to check)", value=args.reports)
    problems = history.check_reports(args.reports, args.site_out)
    for line in problems:
        print(line)
    print(f"{count(len(problems), 'problem')} in {args.reports}" + (": run `benchwatch repair`" if problems else ""))
    return 1 if problems else 0
