"""Stage 3: item difficulties from a 1PL (Rasch) fit, and their place on the z axis."""

from benchwatch.lazy import exports

__all__ = exports(
    __name__,
    {
        ".choices": ("DEFAULT_SCALE", "METHODS", "SAMPLERS", "SCALES"),
        ".calibrate": ("calibrate_items", "calibrate_models"),
        ".fit": ("fit_rasch",),
        ".design": ("blanks_where_failures", "design_groups"),
        ".fit_check": ("FitCheck", "check_fit"),
        ".floors": ("FloorEstimate", "estimate_floor"),
        ".item_model": ("PATHS", "ItemModel", "fit_item_model", "judge"),
        ".twopl": ("TwoPLFit", "fit_2pl", "integrated_loglik"),
        ".kernels": ("compiled_kernels",),
        ".item_posterior": (
            "GRID_SIZE",
            "CellPatterns",
            "ItemPosterior",
            "cell_patterns",
            "cell_loglik",
            "grid_posterior",
            "item_posterior",
            "item_posterior_dense",
            "loglik_posterior",
            "marginal_abilities",
            "marginal_abilities_cells",
            "marginal_abilities_patterns",
        ),
        ".npmle": ("MixingFit", "linear_range", "mixture_loglik", "solve_mixing"),
        ".rasch_map": ("RaschFit", "fit_map", "neg_log_posterior"),
        ".rasch_nuts": ("exchangeable_items", "fit_nuts", "nutpie_available", "pooled_positions"),
        ".responses": ("ResponseArrays", "arrays_from_dense", "encode_responses"),
        ".scale": ("UncertainAbilities", "difficulty_b", "difficulty_z", "uncertain_abilities"),
    },
)
