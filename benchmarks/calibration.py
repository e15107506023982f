"""Do the published figures' intervals cover, and do the flags control false alarms? By simulation.

For each model pool (12, 24 and 60 binary models; 12 models with 10 samples per item) and benchmark size
(40, 400, 4,000 items), benchmarks are simulated from a 1PL model with the pool's abilities fixed:

- target-matched (z drawn from the uniform target): how often the 95% interval of DDM, Max Gap and the
  top-5 gap sum covers the true figure (computed on the true z with the true abilities), whether the
  published figure ever lies outside its own interval, and how often ``revise`` or ``fill`` fires
  (the false-flag rate; at most 5% by design);
- with a real gap of width 0.2 (no item with z in [0.4, 0.6], or none in [0.8, 1], the hardest stretch):
  how often ``fill`` fires (the power).

Every benchmark goes through benchwatch's own ``measure`` and ``evaluate_flags``. The resolution floor is
a property of the pool: it is simulated once per pool and size (``resolution_floor`` on the pool's true
abilities and cells) and handed to ``measure`` through its cache, so that one floor serves the pool's
benchmarks as it would on a live site. Run: ``python benchmarks/calibration.py [--reps N] [--quick]``;
it prints the tables of the methodology page (Markdown) and the seconds it took.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import expit
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.irt import difficulty_b, difficulty_z, encode_responses, fit_rasch
from bot.metrics import UNIFORM, coverage_draws, resolution_floor
from bot.pipeline.audit import measure
from bot.rules import evaluate_flags

POOLS = {  # name: (models, samples per item, share of missing cells)
    "12 binary": (12, 1, 0.0),
    "24 binary": (24, 1, 0.0),
    "60 binary": (60, 1, 0.0),
    "12 x 10 trials": (12, 10, 0.0),
    "24 binary, 30% missing": (24, 1, 0.3),
}
SIZES = (40, 400, 4000)
FIGURES = ("ddm", "max_gap", "top5_gap_sum")
GAPS = {"middle": (0.4, 0.6), "top": (0.8, 1.0)}


@dataclass
class Pool:
    theta: np.ndarray
    trials: int
    missing: float = 0.0
    seed: int = 0

    def cells(self, n_items: int) -> np.ndarray:
        """Trials per (model, item), 0 where the cell is missing: the same cells for every benchmark of a size."""
        observed = np.random.default_rng((self.seed, n_items)).random((self.theta.size, n_items)) >= self.missing
        observed[:, 0] = True  # every model answers something
        return np.where(observed, float(self.trials), 0.0)

    @property
    def names(self) -> list[str]:
        return [f"m{j:03d}" for j in range(self.theta.size)]


def make_pool(n_models: int, trials: int, seed: int, missing: float = 0.0) -> Pool:
    """Abilities spread as on a real leaderboard: a normal, sorted for readability."""
    return Pool(np.sort(np.random.default_rng(seed).normal(0.0, 1.0, n_models)), trials, missing, seed)


def simulate(pool: Pool, n_items: int, rng: np.random.Generator, gap: tuple | None = None) -> tuple:
    """(true z, long table) of one benchmark answered by the pool."""
    z = rng.random(n_items)
    if gap is not None:  # uniform on [0, 1] without (lo, hi): a real gap of width hi - lo
        lo, hi = gap
        u = z * (1 - (hi - lo))
        z = np.where(u < lo, u, u + (hi - lo))
    b = difficulty_b(z, pool.theta)
    successes = rng.binomial(pool.trials, expit(pool.theta[:, None] - b[None, :]))
    models, items = np.nonzero(pool.cells(n_items))
    frame = pd.DataFrame(
        {
            "benchmark": "sim",
            "model": np.asarray(pool.names)[models],
            "item_id": [f"i{i:05d}" for i in items],
            "score": successes[models, items] / pool.trials,
            "date": pd.NaT,
            "trials": pd.array([pool.trials if pool.trials > 1 else pd.NA] * models.size, dtype="Int64"),
        }
    )
    return difficulty_z(b, pool.theta), frame


FLOORS: dict = {}


def pool_floor(pool: Pool, n_items: int) -> dict:
    """The resolution floor of this pool for benchmarks of n_items (once per pool and size)."""
    key = (pool.theta.tobytes(), pool.trials, pool.missing, n_items)
    if key not in FLOORS:
        trials = pool.cells(n_items)
        with threadpool_limits(1):
            FLOORS[key] = resolution_floor(pool.theta, trials, UNIFORM, "ability-quantile")
    return FLOORS[key]


def run_one(pool: Pool, frame: pd.DataFrame, floor: dict, seed: int) -> dict:
    """benchwatch's figures and flags for one simulated benchmark."""
    fit = fit_rasch(encode_responses(frame), "map")
    audit = measure(frame, fit, source="sim", by_date=False, cache=lambda _key, _compute: floor, seed=seed)
    fig = audit.figures()
    fig["flags"] = evaluate_flags(fig)
    return fig


def study(pool: Pool, n_items: int, reps: int, seed: int, gap: tuple | None = None) -> dict:
    """Coverage, published-inside-interval and flag rates over ``reps`` benchmarks."""
    rng = np.random.default_rng(seed)
    floor = pool_floor(pool, n_items)
    covered = dict.fromkeys(FIGURES, 0)
    inside = 0
    flagged = {"revise": 0, "fill": 0, "any": 0}
    for r in range(reps):
        z, frame = simulate(pool, n_items, rng, gap)
        true = {k: float(v[0]) for k, v in coverage_draws(z[None, :], UNIFORM).items()}
        fig = run_one(pool, frame, floor, seed + r)
        for k in FIGURES:
            covered[k] += fig[f"{k}_lo"] <= true[k] <= fig[f"{k}_hi"]
        inside += all(fig[f"{k}_lo"] <= fig[k] <= fig[f"{k}_hi"] for k in FIGURES)
        for flag in ("revise", "fill"):
            flagged[flag] += flag in fig["flags"]
        flagged["any"] += bool({"revise", "fill"} & set(fig["flags"]))
    return {
        "coverage": {k: v / reps for k, v in covered.items()},
        "inside": inside / reps,
        "flag_rate": {k: v / reps for k, v in flagged.items()},
        "floor": {k: floor[f"{k}_null_p95"] for k in FIGURES},
        "reps": reps,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=200, help="benchmarks per pool and size (default 200)")
    parser.add_argument("--quick", action="store_true", help="40 and 400 items only, 50 benchmarks each")
    parser.add_argument("--sizes", default=None, help="comma-separated benchmark sizes (default: 40,400,4000)")
    parser.add_argument("--pools", default=None, help="semicolon-separated pool names (default: all)")
    args = parser.parse_args(argv)
    sizes = SIZES[:2] if args.quick else SIZES
    if args.sizes:
        sizes = tuple(int(v) for v in args.sizes.split(","))
    reps = 50 if args.quick else args.reps
    start = time.perf_counter()
    cov_rows, flag_rows = [], []
    for p, (name, (m, trials, missing)) in enumerate(POOLS.items()):
        if args.pools and name not in args.pools.split(";"):
            continue
        pool = make_pool(m, trials, seed=100 + p, missing=missing)
        for n in sizes:
            k = reps if n < 4000 or args.sizes else max(20, reps // 6)
            null = study(pool, n, k, seed=1000 * p + n)
            power = {g: study(pool, n, k, seed=1000 * p + n + 7, gap=GAPS[g])["flag_rate"]["fill"] for g in GAPS}
            cov = null["coverage"]
            cov_rows.append(
                f"| {name} | {n:,} | {k} | {cov['ddm']:.0%} | {cov['max_gap']:.0%} | {cov['top5_gap_sum']:.0%} "
                f"| {null['inside']:.0%} |"
            )
            flag_rows.append(
                f"| {name} | {n:,} | {null['floor']['max_gap']:.3f} | {null['floor']['ddm']:.3f} "
                f"| {null['flag_rate']['any']:.0%} | {power['middle']:.0%} | {power['top']:.0%} |"
            )
            print(f"  {name}, {n} items: done at {time.perf_counter() - start:.0f} s", file=sys.stderr)
            print(f"  {cov_rows[-1]}\n  {flag_rows[-1]}", file=sys.stderr)
    print("Coverage of the true figure by the published 95% interval (target-matched benchmarks):\n")
    print("| Pool | Items | Benchmarks | DDM | Max Gap | Top-5 gap sum | Published figure inside its interval |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    print("\n".join(cov_rows))
    print("\nFlags: false alarms on target-matched benchmarks, and power on benchmarks with a real gap of 0.2:\n")
    print(
        "| Pool | Items | Max Gap floor (p95) | DDM floor (p95) | False `revise`/`fill` "
        "| `fill`, no item in [0.4, 0.6] | `fill`, no item in [0.8, 1] |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    print("\n".join(flag_rows))
    print(f"\n({time.perf_counter() - start:.0f} s on this machine)")


if __name__ == "__main__":
    main()
