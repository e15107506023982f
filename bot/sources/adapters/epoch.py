"""Epoch AI benchmarking hub: ``benchmark_data.zip``, one CSV per benchmark (aggregate only).

Each CSV names a benchmark by its file name. Column names are options (defaults: ``model_column =
"Model version"``, ``score_column = "Best score (across scorers)"``, ``date_column = "Release date"``);
scores are proportions (``percent = true`` for percentages). The saturation index needs the test-set
size: ``[sources.NAME.n_items]`` maps a benchmark to it; a benchmark without one is left out and reported.
The archive is read in memory, never extracted, and its member names are only ever used as labels.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import PurePosixPath

import pandas as pd

from bot.errors import InputError
from bot.sources.config import SourceConfig
from bot.sources.http import Fetcher
from bot.sources.parsing import proportion, provenance, where
from bot.sources.table import AGGREGATE_COLUMNS, SourceTable, empty_long

MAX_UNCOMPRESSED = 256 * 1024 * 1024


def load(fetcher: Fetcher, cfg: SourceConfig) -> SourceTable:
    """Fetch the archive and read every CSV in it."""
    dl = fetcher.get(cfg.url, source=cfg.name)
    src, url = cfg.name, cfg.url
    opt = cfg.options
    model_col = opt.get("model_column", "Model version")
    score_col = opt.get("score_column", "Best score (across scorers)")
    date_col = opt.get("date_column", "Release date")
    sizes = opt.get("n_items", {})
    try:
        archive = zipfile.ZipFile(dl.path)
    except zipfile.BadZipFile:
        raise InputError(where(src, url), "not a zip archive") from None
    members = [m for m in archive.infolist() if m.filename.lower().endswith(".csv") and not m.is_dir()]
    if not members:
        raise InputError(where(src, url), "the archive holds no CSV file")
    if sum(m.file_size for m in members) > MAX_UNCOMPRESSED:
        raise InputError(where(src, url), f"the CSV files unpack to more than {MAX_UNCOMPRESSED:,} bytes")
    rows, excluded = [], []
    for member in members:
        bench = PurePosixPath(member.filename).stem
        frame = pd.read_csv(io.BytesIO(archive.read(member)), dtype=str, keep_default_na=False)
        label = f"{member.filename}"
        for col in (model_col, score_col):
            if col not in frame.columns:
                raise InputError(where(src, url), f"missing column in {label}", field=col)
        if bench not in sizes:
            excluded.append({"benchmark": bench, "model": "*", "reason": "test-set size unknown (set n_items)"})
            continue
        for k, rec in frame.iterrows():
            if not rec[score_col].strip():
                continue
            score = proportion(
                rec[score_col], src, url, f"{label} line {k + 2} {score_col}", percent=bool(opt.get("percent", False))
            )
            rows.append([f"Epoch {bench}", rec[model_col], score, int(sizes[bench]), rec.get(date_col, "")[:10]])
    return SourceTable(
        src,
        url,
        empty_long(),
        aggregates=pd.DataFrame(rows, columns=AGGREGATE_COLUMNS),
        provenance=provenance(url, [dl]),
        excluded=tuple(excluded),
    )
