"""Stage 5a: retirement and revision rules over a benchmark's snapshots, and per-benchmark settings."""

from bot.rules.book import RuleBook, beta_or_uniform, rules_from_config
from bot.rules.flags import DEFAULT_THRESHOLDS, FLAGS, Thresholds, evaluate_flags, explain, retirement

__all__ = [
    "DEFAULT_THRESHOLDS",
    "FLAGS",
    "RuleBook",
    "Thresholds",
    "beta_or_uniform",
    "evaluate_flags",
    "explain",
    "retirement",
    "rules_from_config",
]
