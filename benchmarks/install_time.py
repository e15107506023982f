"""The install as a user waits on it (issue 61): ``pip install .`` of this checkout into a fresh virtual environment
against ``pip install -r`` of its runtime dependencies alone (``[project] dependencies`` of pyproject.toml) into
another fresh one, timed in the same run in alternating rounds; then the first ``benchwatch audit`` of a 10-model x
50-item CSV in the last environment that installed ``.``.

Each install gets a venv of its own (``python -m venv``, not timed); only the pip command is timed. A first round of
each, not timed, warms pip's cache. The build of ``.`` compiles the numba kernels into the wheel from nothing
(``hatch_build.py``, BENCHWATCH_KERNEL_CACHE unset): its build environment gets only the numba, numpy and scipy
that the install resolves to (a dry run of the fresh environment's pip), not PyMC's tree.

The venvs get the pip this Python bundles (23.2 with Python 3.11.7), which byte-compiles the build environment;
``--upgrade-pip`` upgrades it first (not timed): pip 25.1 and later do not.

Targets: the median ``pip install .`` within 1.5x of the median install of the dependencies alone; the first audit
after it under 5 s (``cold_start.py`` measures it with the dependencies seen offline).
Run: ``python benchmarks/install_time.py [--rounds 3] [--upgrade-pip]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cold_start import ROOT, fresh_install, per_item_csv, timed  # the same install, CSV and timing

RATIO = 1.5
FIRST_AUDIT = 5.0


def fresh_venv(where: Path, upgrade_pip: bool) -> None:
    """A venv with the pip this Python bundles, or the newest (``--upgrade-deps``; ``cold_start.fresh_install``'s
    ``python -m venv`` on it then keeps that pip)."""
    upgrade = ["--upgrade-deps"] if upgrade_pip else []
    subprocess.run([sys.executable, "-m", "venv", *upgrade, str(where)], check=True, capture_output=True)


def dependencies_install(where: Path, requirements: Path, upgrade_pip: bool) -> float:
    """A venv with the runtime dependencies alone installed; the seconds of the install."""
    fresh_venv(where, upgrade_pip)
    start = time.perf_counter()
    subprocess.run([str(where / "bin" / "pip"), "install", "--quiet", "-r", str(requirements)], check=True)
    return time.perf_counter() - start


def rounds(root: Path, count: int, upgrade_pip: bool) -> tuple[list[float], list[float], Path]:
    """(seconds of each install of the dependencies alone, of each ``pip install .``, the bin folder of the last
    ``.`` venv), alternating, after a first round of each that is not counted; every other venv is removed once
    timed (each holds about a gigabyte)."""
    requirements = root / "requirements.txt"
    requirements.write_text("\n".join(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]))
    deps: list[float] = []
    dot: list[float] = []
    for number in range(count + 1):
        deps_seconds = dependencies_install(root / "deps", requirements, upgrade_pip)
        shutil.rmtree(root / "deps")
        shutil.rmtree(root / "dot", ignore_errors=True)
        if upgrade_pip:
            fresh_venv(root / "dot", upgrade_pip)
        bin_, dot_seconds = fresh_install(root / "dot", deps=True, kernels=True)
        label = "warm-up, not counted" if number == 0 else f"round {number} of {count}"
        print(f"{label}: dependencies alone {deps_seconds:.1f} s, pip install . {dot_seconds:.1f} s", flush=True)
        if number:
            deps.append(deps_seconds)
            dot.append(dot_seconds)
    return deps, dot, bin_


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds of each install (after a warm-up)")
    parser.add_argument("--upgrade-pip", action="store_true", help="the venvs' pip upgraded first (not timed)")
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="install-time-") as tmp:
        root = Path(tmp)
        deps, dot, bin_ = rounds(root, opts.rounds, opts.upgrade_pip)
        per_item_csv(root / "items.csv")
        (root / "work").mkdir()
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("NUMBA_CACHE_DIR", "PYTHONDONTWRITEBYTECODE", "NUMBA_CACHE_LOCATOR_CLASSES")
        }
        audit = timed([str(bin_ / "benchwatch"), "audit", str(root / "items.csv")], root / "work", env)
    deps_median, dot_median = statistics.median(deps), statistics.median(dot)
    ratio = dot_median / deps_median
    print(f"pip install -r <the runtime dependencies>: median {deps_median:.1f} s of {[round(s, 1) for s in deps]}")
    print(f"pip install .                            : median {dot_median:.1f} s of {[round(s, 1) for s in dot]}")
    print(f"ratio {ratio:.2f}x  (target: within {RATIO:g}x{'' if ratio <= RATIO else ', OVER'})")
    print(
        f"first benchwatch audit, 10 x 50: {audit:.1f} s  (target: under {FIRST_AUDIT:g} s"
        f"{'' if audit < FIRST_AUDIT else ', OVER'})"
    )


if __name__ == "__main__":
    main()
