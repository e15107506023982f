"""LiveCodeBench: ``performances_generation.json``, pass@1 over ``trials`` samples as a fractional score.

The file's ``release_date`` is a contamination cut-off, not a publication date, so rows carry no date.
"""

from __future__ import annotations

import pandas as pd

from bot.errors import InputError
from bot.sources.config import SourceConfig
from bot.sources.http import Fetcher
from bot.sources.parsing import proportion, provenance, read_json, require, where
from bot.sources.table import LONG_COLUMNS, SourceTable


def load(fetcher: Fetcher, cfg: SourceConfig) -> SourceTable:
    """Fetch and parse the per-problem performances."""
    dl = fetcher.get(cfg.url, source=cfg.name)
    src, url = cfg.name, cfg.url
    data = read_json(dl, src)
    rows = require(data, "performances", list, src, url)
    if not rows:
        raise InputError(where(src, url), "no performances", field="performances", value=[])
    trials = int(cfg.options.get("trials", 10))
    bench = str(cfg.options.get("benchmark", "LiveCodeBench code generation"))
    out = []
    for k, row in enumerate(rows):
        ctx = f"performances[{k}]"
        model = require(row, "model", str, src, url, ctx)
        item = require(row, "question_id", (str, int), src, url, ctx)
        score = proportion(require(row, "pass@1", (int, float), src, url, ctx), src, url, f"{ctx}.pass@1", percent=True)
        successes = score * trials
        # A pass@1 that is not a whole number of successes out of `trials` enters as a quasi-Bernoulli score.
        whole = abs(successes - round(successes)) < 1e-6
        out.append([bench, model, str(item), repr(score), "", str(trials) if whole else ""])
    frame = pd.DataFrame(out, columns=LONG_COLUMNS)
    return SourceTable(src, url, frame, provenance=provenance(url, [dl]))
