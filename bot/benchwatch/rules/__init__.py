"""Stage 5a: retirement and revision rules over a benchmark's snapshots, and per-benchmark settings."""

from benchwatch.lazy import exports

__all__ = exports(
    __name__,
    {
        ".book": ("RuleBook", "beta_or_uniform", "rules_from_config"),
        ".flags": (
            "BOUND_NAMES",
            "DEFAULT_THRESHOLDS",
            "FLAGS",
            "NO_BOUND",
            "VERDICTS",
            "VERDICT_NAMES",
            "Thresholds",
            "bound_text",
            "evaluate_flags",
            "explain",
            "held_figures",
            "recorded_verdicts",
            "resolve_line",
            "retirement",
            "threshold_map",
            "verdict_line",
            "verdicts",
        ),
    },
)
