"""The fill plan: for each stretch of the difficulty axis that the data show to be thin ("found") or cannot
rule out as empty where the verdict is "cannot tell", the difficulty a new item should have, the seed items
on either side, and how likely each model of the pool is to solve an item placed there.

A benchmark whose gap verdicts are "clear" gets no plan: its pool rules out every empty stretch as wide as
the threshold, and there is nothing to fill.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import expit

from benchwatch.fill.benchmark import Benchmark
from benchwatch.irt import difficulty_b
from benchwatch.metrics import UNIFORM, Target
from benchwatch.record import BenchmarkRecord

SEEDS = 2  # items on each side of a gap
GAP_FIGURES = ("max_gap", "top5_gap_sum")


def target_of(record: BenchmarkRecord) -> Target:
    """The benchmark's target distribution on z, from its record."""
    spec = record.target_spec or {}
    return Target.beta(spec["a"], spec["b"]) if spec.get("kind") == "beta" else UNIFORM


def plan_stretches(record: BenchmarkRecord) -> list[dict]:
    """The stretches a plan fills: those shown thin (verdict ``found``), then, where a gap verdict is ``cannot
    tell``, the widest stretch the data cannot rule out as empty (unless it overlaps one already listed)."""
    verdicts = {k: (v or {}).get("verdict") for k, v in (record.verdicts or {}).items()}
    out: list[dict[str, Any]] = [
        {"lo": lo, "hi": hi, "width": hi - lo, "verdict": "found", "why": "shown to hold too few items"}
        for lo, hi in record.thin_stretches or []
    ]
    stretch = record.detection_stretch
    if stretch and any(verdicts.get(k) == "cannot tell" for k in GAP_FIGURES):
        lo, hi = stretch
        if all(hi <= s["lo"] or lo >= s["hi"] for s in out):
            out.append(
                {
                    "lo": lo,
                    "hi": hi,
                    "width": hi - lo,
                    "verdict": "cannot tell",
                    "why": "may be empty: these models cannot rule it out",
                }
            )
    return out


def fill_plan(bench: Benchmark) -> list[dict]:
    """One entry per stretch of ``plan_stretches``: its verdict, target z and b, seeds, each model's solve
    probability at the target."""
    rec, items = bench.record, bench.items.sort_values("z")
    theta = bench.theta
    z = items["z"].to_numpy(float)
    out = []
    for gap in plan_stretches(rec):
        mid = (gap["lo"] + gap["hi"]) / 2
        b = float(difficulty_b(np.array([mid]), theta.to_numpy(), rec.scale or "ability-quantile")[0])
        below = items[z <= gap["lo"] + 1e-12].tail(SEEDS)
        above = items[z >= gap["hi"] - 1e-12].head(SEEDS)
        solve = expit(theta.to_numpy() - b)
        out.append(
            {
                **gap,
                "target_z": mid,
                "target_b": b,
                "seeds_below": below[["item_id", "z"]].to_dict("records"),
                "seeds_above": above[["item_id", "z"]].to_dict("records"),
                "solve": [
                    {"model": m, "p": float(p)}
                    for m, p in sorted(zip(theta.index, solve, strict=True), key=lambda t: -t[1])
                ],
            }
        )
    return out
