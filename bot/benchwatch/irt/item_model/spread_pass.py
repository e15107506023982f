"""The matrix products behind the spread's rows (``benchwatch.irt.item_model.spread.spread_rows``): the cells grouped
by item, and one pass of products over them at one set of nodes of log a, each block of items over the points of b
and the nodes its window reaches (``benchwatch.irt.item_model.spread_windows``)."""

from __future__ import annotations

import copy
import hashlib
import math
from dataclasses import dataclass

import numpy as np

from benchwatch.irt.item_model import spread_windows as windows
from benchwatch.irt.item_model.spread_windows import Block

TABLE = 4_000_000  # entries of one table of the models' terms at most (its points of b taken a block at a time)
DESIGNS = 16  # up to this many designs (the models and trials items were given), their trials' sums once each
BLOCK = 2_000_000  # entries of one block of items' log likelihoods (or of their dense successes and trials)


@dataclass(frozen=True)
class Cells:
    """The cells grouped by item (``starts``): models, trials, successes; and each item's floor."""

    starts: np.ndarray
    m: np.ndarray
    w: np.ndarray
    s: np.ndarray
    c: np.ndarray

    @property
    def n(self) -> int:
        return self.starts.size - 1

    def designs(self) -> tuple[np.ndarray, np.ndarray]:
        """Each item's design (the models it was given and their trials) as an index, and the first item of each."""
        return same_cells(self.starts, (self.m, self.w))

    def dense(self, items: np.ndarray, models: int) -> tuple[np.ndarray, np.ndarray]:
        """The items' successes and trials as dense rows over the models (``spread_kernels.dense_rows``; their
        cells in the kernel's one type: model codes 32-bit, successes 64-bit, as the sums read them). A run of
        consecutive items reads its cells as one slice; any other set gathers them, item by item in its order."""
        from benchwatch.irt.item_model.spread_kernels import dense_rows

        items = np.asarray(items, dtype=np.int64)
        begin, end = self.starts[items], self.starts[items + 1]
        local = np.concatenate([[0], np.cumsum(end - begin)]).astype(np.int64)
        if items.size and items[-1] - items[0] == items.size - 1 and np.all(np.diff(items) == 1):
            cells: slice | np.ndarray = slice(begin[0], end[-1])
        else:
            cells = np.repeat(begin - local[:-1], end - begin) + np.arange(local[-1])
        unit = self.w.strides == (0,)  # one view of a single 1: every cell one trial
        succ, trials = np.zeros((items.size, models)), np.zeros((items.size, models))
        dense_rows(
            local,
            np.ascontiguousarray(self.m[cells], dtype=np.int32),
            np.ascontiguousarray(self.s[cells], dtype=np.float64),
            np.zeros(0) if unit else np.ascontiguousarray(self.w[cells], dtype=np.float64),
            unit,
            succ,
            trials,
        )
        return succ, trials


def integrated_rows(
    cells: Cells,
    theta: np.ndarray,
    slope: np.ndarray,
    grid: np.ndarray,
    spread: tuple[np.ndarray, np.ndarray],
    mu: float,
) -> np.ndarray:
    """``spread_rows``' rows of the distinct items (see ``benchwatch.irt.item_model.spread_kernels``), log a from the
    mixture ``spread`` (its parts' sds and shares, ``spread.mixture``) around ``mu``: where some
    item has enough trials for its row to be narrow, first a coarse look at every item's row, then each row only
    where it can be within ``spread_windows.WINDOW`` of its top (``spread_windows``); otherwise whole rows."""
    from benchwatch.irt.item_model.spread_kernels import nodes

    n = cells.n
    out = np.empty((n, grid.size))
    if n == 0:
        return out
    heaviest = float(np.add.reduceat(cells.w, cells.starts[:-1]).max()) if cells.w.size else 1.0
    sds, shares = spread
    rows = _Pass(cells, theta, slope, *nodes(sds, shares, mu, max(heaviest, 1.0)))
    plan, table = None, min(rows.points(grid.size), windows.POINTS)
    if windows.worth_a_look(heaviest, grid.size):
        look = windows.coarse_points(grid.size)
        first = rows.at(*nodes(sds, shares, mu, max(heaviest, 1.0), coarse=windows.COARSE_NODES))
        coarse = np.empty((n, look.size))
        first.spans = (np.empty((n, look.size), np.int64), np.empty((n, look.size), np.int64))
        first.fill(grid[look], first.whole(look.size), coarse)
        per_block = min(rows.per_block(grid.size), windows.PER_BLOCK)
        nodes_at = windows.fine_nodes(first.u, rows.u)
        plan = windows.plan(coarse, first.spans, look, nodes_at, grid.size, per_block, table)
    if plan is None:
        rows.fill(grid, rows.whole(grid.size), out)
        return out
    widest = max(block.k1 - block.k0 for block in plan)  # as many points to a table as its nodes leave room for
    table = max(1, min(windows.POINTS, TABLE // max(1, theta.size * widest)))
    rows.fill(grid, plan, out, table)
    again = windows.extend(out, plan)
    if again.size:  # rows not yet WINDOW below their top at an edge of what was computed: whole
        rows.fill(grid, rows.whole(grid.size, again), out)
    return out


class _Pass:
    """One pass of matrix products over the cells at one set of nodes (``spread_kernels``): each block of items'
    rows over the points of b its range reaches, a table of the models' terms per block of points."""

    def __init__(self, cells: Cells, theta: np.ndarray, slope: np.ndarray, u: np.ndarray, log_weight: np.ndarray):
        self.cells, self.theta, self.slope, self.u, self.log_weight = cells, theta, slope, u, log_weight
        self.spans: tuple[np.ndarray, np.ndarray] | None = None  # where set, each row's nodes are recorded there
        failures = np.add.reduceat(cells.w - cells.s, cells.starts[:-1]) if cells.w.size else np.zeros(cells.n)
        with np.errstate(divide="ignore"):
            constant = failures * np.log1p(-cells.c)  # F log(1 - c): 0 where there are no failures
        constant[failures == 0] = 0.0
        self.constant = constant
        self.design, first = cells.designs()
        models = theta.size
        # a complete matrix is one design: its trials' sum is the same for every item
        self.design_trials = (
            np.concatenate([cells.dense(np.array([t]), models)[1] for t in first]) if first.size <= DESIGNS else None
        )

    def at(self, u: np.ndarray, log_weight: np.ndarray) -> _Pass:
        """The same pass at other nodes (the items' constants and designs shared, not found again)."""
        other = copy.copy(self)
        other.u, other.log_weight = u, log_weight
        return other

    def points(self, size: int) -> int:
        """Points of b per table of the models' terms."""
        return max(1, min(size, TABLE // max(1, self.theta.size * self.u.size)))

    def per_block(self, size: int) -> int:
        """Items per block of rows."""
        from benchwatch.irt.kernels import THREADS

        cap = BLOCK // (self.u.size * self.points(size))
        return max(1, min(cap, BLOCK // max(1, self.theta.size), -(-self.cells.n // THREADS)))

    def whole(self, size: int, items: np.ndarray | None = None) -> list[Block]:
        """Every item's (or these ``items``') whole row on ``size`` points over every node, a block at a time."""
        items = np.arange(self.cells.n) if items is None else items
        step = self.per_block(size)
        return [Block(items[k : k + step], 0, size, 0, self.u.size) for k in range(0, items.size, step)]

    def fill(self, grid: np.ndarray, blocks: list[Block], out: np.ndarray, points: int | None = None) -> None:
        """Each block's items' rows (``out``'s rows) at the blocks of points of ``grid`` its range of points reaches,
        summed over its range of nodes (``Block``): for each block of points, the models' terms at the nodes the
        blocks there read, then the blocks of items' log likelihoods by two matrix products (the trials' one once
        per design where the designs are few), integrated over the nodes; both cores on the blocks of items at
        once. ``points``: points of b per table (fewer than ``points()``' where windows skip some of them)."""
        from benchwatch.irt.item_model.spread_kernels import tables
        from benchwatch.irt.kernels import THREADS, thread_pool

        theta, models, floors = self.theta, self.theta.size, np.unique(self.cells.c)
        points = self.points(grid.size) if points is None else points
        for g0 in range(0, grid.size, points):
            part = grid[g0 : g0 + points]
            jobs = [job for job in blocks if job.lo < g0 + part.size and job.hi > g0 and job.items.size]
            if not jobs:
                continue
            k0, k1 = min(job.k0 for job in jobs), max(job.k1 for job in jobs)
            cols = (k1 - k0) * part.size
            trials = np.empty((models, cols))
            successes = {}
            for f in floors:
                table = np.empty((models, cols))
                tables(theta, self.slope, part, self.u[k0:k1], math.log(f) if f > 0 else -np.inf, trials, table)
                successes[float(f)] = table
            by = None if self.design_trials is None else -(self.design_trials @ trials)
            terms = _Terms(g0, part.size, k0, trials, successes, by)
            if len(jobs) == 1 or THREADS == 1:
                for job in jobs:
                    self._block(job, terms, out)
            else:
                pool = thread_pool()
                for future in [pool.submit(self._block, job, terms, out) for job in jobs]:
                    future.result()
            del trials, successes, table, by, terms  # let this block of points' tables go before the next's

    def _block(self, job: Block, terms: _Terms, out: np.ndarray) -> None:
        """One block of items' rows at one block of points (``fill``), over the block's nodes."""
        from benchwatch.irt.item_model.spread_kernels import integrate

        items = job.items
        cols = slice((job.k0 - terms.k0) * terms.size, (job.k1 - terms.k0) * terms.size)
        succ, tri = self.cells.dense(items, self.theta.size)
        kinds = self.design[items]
        by = None if terms.by is None else terms.by[:, cols]
        if by is not None and len(terms.successes) == 1 and kinds.min() == kinds.max():
            # one floor and one design (a complete matrix): the successes' product plus the design's (negated)
            # trials' terms in place (the same sum, without a copy of them per item)
            del tri
            loglik = succ @ next(iter(terms.successes.values()))[:, cols]
            loglik += by[kinds[0]]
        else:
            if by is None:  # -(trials' product), negated in place: no second block of its size
                loglik = tri @ terms.trials[:, cols]
                np.negative(loglik, out=loglik)
            else:
                loglik = by[kinds]
            del tri
            c = self.cells.c[items]
            for f, table in terms.successes.items():
                rows = np.flatnonzero(c == f)
                if rows.size == items.size:
                    loglik += succ @ table[:, cols]
                elif rows.size:
                    loglik[rows] += succ[rows] @ table[:, cols]
        loglik += self.constant[items, None]
        weight = self.log_weight[job.k0 : job.k1]
        result = np.empty((items.size, terms.size))
        integrate(loglik, weight, result)
        out[items, terms.g0 : terms.g0 + terms.size] = result
        if self.spans is not None:  # where each row's terms lie (the coarse look's, ``spread_windows.spans``)
            first, last = windows.spans(loglik, weight, job.k0, terms.size)
            self.spans[0][items, terms.g0 : terms.g0 + terms.size] = first
            self.spans[1][items, terms.g0 : terms.g0 + terms.size] = last


@dataclass(frozen=True)
class _Terms:
    """One block of points' tables of the models' terms (``_Pass.fill``): points g0..g0 + size, nodes from k0."""

    g0: int
    size: int
    k0: int
    trials: np.ndarray
    successes: dict[float, np.ndarray]
    by: np.ndarray | None


def same_cells(
    starts: np.ndarray, arrays: tuple[np.ndarray, ...], each: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Each item's set of items with the same cells (``arrays`` over the item's cells, ``starts``; bytes alike) and
    the same ``each`` of its own, numbered in order of first appearance, and the first item of each set. Items are
    keyed by a digest of their cells, confirmed on the bytes against the sets' first items (at 38 million cells a
    key of every item's bytes held half a GB); an array of one value repeated (a view of a single 1) tells no two
    items apart and is left out."""
    n = starts.size - 1
    read = [a for a in arrays if a.strides != (0,)]
    sets: dict[bytes, list[int]] = {}  # digest -> the sets whose first item has it
    first: list[int] = []
    out = np.empty(n, dtype=np.int64)

    def cells(t: int) -> list[bytes]:
        lo, hi = starts[t], starts[t + 1]
        return [a[lo:hi].tobytes() for a in read] + ([] if each is None else [each[t : t + 1].tobytes()])

    for t in range(n):
        own = cells(t)
        digest = hashlib.blake2b(b"|".join(len(part).to_bytes(8, "little") + part for part in own)).digest()
        found = next((g for g in sets.get(digest, ()) if cells(int(first[g])) == own), None)
        if found is None:
            found = len(first)
            sets.setdefault(digest, []).append(found)
            first.append(t)
        out[t] = found
    return out, np.asarray(first, dtype=np.int64)
