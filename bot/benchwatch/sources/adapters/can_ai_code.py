"""can-ai-code (the-crypt-keeper/can-ai-code): its interview results, ``results/<family>/eval_*.ndjson``, a file a run.

Checked against the real files (``../shared/upstream/can_ai_code/``, the repository @ aa5a2f6d) and the results
viewer that reads them (``app.py``: it globs ``results/eval*`` and splits each name on ``_``). A file's name is
``eval_<interview>_<languages>_<template>_<templateout>_<params>_<model>_<unixtime>.ndjson``; each line one test in one
language: ``name, language, model, params, runtime, status, passed, total`` (``passed`` of ``total`` checks).

- **Two benchmarks**, one an interview: ``can-ai-code junior-v2`` (14 tests x 2 languages) and ``can-ai-code senior``
  (3 x 2). An item is the test and its language (``FactorialIterative (python)``).
- **Partial credit as trials**: a cell is ``passed`` of ``total`` checks.
- **A configuration is a model; its repeated runs are samples of it**, never new models: the files of one
  configuration (every tag but the time: 56 configurations were run two or three times) add their checks to the same
  cells, and its date is its first run's. A configuration is named by the rows' own ``model`` (one spelling: the
  file's tag turns ``_`` and ``/`` into ``-``) with the prompt template and the sampling preset, and the languages
  where they are not both: ``jondurbin/airoboros-l2-13b-gpt4-1.4.1 (Vicuna-1p1-v2a, precise)``.
- Refused, naming the file and the value: a name without its eight tags, a file with two models, a count that is
  not whole or past ``total``, a ``PASS`` that did not pass every check (or the reverse), one test twice in a run.

The files are found in the repository's listing (``index``: the GitHub git trees API; the raw host lists nothing).
Each run's file never changes once written (its name carries its time): it is downloaded once, then kept.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import pandas as pd

from benchwatch.errors import InputError
from benchwatch.sources.config import SourceConfig
from benchwatch.sources.github import tree_paths
from benchwatch.sources.http import Fetcher
from benchwatch.sources.options import SourceOptions
from benchwatch.sources.parsing import provenance, read_bytes, surrogate_hook, where
from benchwatch.sources.table import LONG_COLUMNS, SourceTable

NAME = re.compile(r"eval_([^_/]+)_([^_/]+)_([^_/]+)_([^_/]+)_([^_/]+)_([^_/]+)_(\d+)\.ndjson$")
BOTH = "python-javascript"  # the languages of every interview but one run's


class Options(SourceOptions):
    """can-ai-code's options."""

    # the repository's listing (GitHub's git trees API, recursive)
    index: str = "https://api.github.com/repos/the-crypt-keeper/can-ai-code/git/trees/main?recursive=1"
    folder: str = "results/"  # where the runs' files lie
    benchmark: str = "can-ai-code {interview}"  # each interview's benchmark name


def _config(path: str, src: str, url: str) -> tuple[tuple[str, ...], int]:
    """A run's configuration (interview, languages, template, templateout, params) and its time, from its name."""
    found = NAME.search(path)
    if found is None:
        raise InputError(where(src, url), "not a run's name (eval_<8 tags>.ndjson)", field="name", value=path)
    *tags, _model, stamp = found.groups()
    return tuple(tags), int(stamp)


def _rows(body: bytes, src: str, url: str) -> list[tuple[str, str, str, int, int]]:
    """One run's lines, checked: (test, language, model, passed, total) each."""
    rows: list[tuple[str, str, str, int, int]] = []
    seen = set()
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError(where(src, url), "the body is not UTF-8 text") from None
    hook = surrogate_hook(body)
    for k, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line, object_pairs_hook=hook)
        except ValueError as exc:
            raise InputError(where(src, url), f"line {k} is not JSON: {exc}") from None
        if not isinstance(row, dict):
            raise InputError(where(src, url), f"line {k} is not an object", value=row)
        for key in ("name", "language", "model", "status", "passed", "total"):
            if key not in row:
                raise InputError(where(src, url), f"line {k}: missing field", field=key)
        test = (str(row["name"]), str(row["language"]))
        if test in seen:  # which of the two answers is meant cannot be told
            raise InputError(where(src, url), f"line {k}: one test twice in a run", field="name", value=" ".join(test))
        seen.add(test)
        passed, total = row["passed"], row["total"]
        whole = all(isinstance(v, int) and not isinstance(v, bool) for v in (passed, total))
        if not whole or not 0 <= passed <= total or total < 1:
            raise InputError(
                where(src, url),
                f"line {k} ({row['name']}): checks not whole, 0..total",
                field="passed",
                value=f"{passed} of {total}",
            )
        if (row["status"] == "PASS") != (passed == total):
            raise InputError(
                where(src, url),
                f"line {k} ({row['name']}): {passed} of {total} checks passed",
                field="status",
                value=row["status"],
            )
        rows.append((str(row["name"]), str(row["language"]), str(row["model"]), passed, total))
    if not rows:
        raise InputError(where(src, url), "no results")
    models = {row[2] for row in rows}
    if len(models) != 1:
        raise InputError(where(src, url), "two models in one run", field="model", value=sorted(models))
    return rows


def _label(model: str, tags: tuple[str, ...]) -> str:
    _, languages, template, out, params = tags
    parts = [template + ("" if out == "none" else f" > {out}"), params] + ([] if languages == BOTH else [languages])
    return f"{model} ({', '.join(parts)})"


def load(fetcher: Fetcher, cfg: SourceConfig) -> SourceTable:
    """Every run the listing names under ``folder``: a benchmark an interview, a configuration a model."""
    opts = Options.of(cfg)
    paths = [
        p for p in tree_paths(fetcher, opts.index, cfg.name, opts.folder) if p.rsplit("/", 1)[-1].startswith("eval")
    ]
    if not paths:
        raise InputError(
            where(cfg.name, opts.index), f"no run under {opts.folder!r}", field="folder", value=opts.folder
        )
    downloads = fetcher.get_all([cfg.url + p for p in paths], source=cfg.name, immutable=True)  # a run's never changes
    runs: list[tuple] = []  # every run's rows, each with its configuration and time: one frame of them all
    for path, dl in zip(paths, downloads, strict=True):
        tags, stamp = _config(path, cfg.name, dl.url)
        runs.extend((*row, tags, stamp) for row in _rows(read_bytes(dl, cfg.name), cfg.name, dl.url))
    every = pd.DataFrame(runs, columns=["test", "language", "model", "passed", "total", "config", "stamp"])
    every["entry"] = [_label(m, t) for m, t in zip(every["model"], every["config"], strict=True)]
    cells = every.groupby(["config", "entry", "test", "language"], sort=True).agg(
        passed=("passed", "sum"), total=("total", "sum"), first=("stamp", "min"), runs=("stamp", "nunique")
    )
    cells = cells.reset_index()
    repeated = int((cells.groupby("entry")["runs"].max() > 1).sum())
    frame = pd.DataFrame(
        {
            "benchmark": [opts.benchmark.format(interview=t[0]) for t in cells["config"]],
            "model": cells["entry"],
            "item_id": cells["test"] + " (" + cells["language"] + ")",
            "score": (cells["passed"] / cells["total"]).map(repr),
            "date": [datetime.fromtimestamp(s, UTC).strftime("%Y-%m-%d") for s in cells["first"]],
            "trials": cells["total"].astype(str).where(cells["total"] > 1, ""),
        }
    )[LONG_COLUMNS]
    notes = (
        (f"{repeated} configuration(s) run more than once: their runs are samples of one model",) if repeated else ()
    )
    return SourceTable(cfg.name, cfg.url, frame, notes=notes, provenance=provenance(cfg.url, downloads))
