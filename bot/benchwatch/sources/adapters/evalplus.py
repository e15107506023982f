"""EvalPlus: ``results.json`` (aggregate pass@1 only), ``{model: {"pass@1": {benchmark: percent}}}``."""

from __future__ import annotations

import pandas as pd
from pydantic import Field

from benchwatch.errors import InputError
from benchwatch.sources.config import SourceConfig
from benchwatch.sources.http import Fetcher
from benchwatch.sources.options import SourceOptions
from benchwatch.sources.parsing import proportion, provenance, read_json, require, where
from benchwatch.sources.table import AGGREGATE_COLUMNS, SourceTable, empty_long

SIZES = {"humaneval": 164, "humaneval+": 164, "mbpp": 378, "mbpp+": 378}


class Options(SourceOptions):
    """EvalPlus's options."""

    n_items: dict[str, int] = Field(default_factory=dict)  # benchmark -> its number of problems (added to SIZES)


def load(fetcher: Fetcher, cfg: SourceConfig) -> SourceTable:
    """Fetch and parse the aggregate leaderboard."""
    opts = Options.of(cfg)
    dl = fetcher.get(cfg.url, source=cfg.name)
    src, url = cfg.name, cfg.url
    data = read_json(dl, src)
    if not isinstance(data, dict) or not data:
        raise InputError(where(src, url), "expected a non-empty object of models")
    sizes = {**SIZES, **opts.n_items}
    rows = []
    for model, entry in data.items():
        scores = require(entry, "pass@1", dict, src, url, model)
        for bench, value in scores.items():
            if value is None or bench not in sizes:
                continue  # not evaluated, or a benchmark of unknown size
            score = proportion(value, src, url, f"{model}.pass@1.{bench}", percent=True)
            rows.append([f"EvalPlus {bench}", model, score, sizes[bench], ""])
    if not rows:
        raise InputError(where(src, url), "no scores")
    return SourceTable(
        src,
        url,
        empty_long(),
        aggregates=pd.DataFrame(rows, columns=AGGREGATE_COLUMNS),
        provenance=provenance(url, [dl]),
    )
