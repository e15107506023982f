"""``--method nuts``: NUTS run as a check of the MAP fit whose figures are published, and what its draws change.

The published positions, abilities, bounds and model-based figures are the MAP path's whatever the method
(``figures_from`` in the record says so): below ``MARGINAL_MODELS`` models they read the marginal MAP's abilities
and each item's exact grid posterior under a prior estimated from the data, the path whose intervals
``benchmarks/calibration.py`` checks. NUTS samples the joint 1PL posterior under its fixed N(0, 3^2) priors; its
check (the record's ``nuts_check``) holds its diagnostics, the same figures from its own joint draws, and the
positions its posterior means give, pooled over the items the posterior cannot tell apart (``exchangeable_items``:
without pooling, its Monte Carlo error splits items of identical responses into distinct positions).
"""

from __future__ import annotations

import numpy as np

from benchwatch.irt import RaschFit, ResponseArrays, difficulty_z, exchangeable_items, pooled_positions
from benchwatch.metrics import PosteriorFigures, Target, coverage, figures_from_draws
from benchwatch.vocabulary import COVERAGE_FIGURES

DIAGNOSTICS = ("sampler", "chains", "tune", "draws", "max_rhat", "min_ess_bulk", "divergences", "seconds")


def nuts_check(
    nuts: RaschFit,
    data: ResponseArrays,
    floors: np.ndarray | None,
    *,
    z: np.ndarray,
    theta: np.ndarray,
    posterior: PosteriorFigures,
    scale: str,
    target: Target,
    reference: dict | None = None,
) -> dict:
    """The check's record (JSON-ready): the sampler's diagnostics and convergence; each figure's posterior median
    and 95% interval over the NUTS draws (each draw's z on its own abilities; DDM's lower end extended like the
    published one's, ``reference``) and at its pooled positions (``_plugin``); the distinct positions pooled and
    before pooling; how far its positions and abilities are from the published ``z`` and ``theta``."""
    if not np.array_equal(nuts.items, data.items) or not np.array_equal(nuts.models, data.models):
        raise ValueError("the NUTS check must be fitted to the published fit's items and models")
    classes = exchangeable_items(data, floors)
    pooled = difficulty_z(pooled_positions(nuts, classes), nuts.theta, scale)
    unpooled = difficulty_z(nuts.b, nuts.theta, scale)
    assert nuts.b_draws is not None and nuts.theta_draws is not None  # a NUTS fit always keeps its draws
    draws = np.stack([difficulty_z(b, t, scale) for b, t in zip(nuts.b_draws, nuts.theta_draws, strict=True)])
    figures = figures_from_draws(draws, target, reference=reference)
    plugin = coverage(pooled, target)
    out: dict = {k: nuts.diagnostics[k] for k in DIAGNOSTICS if k in nuts.diagnostics}
    out["converged"] = bool(nuts.converged)
    out["kept_draws"] = int(draws.shape[0])
    for k in COVERAGE_FIGURES:
        out[k] = figures.median[k]
        out[f"{k}_lo"], out[f"{k}_hi"] = figures.interval[k]
        out[f"{k}_plugin"] = float(getattr(plugin, k))
        out[f"{k}_published"] = posterior.median[k]
    out["distinct_z"] = int(np.unique(np.round(pooled, 9)).size)
    out["distinct_z_unpooled"] = int(np.unique(np.round(unpooled, 9)).size)
    out["max_position_shift"] = float(np.max(np.abs(pooled - z)))
    out["max_ability_shift"] = float(np.max(np.abs(nuts.theta - theta)))
    return out
