"""``benchwatch audit``: audit one file of responses (or of difficulties) and print its figures."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Self

import benchwatch
from benchwatch.cli.output import evidence, print_json, verdict_lines
from benchwatch.irt import METHODS, SAMPLERS, SCALES  # the fit's choices, as the API takes them

if TYPE_CHECKING:
    from benchwatch.record import BenchmarkRecord  # loaded with the first record: an input error loads no pydantic


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


@dataclass(frozen=True)
class _Part:
    """A part of a record the audit prints (one of its JSON objects), read once by its fields' names."""

    @classmethod
    def of(cls, found: Mapping[str, Any]) -> Self:
        """The part as the record keeps it (its keys not printed are left)."""
        return cls(**{field.name: found[field.name] for field in fields(cls)})


@dataclass(frozen=True)
class ModelNote(_Part):
    """A model the record says a word about: one left out of the fit, or tiered with a note."""

    model: str
    why: str


@dataclass(frozen=True)
class NutsCheck(_Part):
    """What NUTS, run as a check beside the MAP fit (``--method nuts``), says: its diagnostics and figures."""

    converged: bool
    max_rhat: float
    min_ess_bulk: float
    divergences: int
    seconds: float
    ddm: float
    ddm_lo: float
    ddm_hi: float
    max_gap: float
    max_gap_lo: float
    max_gap_hi: float
    distinct_z: int
    distinct_z_unpooled: int


def _figure(value: float | None, lo: float | None, hi: float | None) -> str:
    """A model-based figure with its interval, or n/a."""
    if value is None:
        return "n/a"
    return f"{value:.3f}" + (f" [{lo:.3f}, {hi:.3f}]" if lo is not None else "")


def _text(rec: BenchmarkRecord) -> str:
    """One benchmark's audit in words: the fit, who was left out, the item model, the verdicts, the figures, the
    saturation and the flags."""
    method = rec.method
    if rec.figures_from not in (None, method):  # --method nuts: the figures are the MAP's (a check beside)
        method = f"{method}: figures from {rec.figures_from}"
    fit = f"{method}, {'converged' if rec.converged else 'NOT converged'}" if rec.method else "given z"
    if rec.unplaced:
        fit = "no fit"
    lines = [f"{rec.benchmark}: {rec.n_models or '?'} models x {rec.n_items} items ({fit}; z: {rec.scale})"]
    if rec.unplaced:
        lines.append(f"  {rec.unplaced}")
    lines += _notes(rec)
    lines += _item_model(rec)
    if rec.nuts_check:  # --method nuts: the figures stay the MAP's; what NUTS says beside them
        check = NutsCheck.of(rec.nuts_check)
        lines.append(
            f"  nuts, run as a check (the figures are the {rec.figures_from} fit's): "
            f"{'converged' if check.converged else 'NOT converged'} (R-hat {check.max_rhat:.3f}, bulk ESS "
            f"{check.min_ess_bulk:.0f}, {check.divergences} divergences, {check.seconds:.0f} s); its DDM "
            f"{check.ddm:.3f} [{check.ddm_lo:.3f}, {check.ddm_hi:.3f}], Max Gap {check.max_gap:.3f} "
            f"[{check.max_gap_lo:.3f}, {check.max_gap_hi:.3f}]; {check.distinct_z} distinct positions "
            f"({check.distinct_z_unpooled} before pooling items of identical responses)"
        )
    verdicts = verdict_lines(rec)
    lines += verdicts
    if rec.ddm is not None:
        label = "model-based (smooth difficulties assumed)" if verdicts else "given z"
        if rec.item_model == "withheld":
            label = "model-based (the bounds are withheld)"
        lines.append(
            f"  {label}: DDM {_figure(rec.ddm, rec.ddm_lo, rec.ddm_hi)}  Max Gap "
            f"{_figure(rec.max_gap, rec.max_gap_lo, rec.max_gap_hi)}  top-5 gap sum "
            f"{_figure(rec.top5_gap_sum, rec.top5_gap_sum_lo, rec.top5_gap_sum_hi)}"
        )
    if rec.first_saturated_date:
        lines.append(f"  first saturated on {rec.first_saturated_date}")
    if rec.saturation_index is not None:
        lines.append(
            f"  the paper's saturation index {rec.saturation_index:.3f} ({rec.band}), best {rec.top1:.3f}, "
            f"fifth best {rec.top5:.3f}"
        )
        lines.append(f"  state: {rec.state}{evidence(rec)}")
    if rec.flags is not None:
        lines.append(f"  flags: {' '.join(rec.flags) or 'none'}")
    return "\n".join(lines)


def _notes(rec: BenchmarkRecord) -> list[str]:
    """The models left out of the fit (every item alike), and those tiered with a note (``metrics.model_notes``,
    as ``tiers`` says them): a model both left out and noted is said once."""
    noted = {note.model: note.why for note in map(ModelNote.of, rec.tier_notes or [])}
    lines = []
    for left in map(ModelNote.of, rec.uninformative or []):
        rest = noted.pop(left.model, None)
        rest = None if rest is None else rest.removeprefix(left.why).removeprefix("; ")
        tiered = "" if rest is None else "; tiered by its score" + (f" ({rest})" if rest else "")
        lines.append(f"  left out of the fit: {left.model} ({left.why}){tiered}")
    return lines + [f"  tiered with a note: {m} ({why})" for m, why in noted.items()]


def _item_model(rec: BenchmarkRecord) -> list[str]:
    """The item model's lines: the chance floors, the fit check, the bounds' path, who answered what, blanks."""
    lines = []
    if rec.chance_nominal is not None:
        lines.append(
            f"  chance floors: nominal {rec.chance_nominal:.3f} over {rec.chance_items} items "
            f"({rec.chance_from or 'as given'}); the data favour {rec.floor_effective:.3f} "
            f"[{rec.floor_effective_lo:.3f}, {rec.floor_effective_hi:.3f}] (f = {rec.floor_share:.2f} "
            f"[{rec.floor_share_lo:.2f}, {rec.floor_share_hi:.2f}] of the nominal floor)"
        )
    elif rec.fit_check:
        lines.append("  chance floors: none declared (open-ended items; a chance column declares them)")
    if rec.discrimination_spread is not None:
        lines.append(
            f"  discriminations: sd of log a {rec.discrimination_spread:.2f} "
            f"[{rec.discrimination_spread_lo:.2f}, {rec.discrimination_spread_hi:.2f}] over "
            f"{rec.spread_items} items"
            + (
                "; the bounds hold over it, each item's discrimination integrated out"
                if rec.item_model == "2PL"
                else ""
            )
        )
    if rec.sample_correlation is not None:
        lines.append(
            f"  repeated samples agree: intra-cell correlation {rec.sample_correlation:.2f} "
            f"[{rec.sample_correlation_lo:.2f}, {rec.sample_correlation_hi:.2f}] over {rec.sample_cells} "
            "cells; each cell counts as its effective trials, the bounds hold over it"
        )
    check = rec.fit_check
    if check:
        said = "fits" if check["verdict"] == "fits" else "MISFIT"
        expected = check.get("discrimination_expected")
        lines.append(
            f"  fit check: {said} (p = {check['p']:.3f}, {check['replicates']} bootstrap replicates of the widened "
            f"item model; discriminations z = {check['discrimination_z']:.2f}"
            + (f" against {expected:.2f} expected" if expected is not None else "")
            + f", the weakest models on the hardest items z = {check['floor_z']:.2f})"
        )
    if rec.withheld:
        lines.append(f"  bounds withheld, no fill or revise: {rec.withheld}")
    groups = rec.design_groups or []
    if groups:
        parts = "; ".join(f"{g['items']} items by {g['models']} models" for g in groups)
        lines.append(f"  who answered what: {len(groups)} groups of items, each its own distribution ({parts})")
    blanks = rec.blanks_warning
    if blanks:
        names = ", ".join(str(m["model"]) for m in blanks["models"][:5])
        lines.append(
            f"  WARNING: {blanks['flagged']} models leave blank the items they would likely fail ({names}"
            f"{', ...' if blanks['flagged'] > 5 else ''}): record a failed or errored sample as 0, never a blank"
        )
    return lines


def handle(args: argparse.Namespace) -> int:
    """Run the audit and print it."""
    results = benchwatch.audit_file(
        args.file,
        method=args.method,
        scale=args.scale,
        sampler=args.sampler,
        items_out=args.items_out,
        eee_out=args.eee_out,
        reports=args.reports,
        progress=True,
    )
    if args.json:
        records = [r.as_dict() for r in results]
        print_json(records[0] if len(records) == 1 else records)
    else:
        print("\n".join(_text(r.record) for r in results))
    return 0
