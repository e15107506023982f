"""benchwatch: audits of public AI benchmarks (difficulty coverage and saturation), over time.

The package is a pipeline of stages, each a subpackage with its own public API:
sources -> store -> irt -> metrics -> rules/alerts -> history -> site, run in order by ``pipeline``.
"""

from bot.errors import InputError
from bot.irt import difficulty_z, encode_responses, fit_map
from bot.metrics import Target, coverage, ddm, max_gap, saturation, saturation_index, top_k_gap_sum
from bot.pipeline import audit_benchmark, run_job
from bot.site import build_site
from bot.store import validate_responses

__version__ = "0.1.0"

__all__ = [
    "InputError",
    "Target",
    "__version__",
    "audit_benchmark",
    "build_site",
    "coverage",
    "ddm",
    "difficulty_z",
    "encode_responses",
    "fit_map",
    "max_gap",
    "run_job",
    "saturation",
    "saturation_index",
    "top_k_gap_sum",
    "validate_responses",
]
