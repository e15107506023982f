"""benchwatch: audits of public AI benchmarks (difficulty coverage and saturation), over time.

The Python API (the command line is a thin layer over it: each command calls one of these functions and prints
what it returns; each lives in ``benchwatch.api`` unless its module is named):

- ``audit(frame, *, source="python", method="map", thresholds=None, ...)``: audit the one benchmark of a DataFrame
  of per-item scores (columns benchmark, model, item_id, score; date, trials and chance optional) and return an
  ``AuditResult``: ``.record`` (the typed ``BenchmarkRecord``, read by attribute; ``.as_dict()`` as
  ``benchwatch audit --json`` prints it), ``.verdicts``, ``.flags``, ``.items``, ``.models``,
  ``.by_date``. A frame of several benchmarks is an ``InputError``;
  ``audit_each(frame)`` returns one result per benchmark, by name; ``audit_file(path, ...)``
  (``benchwatch.file_audit``) one per benchmark of a file, as ``benchwatch audit`` reads and audits it.
- ``run(config="benchwatch.toml", **options)``: the whole job, as ``benchwatch run`` does it;
  ``merge(parts, ...)``, a fan-out's parts merged into the reports, and ``schedule(cron=..., **options)``, the job
  on a schedule (``benchwatch.jobs``).
- The reports folder (``benchwatch.upkeep``): ``check(reports)``, its problems (a ``ReportsCheck``), and
  ``repair(reports)``, what can be rebuilt rebuilt (a ``Repair``).
- Your own results: ``tiers(path)``, who can be told apart (each benchmark's ``Tiers``), and
  ``leaderboard_saturation(path)``, a typed record per leaderboard of published scores (``benchwatch.standings``);
  ``calibrate(path, abilities=... or difficulties=...)``, new items or new models against what is known (a
  ``Calibration``, ``benchwatch.calibration``).
- A benchmark's gaps (``benchwatch.gap_filling``): ``fill_plan(benchmark)``, the stretches to fill (a
  ``FillPlan``); ``fill_check(benchmark, candidates)``, candidates placed on its axis (a ``CandidateCheck``);
  ``fill_generate(benchmark, items, model=...)``, candidates asked of a model.
- ``InputError``: bad input, naming the source, the line, the column and the value; ``Target``: a difficulty
  distribution to cover; ``Thresholds``: the flags' thresholds.
- Figures of your own arrays: ``coverage``, ``ddm``, ``max_gap``, ``top_k_gap_sum`` (of item difficulties on z),
  ``saturation``, ``saturation_index`` (of model scores).
- A record in words, as the commands and the pages say it (``benchwatch.rules``): ``verdicts(record, thresholds)``,
  per coverage figure "found", "cannot tell" or "clear" with its level; ``verdict_line(figure, verdict)``, one of
  them in a line; ``resolve_line(figure, need)``, what more data would decide a "cannot tell"; ``bound_text(value)``,
  a bound; ``state_evidence(record)``, what decided its state (``benchwatch.metrics``); and ``rounded(value)``, the
  floats of a value rounded as the reports' files round them (``benchwatch.history``).

The package is a pipeline of stages, each a subpackage with its own public API, none importing a later one:
sources -> store -> irt -> metrics -> rules/alerts -> history -> fill -> site. ``pipeline`` runs them in order (the
site's build handed to it by its caller).
The names above are imported on first use, so that ``import benchwatch`` and ``benchwatch --help`` do not load
the numerical stack.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from benchwatch.version import __version__

_HOMES = {
    "AuditResult": "benchwatch.api",
    "BenchmarkRecord": "benchwatch.record",
    "InputError": "benchwatch.errors",
    "Target": "benchwatch.metrics",
    "Thresholds": "benchwatch.rules",
    "audit": "benchwatch.api",
    "audit_each": "benchwatch.api",
    "audit_file": "benchwatch.file_audit",
    "bound_text": "benchwatch.rules",
    "calibrate": "benchwatch.calibration",
    "check": "benchwatch.upkeep",
    "coverage": "benchwatch.metrics",
    "ddm": "benchwatch.metrics",
    "fill_check": "benchwatch.gap_filling",
    "fill_generate": "benchwatch.gap_filling",
    "fill_plan": "benchwatch.gap_filling",
    "leaderboard_saturation": "benchwatch.standings",
    "max_gap": "benchwatch.metrics",
    "merge": "benchwatch.jobs",
    "repair": "benchwatch.upkeep",
    "resolve_line": "benchwatch.rules",
    "rounded": "benchwatch.history",
    "run": "benchwatch.api",
    "saturation": "benchwatch.metrics",
    "saturation_index": "benchwatch.metrics",
    "schedule": "benchwatch.jobs",
    "state_evidence": "benchwatch.metrics",
    "tiers": "benchwatch.standings",
    "top_k_gap_sum": "benchwatch.metrics",
    "verdict_line": "benchwatch.rules",
    "verdicts": "benchwatch.rules",
}

__all__ = ["__version__", *sorted(_HOMES)]


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'benchwatch' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})


if TYPE_CHECKING:  # the names as mypy sees them; at run time each is imported on first use
    from benchwatch.api import AuditResult as AuditResult
    from benchwatch.api import audit as audit
    from benchwatch.api import audit_each as audit_each
    from benchwatch.api import run as run
    from benchwatch.calibration import calibrate as calibrate
    from benchwatch.errors import InputError as InputError
    from benchwatch.file_audit import audit_file as audit_file
    from benchwatch.gap_filling import fill_check as fill_check
    from benchwatch.gap_filling import fill_generate as fill_generate
    from benchwatch.gap_filling import fill_plan as fill_plan
    from benchwatch.history import rounded as rounded
    from benchwatch.jobs import merge as merge
    from benchwatch.jobs import schedule as schedule
    from benchwatch.metrics import Target as Target
    from benchwatch.metrics import coverage as coverage
    from benchwatch.metrics import ddm as ddm
    from benchwatch.metrics import max_gap as max_gap
    from benchwatch.metrics import saturation as saturation
    from benchwatch.metrics import saturation_index as saturation_index
    from benchwatch.metrics import state_evidence as state_evidence
    from benchwatch.metrics import top_k_gap_sum as top_k_gap_sum
    from benchwatch.record import BenchmarkRecord as BenchmarkRecord
    from benchwatch.rules import Thresholds as Thresholds
    from benchwatch.rules import bound_text as bound_text
    from benchwatch.rules import resolve_line as resolve_line
    from benchwatch.rules import verdict_line as verdict_line
    from benchwatch.rules import verdicts as verdicts
    from benchwatch.standings import leaderboard_saturation as leaderboard_saturation
    from benchwatch.standings import tiers as tiers
    from benchwatch.upkeep import check as check
    from benchwatch.upkeep import repair as repair
