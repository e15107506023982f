"""The fill plan: for each gap above the resolution floor, the difficulty a new item should have, the seed
items on either side, and how likely each model of the pool is to solve an item placed there."""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from bot.fill.benchmark import Benchmark
from bot.irt import difficulty_b
from bot.metrics import UNIFORM, Target

SEEDS = 2  # items on each side of a gap


def target_of(record: dict) -> Target:
    """The benchmark's target distribution on z, from its record."""
    spec = record.get("target_spec") or {}
    return Target.beta(spec["a"], spec["b"]) if spec.get("kind") == "beta" else UNIFORM


def fill_plan(bench: Benchmark) -> list[dict]:
    """One entry per gap wider than the pool's resolution floor (the Max Gap a target-matched benchmark
    reaches with these models, 95th percentile): target z and b, seeds, each model's solve probability."""
    rec, items = bench.record, bench.items.sort_values("z")
    floor = rec.get("max_gap_null_p95") or 0.0
    theta = bench.theta
    z = items["z"].to_numpy(float)
    out = []
    for gap in sorted(rec["gaps"], key=lambda g: -g["width"]):
        if gap["width"] <= floor:
            continue
        mid = (gap["lo"] + gap["hi"]) / 2
        b = float(difficulty_b(np.array([mid]), theta.to_numpy(), rec.get("scale") or "ability-quantile")[0])
        below = items[z <= gap["lo"] + 1e-12].tail(SEEDS)
        above = items[z >= gap["hi"] - 1e-12].head(SEEDS)
        solve = expit(theta.to_numpy() - b)
        out.append(
            {
                "lo": gap["lo"],
                "hi": gap["hi"],
                "width": gap["width"],
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
