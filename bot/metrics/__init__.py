"""Stage 4: coverage of the difficulty axis and saturation of the leaderboard."""

from bot.lazy import exports

__all__ = exports(
    __name__,
    {
        ".agreement": ("compare_scores", "model_key"),
        ".coverage": (
            "UNIFORM",
            "Coverage",
            "Gap",
            "Target",
            "coverage",
            "coverage_draws",
            "ddm",
            "largest_gaps",
            "max_gap",
            "spacings",
            "top_k_gap_sum",
        ),
        ".resolution": (
            "Cache",
            "PosteriorFigures",
            "figures_from_draws",
            "larger_pools",
            "no_cache",
            "null_distribution",
            "posterior_z_draws",
            "resolution_floor",
            "simulate_matched",
            "target_reference",
        ),
        ".saturation": (
            "BANDS",
            "SATURATION_THRESHOLD",
            "STATES",
            "Saturation",
            "band",
            "binomial_gap_interval",
            "classify_state",
            "index_interval",
            "paired_difference",
            "paired_saturation_index",
            "saturation",
            "saturation_index",
            "score_interval",
        ),
    },
)
