"""Where numba keeps benchwatch's compiled kernels, so that a wheel can ship them (issue 42, cold start).

numba caches a compiled kernel beside its source file (``__pycache__``) under a stamp of that file: its mtime and
size. Every install writes the files anew, so a cache made when the wheel is built would never load after
``pip install .``: the first command compiled every kernel it called (about 12 s of one core for an audit).
benchwatch's kernels are stamped by their source's content instead (``SourceLocator``: SHA-256 of the file), and
the wheel's build (``hatch_build.py`` at the repository's root) compiles them into the wheel. The first command
after the install then loads them in milliseconds wherever numba's own key matches: the same numba, Python and
CPU (name and features) as the build's, which ``pip install .`` on the machine itself always gives. Elsewhere the
kernels compile on first use and are cached as before; a changed source never meets its old code (another hash).

The kernel modules decorate with this module's ``njit``; importing it registers ``SourceLocator`` in numba's list
of cache locators (``numba.core.caching.CacheImpl._locator_classes``, where PyTensor registers its own) right after
numba's for NUMBA_CACHE_DIR, so that a folder the user chose still takes the kernels (an empty one compiles them
anew). It answers for this package's files only: every other function is cached as before, and so is a benchwatch
kernel where the package's folder is not writable, or where NUMBA_CACHE_LOCATOR_CLASSES names the locators.

``python -m benchwatch.kernel_build`` compiles every kernel the pipeline calls (the build's step)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from numba import njit as _numba_njit
from numba.core.caching import CacheImpl

try:
    from numba.core.caching import InTreeCacheLocator, UserProvidedCacheLocator
except ImportError:  # numba before 0.62 names them with an underscore (pyproject allows 0.59 on)
    from numba.core.caching import _InTreeCacheLocator as InTreeCacheLocator  # type: ignore[attr-defined,no-redef]
    from numba.core.caching import _UserProvidedCacheLocator as UserProvidedCacheLocator  # type: ignore[attr-defined,no-redef]

PACKAGE = Path(__file__).resolve().parent


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


def register() -> None:
    """Put ``SourceLocator`` in numba's list of cache locators, once: right after NUMBA_CACHE_DIR's, else first."""
    classes = CacheImpl._locator_classes
    if SourceLocator in classes:
        return
    at = classes.index(UserProvidedCacheLocator) + 1 if UserProvidedCacheLocator in classes else 0
    classes.insert(at, SourceLocator)


register()
njit = _numba_njit  # the kernels' decorator: importing it from here registers the locator before they are decorated
