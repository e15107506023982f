"""Stage 4: coverage of the difficulty axis and saturation of the leaderboard."""

from bot.metrics.coverage import (
    UNIFORM,
    Coverage,
    Gap,
    Target,
    coverage,
    coverage_intervals,
    ddm,
    largest_gaps,
    max_gap,
    spacings,
    top_k_gap_sum,
)
from bot.metrics.saturation import (
    BANDS,
    STATES,
    Saturation,
    band,
    classify_state,
    saturation,
    saturation_index,
)

__all__ = [
    "BANDS",
    "STATES",
    "UNIFORM",
    "Coverage",
    "Gap",
    "Saturation",
    "Target",
    "band",
    "classify_state",
    "coverage",
    "coverage_intervals",
    "ddm",
    "largest_gaps",
    "max_gap",
    "saturation",
    "saturation_index",
    "spacings",
    "top_k_gap_sum",
]
