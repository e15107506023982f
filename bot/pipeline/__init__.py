"""The job that runs the stages in order, and the per-benchmark audit it repeats."""

from bot.pipeline.audit import BenchmarkAudit, audit_benchmark
from bot.pipeline.job import JobResult, run_job

__all__ = ["BenchmarkAudit", "JobResult", "audit_benchmark", "run_job"]
