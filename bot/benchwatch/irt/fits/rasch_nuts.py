"""Bayesian fit of the same 1PL posterior by NUTS in PyMC (nutpie when it is installed)."""

from __future__ import annotations

import importlib.util
import logging
import time
import warnings

import numpy as np

from benchwatch.irt.choices import SAMPLERS
from benchwatch.irt.fits.rasch_map import PRIOR_SD_B, PRIOR_SD_THETA, RaschFit
from benchwatch.irt.responses import ResponseArrays

MAX_RHAT = 1.01
MIN_ESS = 400
DENSE_FILL = 0.5  # above this share of observed cells the dense likelihood beats gathering
# The posterior is close to Gaussian; for HMC there the optimal acceptance rate is about 0.65
# (Beskos et al. 2013), which halves the leapfrog steps per draw against PyMC's default of 0.8.
TARGET_ACCEPT = 0.65


def build_model(
    data: ResponseArrays, sd_theta: float = PRIOR_SD_THETA, sd_b: float = PRIOR_SD_B, floor: np.ndarray | None = None
):
    """The PyMC model: theta ~ N(0, sd_theta), b ~ ZeroSumNormal(sd_b), the Binomial/quasi-Bernoulli likelihood;
    with ``floor`` (each item's chance floor) an answer is right with probability c + (1 - c) sigmoid(eta)."""
    import pymc as pm

    if floor is not None and np.any(np.asarray(floor) > 0):
        return _floor_model(data, sd_theta, sd_b, np.asarray(floor, float))

    coords = {"model": list(map(str, data.models)), "item": list(map(str, data.items))}
    with pm.Model(coords=coords) as model:
        theta = pm.Normal("theta", 0.0, sd_theta, dims="model")
        b = pm.ZeroSumNormal("b", sigma=sd_b, dims="item")
        if data.fill >= DENSE_FILL:
            trials = data.dense()[0]
            eta = theta[:, None] - b[None, :]
        else:
            trials = data.weight
            eta = theta[data.model_idx] - b[data.item_idx]
        # sum s log p + (w - s) log(1 - p) = sum s eta - w softplus(eta): one expression serves
        # Binomial(k, p) (up to its constant) and the quasi-Bernoulli of fractional scores, missing cells
        # weigh 0, and the first sum needs only the row and column totals (Rasch sufficiency).
        s_theta = np.bincount(data.model_idx, data.weight * data.y, minlength=data.n_models)
        s_b = np.bincount(data.item_idx, data.weight * data.y, minlength=data.n_items)
        pm.Potential("loglik", (theta * s_theta).sum() - (b * s_b).sum() - (trials * pm.math.log1pexp(eta)).sum())
    return model


def _floor_model(data: ResponseArrays, sd_theta: float, sd_b: float, floor: np.ndarray):
    """``build_model`` with chance floors: s log P + (w - s) log(1 - P) over the observed cells, with
    log P = log(c + (1 - c) sigmoid(eta)) and log(1 - P) = log(1 - c) - softplus(eta)."""
    import pymc as pm

    coords = {"model": list(map(str, data.models)), "item": list(map(str, data.items))}
    c = floor[data.item_idx]
    s = data.weight * data.y
    with pm.Model(coords=coords) as model:
        theta = pm.Normal("theta", 0.0, sd_theta, dims="model")
        b = pm.ZeroSumNormal("b", sigma=sd_b, dims="item")
        eta = theta[data.model_idx] - b[data.item_idx]
        log_right = pm.math.logaddexp(np.log(np.maximum(c, 1e-300)), np.log1p(-c) - pm.math.log1pexp(-eta))
        log_wrong = np.log1p(-c) - pm.math.log1pexp(eta)
        pm.Potential("loglik", (s * log_right).sum() + ((data.weight - s) * log_wrong).sum())
    return model


def nutpie_available() -> bool:
    """Whether nutpie (the fast NUTS sampler) is installed."""
    return importlib.util.find_spec("nutpie") is not None


_NEEDS = {"nutpie": ("nutpie", ".[nuts]"), "numpyro": ("numpyro", ".[jax]"), "blackjax": ("blackjax", ".[jax]")}


def check_sampler(sampler: str) -> str:
    """The sampler to use (``auto``: nutpie where installed, else PyMC's own), or a ValueError that says what
    to install. numpyro and blackjax run PyMC's model through JAX: on a GPU when JAX has one."""
    if sampler not in SAMPLERS:
        raise ValueError(f"unknown NUTS sampler {sampler!r}; choose one of {', '.join(SAMPLERS)}")
    if sampler == "auto":
        return "nutpie" if nutpie_available() else "pymc"
    module, extra = _NEEDS.get(sampler, (None, None))
    if module is not None and importlib.util.find_spec(module) is None:
        raise ValueError(f'the {sampler} sampler is not installed: pip install "{extra}"')
    return sampler


def fit_nuts(
    data: ResponseArrays,
    *,
    draws: int = 1500,
    tune: int = 300,
    chains: int = 4,
    seed: int = 0,
    sampler: str = "auto",
    sd_theta: float = PRIOR_SD_THETA,
    sd_b: float = PRIOR_SD_B,
    floor: np.ndarray | None = None,
) -> RaschFit:
    """Sample the posterior; converged only if max R-hat <= 1.01 and min bulk ESS >= 400."""
    import arviz as az
    import pymc as pm

    sampler = check_sampler(sampler)
    model = build_model(data, sd_theta, sd_b, floor)
    start = time.perf_counter()
    logging.getLogger("pymc").setLevel(logging.ERROR)
    with model, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        idata = pm.sample(
            draws=draws,
            tune=tune,
            chains=chains,
            cores=min(chains, 2),
            random_seed=seed,
            nuts_sampler=sampler,
            target_accept=TARGET_ACCEPT,
            progressbar=False,
            compute_convergence_checks=False,
        )
    seconds = time.perf_counter() - start
    post = idata.posterior
    summary_vars = ["theta", "b"]
    rhat = az.rhat(idata, var_names=summary_vars)
    ess = az.ess(idata, var_names=summary_vars, method="bulk")
    max_rhat = float(max(np.nanmax(rhat[v].values) for v in summary_vars))
    min_ess = float(min(np.nanmin(ess[v].values) for v in summary_vars))
    divergences = int(idata.sample_stats["diverging"].values.sum()) if "diverging" in idata.sample_stats else 0
    theta = post["theta"].values.reshape(-1, data.n_models)
    b = post["b"].values.reshape(-1, data.n_items)
    return RaschFit(
        models=data.models,
        items=data.items,
        theta=theta.mean(axis=0),
        theta_sd=theta.std(axis=0, ddof=1),
        b=b.mean(axis=0),
        b_sd=b.std(axis=0, ddof=1),
        method="nuts",
        converged=bool(max_rhat <= MAX_RHAT and min_ess >= MIN_ESS),
        diagnostics={
            "sampler": sampler,
            "draws": draws,
            "tune": tune,
            "chains": chains,
            "max_rhat": max_rhat,
            "min_ess_bulk": min_ess,
            "divergences": divergences,
            "seconds": seconds,
        },
        theta_draws=theta,
        b_draws=b,
    )


def exchangeable_items(data: ResponseArrays, floor: np.ndarray | None = None) -> np.ndarray:
    """Each item's class of items the 1PL posterior cannot tell apart (0, 1, ...): swapping two of them leaves
    the posterior as it is, so their difficulties have one distribution and, exactly, one posterior mean.

    Without floors the likelihood reads an item through its cells (which models answered, with how many
    trials) and its total of successes only (Rasch sufficiency): 12 binary models answering every item allow
    13 classes, however the successes fall. With chance floors it reads every answer: the class is the item's
    response pattern and floor (``benchwatch.irt.cell_patterns``). The draws of one class are pooled for its position
    (``fit_nuts``' posterior means differ between such items by the Monte Carlo error only)."""
    from dataclasses import replace

    from benchwatch.irt.fits.cells import cell_patterns

    if floor is not None and np.any(np.asarray(floor) > 0):
        return cell_patterns(data, floor).pattern
    cells = cell_patterns(replace(data, y=np.zeros_like(data.y))).pattern  # who answered, with how many trials
    totals = np.bincount(data.item_idx, data.weight * data.y, minlength=data.n_items)
    key = np.stack([cells.astype(float), np.round(totals * 2.0**20)], axis=1)
    return np.unique(key, axis=0, return_inverse=True)[1].ravel().astype(np.int64)


def pooled_positions(fit: RaschFit, classes: np.ndarray) -> np.ndarray:
    """Each item's posterior mean of b over the draws of every item of its class (``exchangeable_items``)."""
    sums = np.bincount(classes, fit.b)
    counts = np.bincount(classes)
    return (sums / counts)[classes]
