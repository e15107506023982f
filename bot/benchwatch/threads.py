"""The run's thread pools, one per kind of work (the compiled kernels' cell ranges, the bounds' parts, the audit's
side work), each started on first use; a forked child (a worker of the run's executor,
``benchwatch.pipeline.workers``) has none of its parent's threads, so one fork hook forgets them all and the child
starts its own. The stages ask this module for their pool instead of each keeping a pool and a fork hook."""

from __future__ import annotations

import contextlib
import ctypes
import os
import threading
from concurrent.futures import ThreadPoolExecutor

CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
_pools: dict[str, ThreadPoolExecutor] = {}
_lock = threading.Lock()


M_ARENA_MAX = -8  # glibc's mallopt parameter: how many malloc arenas the process's threads may use


def share_arenas() -> None:
    """The process's threads allocate from at most max(2, ``CORES``) of glibc's malloc arenas (its default: eight a
    core; two, so that the main thread's arena is not the pools' only one).
    An arena keeps what its thread freed for that thread's next allocations: the tables one pool thread let go
    stayed mapped while another mapped new memory for its own, and a large audit's peak grew by what every thread
    had last held (1,500 x 5,000, floored: 0.92 GB -> 0.81 GB, the same time). Set when the first pool starts;
    glibc only (elsewhere, and where it is refused, nothing changes)."""
    with contextlib.suppress(OSError, AttributeError, TypeError):  # no C library by that name (Windows: TypeError)
        ctypes.CDLL(None).mallopt(M_ARENA_MAX, max(2, CORES))


def thread_pool(kind: str, workers: int) -> ThreadPoolExecutor:
    """The pool of ``kind`` (``workers`` threads named benchwatch-KIND), started on first use (the first of them
    caps the malloc arenas: ``share_arenas``)."""
    with _lock:
        pool = _pools.get(kind)
        if pool is None:
            if not _pools:
                share_arenas()
            pool = _pools[kind] = ThreadPoolExecutor(max_workers=workers, thread_name_prefix=f"benchwatch-{kind}")
        return pool


def _forget() -> None:
    global _lock
    _pools.clear()
    _lock = threading.Lock()  # a lock held by a parent's thread at the fork would never be released here


os.register_at_fork(after_in_child=_forget)
