"""The likelihood-ratio tests behind the bounds (``benchwatch.metrics.bounds``), on one pool's axis likelihood from
one unrestricted fit: whether a stretch can be empty, whether it can hold its share of the target, the range of a
linear function of the items' distribution; and the searches over stretches built on them (the widest empty
window, the ends, the top five, the thin stretches)."""

from __future__ import annotations

import numpy as np

from benchwatch.irt import MixingFit, empty_reaches, linear_range, mixture_loglik, solve_mixing
from benchwatch.metrics.axis import AxisLikelihood, target_mass
from benchwatch.metrics.coverage import Target

CRIT_EMPTY = 5.991  # 5% point of chi2_2: the likelihood ratio of where a support ends (see ``bounds``)
CRIT_TOP5 = 5.412  # the same at 1% (Bonferroni over five gaps)
CRIT_THIN = 2.706
CRIT_DDM = 3.841  # the upper end: two-sided 95% for one linear function
CRIT_DDM_LOW = 5.412  # the lower end, the largest over the sign functions: one-sided 1% for each
THIN = 0.25  # a stretch is thin when it holds less than this share of the target's mass there
PROBE_WIDTHS = (0.05, 0.1, 0.2, 0.3)  # widths at which thin stretches are searched (then grown)


class Search:
    """The tests behind every bound, on one pool's axis likelihood, sharing one unrestricted fit."""

    def __init__(
        self, lik: AxisLikelihood, target: Target, top: MixingFit | None = None, like: np.ndarray | None = None
    ):
        self.like = np.asfortranarray(lik.expanded() if like is None else like)  # the solver reads it point-major
        self.counts, self.target = lik.counts, target
        self.k = lik.like.shape[1]  # cells of the axis (a distribution lives on one copy of them per design group)
        self.blocks = lik.n_groups
        self.edges = np.arange(self.k + 1) / self.k
        self.top: MixingFit = top or solve_mixing(self.like, self.counts)
        self.w0 = self.top.w
        self.mix0 = self.like @ self.w0
        self.slope = self.like.T @ (self.counts / np.maximum(self.mix0, 1e-300))  # l's gradient at the fit
        self.fits = 0
        self.last: np.ndarray | None = None  # the last restricted fit of an empty stretch: a warm start
        self.starts = np.stack([self.w0, self.w0])  # the empty stretches' starts: the fit, and the last one's
        self.w0_axis = self.axis(self.w0)
        # two levels each empty stretch is placed against at once (``reaches``)
        self.pair: tuple[float, ...] = ()
        self.known: dict[tuple[int, int], float] = {}  # such stretches' attained l: it reached what it could
        self.within: list[np.ndarray] = []  # distributions found within the thin test's level (certificates)

    def level(self, crit: float) -> float:
        return self.top.loglik - crit / 2

    def axis(self, w: np.ndarray) -> np.ndarray:
        """A distribution over the groups' copies of the grid as one distribution on the axis."""
        return w if self.blocks == 1 else w.reshape(self.blocks, self.k).sum(axis=0)

    def tile(self, h: np.ndarray) -> np.ndarray:
        """A function of the axis on every group's copy of the grid (h . w is then h's integral over the axis)."""
        return h if self.blocks == 1 else np.tile(h, self.blocks)

    def empty_ok(self, lo: int, hi: int, crit: float) -> bool:
        """Whether no mass on grid points lo..hi-1 (the stretch [lo/K, hi/K]) cannot be ruled out. Starts from
        the unrestricted fit, or the last restricted one, with the stretch's mass moved next to it. With
        ``pair`` set, one fit places the stretch against both levels (each answer kept for the other's search)."""
        if hi - lo >= self.k:
            return False
        if hi <= lo or self.w0_axis[lo:hi].sum() == 0:
            return True
        level = self.level(crit)
        known = self.known.get((lo, hi))  # placed against both levels of the pair: final for either
        if known is not None and (known >= level or crit in self.pair):
            return known >= level
        levels = (self.level(min(self.pair)), self.level(max(self.pair))) if crit in self.pair else (level,)
        starts = self.starts if self.last is not None else self.starts[:1]
        attained, w = empty_reaches(self.like, self.counts, starts, lo, hi, self.blocks, levels)
        if w is not None:  # it took a fit: the next stretch's warm start
            self.fits += 1
            self.last = self.starts[1] = w
        if len(levels) > 1:
            self.known[(lo, hi)] = attained
        return attained >= level

    def thin_ok(self, lo: int, hi: int, crit: float = CRIT_THIN) -> bool:
        """Whether 'the stretch [lo/K, hi/K] holds at least THIN of the target's mass' cannot be rejected: some
        distribution within the level puts that much there."""
        need = THIN * float(target_mass(self.target, self.edges[lo], self.edges[hi]))
        if float(self.axis(self.w0)[lo:hi].sum()) >= need:
            return True
        level = self.level(crit)
        # Certificates first. A distribution an earlier search found within this level that already puts that
        # much on the stretch answers it (the probes overlap: 29 of the 64 searches of the sample's easy-heavy
        # benchmark are answered so); the answer is the one the search would give, since a distribution within
        # the level that holds the mass is what it looks for.
        if crit == CRIT_THIN and any(float(self.axis(w)[lo:hi].sum()) >= need for w in self.within):
            return True
        # Then the fit: the fit with the missing mass moved onto the stretch's steepest point (where a
        # little more mass costs the likelihood least); within the level, the stretch can hold that much.
        inside = float(self.axis(self.w0)[lo:hi].sum())
        share = (need - inside) / (1.0 - inside)
        v = self.w0 * (1.0 - share)
        steep = self.slope.reshape(self.blocks, self.k)[:, lo:hi]
        block, point = np.unravel_index(int(np.argmax(steep)), steep.shape)
        v[block * self.k + lo + point] += share
        if mixture_loglik(self.like, self.counts, v) >= level:
            return True
        h = np.zeros(self.k)
        h[lo:hi] = 1.0
        h = self.tile(h)
        self.fits += 1
        low, high, w = linear_range(self.like, self.counts, h, level, start=self.w0, stop_below=need, stop_above=need)
        if crit == CRIT_THIN and low >= need:  # w is within the level (linear_range's lower end is attained by it)
            self.within.append(w)
        return high >= need

    def linear_end(
        self, h: np.ndarray, up: bool, beat: float | None = None, crit: float = CRIT_DDM, tol: float = 5e-4
    ) -> tuple[float | None, np.ndarray]:
        """A certified bound on the largest (``up``) or smallest h . w over the distributions within the
        profile level: its upper bound for the largest, its lower bound for the smallest, so that a bound built
        on it stays on the safe side; and the most extreme distribution found. With ``beat``, None unless that
        end lies above ``beat``, where it would raise the bound that the caller keeps."""
        self.fits += 1
        level = self.level(crit)
        h = self.tile(h)
        if up:  # the largest is at most hi; it can raise the caller's bound only if it exceeds ``beat``
            _, hi, w = linear_range(self.like, self.counts, h, level, start=self.w0, stop_below=beat, tol=tol)
            return (None, w) if beat is not None and hi <= beat else (hi, w)
        # the smallest is -max(-h . w), at least -hi; it can raise the caller's bound only if -hi exceeds ``beat``
        give_up = None if beat is None else -beat
        _, hi, w = linear_range(self.like, self.counts, -h, level, start=self.w0, stop_above=give_up, tol=tol)
        return (None, w) if beat is not None and -hi <= beat else (-hi, w)


def widest_empty(search: Search, crit: float) -> tuple[int, tuple[int, int]]:
    """The widest window (in grid cells) not ruled out as empty: a sweep of windows one wider than the best."""
    best, where, j = 0, (0, 0), 0
    while j + best + 1 <= search.k:
        if search.empty_ok(j, j + best + 1, crit):
            best += 1
            where = (j, j + best)
        else:
            j += 1
    return best, where


def reaches(search: Search, crits: tuple[float, float]) -> tuple[np.ndarray, np.ndarray]:
    """``reach`` at two levels (the stricter first) in one pass, each stretch placed against both by one fit: a
    stretch not ruled out at the stricter level is not at the other, so the other's reach from each start begins
    at the stricter one's, and the stretch that ends the stricter one's is already placed against the other. (Two
    halves of the starts at once, each knowing nothing of the other's, took 15% more time on the cores they
    shared than this one pass.)"""
    strict, loose = crits
    search.pair = (strict, loose)
    first, second = np.zeros(search.k, int), np.zeros(search.k, int)
    end = end2 = 0
    for j in range(search.k):
        end = max(end, j)
        while end < search.k and search.empty_ok(j, end + 1, strict):
            end += 1
        first[j], end2 = end, max(end2, end)
        while end2 < search.k and search.empty_ok(j, end2 + 1, loose):
            end2 += 1
        second[j] = end2
    search.pair = ()
    return first, second


def empty_from_reach(reach: np.ndarray) -> tuple[int, tuple[int, int], int, int]:
    """What ``widest_empty`` and both ``widest_end`` find, from a level's ``reach``: the widest window and where
    it lies (the first of the widest), and the widest window at each end."""
    k = reach.size
    width = reach - np.arange(k)
    j = int(np.argmax(width))
    full = np.flatnonzero(reach >= k)
    return (
        int(width[j]),
        ((j, j + int(width[j])) if width[j] > 0 else (0, 0)),
        int(reach[0]),
        (k - int(full[0]) if full.size else 0),
    )


def widest_end(search: Search, crit: float, low: bool) -> int:
    """The widest end window not ruled out as empty (monotone in its width: bisection)."""
    ok, bad = 0, search.k
    while bad - ok > 1:
        mid = (ok + bad) // 2
        if search.empty_ok(0, mid, crit) if low else search.empty_ok(search.k - mid, search.k, crit):
            ok = mid
        else:
            bad = mid
    return ok


def reach(search: Search, crit: float) -> np.ndarray:
    """For each start j, the end of the longest window from j not ruled out as empty (nondecreasing in j)."""
    reach = np.zeros(search.k, int)
    end = 0
    for j in range(search.k):
        end = max(end, j)
        while end < search.k and search.empty_ok(j, end + 1, crit):
            end += 1
        reach[j] = end
    return reach


def top_sum(reach: np.ndarray, parts: int = 5) -> int:
    """The largest total length of ``parts`` disjoint windows, each inside some [j, reach[j]) (dynamic programme)."""
    k = reach.size
    # longest admissible window ending exactly at x: from the smallest j with reach[j] >= x
    start = np.full(k + 1, -1)
    j = 0
    for x in range(1, k + 1):
        while j < x and reach[j] < x:
            j += 1
        start[x] = j if j < x else -1
    best = np.zeros((parts + 1, k + 1), int)
    for p in range(1, parts + 1):
        for x in range(1, k + 1):
            value = best[p][x - 1]
            j = start[x]
            if j >= 0:  # any window [i, x) with i >= j is admissible; the best i maximises best[p-1][i] + x - i
                window = best[p - 1][j:x] + (x - np.arange(j, x))
                value = max(value, int(window.max()))
            best[p][x] = value
    return int(best[parts][k])


def thin_stretches(search: Search) -> list[tuple[int, int]]:
    """Windows shown thin, found at the probe widths and grown step by step while still shown thin."""
    k = search.k
    found: list[tuple[int, int]] = []
    for width in sorted({max(2, round(w * k)) for w in PROBE_WIDTHS}):
        if width > k:
            continue
        starts = sorted(set(range(0, k - width + 1, 2)) | {k - width})
        for lo in starts:
            hi = lo + width
            if any(a <= lo and hi <= b for a, b in found) or search.thin_ok(lo, hi):
                continue
            while hi + 2 <= k and not search.thin_ok(lo, hi + 2):
                hi += 2
            while lo - 2 >= 0 and not search.thin_ok(lo - 2, hi):
                lo -= 2
            found.append((lo, hi))
    found.sort(key=lambda s: (-(s[1] - s[0]), s[0]))
    disjoint: list[tuple[int, int]] = []
    for lo, hi in found:
        if all(hi <= a or lo >= b for a, b in disjoint):
            disjoint.append((lo, hi))
    return disjoint
