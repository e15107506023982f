"""Stage 5a: retirement and revision rules over a benchmark's snapshots, and per-benchmark settings."""

from typing import TYPE_CHECKING

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

if TYPE_CHECKING:  # the names as mypy sees them; at run time each is imported on first use
    from benchwatch.rules.book import RuleBook as RuleBook
    from benchwatch.rules.book import beta_or_uniform as beta_or_uniform
    from benchwatch.rules.book import rules_from_config as rules_from_config
    from benchwatch.rules.flags import BOUND_NAMES as BOUND_NAMES
    from benchwatch.rules.flags import DEFAULT_THRESHOLDS as DEFAULT_THRESHOLDS
    from benchwatch.rules.flags import FLAGS as FLAGS
    from benchwatch.rules.flags import NO_BOUND as NO_BOUND
    from benchwatch.rules.flags import VERDICT_NAMES as VERDICT_NAMES
    from benchwatch.rules.flags import VERDICTS as VERDICTS
    from benchwatch.rules.flags import Thresholds as Thresholds
    from benchwatch.rules.flags import bound_text as bound_text
    from benchwatch.rules.flags import evaluate_flags as evaluate_flags
    from benchwatch.rules.flags import explain as explain
    from benchwatch.rules.flags import held_figures as held_figures
    from benchwatch.rules.flags import recorded_verdicts as recorded_verdicts
    from benchwatch.rules.flags import resolve_line as resolve_line
    from benchwatch.rules.flags import retirement as retirement
    from benchwatch.rules.flags import threshold_map as threshold_map
    from benchwatch.rules.flags import verdict_line as verdict_line
    from benchwatch.rules.flags import verdicts as verdicts
