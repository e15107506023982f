"""``benchwatch fill``: plan new items for a benchmark's gaps, check candidates, or generate some."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

import benchwatch
from benchwatch.cli.output import bounds_line, print_json
from benchwatch.record import as_record

if TYPE_CHECKING:
    from benchwatch.gap_filling import CandidateCheck, FillPlan

KEY_VARIABLES = ("BENCHWATCH_API_KEY", "OPENAI_API_KEY")


def register(parser: argparse.ArgumentParser) -> None:
    """Add this command's options."""
    sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    plan = sub.add_parser(
        "plan", help="for each stretch found thin or that may be empty: target z and b, seeds, solve odds"
    )
    check = sub.add_parser(
        "check", help="place candidate items on the benchmark's axis; its bounds and figures with them all added"
    )
    generate = sub.add_parser("generate", help="ask an OpenAI-compatible endpoint for candidate items per gap")
    for p in (plan, check, generate):
        p.add_argument("benchmark", metavar="BENCHMARK")
        p.add_argument("--reports", default="reports", help="the reports folder of its audit (default: reports)")
    for p in (plan, check):
        p.add_argument("--json", action="store_true", help="print the whole result as JSON")
    check.add_argument("candidates", metavar="CANDIDATES.csv", help="model,item_id,score[,trials] of the pool's models")
    check.add_argument("--record", action="store_true", help="keep the candidates as a proposed revision")
    generate.add_argument("--items", required=True, metavar="ITEMS.jsonl", help="the benchmark's item texts")
    generate.add_argument(
        "--endpoint",
        default=None,
        metavar="URL",
        help="an OpenAI-compatible API base URL (default: $BENCHWATCH_ENDPOINT, else $OPENAI_BASE_URL)",
    )
    generate.add_argument("--model", required=True, help="the generating model's name at that endpoint")
    generate.add_argument("--per-gap", type=int, default=3, help="candidates asked for per gap (default: 3)")
    generate.add_argument("--out", default="candidates.jsonl", help="where the candidates go (default: %(default)s)")
    generate.add_argument(
        "--api-key-env",
        default=None,
        metavar="VAR",
        help=f"the variable holding the key (default: {' or '.join(KEY_VARIABLES)})",
    )


def _plan_text(plan: FillPlan) -> str:
    name, record = plan.benchmark, plan.record
    if record.item_model == "withheld":
        return f"{name}: its bounds are withheld ({record.withheld}): no stretch to fill can be told"
    if not plan.stretches:
        said = "every gap verdict is clear" if record.verdicts else "there is no gap verdict"
        return f"{name}: no stretch is shown thin and {said}: nothing to fill"
    lines = [
        f"{name}: {len(plan.stretches)} stretch(es) to fill (found thin, or may be empty where the verdict is "
        "cannot tell)"
    ]
    for k, g in enumerate(plan.stretches, 1):
        seeds = ", ".join(f"{s['item_id']} ({s['z']:.3f})" for s in (*g["seeds_below"], *g["seeds_above"]))
        solve = g["solve"]  # most likely to solve first
        odds = f"{solve[0]['p']:.2f} ({solve[0]['model']}) down to {solve[-1]['p']:.2f} ({solve[-1]['model']}); "
        odds += f"{sum(m['p'] >= 0.5 for m in solve)} of {len(solve)} models at 0.5 or more (all of them: --json)"
        lines += [
            f"stretch {k}: z {g['lo']:.3f}-{g['hi']:.3f} (width {g['width']:.3f}, {g['verdict']}: {g['why']}); "
            f"target z {g['target_z']:.3f}, b {g['target_b']:.3f}",
            f"  seeds: {seeds}",
            f"  solve probability at the target: {odds}",
        ]
    return "\n".join(lines)


def _figure(f: dict[str, float]) -> str:
    return f"{f['value']:.3f} ({f['lo']:.3f}-{f['hi']:.3f})"


def _check_text(checked: CandidateCheck) -> str:
    result = checked.found
    n = len(result.candidates)
    lines = [f"{result.benchmark}: {n} candidate(s) on a pool of {result.pool} models"]
    for c in result.candidates:
        lines.append(
            f"  {c['item_id']}: z {c['z']:.3f} ({c['z_lo']:.3f}-{c['z_hi']:.3f}), b {c['b']:.2f}, "
            f"{c['models']} models: {c['message']}"
        )
    for g, expected in zip(result.stretches, result.expected_inside, strict=True):
        lines.append(f"  stretch {g['lo']:.3f}-{g['hi']:.3f}: {expected:.1f} of the {n} candidate(s) expected inside")
    if result.left_out_models:
        lines.append(f"  left out: responses of {len(result.left_out_models)} model(s) outside the pool")
    before, after = result.bounds_before, result.bounds_after
    if before:
        lines.append(f"  published, for any difficulty distribution: {bounds_line(as_record(before))}")
    if after:
        lines.append(f"  with all {n} candidate(s), the audit's bounds: {bounds_line(as_record(after))}")
    elif result.withheld:
        lines.append(f"  bounds: withheld by the audit ({result.withheld}): none before or after")
    elif before:
        lines.append(
            "  with the candidates: no bounds (the reports keep no snapshot or abilities of the audit, or its "
            "items were placed in a joint pool or by a 2PL)"
        )
    if result.reproduced is False and result.recomputed is not None:
        lines.append(
            "  note: the audit's computation repeated without the candidates does not give the published verdicts "
            f"({bounds_line(as_record(result.recomputed['bounds']))}): compare the after with that, not with the "
            "published"
        )
    if result.after:
        lines.append(f"  model-based figures (smooth difficulties assumed), after from {result.after_from}:")
        for key, label in (("ddm", "DDM"), ("max_gap", "Max Gap"), ("top5_gap_sum", "top-5 gap sum")):
            said = "published" if result.published.get(key) is not None else "now"
            lines.append(
                f"  {label}: {_figure(result.before[key])} {said} -> {_figure(result.after[key])} "
                f"with all {n} candidate(s)"
            )
    lines.append(f"  inside a stretch (probability 0.95 or more): {', '.join(result.accepted) or 'none'}")
    return "\n".join(lines)


def handle(args: argparse.Namespace) -> int:
    """Run the chosen action."""
    if args.action == "plan":
        plan = benchwatch.fill_plan(args.benchmark, reports=args.reports)
        if args.json:
            print_json(plan.stretches, sort_keys=False)
        else:
            print(_plan_text(plan))
        return 0
    if args.action == "check":
        checked = benchwatch.fill_check(args.benchmark, args.candidates, reports=args.reports, record=args.record)
        if args.json:
            print_json(checked.found.model_dump(), sort_keys=False)
        else:
            print(_check_text(checked))
        if checked.proposal is not None:
            print(f"fill check: the candidates recorded as a proposed revision in {checked.proposal}", file=sys.stderr)
        return 0
    variables = (args.api_key_env,) if args.api_key_env else KEY_VARIABLES
    key = next((os.environ[v] for v in variables if os.environ.get(v)), None)
    made = benchwatch.fill_generate(
        args.benchmark,
        args.items,
        model=args.model,
        endpoint=args.endpoint,
        api_key=key,
        per_gap=args.per_gap,
        out=args.out,
        reports=args.reports,
        progress=True,
    )
    print(f"fill generate: {len(made)} candidate(s) -> {args.out}")
    return 0
