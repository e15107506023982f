"""``benchwatch tiers``: who can be told apart, on your own results: tiers of tied models and rank intervals."""

from __future__ import annotations

import argparse

import benchwatch
from benchwatch.cli.output import print_json


def register(parser: argparse.ArgumentParser) -> None:
    """Add this command's options."""
    parser.add_argument(
        "file",
        metavar="FILE",
        help="per-item results (a CSV of benchmark,model,item_id,score[,trials]; Inspect logs; lm-evaluation-harness "
        "samples; a folder of them) or a leaderboard of published scores (benchmark,model,score,n_items[,stderr])",
    )
    parser.add_argument("--percent", action="store_true", help="a leaderboard's scores are percentages (0-100)")
    parser.add_argument("--json", action="store_true", help="print JSON: per benchmark its tiers and every model")


def handle(args: argparse.Namespace) -> int:
    """Tier every benchmark of the file and print each model with its score interval, tier, rank interval (from
    the tiers' own tests) and note (few items, or every item alike: ``metrics.model_notes``, as ``audit``)."""
    groups = benchwatch.tiers(args.file, percent=args.percent)
    if args.json:
        print_json([{"benchmark": name, **t.summary(), "models": t.table()} for name, t in groups.items()])
        return 0
    for name, t in groups.items():
        print(f"{name}: {len(t.models)} models in {t.n_tiers} tiers ({t.method}; Holm over all pairs, {t.alpha:.0%})")
        print(f"  top tier: {len(t.top)} model(s) that cannot be told apart from the best")
        for row in t.table():
            note = f"  ({row['note']})" if row["note"] else ""
            print(
                f"  tier {row['tier']}  {row['score']:.3f} [{row['score_lo']:.3f}, {row['score_hi']:.3f}]  "
                f"rank {row['rank_lo']}-{row['rank_hi']}  {row['model']}{note}"
            )
        if t.untiered:
            print(f"  {len(t.untiered)} further model(s) below the {len(t.models)} best: not tiered")
    return 0
