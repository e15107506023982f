"""Stage 1: sources of leaderboard results, each turned into raw long-format or aggregate rows."""

from benchwatch.lazy import exports

__all__ = exports(
    __name__,
    {
        ".adapters": ("ADAPTERS",),
        ".eee": ("read_eee", "validate_eee_record"),
        ".config": ("DEFAULT_CONFIG", "Config", "SourceConfig", "load_config"),
        ".http": ("DEADLINE", "USER_AGENT", "Download", "Fetcher", "FetchError"),
        ".live": ("load_source",),
        ".local": ("fetch_csv_file", "fetch_sample", "read_csv_text", "read_input"),
        ".real_snapshot": ("snapshot_sources",),
        ".table": ("AGGREGATE_COLUMNS", "LONG_COLUMNS", "SourceTable", "configured_chance"),
    },
)
