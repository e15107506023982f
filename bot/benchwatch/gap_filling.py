"""Closing a benchmark's gaps from its reports, as ``benchwatch fill`` does it: the plan of the stretches to fill
(``fill_plan``), candidate items placed on the benchmark's axis (``fill_check``), and candidates asked of a model
(``fill_generate``).

Only the standard library loads with this module; the stages load when a function runs.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchwatch import fill, pipeline, sources, store
from benchwatch.errors import InputError
from benchwatch.record import BenchmarkRecord, as_record

if TYPE_CHECKING:
    from benchwatch.fill import CheckResult

__all__ = ["CandidateCheck", "FillPlan", "fill_check", "fill_generate", "fill_plan"]


@dataclass(frozen=True)
class FillPlan:
    """``fill_plan``'s answer: the benchmark's typed ``record`` (its verdicts, or why its bounds are withheld), and
    one entry per ``stretch`` to fill: lo, hi, width, verdict and why; target_z and target_b; the seeds below and
    above; each model's solve probability at the target, most likely first."""

    benchmark: str
    record: BenchmarkRecord
    stretches: list[dict[str, Any]]


@dataclass(frozen=True)
class CandidateCheck:
    """``fill_check``'s answer: ``found``, the candidates' places and the benchmark's bounds and figures before and
    after adding them all (a ``benchwatch.fill.CheckResult``: ``benchwatch fill check --json`` prints it), and the
    ``proposal`` file where they were recorded as a proposed revision (None unless asked)."""

    found: CheckResult
    proposal: Path | None = None


def fill_plan(benchmark: str, *, reports: str | Path = "reports") -> FillPlan:
    """The stretches of ``benchmark``'s difficulty axis to fill, from its last audit in the folder ``reports``, as
    ``benchwatch fill plan`` gives them: each one found thin, or that may be empty where the verdict is "cannot
    tell", with its target and seeds. An unknown benchmark, or a board of scores alone, is an ``InputError``."""
    bench = fill.load_benchmark(reports, benchmark)
    return FillPlan(benchmark, as_record(bench.record), fill.fill_plan(bench))


def fill_check(
    benchmark: str, candidates: str | Path, *, reports: str | Path = "reports", record: bool = False
) -> CandidateCheck:
    """Place the candidate items of ``candidates`` (a CSV of model, item_id, score, trials optional, answered by
    models of the benchmark's pool) on ``benchmark``'s axis, as ``benchwatch fill check`` does: where each lands,
    how many each stretch should expect, and the bounds and figures with them all added (the audit's own
    computation, repeated). ``record``: kept as a proposed revision in the reports' proposals/. A bad file, or
    candidates no model of the pool answered, is an ``InputError``."""
    bench = fill.load_benchmark(reports, benchmark)
    table = sources.fetch_csv_file(candidates)
    rows = store.validate_responses(table.frame, table.location)
    try:
        found = fill.check_candidates(bench, rows, repeat=pipeline.repeat_audit)
    except ValueError as exc:
        raise InputError(str(candidates), str(exc)) from None
    return CandidateCheck(found, fill.record_proposal(reports, bench, found, rows) if record else None)


def fill_generate(
    benchmark: str,
    items: str | Path,
    *,
    model: str,
    endpoint: str | None = None,
    api_key: str | None = None,
    per_gap: int = 3,
    out: str | Path = "candidates.jsonl",
    reports: str | Path = "reports",
    progress: bool = False,
) -> list[dict[str, Any]]:
    """Ask ``model`` at an OpenAI-compatible ``endpoint`` (default: $BENCHWATCH_ENDPOINT, else $OPENAI_BASE_URL)
    for ``per_gap`` candidate items per stretch of ``benchmark``'s fill plan, as ``benchwatch fill generate``
    does, each prompted with the benchmark's own items nearest the target (``items``: a JSONL file of item_id, or
    id, and text, or question, input, prompt). The candidates are written to ``out`` (JSON lines) and returned.
    ``progress``: each request shown. No endpoint, a bad items file or an endpoint that fails is an ``InputError``.
    """
    bench = fill.load_benchmark(reports, benchmark)
    endpoint = endpoint or os.environ.get("BENCHWATCH_ENDPOINT") or os.environ.get("OPENAI_BASE_URL")
    if not endpoint:
        raise InputError("--endpoint", "no endpoint: pass --endpoint URL or set BENCHWATCH_ENDPOINT")
    texts = _texts(items)
    log: Callable[[str], None] = print if progress else _unsaid
    try:
        made = fill.generate_candidates(
            fill.fill_plan(bench), texts, endpoint=endpoint, model=model, api_key=api_key, per_gap=per_gap, log=log
        )
    except RuntimeError as exc:
        raise InputError("--endpoint", str(exc)) from None
    store.atomic_write_text(out, "".join(json.dumps(c, sort_keys=True) + "\n" for c in made))
    return made


def _texts(path: str | Path) -> dict[str, str]:
    """item_id -> text from a JSONL file (``item_id`` or ``id``; ``text``, ``question``, ``input`` or ``prompt``)."""
    out = {}
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise InputError(str(path), "no such file") from None
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError as exc:
            raise InputError(str(path), f"not JSON: {exc}", row=number) from None
        key = obj.get("item_id", obj.get("id")) if isinstance(obj, dict) else None
        text = next((obj[k] for k in ("text", "question", "input", "prompt") if isinstance(obj.get(k), str)), None)
        if key is None or text is None:
            raise InputError(str(path), "expected item_id (or id) and text (or question, input, prompt)", row=number)
        out[str(key)] = text
    return out


def _unsaid(line: str) -> None:
    """A generator's log when no progress is asked for."""
