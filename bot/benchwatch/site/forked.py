"""The one forked process a MkDocs plugin of an atlas's build runs its work in, beside the build
(``benchwatch.site.assets_beside``, ``benchwatch.site.render_beside``): started once, its result taken once, shut
down after the build or at its error."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

from mkdocs.plugins import BasePlugin


class ForkedJob(BasePlugin):
    """A plugin whose work runs in one forked process: ``_start`` it, take its ``_result`` (waiting for it)."""

    def __init__(self) -> None:
        super().__init__()
        self._pool: ProcessPoolExecutor | None = None
        self._future: Future | None = None
        self._taken = False
        self._done: Any = None

    def _start(self, work: Callable[..., Any], *args: Any) -> None:
        """Fork the process (it inherits this one's memory as it is now) and run ``work(*args)`` there."""
        self._pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"))
        self._future = self._pool.submit(work, *args)

    def _result(self) -> Any:
        if not self._taken:
            assert self._future is not None, "the forked job was never started"
            try:
                self._done = self._future.result()
            finally:
                self._close()
            self._taken = True
        return self._done

    def on_post_build(self, *, config: Any) -> None:
        self._close()

    def on_build_error(self, *, error: Exception) -> None:
        self._close()

    def _close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None
