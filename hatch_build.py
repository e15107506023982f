"""The wheel's compiled kernels (issue 42, cold start): building the wheel compiles benchwatch's numba kernels and
ships numba's cache of them, stamped by their sources' content (``benchwatch.kernel_cache``), so that the first
command after ``pip install .`` loads them instead of compiling for about 12 s.

The kernels compile in a copy of the package under a temporary folder, by ``benchwatch.kernel_build`` in the
build's environment; the cache files it writes join the wheel beside the sources they came from, with no folder of
the machine that built them left in them (``benchwatch.kernel_build.scrub``). ``BENCHWATCH_KERNEL_CACHE=<folder>``
keeps them between builds (CI restores that folder): the build loads what is there and compiles only what changed.
``BENCHWATCH_BUILD_KERNELS=0`` skips the step. A failing compile never fails the build: the wheel then ships no
cache and the kernels compile on first use, as numba does by default. An editable install compiles nothing here
(the kernels are cached in the checkout on first use).

numba loads a cached kernel only into the numba version that compiled it, so the build needs the numba the install
gets: under PyMC's cap (its pytensor caps numba), not the newest, which numba alone resolves to. The hook's build
dependencies are dynamic (``KernelsHook.dependencies``, asked for by hatchling's ``get_requires_for_build_wheel``):
the pip of the environment being installed into resolves the runtime requirements of numba, numpy, scipy and PyMC
(``DECIDING``) in a dry run (``pip install --dry-run --report -``: the same index, configuration and constraints as
the install; a package already installed that fits is kept, as the install keeps it), and the build gets only what
compiling the kernels imports, pinned to those versions (``PINNED``: numba, numpy, scipy; llvmlite follows numba),
not PyMC's whole tree (installing it took 31-36 s of the build, these 11-14 s; the dry run about 7 s; measured on 2
cores with pip 23.2, ``benchmarks/install_time.py`` times the whole install). pip's build isolation runs the backend
with that environment's interpreter and hides its packages through PYTHONPATH; the dry run runs without pip's
isolation variables (``ISOLATION``), so it sees what the install sees. It never builds benchwatch (it is given the
dependencies, not the project). Options on pip's command line (``--index-url``, ``--no-index``) do not reach a build
backend: the dry run follows pip's configuration files and PIP_* variables only. On any failure (no pip in that
environment, as under uv or pip's venv isolation; no network; over a minute) the build falls back to numba, numpy
and PyMC as the runtime requires them (``FALLBACK``: the same numba, at the old cost) and says so; with
``BENCHWATCH_BUILD_KERNELS=0`` or for an editable install it needs none of them."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping
from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface
from packaging.requirements import Requirement  # hatchling's own dependency

SUFFIXES = (".nbi", ".nbc")
# what the build gets when the dry run fails: the runtime's own requirements of numba, numpy and PyMC, whose
# resolution is the install's numba (tests/test_hatch_build.py holds them to pyproject.toml's)
FALLBACK = ["numba>=0.59", "numpy>=1.26", "pymc>=5.16"]
# what compiling the kernels imports (llvmlite follows numba; scipy: numba compiles np.linalg through scipy's LAPACK,
# and without it the kernels fail to compile: 'scipy 0.16+ is required for linear algebra')
PINNED = ("numba", "numpy", "scipy")
# the runtime requirements the dry run resolves: those of PINNED and PyMC's (its pytensor caps numba). The other
# runtime dependencies constrain none of them today; resolving them too doubled the dry run (6.6 s -> 13 s here)
DECIDING = (*PINNED, "pymc")
RESOLVE_SECONDS = 60.0
# what pip's build isolation sets for the backend (and its own subprocesses): without them, the target
# environment's interpreter sees the target environment, its packages and the user's constraints
ISOLATION = (
    "PYTHONPATH",
    "PYTHONNOUSERSITE",
    "PIP_BUILD_TRACKER",
    "PIP_REQ_TRACKER",
    "_PIP_IN_BUILD_IGNORE_CONSTRAINTS",
)
INSTALLED = (
    "import importlib.metadata as m, json\n"
    "found = {}\n"
    f"for name in {PINNED!r}:\n"
    "    try:\n"
    "        found[name] = m.version(name)\n"
    "    except m.PackageNotFoundError:\n"
    "        pass\n"
    "print(json.dumps(found))"
)

# runs (argv, environment) and gives its standard output; raises when the command fails
Runner = Callable[[list[str], dict[str, str]], str]


class KernelsHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def dependencies(self) -> list[str]:
        """The build environment's packages beyond hatchling: the numba, numpy and scipy the install resolves to (see
        the module's docstring); none where no kernels compile."""
        if os.environ.get("BENCHWATCH_BUILD_KERNELS") == "0" or _for_editable():
            return []
        needed, failure = build_requirements(sys.executable, self.metadata.core.dependencies, os.environ)
        if failure:
            self.app.display_warning(
                f"benchwatch: could not resolve the install's numba ({failure}); building with {', '.join(needed)}"
            )
        else:
            self.app.display_info(f"benchwatch: the kernels compile with {', '.join(needed)}, as the install resolves")
        return needed

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


def build_requirements(
    python: str, runtime: list[str], environ: Mapping[str, str], run: Runner | None = None
) -> tuple[list[str], str | None]:
    """(the build's requirements, why they are ``FALLBACK`` or None): ``resolve``'s pins for those of the
    ``runtime`` requirements that decide them, or ``FALLBACK`` on any failure, which must not fail the build."""
    try:
        return resolve(python, deciding(runtime), environ, run or _run), None
    except Exception as error:  # any failure falls back: the build goes on
        return list(FALLBACK), f"{type(error).__name__}: {error}"


def deciding(requirements: list[str]) -> list[str]:
    """Those of the runtime ``requirements`` that decide the versions of ``PINNED`` (``DECIDING``'s)."""
    return [r for r in requirements if _normalized(Requirement(r).name) in DECIDING]


def resolve(python: str, requirements: list[str], environ: Mapping[str, str], run: Runner) -> list[str]:
    """``name==version`` of each of ``PINNED`` as ``python``'s pip would install ``requirements`` into its
    environment: a dry run's report, and what the environment has for a package the install keeps (the report lists
    only what it would install)."""
    env = {k: v for k, v in environ.items() if k not in ISOLATION}
    dry_run = [python, "-m", "pip", "install", "--dry-run", "--quiet", "--disable-pip-version-check", "--report", "-"]
    report = json.loads(run([*dry_run, *requirements], env))
    chosen = planned(report)
    kept = {} if set(PINNED) <= set(chosen) else json.loads(run([python, "-c", INSTALLED], env))
    return pins({**kept, **chosen})


def planned(report: dict) -> dict[str, str]:
    """{normalized name: version} of what a pip ``--report`` would install."""
    if report.get("version") != "1":
        raise ValueError(f"a pip report of version {report.get('version')!r}, not 1")
    return {_normalized(item["metadata"]["name"]): item["metadata"]["version"] for item in report["install"]}


def pins(versions: Mapping[str, str]) -> list[str]:
    """``name==version`` for each of ``PINNED``; an error names any the resolution has no version for."""
    missing = [name for name in PINNED if name not in versions]
    if missing:
        raise LookupError(f"no version of {', '.join(missing)} in the resolution or the environment")
    return [f"{name}=={versions[name]}" for name in PINNED]


def _normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _run(argv: list[str], env: dict[str, str]) -> str:
    done = subprocess.run(
        argv, env=env, capture_output=True, text=True, timeout=RESOLVE_SECONDS, stdin=subprocess.DEVNULL
    )
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[1:4])} exited {done.returncode}: {done.stderr.strip()[-500:]}")
    return done.stdout


def _for_editable() -> bool:
    """Whether hatchling asks for an editable install's requirements: it builds the same hook for both and tells it
    nothing else, so its PEP 660 entry point on the stack is what says so."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "get_requires_for_build_editable":
            return True
        frame = frame.f_back
    return False
