"""Stage 1: sources of leaderboard results, each turned into raw long-format or aggregate rows."""

from bot.sources.adapters import ADAPTERS
from bot.sources.config import DEFAULT_CONFIG, Config, SourceConfig, load_config
from bot.sources.http import DEADLINE, USER_AGENT, Download, Fetcher, FetchError
from bot.sources.live import load_source
from bot.sources.local import fetch_csv_file, fetch_sample, read_csv_text
from bot.sources.real_snapshot import snapshot_sources
from bot.sources.table import AGGREGATE_COLUMNS, LONG_COLUMNS, SourceTable

__all__ = [
    "ADAPTERS",
    "AGGREGATE_COLUMNS",
    "DEADLINE",
    "DEFAULT_CONFIG",
    "LONG_COLUMNS",
    "USER_AGENT",
    "Config",
    "Download",
    "FetchError",
    "Fetcher",
    "SourceConfig",
    "SourceTable",
    "fetch_csv_file",
    "fetch_sample",
    "load_config",
    "load_source",
    "read_csv_text",
    "snapshot_sources",
]
