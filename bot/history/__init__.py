"""Stage 6: the committed, machine-readable audit history in ``reports/``."""

from bot.history.reports import (
    HISTORY_COLUMNS,
    Reports,
    append_history,
    append_run,
    load_alerts,
    load_history,
    load_latest,
    load_table,
    rounded,
    to_json,
    write_alerts,
    write_latest,
    write_table,
)

__all__ = [
    "HISTORY_COLUMNS",
    "Reports",
    "append_history",
    "append_run",
    "load_alerts",
    "load_history",
    "load_latest",
    "load_table",
    "rounded",
    "to_json",
    "write_alerts",
    "write_latest",
    "write_table",
]
