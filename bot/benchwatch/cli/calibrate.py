"""``benchwatch calibrate``: new items given known abilities, or new models given known difficulties."""

from __future__ import annotations

import argparse
import sys

import benchwatch


def register(parser: argparse.ArgumentParser) -> None:
    """Add this command's options."""
    parser.add_argument("file", metavar="RESPONSES.csv", help="responses of the new items or new models")
    known = parser.add_mutually_exclusive_group(required=True)
    known.add_argument("--abilities", metavar="MODELS.csv", help="known abilities (model,theta): fit new items")
    known.add_argument("--difficulties", metavar="ITEMS.csv", help="known difficulties (item_id,b): fit new models")
    parser.add_argument("--out", metavar="FILE.csv", help="write here instead of standard output")


def handle(args: argparse.Namespace) -> int:
    """Calibrate and write the estimates as CSV."""
    done = benchwatch.calibrate(args.file, abilities=args.abilities, difficulties=args.difficulties, out=args.out)
    for line in done.left_out:
        print(f"calibrate: {line}", file=sys.stderr)
    if not args.out:
        sys.stdout.write(done.csv())
    return 0
