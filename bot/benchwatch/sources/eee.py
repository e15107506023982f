"""Every Eval Ever records (``evaleval/every_eval_ever``, schema 0.3.0) read into the long table.

Every Eval Ever is the shared format into which the field converts HELM, Inspect and lm-evaluation-harness
results. Its datastore holds one aggregate record a run, ``data/<collection>/<developer>/<model>/<uuid>.json``,
and, for a run with instance-level data, ``<uuid>_samples.jsonl`` beside it (the aggregate's
``detailed_evaluation_results.file_path`` names it, rooted at ``data/``, with its checksum and row count).
Checked against records written by Every Eval Ever 0.3.0's own converters (``every_eval_ever convert lm_eval
--include_samples`` and ``convert inspect``) from the lm-evaluation-harness and Inspect logs the suite runs
(``tests/sources/eee_data/``): read here they give the same long table as the logs they came from.

- Every record and every line of a samples file is validated against the schemas shipped in
  ``bot/benchwatch/sources/data/eee/`` (the producer's own, byte for byte); the first error is one line naming the file
  (and the line), the field (its JSON path) and the value. A samples file whose hash or row count is not the
  one its aggregate gives is an error too: a record is never read against the wrong samples.
- The model is ``model_info.id``; the date the run's ``evaluation_timestamp`` (Unix seconds or ISO), else the
  record's ``retrieved_timestamp``.
- A result is a benchmark. Its score is ``evaluation.score`` scaled to [0, 1] by the result's
  ``metric_config`` (``min_score``/``max_score``, flipped when ``lower_is_better``); a result with no bounds must
  already be a proportion; an unbounded one (``Infinity``, an Elo) is not a proportion and is named in the
  run log, never guessed. Lines of one sample and result (Inspect's epochs) are averaged, their number its
  ``trials``. Which results, after the converters' own conventions: for ``lm_eval`` records the first result
  of each task (its first metric under its first filter: what the harness reader scores), named by the task
  (``source_data.dataset_name``); for ``inspect`` records one benchmark a scorer (the part of
  ``evaluation_result_id`` before ``:``), named ``<task>/<scorer>`` when a task has several, as the Inspect
  reader names them; for any other producer, the first result of each ``evaluation_name``.
- A record without instance-level data gives board rows (score and test-set size: ``num_samples`` of its
  uncertainty, else ``source_data.samples_number``); a result with no size is named in the run log.
- Chance floors: the instance schema's ``input.choices`` is the one field that carries a sample's options
  ("Optional list of choices for multiple-choice questions"; the lm_eval converter fills it from the
  document's choices, and leaves it null for generative tasks): a sample's floor is one over their number
  (none when null, absent, or fewer than two). Aggregate records carry no options.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterable
from datetime import UTC, datetime
from functools import cache
from pathlib import Path, PurePosixPath

from benchwatch.errors import InputError
from benchwatch.sources.jsonl import json_lines
from benchwatch.sources.record_paths import is_record_path
from benchwatch.sources.table import AGGREGATE_COLUMNS, SourceTable, chance_of

SCHEMA_DIR = Path(__file__).resolve().parent / "data" / "eee"
SCHEMA_VERSION = "0.3.0"
KINDS = {"aggregate": "eval.schema.json", "instance": "instance_level_eval.schema.json"}
INSPECT = ("inspect", "inspect_ai")
CHANCE_FROM = "each sample's number of choices (Every Eval Ever's input.choices)"


@cache
def _validator(kind: str):
    import jsonschema

    schema = json.loads((SCHEMA_DIR / KINDS[kind]).read_text(encoding="utf-8"))
    return jsonschema.validators.validator_for(schema)(schema)


def _short(value: object) -> object:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return value if len(text) <= 80 else text[:77] + "..."


def validate_eee_record(record: object, kind: str, where: str, row: int | None = None) -> None:
    """``record`` against the shipped schema of ``kind`` (``aggregate`` or ``instance``): the first error
    (the most relevant, as jsonschema ranks them) as one line naming the file, the field and the value."""
    import jsonschema

    error = jsonschema.exceptions.best_match(_validator(kind).iter_errors(record))
    if error is None:
        return
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path).lstrip(".")
    if error.validator == "required":  # the field named is the one missing, not the object that lacks it
        missing = re.match(r"'([^']+)'", error.message)
        path = ".".join(filter(None, [path, missing.group(1) if missing else ""]))
    raise InputError(
        where,
        f"not a valid Every Eval Ever {kind} record (schema {SCHEMA_VERSION}): {error.message[:200]}",
        row=row,
        field=path or "(record)",
        value=None if error.validator == "required" else _short(error.instance),
    )


def _date(record: dict) -> str:
    for key in ("evaluation_timestamp", "retrieved_timestamp"):
        text = str(record.get(key) or "").strip()
        try:
            return datetime.fromtimestamp(float(text), UTC).strftime("%Y-%m-%d")
        except (ValueError, OverflowError, OSError):
            if re.match(r"\d{4}-\d{2}-\d{2}", text):
                return text[:10]
    return ""


def _scale(result: dict):
    """The map from the result's scores to [0, 1], or None when the metric is unbounded."""
    config = result["metric_config"]
    lo, hi = config.get("min_score"), config.get("max_score")
    if lo is None and hi is None:
        lo, hi = 0.0, 1.0  # no bounds given: the score must already be a proportion
    if not all(isinstance(v, int | float) and math.isfinite(v) for v in (lo, hi)) or hi <= lo:
        return None
    if config["lower_is_better"]:
        return lambda s: (hi - s) / (hi - lo)
    return lambda s: (s - lo) / (hi - lo)


def _proportion(value: float, scale, where: str, row: int | None, field: str) -> float:
    scaled = scale(value)
    if not -1e-12 <= scaled <= 1 + 1e-12:
        raise InputError(
            where, "a score outside its metric's range (min_score, max_score)", row=row, field=field, value=value
        )
    return min(1.0, max(0.0, scaled))


def chosen_results(record: dict) -> dict[int, str]:
    """The results a record's benchmarks are read from: {index in ``evaluation_results``: benchmark name}."""
    library = str(record["eval_library"]["name"]).lower()
    results = record["evaluation_results"]
    by_name: dict[str, int] = {}  # a result's benchmark name -> its first index (lm_eval and the other libraries)
    by_pair: dict[tuple[str, str], int] = {}  # (dataset, scorer) -> its first index (Inspect)
    for k, result in enumerate(results):
        dataset = str(result["source_data"].get("dataset_name") or result["evaluation_name"])
        if library == "lm_eval":
            by_name.setdefault(dataset, k)
        elif library in INSPECT:
            scorer = str(result.get("evaluation_result_id") or result["evaluation_name"]).split(":", 1)[0]
            by_pair.setdefault((dataset, scorer), k)
        else:
            by_name.setdefault(str(result["evaluation_name"]), k)
    if library not in INSPECT:
        return {k: key for key, k in by_name.items()}
    scorers: dict[str, int] = {}
    for dataset, _ in by_pair:
        scorers[dataset] = scorers.get(dataset, 0) + 1
    return {k: dataset if scorers[dataset] == 1 else f"{dataset}/{scorer}" for (dataset, scorer), k in by_pair.items()}


def _joins(record: dict) -> tuple[dict[str, int], dict[str, int]]:
    """Result index by ``evaluation_result_id`` and (the first) by ``evaluation_name``."""
    by_id: dict[str, int]
    by_name: dict[str, int]
    by_id, by_name = {}, {}
    for k, result in enumerate(record["evaluation_results"]):
        if result.get("evaluation_result_id"):
            by_id.setdefault(str(result["evaluation_result_id"]), k)
        by_name.setdefault(str(result["evaluation_name"]), k)
    return by_id, by_name


def check_samples(record: dict, body: bytes, where: str) -> None:
    """The samples file is the one the aggregate names: its hash and its row count."""
    detail = record["detailed_evaluation_results"]
    algorithm, expected = detail.get("hash_algorithm"), detail.get("checksum")
    if expected:
        got = hashlib.new(algorithm or "sha256", body).hexdigest()
        if got.lower() != str(expected).lower():
            raise InputError(
                where,
                f"its {algorithm or 'sha256'} is {got}, not the checksum its aggregate record gives",
                field="detailed_evaluation_results.checksum",
                value=expected,
            )
    rows = sum(1 for line in body.splitlines() if line.strip())
    if detail.get("total_rows") is not None and rows != detail["total_rows"]:
        raise InputError(
            where,
            f"holds {rows} rows, not the total_rows its aggregate record gives",
            field="detailed_evaluation_results.total_rows",
            value=detail["total_rows"],
        )


def instance_rows(record: dict, lines: Iterable[bytes], where: str) -> tuple[list[tuple], list[str]]:
    """The per-line rows (benchmark, model, item_id, value, date, chance) of a record's samples file, and
    notes; ``chance`` is one over the number of the line's ``input.choices``, None without them."""
    chosen = chosen_results(record)
    by_id, by_name = _joins(record)
    results = record["evaluation_results"]
    scales = {k: _scale(results[k]) for k in chosen}
    model, date = str(record["model_info"]["id"]), _date(record)
    rows, unbounded = [], set()
    for number, sample in json_lines(lines, where):
        validate_eee_record(sample, "instance", where, row=number)
        if sample["evaluation_id"] != record["evaluation_id"]:
            raise InputError(
                where,
                "a line of another run than its aggregate record's evaluation_id",
                row=number,
                field="evaluation_id",
                value=sample["evaluation_id"],
            )
        rid = sample.get("evaluation_result_id")
        k = by_id.get(str(rid)) if rid is not None else by_name.get(str(sample["evaluation_name"]))
        if k is None:
            field, value = (
                ("evaluation_result_id", rid) if rid is not None else ("evaluation_name", sample["evaluation_name"])
            )
            raise InputError(where, "names no result of its aggregate record", row=number, field=field, value=value)
        if k not in chosen:
            continue
        if scales[k] is None:
            unbounded.add(chosen[k])
            continue
        value = _proportion(float(sample["evaluation"]["score"]), scales[k], where, number, "evaluation.score")
        choices = sample["input"].get("choices")
        chance = chance_of(len(choices)) if isinstance(choices, list) else None
        rows.append((chosen[k], model, str(sample["sample_id"]), value, date, chance))
    notes = [f"{where}: {name} is not a bounded score (min_score/max_score); not read" for name in sorted(unbounded)]
    return rows, notes


def aggregate_rows(record: dict, where: str) -> tuple[list[tuple], list[str]]:
    """Board rows (benchmark, model, score, n_items, date) of a record without instance-level data."""
    rows, notes = [], []
    model, date = str(record["model_info"]["id"]), _date(record)
    for k, name in chosen_results(record).items():
        result = record["evaluation_results"][k]
        scale = _scale(result)
        details = result["score_details"]
        size = (details.get("uncertainty") or {}).get("num_samples") or result["source_data"].get("samples_number")
        if scale is None:
            notes.append(f"{where}: {name} is not a bounded score (min_score/max_score); not read")
            continue
        if not isinstance(size, int) or size < 1:
            notes.append(f"{where}: {name} gives no test-set size (num_samples, samples_number); not read")
            continue
        score = _proportion(float(details["score"]), scale, where, None, f"evaluation_results[{k}].score_details.score")
        rows.append((name, model, repr(score), str(size), date))
    return rows, notes


def read_record(path: Path) -> dict:
    """One aggregate record from a file, validated."""
    try:
        record = json.loads(path.read_bytes())
    except ValueError as exc:
        raise InputError(str(path), f"not a readable Every Eval Ever record: {exc}") from None
    validate_eee_record(record, "aggregate", str(path))
    return record


def samples_path(record: dict, aggregate: Path) -> Path:
    """Where a local record's samples file lies: beside it, under the name its aggregate gives."""
    name = PurePosixPath(record["detailed_evaluation_results"]["file_path"]).name
    path = aggregate.parent / name
    if not path.is_file():
        raise InputError(
            str(aggregate),
            "its samples file is not beside it",
            field="detailed_evaluation_results.file_path",
            value=name,
        )
    return path


def record_files(path: Path) -> list[Path]:
    """The aggregate records a path names: the file, or every ``<uuid>.json`` under a folder (sorted)."""
    if path.is_dir():
        return sorted(p for p in path.rglob("*.json") if is_record_path(p))
    return [path]


def is_eee_input(path: Path) -> bool:
    """A path ``audit`` should read as Every Eval Ever records."""
    return bool(record_files(path)) if path.is_dir() else is_record_path(path)


def table_from_records(
    parts: list[tuple[list[tuple], list[tuple], list[str]]], name: str, location: str
) -> SourceTable:
    """Per-line rows, board rows and notes of many records as one source table."""
    import pandas as pd

    from benchwatch.sources.inspect_logs import table_from_epochs

    lines = [r for rows, _, _ in parts for r in rows]
    boards = [r for _, rows, _ in parts for r in rows]
    notes = tuple(n for _, _, ns in parts for n in ns)
    if not lines and not boards:
        raise InputError(location, "no Every Eval Ever result could be read: " + "; ".join(notes[:3]))
    if lines:
        table = table_from_epochs(lines, name, location, notes=notes, chance_from=CHANCE_FROM)
    else:
        from benchwatch.sources.table import empty_long

        table = SourceTable(name=name, location=location, frame=empty_long(), notes=notes)
    if boards:
        frame = pd.DataFrame(boards, columns=AGGREGATE_COLUMNS).drop_duplicates()
        from dataclasses import replace

        table = replace(table, aggregates=frame)
    return table


def read_eee(path: str | Path) -> SourceTable:
    """Every aggregate record at ``path`` (one ``<uuid>.json``, or a folder such as the datastore's
    ``data/<collection>/<developer>/<model>/``) with its samples file where it has one, as one table."""
    path = Path(path)
    files = record_files(path)
    if not files:
        raise InputError(str(path), "no Every Eval Ever records (<uuid>.json) in this folder")
    parts: list[tuple[list[tuple], list[tuple], list[str]]] = []
    for file in files:
        record = read_record(file)
        if record.get("detailed_evaluation_results"):
            samples = samples_path(record, file)
            body = samples.read_bytes()
            check_samples(record, body, str(samples))
            rows, notes = instance_rows(record, body.splitlines(), str(samples))
            parts.append((rows, [], notes))
        else:
            boards, notes = aggregate_rows(record, str(file))
            parts.append(([], boards, notes))
    return table_from_records(parts, path.name, str(path))
