"""Tiers of tied models: exact tests checked by hand, and a simulation with planted differences."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bot.metrics.tiers import (
    binomial_se,
    holm,
    mcnemar_exact,
    tiers_from_items,
    tiers_from_scores,
    tiers_from_significance,
)


def test_holm_by_hand():
    p = np.array([0.01, 0.04, 0.03, 0.005])
    # sorted 0.005, 0.01, 0.03, 0.04 -> 4*0.005, 3*0.01, 2*0.03, 1*0.04, made monotone
    assert holm(p) == pytest.approx([0.03, 0.06, 0.06, 0.02])


def test_mcnemar_by_hand():
    # 7 discordant items, 6 one way: 2 * P(X <= 1), X ~ Bin(7, 1/2) = 2 * 8 / 128
    assert mcnemar_exact(np.array([6]), np.array([1]))[0] == pytest.approx(16 / 128)
    assert mcnemar_exact(np.array([0]), np.array([0]))[0] == 1.0
    assert mcnemar_exact(np.array([3]), np.array([3]))[0] == 1.0


def test_tiers_gather_round_leaders_by_hand():
    scores = np.array([0.9, 0.8, 0.7, 0.6, 0.5])
    better = np.zeros((5, 5), bool)
    better[0, 2:] = True  # the best beats the last three: they leave its tier
    better[2, 4] = True  # the best of the rest beats the last
    assert tiers_from_significance(scores, better).tolist() == [1, 1, 2, 2, 3]
    assert tiers_from_significance(scores, np.zeros((5, 5), bool)).tolist() == [1] * 5


def _planted(gaps: list[float], n_items: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Binary answers of models whose true accuracies are 0.7 minus the planted gaps (in points)."""
    rng = np.random.default_rng(seed)
    accuracy = 0.7 - np.array(gaps) / 100
    # item effects shared by every model (items differ in difficulty), as on a real benchmark
    easiness = rng.normal(0, 1.2, n_items)
    logit = np.log(accuracy / (1 - accuracy))
    y = rng.random((len(gaps), n_items)) < 1 / (1 + np.exp(-(logit[:, None] + easiness[None, :])))
    return y.astype(float), np.ones_like(y, bool)


@pytest.mark.parametrize("n_items", [40, 400, 4000])
def test_equal_models_share_a_tier_and_the_separation_rate_grows_with_the_gap(n_items):
    """Models 0 to 3 equal; 4, 5, 6 two, five and ten points below. Over simulated benchmarks (each item a
    difficulty shared by every model, as on a real benchmark), the equal ones share a tier in at least 95%.
    Reported by gap and size: how often each weaker model is told apart from every one of the equal four
    (pairwise, after Holm over all 21 pairs), and how often it lands in a lower tier than all four (a tier is
    cut only where every pair across is told apart, so its neighbours two and five points away hold it)."""
    gaps = [0, 0, 0, 0, 2, 5, 10]
    runs = 200 if n_items < 4000 else 60
    shared, pairwise, tiered = 0, {2: 0, 5: 0, 10: 0}, {2: 0, 5: 0, 10: 0}
    for seed in range(runs):
        y, answered = _planted(gaps, n_items, seed)
        t = tiers_from_items(np.array([f"m{k}" for k in range(7)]), y, answered, True, bootstrap=50, seed=seed)
        tier = dict(zip(t.models, t.tier, strict=True))
        at = {m: k for k, m in enumerate(t.models)}
        shared += len({tier[f"m{k}"] for k in range(4)}) == 1
        for k, gap in zip((4, 5, 6), (2, 5, 10), strict=True):
            told = all(t.adjusted[at[f"m{k}"], at[f"m{j}"]] < t.alpha for j in range(4))
            pairwise[gap] += told
            tiered[gap] += tier[f"m{k}"] > max(tier[f"m{j}"] for j in range(4))
    assert shared / runs >= 0.95 - 2 * math.sqrt(0.05 * 0.95 / runs)
    told = {g: round(c / runs, 2) for g, c in pairwise.items()}
    lower = {g: round(float(c) / runs, 2) for g, c in tiered.items()}
    print(f"{n_items} items: equal share a tier {shared / runs:.0%}; told apart by gap {told}; lower tier {lower}")
    assert told[2] <= told[5] + 0.05 <= told[10] + 0.1
    if n_items == 4000:
        assert told[10] == 1.0 and told[5] >= 0.6
    if n_items == 40:
        assert told[10] <= 0.5  # forty items cannot tell ten points apart reliably


def test_partial_credit_uses_the_paired_t_test():
    rng = np.random.default_rng(3)
    y = np.clip(rng.normal([[0.6], [0.6], [0.4]], 0.2, (3, 300)), 0, 1)
    t = tiers_from_items(np.array(["a", "b", "c"]), y, np.ones_like(y, bool), False, bootstrap=100)
    assert "paired t" in t.method
    assert t.tier.tolist() == [1, 1, 2] and t.top == [t.models[0], t.models[1]]
    assert set(t.top) == {"a", "b"}


def test_published_scores_with_their_errors_and_rank_intervals():
    scores = np.array([0.80, 0.79, 0.60, 0.40])
    t = tiers_from_scores(
        np.array(list("abcd")), scores, binomial_se(scores, 1000), "the binomial error", bootstrap=400
    )
    assert t.tier.tolist() == [1, 1, 2, 3] and t.method == "z test on the binomial error"
    assert (t.rank_lo[:2] == 1).all() and (t.rank_hi[:2] == 2).all() and t.rank_lo[3] == t.rank_hi[3] == 4
    # the z test by hand for the first pair
    z = 0.01 / math.sqrt(0.8 * 0.2 / 1000 + 0.79 * 0.21 / 1000)
    assert t.p_values[0, 1] == pytest.approx(math.erfc(z / math.sqrt(2)))


def test_swe_bench_verified_p_values_are_exact_mcnemar(shared_data):
    """24 models x 500 instances: every pair's p-value equals a McNemar test computed here from the raw table
    with SciPy's exact binomial test on the discordant instances."""
    from scipy.stats import binomtest

    from bot.pipeline.audit import tiers_of
    from bot.sources import fetch_csv_file
    from bot.store import validate_responses

    table = fetch_csv_file(shared_data / "swebench_verified_bashonly" / "verified.csv")
    rows = validate_responses(table.frame, table.location)
    t = tiers_of(rows)
    assert t.method == "exact McNemar test on the items both models answered" and len(t.models) == 24
    wide = rows.pivot(index="item_id", columns="model", values="score")
    for a, first in enumerate(t.models):
        for b in range(a + 1, len(t.models)):
            both = wide[[first, t.models[b]]].dropna()
            right_wrong = int(((both[first] == 1) & (both[t.models[b]] == 0)).sum())
            wrong_right = int(((both[first] == 0) & (both[t.models[b]] == 1)).sum())
            n = right_wrong + wrong_right
            expected = 1.0 if n == 0 else binomtest(right_wrong, n, 0.5).pvalue
            assert t.p_values[a, b] == pytest.approx(expected, rel=1e-9, abs=1e-12), (first, t.models[b])
    # every model of a lower tier is told apart (after Holm) from the leader of each tier above it, and every
    # model of a tier is not told apart from its own leader
    leaders = {k: min(np.flatnonzero(t.tier == k)) for k in set(t.tier.tolist())}
    for b in range(24):
        for k, leader in leaders.items():
            if k < t.tier[b]:
                assert t.adjusted[leader, b] < t.alpha
            if k == t.tier[b] and b != leader:
                assert t.adjusted[leader, b] >= t.alpha
    assert t.tier[0] == 1 and t.summary()["top_tier_size"] == int((t.tier == 1).sum())
