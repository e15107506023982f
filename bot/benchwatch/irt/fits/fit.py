"""One entry point to fit the 1PL model by either method."""

from __future__ import annotations

import dataclasses

import numpy as np

from benchwatch.irt.choices import METHODS
from benchwatch.irt.fits.rasch_map import RaschFit, fit_map
from benchwatch.irt.fits.rasch_nuts import fit_nuts
from benchwatch.irt.responses import ResponseArrays


def fit_rasch(
    data: ResponseArrays,
    method: str = "map",
    *,
    init: tuple[np.ndarray, np.ndarray] | None = None,
    n_draws: int = 0,
    seed: int = 0,
    sampler: str = "auto",
    floor: np.ndarray | None = None,
) -> RaschFit:
    """Fit by ``map`` (Newton; ``n_draws`` Laplace draws) or ``nuts`` (PyMC, with ``sampler``: nutpie, PyMC's
    own, or a JAX sampler, numpyro or blackjax, for a GPU); ``init`` warm-starts ``map``. ``floor``: each item's
    chance floor (``benchwatch.irt.item_model.floors``), None for none."""
    if method == "map":
        return fit_map(data, init=init, n_draws=n_draws, seed=seed, floor=floor)
    if method == "nuts":
        fit = fit_nuts(data, seed=seed, sampler=sampler, floor=floor)
        assert fit.b_draws is not None and fit.theta_draws is not None  # NUTS always keeps its draws
        n_draws = n_draws or 200
        keep = np.linspace(0, fit.b_draws.shape[0] - 1, min(n_draws, fit.b_draws.shape[0])).astype(int)
        return dataclasses.replace(fit, theta_draws=fit.theta_draws[keep], b_draws=fit.b_draws[keep])
    raise ValueError(f"unknown fitting method {method!r}; choose one of {', '.join(METHODS)}")
