"""The run's thread pools, one per kind of work (the compiled kernels' cell ranges, the bounds' parts, the audit's
side work), each started on first use; a forked child (a worker of the run's executor,
``benchwatch.pipeline.workers``) has none of its parent's threads, so one fork hook forgets them all and the child
starts its own. The stages ask this module for their pool instead of each keeping a pool and a fork hook."""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
_pools: dict[str, ThreadPoolExecutor] = {}
_lock = threading.Lock()


def thread_pool(kind: str, workers: int) -> ThreadPoolExecutor:
    """The pool of ``kind`` (``workers`` threads named benchwatch-KIND), started on first use."""
    with _lock:
        pool = _pools.get(kind)
        if pool is None:
            pool = _pools[kind] = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=f"benchwatch-{kind}")
        return pool


def _forget() -> None:
    global _lock
    _pools.clear()
    _lock = threading.Lock()  # a lock held by a parent's thread at the fork would never be released here


os.register_at_fork(after_in_child=_forget)
