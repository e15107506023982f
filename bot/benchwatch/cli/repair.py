"""``benchwatch repair``: rebuild what can be rebuilt of a damaged reports folder, keeping a backup."""

from __future__ import annotations

import argparse

import benchwatch
from benchwatch.words import count


def register(parser: argparse.ArgumentParser) -> None:
    """Add this command's options."""
    parser.add_argument("--reports", default="reports", help="the reports folder (default: reports)")
    parser.add_argument("--site-out", default="_site", help="the built site to put back if a run died (default: _site)")


def handle(args: argparse.Namespace) -> int:
    """Print what was done, then what is still wrong; exit 1 if anything is (2: no such folder)."""
    repaired = benchwatch.repair(args.reports, site_out=args.site_out, progress=True)  # each repair shown when made
    for line in repaired.left:
        print(f"still wrong: {line}")
    left = count(len(repaired.left), "problem")
    print(f"repaired {count(len(repaired.done), 'file')} in {args.reports}; {left} left")
    return 1 if repaired.left else 0
