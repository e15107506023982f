"""The first audit after an install, compiling on both cores (issue 42). numba compiles one kernel at a time in a
process (a global lock) but two processes compile at once, and a kernel one compiles reaches the other through
numba's cache on disk. So on a cold cache ``compile_ahead`` forks a helper that compiles the NPMLE solver (the longest
compile: about 6 s of one core, its callees included) while the audit's fit runs and compiles its own kernels;
the solver's first caller ``wait``s for it, compiling the audit's later kernels meanwhile. A warm cache (every
run after the first) starts nothing; a helper that fails costs only the wait: the solver then compiles where it
is called, as without one."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from typing import Any

_helper: Any = None  # the forked helper while it may still be compiling
_later: list[Callable[[], list[tuple]]] = []  # the other stages' compiled_kernels, compiled while waiting


def compile_ahead(*later: Callable[[], list[tuple]]) -> bool:
    """Fork the solver's compiling (Linux, a cold cache, a core idle: measured on two cores, 15.5 s became
    9-11 s with one idle and 15-16 s with none, the two processes' duplicated numba set-up costing about 1 s of
    CPU); True if a helper started. ``later``: other stages' ``compiled_kernels``, compiled in this process while
    it waits for the helper."""
    global _helper
    if _helper is not None or sys.platform != "linux" or len(os.sched_getaffinity(0)) < 2:
        return False
    if os.getloadavg()[0] > len(os.sched_getaffinity(0)) - 1:  # no idle core: a helper would only add its work
        return False
    from benchwatch.progress import kernels_compiled

    if kernels_compiled():
        return False
    import multiprocessing

    helper = multiprocessing.get_context("fork").Process(target=_compile_solver, daemon=True)
    helper.start()
    _helper = helper
    _later[:] = later
    return True


def _solver_kernels() -> list[tuple]:
    from benchwatch.irt.difficulty.npmle_solver import _loglik, _solve
    from benchwatch.irt.kernels import compiled_kernels

    return [(k, types) for k, types, _ in compiled_kernels() if k in (_solve, _loglik)]


def _compile_solver() -> None:  # pragma: no cover (runs in the forked helper)
    for kernel, types in _solver_kernels():
        kernel.compile(types)


def wait() -> None:
    """Before the solver's first call: while the helper compiles it, compile here the kernels the audit calls
    after it (the pipeline's, ``compiled_kernels``), then wait for the helper. A no-op without one."""
    global _helper
    helper, _helper = _helper, None
    if helper is None:
        return
    from benchwatch.irt.kernels import compiled_kernels

    solver = {k for k, _ in _solver_kernels()}
    for kernel, types, _ in [entry for kernels in [*_later, compiled_kernels] for entry in kernels()]:
        if not helper.is_alive():
            break
        if kernel not in solver:
            with contextlib.suppress(Exception):  # one that cannot be compiled here fails where it is called
                kernel.compile(types)
    helper.join()
