"""Stage 7: closing the gaps (BenchFill, arXiv:2610.29927): a fill plan for each gap above the resolution
floor, candidate items calibrated onto a benchmark's scale, an optional generator of candidates."""

from typing import TYPE_CHECKING

from benchwatch.lazy import exports

__all__ = exports(
    __name__,
    {
        ".plan": ("fill_plan", "target_of"),
        ".check": ("CHECK_DRAWS", "check_candidates", "place"),
        ".check_result": ("CheckResult",),
        ".generate": ("generate_candidates",),
        ".benchmark": ("Benchmark", "load_benchmark"),
        ".proposal": ("record_proposal",),
    },
)

if TYPE_CHECKING:  # the names as mypy sees them; at run time each is imported on first use
    from benchwatch.fill.benchmark import Benchmark as Benchmark
    from benchwatch.fill.benchmark import load_benchmark as load_benchmark
    from benchwatch.fill.check import CHECK_DRAWS as CHECK_DRAWS
    from benchwatch.fill.check import check_candidates as check_candidates
    from benchwatch.fill.check import place as place
    from benchwatch.fill.check_result import CheckResult as CheckResult
    from benchwatch.fill.generate import generate_candidates as generate_candidates
    from benchwatch.fill.plan import fill_plan as fill_plan
    from benchwatch.fill.plan import target_of as target_of
    from benchwatch.fill.proposal import record_proposal as record_proposal
