"""The job's phases (a test may stop the run at one: ``phase`` is looked up here at each call), the
run's clock and its stage lines."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime


def phase(name: str) -> None:
    """A boundary between two phases of a run: fetch, fit, snapshot save, staging, run log, commit swap, site
    build, site swap. Nothing happens here; the kill tests stop a run at each of them."""


def utc_now() -> str:
    """The current time as an ISO 8601 UTC timestamp to the second."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@contextmanager
def stage(name: str, log: Callable[[str], None]) -> Iterator[list[str]]:
    """Time one stage and print one line for it (details appended by the caller)."""
    notes: list[str] = []
    start = time.perf_counter()
    yield notes
    log(f"{name:<9} {time.perf_counter() - start:7.2f}s  {'; '.join(notes)}")
