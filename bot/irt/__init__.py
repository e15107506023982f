"""Stage 3: item difficulties from a 1PL (Rasch) fit, and their place on the z axis."""

from bot.irt.rasch_map import RaschFit, fit_map, neg_log_posterior
from bot.irt.responses import ResponseArrays, encode_responses
from bot.irt.scale import DEFAULT_SCALE, SCALES, difficulty_z

__all__ = [
    "DEFAULT_SCALE",
    "SCALES",
    "RaschFit",
    "ResponseArrays",
    "difficulty_z",
    "encode_responses",
    "fit_map",
    "neg_log_posterior",
]
