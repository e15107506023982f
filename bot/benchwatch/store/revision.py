"""The content hash of one benchmark's table (its revision): the same table, the same revision, however read."""

from __future__ import annotations

import hashlib

import pandas as pd

from benchwatch.store.csvbytes import csv_blocks


def content_revision(df: pd.DataFrame) -> str:
    """A short content hash of one benchmark's table (per-item or aggregate), independent of row order: the
    SHA-256 of its CSV text sorted by model and item, floats as ``%.10g`` and dates as ``%Y-%m-%d``: the bytes
    ``to_csv(index=False, float_format="%.10g", date_format="%Y-%m-%d")`` writes (``benchwatch.store.csvbytes``
    gathers them without writing them as pandas would; a test keeps them so)."""
    keys = tuple(c for c in ("model", "item_id") if c in df.columns)
    cols = [c for c in ("model", "item_id", "score", "n_items", "date", "trials") if c in df.columns]
    if "chance" in df.columns and df["chance"].notna().any():  # a benchmark without floors keeps its revision
        cols.append("chance")
    digest = hashlib.sha256()
    for block in csv_blocks(df, cols, sort=keys):
        digest.update(block)
    return digest.hexdigest()[:12]
