"""``benchwatch fill``: plan new items for a benchmark's gaps, check candidates, or generate some."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from benchwatch import fill, history, rules, sources, store  # stages: their names load when the command runs
from benchwatch.errors import InputError
from benchwatch.vocabulary import FIGURES

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


def _plan_text(name: str, plan: list[dict], record: dict) -> str:
    if record.get("item_model") == "withheld":
        return f"{name}: its bounds are withheld ({record.get('withheld')}): no stretch to fill can be told"
    if not plan:
        said = "every gap verdict is clear" if record.get("verdicts") else "there is no gap verdict"
        return f"{name}: no stretch is shown thin and {said}: nothing to fill"
    lines = [f"{name}: {len(plan)} stretch(es) to fill (found thin, or may be empty where the verdict is cannot tell)"]
    for k, g in enumerate(plan, 1):
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


def _figure(f: dict) -> str:
    return f"{f['value']:.3f} ({f['lo']:.3f}-{f['hi']:.3f})"


def _bounds_line(b: dict) -> str:
    """The bounds, each verdict beside the figures it judged under their own names (one name per claim)."""
    v = b["verdicts"]
    names = {key: figure.verdict for key, figure in FIGURES.items()}
    thin, thin5 = b.get("thin_width") or 0.0, b.get("thin_top5") or 0.0
    return (
        f"DDM {b['ddm_bound_lo']:.3f}-{b['ddm_bound_hi']:.3f} ({v.get('ddm', '-')}); {names['max_gap']} "
        f"{v.get('max_gap', '-')}: Max Gap's bound {rules.bound_text(b['detection_limit'])}, thin stretch {thin:.3f}; "
        f"{names['top5_gap_sum']} {v.get('top5_gap_sum', '-')}: top-5 gap sum's bound "
        f"{rules.bound_text(b.get('top5_gap_sum_bound_hi'))}, thin in all {thin5:.3f}"
    )


def _check_text(result: dict) -> str:
    n = len(result["candidates"])
    lines = [f"{result['benchmark']}: {n} candidate(s) on a pool of {result['pool']} models"]
    for c in result["candidates"]:
        lines.append(
            f"  {c['item_id']}: z {c['z']:.3f} ({c['z_lo']:.3f}-{c['z_hi']:.3f}), b {c['b']:.2f}, "
            f"{c['models']} models: {c['message']}"
        )
    for g, expected in zip(result["stretches"], result["expected_inside"], strict=True):
        lines.append(f"  stretch {g['lo']:.3f}-{g['hi']:.3f}: {expected:.1f} of the {n} candidate(s) expected inside")
    if result["left_out_models"]:
        lines.append(f"  left out: responses of {len(result['left_out_models'])} model(s) outside the pool")
    before, after = result.get("bounds_before"), result.get("bounds_after")
    if before:
        lines.append(f"  published, for any difficulty distribution: {_bounds_line(before)}")
    if after:
        lines.append(f"  with all {n} candidate(s), the audit's bounds: {_bounds_line(after)}")
    elif result.get("withheld"):
        lines.append(f"  bounds: withheld by the audit ({result['withheld']}): none before or after")
    elif before:
        lines.append(
            "  with the candidates: no bounds (the reports keep no snapshot or abilities of the audit, or its "
            "items were placed in a joint pool or by a 2PL)"
        )
    if result.get("reproduced") is False:
        lines.append(
            "  note: the audit's computation repeated without the candidates does not give the published verdicts "
            f"({_bounds_line(result['recomputed']['bounds'])}): compare the after with that, not with the published"
        )
    if result.get("after"):
        lines.append(f"  model-based figures (smooth difficulties assumed), after from {result['after_from']}:")
        for key, label in (("ddm", "DDM"), ("max_gap", "Max Gap"), ("top5_gap_sum", "top-5 gap sum")):
            said = "published" if result["published"].get(key) is not None else "now"
            lines.append(
                f"  {label}: {_figure(result['before'][key])} {said} -> {_figure(result['after'][key])} "
                f"with all {n} candidate(s)"
            )
    lines.append(f"  inside a stretch (probability 0.95 or more): {', '.join(result['accepted']) or 'none'}")
    return "\n".join(lines)


def handle(args: argparse.Namespace) -> int:
    """Run the chosen action."""
    bench = fill.load_benchmark(args.reports, args.benchmark)
    if args.action == "plan":
        plan = fill.fill_plan(bench)
        text = _plan_text(args.benchmark, plan, bench.record)
        print(json.dumps(history.rounded(plan), indent=2) if args.json else text)
        return 0
    if args.action == "check":
        table = sources.fetch_csv_file(args.candidates)
        rows = store.validate_responses(table.frame, table.location)
        try:
            result = fill.check_candidates(bench, rows)
        except ValueError as exc:
            raise InputError(args.candidates, str(exc)) from None
        print(json.dumps(history.rounded(result), indent=2) if args.json else _check_text(result))
        if args.record:
            path = fill.record_proposal(args.reports, bench, result, rows)
            print(f"fill check: the candidates recorded as a proposed revision in {path}", file=sys.stderr)
        return 0
    endpoint = args.endpoint or os.environ.get("BENCHWATCH_ENDPOINT") or os.environ.get("OPENAI_BASE_URL")
    if not endpoint:
        raise InputError("--endpoint", "no endpoint: pass --endpoint URL or set BENCHWATCH_ENDPOINT")
    texts = _texts(args.items)
    variables = (args.api_key_env,) if args.api_key_env else KEY_VARIABLES
    key = next((os.environ[v] for v in variables if os.environ.get(v)), None)
    try:
        made = fill.generate_candidates(
            fill.fill_plan(bench), texts, endpoint=endpoint, model=args.model, api_key=key, per_gap=args.per_gap
        )
    except RuntimeError as exc:
        raise InputError("--endpoint", str(exc)) from None
    store.atomic_write_text(args.out, "".join(json.dumps(c, sort_keys=True) + "\n" for c in made))
    print(f"fill generate: {len(made)} candidate(s) -> {args.out}")
    return 0


def _texts(path: str) -> dict[str, str]:
    """item_id -> text from a JSONL file (``item_id`` or ``id``; ``text``, ``question``, ``input`` or ``prompt``)."""
    out = {}
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise InputError(path, "no such file") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as exc:
            raise InputError(path, f"not JSON: {exc}", row=number) from None
        key = obj.get("item_id", obj.get("id")) if isinstance(obj, dict) else None
        text = next((obj[k] for k in ("text", "question", "input", "prompt") if isinstance(obj.get(k), str)), None)
        if key is None or text is None:
            raise InputError(path, "expected item_id (or id) and text (or question, input, prompt)", row=number)
        out[str(key)] = text
    return out
