"""Where each item's row of the spread's likelihood is computed: only where it can be near its top, over only the
nodes its sums there read.

At thousands of models an item's likelihood over the points of b is narrow (at 4,500 models and 3,000 answers an
item, 20 of 200 points lie within 60 log units of its top, on average), and at each point only the nodes of log a
near the item's own discrimination carry its sum; the matrix products of ``benchwatch.irt.item_model.spread`` cost
the same at every point and node. So where some item has ``LOOK_TRIALS`` trials, every row is first looked at
coarsely (every ``STRIDE``-th point, the nodes ``COARSE_NODES`` times as far apart: a sixteenth of the work),
recording at each coarse point the nodes whose terms lie within ``NODES`` + ``MARGIN`` of the largest (``spans``).
Each item's row is then computed over its window: the points from the last coarse point below its coarse top less
``WINDOW`` + ``MARGIN`` to the first one beyond it, on each side, and the nodes its sums read at those points, one
coarse node more on each side (``plan``; ``MARGIN``: the coarse look's own error, a few log units). Items of alike
windows share blocks.

What this changes, and why it is safe:
- The nodes left out of a sum each lie more than ``NODES`` below its largest term (beyond the first coarse node
  that does, a term falls further, the integrand having one peak in log a): e^-40 of the sum, under its rounding.
- Beyond its window each row takes the value at the window's nearest edge (``extend``). The window's edges are
  ``WINDOW`` below the row's top (checked on the computed rows; a row where they are not is computed whole). Every
  point beyond lies lower still: below its coarse top less ``WINDOW`` + ``MARGIN``, or past a coarse point that does
  where the row falls away from its top on each side (one peak in b: the 2PL's at each discrimination, and the
  rows of every case the tests compute). There the edge's value is at least the row's own, so the bounds read from
  these rows are never narrower than from whole rows; and e^-60 of an item's top is a likelihood no restriction the
  bounds test can tell from nothing (their levels are a few log units).

The tests hold the rows to the whole rows the same code computes (the same to 1e-9 within ``WINDOW`` of each top,
never below them anywhere) and the bounds read from them to the whole rows' bounds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

WINDOW = 60.0  # each row is exact where it lies within this many log units of its top
NODES = 40.0  # a sum over nodes reads those whose terms lie within this of its largest (e^-40: under its rounding)
EXTRA = 1  # ... and this many coarse nodes more on each side
MARGIN = 10.0  # the coarse look's allowance for its own error (its nodes' spacing: up to a few log units)
STRIDE = 4  # the coarse look reads every STRIDE-th point ...
COARSE_NODES = 4.0  # ... at nodes this many times as far apart
LOOK_TRIALS = 200.0  # rows are looked at first only where some item has this many trials (narrower rows)
WORTH = 0.6  # ... and computed in windows only where that leaves at most this share of the whole rows' work
POINTS = 8  # points of b per table of the models' terms at most (the windows skip whole tables' worth)
PER_BLOCK = 64  # items per block at most: the tighter their windows' union (64 rows keep a product efficient)


def worth_a_look(heaviest: float, points: int) -> bool:
    """Whether a coarse look can pay: some item heavy enough for its row to be narrow, and points to skip."""
    return heaviest >= LOOK_TRIALS and points >= 16 * STRIDE


def coarse_points(points: int) -> np.ndarray:
    """The points the coarse look reads: every ``STRIDE``-th, and the last."""
    return np.unique(np.concatenate([np.arange(0, points, STRIDE), [points - 1]]))


@dataclass(frozen=True)
class Block:
    """Items whose rows are computed together: at the points lo..hi - 1 (and the rest of the blocks of points they
    lie in), summed over the nodes k0..k1 - 1; each item's own window of points (``own``: first, end), where
    that is narrower (its row beyond it is the value at its edge, ``extend``)."""

    items: np.ndarray
    lo: int
    hi: int
    k0: int
    k1: int
    own: tuple[np.ndarray, np.ndarray] | None = None


def spans(loglik: np.ndarray, log_weight: np.ndarray, k0: int, points: int) -> tuple[np.ndarray, np.ndarray]:
    """For each row of ``loglik`` (node k, point g at column k * points + g) and each point, the first and the last
    node (counted from ``k0``) whose term (plus its weight) lies within ``NODES`` + ``MARGIN`` of the point's largest:
    the nodes the row's sum there reads."""
    terms = loglik.reshape(loglik.shape[0], log_weight.size, points) + log_weight[None, :, None]
    with np.errstate(invalid="ignore"):
        near = terms >= np.max(terms, axis=1, keepdims=True) - (NODES + MARGIN)
    near |= ~near.any(axis=1, keepdims=True)  # no finite term at a point: every node there
    first = np.argmax(near, axis=1)
    last = log_weight.size - 1 - np.argmax(near[:, ::-1, :], axis=1)
    return first + k0, last + k0


def fine_nodes(coarse: np.ndarray, fine: np.ndarray) -> np.ndarray:
    """The fine node at (or next to) each coarse node (both evenly spaced around the same centre)."""
    if fine.size == 1:
        return np.zeros(coarse.size, dtype=np.int64)
    at = np.rint((coarse - fine[0]) / (fine[1] - fine[0]))
    return np.clip(at, 0, fine.size - 1).astype(np.int64)


def plan(
    coarse: np.ndarray,
    node_spans: tuple[np.ndarray, np.ndarray],
    look: np.ndarray,
    nodes_at: np.ndarray,
    points: int,
    per_block: int,
    table: int,
) -> list[Block] | None:
    """The blocks of items whose rows are computed, from the coarse look: its rows ``coarse`` at the points
    ``look`` and the coarse nodes each row's sum read there (``node_spans``; ``nodes_at``: each coarse node's fine
    one). Each item's window of points, and of nodes (those its sums read at the window's coarse points, ``EXTRA``
    coarse node more on each side); the items in order of their windows' middles, ``per_block`` to a block over
    the union of their windows. None where that would leave more than ``WORTH`` of whole rows' work (at ``table``
    points to a block of the models' terms)."""
    with np.errstate(invalid="ignore"):
        keep = coarse - np.max(coarse, axis=1, keepdims=True) >= -(WINDOW + MARGIN)
    keep[~keep.any(axis=1)] = True  # a row with no finite top (none here): whole
    first = np.argmax(keep, axis=1)
    last = keep.shape[1] - 1 - np.argmax(keep[:, ::-1], axis=1)
    inside = (np.arange(look.size)[None, :] >= np.maximum(first - 1, 0)[:, None]) & (
        np.arange(look.size)[None, :] <= np.minimum(last + 1, look.size - 1)[:, None]
    )
    lo, hi = look[np.maximum(first - 1, 0)], look[np.minimum(last + 1, look.size - 1)] + 1
    j0 = np.where(inside, node_spans[0], np.iinfo(np.int64).max).min(axis=1)
    j1 = np.where(inside, node_spans[1], -1).max(axis=1)
    k0 = nodes_at[np.maximum(j0 - EXTRA, 0)]
    k1 = nodes_at[np.minimum(j1 + EXTRA, nodes_at.size - 1)] + 1
    order = np.argsort(lo + hi, kind="stable")
    blocks = []
    for k in range(0, order.size, per_block):
        items = order[k : k + per_block]
        blocks.append(
            Block(
                items,
                int(lo[items].min()),
                int(hi[items].max()),
                int(k0[items].min()),
                int(k1[items].max()),
                own=(lo[items], hi[items]),
            )
        )
    nodes = int(nodes_at.max()) + 1
    work = sum(
        b.items.size * (_aligned(b.hi - 1, table, points)[1] - _aligned(b.lo, table, points)[0]) * (b.k1 - b.k0)
        for b in blocks
    )
    return None if work > WORTH * order.size * points * nodes else blocks


def _aligned(at: int, table: int, points: int) -> tuple[int, int]:
    """The block of points (of ``table`` each) that point ``at`` lies in: its first point and its end."""
    start = (min(at, points - 1) // table) * table
    return start, min(points, start + table)


def extend(out: np.ndarray, blocks: list[Block]) -> np.ndarray:
    """Each row beyond its own window of points set to the value at the window's nearest edge (its sums there read
    only the nodes its window needs); the items whose edges are not ``WINDOW`` below their top (to be computed
    whole)."""
    points = out.shape[1]
    again = []
    for block in blocks:
        items = block.items
        lo, hi = block.own if block.own is not None else (np.full(items.size, block.lo), np.full(items.size, block.hi))
        rows = out[items]
        at = np.arange(points)[None, :]
        inside = (at >= lo[:, None]) & (at < hi[:, None])
        top = np.where(inside, rows, -np.inf).max(axis=1)
        first, last = rows[np.arange(items.size), lo], rows[np.arange(items.size), hi - 1]
        near = ((lo > 0) & (first > top - WINDOW)) | ((hi < points) & (last > top - WINDOW))
        rows = np.where(at < lo[:, None], first[:, None], np.where(at >= hi[:, None], last[:, None], rows))
        out[items] = rows
        again.append(items[near])
    return np.sort(np.concatenate(again)) if again else np.zeros(0, dtype=np.int64)
