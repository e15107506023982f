"""A proposed revision: the candidates a ``fill check`` placed, kept beside the reports (never in the benchmark's
history) so that the next site build can show "after fill" next to the current figures."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from benchwatch.fill.benchmark import Benchmark
from benchwatch.fill.check_result import CheckResult
from benchwatch.history import Reports, to_json
from benchwatch.store import atomic_write_text


def record_proposal(reports_dir: str | Path, bench: Benchmark, result: CheckResult, responses: pd.DataFrame) -> Path:
    """Write ``reports/proposals/<slug>.json``: every candidate checked (where it lands, its calibration and
    responses: the figures after are those of the benchmark with all of them), the figures and bounds before (as
    published) and after, and the revision of the data they were checked against."""
    reports = Reports(Path(reports_dir))
    checked = {c["item_id"] for c in result.candidates}
    body = {
        "benchmark": result.benchmark,
        "revision": bench.record.revision,
        "checked_at": bench.record.snapshot_at,
        "pool": result.pool,
        "candidates": result.candidates,
        "before": result.before,
        "after": result.after,
        "bounds_before": result.bounds_before,
        "bounds_after": result.bounds_after,
        "responses": responses[responses["item_id"].isin(checked)]
        .astype({"score": float})
        .sort_values(["item_id", "model"])[["model", "item_id", "score"]]
        .to_dict("records"),
    }
    path = reports.proposal(result.benchmark)
    atomic_write_text(path, to_json({"proposal": body}))
    return path
