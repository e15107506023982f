"""A table's CSV bytes as pandas' ``to_csv`` writes them (floats ``%.10g``, dates ``%Y-%m-%d``, missing values
empty), gathered by numpy: each column's distinct values formatted (and quoted as the CSV writer quotes them) once,
the rows' bytes gathered a block at a time from their codes. ``content_revision`` hashes them, ``snapshot_bytes``
keeps them: tens of millions of cells in seconds and little memory, where the writer formats every cell."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator

import numpy as np
import pandas as pd

DIGITS = 10  # significant digits a float is written with
BLOCK_ROWS = 200_000  # rows gathered at a time: memory stays a few tens of MB
SPECIAL = frozenset(',"\r\n')  # what the CSV writer quotes a field for (its delimiter, quote and line breaks)


def csv_blocks(df: pd.DataFrame, cols: list[str], sort: tuple[str, ...] = ()) -> Iterator[bytes]:
    """The CSV text of ``df``'s columns ``cols`` (a header line first), its rows ordered by the values of the
    columns ``sort`` (as strings; none: as they stand), a block of rows at a time."""
    codes, tables = [], []
    for c in cols:
        code, shown = coded(df[c], sort=c in sort)
        codes.append(code)
        tables.append(shown)
    order = np.lexsort([codes[cols.index(k)] for k in reversed(sort)]) if sort else None
    blob, starts, lengths, bases = _table_bytes(tables)
    yield (",".join(csv_field(c) for c in cols) + "\n").encode()
    for lo in range(0, len(df), BLOCK_ROWS):
        rows = slice(lo, lo + BLOCK_ROWS) if order is None else order[lo : lo + BLOCK_ROWS]
        block = np.stack([codes[k][rows] + bases[k] for k in range(len(cols))], axis=1)
        yield row_bytes(block, blob, starts, lengths).tobytes()


def csv_field(text: str) -> str:
    """One field as the CSV writer writes it (quoted where it holds a comma, a quote or a line break)."""
    if text == "" or SPECIAL.isdisjoint(text):  # as it is (most names: no writer made for them)
        return text
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow([text])
    return buffer.getvalue()[:-1]


def coded(column: pd.Series, sort: bool) -> tuple[np.ndarray, list[str]]:
    """Each row's code into the column's distinct values as the CSV text shows them (missing: the last, empty)."""
    if isinstance(column.dtype, pd.CategoricalDtype):  # its own codes, each name formatted once
        categories = column.cat.categories
        codes = column.cat.codes.to_numpy()
        if sort and not categories.is_monotonic_increasing:  # codes that order the rows as the names do
            rank = np.argsort(np.argsort(categories.to_numpy(dtype=object), kind="stable"))
            codes = np.where(codes < 0, -1, rank[codes])
            categories = categories.sort_values()
        shown = [csv_field(str(v)) for v in categories]
        return np.where(codes < 0, len(shown), codes).astype(np.int32), [*shown, ""]
    if pd.api.types.is_float_dtype(column.dtype):  # told apart by their bits: -0.0 is written "-0", 0.0 "0"
        if sort:
            raise ValueError("a column of floats is not a sort key")
        values = column.to_numpy(dtype=np.float64, na_value=np.nan)
        missing = np.isnan(values)
        codes, uniques = pd.factorize(np.where(missing, 0, values.view(np.int64)))
        shown = [f"%.{DIGITS}g" % v for v in uniques.view(np.float64)]  # the writer's own format
        return np.where(missing, len(shown), codes).astype(np.int32), [*shown, ""]
    codes, uniques = pd.factorize(column, sort=sort, use_na_sentinel=True)
    if pd.api.types.is_datetime64_any_dtype(column.dtype):
        shown = [v.strftime("%Y-%m-%d") for v in uniques]
    else:
        shown = [csv_field(str(v)) for v in uniques]
    codes = np.where(codes < 0, len(shown), codes).astype(np.int32)  # (half the memory of pandas' own)
    return codes, [*shown, ""]


def _table_bytes(tables: list[list[str]]) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[int]]:
    """The distinct values of every column as one byte blob: where each starts, its length, each column's base."""
    encoded = [v.encode("utf-8") for t in tables for v in t]
    lengths = np.array([len(b) for b in encoded], np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    bases = np.cumsum([0, *[len(t) for t in tables[:-1]]]).tolist()
    return np.frombuffer(b"".join(encoded), np.uint8), starts, lengths, bases


def row_bytes(block: np.ndarray, blob: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The CSV bytes of a block of rows (each a row of codes into ``blob``): fields, commas, line ends.

    Every output byte is gathered from the blob at once (each field's bytes, then a separator slot that is
    overwritten), so the cost is a few passes over the block's bytes and no compiled code is loaded: an
    unchanged run hashes its tables without starting numba."""
    flat = block.ravel()
    if flat.size == 0:
        return np.empty(0, np.uint8)
    size = lengths[flat] + 1  # each field and the separator after it
    ends = np.cumsum(size)
    source = np.repeat(starts[flat] - (ends - size), size) + np.arange(int(ends[-1]))
    padded = np.concatenate([blob, np.zeros(1, np.uint8)])  # a separator slot may point one past the blob
    out = padded[np.minimum(source, blob.size)]
    separators = np.full(flat.size, 44, np.uint8)  # ','
    separators[block.shape[1] - 1 :: block.shape[1]] = 10  # '\n' after a row's last field
    out[ends - 1] = separators
    return out
