"""The job that runs the stages in order, and the per-benchmark audit it repeats."""

from bot.pipeline.audit import BenchmarkAudit, audit_benchmark, measure
from bot.pipeline.files import audit_responses, coverage_only, is_difficulty_file, leaderboard_saturation
from bot.pipeline.job import BusyError, JobResult, merge_parts, run_job
from bot.pipeline.schedule import DEFAULT_CRON, JOB_OPTIONS, add_job, run_schedule

__all__ = [
    "DEFAULT_CRON",
    "JOB_OPTIONS",
    "BenchmarkAudit",
    "BusyError",
    "JobResult",
    "add_job",
    "audit_benchmark",
    "audit_responses",
    "coverage_only",
    "is_difficulty_file",
    "leaderboard_saturation",
    "measure",
    "merge_parts",
    "run_job",
    "run_schedule",
]
