"""The last good responses of each benchmark, kept outside git to tell what changed on the next run."""

from __future__ import annotations

import gzip
from pathlib import Path

import pandas as pd

from bot.store.aggregates import validate_aggregates
from bot.store.atomic import atomic_write_bytes
from bot.store.naming import safe_slug
from bot.store.responses import validate_responses


def snapshot_path(cache_dir: str | Path, benchmark: str, kind: str = "responses") -> Path:
    """Where a benchmark's last good table (``responses`` or ``aggregates``) is kept."""
    return Path(cache_dir) / kind / f"{safe_slug(benchmark)}.csv.gz"


def save_snapshot(cache_dir: str | Path, benchmark: str, table: pd.DataFrame, kind: str = "responses") -> None:
    """Keep ``table`` as the benchmark's last good data (atomically)."""
    text = table.to_csv(index=False, date_format="%Y-%m-%d", lineterminator="\n", float_format="%.10g")
    atomic_write_bytes(snapshot_path(cache_dir, benchmark, kind), gzip.compress(text.encode(), mtime=0))


def load_snapshot(cache_dir: str | Path, benchmark: str, kind: str = "responses") -> pd.DataFrame | None:
    """The benchmark's last good table, or None when there is none (or it cannot be read)."""
    path = snapshot_path(cache_dir, benchmark, kind)
    if not path.exists():
        return None
    try:
        raw = pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[])
        if kind == "aggregates":
            return validate_aggregates(raw, str(path))
        return validate_responses(raw, str(path))
    except (ValueError, OSError, EOFError):
        return None
