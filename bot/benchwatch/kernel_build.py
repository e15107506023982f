"""Compile every kernel the pipeline calls, into numba's cache beside its source (``benchwatch.kernel_cache``):
the step of the wheel's build that ships them compiled (``hatch_build.py`` runs ``python -m benchwatch.kernel_build``
in a copy of the package)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any


def every_kernel() -> list[tuple[Callable[..., Any], tuple, float]]:
    """(kernel, argument types, seconds its first compile took on 2 cores) for every kernel the pipeline calls:
    the 1PL's and the bounds' (``compiled_kernels`` of each stage) and the item models' (floors, the 2PL)."""
    from benchwatch.irt import compiled_kernels, item_model_kernels
    from benchwatch.metrics import compiled_kernels as metrics_kernels

    return [*compiled_kernels(), *item_model_kernels(), *metrics_kernels()]


def compile_all(shares: int = 1) -> int:
    """Compile (or load from the cache) every kernel of ``every_kernel``, in ``shares`` forked processes at once
    (longest compiles first, each to the least loaded process); the number of kernels."""
    kernels = sorted(every_kernel(), key=lambda k: -k[2])
    parts: list[list[tuple]] = [[] for _ in range(max(1, shares))]
    load = [0.0] * len(parts)
    for kernel, types, seconds in kernels:
        least = load.index(min(load))
        load[least] += seconds
        parts[least].append((kernel, types))
    children = []
    for part in parts[1:]:
        pid = os.fork() if part else -1
        if pid == 0:  # pragma: no cover (the forked child)
            code = 0
            try:
                for kernel, types in part:
                    kernel.compile(types)
            except BaseException:  # reported by the exit status
                code = 1
            os._exit(code)
        if pid > 0:
            children.append(pid)
    for kernel, types in parts[0]:
        kernel.compile(types)
    failed = [pid for pid in children if os.waitpid(pid, 0)[1] != 0]
    if failed:
        raise RuntimeError(f"{len(failed)} of the compiling processes failed")
    return len(kernels)


def main() -> None:
    shares = max(1, min(2, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1))
    count = compile_all(shares if sys.platform == "linux" else 1)
    print(f"benchwatch: {count} kernels compiled", file=sys.stderr)


if __name__ == "__main__":
    main()
