"""The Open LLM Leaderboard v2's per-model details: lm-evaluation-harness samples of every model it ran.

The leaderboard (frozen in 2025 at about 4,576 models) keeps, for each model, a Hugging Face dataset
``open-llm-leaderboard/<org>__<model>-details`` holding the files that lm-evaluation-harness's own
``EvaluationTracker`` wrote for its run, under the folder ``<org>__<model>/``: ``results_<date_id>.json`` and
one ``samples_leaderboard_<task>_<date_id>.jsonl`` per task (IFEval, each BBH subtask, each MATH level-5
subject, GPQA's three sets, MuSR's three, MMLU-Pro). They are read with ``bot/benchwatch/sources/lm_eval_samples.py``,
which is checked against files written by the harness itself in the suite (``tests/sources/test_open_llm.py``
lays such files out as the Hub holds them and serves them on 127.0.0.1). No copy of the real datasets can be
had here.

- ``url``: the Hub (``https://huggingface.co``). The models are the ``model_column`` (default ``fullname``,
  ``org/model``) of the leaderboard's contents dataset, a Parquet file at ``contents`` (a path under ``url``).
- Each model's folder is listed with the Hub's tree API (``/api/datasets/<repo>/tree/main/<folder>``, a JSON
  list of ``{type, path, size, oid}``); its newest ``results_<date_id>.json`` and the samples files of the
  same run are read. A name that is not ``org/model`` of plain characters is listed and skipped, never put in
  a URL.
- A model's details never change once written: its listing and files are downloaded once, kept in the
  download cache and never asked for again; ``max_models`` (default 20) caps how many new models one run
  downloads, the rest wait for later runs, named in the run log. A model whose files cannot be had or read is
  listed, dropped from the cache and asked again next run; it never stops the others.

Benchmarks: each task a benchmark, named ``Open LLM v2 <task>`` without the ``leaderboard_`` prefix (each BBH
subtask, ...); each ``groups`` entry (default BBH, MATH level 5, GPQA and MuSR) also as one benchmark over all
its subtasks, an item named ``<subtask>/<doc_id>``. The score of a document is the task's primary metric (the
first of its ``metric_list``, under its first filter). The item is the document's ``doc_id``, or for the tasks
of ``item_fields`` a field of the logged document: MMLU-Pro's ``question_id``, the id TIGER-Lab's own outputs
use (``[benchmarks."MMLU-Pro"]`` puts both on one page, where the shared questions are fitted together).
Chance floors, as ``lm_eval_samples`` reads them: one over each document's number of choices (its logged
``arguments``) for the multiple-choice tasks (BBH, GPQA, MuSR, MMLU-Pro), none for IFEval and MATH, which
generate; a group's item keeps its subtask's floor.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from dataclasses import replace
from pathlib import Path
from urllib.parse import quote

import pandas as pd
from pydantic import Field

from benchwatch.errors import InputError
from benchwatch.sources.config import SourceConfig
from benchwatch.sources.http import Download, Fetcher, FetchError
from benchwatch.sources.inspect_logs import table_from_epochs
from benchwatch.sources.lm_eval_samples import CHANCE_FROM, SAMPLES, sample_rows
from benchwatch.sources.options import SourceOptions
from benchwatch.sources.parsing import NewDownloads, provenance, where
from benchwatch.sources.table import SourceTable

CONTENTS = "datasets/open-llm-leaderboard/contents/resolve/main/data/train-00000-of-00001.parquet"
DETAILS = "open-llm-leaderboard/{folder}-details"
MAX_MODELS = 20
GROUPS = {"bbh": "bbh_", "math_hard": "math_", "gpqa": "gpqa_", "musr": "musr_"}
ITEM_FIELDS = {"leaderboard_mmlu_pro": "question_id"}
PREFIX = "Open LLM v2 "
MODEL = re.compile(r"[A-Za-z0-9][\w.\-]*/[A-Za-z0-9][\w.\-]*")
RESULTS = re.compile(r"results_(?P<date_id>\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?)\.json")
TASK = re.compile(r"[\w.\-]+")


class Options(SourceOptions):
    """The Open LLM Leaderboard's options."""

    contents: str = CONTENTS  # the contents dataset's parquet, under url
    model_column: str = "fullname"  # its column of model names
    details: str = DETAILS  # a model's details dataset ({folder}: org__model)
    # task -> the sample field that is its item id (added to ITEM_FIELDS)
    item_fields: dict[str, str] = Field(default_factory=dict)
    groups: dict[str, str] = Field(default_factory=lambda: dict(GROUPS))  # group -> the prefix of its tasks
    max_models: int = MAX_MODELS  # new models downloaded a run


def _models(dl: Download, column: str, src: str) -> list[str]:
    try:
        frame = pd.read_parquet(dl.path, columns=[column])
    except (KeyError, ValueError) as exc:
        raise InputError(src, f"no model column in the contents dataset ({exc})", field=column) from None
    except Exception as exc:  # pyarrow's errors for a file that is not Parquet
        raise InputError(src, f"not a readable Parquet file: {exc}") from None
    return sorted({str(m).strip() for m in frame[column].dropna() if str(m).strip()})


def _run_files(listing: bytes, folder: str, src: str) -> tuple[str, list[str]]:
    """The newest run's results file and its samples files, by name, from a tree listing."""
    try:
        entries = json.loads(listing)
    except ValueError as exc:
        raise InputError(src, f"not a tree listing: {exc}") from None
    if not isinstance(entries, list):
        raise InputError(src, "not a tree listing (a JSON list of files)")
    names = []
    for entry in entries:
        path = entry.get("path") if isinstance(entry, dict) else None
        if isinstance(path, str) and entry.get("type") == "file" and path.startswith(f"{folder}/"):
            names.append(path[len(folder) + 1 :])
    runs = sorted(found.group("date_id") for n in names if (found := RESULTS.fullmatch(n)))
    if not runs:
        raise InputError(src, "no results_<date>.json in the model's details")
    date_id = runs[-1]
    samples = sorted(
        n
        for n in names
        if (found := SAMPLES.fullmatch(n)) and found.group("date_id") == date_id and TASK.fullmatch(found.group("task"))
    )
    if not samples:
        raise InputError(src, f"no samples files of the run {date_id}")
    return f"results_{date_id}.json", samples


def _urls(cfg: SourceConfig, base: str, model: str) -> tuple[str, str, str]:
    """A model's details folder, its dataset and the URL of the folder's listing."""
    folder = model.replace("/", "__")
    repo = Options.of(cfg).details.format(folder=folder)
    return folder, repo, f"{base}/api/datasets/{quote(repo)}/tree/main/{quote(folder)}"


def _read_model(fetcher: Fetcher, cfg: SourceConfig, base: str, model: str, fields: dict, asked: list) -> tuple:
    """One model's rows (task, model, item, value, date) and the downloads they came from (``asked``: every
    URL requested, to forget them all when one fails)."""
    folder, repo, listing_url = _urls(cfg, base, model)
    asked.append(listing_url)
    listing = fetcher.get(listing_url, source=cfg.name, immutable=True)
    results, samples = _run_files(listing.path.read_bytes(), folder, where(cfg.name, listing_url))
    downloads, rows = [listing], []
    with tempfile.TemporaryDirectory(prefix="benchwatch-details-") as tmp:
        for name in [results, *samples]:  # names checked against the harness's patterns: safe as file names
            url = f"{base}/datasets/{quote(repo)}/resolve/main/{quote(folder)}/{quote(name)}"
            asked.append(url)
            dl = fetcher.get(url, source=cfg.name, immutable=True)
            downloads.append(dl)
            os.symlink(dl.path.resolve(), Path(tmp) / name)
        for name in samples:
            found = SAMPLES.fullmatch(name)
            assert found is not None  # _run_files listed only the names SAMPLES matches
            task = found.group("task")
            rows += sample_rows(Path(tmp) / name, fields.get(task))
    return rows, downloads


def _named(rows: list[tuple], groups: dict[str, str], prefix: str) -> list[tuple]:
    """Each task's rows under its benchmark name, and each group's over all its subtasks."""
    out = []
    for task, model, item, value, date, chance in rows:
        short = task.removeprefix("leaderboard_")
        out.append((prefix + short, model, item, value, date, chance))
        for group, start in groups.items():
            if short.startswith(start) and short != group:
                out.append((prefix + group, model, f"{short.removeprefix(start)}/{item}", value, date, chance))
    return out


def load(fetcher: Fetcher, cfg: SourceConfig) -> SourceTable:
    """Read the model list, fetch the details of new models up to the cap, and read every cached one."""
    opts = Options.of(cfg)
    base = cfg.url.rstrip("/")
    contents_url = f"{base}/{opts.contents}"
    contents = fetcher.get(contents_url, source=cfg.name)
    models = _models(contents, opts.model_column, where(cfg.name, contents_url))
    fields = {**ITEM_FIELDS, **opts.item_fields}
    groups = dict(opts.groups)
    rows, downloads, excluded, notes = [], [], [], []
    cap = NewDownloads(fetcher, opts.max_models, "model", "max_models")
    for model in models:
        if not MODEL.fullmatch(model):
            excluded.append({"benchmark": cfg.name, "model": model, "reason": "not an org/model name"})
            continue
        listing_url = _urls(cfg, base, model)[2]
        if not cap.allow(listing_url):
            continue
        asked: list[str] = []
        try:
            got, dls = _read_model(fetcher, cfg, base, model, fields, asked)
        except (FetchError, InputError) as exc:  # one model: listed, dropped from the cache, asked again next run
            for url in asked:
                fetcher.forget(url)
            excluded.append({"benchmark": cfg.name, "model": model, "reason": str(exc)})
            notes.append(f"the details of {model} could not be read; fetched again next run")
            continue
        rows += got
        downloads += dls
    notes += [note] if (note := cap.note()) else []
    if not rows:
        raise InputError(where(cfg.name, contents_url), "no model's details could be read")
    table = table_from_epochs(
        _named(rows, groups, PREFIX),
        cfg.name,
        cfg.url,
        excluded=tuple(excluded),
        notes=tuple(notes),
        chance_from=CHANCE_FROM,
    )
    prov = provenance(contents_url, [contents])
    digest = hashlib.sha256("".join(sorted(d.sha256 for d in downloads)).encode()).hexdigest()[:12]
    return replace(
        table,
        more=cap.waiting > 0,
        provenance={**prov, "revision": f"{prov['revision']}+{len(downloads)}files:{digest}"},
    )
