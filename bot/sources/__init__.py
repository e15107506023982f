"""Stage 1: sources of leaderboard results, each turned into raw long-format rows."""

from bot.sources.local import SourceTable, fetch_csv_file, fetch_sample, read_csv_text

__all__ = ["SourceTable", "fetch_csv_file", "fetch_sample", "read_csv_text"]
