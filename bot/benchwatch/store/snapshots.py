"""A benchmark's last good table as bytes: gzip'd CSV, byte-stable for the same data (kept in reports/)."""

from __future__ import annotations

import gzip
import io
import zlib

import pandas as pd

from benchwatch.store.aggregates import validate_aggregates
from benchwatch.store.csvbytes import DIGITS, csv_blocks
from benchwatch.store.responses import validate_responses

SNAPSHOT_DIGITS = DIGITS  # significant digits kept of a score: what a change in the changelog is measured at


def snapshot_bytes(table: pd.DataFrame) -> bytes:
    """The table as gzip'd CSV (no timestamp in the gzip header: the same data gives the same bytes): the text
    ``to_csv(index=False, float_format=f"%.{SNAPSHOT_DIGITS}g", date_format="%Y-%m-%d")`` writes, gathered from
    each column's distinct values (``benchwatch.store.csvbytes``; a test keeps them the writer's)."""
    return gzip.compress(b"".join(csv_blocks(table, list(table.columns))), mtime=0)


def parse_snapshot(data: bytes, label: str, kind: str = "responses") -> pd.DataFrame:
    """A snapshot's table, validated; a damaged one is an InputError (a ValueError) naming ``label``."""
    try:
        raw = pd.read_csv(io.BytesIO(gzip.decompress(data)), dtype=str, keep_default_na=False, na_values=[])
    except (OSError, EOFError, zlib.error, pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise ValueError(f"{label}: a damaged snapshot ({exc})") from None
    if kind == "aggregates":
        return validate_aggregates(raw, label)
    return validate_responses(raw, label)
