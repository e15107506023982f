"""Stage 8: closing the gaps (BenchFill, arXiv:2610.29927): a fill plan for each gap above the resolution
floor, candidate items calibrated onto a benchmark's scale, an optional generator of candidates."""

from benchwatch.lazy import exports

__all__ = exports(
    __name__,
    {
        ".plan": ("fill_plan", "target_of"),
        ".check": ("CHECK_DRAWS", "check_candidates", "place"),
        ".generate": ("generate_candidates",),
        ".benchmark": ("Benchmark", "load_benchmark"),
        ".proposal": ("record_proposal",),
    },
)
