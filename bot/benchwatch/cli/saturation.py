"""``benchwatch saturation``: the saturation index of aggregate-only leaderboards."""

from __future__ import annotations

import argparse
import json
import sys

from benchwatch import history, metrics, sources, store  # stages: their names load when the command runs


def register(parser: argparse.ArgumentParser) -> None:
    """Add this command's options."""
    parser.add_argument("file", metavar="LEADERBOARD.csv")
    parser.add_argument("--percent", action="store_true", help="scores are percentages (0-100)")
    parser.add_argument("--ceiling", type=float, default=1.0, help="the score ceiling as a proportion (default: 1)")
    parser.add_argument("--json", action="store_true", help="print a JSON list")


def handle(args: argparse.Namespace) -> int:
    """Compute and print one record per benchmark."""
    table = store.validate_aggregates(sources.read_csv_text(args.file), args.file, percent=args.percent)
    records = metrics.leaderboard_saturation(table, ceiling=args.ceiling)
    if args.json:
        sys.stdout.write(json.dumps(history.rounded(records), indent=2, sort_keys=True) + "\n")
        return 0
    for r in records:
        index = "n/a" if r["saturation_index"] is None else f"{r['saturation_index']:.3f} ({r['band']})"
        top = "" if r["top5"] is None else f", best {r['top1']:.3f}, fifth best {r['top5']:.3f}"
        head = f"{r['benchmark']}: {r['n_models']} models, n = {r['n_items']}"
        print(f"{head}: saturation index {index}{top} -> {r['state']}{_evidence(r)}")
    return 0


def _evidence(rec: dict) -> str:
    from benchwatch.metrics import state_evidence

    words = state_evidence(rec)
    return f", decided {words}" if words else ""
