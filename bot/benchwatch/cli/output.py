"""What the commands print beside the API's results: JSON rounded as the reports' files round it, and a record's
verdicts, bounds and state evidence in the rules' and the metrics' own words (the pages say them the same way)."""

from __future__ import annotations

import json
import sys
from typing import NamedTuple

import benchwatch  # its names load when a command prints
from benchwatch.vocabulary import FIGURES

__all__ = ["bounds_line", "evidence", "print_json", "verdict_lines"]


def print_json(value: object, *, sort_keys: bool = True) -> None:
    """Print ``value`` as indented JSON, its floats rounded as the reports' files round them."""
    sys.stdout.write(json.dumps(benchwatch.rounded(value), indent=2, sort_keys=sort_keys) + "\n")


def evidence(rec: benchwatch.BenchmarkRecord) -> str:
    """What decided the record's state, after a comma (", decided by the tiers ..."); "" where nothing did."""
    words = benchwatch.state_evidence(dict(rec))
    return f", decided {words}" if words else ""


def verdict_lines(rec: benchwatch.BenchmarkRecord) -> list[str]:
    """The record's bounds, its verdicts at the default thresholds and what more data would decide each "cannot
    tell", a line each; none where it has no bounds (no fit, or given positions)."""
    found = benchwatch.verdicts(rec)  # at the default thresholds
    if not found:
        return []
    lines = [
        f"  what these models can see, for any difficulty distribution: Max Gap's bound "
        f"{benchwatch.bound_text(rec.detection_limit)}"
        f" (an empty stretch up to that wide cannot be ruled out); DDM between {rec.ddm_bound_lo:.3f} and "
        f"{rec.ddm_bound_hi:.3f}; top-5 gap sum's bound: {benchwatch.bound_text(rec.top5_gap_sum_bound_hi)}"
    ]
    lines += [f"    {benchwatch.verdict_line(k, v)}" for k, v in found.items()]
    for k, need in (rec.resolve or {}).items():
        if found.get(k, {}).get("verdict") == "cannot tell" and benchwatch.resolve_line(k, need):
            lines.append(f"    to decide {benchwatch.resolve_line(k, need)}")
    return lines


class _ByFigure(NamedTuple):
    """A text for each figure with a verdict (``benchwatch.vocabulary.FIGURES``), read by attribute: a verdict, or
    its name."""

    ddm: str
    max_gap: str
    top5_gap_sum: str


def bounds_line(bounds: benchwatch.BenchmarkRecord) -> str:
    """The bounds (``fill check``'s before or after), each verdict beside the figures it judged under their own
    names (one name per claim)."""
    v = bounds.verdicts or {}
    said = _ByFigure(**{key: v.get(key, "-") for key in _ByFigure._fields})
    names = _ByFigure(**{key: figure.verdict for key, figure in FIGURES.items()})
    thin, thin5 = bounds.thin_width or 0.0, bounds.thin_top5 or 0.0
    return (
        f"DDM {bounds.ddm_bound_lo:.3f}-{bounds.ddm_bound_hi:.3f} ({said.ddm}); {names.max_gap} "
        f"{said.max_gap}: Max Gap's bound {benchwatch.bound_text(bounds.detection_limit)}, thin stretch "
        f"{thin:.3f}; {names.top5_gap_sum} {said.top5_gap_sum}: top-5 gap sum's bound "
        f"{benchwatch.bound_text(bounds.top5_gap_sum_bound_hi)}, thin in all {thin5:.3f}"
    )
