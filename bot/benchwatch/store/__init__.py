"""Stage 2: the validated long table of responses, and atomic writes."""

from benchwatch.lazy import exports

__all__ = exports(
    __name__,
    {
        ".aggregates": ("AGGREGATE_COLUMNS", "validate_aggregates"),
        ".atomic": ("atomic_write_bytes", "atomic_write_text"),
        ".eee_records": ("eee_records", "write_eee_records"),
        ".changes": ("diff_snapshots",),
        ".memo": ("json_memo",),
        ".naming": ("clean_name", "safe_slug", "slug_collisions"),
        ".responses": ("KEY", "REQUIRED_COLUMNS", "content_revision", "validate_responses"),
        ".snapshots": ("SNAPSHOT_DIGITS", "parse_snapshot", "snapshot_bytes"),
        ".tables": ("is_difficulty_file", "validate_difficulties", "validate_parameters"),
    },
)
