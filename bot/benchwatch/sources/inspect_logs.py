"""Inspect evaluation logs (``.eval`` and ``.json``): one row per (task, model, sample id).

Read with inspect_ai's own reader (the optional extra: ``pip install ".[inspect]"``): the log's header for
the run's status, task, model and date, then its sample summaries (each sample's scores without its
transcript, so a large ``.eval`` log is never loaded whole). Checked against logs that inspect_ai 0.3.285's
own ``eval()`` writes: ``tests/sources/test_inspect_logs.py`` runs a task on Inspect's mock model provider.

- The benchmark is the task's name; a log with several scorers gives one benchmark per scorer,
  ``TASK/SCORER``. The model is the log's, as recorded (``openai/gpt-4o``); the date is the eval's.
- Scores: ``C`` (correct) 1, ``I`` (incorrect) 0, ``P`` (partial) 0.5, ``N`` (no answer) 0, as Inspect's own
  ``value_to_float`` reads them; booleans; numbers and numeric text in [0, 1]. Anything else (a number
  outside [0, 1], a list, a dict, free text) is an error naming the log, the scorer and the value.
- Epochs: each epoch's score is one trial; a sample's row holds their mean, with ``trials`` the number of
  epochs scored. Several logs of one task and model pool their epochs.
- A log of a run that did not succeed (``started``, ``cancelled``, ``error``) is listed and skipped; a log
  without any per-sample score is an error.
- Chance floors: a multiple-choice sample carries its ``choices`` (a list, in the log's sample summaries as in
  its samples; Inspect's ``multiple_choice()`` solver offers the model exactly these), so its floor is one over
  their number; a sample without choices (``None`` or empty: any other task) gives none.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from pathlib import Path

from benchwatch.errors import InputError
from benchwatch.sources.record_paths import is_record_path
from benchwatch.sources.table import LONG_COLUMNS, SourceTable, chance_of, with_chance

SUFFIXES = (".eval", ".json")
LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}
EXTRA = 'reading Inspect logs needs inspect_ai: pip install ".[inspect]"'
CHANCE_FROM = "each sample's number of choices (Inspect's choices)"


def reader():
    try:
        from inspect_ai import log
    except ImportError:
        raise InputError("inspect_ai", EXTRA) from None
    return log


def score_value(value: object, where: str, scorer: str) -> float:
    """One Inspect score value as a number in [0, 1], or an error naming the log, the scorer and the value."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, str) and value.strip().upper() in LETTERS:
        return LETTERS[value.strip().upper()]
    if isinstance(value, str) and value.strip().lower() in ("yes", "true", "no", "false"):
        return 1.0 if value.strip().lower() in ("yes", "true") else 0.0
    try:
        number = float(value) if isinstance(value, int | float | str) else math.nan
    except ValueError:
        number = math.nan
    if not 0.0 <= number <= 1.0:  # NaN fails too
        raise InputError(
            where, "a score that cannot be read as a number in [0, 1]", field=f"scorer {scorer}", value=value
        )
    return number


def log_rows(path: str | Path, label: str | None = None) -> tuple[list[tuple], str | None, dict]:
    """The per-epoch rows of one log (benchmark, model, item_id, value, date, chance), the reason it was
    skipped (None when it was read) and its header facts (task, model, date); ``chance`` is one over the
    sample's number of ``choices``, None without them."""
    log = reader()
    where = label or str(path)
    try:
        header = log.read_eval_log(str(path), header_only=True)
    except Exception as exc:  # the reader's own errors: a damaged zip, invalid JSON, an unknown format
        raise InputError(where, f"not a readable Inspect log: {type(exc).__name__}: {exc}") from None
    facts = {"task": header.eval.task, "model": header.eval.model, "date": str(header.eval.created)[:10]}
    if header.status != "success":
        reason = f"the run's status is {header.status!r}"
        if header.error is not None:
            reason += f": {' '.join(str(header.error.message).split())[:200]}"
        return [], reason, facts
    try:
        summaries = log.read_eval_log_sample_summaries(str(path))
    except Exception as exc:
        raise InputError(where, f"not a readable Inspect log: {type(exc).__name__}: {exc}") from None
    scored = [s for s in summaries if s.scores]
    if not scored:
        raise InputError(where, "the log has no per-sample scores (was it run without a scorer?)")
    scorers = sorted({name for s in scored for name in s.scores})
    rows = []
    for sample in scored:
        choices = getattr(sample, "choices", None)
        chance = chance_of(len(choices)) if isinstance(choices, list) else None
        for name, score in sample.scores.items():
            bench = facts["task"] if len(scorers) == 1 else f"{facts['task']}/{name}"
            value = score_value(score.value, where, name)
            rows.append((bench, facts["model"], str(sample.id), value, facts["date"], chance))
    return rows, None, facts


def log_files(path: Path) -> list[Path]:
    """The Inspect logs a path names: the file itself, or every ``.eval`` and ``.json`` log under a folder
    (sorted; lm-evaluation-harness ``results_*.json`` files and Every Eval Ever ``<uuid>.json`` records are
    not Inspect logs and are left out)."""
    if path.is_dir():
        return sorted(
            p
            for p in path.rglob("*")
            if p.is_file()
            and p.suffix in SUFFIXES
            and not p.name.startswith(("results_", "."))
            and not is_record_path(p)
        )
    return [path]


def table_from_epochs(
    rows: Iterable[tuple], name: str, location: str, *, chance_from: str | None = None, **extra
) -> SourceTable:
    """Per-epoch rows (benchmark, model, item_id, value, date[, chance]) as long rows: the epochs' mean as the
    score and their number as ``trials``; a model's date is its earliest. Where some row gives a chance floor
    the table has a ``chance`` column (each item's one floor: see ``with_chance``) and ``chance_from`` says
    where the floors came from; otherwise it has neither."""
    import pandas as pd

    rows = [row if len(row) == 6 else (*row, None) for row in rows]
    epochs = pd.DataFrame(rows, columns=["benchmark", "model", "item_id", "value", "date", "chance"])
    epochs["chance"] = pd.to_numeric(epochs["chance"], errors="coerce")
    keys = ["benchmark", "model", "item_id"]
    cells = (
        epochs.groupby(keys, sort=True)
        .agg(score=("value", "mean"), trials=("value", "size"), chance=("chance", "min"))
        .reset_index()
    )
    first = epochs.groupby(["benchmark", "model"])["date"].min().rename("date").reset_index()
    cells = cells.merge(first, on=["benchmark", "model"], how="left")
    frame = cells.assign(score=cells["score"].map(repr), trials=cells["trials"].astype(str))[LONG_COLUMNS]
    frame, words = with_chance(frame, cells["chance"], chance_from)
    return SourceTable(name=name, location=location, frame=frame, chance_from=words, **extra)


def read_inspect_logs(path: str | Path) -> SourceTable:
    """Every Inspect log at ``path`` (a file or a folder) as one long table; skipped runs are listed."""
    path = Path(path)
    files = log_files(path)
    if not files:
        raise InputError(str(path), "no Inspect logs (.eval or .json) in this folder")
    rows, excluded, notes = [], [], []
    for file in files:
        got, skipped, facts = log_rows(file)
        if skipped is not None:
            excluded.append({"benchmark": facts["task"], "model": facts["model"], "reason": f"{file.name}: {skipped}"})
            notes.append(f"{file.name}: skipped ({skipped})")
        rows += got
    if not rows:
        raise InputError(str(path), "no log of a successful run: " + "; ".join(notes))
    return table_from_epochs(
        rows, path.name, str(path), excluded=tuple(excluded), notes=tuple(notes), chance_from=CHANCE_FROM
    )
