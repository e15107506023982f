"""A first audit after an install compiles the NPMLE solver in a forked helper, beside its fit (issue 42)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from benchwatch.irt import ahead


def test_a_warm_cache_starts_no_helper(monkeypatch):
    monkeypatch.setattr("benchwatch.progress.kernels_compiled", lambda: True)
    assert ahead.compile_ahead() is False and ahead._helper is None
    ahead.wait()  # without a helper: nothing to wait for


def test_no_helper_on_one_core(monkeypatch):
    monkeypatch.setattr("benchwatch.progress.kernels_compiled", lambda: False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda _: {0})
    assert ahead.compile_ahead() is False and ahead._helper is None


def test_no_helper_when_no_core_is_idle(monkeypatch):
    monkeypatch.setattr("benchwatch.progress.kernels_compiled", lambda: False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda _: {0, 1})
    monkeypatch.setattr(os, "getloadavg", lambda: (1.5, 1.0, 1.0))
    assert ahead.compile_ahead() is False and ahead._helper is None


PROBE = """
import os
os.getloadavg = lambda: (0.0, 0.0, 0.0)  # the suite's other workers may be busy
from benchwatch.irt import ahead
from benchwatch.irt.difficulty.npmle_solver import _solve
assert ahead.compile_ahead()
assert ahead._helper.is_alive()
ahead.wait()
assert ahead._helper is None and not _solve.signatures  # this process compiled no solver
[(kernel, types)] = [k for k in ahead._solver_kernels() if k[0] is _solve]
kernel.compile(types)
print(sum(_solve.stats.cache_hits.values()), sum(_solve.stats.cache_misses.values()))
"""


@pytest.mark.slow
def test_the_helper_compiles_the_solver_into_numbas_cache(tmp_path):
    """On an empty cache the helper compiles the solver; the audit's process then loads it from disk."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["1", "0"]  # loaded from the helper's cache, never compiled here
    assert list(tmp_path.rglob("npmle_solver._solve-*.nbi"))
