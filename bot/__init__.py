"""benchwatch: audits of public AI benchmarks (difficulty coverage and saturation), over time.

The package is a pipeline of stages, each a subpackage with its own public API:
sources -> store -> irt -> metrics -> rules/alerts -> history -> site, run in order by ``pipeline``.
The names below are imported on first use, so that ``benchwatch --help`` does not load the numerical stack.
"""

from __future__ import annotations

import importlib

__version__ = "0.1.0"

_HOMES = {
    "InputError": "bot.errors",
    "Target": "bot.metrics",
    "audit_benchmark": "bot.pipeline",
    "build_site": "bot.site",
    "coverage": "bot.metrics",
    "ddm": "bot.metrics",
    "difficulty_z": "bot.irt",
    "encode_responses": "bot.irt",
    "fit_map": "bot.irt",
    "max_gap": "bot.metrics",
    "run_job": "bot.pipeline",
    "saturation": "bot.metrics",
    "saturation_index": "bot.metrics",
    "top_k_gap_sum": "bot.metrics",
    "validate_responses": "bot.store",
}

__all__ = ["__version__", *sorted(_HOMES)]


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'bot' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})
