"""The MAP fit at Open-LLM-Leaderboard scale: 4,500 models x 12,000 items with 30% of the cells missing
(37.8 million observed cells), simulated 1PL, abilities and difficulties ~ N(0, 1.5^2).

Targets (issue 13): under 5 minutes and under 8 GB on 2 cores. Printed: the fit's time, as seconds and
as a multiple of one plain-numpy pass over the same cells measured in this run (gather, sigmoid,
bincount: the least any exact fit must do per iteration); the process's peak RSS in all and above the
data; correlation of the fitted difficulties with the true ones; iterations and which SDs were used.

Run: python benchmarks/irt_large.py [--models 4500] [--items 12000] [--missing 0.3]
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bot"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from irt_speed import simulate


def rss_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2


def numpy_pass(data, theta: np.ndarray, b: np.ndarray) -> float:
    from scipy.special import expit

    start = time.perf_counter()
    p = expit(theta[data.model_idx] - b[data.item_idx])
    np.bincount(data.item_idx, data.y - p, minlength=b.size)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=4500)
    parser.add_argument("--items", type=int, default=12000)
    parser.add_argument("--missing", type=float, default=0.3)
    args = parser.parse_args()
    from benchwatch.irt import fit_map

    print(f"simulating {args.models:,} x {args.items:,}, {args.missing:.0%} missing ...", flush=True)
    data, truth = simulate(args.models, args.items, args.missing)
    fit_map(simulate(5, 12, 0.0, seed=1)[0])  # numba's one-off load of its compiled kernels
    cells = data.model_idx.size
    before = rss_gb()
    base = min(numpy_pass(data, np.zeros(data.n_models), np.zeros(data.n_items)) for _ in range(3))
    print(f"{cells:,} observed cells; data held: {before:.2f} GB; one numpy pass: {base:.2f} s", flush=True)
    start = time.perf_counter()
    fit = fit_map(data)
    seconds = time.perf_counter() - start
    peak = rss_gb()
    print(f"fit: {seconds:.1f} s = {seconds / base:.0f} numpy passes (target: under 300 s)")
    print(f"peak RSS: {peak:.2f} GB in all, {peak - before:.2f} GB above the data (target: under 8 GB)")
    print(f"correlation with the true difficulties: {np.corrcoef(fit.b, truth)[0, 1]:.4f}")
    print(f"converged: {fit.converged}; diagnostics: {fit.diagnostics}")


if __name__ == "__main__":
    main()
