"""SQUAREM against the plain iteration it wraps: the same fixed point, fewer steps."""

import numpy as np

from benchwatch.irt.fits.accelerate import squarem


def _plain(update, x, tol, max_steps):
    for k in range(1, max_steps + 1):
        y = update(x)
        if np.abs(y - x).max() < tol:
            return y, k
        x = y
    return x, max_steps


def test_a_slow_linear_map_reaches_its_fixed_point_in_fewer_steps():
    rng = np.random.default_rng(0)
    q, _ = np.linalg.qr(rng.normal(size=(6, 6)))
    a = q @ np.diag([0.99, 0.95, 0.9, 0.5, 0.2, 0.0]) @ q.T  # rate 0.99: the plain iteration crawls
    c = rng.normal(size=6)
    fixed = np.linalg.solve(np.eye(6) - a, c)
    update = lambda x: a @ x + c  # noqa: E731
    done = lambda u, v: np.abs(v - u).max() < 1e-12  # noqa: E731
    fast, steps = squarem(update, np.zeros(6), converged=done, max_steps=5000)
    slow, plain_steps = _plain(update, np.zeros(6), 1e-12, 5000)
    np.testing.assert_allclose(fast, fixed, atol=1e-9)
    np.testing.assert_allclose(slow, fixed, atol=1e-9)
    assert steps * 5 < plain_steps


def test_a_point_outside_the_domain_is_never_taken():
    """x -> sqrt(x) + 0.5 on x > 0: an extrapolation below zero would be invalid; every point the map is
    given must be valid, and the limit is the fixed point, sqrt(x) = (1 + sqrt(3)) / 2."""
    seen = []

    def update(x):
        seen.append(float(x[0]))
        return np.sqrt(x) + 0.5

    root = ((1 + np.sqrt(3)) / 2) ** 2  # sqrt(x) = x - 0.5
    x, _ = squarem(
        update, np.array([1e-6]), converged=lambda u, v: abs(v - u)[0] < 1e-13, max_steps=500, valid=lambda x: x[0] > 0
    )
    assert abs(x[0] - root) < 1e-10
    assert min(seen) > 0


def test_the_step_budget_is_kept():
    calls = []

    def update(x):
        calls.append(1)
        return 0.999 * x + 1.0

    _, steps = squarem(update, np.zeros(3), converged=lambda u, v: False, max_steps=7)
    assert steps == 7 and len(calls) == 7
