"""The job that runs the stages in order, and the per-benchmark audit it repeats."""

from typing import TYPE_CHECKING

from benchwatch.lazy import exports

__all__ = exports(
    __name__,
    {
        ".audit": ("BenchmarkAudit", "audit_benchmark", "measure", "tiers_of", "tiers_of_board"),
        ".audit_record": ("benchmark_record",),
        ".files": ("audit_responses", "coverage_only"),
        ".job": ("BusyError", "JobResult", "merge_parts", "run_job"),
        ".repeat": ("repeat_audit",),
        ".schedule": ("DEFAULT_CRON", "JOB_OPTIONS", "add_job", "run_schedule"),
    },
)

if TYPE_CHECKING:  # the names as mypy sees them; at run time each is imported on first use
    from benchwatch.pipeline.audit import BenchmarkAudit as BenchmarkAudit
    from benchwatch.pipeline.audit import audit_benchmark as audit_benchmark
    from benchwatch.pipeline.audit import measure as measure
    from benchwatch.pipeline.audit import tiers_of as tiers_of
    from benchwatch.pipeline.audit import tiers_of_board as tiers_of_board
    from benchwatch.pipeline.audit_record import benchmark_record as benchmark_record
    from benchwatch.pipeline.files import audit_responses as audit_responses
    from benchwatch.pipeline.files import coverage_only as coverage_only
    from benchwatch.pipeline.job import BusyError as BusyError
    from benchwatch.pipeline.job import JobResult as JobResult
    from benchwatch.pipeline.job import merge_parts as merge_parts
    from benchwatch.pipeline.job import run_job as run_job
    from benchwatch.pipeline.repeat import repeat_audit as repeat_audit
    from benchwatch.pipeline.schedule import DEFAULT_CRON as DEFAULT_CRON
    from benchwatch.pipeline.schedule import JOB_OPTIONS as JOB_OPTIONS
    from benchwatch.pipeline.schedule import add_job as add_job
    from benchwatch.pipeline.schedule import run_schedule as run_schedule
