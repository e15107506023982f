"""Tiers of tied models and rank intervals from one set of tests: exact tests checked by hand, a simulation with
planted differences, and the real per-item matrices of ../shared/data."""

from __future__ import annotations

import math

import numpy as np
import pytest

from benchwatch.metrics.saturation import score_interval
from benchwatch.metrics.tiers import (
    binomial_se,
    holm,
    mcnemar_exact,
    score_intervals,
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


def test_tiers_cut_in_score_order_by_hand():
    scores = np.array([0.9, 0.8, 0.7, 0.6, 0.5])
    better = np.zeros((5, 5), bool)
    better[0, 2:] = True  # the best beats the last three: a new tier begins at the third
    better[2, 4] = True  # the third beats the last: another
    assert tiers_from_significance(scores, better).tolist() == [1, 1, 2, 2, 3]
    assert tiers_from_significance(scores, np.zeros((5, 5), bool)).tolist() == [1] * 5
    # the best beats the second only (the third answered too few items to be told apart from it): the third
    # cannot climb back above the second, whatever its test against the best
    better = np.zeros((3, 3), bool)
    better[0, 1] = True
    assert tiers_from_significance(scores[:3], better).tolist() == [1, 2, 2]
    # the second beats the third, the best does not: the third has a model above it, so it leaves tier 1
    better = np.zeros((3, 3), bool)
    better[1, 2] = True
    assert tiers_from_significance(scores[:3], better).tolist() == [1, 1, 2]
    # equal scores share a tier: the tie moves down together
    better = np.zeros((3, 3), bool)
    better[0, 2] = True
    assert tiers_from_significance(np.array([0.9, 0.5, 0.5]), better).tolist() == [1, 2, 2]


def _holm_by_loop(p: np.ndarray, alpha: float) -> np.ndarray:
    """Holm's step-down rejections over the upper triangle, by a plain loop (an independent check)."""
    m = p.shape[0]
    pairs = sorted(((p[a, b], a, b) for a in range(m) for b in range(a + 1, m)), key=lambda x: x[0])
    rejected = np.zeros((m, m), bool)
    for k, (value, a, b) in enumerate(pairs):
        if value > alpha / (len(pairs) - k):
            break
        rejected[a, b] = rejected[b, a] = True
    return rejected


def _check_one_procedure(t, *, n_total: int | None = None) -> None:
    """What the tiers and the rank intervals promise together, checked from the raw p-values."""
    m = len(t.models)
    n_total = n_total or m
    rejected = _holm_by_loop(t.p_values, t.alpha)
    better = rejected & (t.scores[:, None] > t.scores[None, :])
    assert (better == t.better).all()
    assert t.rank_lo.tolist() == [1 + int(better[:, j].sum()) for j in range(m)]
    assert t.rank_hi.tolist() == [n_total - int(better[j].sum()) for j in range(m)]
    assert (t.rank_lo <= np.arange(1, m + 1)).all() and (np.arange(1, m + 1) <= t.rank_hi).all()
    assert (t.rank_lo[t.tier == 1] == 1).all()  # a tier-1 model's interval includes 1
    assert (np.diff(t.scores) <= 0).all() and (np.diff(t.tier) >= 0).all()  # tiers never rise as scores fall
    for k in set(t.tier.tolist()):
        members = np.flatnonzero(t.tier == k)
        assert not better[np.ix_(members, members)].any()  # no two models of a tier told apart
        if k > 1:  # a tier begins where a model of the tier above beats its best (or one tied with it)
            above = np.flatnonzero(t.tier == k - 1)
            tied = members[t.scores[members] == t.scores[members[0]]]
            assert better[np.ix_(above, tied)].any()
    for a in range(m):  # equal scores, one tier
        assert (t.tier[t.scores == t.scores[a]] == t.tier[a]).all()


def test_one_score_interval_wilson_or_the_published_error_by_hand():
    z = 1.959963984540054
    # 0 right of 16: Wilson's interval is [0, z^2 / (n + z^2)], where the normal one collapses to a point
    lo, hi = score_intervals(np.array([0.0, 0.5]), np.array([16, 100]))
    assert lo[0] == pytest.approx(0.0, abs=1e-15) and hi[0] == pytest.approx(z * z / (16 + z * z))
    # 50 of 100: centre 0.5, half-width z / (1 + z^2/n) * sqrt(1/400 + z^2/40000)
    half = z / (1 + z * z / 100) * math.sqrt(0.25 / 100 + z * z / 40000)
    assert (lo[1], hi[1]) == pytest.approx((0.5 - half, 0.5 + half))
    # a published standard error: the normal interval, within [0, 1]; NaN falls back to Wilson
    lo, hi = score_intervals(np.array([0.8, 0.99, 0.8]), 500, np.array([0.018, 0.01, np.nan]))
    assert (lo[0], hi[0]) == pytest.approx((0.8 - z * 0.018, 0.8 + z * 0.018)) and hi[1] == 1.0
    assert (lo[2], hi[2]) == pytest.approx(score_interval(np.r_[np.ones(400), np.zeros(100)]))


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
    (pairwise, after Holm over all 21 pairs), and how often it lands in a lower tier than all four (in score
    order, a tier is cut where a model of the tier above beats it). In every run the tiers and the rank
    intervals are one procedure (``_check_one_procedure``)."""
    gaps = [0, 0, 0, 0, 2, 5, 10]
    runs = 200 if n_items < 4000 else 60
    shared, pairwise, tiered = 0, {2: 0, 5: 0, 10: 0}, {2: 0, 5: 0, 10: 0}
    for seed in range(runs):
        y, answered = _planted(gaps, n_items, seed)
        t = tiers_from_items(np.array([f"m{k}" for k in range(7)]), y, answered, True)
        _check_one_procedure(t)
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
    t = tiers_from_items(np.array(["a", "b", "c"]), y, np.ones_like(y, bool), False)
    assert "paired t" in t.method
    assert t.tier.tolist() == [1, 1, 2] and t.top == [t.models[0], t.models[1]]
    assert set(t.top) == {"a", "b"}


def test_published_scores_with_their_errors_and_rank_intervals():
    scores = np.array([0.80, 0.79, 0.60, 0.40])
    t = tiers_from_scores(np.array(list("abcd")), scores, np.full(4, np.nan), "the binomial error", n_items=1000)
    assert t.tier.tolist() == [1, 1, 2, 3] and t.method == "z test on the binomial error"
    assert t.score_se == pytest.approx(binomial_se(scores, 1000))
    assert t.rank_lo.tolist() == [1, 1, 3, 4] and t.rank_hi.tolist() == [2, 2, 3, 4]
    _check_one_procedure(t)
    # the z test by hand for the first pair
    z = 0.01 / math.sqrt(0.8 * 0.2 / 1000 + 0.79 * 0.21 / 1000)
    assert t.p_values[0, 1] == pytest.approx(math.erfc(z / math.sqrt(2)))


def test_swe_bench_verified_p_values_are_exact_mcnemar(shared_data):
    """24 models x 500 instances: every pair's p-value equals a McNemar test computed here from the raw table
    with SciPy's exact binomial test on the discordant instances."""
    from scipy.stats import binomtest

    from benchwatch.pipeline.audit import tiers_of
    from benchwatch.sources import fetch_csv_file
    from benchwatch.store import validate_responses

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
    _check_one_procedure(t)  # the rank intervals counted from the raw p-values with Holm by a loop
    assert t.tier[0] == 1 and t.summary()["top_tier_size"] == int((t.tier == 1).sum())


def _real_records(folder):
    """Every per-item matrix of ../shared/data, as validated responses (one benchmark each)."""
    from benchwatch.sources import fetch_csv_file
    from benchwatch.store import validate_responses

    paths = [folder / "swebench_verified_bashonly" / "verified.csv", folder / "mmlu_pro" / "mmlu_pro.csv"]
    paths += sorted((folder / "livecodebench").glob("codegeneration_v????-??.csv"))
    for path in paths:
        table = fetch_csv_file(path)
        yield path.name, validate_responses(table.frame, table.location)


def test_every_real_record_has_one_procedure_and_one_score_interval(shared_data):
    """On SWE-bench Verified, MMLU-Pro and the three LiveCodeBench releases: every tier-1 model's rank interval
    includes 1, tiers never rise as scores fall, the rank intervals are the Holm counts of the raw p-values, and
    each model's score interval is the audit's (``paired_figures``, what ``benchwatch audit`` records for the
    top models) and Wilson's, computed here with SciPy from the model's own items."""
    from scipy.stats import binomtest

    from benchwatch.metrics import model_scores, paired_figures, saturation, tiers_of

    seen = 0
    for name, rows in _real_records(shared_data):
        t = tiers_of(rows)
        _check_one_procedure(t)
        models = model_scores(rows).reset_index()
        assert t.scores == pytest.approx(models.set_index("model").loc[t.models, "score"].to_numpy(), abs=1e-12)
        sat = saturation(models["model"].to_numpy(), models["score"].to_numpy(), rows["item_id"].nunique(), 1.0)
        _, audited = paired_figures(rows, sat)
        table = {r["model"]: r for r in t.table()}
        for m, (lo, hi) in audited.items():
            assert (table[m]["score_lo"], table[m]["score_hi"]) == pytest.approx((lo, hi), abs=1e-12), (name, m)
        binary = set(rows["score"].unique()) <= {0.0, 1.0}
        for m in t.models[:: max(1, len(t.models) // 6)]:
            mine = rows.loc[rows["model"] == m, "score"].to_numpy()
            expected = score_interval(mine)  # benchwatch.metrics.saturation's Wilson, a separate implementation
            if binary:
                expected = binomtest(int(mine.sum()), mine.size).proportion_ci(method="wilson")
                expected = (expected.low, expected.high)
            assert (table[m]["score_lo"], table[m]["score_hi"]) == pytest.approx(expected, abs=1e-9), (name, m)
        print(f"{name}: {len(t.models)} models, {t.n_tiers} tiers, top tier {len(t.top)}")
        seen += 1
    assert seen == 5
