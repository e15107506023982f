"""Compile every kernel the pipeline calls, into numba's cache beside its source (``benchwatch.kernel_cache``):
the step of the wheel's build that ships them compiled (``hatch_build.py`` runs ``python -m benchwatch.kernel_build``
in a copy of the package)."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


def every_kernel() -> list[tuple[Callable[..., Any], tuple, float]]:
    """(kernel, argument types, seconds its first compile took on 2 cores) for every kernel the pipeline calls:
    the 1PL's and the bounds' (``compiled_kernels`` of each stage) and the item models' (floors, the 2PL)."""
    from benchwatch.irt import compiled_kernels, item_model_kernels
    from benchwatch.metrics import compiled_kernels as metrics_kernels

    return [*compiled_kernels(), *item_model_kernels(), *metrics_kernels()]


def shares_of(kernels: list[tuple], shares: int) -> list[list[tuple]]:
    """(kernel, types) in ``shares`` parts of about equal compiling time: the longest compiles first, each to the
    least loaded part (a run's workers and the wheel's build share the compiling so)."""
    parts: list[list[tuple]] = [[] for _ in range(max(1, shares))]
    load = [0.0] * len(parts)
    for kernel, types, seconds in sorted(kernels, key=lambda k: -k[2]):
        least = load.index(min(load))
        load[least] += seconds
        parts[least].append((kernel, types))
    return parts


def compile_all(shares: int = 1) -> int:
    """Compile (or load from the cache) every kernel of ``every_kernel``, in ``shares`` forked processes at once
    (``shares_of``); the number of kernels."""
    kernels = every_kernel()
    parts = shares_of(kernels, shares)
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


def scrub(package: Path) -> int:
    """Make the cache files under ``package`` name no folder of the machine that compiled them (the wheel's
    build): numba keeps each kernel's type annotation, which prints its source file's path and the modules it reads
    (numpy's, from the build environment), and the compiled code keeps the paths of numba's own sources in its
    error messages. The annotation is dropped (numba only shows it in ``inspect_types``); every path left under the
    package's folder or numba's installation becomes as many slashes (the same length: the pickled data and the
    object code stay whole). The number of files rewritten."""
    import pickle

    import numba
    from numba.core.serialize import dumps

    folders = [str(package.resolve().parent) + os.sep, str(Path(numba.__file__).resolve().parents[1]) + os.sep]
    count = 0
    for path in sorted(package.rglob("__pycache__/*.nbc")):
        parts = pickle.loads(path.read_bytes())  # CompileResult._reduce: the type annotation is the 7th part
        if not (isinstance(parts, tuple) and len(parts) == 9 and isinstance(parts[6], str)):
            raise RuntimeError(f"{path.name}: not the compiled result this numba writes")
        data = dumps((*parts[:6], "", *parts[7:]))
        for folder in folders:
            data = data.replace(folder.encode(), b"/" * len(folder.encode()))
        path.write_bytes(data)
        count += 1
    return count


def main() -> None:
    shares = max(1, min(2, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1))
    count = compile_all(shares if sys.platform == "linux" else 1)
    if "--for-wheel" in sys.argv[1:]:
        scrub(Path(__file__).resolve().parent)
    print(f"benchwatch: {count} kernels compiled", file=sys.stderr)


if __name__ == "__main__":
    main()
