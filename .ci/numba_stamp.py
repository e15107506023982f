"""Give the installed package's compiled kernels' source files one fixed mtime, so that numba's cache kept
between CI runs (NUMBA_CACHE_DIR, restored by actions/cache) is taken: numba loads a cached kernel only while
its source file has the mtime and size it was compiled from, and every install writes the files anew. The
workflow keys that cache on the kernels' sources, so a changed kernel never meets a cache of its old code."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

STAMP = 1_000_000_000  # any fixed time: what matters is that every run's install has the same one


def main() -> None:
    # the installed copy, as the commands import it (from a folder outside the checkout)
    where = subprocess.run(
        [sys.executable, "-c", "import benchwatch, os; print(os.path.dirname(benchwatch.__file__))"],
        cwd=os.path.expanduser("~"),
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    for path in sorted(Path(where).rglob("*.py")):
        if "@njit(cache=True" in path.read_text(encoding="utf-8"):
            os.utime(path, (STAMP, STAMP))
            print(f"stamped {path}")


if __name__ == "__main__":
    main()
