"""The run's workers: the compiled kernels readied at their start, each worker its part."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from benchwatch.irt import compiled_kernels as irt_kernels
from benchwatch.metrics import compiled_kernels as metrics_kernels
from benchwatch.pipeline import workers


def _key(kernel, types) -> tuple[str, str]:
    return kernel.py_func.__qualname__, str(tuple(types))


@pytest.mark.parametrize("shares", [1, 2, 3])
def test_the_workers_share_every_kernel_once_and_evenly(shares):
    every = [(_key(k, t), seconds) for k, t, seconds in [*irt_kernels(), *metrics_kernels()]]
    parts = [[_key(k, t) for k, t in workers._my_kernels(s, shares)] for s in range(shares)]
    flat = [key for part in parts for key in part]
    assert sorted(flat) == sorted(key for key, _ in every)  # each kernel in exactly one part
    cost = dict(every)
    loads = [sum(cost[key] for key in part) for part in parts]
    assert max(loads) - min(loads) <= max(cost.values()) + 1e-9  # no part waits on more than one long compile


_READY_IN_WORKERS = r"""
import json
from benchwatch.irt import compiled_kernels as irt_kernels
from benchwatch.metrics import compiled_kernels as metrics_kernels
from benchwatch.pipeline import workers

def ready():  # in a worker: its part, and which of the listed kernels it holds compiled
    held = [[k.py_func.__qualname__, str(tuple(t))] for k, t, _ in [*irt_kernels(), *metrics_kernels()]
            if str(tuple(t)) in {str(tuple(s)) for s in k.signatures}]
    return workers._share, held

if __name__ == "__main__":
    import __main__
    __main__.ready = ready
    pool = workers.ForkedExecutor(forked=True)
    try:
        print(json.dumps([pool.result(pool.call(ready)) for _ in range(8)]))
    finally:
        pool.close()
"""


def test_each_forked_worker_starts_with_its_own_part_of_the_kernels_ready(tmp_path):
    """In a process that has compiled nothing, the two workers take parts 0 and 1 at their start and hold their
    part's kernels before any call of them."""
    if sys.platform != "linux" or workers._cores() < 2:
        pytest.skip("the run forks its workers on Linux with two cores or more only")
    script = tmp_path / "ready.py"
    script.write_text(_READY_IN_WORKERS)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    answers = json.loads(done.stdout.strip().splitlines()[-1])
    parts = {s: {_key(k, t) for k, t in workers._my_kernels(s, 2)} for s in (0, 1)}
    assert {share for share, _ in answers} <= {0, 1}
    for share, held in answers:
        assert parts[share] <= {tuple(key) for key in held}


_AUDIT_COMPILES = r"""
import json, os, tempfile
from benchwatch.irt import compiled_kernels as irt_kernels
from benchwatch.metrics import compiled_kernels as metrics_kernels
import benchwatch.irt.kernels, benchwatch.irt.difficulty.npmle_solver, benchwatch.metrics.kernels
from numba.core.registry import CPUDispatcher
from benchwatch.pipeline import workers

listed = [*irt_kernels(), *metrics_kernels()]
for kernel, types, _ in listed:
    kernel.compile(types)
def compiled():
    out = {}
    for mod in (benchwatch.irt.kernels, benchwatch.irt.difficulty.npmle_solver, benchwatch.metrics.kernels):
        for name, obj in vars(mod).items():
            if isinstance(obj, CPUDispatcher) and obj.py_func.__module__ == mod.__name__:
                out[mod.__name__ + "." + name] = sorted(str(tuple(s)) for s in obj.signatures)
    return out
before = compiled()
wrong = [k.py_func.__qualname__ for k, t, _ in listed if str(tuple(t)) not in {str(tuple(s)) for s in k.signatures}]
workers._cores = lambda: 1  # every audit in this process, where its compiles can be seen
os.chdir(tempfile.mkdtemp())
from benchwatch.cli import main
main(["run", "--sample"])
after = compiled()
print(json.dumps({"wrong": wrong, "new": {k: sorted(set(v) - set(before.get(k, []))) for k, v in after.items()}}))
"""


@pytest.mark.slow
def test_the_listed_kernels_are_every_compile_of_the_sample_run(tmp_path):
    """What the workers ready at their start is all a run compiles: the sample's run (per-item benchmarks of
    every kind, leaderboards, real LiveCodeBench items) calls no kernel with other argument types."""
    env = {k: v for k, v in os.environ.items() if k != "BENCHWATCH_FLOOR_CACHE"}
    done = subprocess.run(
        [sys.executable, "-c", _AUDIT_COMPILES], capture_output=True, text=True, cwd=tmp_path, env=env, timeout=600
    )
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["wrong"] == []  # each listed type signature is the one the kernel is compiled for
    assert {k: v for k, v in report["new"].items() if v} == {}
