"""The wheel's compiled kernels (issue 42, cold start): building the wheel compiles benchwatch's numba kernels and
ships numba's cache of them, stamped by their sources' content (``benchwatch.kernel_cache``), so that the first
command after ``pip install .`` loads them instead of compiling for about 12 s.

The kernels compile in a copy of the package under a temporary folder, by ``benchwatch.kernel_build`` in the
build's environment (numba, numpy and PyMC, as the install resolves them: this hook's dependencies in
pyproject.toml); the cache files it writes join the wheel beside the sources they came from, with no folder of the
machine that built them left in them (``benchwatch.kernel_build.scrub``). ``BENCHWATCH_KERNEL_CACHE=<folder>`` keeps
them between builds (CI restores that folder): the build loads what is there and compiles only what changed.
``BENCHWATCH_BUILD_KERNELS=0`` skips the step. A failing compile never fails the build: the wheel then ships no
cache and the kernels compile on first use, as numba does by default. An editable install compiles nothing here
(the kernels are cached in the checkout on first use)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

SUFFIXES = (".nbi", ".nbc")


class KernelsHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict) -> None:
        self._tmp: str | None = None
        if self.target_name != "wheel" or version == "editable" or os.environ.get("BENCHWATCH_BUILD_KERNELS") == "0":
            return
        self._tmp = tempfile.mkdtemp(prefix="benchwatch-kernels-")
        tree = Path(self._tmp) / "benchwatch"
        shutil.copytree(Path(self.root) / "bot" / "benchwatch", tree, ignore=shutil.ignore_patterns("__pycache__"))
        kept = os.environ.get("BENCHWATCH_KERNEL_CACHE")
        if kept and Path(kept).is_dir():
            _copy_cache(Path(kept), tree)
        env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "NUMBA_DISABLE_JIT")}
        # the copy first; then the build environment's packages (an isolated build reaches them through PYTHONPATH)
        env["PYTHONPATH"] = os.pathsep.join([self._tmp, *filter(None, [os.environ.get("PYTHONPATH")])])
        done = subprocess.run(
            [sys.executable, "-m", "benchwatch.kernel_build", "--for-wheel"],
            cwd=self._tmp,
            env=env,
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            self.app.display_warning(
                "benchwatch: the kernels did not compile at build time; they will on first use:\n"
                + done.stderr.strip()[-2000:]
            )
            return
        files = sorted(p for p in tree.rglob("*") if p.suffix in SUFFIXES and p.parent.name == "__pycache__")
        for path in files:
            build_data["force_include"][str(path)] = str(path.relative_to(self._tmp))
        if kept:
            _copy_cache(tree, Path(kept))
        self.app.display_info(f"benchwatch: {len(files)} files of compiled kernels in the wheel")

    def finalize(self, version: str, build_data: dict, artifact_path: str) -> None:
        if self._tmp:
            shutil.rmtree(self._tmp, ignore_errors=True)


def _copy_cache(source: Path, dest: Path) -> None:
    """numba's cache files under ``source`` to the same places under ``dest``."""
    for path in source.rglob("*"):
        if path.suffix in SUFFIXES and path.parent.name == "__pycache__":
            target = dest / path.relative_to(source)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
