"""Any URL or local path holding the long format, for a team's private evaluation sets.

Every column is kept as the file has it: an optional ``chance`` column (each item's floor, one over its number
of options) reaches validation with the rest.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from urllib.parse import urlparse

import pandas as pd

from benchwatch.errors import InputError
from benchwatch.sources.config import SourceConfig
from benchwatch.sources.http import Fetcher
from benchwatch.sources.local import file_chance
from benchwatch.sources.options import SourceOptions
from benchwatch.sources.parsing import provenance, read_bytes, read_once, where, whole_csv
from benchwatch.sources.table import KEY, REQUIRED_COLUMNS, SourceTable, missing_columns


class Options(SourceOptions):
    """A CSV file's options."""

    benchmark: str | None = None  # the benchmark of a file without a benchmark column (default: its stem)


def load(fetcher: Fetcher, cfg: SourceConfig) -> SourceTable:
    """Fetch the CSV; ``benchmark`` defaults to the option of that name, else the file's stem."""
    opts = Options.of(cfg)
    dl = fetcher.get(cfg.url, source=cfg.name)
    whole_csv(read_bytes(dl, cfg.name), cfg.name, cfg.url)  # a file cut mid-row is refused, not read padded
    try:
        frame = pd.read_csv(dl.path, dtype=str, keep_default_na=False, na_values=[])
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise InputError(where(cfg.name, cfg.url), f"not a readable CSV file: {exc}") from None
    found = [str(c) for c in frame.columns]
    if "benchmark" not in frame.columns:
        stem = PurePosixPath(urlparse(cfg.url).path).stem
        frame.insert(0, "benchmark", stem if opts.benchmark is None else opts.benchmark)
    # the file's own problems are said with its URL here, not later by validation under the source's name
    missing = [c for c in REQUIRED_COLUMNS if c not in frame.columns]
    if missing:
        raise InputError(where(cfg.name, cfg.url), missing_columns(missing, found), field=", ".join(missing))
    frame, note = read_once(frame, KEY, cfg.name, cfg.url)
    return SourceTable(
        cfg.name,
        cfg.url,
        frame,
        provenance=provenance(cfg.url, [dl]),
        chance_from=file_chance(frame),
        notes=(note,) if note else (),
    )
