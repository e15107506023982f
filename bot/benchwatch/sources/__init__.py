"""Stage 1: sources of leaderboard results, each turned into raw long-format or aggregate rows."""

from typing import TYPE_CHECKING

from benchwatch.lazy import exports

__all__ = exports(
    __name__,
    {
        ".adapters": ("ADAPTERS", "CATALOG"),
        ".eee": ("read_eee", "validate_eee_record"),
        ".config": ("DEFAULT_CONFIG", "Config", "SourceConfig", "check_address"),
        ".configuration": ("load_config",),
        ".http": ("DEADLINE", "USER_AGENT", "Download", "Fetcher", "FetchError"),
        ".live": ("load_source",),
        ".local": ("fetch_csv_file", "fetch_sample", "read_csv_text", "read_input"),
        ".reach": ("unreachable", "unreached"),
        ".real_snapshot": ("snapshot_sources",),
        ".table": (
            "AGGREGATE_COLUMNS",
            "KEY",
            "LONG_COLUMNS",
            "REQUIRED_COLUMNS",
            "SourceTable",
            "configured_chance",
            "missing_columns",
        ),
    },
)

if TYPE_CHECKING:  # the names as mypy sees them; at run time each is imported on first use
    from benchwatch.sources.adapters import ADAPTERS as ADAPTERS
    from benchwatch.sources.adapters import CATALOG as CATALOG
    from benchwatch.sources.config import DEFAULT_CONFIG as DEFAULT_CONFIG
    from benchwatch.sources.config import Config as Config
    from benchwatch.sources.config import SourceConfig as SourceConfig
    from benchwatch.sources.config import check_address as check_address
    from benchwatch.sources.configuration import load_config as load_config
    from benchwatch.sources.eee import read_eee as read_eee
    from benchwatch.sources.eee import validate_eee_record as validate_eee_record
    from benchwatch.sources.http import DEADLINE as DEADLINE
    from benchwatch.sources.http import USER_AGENT as USER_AGENT
    from benchwatch.sources.http import Download as Download
    from benchwatch.sources.http import Fetcher as Fetcher
    from benchwatch.sources.http import FetchError as FetchError
    from benchwatch.sources.live import load_source as load_source
    from benchwatch.sources.local import fetch_csv_file as fetch_csv_file
    from benchwatch.sources.local import fetch_sample as fetch_sample
    from benchwatch.sources.local import read_csv_text as read_csv_text
    from benchwatch.sources.local import read_input as read_input
    from benchwatch.sources.reach import unreachable as unreachable
    from benchwatch.sources.reach import unreached as unreached
    from benchwatch.sources.real_snapshot import snapshot_sources as snapshot_sources
    from benchwatch.sources.table import AGGREGATE_COLUMNS as AGGREGATE_COLUMNS
    from benchwatch.sources.table import KEY as KEY
    from benchwatch.sources.table import LONG_COLUMNS as LONG_COLUMNS
    from benchwatch.sources.table import REQUIRED_COLUMNS as REQUIRED_COLUMNS
    from benchwatch.sources.table import SourceTable as SourceTable
    from benchwatch.sources.table import configured_chance as configured_chance
    from benchwatch.sources.table import missing_columns as missing_columns
