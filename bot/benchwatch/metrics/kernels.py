"""Compiled passes behind the simulations of the coverage figures (numba; they release the GIL).

The simulations of what n target items show by chance (``benchwatch.metrics.resolution``) and the posterior draws
of z compute the same figures on thousands of rows: numpy's version of each builds a dozen rows-by-items
temporaries; these walk each row once. Each has a plain numpy counterpart in ``benchwatch.metrics.coverage`` or
``benchwatch.metrics.bounds`` that the tests compare it with.
"""

from __future__ import annotations

import numpy as np
from numba import types as nt

from benchwatch.kernel_cache import njit


@njit(cache=True, nogil=True)
def uniform_rows(z_sorted):  # pragma: no cover (compiled)
    """For each row of sorted z in [0, 1]: DDM to Uniform(0, 1) (the closed form of ``coverage.ddm``), the
    largest spacing and the sums of the three and five largest (ends 0 and 1 included). Returns (rows x 4)."""
    rows, n = z_sorted.shape
    out = np.zeros((rows, 4))
    for r in range(rows):
        top = np.zeros(5)  # the five largest spacings so far, widest first
        total = 0.0
        for k in range(n + 1):
            lo = 0.0 if k == 0 else z_sorted[r, k - 1]
            hi = 1.0 if k == n else z_sorted[r, k]
            level = k / n
            cross = min(max(level, lo), hi)  # where the target's CDF t crosses the sample's level
            total += level * (cross - lo) - 0.5 * (cross * cross - lo * lo)
            total += 0.5 * (hi * hi - cross * cross) - level * (hi - cross)
            gap = hi - lo
            if gap > top[4]:
                j = 4
                while j > 0 and top[j - 1] < gap:
                    top[j] = top[j - 1]
                    j -= 1
                top[j] = gap
        out[r, 0] = total
        out[r, 1] = top[0]
        out[r, 2] = top[0] + top[1] + top[2]
        out[r, 3] = top[0] + top[1] + top[2] + top[3] + top[4]
    return out


@njit(cache=True, nogil=True)
def thin_rows(z, cdf_edges, share):  # pragma: no cover (compiled)
    """For each row of known z: the widest stretch [j/k, l/k] of the k-cell grid holding less than ``share``
    of the target's mass there (``cdf_edges``: the target's CDF at the k + 1 cell edges), and the total width
    of up to five disjoint ones taken widest first among the widest from each start (``bounds.thin_truth``,
    which is the reference). Returns (rows x 2)."""
    rows, n = z.shape
    k = cdf_edges.size - 1
    out = np.zeros((rows, 2))
    for r in range(rows):
        counts = np.zeros(k + 1, np.int64)
        for t in range(n):
            cell = int(z[r, t] * k)
            counts[min(max(cell, 0), k - 1) + 1] += 1
        prefix = np.empty(k + 1)  # the cumulative share (loops: numba's array functions compile slowly)
        running = 0
        for c in range(k + 1):
            running += counts[c]
            prefix[c] = running / n
        width = np.zeros(k + 1, np.int64)
        reach = np.zeros(k + 1, np.int64)
        for lo in range(k + 1):
            for hi in range(k, lo, -1):  # the widest first: the first thin one is the reach
                if prefix[hi] - prefix[lo] < share * (cdf_edges[hi] - cdf_edges[lo]):
                    reach[lo] = hi
                    width[lo] = hi - lo
                    break
        # the starts by width, widest first and ties from the left: a counting sort (a stable argsort compiles
        # in seconds, this in a fraction of one)
        same = np.zeros(k + 1, np.int64)  # how many starts have each width
        for lo in range(k + 1):
            same[width[lo]] += 1
        ahead = np.zeros(k + 1, np.int64)  # how many starts are wider than each width
        for w in range(k - 1, -1, -1):
            ahead[w] = ahead[w + 1] + same[w + 1]
        order = np.empty(k + 1, np.int64)
        for lo in range(k + 1):
            order[ahead[width[lo]]] = lo
            ahead[width[lo]] += 1
        chosen_lo = np.zeros(5, np.int64)
        chosen_hi = np.zeros(5, np.int64)
        m = 0
        widest = 0
        total = 0.0
        for start in order:
            if width[start] <= 0 or m == 5:
                break
            a, b = start, reach[start]
            free = True
            for c in range(m):
                if not (b <= chosen_lo[c] or a >= chosen_hi[c]):
                    free = False
                    break
            if free:
                chosen_lo[m], chosen_hi[m] = a, b
                m += 1
                widest = max(widest, b - a)
                total += (b - a) / k
        out[r, 0] = widest / k
        out[r, 1] = total
    return out


def compiled_kernels() -> list[tuple]:
    """(kernel, argument types, seconds its first compile took on a 2-core machine) for every kernel of this
    stage as the pipeline calls it (``benchwatch.irt.compiled_kernels`` says why)."""
    f2 = nt.float64[:, ::1]
    return [
        (uniform_rows, (f2,), 0.45),
        (thin_rows, (f2, nt.float64[::1], nt.float64), 1.1),
    ]
