"""Terminal-Bench's leaderboard submissions (laude-institute/terminal-bench-leaderboard): each submission's run-level
``results.json`` files, every trial of every task.

Checked against the real files (``../shared/upstream/terminal_bench/``, the repository @ 8e1925a3) and the
repository's README. A submission is the folder under the dataset's (``results/terminal-bench-core@0.1.1/<sub>/``; one
submission used ``:`` for ``@``, as the README asks: both are one benchmark, ``terminal-bench-core 0.1.1``). Its runs
lie in four layouts (a folder per run, one run of five attempts, flat ``<time>_results.json`` files, run folders
without per-trial files); the run-level file always holds every trial: ``results`` (``task_id``, ``is_resolved``,
``trial_name``, ...), ``n_resolved``, ``n_unresolved`` and ``accuracy``, which the reader checks against the trials.

- **A trial is a sample.** Each task's trials of every run of a submission are its trials (5 runs of 80 tasks, or
  one run of 5 attempts each): the score is the share resolved.
- **A null ``is_resolved`` is a failure, never a blank** (427 of 5,280 trials: ``parse_error``, ``test_timeout``,
  ``unknown_agent_error``). The leaderboard's own ``accuracy`` counts them unresolved, and a blank where a failure
  was would raise the model's score (the product's rule); the run's notes say how many.
- **A run listed twice is read once**: a submission's run-level files with the same bytes are one run
  (swe-agent-mini's ``2025-08-15__16-23-45`` sits in its own folder and nested in another).
- The model is the submission folder (``20250923_droid_claude-4-1-opus``: the agent and the model, as the board
  lists them; ``run_metadata`` names neither for most). Its date is the folder's ``YYYYMMDD`` prefix, or else the
  newest date its runs' paths carry (``ob1_agent_sdk_20250910-012725``).
"""

from __future__ import annotations

import hashlib
import re

import pandas as pd
from pydantic import Field

from benchwatch.errors import InputError
from benchwatch.sources.config import SourceConfig
from benchwatch.sources.http import Fetcher
from benchwatch.sources.options import SourceOptions
from benchwatch.sources.parsing import fetch_files, provenance, read_bytes, read_json, require, where
from benchwatch.sources.table import LONG_COLUMNS, SourceTable

DATASET = re.compile(r"(?:^|/)(terminal-bench-[A-Za-z0-9_.-]+?)[@:]([0-9][A-Za-z0-9_.-]*)/([^/]+)/")
PREFIX = re.compile(r"^(\d{4})(\d{2})(\d{2})_")
DATES = re.compile(r"(20\d{2})-?(\d{2})-?(\d{2})")


class Options(SourceOptions):
    """Terminal-Bench's options."""

    files: list[str] = Field(default_factory=list)  # the run-level results files under url


def _submission(url: str, src: str) -> tuple[str, str]:
    """(benchmark, submission) of a run-level file, from its path."""
    found = DATASET.search(url)
    if found is None:
        raise InputError(
            where(src, url), "not under a dataset's folder (results/terminal-bench-core@VERSION/SUBMISSION/...)"
        )
    return f"{found.group(1)} {found.group(2)}", found.group(3)


def _date(submission: str, urls: list[str]) -> str:
    """The submission's date: its folder's YYYYMMDD prefix, or the newest date in its runs' paths ("" if none)."""
    prefix = PREFIX.match(submission)
    if prefix:
        return "-".join(prefix.groups())
    found = sorted("-".join(m.groups()) for u in urls for m in DATES.finditer(u.rsplit(submission + "/", 1)[-1]))
    return found[-1] if found else ""


def _trials(doc: object, src: str, url: str) -> pd.DataFrame:
    """One run-level file's trials (task, resolved: 1, 0 or null), checked against its own counts."""
    if not isinstance(doc, dict):
        raise InputError(where(src, url), "expected an object with results", value=type(doc).__name__)
    results = require(doc, "results", list, src, url)
    tasks, resolved, names = [], [], set()
    for k, trial in enumerate(results):
        if not isinstance(trial, dict):
            raise InputError(where(src, url), "a trial is not an object", field=f"results[{k}]", value=trial)
        task = require(trial, "task_id", str, src, url, f"results[{k}]")
        name = trial.get("trial_name")
        if name is not None and name in names:  # one trial listed twice: which answer is meant cannot be told
            raise InputError(where(src, url), f"task {task!r}: a trial listed twice", field="trial_name", value=name)
        names.add(name)
        done = trial.get("is_resolved")
        if done is not None and not isinstance(done, bool):
            words = f"task {task!r}: not true, false or null"
            raise InputError(where(src, url), words, field="is_resolved", value=done)
        tasks.append(task)
        resolved.append(None if done is None else int(done))
    frame = pd.DataFrame({"task": tasks, "resolved": pd.array(resolved, dtype="Int64")})
    right = int((frame["resolved"] == 1).sum())
    stated = doc.get("n_resolved")
    stale = "a trial listed twice, or the file's own count stale"
    if stated is not None and stated != right:
        raise InputError(where(src, url), f"{right} trials resolved: {stale}", field="n_resolved", value=stated)
    accuracy = doc.get("accuracy")
    if isinstance(accuracy, int | float) and results and abs(accuracy - right / len(results)) > 1e-9:
        words = f"{right} of {len(results)} trials resolved: {stale}"
        raise InputError(where(src, url), words, field="accuracy", value=accuracy)
    return frame


def load(fetcher: Fetcher, cfg: SourceConfig) -> SourceTable:
    """Fetch every configured run-level file: one benchmark per dataset, a submission's runs its trials."""
    opts = Options.of(cfg)
    downloads = fetch_files(fetcher, cfg, opts.files)
    runs: dict[tuple[str, str], list[pd.DataFrame]] = {}
    where_from: dict[tuple[str, str], list[str]] = {}
    seen: dict[str, str] = {}
    notes, nulls, twice = [], 0, 0
    for dl in downloads:
        body = read_bytes(dl, cfg.name)
        key = _submission(dl.url, cfg.name)
        digest = hashlib.sha256(body).hexdigest()
        if seen.get(f"{key}:{digest}"):  # the same run listed twice (the same bytes): read once
            twice += 1
            continue
        seen[f"{key}:{digest}"] = dl.url
        trials = _trials(read_json(dl, cfg.name), cfg.name, dl.url)
        nulls += int(trials["resolved"].isna().sum())
        runs.setdefault(key, []).append(trials)
        where_from.setdefault(key, []).append(dl.url)
    if nulls:
        notes.append(f"{nulls} trial(s) with is_resolved null (errored, timed out) counted as failures, as the board")
    if twice:
        notes.append(f"{twice} run-level file(s) identical to another of the same submission read once")
    frames = []
    for (bench, submission), parts in sorted(runs.items()):
        trials = pd.concat(parts, ignore_index=True)
        cells = trials.assign(resolved=trials["resolved"].fillna(0)).groupby("task", sort=True)["resolved"]
        right, count = cells.sum(), cells.size()
        frames.append(
            pd.DataFrame(
                {
                    "benchmark": bench,
                    "model": submission,
                    "item_id": right.index.astype(str),
                    "score": (right / count).astype(float).map(repr).to_numpy(),
                    "date": _date(submission, where_from[(bench, submission)]),
                    "trials": count.astype(int).astype(str).where(count > 1, "").to_numpy(),
                }
            )[LONG_COLUMNS]
        )
    if not frames:
        raise InputError(where(cfg.name, cfg.url), "no run-level results file", field="files", value=opts.files)
    whole = pd.concat(frames, ignore_index=True)
    return SourceTable(cfg.name, cfg.url, whole, notes=tuple(notes), provenance=provenance(cfg.url, downloads))
