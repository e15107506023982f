"""Stage 6: the committed, machine-readable audit history in ``reports/``."""

from benchwatch.lazy import exports

__all__ = exports(
    __name__,
    {
        ".check": ("check_reports", "repair_reports", "schema_problems"),
        ".records": (
            "FILES",
            "SCHEMA_VERSION",
            "Alert",
            "BenchmarkRecord",
            "Change",
            "SourceStatus",
            "documented_fields",
            "field_name",
            "file_schema",
            "schema_of",
        ),
        ".folder": ("Reports", "recover"),
        ".formats": ("csv_text", "rounded", "to_json"),
        ".reports": (
            "HISTORY_COLUMNS",
            "append_changelog",
            "append_history",
            "append_run",
            "load_alerts",
            "load_changelog",
            "load_history",
            "load_latest",
            "load_proposal",
            "load_runs",
            "load_snapshot",
            "load_sources",
            "load_table",
            "page_groups",
            "read_table",
            "write_alerts",
            "write_latest",
            "write_snapshot",
            "write_sources",
            "write_table",
        ),
    },
)
