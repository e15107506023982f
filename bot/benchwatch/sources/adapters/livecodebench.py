"""LiveCodeBench: ``performances_<scenario>.json``, pass@1 over ``trials`` samples as a fractional score.

Checked against the producer's files (LiveCodeBench/livecodebench.github.io @ f186ab50, 2025-08-01,
``src/mocks/``; ``../shared/upstream/livecodebench/`` holds the generation file): all four scenarios share
one shape, ``{"performances": [...], "models": [...], "date_marks": ...}``, with per-row fields that differ:

- code generation and self-repair: ``question_id``, ``model``, ``pass@1`` (percent), one row per question;
- code execution: ``question_id``, ``sample_id``, ``model``, ``Pass@1`` and ``Pass@1-COT`` (percent): one
  question has several samples, each an item (``item_fields = ["question_id", "sample_id"]``,
  ``score_field = "Pass@1"``);
- test output prediction: ``question_id``, ``model``, ``pass@1``, with several rows for one question and no
  field that tells them apart (a question's test cases): they are averaged into one item per question
  (``repeats = "mean"``).

Elsewhere (``repeats = "error"``, the default) a (model, item) is one row: a row repeated with the same
score is read once (the same data, the same revision), two rows with two scores are an error naming both.

The file's ``release_date`` is a contamination cut-off, not a publication date, so rows carry no date.
"""

from __future__ import annotations

import pandas as pd
from pydantic import Field

from benchwatch.errors import InputError
from benchwatch.sources.config import SourceConfig
from benchwatch.sources.http import Fetcher
from benchwatch.sources.options import SourceOptions
from benchwatch.sources.parsing import proportion, provenance, read_json, require, where
from benchwatch.sources.table import LONG_COLUMNS, SourceTable


class Options(SourceOptions):
    """LiveCodeBench's options."""

    trials: int = 10  # samples behind each pass@1
    benchmark: str = "LiveCodeBench code generation"
    score_field: str = "pass@1"  # the file's own spelling of the score
    item_fields: list[str] = Field(default_factory=lambda: ["question_id"])  # the fields that make an item's id
    repeats: str = "error"  # rows repeating a (model, item): "error" (read once when equal) or "mean"


def load(fetcher: Fetcher, cfg: SourceConfig) -> SourceTable:
    """Fetch and parse the per-problem performances."""
    opts = Options.of(cfg)
    dl = fetcher.get(cfg.url, source=cfg.name)
    src, url = cfg.name, cfg.url
    data = read_json(dl, src)
    rows = require(data, "performances", list, src, url)
    if not rows:
        raise InputError(where(src, url), "no performances", field="performances", value=[])
    trials = opts.trials
    bench = opts.benchmark
    field = opts.score_field
    keys = list(opts.item_fields)
    out = []
    for k, row in enumerate(rows):
        ctx = f"performances[{k}]"
        model = require(row, "model", str, src, url, ctx)
        item = "/".join(str(require(row, key, (str, int), src, url, ctx)) for key in keys)
        score = proportion(require(row, field, (int, float), src, url, ctx), src, url, f"{ctx}.{field}", percent=True)
        out.append((model, item, score))
    scores = pd.DataFrame(out, columns=["model", "item_id", "score"])
    repeats = opts.repeats
    if repeats not in ("error", "mean"):
        raise InputError(src, 'the option `repeats` must be "error" or "mean"', field="repeats", value=repeats)
    notes: tuple[str, ...] = ()
    if repeats == "error":
        same = scores.duplicated()
        if same.any():
            notes = (f"{int(same.sum())} row(s) repeat a (model, item) with the same score: read once",)
            scores = scores[~same]  # the index stays the row's place in the file
        clash = scores.duplicated(["model", "item_id"], keep=False)
        if clash.any():
            first = scores.index[clash][0]
            a = scores.loc[first]
            partner = clash & (scores["model"] == a["model"]) & (scores["item_id"] == a["item_id"])
            second = scores.index[partner][1]  # the first other row of the same (model, item)
            b = scores.loc[second]
            raise InputError(
                where(src, url),
                f"two rows for one (model, item) with two scores: performances[{first}] and performances[{second}] "
                f'({a["model"]!r}, {a["item_id"]!r}: {a["score"]:g} and {b["score"]:g}); set `repeats = "mean"` '
                "if such rows are meant to be averaged",
                field="performances",
            )
    scores = scores.reset_index(drop=True)
    repeated = int(scores.duplicated(["model", "item_id"]).sum())
    if repeated:  # rows that nothing tells apart (test output prediction's test cases): one item, their mean
        counts = scores.groupby(["model", "item_id"])["score"].transform("size")
        scores = (
            scores.assign(n=counts)
            .groupby(["model", "item_id"], sort=False, as_index=False)
            .agg(score=("score", "mean"), n=("n", "first"))
        )
        notes = (f"{repeated} rows repeat a (model, item): averaged into one item each",)
    else:
        scores = scores.assign(n=1)
    successes = scores["score"] * trials
    # A pass@1 that is not a whole number of successes out of `trials` enters as a quasi-Bernoulli score;
    # so does a mean over several rows.
    whole = ((successes - successes.round()).abs() < 1e-6) & (scores["n"] == 1)
    frame = pd.DataFrame(
        {
            "benchmark": bench,
            "model": scores["model"],
            "item_id": scores["item_id"],
            "score": scores["score"].map(repr),
            "date": "",
            "trials": [str(trials) if w else "" for w in whole],
        }
    )[LONG_COLUMNS]
    return SourceTable(src, url, frame, provenance=provenance(url, [dl]), notes=notes)
