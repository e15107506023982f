"""LiveBench: the ``livebench/model_judgment`` dataset (parquet, split ``leaderboard``).

Columns ``question_id, model, score, task, category, tstamp``; one benchmark per category
(``LiveBench <category>``); a (question, model) judged more than once keeps its latest ``tstamp``.
A model's date is the day of its first judgment. ``files`` joins several parquet files to ``url``.
"""

from __future__ import annotations

import pandas as pd

from bot.errors import InputError
from bot.sources.config import SourceConfig
from bot.sources.http import Fetcher
from bot.sources.parsing import fetch_files, provenance, where
from bot.sources.table import LONG_COLUMNS, SourceTable

REQUIRED = ("question_id", "model", "score", "category", "tstamp")


def load(fetcher: Fetcher, cfg: SourceConfig) -> SourceTable:
    """Fetch the parquet file(s) and parse them."""
    downloads = fetch_files(fetcher, cfg)
    parts = []
    for dl in downloads:
        try:
            part = pd.read_parquet(dl.path)
        except Exception as exc:  # pyarrow raises several types for a broken file
            message = f"not a readable parquet file ({type(exc).__name__})"
            raise InputError(where(cfg.name, dl.url), message) from None
        missing = [c for c in REQUIRED if c not in part.columns]
        if missing:
            raise InputError(where(cfg.name, dl.url), f"missing column(s) {', '.join(missing)}", field=missing[0])
        parts.append(part)
    df = pd.concat(parts, ignore_index=True)
    if df.empty:
        raise InputError(where(cfg.name, cfg.url), "no judgments")
    df["tstamp"] = pd.to_numeric(df["tstamp"], errors="coerce")
    df = df.sort_values("tstamp", kind="stable").drop_duplicates(["category", "question_id", "model"], keep="last")
    first = pd.to_datetime(df.groupby("model")["tstamp"].transform("min"), unit="s", errors="coerce")
    frame = pd.DataFrame(
        {
            "benchmark": "LiveBench " + df["category"].astype(str),
            "model": df["model"].astype(str),
            "item_id": df["question_id"].astype(str),
            "score": df["score"].astype(str),
            "date": first.dt.strftime("%Y-%m-%d").fillna(""),
            "trials": "",
        }
    )[LONG_COLUMNS]
    return SourceTable(
        cfg.name,
        cfg.url,
        frame,
        provenance=provenance(cfg.url, downloads),
    )
