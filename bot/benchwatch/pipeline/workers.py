"""The run's audits on both cores: two forked workers for the whole run (Linux), across sources: a source's
audits run while the run goes on to the next source, and each source publishes its results in order once they
are all in (``benchwatch.pipeline.gather``)."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from benchwatch.errors import InputError
from benchwatch.pipeline import benchmark
from benchwatch.progress import Progress

AUDIT_ERRORS = (InputError, ValueError, ArithmeticError)  # a benchmark that cannot be audited is skipped
PARALLEL_CELLS = 20_000_000  # a job with more cells than half this runs alone, in the run's own process (memory)
WARM_WAIT = 120.0  # seconds a worker waits for the others to ready their part of the compiled kernels


def _die_with_parent() -> None:
    """A worker ends when its run does, even killed (-9): it holds a copy of the run's lock file, which would
    otherwise stay locked until the worker finished on its own (Linux's parent-death signal)."""
    import contextlib
    import ctypes
    import signal

    with contextlib.suppress(OSError, AttributeError):  # no prctl: the worker ends at its next read of the pipe
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG


def _my_kernels(share: int, shares: int) -> list[tuple]:
    """This worker's part of the compiled kernels: the longest compiles first, each to the least loaded part."""
    from benchwatch.irt import compiled_kernels as irt_kernels
    from benchwatch.kernel_build import shares_of
    from benchwatch.metrics import compiled_kernels as metrics_kernels

    return shares_of([*irt_kernels(), *metrics_kernels()], shares)[share]


_share: int | None = None  # this worker's part of the kernels (None outside a forked worker)
_blas: object = None  # the worker's BLAS limit, held for its life


def _start_worker(counter, barrier) -> None:
    """A worker's start: it ends with its run (``_die_with_parent``) and readies its part of the compiled
    kernels, then waits for the others. On the first run after an install numba compiles them (about 12 s of
    one core, which each worker would otherwise spend on every kernel); the workers share the compiling and
    load the others' parts from numba's cache when first called. Later runs load their part from the cache."""
    import contextlib
    import threading

    global _share, _blas
    _die_with_parent()
    from threadpoolctl import threadpool_limits

    # one BLAS thread a worker: beside the other worker on two cores, BLAS's own threads only wait on each other
    # (the shipped atlas, 179 benchmarks: 254 s of CPU and 134 s fresh with them, 190 s and 102 s without)
    _blas = threadpool_limits(1, "blas")
    with counter.get_lock():
        share, counter.value = counter.value, counter.value + 1
    _share = share
    for kernel, types in _my_kernels(share % barrier.parties, barrier.parties):
        with contextlib.suppress(Exception):  # one that cannot be compiled here fails where it is called, named
            kernel.compile(types)
    with contextlib.suppress(threading.BrokenBarrierError):  # a worker that died: the pool reports it
        barrier.wait(timeout=WARM_WAIT)


def _audit(job: dict, progress=None) -> tuple:
    """(audit, how) or None, the error that stopped it, and its seconds."""
    start = time.perf_counter()
    try:
        extra = {} if progress is None else {"progress": progress}
        done = benchmark.audit_with_history(**job, **extra)
    except AUDIT_ERRORS as exc:
        return None, str(exc), 0.0
    return done, None, time.perf_counter() - start


def _pickled_audit(job: dict) -> tuple:  # pragma: no cover (runs in a worker)
    """A worker's audit: the job came pickled (its rows, not its source's whole table)."""
    return _audit(job)


def _cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


@dataclass(frozen=True)
class TableRef:
    """What an audit reads of its source's table: where it came from, and whether it is synthetic."""

    location: str
    synthetic: bool


class Executor(Protocol):
    """Where the run's audits and other pure work run, by ticket: ``submit`` an audit or ``call`` a module-level
    function now, read its ``result`` later (waiting for it; raising what the work raised)."""

    def submit(self, job: dict, bar: Progress) -> int: ...

    def call(self, fn: Callable[..., Any], /, **kwargs: Any) -> int: ...

    def result(self, ticket: int) -> Any: ...

    def close(self) -> None: ...


class SerialExecutor:
    """Every job in the run's own process, in turn, when it is submitted (no fork, no thread): its result, or
    what it raised, kept for its ticket."""

    def __init__(self) -> None:
        self.done: dict[int, Any] = {}
        self.failed: dict[int, Exception] = {}
        self._next = 0

    def _ticket(self) -> int:
        ticket, self._next = self._next, self._next + 1
        return ticket

    def submit(self, job: dict, bar: Progress) -> int:
        ticket = self._ticket()
        bar.note(f"auditing {job['rows']['benchmark'].iloc[0]}")
        self.done[ticket] = _audit(job, bar.note)
        return ticket

    def call(self, fn: Callable[..., Any], /, **kwargs: Any) -> int:
        ticket = self._ticket()
        try:
            self.done[ticket] = fn(**kwargs)
        except Exception as exc:  # raised where the result is read, as from a worker
            self.failed[ticket] = exc
        return ticket

    def result(self, ticket: int) -> Any:
        if ticket in self.failed:
            raise self.failed.pop(ticket)
        return self.done.pop(ticket)

    def close(self) -> None:
        pass


class ForkedExecutor(SerialExecutor):
    """Two forked workers for the whole run (Linux, two cores or more; their compiled kernels loaded once each),
    each job pickled to them without its source's table. Where forking is not possible, and for a job too large
    to hold twice, the job runs as ``SerialExecutor``'s, in the run's own process."""

    def __init__(self, forked: bool | None = None) -> None:
        super().__init__()
        self.slots = min(2, _cores())
        self.forked = (sys.platform == "linux" and self.slots >= 2) if forked is None else forked
        self.futures: dict[int, tuple] = {}  # ticket -> (future, job's name, bar)
        self._executor: Any = None

    def submit(self, job: dict, bar: Progress) -> int:
        if not self.forked or len(job["rows"]) > PARALLEL_CELLS // 2:
            self._drain()  # a large job alone: what runs beside it would hold its memory twice
            return super().submit(job, bar)
        ticket = self._ticket()
        light = {**job, "table": TableRef(job["table"].location, bool(job["table"].synthetic))}
        self.futures[ticket] = (self._pool().submit(_pickled_audit, light), job["rows"]["benchmark"].iloc[0], bar)
        return ticket

    def call(self, fn: Callable[..., Any], /, **kwargs: Any) -> int:
        """Any other pure function of the run's work (a module-level one: it is pickled by name), beside the
        audits."""
        if not self.forked:
            return super().call(fn, **kwargs)
        ticket = self._ticket()
        self.futures[ticket] = (self._pool().submit(fn, **kwargs), None, None)
        return ticket

    def result(self, ticket: int) -> Any:
        """The job's result, waiting for it; an audit that raised something else fails its source here."""
        if ticket not in self.futures:
            return super().result(ticket)
        future, name, bar = self.futures.pop(ticket)
        out = future.result()
        if bar is not None:
            bar.note(f"audited {name}")
        return out

    def close(self) -> None:
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None

    def _pool(self):
        if self._executor is None:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            fork = multiprocessing.get_context("fork")
            self._executor = ProcessPoolExecutor(
                self.slots,
                mp_context=fork,
                initializer=_start_worker,
                initargs=(fork.Value("i", 0), fork.Barrier(self.slots)),
            )
        return self._executor

    def _drain(self) -> None:
        for future, _, _ in self.futures.values():
            future.exception()  # waits; the result stays for its ticket
