"""A newcomer's first command and its rerun (issue 23): ``benchwatch run --sample`` in a fresh folder (no
reports, no caches of benchwatch's own; numba's compiled kernels as an installed package keeps them), then the
same command again with nothing changed, against ``python -c pass`` measured in the same run.

The package is timed as the README's ``pip install .`` leaves it: byte-compiled. An editable install under
PYTHONDONTWRITEBYTECODE=1 never writes bytecode, and every run (and every worker's later imports) would then
compile the package's source again, about 2 s of this command that no installed copy pays; the script
byte-compiles the imported package first (``compileall``, what pip runs at install; a no-op after it).

Targets (issue 42): the first run under 10 s, the unchanged rerun under 2 s. It also times the very first run after an
install, when numba compiles its kernels (into an empty cache folder of its own, NUMBA_CACHE_DIR).
Run: ``python benchmarks/sample_run.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed(argv: list[str], cwd: Path, env: dict | None = None) -> tuple[float, str]:
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{argv}: exit {done.returncode}: {done.stderr.strip()[-500:]}")
    return seconds, done.stdout


def byte_compile(python: list[str]) -> Path:
    """Byte-compile the package the command imports (from a folder outside the checkout), as pip does."""
    with tempfile.TemporaryDirectory() as away:
        where = subprocess.run(
            [*python, "-c", "import benchwatch, os; print(os.path.dirname(benchwatch.__file__))"],
            cwd=away,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    subprocess.run([*python, "-m", "compileall", "-q", where], check=True)
    return Path(where)


def main() -> None:
    python = [sys.executable]
    package = byte_compile(python)
    bare = min(timed([*python, "-c", "pass"], ROOT)[0] for _ in range(5))
    command = [*python, "-m", "benchwatch.cli", "run", "--sample"]
    with tempfile.TemporaryDirectory() as cold, tempfile.TemporaryDirectory() as kernels:
        # the very first run after an install: numba compiles every kernel (into an empty cache of its own)
        installed, _ = timed(command, Path(cold), env={**os.environ, "NUMBA_CACHE_DIR": kernels})
    with tempfile.TemporaryDirectory() as warm:  # numba's kernels compiled once, as after that first run
        timed(command, Path(warm))
    with tempfile.TemporaryDirectory() as folder:
        first, out = timed(command, Path(folder))
        again, out2 = timed(command, Path(folder))
    print(f"package: {package} (byte-compiled)")
    print(f"python -c pass: {bare:.3f} s")
    print(f"benchwatch run --sample, fresh folder: {first:.1f} s = {first / bare:.0f}x (target: under 10 s)")
    print(f"the same, unchanged rerun: {again:.2f} s = {again / bare:.0f}x (target: under 2 s)")
    print(f"the first run after an install (numba compiling its kernels): {installed:.1f} s = {installed / bare:.0f}x")
    for line in out.splitlines():
        if line.startswith(("source", "site", "reports")):
            print("  first: " + line[:160])
    for line in out2.splitlines():
        if line.startswith(("source", "site")):
            print("  rerun: " + line[:160])


if __name__ == "__main__":
    main()
