"""The audit's side work: the thread pool that runs what needs none of the fit beside it, and the simulations
it keeps (what n target items show by chance), by size and target, in the floor cache."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from benchwatch import threads
from benchwatch.metrics import Cache, Target, no_cache, pool_key, sampling_levels, target_reference
from benchwatch.store import json_memo


def side_pool() -> ThreadPoolExecutor:
    """The audit's side threads (``benchwatch.threads``)."""
    return threads.thread_pool("audit", 4)


def cached_reference(n_items: int, target: Target, cache: Cache) -> dict:
    """``target_reference`` (pure simulation of n target items), kept by size and target."""
    if target.kind == "empirical":
        return target_reference(n_items, target)
    key = pool_key("target_reference", n_items, target.kind, target.a, target.b)
    return {k: tuple(v) for k, v in cache(key, lambda: target_reference(n_items, target)).items()}


def cached_levels(n_items: int, target: Target, cache: Cache) -> dict:
    if target.kind == "empirical":
        return sampling_levels(n_items, target)
    key = pool_key("sampling_levels", n_items, target.kind, target.a, target.b)
    return cache(key, lambda: sampling_levels(n_items, target))


FLOOR_CACHE_ENV = "BENCHWATCH_FLOOR_CACHE"


def floor_cache(folder: str | Path | None = None) -> Cache:
    """Where simulations are kept (what n target items show by chance; what pool would decide a verdict):
    ``folder``, else the folder named by $BENCHWATCH_FLOOR_CACHE, else none.

    Each depends only on the pool, the size, the target, the scale and the level asked, so one folder can
    serve every reports folder of a machine (the sample, the live run, tests).
    """
    folder = folder or os.environ.get(FLOOR_CACHE_ENV)
    return json_memo(folder) if folder else no_cache
