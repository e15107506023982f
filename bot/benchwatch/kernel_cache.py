"""Where numba keeps benchwatch's compiled kernels, so that a wheel can ship them (issue 42, cold start).

numba caches a compiled kernel beside its source file (``__pycache__``) under a stamp of that file: its mtime and
size. Every install writes the files anew, so a cache made when the wheel is built would never load after
``pip install .``: the first command compiled every kernel it called (about 12 s of one core for an audit).
benchwatch's kernels are stamped by their source's content instead (``SourceLocator``: SHA-256 of the file), and
the wheel's build (``hatch_build.py`` at the repository's root) compiles them into the wheel. The first command
after the install then loads them in milliseconds wherever numba's own key matches: the same numba, Python and
CPU (name and features) as the build's, which ``pip install .`` on the machine itself always gives. Elsewhere the
kernels compile on first use and are cached as before; a changed source never meets its old code (another hash).

The kernel modules decorate with this module's ``njit``, which puts ``SourceLocator`` in numba's list of cache
locators (``numba.config.CACHE_LOCATOR_CLASSES``, read when a kernel is decorated), for files of this package only:
first, unless NUMBA_CACHE_DIR is set (the kernels then go there, as numba does). Every other function, and a
benchwatch kernel where the package's folder is not writable, is cached as numba does by default.

``python -m benchwatch.kernel_build`` compiles every kernel the pipeline calls (the build's step)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from numba import njit as _numba_njit
from numba.core import config
from numba.core.caching import InTreeCacheLocator

PACKAGE = Path(__file__).resolve().parent
LOCATOR = "benchwatch.kernel_cache.SourceLocator"  # by name: numba imports it
# numba's own list (numba.core.caching.CacheImpl), by the names NUMBA_CACHE_LOCATOR_CLASSES takes
NUMBA_LOCATORS = (
    "UserProvidedCacheLocator",
    "InTreeCacheLocator",
    "UserWideCacheLocator",
    "IPythonCacheLocator",
    "ZipCacheLocator",
)


class SourceLocator(InTreeCacheLocator):
    """numba's in-tree cache (``__pycache__`` beside the source), stamped by the source file's content, not its
    mtime: a kernel compiled from the same file, at build time or on another install, stays valid."""

    def get_source_stamp(self) -> str:
        return "sha256:" + hashlib.sha256(Path(self._py_file).read_bytes()).hexdigest()

    @classmethod
    def from_function(cls, py_func, py_file):
        try:
            inside = Path(py_file).resolve().is_relative_to(PACKAGE)
        except (OSError, ValueError):
            inside = False
        if not inside:  # another package's function: numba's own locators
            return None
        return super().from_function(py_func, py_file)


def locators(current: str) -> str:
    """numba's list of cache locators with ``SourceLocator`` (once) first, or right after numba's for
    NUMBA_CACHE_DIR (a folder the user chose is where the kernels go: an empty one compiles them anew), the rest
    as they were."""
    listed = [name.strip() for name in current.split(",") if name.strip() and name.strip() != LOCATOR]
    listed = listed or list(NUMBA_LOCATORS)
    at = 1 if listed[0] == "UserProvidedCacheLocator" else 0
    return ",".join([*listed[:at], LOCATOR, *listed[at:]])


def njit(*args: Any, **kwargs: Any) -> Any:
    """``numba.njit``, with benchwatch's kernels cached by their source's content (see the module's docstring).
    numba without the locators setting (before 0.62) caches them as it does by default."""
    if kwargs.get("cache") and hasattr(config, "CACHE_LOCATOR_CLASSES"):
        config.CACHE_LOCATOR_CLASSES = locators(config.CACHE_LOCATOR_CLASSES)
    return _numba_njit(*args, **kwargs)
