"""Stage 3: item difficulties from a 1PL (Rasch) fit, and their place on the z axis."""

from bot.irt.calibrate import calibrate_items, calibrate_models
from bot.irt.fit import METHODS, fit_rasch
from bot.irt.item_posterior import (
    GRID_SIZE,
    ItemPosterior,
    cell_loglik,
    grid_posterior,
    item_posterior,
    item_posterior_dense,
    marginal_abilities,
    marginal_abilities_cells,
)
from bot.irt.rasch_map import RaschFit, fit_map, neg_log_posterior
from bot.irt.rasch_nuts import SAMPLERS, fit_nuts, nutpie_available
from bot.irt.responses import ResponseArrays, arrays_from_dense, encode_responses
from bot.irt.scale import DEFAULT_SCALE, SCALES, difficulty_b, difficulty_z

__all__ = [
    "DEFAULT_SCALE",
    "GRID_SIZE",
    "METHODS",
    "SAMPLERS",
    "SCALES",
    "ItemPosterior",
    "RaschFit",
    "ResponseArrays",
    "arrays_from_dense",
    "calibrate_items",
    "calibrate_models",
    "cell_loglik",
    "difficulty_b",
    "difficulty_z",
    "encode_responses",
    "fit_map",
    "fit_nuts",
    "fit_rasch",
    "grid_posterior",
    "item_posterior",
    "item_posterior_dense",
    "marginal_abilities",
    "marginal_abilities_cells",
    "neg_log_posterior",
    "nutpie_available",
]
