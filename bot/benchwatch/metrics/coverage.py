"""Coverage of the difficulty axis: DDM (exact 1-Wasserstein distance to a target) and gap statistics."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Target:
    """The target distribution of difficulty on [0, 1]: uniform, Beta(a, b), or another benchmark's z."""

    kind: str = "uniform"
    a: float = 1.0
    b: float = 1.0
    values: tuple[float, ...] = ()

    @classmethod
    def beta(cls, a: float, b: float) -> Target:
        if not (a > 0 and b > 0):
            raise ValueError(f"Beta target needs a > 0 and b > 0, got a={a}, b={b}")
        return cls(kind="beta", a=float(a), b=float(b))

    @classmethod
    def empirical(cls, z: np.ndarray) -> Target:
        return cls(kind="empirical", values=tuple(float(v) for v in _checked(z)))

    def cdf(self, t: np.ndarray) -> np.ndarray:
        """F_mu(t): the target's cumulative mass at each t (the bounds, the thin stretches and the pages'
        picture of the items' CDF all read it here)."""
        if self.kind == "beta":
            from scipy import special  # only a Beta target needs it

            return special.betainc(self.a, self.b, t)
        if self.kind == "empirical":
            values = np.sort(np.asarray(self.values))
            return np.searchsorted(values, t, side="right") / values.size
        return np.clip(t, 0.0, 1.0)

    def describe(self) -> str:
        if self.kind == "uniform":
            return "Uniform(0, 1)"
        if self.kind == "beta":
            return f"Beta({self.a:g}, {self.b:g})"
        return f"empirical ({len(self.values)} points)"


UNIFORM = Target()


def _checked(z: np.ndarray) -> np.ndarray:
    z = np.asarray(z, dtype=float).ravel()
    if z.size == 0:
        raise ValueError("coverage needs at least one item")
    if not np.all(np.isfinite(z)) or z.min() < 0 or z.max() > 1:
        raise ValueError("difficulties z must be finite and lie in [0, 1]")
    return np.sort(z)


def _cdf_integral_and_quantile(target: Target):
    """IG(x) = integral of the target CDF over [0, x], and the target's quantile function."""
    if target.kind == "uniform":
        return (lambda t: 0.5 * t * t), (lambda c: c)
    from scipy import special  # only a Beta target needs it (a run that audits nothing loads no scipy)

    a, b = target.a, target.b
    return (
        lambda t: t * special.betainc(a, b, t) - a / (a + b) * special.betainc(a + 1, b, t),
        lambda c: special.betaincinv(a, b, c),
    )


def ddm(z: np.ndarray, target: Target = UNIFORM) -> float:
    """DDM = W1(nu_B, mu) = integral over [0, 1] of |F_B(t) - F_mu(t)| dt, in closed form."""
    z = _checked(z)
    if target.kind == "empirical":
        from scipy import stats  # only an empirical target needs it (scipy.stats takes a second to import)

        return float(stats.wasserstein_distance(z, np.asarray(target.values)))
    n = z.size
    icdf, quantile = _cdf_integral_and_quantile(target)
    lo = np.concatenate([[0.0], z])
    hi = np.concatenate([z, [1.0]])
    level = np.arange(n + 1) / n  # F_B on [lo_k, hi_k)
    # On each segment F_B is the constant c; |c - G| changes sign once, where G crosses c.
    cross = np.clip(quantile(level), lo, hi)
    below = level * (cross - lo) - (icdf(cross) - icdf(lo))
    above = (icdf(hi) - icdf(cross)) - level * (hi - cross)
    return float(np.sum(below + above))


def ddm_rows(z_sorted: np.ndarray, target: Target = UNIFORM) -> np.ndarray:
    """DDM of every row of a (draws x items) array of sorted z in [0, 1]: the closed form of ``ddm``, row-wise."""
    z = np.asarray(z_sorted, float)
    if target.kind == "empirical":
        return np.array([ddm(row, target) for row in z])
    rows, n = z.shape
    icdf, quantile = _cdf_integral_and_quantile(target)
    lo = np.concatenate([np.zeros((rows, 1)), z], axis=1)
    hi = np.concatenate([z, np.ones((rows, 1))], axis=1)
    level = np.arange(n + 1) / n
    cross = np.clip(quantile(level)[None, :], lo, hi)
    below = level * (cross - lo) - (icdf(cross) - icdf(lo))
    above = (icdf(hi) - icdf(cross)) - level * (hi - cross)
    return np.sum(below + above, axis=1)


def spacings(z: np.ndarray) -> np.ndarray:
    """The n + 1 spacings of 0, z_(1), ..., z_(n), 1."""
    z = _checked(z)
    return np.diff(np.concatenate([[0.0], z, [1.0]]))


def max_gap(z: np.ndarray) -> float:
    """The largest spacing of the sorted z, the ends 0 and 1 included."""
    return float(spacings(z).max())


def top_k_gap_sum(z: np.ndarray, k: int = 5) -> float:
    """The sum of the k largest spacings (all of them when there are fewer than k)."""
    if k < 1:
        raise ValueError("k must be at least 1")
    s = np.sort(spacings(z))[::-1]
    return float(s[:k].sum())


@dataclass(frozen=True)
class Gap:
    """One empty interval of the difficulty axis."""

    lo: float
    hi: float

    @property
    def width(self) -> float:
        return self.hi - self.lo

    @property
    def midpoint(self) -> float:
        return 0.5 * (self.lo + self.hi)


def largest_gaps(z: np.ndarray, k: int = 5) -> list[Gap]:
    """The k largest gaps with their ends, widest first (ties broken from the left)."""
    z = _checked(z)
    ends = np.concatenate([[0.0], z, [1.0]])
    widths = np.diff(ends)
    order = np.lexsort((np.arange(widths.size), -widths))[:k]
    return [Gap(float(ends[i]), float(ends[i + 1])) for i in order]


@dataclass(frozen=True)
class Coverage:
    """Coverage figures of one benchmark on the z axis."""

    n_items: int
    ddm: float
    max_gap: float
    top3_gap_sum: float
    top5_gap_sum: float
    gaps: tuple[Gap, ...]
    target: str


def coverage(z: np.ndarray, target: Target = UNIFORM) -> Coverage:
    """All coverage figures of one set of item difficulties."""
    z = _checked(z)
    return Coverage(
        n_items=int(z.size),
        ddm=ddm(z, target),
        max_gap=max_gap(z),
        top3_gap_sum=top_k_gap_sum(z, 3),
        top5_gap_sum=top_k_gap_sum(z, 5),
        gaps=tuple(largest_gaps(z, 5)),
        target=target.describe(),
    )


FIGURES = ("ddm", "max_gap", "top3_gap_sum", "top5_gap_sum")


def coverage_draws(z_draws: np.ndarray, target: Target = UNIFORM) -> dict[str, np.ndarray]:
    """Each coverage figure on each draw of z (draws x items)."""
    z_draws = np.sort(np.clip(np.atleast_2d(np.asarray(z_draws, float)), 0.0, 1.0), axis=1)
    if target.kind == "uniform" and z_draws.shape[1] > 0:  # the default target: one compiled pass per row
        from benchwatch.metrics.kernels import uniform_rows

        figures = uniform_rows(np.ascontiguousarray(z_draws))
        return {name: figures[:, k].copy() for k, name in enumerate(FIGURES)}
    n = z_draws.shape[0]
    ends = np.concatenate([np.zeros((n, 1)), z_draws, np.ones((n, 1))], axis=1)
    spaced = np.diff(ends, axis=1)
    k = min(5, spaced.shape[1])  # only the five widest are needed: a partition, then a sort of those five
    gaps = -np.sort(-np.partition(spaced, spaced.shape[1] - k, axis=1)[:, -k:], axis=1)  # widest first
    return {
        "ddm": ddm_rows(z_draws, target),
        "max_gap": gaps[:, 0],
        "top3_gap_sum": gaps[:, :3].sum(axis=1),
        "top5_gap_sum": gaps[:, :5].sum(axis=1),
    }
