"""The last good responses of each benchmark, kept outside git to tell what changed on the next run."""

from __future__ import annotations

import gzip
from pathlib import Path

import pandas as pd

from bot.store.atomic import atomic_write_bytes
from bot.store.naming import safe_slug
from bot.store.responses import validate_responses


def snapshot_path(cache_dir: str | Path, benchmark: str) -> Path:
    """Where a benchmark's last responses are kept."""
    return Path(cache_dir) / "responses" / f"{safe_slug(benchmark)}.csv.gz"


def save_snapshot(cache_dir: str | Path, benchmark: str, responses: pd.DataFrame) -> None:
    """Keep ``responses`` as the benchmark's last good data (atomically)."""
    text = responses.to_csv(index=False, date_format="%Y-%m-%d", lineterminator="\n", float_format="%.10g")
    atomic_write_bytes(snapshot_path(cache_dir, benchmark), gzip.compress(text.encode(), mtime=0))


def load_snapshot(cache_dir: str | Path, benchmark: str) -> pd.DataFrame | None:
    """The benchmark's last good responses, or None when there are none (or they cannot be read)."""
    path = snapshot_path(cache_dir, benchmark)
    if not path.exists():
        return None
    try:
        raw = pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[])
        return validate_responses(raw, str(path))
    except (ValueError, OSError, EOFError):
        return None
