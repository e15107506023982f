"""The test oracle of ``benchwatch.irt.solve_mixing``: the plain EM fixed point, slow, simple and independent."""

from __future__ import annotations

import numpy as np

from benchwatch.irt import mixture_loglik


def em_reference(
    like: np.ndarray, counts: np.ndarray, free: np.ndarray | None = None, iterations: int = 20000
) -> tuple[np.ndarray, float]:
    """The plain EM fixed point (w_k <- w_k * grad_k / N): slow, simple, independent of ``solve_mixing``."""
    free = np.ones(like.shape[1], bool) if free is None else free
    w = np.where(free, 1.0, 0.0) / free.sum()
    total = counts.sum()
    for _ in range(iterations):
        w = w * (like.T @ (counts / (like @ w))) / total
    return w, mixture_loglik(like, counts, w)
