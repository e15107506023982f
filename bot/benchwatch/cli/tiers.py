"""``benchwatch tiers``: who can be told apart, on your own results: tiers of tied models and rank intervals."""

from __future__ import annotations

import argparse
import json
import sys

from benchwatch import history, metrics, sources, store  # stages: their names load when the command runs


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
    table = sources.read_input(args.file)
    columns = list(table.frame.columns)
    if "item_id" not in columns and {"score", "n_items"} <= set(columns):
        rows = store.validate_aggregates(table.frame, table.location, percent=args.percent)
        groups = [(name, metrics.tiers_of_board(part)) for name, part in rows.groupby("benchmark", sort=True)]
    else:
        rows = store.validate_responses(table.frame, table.location)
        groups = [(name, metrics.tiers_of(part)) for name, part in rows.groupby("benchmark", sort=True)]
    if args.json:
        out = [{"benchmark": name, **t.summary(), "models": t.table()} for name, t in groups]
        sys.stdout.write(json.dumps(history.rounded(out), indent=2, sort_keys=True) + "\n")
        return 0
    for name, t in groups:
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
