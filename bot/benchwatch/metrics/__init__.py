"""Stage 4: coverage of the difficulty axis and saturation of the leaderboard."""

from typing import TYPE_CHECKING

from benchwatch.lazy import exports

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
        ".axis": ("AxisLikelihood", "axis_grid", "axis_likelihood", "likelihood_from_cells", "target_mass"),
        ".bounds": ("Bounds", "axis_bounds", "thin_truth", "union_bounds"),
        ".kernels": ("compiled_kernels",),
        ".frames": (
            "leaderboard_figures",
            "leaderboard_saturation",
            "model_notes",
            "model_scores",
            "paired_figures",
            "published_gap_interval",
            "split_uninformative",
            "state_from_paired",
            "tiers_of",
            "tiers_of_board",
            "with_tiers",
        ),
        ".resolution": (
            "Cache",
            "PosteriorFigures",
            "figures_from_draws",
            "matched_likelihood",
            "no_cache",
            "pool_key",
            "pool_needed",
            "posterior_z_draws",
            "sampling_levels",
            "target_reference",
        ),
        ".tiers": (
            "ALPHA",
            "TIERED_MODELS",
            "Tiers",
            "binomial_se",
            "holm",
            "mcnemar_exact",
            "score_intervals",
            "significantly_better",
            "tiers_from_items",
            "tiers_from_scores",
        ),
        ".saturation": (
            "BANDS",
            "CEILING_MARGIN",
            "SATURATION_THRESHOLD",
            "STATES",
            "STATE_FROM",
            "Saturation",
            "band",
            "binomial_gap_interval",
            "classify_state",
            "decided_by_tiers",
            "index_interval",
            "paired_difference",
            "paired_saturation_index",
            "saturation",
            "saturation_index",
            "score_interval",
            "state_evidence",
            "within_noise_state",
        ),
    },
)

if TYPE_CHECKING:  # the names as mypy sees them; at run time each is imported on first use
    from benchwatch.metrics.agreement import compare_scores as compare_scores
    from benchwatch.metrics.agreement import model_key as model_key
    from benchwatch.metrics.axis import AxisLikelihood as AxisLikelihood
    from benchwatch.metrics.axis import axis_grid as axis_grid
    from benchwatch.metrics.axis import axis_likelihood as axis_likelihood
    from benchwatch.metrics.axis import likelihood_from_cells as likelihood_from_cells
    from benchwatch.metrics.axis import target_mass as target_mass
    from benchwatch.metrics.bounds import Bounds as Bounds
    from benchwatch.metrics.bounds import axis_bounds as axis_bounds
    from benchwatch.metrics.bounds import thin_truth as thin_truth
    from benchwatch.metrics.bounds import union_bounds as union_bounds
    from benchwatch.metrics.coverage import UNIFORM as UNIFORM
    from benchwatch.metrics.coverage import Coverage as Coverage
    from benchwatch.metrics.coverage import Gap as Gap
    from benchwatch.metrics.coverage import Target as Target
    from benchwatch.metrics.coverage import coverage as coverage
    from benchwatch.metrics.coverage import coverage_draws as coverage_draws
    from benchwatch.metrics.coverage import ddm as ddm
    from benchwatch.metrics.coverage import largest_gaps as largest_gaps
    from benchwatch.metrics.coverage import max_gap as max_gap
    from benchwatch.metrics.coverage import spacings as spacings
    from benchwatch.metrics.coverage import top_k_gap_sum as top_k_gap_sum
    from benchwatch.metrics.frames import leaderboard_figures as leaderboard_figures
    from benchwatch.metrics.frames import leaderboard_saturation as leaderboard_saturation
    from benchwatch.metrics.frames import model_notes as model_notes
    from benchwatch.metrics.frames import model_scores as model_scores
    from benchwatch.metrics.frames import paired_figures as paired_figures
    from benchwatch.metrics.frames import published_gap_interval as published_gap_interval
    from benchwatch.metrics.frames import split_uninformative as split_uninformative
    from benchwatch.metrics.frames import state_from_paired as state_from_paired
    from benchwatch.metrics.frames import tiers_of as tiers_of
    from benchwatch.metrics.frames import tiers_of_board as tiers_of_board
    from benchwatch.metrics.frames import with_tiers as with_tiers
    from benchwatch.metrics.kernels import compiled_kernels as compiled_kernels
    from benchwatch.metrics.resolution import Cache as Cache
    from benchwatch.metrics.resolution import PosteriorFigures as PosteriorFigures
    from benchwatch.metrics.resolution import figures_from_draws as figures_from_draws
    from benchwatch.metrics.resolution import matched_likelihood as matched_likelihood
    from benchwatch.metrics.resolution import no_cache as no_cache
    from benchwatch.metrics.resolution import pool_key as pool_key
    from benchwatch.metrics.resolution import pool_needed as pool_needed
    from benchwatch.metrics.resolution import posterior_z_draws as posterior_z_draws
    from benchwatch.metrics.resolution import sampling_levels as sampling_levels
    from benchwatch.metrics.resolution import target_reference as target_reference
    from benchwatch.metrics.saturation import BANDS as BANDS
    from benchwatch.metrics.saturation import CEILING_MARGIN as CEILING_MARGIN
    from benchwatch.metrics.saturation import SATURATION_THRESHOLD as SATURATION_THRESHOLD
    from benchwatch.metrics.saturation import STATE_FROM as STATE_FROM
    from benchwatch.metrics.saturation import STATES as STATES
    from benchwatch.metrics.saturation import Saturation as Saturation
    from benchwatch.metrics.saturation import band as band
    from benchwatch.metrics.saturation import binomial_gap_interval as binomial_gap_interval
    from benchwatch.metrics.saturation import classify_state as classify_state
    from benchwatch.metrics.saturation import decided_by_tiers as decided_by_tiers
    from benchwatch.metrics.saturation import index_interval as index_interval
    from benchwatch.metrics.saturation import paired_difference as paired_difference
    from benchwatch.metrics.saturation import paired_saturation_index as paired_saturation_index
    from benchwatch.metrics.saturation import saturation as saturation
    from benchwatch.metrics.saturation import saturation_index as saturation_index
    from benchwatch.metrics.saturation import score_interval as score_interval
    from benchwatch.metrics.saturation import state_evidence as state_evidence
    from benchwatch.metrics.saturation import within_noise_state as within_noise_state
    from benchwatch.metrics.tiers import ALPHA as ALPHA
    from benchwatch.metrics.tiers import TIERED_MODELS as TIERED_MODELS
    from benchwatch.metrics.tiers import Tiers as Tiers
    from benchwatch.metrics.tiers import binomial_se as binomial_se
    from benchwatch.metrics.tiers import holm as holm
    from benchwatch.metrics.tiers import mcnemar_exact as mcnemar_exact
    from benchwatch.metrics.tiers import score_intervals as score_intervals
    from benchwatch.metrics.tiers import significantly_better as significantly_better
    from benchwatch.metrics.tiers import tiers_from_items as tiers_from_items
    from benchwatch.metrics.tiers import tiers_from_scores as tiers_from_scores
