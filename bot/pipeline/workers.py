"""A source's audits on both cores: forked workers (Linux), one benchmark each, published in order."""

from __future__ import annotations

import os
import sys
import time

from bot.errors import InputError
from bot.pipeline import benchmark
from bot.progress import Progress

AUDIT_ERRORS = (InputError, ValueError, ArithmeticError)  # a benchmark that cannot be audited is skipped
PARALLEL_CELLS = 20_000_000  # above this many cells in all, a source's audits run one at a time (memory)
_FORKED: list[dict] = []  # the audits forked workers run: inherited at the fork, nothing pickled on the way in


def _die_with_parent() -> None:
    """A worker ends when its run does, even killed (-9): it holds a copy of the run's lock file, which would
    otherwise stay locked until the worker finished on its own (Linux's parent-death signal)."""
    import contextlib
    import ctypes
    import signal

    with contextlib.suppress(OSError, AttributeError):  # no prctl: the worker ends at its next read of the pipe
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG


def _forked_audit(k: int) -> tuple:
    start = time.perf_counter()
    try:
        audit, how = benchmark.audit_with_history(**_FORKED[k])
    except AUDIT_ERRORS as exc:
        return None, str(exc), 0.0
    return (audit, how), None, time.perf_counter() - start


def run_audits(jobs: list[dict], bar: Progress) -> list[tuple]:
    """Each job's (audit, how) or None, the error that stopped it, and its seconds: on both cores where the
    machine has them (forked workers, one benchmark each; Linux only, where fork is safe for these libraries),
    one at a time otherwise, and always for a single benchmark or a source too large to hold twice."""
    global _FORKED
    cells = sum(len(j["rows"]) for j in jobs)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    if len(jobs) < 2 or cores < 2 or cells > PARALLEL_CELLS or sys.platform != "linux":
        out = []
        for job in jobs:
            bar.note(f"auditing {job['rows']['benchmark'].iloc[0]}")
            start = time.perf_counter()
            try:
                out.append((benchmark.audit_with_history(**job, progress=bar.note), None, time.perf_counter() - start))
            except AUDIT_ERRORS as exc:
                out.append((None, str(exc), 0.0))
        return out
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    _FORKED = jobs
    try:
        fork = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(min(2, cores, len(jobs)), mp_context=fork, initializer=_die_with_parent) as pool:
            futures = [pool.submit(_forked_audit, k) for k in range(len(jobs))]
            out = []
            for job, future in zip(jobs, futures, strict=True):
                out.append(future.result())
                bar.note(f"audited {job['rows']['benchmark'].iloc[0]}")
            return out
    finally:
        _FORKED = []
