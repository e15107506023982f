"""The content hash of one benchmark's table (its revision): the same table, the same revision, however read."""

from __future__ import annotations

import csv
import hashlib
import io

import numpy as np
import pandas as pd

from benchwatch.store.csvbytes import row_bytes


def content_revision(df: pd.DataFrame) -> str:
    """A short content hash of one benchmark's table (per-item or aggregate), independent of row order: the
    SHA-256 of its CSV text sorted by model and item, floats as ``%.10g`` and dates as ``%Y-%m-%d``.

    Computed without writing that text as pandas would: each column's distinct values are formatted (and
    quoted as the CSV writer quotes them) once, the rows ordered by their values' codes, and the bytes of each
    block of rows gathered by numpy and fed to the hash, so that tens of millions of cells hash in
    seconds and little memory. The bytes are those ``to_csv(index=False, float_format="%.10g",
    date_format="%Y-%m-%d")`` writes (a test keeps them so).
    """
    keys = [c for c in ("model", "item_id") if c in df.columns]
    cols = [c for c in ("model", "item_id", "score", "n_items", "date", "trials") if c in df.columns]
    if "chance" in df.columns and df["chance"].notna().any():  # a benchmark without floors keeps its revision
        cols.append("chance")
    codes, tables = [], []
    for c in cols:
        code, shown = _coded(df[c], sort=c in keys)
        codes.append(code)
        tables.append(shown)
    order = np.lexsort([codes[cols.index(k)] for k in reversed(keys)]) if keys else np.arange(len(df))
    blob, starts, lengths, bases = _table_bytes(tables)
    digest = hashlib.sha256((",".join(cols) + "\n").encode())
    step = 200_000
    for lo in range(0, len(order), step):  # a block of rows at a time: memory stays a few tens of MB
        rows = order[lo : lo + step]
        block = np.stack([codes[k][rows] + bases[k] for k in range(len(cols))], axis=1)
        digest.update(row_bytes(block, blob, starts, lengths).tobytes())
    return digest.hexdigest()[:12]


def _csv_field(text: str) -> str:
    """One field as the CSV writer writes it (quoted where it holds a comma, a quote or a line break)."""
    if text == "":
        return ""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow([text])
    return buffer.getvalue()[:-1]


def _coded(column: pd.Series, sort: bool) -> tuple[np.ndarray, list[str]]:
    """Each row's code into the column's distinct values as the CSV text shows them (missing: the last, empty)."""
    if isinstance(column.dtype, pd.CategoricalDtype):  # its own codes, each name formatted once
        categories = column.cat.categories
        codes = column.cat.codes.to_numpy()
        if sort and not categories.is_monotonic_increasing:  # codes that order the rows as the names do
            rank = np.argsort(np.argsort(categories.to_numpy(dtype=object), kind="stable"))
            codes = np.where(codes < 0, -1, rank[codes])
            categories = categories.sort_values()
        shown = [_csv_field(str(v)) for v in categories]
        return np.where(codes < 0, len(shown), codes).astype(np.int32), [*shown, ""]
    codes, uniques = pd.factorize(column, sort=sort, use_na_sentinel=True)
    if pd.api.types.is_datetime64_any_dtype(column.dtype):
        shown = [v.strftime("%Y-%m-%d") for v in uniques]
    elif pd.api.types.is_float_dtype(column.dtype):
        shown = ["%.10g" % v for v in uniques]  # noqa: UP031 (the writer's own format)
    else:
        shown = [_csv_field(str(v)) for v in uniques]
    codes = np.where(codes < 0, len(shown), codes).astype(np.int32)  # (half the memory of pandas' own)
    return codes, [*shown, ""]


def _table_bytes(tables: list[list[str]]) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[int]]:
    """The distinct values of every column as one byte blob: where each starts, its length, each column's base."""
    encoded = [v.encode("utf-8") for t in tables for v in t]
    lengths = np.array([len(b) for b in encoded], np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    bases = np.cumsum([0, *[len(t) for t in tables[:-1]]]).tolist()
    return np.frombuffer(b"".join(encoded), np.uint8), starts, lengths, bases
