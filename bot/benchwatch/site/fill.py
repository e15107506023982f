"""The fill plan's table on a benchmark's page, and a proposed revision's section (``proposal.md.j2``).

The pages are rendered from the records in ``reports/`` through the templates of
``bot/benchwatch/site/templates/`` (``benchwatch.site.render``): the page modules prepare the values and
format the cells (every upstream string escaped), the templates lay out the Markdown."""

from __future__ import annotations

from benchwatch.record import BenchmarkRecord, as_record
from benchwatch.site.cells import helpers
from benchwatch.site.escape import md
from benchwatch.site.numbers import fmt
from benchwatch.site.render import render
from benchwatch.vocabulary import GAP_BOUNDS, NO_BOUND, as_bound


def plan_rows(plan: list[dict] | None) -> list[list[str]]:
    """The fill plan (``benchwatch.fill.plan``) as rows: for each stretch found thin or not ruled out as empty, the
    difficulty a new item should have, the seed items on either side and how the pool would fare."""
    rows = []
    for g in plan or []:
        solve = [m["p"] for m in g["solve"]]
        seeds = [md(s["item_id"]) + f" ({fmt(s['z'])})" for s in (*g["seeds_below"], *g["seeds_above"])]
        rows.append(
            [
                f"{fmt(g['lo'])} – {fmt(g['hi'])}",
                md(g.get("verdict") or "–"),
                fmt(g["target_z"]),
                fmt(g["target_b"]),
                ", ".join(seeds) or "–",
                f"{fmt(min(solve))} – {fmt(max(solve))}; {sum(p >= 0.5 for p in solve)} of {len(solve)} at 0.5 or more",
            ]
        )
    return rows


PLAN_COLUMNS = [("Stretch", "l"), ("Verdict", "l"), ("Target z", "r"), ("Target b", "r"), ("Seeds (z)", "l")]


PLAN_COLUMNS.append(("Solve probability", "l"))


def _shown(bounds: BenchmarkRecord, field: str) -> str:
    """One of the bounds as the pages give it: a gap's upper bound over (nearly) the whole axis is no bound."""
    value = as_bound(getattr(bounds, field)) if field in GAP_BOUNDS else getattr(bounds, field)
    return NO_BOUND if value is None else fmt(value)


def _proposal_bound_rows(proposal: dict) -> list[list[str]]:
    """The bounds and verdicts before and after the accepted candidates (the audit's own computation)."""
    before, after = proposal.get("bounds_before"), proposal.get("bounds_after")
    if not before or not after:
        return []
    bounds = [as_record(b) for b in (before, after)]  # the bounds' fields and verdicts, as a record holds them
    rows = []
    for key, label, fields in (
        ("ddm", "DDM bounds", ("ddm_bound_lo", "ddm_bound_hi")),
        ("max_gap", "Max Gap: its bound; thin stretch", ("detection_limit", "thin_width")),
        ("top5_gap_sum", "Top-5 gap sum: its bound; thin in all", ("top5_gap_sum_bound_hi", "thin_top5")),
    ):
        cells = ["; ".join(_shown(b, f) for f in fields) + f" ({(b.verdicts or {}).get(key, '–')})" for b in bounds]
        rows.append([label, *cells])
    return rows


def proposal_section(proposal: dict, rec: BenchmarkRecord) -> str:
    """A proposed revision (``benchwatch fill check --record``): the figures after adding the accepted
    candidates, next to the current ones; never part of the benchmark's history."""
    model_rows = [
        [
            label,
            *(
                f"{fmt(proposal[k][key]['value'])} ({fmt(proposal[k][key]['lo'])} – {fmt(proposal[k][key]['hi'])})"
                for k in ("before", "after")
            ),
        ]
        for key, label in (("ddm", "DDM"), ("max_gap", "Max Gap"), ("top5_gap_sum", "Top-5 gap sum"))
    ]
    return render(
        "proposal.md.j2",
        helpers(),
        proposal=proposal,
        rec=rec,
        bound_rows=_proposal_bound_rows(proposal),
        model_rows=model_rows,
    )
