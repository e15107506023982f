"""Stage 5a: retirement and revision rules over a benchmark's snapshots."""

from bot.rules.flags import DEFAULT_THRESHOLDS, FLAGS, Thresholds, evaluate_flags

__all__ = ["DEFAULT_THRESHOLDS", "FLAGS", "Thresholds", "evaluate_flags"]
