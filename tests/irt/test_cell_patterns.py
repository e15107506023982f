"""Abilities and item posteriors over the observed cells equal the dense models x items computation, on the
bundled sample and on the real matrices of ../shared/data (issue 23: speed changes nothing a reader sees)."""

from __future__ import annotations

import numpy as np
import pytest

from bot.irt import (
    cell_patterns,
    encode_responses,
    fit_map,
    item_posterior,
    item_posterior_dense,
    marginal_abilities,
    marginal_abilities_patterns,
)
from bot.sources import fetch_csv_file, fetch_sample
from bot.store import validate_responses


def _same(rows) -> None:
    data = encode_responses(rows)
    fit = fit_map(data)
    trials, successes = data.dense()
    dense, _ = marginal_abilities(trials, successes, fit.theta)
    patterns = cell_patterns(data)
    cells, _ = marginal_abilities_patterns(patterns, fit.theta)
    assert np.abs(dense - cells).max() < 1e-9
    a, b = item_posterior_dense(trials, successes, dense), item_posterior(data, dense, patterns=patterns)
    assert a.n_patterns == b.n_patterns  # the same items share a pattern
    assert (a.prior_mean, a.prior_sd) == pytest.approx((b.prior_mean, b.prior_sd), abs=1e-12)
    for q in (0.025, 0.5, 0.975):
        assert np.abs(a.quantile(q) - b.quantile(q)).max() < 1e-9
    rng_a, rng_b = np.random.default_rng(0), np.random.default_rng(0)
    assert np.abs(a.draws(20, rng_a) - b.draws(20, rng_b)).max() < 1e-9  # the same draws, to rounding


def test_the_bundled_sample():
    table = fetch_sample()
    table = table[0] if isinstance(table, list) else table
    frame = validate_responses(table.frame, "sample")
    for _, rows in frame.groupby("benchmark"):
        _same(rows)


@pytest.mark.slow
@pytest.mark.parametrize(
    "path",
    [
        "swebench_verified_bashonly/verified.csv",
        "livecodebench/codegeneration_v2025-04.csv",
        "mmlu_pro/mmlu_pro.csv",
    ],
)
def test_the_real_matrices(shared_data, path):
    table = fetch_csv_file(shared_data / path)
    frame = validate_responses(table.frame, table.location)
    for _, rows in frame.groupby("benchmark"):
        _same(rows)
