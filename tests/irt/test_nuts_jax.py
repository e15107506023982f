"""NUTS through JAX (issue 13): the same model sampled by numpyro, checked on the CPU against nutpie."""

from __future__ import annotations

import numpy as np
import pytest

from benchwatch.irt import encode_responses, fit_nuts, fit_rasch
from benchwatch.irt.fits.rasch_nuts import check_sampler
from tests.irt.test_rasch_map import simulate


@pytest.mark.slow
def test_numpyro_samples_the_same_posterior_as_nutpie():
    df, _, _ = simulate(6, 20, seed=3)
    data = encode_responses(df)
    jax = fit_nuts(data, sampler="numpyro", draws=600, tune=400, chains=4, seed=1)
    ref = fit_nuts(data, sampler="nutpie", draws=600, tune=400, chains=4, seed=2)
    assert jax.diagnostics["sampler"] == "numpyro" and jax.converged, jax.diagnostics
    # two independent samplers of one posterior: means within Monte Carlo error, spreads alike
    np.testing.assert_allclose(jax.b, ref.b, atol=0.2)
    np.testing.assert_allclose(jax.b_sd, ref.b_sd, rtol=0.2)
    np.testing.assert_allclose(jax.theta, ref.theta, atol=0.2)
    assert abs(float(np.sum(jax.b_draws, axis=1).max())) < 1e-6  # the ZeroSumNormal holds in every draw


def test_an_unknown_or_missing_sampler_says_what_to_do(monkeypatch):
    with pytest.raises(ValueError, match="choose one of"):
        check_sampler("stan")
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "blackjax" else real(name, *a))
    with pytest.raises(ValueError, match=r'pip install "\.\[jax\]"'):
        fit_rasch(encode_responses(simulate(3, 4, seed=1)[0]), "nuts", sampler="blackjax")
