"""The run's thread pools (benchwatch.threads): one per kind, reused, and forgotten in a forked child, which starts
its own (a child holding its parent's pool would wait forever on threads it does not have)."""

from __future__ import annotations

import os
import platform
import sys

import pytest

from benchwatch import threads


def test_one_pool_per_kind_reused():
    first = threads.thread_pool("test-kind", 2)
    assert threads.thread_pool("test-kind", 2) is first
    assert threads.thread_pool("test-other", 1) is not first
    assert first.submit(lambda: 6 * 7).result() == 42


@pytest.mark.skipif(sys.platform != "linux", reason="fork: the workers of the run's executor fork on Linux only")
def test_a_forked_child_starts_its_own_pools():
    parent = threads.thread_pool("test-fork", 1)
    parent.submit(lambda: None).result()
    pid = os.fork()
    if pid == 0:  # the child: no pool of its parent's, and a new one that runs
        ok = "test-fork" not in threads._pools
        child = threads.thread_pool("test-fork", 1)
        ok = ok and child is not parent and child.submit(lambda: 1).result(timeout=10) == 1
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


ARENA_PROBE = """
import ctypes, os, sys, tempfile, threading
from concurrent.futures import ThreadPoolExecutor
import numpy as np
from benchwatch import threads
threads.CORES = 2  # as on a two-core machine, whatever this one has: at most two arenas
pool = threads.thread_pool("probe", 6) if sys.argv[1] == "pools" else ThreadPoolExecutor(6)
together = threading.Barrier(6)
def work(_):
    together.wait()  # all six allocating at once: glibc gives a thread that finds its arena busy another one
    return len([np.ones(20_000) for _ in range(200)])
list(pool.map(work, range(6)))
libc = ctypes.CDLL(None)
libc.fopen.restype = ctypes.c_void_p
handle, path = tempfile.mkstemp()
os.close(handle)
out = libc.fopen(path.encode(), b"w")
libc.malloc_info(0, ctypes.c_void_p(out))
libc.fclose(ctypes.c_void_p(out))
print(open(path).read().count("<heap nr="))
os.unlink(path)
"""


@pytest.mark.skipif(
    platform.libc_ver()[0] != "glibc",
    reason="the arenas are glibc's malloc's (mallopt, malloc_info): on another C library share_arenas changes nothing",
)
def test_the_pools_threads_share_the_cores_malloc_arenas():
    """Six threads of a pool allocating at once use at most max(2, cores) malloc arenas (``share_arenas``; two
    cores here, whatever the machine has); six of a plain executor in a fresh process, more (so the probe tells the
    two apart)."""
    import subprocess

    def arenas(kind: str) -> int:
        done = subprocess.run([sys.executable, "-c", ARENA_PROBE, kind], capture_output=True, text=True, check=True)
        return int(done.stdout.strip())

    assert arenas("pools") <= 2 < arenas("plain")
