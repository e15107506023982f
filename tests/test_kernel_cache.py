"""The compiled kernels travel with the package (issue 42, cold start): numba's cache of them is stamped by each
source's content, so a copy of the package with new mtimes (what every install writes) loads them without
compiling, and building the wheel puts a cache of every kernel the pipeline calls into it."""

from __future__ import annotations

import hashlib
import io
import os
import pickle
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest

import benchwatch
from benchwatch import kernel_build, kernel_cache
from benchwatch.kernel_cache import SourceLocator
from tests.conftest import ROOT

PACKAGE = Path(benchwatch.__file__).resolve().parent


def test_the_source_locator_comes_right_after_numba_cache_dirs_once():
    from numba.core.caching import CacheImpl, UserProvidedCacheLocator

    classes = CacheImpl._locator_classes
    assert classes.count(SourceLocator) == 1
    assert classes.index(SourceLocator) == classes.index(UserProvidedCacheLocator) + 1
    kernel_cache.register()
    assert classes.count(SourceLocator) == 1


def test_the_kernels_are_cached_by_the_source_locator():
    from benchwatch.irt.difficulty import npmle_solver

    assert isinstance(npmle_solver._loglik._cache._impl.locator, SourceLocator)


def test_other_packages_numba_functions_keep_their_locators():
    """numba's locators setting stays unset: PyTensor's compiled graphs (from '<string>', cached by a locator it
    registers the same way) still find theirs."""
    from numba.core import config

    assert not config.CACHE_LOCATOR_CLASSES
    pytensor = pytest.importorskip("pytensor")
    import pytensor.tensor as pt

    x = pt.vector("x")
    f = pytensor.function([x], (x[1:] * 2).sum(), mode="NUMBA")
    assert f([1.0, 2.0, 3.0]) == 10.0


def test_the_stamp_is_the_sources_content_not_its_mtime(tmp_path, monkeypatch):
    source = tmp_path / "kernels.py"
    source.write_text("def f():\n    return 1\n")
    monkeypatch.setattr(kernel_cache, "PACKAGE", tmp_path)
    from benchwatch.irt.difficulty.npmle_solver import _dot

    locator = SourceLocator.from_function(_dot.py_func, str(source))
    stamp = locator.get_source_stamp()
    assert stamp == "sha256:" + hashlib.sha256(source.read_bytes()).hexdigest()
    os.utime(source, (1_000_000_000, 1_000_000_000))  # a reinstall writes the file anew
    assert locator.get_source_stamp() == stamp
    source.write_text("def f():\n    return 2\n")  # a changed kernel never meets its old code
    assert locator.get_source_stamp() != stamp


def test_a_function_outside_the_package_is_left_to_numbas_locators():
    from benchwatch.irt.difficulty.npmle_solver import _dot

    assert SourceLocator.from_function(_dot.py_func, __file__) is None
    solver = PACKAGE / "irt" / "difficulty" / "npmle_solver.py"
    assert SourceLocator.from_function(_dot.py_func, str(solver)) is not None


COUNT = """
from benchwatch.kernel_build import every_kernel
import benchwatch
kernels = every_kernel()
for kernel, types, _ in kernels:
    kernel.compile(types)
hits = sum(sum(k.stats.cache_hits.values()) for k in {k for k, _, _ in kernels})
misses = sum(sum(k.stats.cache_misses.values()) for k in {k for k, _, _ in kernels})
print(benchwatch.__file__, len(kernels), hits, misses)
"""


def _count(env: dict) -> list[str]:
    done = subprocess.run([sys.executable, "-c", COUNT], capture_output=True, text=True, env=env, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.split()


def test_a_copy_with_new_mtimes_loads_every_kernel_without_compiling(tmp_path):
    """What ``pip install`` of a wheel with compiled kernels does: the files arrive with new mtimes, the cache
    files beside them; numba loads every kernel (cache hits), compiling none (no misses)."""
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "NUMBA_CACHE_LOCATOR_CLASSES")}
    _count(env)  # the installed package's cache: the wheel's (compiled here if this install has none yet)
    copy = tmp_path / "benchwatch"
    shutil.copytree(PACKAGE, copy, copy_function=shutil.copy)  # contents and cache files; mtimes of now
    for path in copy.rglob("*.py"):
        os.utime(path, (2_000_000_000, 2_000_000_000))
    where, kernels, hits, misses = _count({**env, "PYTHONPATH": str(tmp_path)})
    assert Path(where).resolve().is_relative_to(copy)
    assert (int(hits), int(misses)) == (int(kernels), 0)


@pytest.mark.slow
def test_the_wheel_ships_a_cache_of_every_kernel(tmp_path, monkeypatch):
    """Building the wheel (hatchling, in this process, the build hook compiling every kernel afresh in a
    subprocess, about 10 s of two cores) puts numba's index of every kernel the pipeline calls beside its source,
    stamped by that source's content, with an overload for each signature; and nothing in those files names a
    folder of the machine that built them."""
    hatchling = pytest.importorskip("hatchling.builders.wheel", reason="hatchling is a [dev] dependency")
    monkeypatch.delenv("BENCHWATCH_KERNEL_CACHE", raising=False)
    monkeypatch.delenv("BENCHWATCH_BUILD_KERNELS", raising=False)
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    [wheel] = hatchling.WheelBuilder(str(ROOT)).build(directory=str(tmp_path / "dist"), versions=["standard"])
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        for kernel, _, _ in kernel_build.every_kernel():
            func = kernel.py_func
            source = Path(func.__code__.co_filename)
            module = source.relative_to(PACKAGE)
            base = f"{source.stem}.{func.__qualname__}-{func.__code__.co_firstlineno}"
            folder = f"benchwatch/{module.parent.as_posix()}/__pycache__"
            index = f"{folder}/{base}.py{sys.version_info[0]}{sys.version_info[1]}.nbi"
            assert index in names, index
            stream = io.BytesIO(archive.read(index))
            pickle.load(stream)  # numba's version, then the stamp and the overloads
            stamp, overloads = pickle.loads(stream.read())
            content = (ROOT / "bot" / "benchwatch" / module).read_bytes()
            assert stamp == "sha256:" + hashlib.sha256(content).hexdigest()
            assert len(overloads) >= len([k for k, _, _ in kernel_build.every_kernel() if k is kernel])
            assert all(f"{folder}/{name}" in names for name in overloads.values())
        # numba keeps each kernel's source file's name in its cache: the copy's relative one, never a folder
        # of the machine that built the wheel
        cached = [archive.read(name) for name in names if name.endswith((".nbi", ".nbc"))]
        for place in (tempfile.gettempdir(), str(Path.home()), str(ROOT), "site-packages"):
            assert not any(place.encode() in data for data in cached), place
