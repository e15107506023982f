"""What the nuisances' profiles share (the chance floor's, ``benchwatch.irt.item_model.floors``; the spread's,
``benchwatch.irt.item_model.spread``): the fixed subset of items a large benchmark's profile reads, the items' marginal
likelihood maximised over their distribution of difficulty, and the search of a profile's maximum and of where it
crosses its interval's level."""

from __future__ import annotations

import numpy as np

from benchwatch.irt.responses import ResponseArrays

MAX_ITEMS = 1000  # items a profile reads at most (a fixed random subset beyond)
TOL = 0.01  # the default resolution of a profile's maximum (twice this) along its parameter's range


def kept_items(n_items: int, max_items: int = MAX_ITEMS, seed: int = 0) -> np.ndarray | None:
    """The fixed random subset of items a large benchmark's floor profile and fit check run on (sorted), or None
    when they run on every item."""
    if n_items <= max_items:
        return None
    return np.sort(np.random.default_rng(seed).choice(n_items, max_items, replace=False))


def restrict(data: ResponseArrays, keep: np.ndarray | None) -> ResponseArrays:
    """The benchmark's cells of the items ``keep`` (all of them for None)."""
    if keep is None:
        return data
    new_index = np.full(data.n_items, -1)
    new_index[keep] = np.arange(keep.size)
    cells = new_index[data.item_idx] >= 0
    return ResponseArrays(
        models=data.models,
        items=data.items[keep],
        model_idx=data.model_idx[cells],
        item_idx=new_index[data.item_idx[cells]].astype(np.int32),
        y=data.y[cells],
        weight=data.weight[cells],
        chance=None if data.chance is None else data.chance[keep],
    )


def npmle_loglik(rows: np.ndarray, groups: np.ndarray | None = None, warm: dict | None = None) -> float:
    """log prod_i integral exp(rows_i(b)) dG(b), maximised over G (per design group) on the columns of ``rows``
    (items x points of b: each item's log likelihood there), by the nonparametric maximum likelihood. ``warm``: each
    group's distribution to start from, replaced by this one's."""
    from benchwatch.irt.difficulty.npmle import solve_mixing

    top = rows.max(axis=1)
    like = np.exp(rows - top[:, None])
    label = np.zeros(rows.shape[0], np.int64) if groups is None else np.asarray(groups, np.int64)
    total = float(top.sum())
    for g in np.unique(label):  # the groups' distributions are free of each other: their maxima add
        rows_g = like[label == g]
        mix = solve_mixing(rows_g, np.ones(rows_g.shape[0]), start=None if warm is None else warm.get(int(g)))
        total += mix.loglik
        if warm is not None:
            warm[int(g)] = mix.w
    return total


def maximise(ell, coarse: np.ndarray, values: np.ndarray, tol: float = TOL) -> float:
    """The maximiser of ell: the best coarse point, refined by golden-section search between its neighbours."""
    k = int(np.argmax(values))
    a, b = coarse[max(k - 1, 0)], coarse[min(k + 1, coarse.size - 1)]
    best, best_value = float(coarse[k]), float(values[k])
    golden = (np.sqrt(5.0) - 1.0) / 2.0
    x1, x2 = b - golden * (b - a), a + golden * (b - a)
    f1, f2 = ell(x1), ell(x2)
    while b - a > 2 * tol * (coarse[-1] - coarse[0]):
        if f1 >= f2:
            b, x2, f2 = x2, x1, f1
            x1 = b - golden * (b - a)
            f1 = ell(x1)
        else:
            a, x1, f1 = x1, x2, f2
            x2 = a + golden * (b - a)
            f2 = ell(x2)
    for x, v in ((x1, f1), (x2, f2)):
        if v > best_value:
            best, best_value = float(x), float(v)
    return best


def crossing(ell, level: float, a: float, b: float, coarse: np.ndarray, tol: float) -> float:
    """Where ell crosses ``level`` between a and b (one end above it, the other below): regula falsi on a bracket
    first narrowed to the coarse points, kept on the side of the wider interval (a conservative end)."""
    inside = [c for c in coarse if a < c < b]
    fa, fb = ell(a), ell(b)
    rising = fa < fb  # the lower end: ell rises from below the level at a to above it at b
    for c in inside:  # narrow to the coarse cell that holds the crossing
        fc = ell(c)
        if (fc >= level) == rising:
            b, fb = c, fc
            break
        a, fa = c, fc
    for _ in range(20):
        if b - a <= tol:
            break
        t = (level - fa) / (fb - fa) if fb != fa else 0.5
        x = a + min(max(t, 0.1), 0.9) * (b - a)
        fx = ell(x)
        if (fx >= level) == rising:
            b, fb = x, fx
        else:
            a, fa = x, fx
    return float(a if rising else b)  # the end outside the level: the interval never shorter than the profile's
