"""Stage 6: the committed, machine-readable audit history in ``reports/``."""

from typing import TYPE_CHECKING

from benchwatch.lazy import exports

__all__ = exports(
    __name__,
    {
        ".check": ("check_reports", "schema_problems"),
        ".repair": ("repair_reports",),
        ".records": (
            "FILES",
            "SCHEMA_VERSION",
            "VARIANTS",
            "VARIANT_DOCS",
            "Alert",
            "BenchmarkRecord",
            "Change",
            "SourceStatus",
            "as_typed",
            "documented_fields",
            "field_name",
            "field_types",
            "file_schema",
            "schema_of",
            "typed",
            "without",
            "written",
        ),
        ".folder": ("Reports", "recover"),
        ".formats": ("csv_text", "published_csv", "rounded", "to_json"),
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

if TYPE_CHECKING:  # the names as mypy sees them; at run time each is imported on first use
    from benchwatch.history.check import check_reports as check_reports
    from benchwatch.history.check import schema_problems as schema_problems
    from benchwatch.history.folder import Reports as Reports
    from benchwatch.history.folder import recover as recover
    from benchwatch.history.formats import csv_text as csv_text
    from benchwatch.history.formats import published_csv as published_csv
    from benchwatch.history.formats import rounded as rounded
    from benchwatch.history.formats import to_json as to_json
    from benchwatch.history.records import FILES as FILES
    from benchwatch.history.records import SCHEMA_VERSION as SCHEMA_VERSION
    from benchwatch.history.records import VARIANT_DOCS as VARIANT_DOCS
    from benchwatch.history.records import VARIANTS as VARIANTS
    from benchwatch.history.records import Alert as Alert
    from benchwatch.history.records import BenchmarkRecord as BenchmarkRecord
    from benchwatch.history.records import Change as Change
    from benchwatch.history.records import SourceStatus as SourceStatus
    from benchwatch.history.records import as_typed as as_typed
    from benchwatch.history.records import documented_fields as documented_fields
    from benchwatch.history.records import field_name as field_name
    from benchwatch.history.records import field_types as field_types
    from benchwatch.history.records import file_schema as file_schema
    from benchwatch.history.records import schema_of as schema_of
    from benchwatch.history.records import typed as typed
    from benchwatch.history.records import without as without
    from benchwatch.history.records import written as written
    from benchwatch.history.repair import repair_reports as repair_reports
    from benchwatch.history.reports import HISTORY_COLUMNS as HISTORY_COLUMNS
    from benchwatch.history.reports import append_changelog as append_changelog
    from benchwatch.history.reports import append_history as append_history
    from benchwatch.history.reports import append_run as append_run
    from benchwatch.history.reports import load_alerts as load_alerts
    from benchwatch.history.reports import load_changelog as load_changelog
    from benchwatch.history.reports import load_history as load_history
    from benchwatch.history.reports import load_latest as load_latest
    from benchwatch.history.reports import load_proposal as load_proposal
    from benchwatch.history.reports import load_runs as load_runs
    from benchwatch.history.reports import load_snapshot as load_snapshot
    from benchwatch.history.reports import load_sources as load_sources
    from benchwatch.history.reports import load_table as load_table
    from benchwatch.history.reports import page_groups as page_groups
    from benchwatch.history.reports import read_table as read_table
    from benchwatch.history.reports import write_alerts as write_alerts
    from benchwatch.history.reports import write_latest as write_latest
    from benchwatch.history.reports import write_snapshot as write_snapshot
    from benchwatch.history.reports import write_sources as write_sources
    from benchwatch.history.reports import write_table as write_table
