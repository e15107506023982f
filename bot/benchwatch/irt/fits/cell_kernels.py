"""The compiled passes that put a benchmark's cells in order (``benchwatch.irt.fits.cells``): each item's fingerprint,
its cells gathered by response pattern or by item, by counting (no sort, no array of positions); numba, cached on
disk (``benchwatch.kernel_cache``), listed in ``benchwatch.irt.kernels.compiled_kernels``."""

from __future__ import annotations

import numpy as np

from benchwatch.kernel_cache import njit


@njit(cache=True, nogil=True)
def hash_items(item_idx, model_idx, w, y, r1, r2, n_items, alike):  # pragma: no cover (compiled)
    """A 64-bit fingerprint of each item's cells: the wrapping sum over its cells of r1[model] * bits(w y) +
    r2[model] * bits(w) (random odd multipliers; the bits of the float values): items with the same models,
    trials and successes share it, others collide with probability about 2^-64 a pair. ``alike``: every cell's
    w and w y taken as 1 (the items' sets of models alone; ``w`` and ``y`` are not read). The codes are read as
    the response arrays hold them (int32) and the successes formed cell by cell: no array of the cells' size
    is made (at 38 million cells each would take 0.3 GB)."""
    out = np.zeros(n_items, np.uint64)
    one_a = np.uint64(np.int64(1.0 * 1048576.0 + 0.5)) + np.uint64(1)
    one_b = np.uint64(np.int64(1.0 * 1048576.0 + 0.5)) + np.uint64(7)
    for k in range(item_idx.size):
        j = model_idx[k]
        if alike:
            a, b = one_a, one_b
        else:
            a = np.uint64(np.int64(w[k] * y[k] * 1048576.0 + 0.5)) + np.uint64(1)
            b = np.uint64(np.int64(w[k] * 1048576.0 + 0.5)) + np.uint64(7)
        out[item_idx[k]] += r1[j] * a + r2[j] * b
    return out


@njit(cache=True, nogil=True)
def pattern_starts(item_idx, pattern, keep, n_patterns):  # pragma: no cover (compiled)
    """Where each pattern's cells begin among the kept items' cells ordered by pattern (``n_patterns + 1``
    offsets): the counting sort that ``by_pattern`` scatters by."""
    start = np.zeros(n_patterns + 1, np.int64)
    for k in range(item_idx.size):
        i = item_idx[k]
        if keep[i]:
            start[pattern[i] + 1] += 1
    for p in range(n_patterns):
        start[p + 1] += start[p]
    return start


@njit(cache=True, nogil=True)
def by_pattern(item_idx, pattern, keep, starts, a, b, out):  # pragma: no cover (compiled)
    """The kept items' cells' values a (times b where b is not empty) into ``out`` ordered by pattern and, within
    one, as they come: what a stable sort by pattern gives, with no array of positions. Each call scatters one
    column, so that a caller can let each source column go once it is read."""
    at = starts[:-1].copy()
    times = b.size > 0
    for k in range(item_idx.size):
        i = item_idx[k]
        if keep[i]:
            p = pattern[i]
            out[at[p]] = a[k] * b[k] if times else a[k]
            at[p] += 1
    return out


@njit(cache=True, nogil=True)
def by_item(item_idx, n_items, out):  # pragma: no cover (compiled)
    """The cells' positions ordered by item and, within one, as they come (``np.argsort(item_idx, kind="stable")``,
    by counting: 4 bytes a cell in ``out`` and no sort's buffer)."""
    at = np.zeros(n_items + 1, np.int64)
    for k in range(item_idx.size):
        at[item_idx[k] + 1] += 1
    for i in range(n_items):
        at[i + 1] += at[i]
    for k in range(item_idx.size):
        i = item_idx[k]
        out[at[i]] = k
        at[i] += 1
    return out
