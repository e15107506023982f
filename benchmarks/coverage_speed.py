"""Exact DDM against the obvious baseline (a fine grid), on the same z in the same run.

Prints the time of each, their ratio, and the grid's error against the exact value.
Run: python benchmarks/coverage_speed.py
"""

from __future__ import annotations

import time

import numpy as np

from benchwatch.metrics import ddm


def grid_ddm(z: np.ndarray, points: int) -> float:
    """Baseline: |F_n(t) - t| averaged on a uniform grid of ``points`` points."""
    t = (np.arange(points) + 0.5) / points
    f = np.searchsorted(np.sort(z), t, side="right") / z.size
    return float(np.mean(np.abs(f - t)))


def timed(fn, repeats: int = 5) -> tuple[float, float]:
    best, value = float("inf"), 0.0
    for _ in range(repeats):
        start = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - start)
    return best, value


def main() -> None:
    rng = np.random.default_rng(0)
    print(f"{'items':>8} {'exact s':>10} {'grid s':>10} {'grid/exact':>11} {'grid error':>11}")
    for n in (30, 500, 12_032, 100_000):
        z = rng.beta(1.0, 3.0, n)
        t_exact, exact = timed(lambda z=z: ddm(z))
        t_grid, approx = timed(lambda z=z: grid_ddm(z, 1_000_000))
        print(f"{n:>8} {t_exact:>10.5f} {t_grid:>10.5f} {t_grid / t_exact:>11.1f} {abs(approx - exact):>11.2e}")


if __name__ == "__main__":
    main()
