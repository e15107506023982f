"""Stage 2: the validated long table of responses, and atomic writes."""

from typing import TYPE_CHECKING

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
        ".responses": ("KEY", "REQUIRED_COLUMNS", "validate_responses"),
        ".revision": ("content_revision",),
        ".snapshots": ("SNAPSHOT_DIGITS", "parse_snapshot", "snapshot_bytes"),
        ".tables": ("is_difficulty_file", "validate_difficulties", "validate_parameters"),
    },
)

if TYPE_CHECKING:  # the names as mypy sees them; at run time each is imported on first use
    from benchwatch.store.aggregates import AGGREGATE_COLUMNS as AGGREGATE_COLUMNS
    from benchwatch.store.aggregates import validate_aggregates as validate_aggregates
    from benchwatch.store.atomic import atomic_write_bytes as atomic_write_bytes
    from benchwatch.store.atomic import atomic_write_text as atomic_write_text
    from benchwatch.store.changes import diff_snapshots as diff_snapshots
    from benchwatch.store.eee_records import eee_records as eee_records
    from benchwatch.store.eee_records import write_eee_records as write_eee_records
    from benchwatch.store.memo import json_memo as json_memo
    from benchwatch.store.naming import clean_name as clean_name
    from benchwatch.store.naming import safe_slug as safe_slug
    from benchwatch.store.naming import slug_collisions as slug_collisions
    from benchwatch.store.responses import KEY as KEY
    from benchwatch.store.responses import REQUIRED_COLUMNS as REQUIRED_COLUMNS
    from benchwatch.store.responses import validate_responses as validate_responses
    from benchwatch.store.revision import content_revision as content_revision
    from benchwatch.store.snapshots import SNAPSHOT_DIGITS as SNAPSHOT_DIGITS
    from benchwatch.store.snapshots import parse_snapshot as parse_snapshot
    from benchwatch.store.snapshots import snapshot_bytes as snapshot_bytes
    from benchwatch.store.tables import is_difficulty_file as is_difficulty_file
    from benchwatch.store.tables import validate_difficulties as validate_difficulties
    from benchwatch.store.tables import validate_parameters as validate_parameters
