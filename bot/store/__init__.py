"""Stage 2: the validated long table of responses, and atomic writes."""

from bot.store.aggregates import AGGREGATE_COLUMNS, validate_aggregates
from bot.store.atomic import atomic_write_bytes, atomic_write_text
from bot.store.changes import diff_snapshots
from bot.store.memo import json_memo
from bot.store.naming import clean_name, safe_slug, slug_collisions
from bot.store.responses import KEY, REQUIRED_COLUMNS, content_revision, validate_responses
from bot.store.snapshots import SNAPSHOT_DIGITS, parse_snapshot, snapshot_bytes
from bot.store.tables import validate_difficulties, validate_parameters

__all__ = [
    "AGGREGATE_COLUMNS",
    "KEY",
    "REQUIRED_COLUMNS",
    "SNAPSHOT_DIGITS",
    "atomic_write_bytes",
    "atomic_write_text",
    "clean_name",
    "content_revision",
    "diff_snapshots",
    "json_memo",
    "parse_snapshot",
    "safe_slug",
    "slug_collisions",
    "snapshot_bytes",
    "validate_aggregates",
    "validate_difficulties",
    "validate_parameters",
    "validate_responses",
]
