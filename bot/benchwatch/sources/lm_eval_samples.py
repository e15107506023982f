"""lm-evaluation-harness ``--log_samples`` output: ``samples_<task>_<date>.jsonl`` with ``results_<date>.json``.

Checked against the files that lm-evaluation-harness 0.4.13's own ``EvaluationTracker`` writes
(``tests/sources/test_lm_eval_samples.py`` runs the harness offline on a local task): in one folder per
model, ``results_<date_id>.json`` (``model_name``, ``date`` as a Unix time, ``configs.<task>.metric_list``
and ``filter_list``) and, from the same run, ``samples_<task>_<date_id>.jsonl``, one JSON object a line
per document and filter: ``doc_id``, ``filter``, ``metrics`` (the names) and each metric's value.

The score of a document is the task's primary metric (the first of its ``metric_list``) under its first
filter (``none`` when it has none); it must be a number in [0, 1] (accuracy, exact match, ...): a metric
such as perplexity or BLEU, logged per document as something else, is an error naming it. The benchmark is
the task's name, the model the results file's ``model_name`` (else the ``pretrained=`` of its model
arguments), the date that of the run. Nothing of the harness is imported to read these files.

Chance floors: a ``multiple_choice`` task (the task's ``output_type`` in the results file's ``configs``) asks
the model one loglikelihood request per choice, and the harness logs each document's requests as its
``arguments`` (``evaluator.py``: ``[req.args for req in requests]``, which ``EvaluationTracker`` writes as
``{"gen_args_<i>": {"arg_0": context, "arg_1": continuation}}``): the floor is one over their number. When the
task's metrics include ``acc_mutual_info`` the harness appends one unconditional request per choice
(``api/task.py``: ``construct_requests``), so the choices are half the requests. Tasks of any other output type
(``generate_until``, ``loglikelihood``, ...) give none, and so does a document with fewer than two choices.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

from benchwatch.errors import InputError
from benchwatch.sources.inspect_logs import table_from_epochs
from benchwatch.sources.table import SourceTable, chance_of

CHANCE_FROM = "each sample's number of choices (lm-evaluation-harness's arguments)"
SAMPLES = re.compile(r"samples_(?P<task>.+)_(?P<date_id>\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d+)?)\.jsonl")


def is_samples_file(path: Path) -> bool:
    return SAMPLES.fullmatch(path.name) is not None


def _results(samples: Path, date_id: str) -> dict:
    path = samples.parent / f"results_{date_id}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(
            str(samples), f"no {path.name} beside it (the model's name and the date come from it)"
        ) from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(str(path), f"not a readable results file: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("configs"), dict):
        raise InputError(str(path), "not an lm-evaluation-harness results file", field="configs")
    return data


def _model(results: dict, where: str) -> str:
    name = results.get("model_name")
    if isinstance(name, str) and name:
        return name
    args = (results.get("config") or {}).get("model_args")
    found = re.search(r"(?:^|,)\s*(?:pretrained|model|path|engine)=([^,]+)", args) if isinstance(args, str) else None
    if found:
        return found.group(1).strip()
    raise InputError(where, "no model name (model_name, or pretrained= in config.model_args)", field="model_name")


def _primary(config: dict, task: str, where: str) -> tuple[str, str]:
    metrics = config.get("metric_list")
    if not isinstance(metrics, list) or not metrics or not isinstance(metrics[0], dict) or "metric" not in metrics[0]:
        raise InputError(where, "the task has no metric_list", field=f"configs.{task}.metric_list")
    filters = config.get("filter_list")
    first = filters[0].get("name") if isinstance(filters, list) and filters and isinstance(filters[0], dict) else None
    return str(metrics[0]["metric"]), str(first or "none")


def _choices(config: dict) -> int | None:
    """How many logged requests a multiple-choice task makes per choice (1, or 2 with ``acc_mutual_info``);
    None for a task of another output type."""
    if config.get("output_type") != "multiple_choice":
        return None
    metrics = config.get("metric_list")
    names = [m.get("metric") for m in metrics if isinstance(m, dict)] if isinstance(metrics, list) else []
    return 2 if "acc_mutual_info" in names else 1


def _chance(doc: dict, per_choice: int | None) -> float | None:
    """One over the number of choices a document's logged ``arguments`` hold (None when not multiple choice)."""
    requests = doc.get("arguments")
    if per_choice is None or not isinstance(requests, dict | list) or len(requests) % per_choice:
        return None
    return chance_of(len(requests) // per_choice)


def sample_rows(path: Path, item_field: str | None = None) -> list[tuple]:
    """The rows (benchmark, model, item_id, value, date, chance) of one samples file; the item is the
    document's ``doc_id`` (its index in the task's split), or with ``item_field`` that field of the logged
    document (a dataset's own question id); ``chance`` is one over its number of choices for a multiple-choice
    task, else None."""
    found = SAMPLES.fullmatch(path.name)
    if found is None:
        raise InputError(str(path), "not an lm-evaluation-harness samples file (samples_<task>_<date>.jsonl)")
    task, date_id = found.group("task"), found.group("date_id")
    results = _results(path, date_id)
    config = results["configs"].get(task)
    if not isinstance(config, dict):
        raise InputError(str(path), f"its results_{date_id}.json has no configuration for the task", value=task)
    metric, kept = _primary(config, task, str(path))
    per_choice = _choices(config)
    model = _model(results, str(path.parent / f"results_{date_id}.json"))
    stamp = results.get("date")
    date = datetime.fromtimestamp(float(stamp), UTC).strftime("%Y-%m-%d") if isinstance(stamp, int | float) else ""
    rows = []
    with path.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                doc = json.loads(line)
            except ValueError as exc:
                raise InputError(str(path), f"not JSON: {exc}", row=number) from None
            if doc.get("filter", "none") != kept:
                continue
            value = doc.get(metric)
            if isinstance(value, bool):
                value = float(value)
            if not isinstance(value, int | float) or not 0.0 <= value <= 1.0:
                raise InputError(
                    str(path),
                    f"the primary metric {metric!r} is not a score in [0, 1] for each document",
                    row=number,
                    field=metric,
                    value=value,
                )
            item = doc.get("doc_id")
            if item_field is not None:
                item = (doc.get("doc") or {}).get(item_field) if isinstance(doc.get("doc"), dict) else None
                if item is None or isinstance(item, dict | list):
                    raise InputError(
                        str(path), "a logged document without its id", row=number, field=f"doc.{item_field}"
                    )
            rows.append((task, model, str(item), float(value), date, _chance(doc, per_choice)))
    if not rows:
        raise InputError(str(path), f"no document scored under the filter {kept!r}")
    return rows


def read_lm_eval_samples(path: str | Path) -> SourceTable:
    """Every samples file at ``path`` (one file, or a folder searched recursively) as one long table."""
    path = Path(path)
    files = sorted(p for p in path.rglob("samples_*.jsonl") if is_samples_file(p)) if path.is_dir() else [path]
    if not files:
        raise InputError(str(path), "no lm-evaluation-harness samples files (samples_<task>_<date>.jsonl) here")
    rows = [row for file in files for row in sample_rows(file)]
    return table_from_epochs(rows, path.name, str(path), chance_from=CHANCE_FROM)
