"""benchwatch: audits of public AI benchmarks (difficulty coverage and saturation), over time.

The Python API (``benchwatch.api``; the command line is a thin layer over it):

- ``audit(frame, *, source="python", method="map", thresholds=None, ...)``: audit the one benchmark of a DataFrame
  of per-item scores (columns benchmark, model, item_id, score; date, trials and chance optional) and return an
  ``AuditResult``: ``.record`` (the typed ``BenchmarkRecord``, read by attribute; ``.as_dict()`` as
  ``benchwatch audit --json`` prints it), ``.verdicts``, ``.flags``, ``.items``, ``.models``,
  ``.by_date``. A frame of several benchmarks is an ``InputError``;
  ``audit_each(frame)`` returns one result per benchmark, by name.
- ``run(config="benchwatch.toml", **options)``: the whole job, as ``benchwatch run`` does it.
- ``InputError``: bad input, naming the source, the line, the column and the value; ``Target``: a difficulty
  distribution to cover; ``Thresholds``: the flags' thresholds.
- Figures of your own arrays: ``coverage``, ``ddm``, ``max_gap``, ``top_k_gap_sum`` (of item difficulties on z),
  ``saturation``, ``saturation_index`` (of model scores).

The package is a pipeline of stages, each a subpackage with its own public API:
sources -> store -> irt -> metrics -> rules/alerts -> history -> site, run in order by ``pipeline``.
The names above are imported on first use, so that ``import benchwatch`` and ``benchwatch --help`` do not load
the numerical stack.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

__version__ = "0.1.0"

_HOMES = {
    "AuditResult": "benchwatch.api",
    "BenchmarkRecord": "benchwatch.record",
    "InputError": "benchwatch.errors",
    "Target": "benchwatch.metrics",
    "Thresholds": "benchwatch.rules",
    "audit": "benchwatch.api",
    "audit_each": "benchwatch.api",
    "coverage": "benchwatch.metrics",
    "ddm": "benchwatch.metrics",
    "max_gap": "benchwatch.metrics",
    "run": "benchwatch.api",
    "saturation": "benchwatch.metrics",
    "saturation_index": "benchwatch.metrics",
    "top_k_gap_sum": "benchwatch.metrics",
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
    from benchwatch.errors import InputError as InputError
    from benchwatch.metrics import Target as Target
    from benchwatch.metrics import coverage as coverage
    from benchwatch.metrics import ddm as ddm
    from benchwatch.metrics import max_gap as max_gap
    from benchwatch.metrics import saturation as saturation
    from benchwatch.metrics import saturation_index as saturation_index
    from benchwatch.metrics import top_k_gap_sum as top_k_gap_sum
    from benchwatch.record import BenchmarkRecord as BenchmarkRecord
    from benchwatch.rules import Thresholds as Thresholds
