"""benchwatch: audits of public AI benchmarks (difficulty coverage and saturation), over time.

The package is a pipeline of stages, each a subpackage with its own public API:
sources -> store -> irt -> metrics -> rules/alerts -> history -> site, run in order by ``pipeline``.
The names below are imported on first use, so that ``benchwatch --help`` does not load the numerical stack.
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

_HOMES = {
    "InputError": "benchwatch.errors",
    "Target": "benchwatch.metrics",
    "audit_benchmark": "benchwatch.pipeline",
    "build_site": "benchwatch.site",
    "coverage": "benchwatch.metrics",
    "ddm": "benchwatch.metrics",
    "difficulty_z": "benchwatch.irt",
    "encode_responses": "benchwatch.irt",
    "fit_map": "benchwatch.irt",
    "max_gap": "benchwatch.metrics",
    "run_job": "benchwatch.pipeline",
    "saturation": "benchwatch.metrics",
    "saturation_index": "benchwatch.metrics",
    "top_k_gap_sum": "benchwatch.metrics",
    "validate_responses": "benchwatch.store",
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
