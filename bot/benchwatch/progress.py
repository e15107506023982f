"""Progress of long work: a tqdm bar on a terminal, one plain line per step anywhere else (a CI log, a pipe).

Everything goes to standard error, so that what a command prints on standard output (a table, JSON) stays
clean. ``BENCHWATCH_PROGRESS=0`` silences it, ``=1`` forces the plain lines; inside ``silenced()`` (the Python
API's calls, unless asked for progress) nothing is shown either.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TextIO

_SILENT: ContextVar[bool] = ContextVar("benchwatch_progress_silent", default=False)


@contextmanager
def silenced(silent: bool = True) -> Iterator[None]:
    """No progress shown inside the block (with ``silent``): the Python API is silent unless asked."""
    token = _SILENT.set(silent or _SILENT.get())
    try:
        yield
    finally:
        _SILENT.reset(token)


def quiet() -> bool:
    """Whether progress is off here: ``BENCHWATCH_PROGRESS=0``, or inside ``silenced()``."""
    return _SILENT.get() or os.environ.get("BENCHWATCH_PROGRESS", "") == "0"


class Progress:
    """Steps of one piece of work: ``step(label)`` as each begins, ``note(text)`` for what happens inside it."""

    def __init__(self, total: int, desc: str, stream: TextIO | None = None):
        self.total, self.desc, self.stream = total, desc, stream or sys.stderr
        self.done = 0
        self.started = time.perf_counter()
        mode = os.environ.get("BENCHWATCH_PROGRESS", "")
        self.quiet = quiet()
        self.bar = None
        if not self.quiet and mode != "1" and getattr(self.stream, "isatty", lambda: False)():
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc=desc, file=self.stream, leave=False, dynamic_ncols=True)

    def step(self, label: str) -> None:
        """The next step begins."""
        if self.quiet:
            return
        if self.bar is not None:
            if self.done:
                self.bar.update(1)
            self.bar.set_postfix_str(label, refresh=True)
        else:
            print(f"  {self.desc} [{self.done + 1}/{self.total}] {label}", file=self.stream, flush=True)
        self.done += 1

    def note(self, text: str) -> None:
        """What the current step is doing now (a stage of a long audit)."""
        if self.quiet:
            return
        if self.bar is not None:
            self.bar.set_postfix_str(text, refresh=True)
        else:
            print(f"    {text} ({time.perf_counter() - self.started:.1f} s)", file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.update(self.total - self.bar.n)
            self.bar.close()


@contextmanager
def progress(total: int, desc: str, stream: TextIO | None = None) -> Iterator[Progress]:
    """A ``Progress`` for the duration of a block."""
    bar = Progress(total, desc, stream)
    try:
        yield bar
    finally:
        bar.close()


_KERNELS: list[Path] = []  # the folders of the kernels a first run compiles, as ``kernels_in`` was told them


def kernels_in(folder: Path) -> None:
    """Say where the kernels a first run compiles are (the fit's folder: numba caches them beside their source),
    so that ``kernels_compiled`` looks there: this module lies below every stage and imports none of them."""
    if folder not in _KERNELS:
        _KERNELS.append(folder)


def kernels_compiled() -> bool:
    """Whether numba has cached the compiled kernels of the folders ``kernels_in`` named (a first run compiles
    them: up to a minute)."""
    places = [folder / "__pycache__" for folder in _KERNELS]  # in the tree, else the user's cache
    places.append(Path.home() / ".cache" / "numba")
    if os.environ.get("NUMBA_CACHE_DIR"):  # numba then caches there alone
        places = [Path(os.environ["NUMBA_CACHE_DIR"])]
    return any(next(place.rglob("kernels.*.nbi"), None) is not None for place in places if place.is_dir())


def first_run_note(stream: TextIO | None = None) -> bool:
    """Say, before the silent stretch, that the kernels are being compiled when they are; True if it said so."""
    if quiet() or kernels_compiled():
        return False
    print(
        "first run: compiling the numerical kernels (numba; about a minute on a busy machine, once; "
        "later runs reuse them)",
        file=stream or sys.stderr,
        flush=True,
    )
    return True
