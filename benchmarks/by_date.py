"""The history by date against one fit: 200 publication dates (one model each) x 200 items, simulated.

The history computes each date's figures over the models published by then, in one pass that
calibrates only what a date adds and refits every ability when the pool has doubled. Baselines
measured in the same run, on the whole pool (the last date):
- ``one fit``: what an audit spends fitting the pool's difficulties from scratch for its published
  figures (``benchwatch.pipeline.audit.measure`` without the resolution floor): the joint MAP fit, the
  abilities by marginal likelihood, the items' grid posteriors with the prior's uncertainty, 200 joint
  draws over 20 draws of the prior, the figures with their intervals;
- ``one date's fit``: the same at the history's own settings (50 draws, the prior at its estimate);
- ``joint MAP``: the bare ``fit_map``;
- ``refit every date``: the same history with every ability refitted at every date (the reference).
Target (issue 13): the history at most 5x one fit. Each figure is the best of 5 runs (refit every date: 1).

Run: python benchmarks/by_date.py [--dates 200] [--items 200]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import expit

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bot"))


def dated_pool(n_models: int, n_items: int, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    theta, b = rng.normal(0, 1.5, n_models), rng.normal(0, 1.5, n_items)
    y = rng.random((n_models, n_items)) < expit(theta[:, None] - b[None, :])
    m, i = np.meshgrid(np.arange(n_models), np.arange(n_items), indexing="ij")
    days = pd.Timestamp("2024-01-01") + pd.to_timedelta(np.arange(n_models) * 3, unit="D")
    return pd.DataFrame(
        {
            "benchmark": "sim",
            "model": [f"m{j:04d}" for j in m.ravel()],
            "item_id": [f"i{k:04d}" for k in i.ravel()],
            "score": y.ravel().astype(float),
            "date": days[m.ravel()],
        }
    )


def best(fn, repeats: int = 5) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dates", type=int, default=200)
    parser.add_argument("--items", type=int, default=200)
    args = parser.parse_args()
    from benchwatch.irt import DEFAULT_SCALE, encode_responses, fit_map, item_posterior_dense, marginal_abilities
    from benchwatch.metrics import UNIFORM, figures_from_draws, posterior_z_draws, target_reference
    from benchwatch.metrics.resolution import N_DRAWS
    from benchwatch.pipeline.by_date import BY_DATE_DRAWS, history_by_date
    from benchwatch.store import validate_responses

    frame = validate_responses(dated_pool(args.dates, args.items), "sim")
    data = encode_responses(frame)
    fit_map(data)  # numba's one-off load

    def one_fit(draws: int = N_DRAWS, published: bool = True) -> None:
        fit = fit_map(data)
        trials, successes = data.dense()
        theta, _ = marginal_abilities(trials, successes, fit.theta)
        rng = np.random.default_rng(0)
        if published:
            post = item_posterior_dense(trials, successes, theta)
            z = posterior_z_draws(theta, DEFAULT_SCALE, draws, rng, post)
            figures_from_draws(z, UNIFORM, reference=target_reference(data.n_items, UNIFORM))
        else:
            post = item_posterior_dense(trials, successes, theta, prior_uncertainty=False)
            z = posterior_z_draws(theta, DEFAULT_SCALE, draws, rng, post, hyper=1)
            figures_from_draws(z, UNIFORM)

    fit_s = best(one_fit)
    date_s = best(lambda: one_fit(BY_DATE_DRAWS, published=False))
    map_s = best(lambda: fit_map(data))
    hist_s = best(lambda: history_by_date(frame))
    every_s = best(lambda: history_by_date(frame, refit_growth=1.0), repeats=1)
    print(f"{args.dates} dates x {args.items} items")
    print(f"{'what':<28}{'seconds':>9}{'/ one fit':>11}{'/ joint MAP':>13}")
    for what, sec in [
        ("one fit (whole pool)", fit_s),
        ("one date's fit", date_s),
        ("joint MAP alone", map_s),
        ("history by date", hist_s),
        ("refit every date", every_s),
    ]:
        print(f"{what:<28}{sec:>9.3f}{sec / fit_s:>11.2f}{sec / map_s:>13.1f}")


if __name__ == "__main__":
    main()
