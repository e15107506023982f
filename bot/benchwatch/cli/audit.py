"""``benchwatch audit``: audit one file of responses (or of difficulties) and print its figures."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from benchwatch import api, history, pipeline, rules, sources, store  # stages: their names load when the command runs
from benchwatch.errors import InputError
from benchwatch.irt import METHODS, SAMPLERS, SCALES


def register(parser: argparse.ArgumentParser) -> None:
    """Add this command's options."""
    parser.add_argument(
        "file",
        metavar="FILE",
        help="a CSV of responses (benchmark,model,item_id,score) or of item_id,z; or evaluation logs: Inspect "
        "(.eval, .json), lm-evaluation-harness samples_*.jsonl, Every Eval Ever records (<uuid>.json with its "
        "_samples.jsonl), or a folder of them",
    )
    parser.add_argument("--method", choices=METHODS, default="map", help="fitting method (default: map)")
    parser.add_argument(
        "--sampler", choices=SAMPLERS, default="auto", help="NUTS sampler with --method nuts (see `run --help`)"
    )
    parser.add_argument("--scale", choices=SCALES, default=SCALES[0], help="difficulty scale (default: %(default)s)")
    parser.add_argument("--json", action="store_true", help="print JSON (an object, or a list for several)")
    parser.add_argument("--items-out", metavar="FILE.csv", help="write item_id,b,b_sd,z for every item")
    parser.add_argument(
        "--eee-out",
        metavar="DIR",
        help="write the per-item table as Every Eval Ever records (schema 0.3.0) under DIR/data/",
    )
    parser.add_argument(
        "--reports",
        default=None,
        metavar="DIR",
        help="also write each benchmark's history by date to DIR/by_date/ (default: nothing is written)",
    )


def _text(rec: dict) -> str:
    def f(key: str) -> str:
        value = rec.get(key)
        if value is None:
            return "n/a"
        lo, hi = rec.get(f"{key}_lo"), rec.get(f"{key}_hi")
        return f"{value:.3f}" + (f" [{lo:.3f}, {hi:.3f}]" if lo is not None else "")

    method = rec["method"]
    if rec.get("figures_from") not in (None, method):  # --method nuts: the figures are the MAP's (a check beside)
        method = f"{method}: figures from {rec['figures_from']}"
    fit = f"{method}, {'converged' if rec['converged'] else 'NOT converged'}" if rec["method"] else "given z"
    if rec.get("unplaced"):
        fit = "no fit"
    lines = [
        f"{rec['benchmark']}: {rec.get('n_models') or '?'} models x {rec['n_items']} items ({fit}; z: {rec['scale']})"
    ]
    if rec.get("unplaced"):
        lines.append(f"  {rec['unplaced']}")
    noted = {m["model"]: m["why"] for m in rec.get("tier_notes") or []}  # pipeline.model_notes, as `tiers` says
    for m in rec.get("uninformative") or []:
        rest = noted.pop(m["model"], None)
        rest = None if rest is None else rest.removeprefix(m["why"]).removeprefix("; ")
        tiered = "" if rest is None else "; tiered by its score" + (f" ({rest})" if rest else "")
        lines.append(f"  left out of the fit: {m['model']} ({m['why']}){tiered}")
    lines += [f"  tiered with a note: {m} ({why})" for m, why in noted.items()]
    lines += _item_model(rec)
    check = rec.get("nuts_check")
    if check:  # --method nuts: the figures stay the MAP's; what NUTS says beside them
        lines.append(
            f"  nuts, run as a check (the figures are the {rec.get('figures_from')} fit's): "
            f"{'converged' if check['converged'] else 'NOT converged'} (R-hat {check['max_rhat']:.3f}, bulk ESS "
            f"{check['min_ess_bulk']:.0f}, {check['divergences']} divergences, {check['seconds']:.0f} s); its DDM "
            f"{check['ddm']:.3f} [{check['ddm_lo']:.3f}, {check['ddm_hi']:.3f}], Max Gap {check['max_gap']:.3f} "
            f"[{check['max_gap_lo']:.3f}, {check['max_gap_hi']:.3f}]; {check['distinct_z']} distinct positions "
            f"({check['distinct_z_unpooled']} before pooling items of identical responses)"
        )
    found = rules.verdicts(rec, rules.DEFAULT_THRESHOLDS)
    if found:
        lines.append(
            f"  what these models can see, for any difficulty distribution: Max Gap's bound "
            f"{rules.bound_text(rec['detection_limit'])}"
            f" (an empty stretch up to that wide cannot be ruled out); DDM between {rec['ddm_bound_lo']:.3f} and "
            f"{rec['ddm_bound_hi']:.3f}; top-5 gap sum's bound: {rules.bound_text(rec['top5_gap_sum_bound_hi'])}"
        )
        lines += [f"    {rules.verdict_line(k, v)}" for k, v in found.items()]
        for k, need in (rec.get("resolve") or {}).items():
            if found.get(k, {}).get("verdict") == "cannot tell" and rules.resolve_line(k, need):
                lines.append(f"    to decide {rules.resolve_line(k, need)}")
    if rec.get("ddm") is not None:
        label = "model-based (smooth difficulties assumed)" if found else "given z"
        if rec.get("item_model") == "withheld":
            label = "model-based (the bounds are withheld)"
        lines.append(f"  {label}: DDM {f('ddm')}  Max Gap {f('max_gap')}  top-5 gap sum {f('top5_gap_sum')}")
    if rec.get("first_saturated_date"):
        lines.append(f"  first saturated on {rec['first_saturated_date']}")
    if rec.get("saturation_index") is not None:
        lines.append(
            f"  the paper's saturation index {rec['saturation_index']:.3f} ({rec['band']}), best {rec['top1']:.3f}, "
            f"fifth best {rec['top5']:.3f}"
        )
        lines.append(f"  state: {rec['state']}{_evidence(rec)}")
    flags = rec.get("flags")
    if flags is not None:
        lines.append(f"  flags: {' '.join(flags) or 'none'}")
    return "\n".join(lines)


def _item_model(rec: dict) -> list[str]:
    """The item model's lines: the chance floors, the fit check, the bounds' path, who answered what, blanks."""
    lines = []
    if rec.get("chance_nominal") is not None:
        lines.append(
            f"  chance floors: nominal {rec['chance_nominal']:.3f} over {rec['chance_items']} items "
            f"({rec.get('chance_from') or 'as given'}); the data favour {rec['floor_effective']:.3f} "
            f"[{rec['floor_effective_lo']:.3f}, {rec['floor_effective_hi']:.3f}] (f = {rec['floor_share']:.2f} "
            f"[{rec['floor_share_lo']:.2f}, {rec['floor_share_hi']:.2f}] of the nominal floor)"
        )
    elif rec.get("fit_check"):
        lines.append("  chance floors: none declared (open-ended items; a chance column declares them)")
    if rec.get("discrimination_spread") is not None:
        lines.append(
            f"  discriminations: sd of log a {rec['discrimination_spread']:.2f} "
            f"[{rec['discrimination_spread_lo']:.2f}, {rec['discrimination_spread_hi']:.2f}] over "
            f"{rec.get('spread_items')} items"
            + (
                "; the bounds hold over it, each item's discrimination integrated out"
                if rec["item_model"] == "2PL"
                else ""
            )
        )
    if rec.get("sample_correlation") is not None:
        lines.append(
            f"  repeated samples agree: intra-cell correlation {rec['sample_correlation']:.2f} "
            f"[{rec['sample_correlation_lo']:.2f}, {rec['sample_correlation_hi']:.2f}] over {rec.get('sample_cells')} "
            "cells; each cell counts as its effective trials, the bounds hold over it"
        )
    check = rec.get("fit_check")
    if check:
        said = "fits" if check["verdict"] == "fits" else "MISFIT"
        expected = check.get("discrimination_expected")
        lines.append(
            f"  fit check: {said} (p = {check['p']:.3f}, {check['replicates']} bootstrap replicates of the widened "
            f"item model; discriminations z = {check['discrimination_z']:.2f}"
            + (f" against {expected:.2f} expected" if expected is not None else "")
            + f", the weakest models on the hardest items z = {check['floor_z']:.2f})"
        )
    if rec.get("withheld"):
        lines.append(f"  bounds withheld, no fill or revise: {rec['withheld']}")
    groups = rec.get("design_groups") or []
    if groups:
        parts = "; ".join(f"{g['items']} items by {g['models']} models" for g in groups)
        lines.append(f"  who answered what: {len(groups)} groups of items, each its own distribution ({parts})")
    blanks = rec.get("blanks_warning")
    if blanks:
        names = ", ".join(str(m["model"]) for m in blanks["models"][:5])
        lines.append(
            f"  WARNING: {blanks['flagged']} models leave blank the items they would likely fail ({names}"
            f"{', ...' if blanks['flagged'] > 5 else ''}): record a failed or errored sample as 0, never a blank"
        )
    return lines


def handle(args: argparse.Namespace) -> int:
    """Run the audit and print it."""
    # read and checked before the fit's libraries load: a bad file answers at once
    table = sources.read_input(args.file)
    if table.frame.empty and table.aggregates is not None:
        raise InputError(
            table.location,
            "holds board scores only (no instance-level rows): an audit needs per-item scores; `run --input` "
            "publishes board scores",
        )
    if store.is_difficulty_file(list(table.frame.columns)):
        rows = store.validate_difficulties(table.frame, table.location)
        records, items = pipeline.coverage_only(args.file, rows=rows), None
    else:
        rows = store.validate_responses(table.frame, table.location)
        chance_from = table.chance_from
        del table  # the file as read: the checked rows hold all of it
        if args.eee_out:
            store.write_eee_records(rows, args.eee_out, source=Path(args.file).name)
        from benchwatch import irt, metrics

        irt.compile_ahead(metrics.compiled_kernels)  # a first audit after an install compiles on both cores
        audits = api.audit_rows(
            rows,
            source=args.file,
            method=args.method,
            scale=args.scale,
            sampler=args.sampler,
            chance_from=chance_from,
            progress=True,
        )
        records = [a.as_dict() for a in audits]
        import pandas as pd

        items = pd.concat([a.items.assign(benchmark=a.benchmark) for a in audits], ignore_index=True)
        if args.reports is not None:  # an audit of a file never touches a reports folder unless asked
            reports = history.Reports(Path(args.reports))
            for a in audits:
                history.write_table(reports, reports.by_date(a.benchmark), a.by_date)
    if args.items_out and items is not None:
        cols = ["item_id", "b", "b_sd", "z"] if len(records) == 1 else ["benchmark", "item_id", "b", "b_sd", "z"]
        store.atomic_write_text(args.items_out, items[cols].to_csv(index=False, lineterminator="\n"))
    if args.json:
        body = records[0] if len(records) == 1 else records
        sys.stdout.write(json.dumps(history.rounded(body), indent=2, sort_keys=True) + "\n")
    else:
        print("\n".join(_text(r) for r in records))
    return 0


def _evidence(rec: dict) -> str:
    from benchwatch.metrics import state_evidence

    words = state_evidence(rec)
    return f", decided {words}" if words else ""
