"""The first commands after ``pip install .`` into a fresh virtual environment (issue 42, cold start): the first
``benchwatch audit`` of a 10-model x 50-item CSV, the first ``run --sample`` in a fresh folder, the same in another
fresh folder, and the unchanged rerun there, each through the fresh environment's console script against
``python -c pass`` measured in the same run.

The environment: ``python -m venv`` under a temporary folder and ``pip install --no-deps .`` of this checkout (a
wheel, byte-compiled as pip leaves it; its build compiles numba's kernels into the wheel, ``hatch_build.py``,
with hatchling, numba, numpy and PyMC from the package registry or pip's cache). The dependencies are the running
environment's, seen through a .pth file (the only offline way; ``--deps`` installs them from the registry
instead, as a user's ``pip install .`` does). The first audit and the first ``run --sample`` each get an install of
their own, so that neither finds what the other compiled; ``--no-kernels`` builds the wheels without compiled
kernels (BENCHWATCH_BUILD_KERNELS=0: numba compiles on first use), the baseline before the wheel shipped them.

Targets: the first audit under 5 s, the first ``run --sample`` under 12 s, a fresh folder with compiled kernels
under 10 s, the unchanged rerun under 2 s. Run: ``python benchmarks/cold_start.py [--deps] [--no-kernels]``.
"""

from __future__ import annotations

import argparse
import os
import site
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from small_commands import per_item_csv  # noqa: E402 (the same 10 x 50 CSV)

TARGETS = {
    "first audit, 10 x 50": 5.0,
    "first run --sample": 12.0,
    "run --sample, fresh folder, kernels compiled": 10.0,
    "run --sample, unchanged rerun": 2.0,
}


def timed(argv: list[str], cwd: Path, env: dict) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{argv}: exit {done.returncode}: {done.stderr.strip()[-800:]}")
    return seconds


def fresh_install(where: Path, deps: bool, kernels: bool) -> tuple[Path, float]:
    """A venv with this checkout installed as ``pip install .`` leaves it; its bin folder and the install's seconds."""
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True)
    if not deps:  # the running environment's packages, behind the fresh one's own
        purelib = Path(
            subprocess.check_output(
                [where / "bin" / "python", "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], text=True
            ).strip()
        )
        (purelib / "_benchmark_deps.pth").write_text("\n".join(site.getsitepackages()) + "\n")
    start = time.perf_counter()
    argv = [str(where / "bin" / "pip"), "install", "--quiet", *([] if deps else ["--no-deps"]), str(ROOT)]
    env = {**os.environ, "BENCHWATCH_BUILD_KERNELS": "1" if kernels else "0"}
    env.pop("BENCHWATCH_KERNEL_CACHE", None)  # the build compiles from nothing
    subprocess.run(argv, check=True, env=env)
    return where / "bin", time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deps", action="store_true", help="install the dependencies from the package registry")
    parser.add_argument("--no-kernels", action="store_true", help="build the wheels without compiled kernels")
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        installs: dict[str, float] = {}
        base = {
            k: v
            for k, v in os.environ.items()
            if k not in ("NUMBA_CACHE_DIR", "PYTHONDONTWRITEBYTECODE", "NUMBA_CACHE_LOCATOR_CLASSES")
        }
        per_item_csv(root / "items.csv")
        times: dict[str, float] = {}
        for name in ("audit", "sample"):
            bin_, installs[name] = fresh_install(root / f"venv-{name}", opts.deps, not opts.no_kernels)
            (root / f"work-{name}").mkdir()
            bw = str(bin_ / "benchwatch")
            if name == "audit":
                bare = min(timed([str(bin_ / "python"), "-c", "pass"], root, base) for _ in range(5))
                audit = [bw, "audit", str(root / "items.csv")]
                times["first audit, 10 x 50"] = timed(audit, root / "work-audit", base)
                times["audit again"] = timed(audit, root, base)
            else:
                sample = [bw, "run", "--sample"]
                times["first run --sample"] = timed(sample, root / "work-sample", base)
                (root / "again").mkdir()
                times["run --sample, fresh folder, kernels compiled"] = timed(sample, root / "again", base)
                times["run --sample, unchanged rerun"] = timed(sample, root / "again", base)
    kind = "without compiled kernels" if opts.no_kernels else "kernels compiled at build"
    for name, seconds in installs.items():
        flag = "" if opts.deps else " --no-deps"
        print(f"pip install{flag} . into a fresh venv ({kind}, for the first {name}): {seconds:.1f} s")
    print(f"python -c pass: {bare:.3f} s")
    for name, seconds in times.items():
        target = TARGETS.get(name)
        verdict = "" if target is None else f"  (target: under {target:g} s{'' if seconds < target else ', OVER'})"
        print(f"{name:<46} {seconds:6.1f} s = {seconds / bare:5.0f}x{verdict}")


if __name__ == "__main__":
    main()
