"""``benchwatch saturation``: the saturation index of aggregate-only leaderboards."""

from __future__ import annotations

import argparse

import benchwatch
from benchwatch.cli.output import evidence, print_json


def register(parser: argparse.ArgumentParser) -> None:
    """Add this command's options."""
    parser.add_argument("file", metavar="LEADERBOARD.csv")
    parser.add_argument("--percent", action="store_true", help="scores are percentages (0-100)")
    parser.add_argument("--ceiling", type=float, default=1.0, help="the score ceiling as a proportion (default: 1)")
    parser.add_argument("--json", action="store_true", help="print a JSON list")


def handle(args: argparse.Namespace) -> int:
    """Compute and print one record per benchmark."""
    records = benchwatch.leaderboard_saturation(args.file, percent=args.percent, ceiling=args.ceiling)
    if args.json:
        print_json([r.model_dump(by_alias=True, exclude_unset=True) for r in records])
        return 0
    for r in records:
        index = "n/a" if r.saturation_index is None else f"{r.saturation_index:.3f} ({r.band})"
        top = "" if r.top5 is None else f", best {r.top1:.3f}, fifth best {r.top5:.3f}"
        head = f"{r.benchmark}: {r.n_models} models, n = {r.n_items}"
        print(f"{head}: saturation index {index}{top} -> {r.state}{evidence(r)}")
    return 0
