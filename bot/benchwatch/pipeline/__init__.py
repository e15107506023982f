"""The job that runs the stages in order, and the per-benchmark audit it repeats."""

from benchwatch.lazy import exports

__all__ = exports(
    __name__,
    {
        ".audit": ("BenchmarkAudit", "audit_benchmark", "measure", "tiers_of", "tiers_of_board"),
        ".files": ("audit_responses", "coverage_only", "leaderboard_saturation"),
        ".job": ("BusyError", "JobResult", "merge_parts", "run_job"),
        ".repeat": ("BOUND_KEYS", "repeat_audit"),
        ".schedule": ("DEFAULT_CRON", "JOB_OPTIONS", "add_job", "run_schedule"),
    },
)
