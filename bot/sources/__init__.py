"""Stage 1: sources of leaderboard results, each turned into raw long-format rows."""

from bot.sources.sample import SourceTable, fetch_sample

__all__ = ["SourceTable", "fetch_sample"]
