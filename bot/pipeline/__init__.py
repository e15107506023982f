"""The job that runs the stages in order, and the per-benchmark audit it repeats."""

from bot.pipeline.audit import BenchmarkAudit, audit_benchmark, measure
from bot.pipeline.files import audit_responses, coverage_only, is_difficulty_file, leaderboard_saturation
from bot.pipeline.job import JobResult, run_job

__all__ = [
    "BenchmarkAudit",
    "JobResult",
    "audit_benchmark",
    "audit_responses",
    "coverage_only",
    "is_difficulty_file",
    "leaderboard_saturation",
    "measure",
    "run_job",
]
