"""The run's thread pools (benchwatch.threads): one per kind, reused, and forgotten in a forked child, which starts
its own (a child holding its parent's pool would wait forever on threads it does not have)."""

from __future__ import annotations

import os
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
