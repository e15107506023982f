"""The long table written out as Every Eval Ever records (schema 0.3.0), in the datastore's layout.

One aggregate record a (benchmark, model), ``data/<benchmark>/<developer>/<model>/<uuid>.json``, with its
instance-level ``<uuid>_samples.jsonl`` beside it (hash, row count and path in the aggregate's
``detailed_evaluation_results``). The developer is the part of the model's name before ``/`` (``unknown``
without one); the three folder names are safe slugs of the names, and the UUID (version 4 in form) is drawn
from a hash of the benchmark and the model, so the same table writes the same bytes. An item scored over
several trials is written as that many lines, each with the item's mean score, as Every Eval Ever's own
Inspect converter writes a sample's epochs: a reader averages them back and counts them as trials. The long
table knows no prompts, answers, references or interaction type: ``input`` and ``output`` are left empty,
``interaction_type`` is ``single_turn`` (the schema has no "not known") and each line's ``metadata`` says so.
Every record and line is validated against the shipped schema before anything is written; writes are atomic.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from datetime import UTC
from pathlib import Path

import pandas as pd

from benchwatch.store.atomic import atomic_write_bytes
from benchwatch.store.naming import safe_slug

UNKNOWN = "not known to a long table"


def _uuid(*parts: str) -> str:
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8")).digest()
    return str(uuid.UUID(bytes=digest[:16], version=4))


def _stamp(dates: pd.Series) -> str:
    known = dates.dropna()
    return str(int(known.max().replace(tzinfo=UTC).timestamp())) if len(known) else ""


def eee_records(rows: pd.DataFrame, *, source: str) -> dict[str, bytes]:
    """The files (path under the output folder -> bytes) of validated long rows (benchmark, model, item_id,
    score, date, trials), validated against the Every Eval Ever schemas."""
    from benchwatch.sources import validate_eee_record

    files: dict[str, bytes] = {}
    for (bench, model), group in rows.groupby(["benchmark", "model"], sort=True):
        developer = model.split("/", 1)[0] if "/" in model else "unknown"
        name = model.split("/", 1)[1] if "/" in model else model
        key = _uuid(bench, model)
        folder = f"data/{safe_slug(bench)}/{safe_slug(developer)}/{safe_slug(name)}"
        stamp = _stamp(group["date"])
        evaluation_id = f"benchwatch/{bench}/{model}"
        group = group.sort_values("item_id", kind="stable")
        samples = f"{folder}/{key}_samples.jsonl"
        lines = _sample_lines(group, bench, model, evaluation_id, samples)
        body = ("\n".join(lines) + "\n").encode("utf-8")
        detail = {
            "format": "jsonl",
            "file_path": samples,
            "hash_algorithm": "sha256",
            "checksum": hashlib.sha256(body).hexdigest(),
            "total_rows": len(lines),
        }
        record = _aggregate(group, bench, model, developer, evaluation_id, stamp, source, detail)
        validate_eee_record(record, "aggregate", f"{folder}/{key}.json")
        files[f"{folder}/{key}.json"] = (
            json.dumps(record, ensure_ascii=False, indent=2, sort_keys=True) + "\n"
        ).encode()
        files[samples] = body
    return files


def _sample_lines(group: pd.DataFrame, bench: str, model: str, evaluation_id: str, path: str) -> list[str]:
    """The instance-level lines of one (benchmark, model), each validated (``path``: the file they go to, for the
    error): one an item, repeated once per trial, each with the item's mean score."""
    from benchwatch.sources import validate_eee_record
    from benchwatch.version import __version__

    trials = group["trials"].fillna(1).astype(int) if "trials" in group else pd.Series(1, index=group.index)
    lines = []
    for item, score, k in zip(group["item_id"], group["score"], trials, strict=True):
        line = {
            "schema_version": "0.3.0",
            "evaluation_id": evaluation_id,
            "model_id": model,
            "evaluation_name": bench,
            "evaluation_result_id": "score",
            "sample_id": str(item),
            "interaction_type": "single_turn",
            "input": {"raw": "", "reference": []},
            "output": {"raw": []},
            "answer_attribution": [],
            "evaluation": {"score": float(score), "is_correct": bool(score == 1.0)},
            "metadata": {"written_by": f"benchwatch {__version__}", "input": UNKNOWN, "interaction_type": UNKNOWN},
        }
        validate_eee_record(line, "instance", path)
        text = json.dumps(line, ensure_ascii=False, allow_nan=False, sort_keys=True)
        lines += [text] * int(k)
    return lines


def _aggregate(
    group: pd.DataFrame,
    bench: str,
    model: str,
    developer: str,
    evaluation_id: str,
    stamp: str,
    source: str,
    detail: dict,
) -> dict:
    """The aggregate record of one (benchmark, model): the source, the model, its mean score over the items and
    ``detail``, where its instance-level lines are (their file, hash and count)."""
    from benchwatch.version import __version__

    return {
        "schema_version": "0.3.0",
        "evaluation_id": evaluation_id,
        "evaluation_timestamp": stamp,
        "retrieved_timestamp": stamp,
        "source_metadata": {
            "source_name": source,
            "source_type": "documentation",
            "source_organization_name": "unknown",
            "evaluator_relationship": "third_party",
            "additional_details": {"written_by": f"benchwatch {__version__}"},
        },
        "eval_library": {"name": "unknown", "version": "unknown"},
        "model_info": {
            "name": model,
            "id": model,
            "developer": developer,
            "additional_details": {"deployment_type": "unknown", "model_availability": "unknown"},
        },
        "evaluation_results": [
            {
                "evaluation_result_id": "score",
                "evaluation_name": bench,
                "source_data": {"dataset_name": bench, "source_type": "other"},
                "metric_config": {
                    "evaluation_description": "the item's score in [0, 1], as benchwatch read it",
                    "lower_is_better": False,
                    "score_type": "continuous",
                    "min_score": 0.0,
                    "max_score": 1.0,
                    "metric_unit": "proportion",
                },
                "score_details": {
                    "score": float(group["score"].mean()),
                    "uncertainty": {"num_samples": len(group)},
                },
            }
        ],
        "detailed_evaluation_results": detail,
    }


def write_eee_records(rows: pd.DataFrame, out: str | Path, *, source: str) -> list[Path]:
    """Write :func:`eee_records` under ``out``; returns the aggregate records' paths."""
    files = eee_records(rows, source=source)  # all validated before the first write
    out = Path(out)
    for name, body in files.items():
        atomic_write_bytes(out / name, body)
    return sorted(out / name for name in files if name.endswith(".json"))
