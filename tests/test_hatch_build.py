"""The wheel's build resolves numba as the install does without installing PyMC (issue 61): the build hook's
dependencies are the versions a dry run of the target environment's pip picks for what compiling the kernels imports
(``hatch_build.py``), or the runtime's own requirements of numba, numpy and PyMC when that fails. No test here
reaches the network: the runner that would call pip is a fake."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
from types import SimpleNamespace

import pytest
from hatchling.builders.wheel import WheelBuilder

import hatch_build
from hatch_build import FALLBACK, PINNED, build_requirements, resolve
from tests.conftest import ROOT

REQUIREMENTS = ["numba>=0.59", "pymc>=5.16", "pandas>=2.2"]


def report(**versions: str) -> dict:
    """A pip ``--report`` (format 1) that would install ``versions``, with the fields pip writes around them."""
    install = [
        {"download_info": {"url": f"https://example.org/{name}.whl"}, "metadata": {"name": name, "version": version}}
        for name, version in versions.items()
    ]
    return {"version": "1", "pip_version": "23.2.1", "install": install, "environment": {}}


class FakePip:
    """Answers the dry run with ``answer`` and the installed-versions probe with ``installed``; keeps each call."""

    def __init__(self, answer: dict, installed: dict[str, str] | None = None) -> None:
        self.answer, self.installed, self.calls = answer, installed, []

    def __call__(self, argv: list[str], env: dict[str, str]) -> str:
        self.calls.append((argv, env))
        if argv[1:3] == ["-m", "pip"]:
            return json.dumps(self.answer)
        if self.installed is None:
            raise AssertionError("the environment was asked although the report had every version")
        return json.dumps(self.installed)


def test_the_report_gives_the_pins_in_order_whatever_the_names_spelling():
    answer = report(SciPy="1.17.1", pytensor="2.38.3", NumPy="2.4.6", numba="0.65.1", llvmlite="0.47.0")
    pip = FakePip(answer)
    pins = resolve("/target/bin/python", REQUIREMENTS, {}, pip)
    assert pins == ["numba==0.65.1", "numpy==2.4.6", "scipy==1.17.1"]
    assert len(pip.calls) == 1  # nothing to ask the environment


def test_the_dry_run_sees_the_target_environment_and_never_the_project():
    """pip's isolation variables would hide the target environment's packages (and the user's constraints) from
    the dry run; the index the user configured must still reach it."""
    environ = {
        "PYTHONPATH": "/tmp/pip-build-env-x/site",
        "PYTHONNOUSERSITE": "1",
        "PIP_BUILD_TRACKER": "/tmp/pip-build-tracker-x",
        "_PIP_IN_BUILD_IGNORE_CONSTRAINTS": "1",
        "PIP_INDEX_URL": "https://mirror.example.org/simple",
        "PATH": "/usr/bin",
    }
    pip = FakePip(report(numba="0.65.1", numpy="2.4.6", scipy="1.17.1"))
    assert build_requirements("/target/bin/python", REQUIREMENTS, environ, pip)[1] is None
    [(argv, env)] = pip.calls
    assert argv[0] == "/target/bin/python"
    assert {"--dry-run", "--report"} <= set(argv) and argv[argv.index("--report") + 1] == "-"
    assert argv[-2:] == ["numba>=0.59", "pymc>=5.16"] and "pandas>=2.2" not in argv  # those that decide the pins
    assert "." not in argv and str(ROOT) not in argv and "--ignore-installed" not in argv
    assert set(env) == {"PIP_INDEX_URL", "PATH"}
    assert env["PIP_INDEX_URL"] == environ["PIP_INDEX_URL"]


def test_a_package_the_install_keeps_takes_the_environments_version():
    """An installed numba that fits is kept by the install, so the report leaves it out: the environment's wins.
    What the report would install wins over what is installed (an upgrade)."""
    pip = FakePip(report(numpy="2.4.6", scipy="1.17.1"), installed={"numba": "0.61.2", "numpy": "1.26.4"})
    assert resolve("/target/bin/python", REQUIREMENTS, {}, pip) == ["numba==0.61.2", "numpy==2.4.6", "scipy==1.17.1"]
    assert pip.calls[1][0][:2] == ["/target/bin/python", "-c"]


@pytest.mark.parametrize(
    ("pip", "reason"),
    [
        (FakePip(report(numba="0.65.1", numpy="2.4.6"), installed={}), "scipy"),  # in neither
        (FakePip({"version": "2", "install": []}), "version '2'"),  # a report format this hook does not read
        (FakePip({"version": "1"}), "install"),  # no install list
    ],
)
def test_what_cannot_be_read_falls_back_and_says_why(pip, reason):
    pins, failure = build_requirements("/target/bin/python", REQUIREMENTS, {}, pip)
    assert pins == FALLBACK and pins is not FALLBACK  # a copy: hatchling may extend it
    assert failure is not None and reason in failure


def _via(command: list[str]):
    """A runner that runs ``command`` (through the hook's own runner) whatever the hook asks."""
    return lambda argv, env: hatch_build._run(command, env)


@pytest.mark.parametrize(
    ("python", "run", "why"),
    [
        (sys.executable, _via([sys.executable, "-c", "import sys; sys.exit('No module named pip')"]), "named pip"),
        (sys.executable, _via([sys.executable, "-c", "import time; time.sleep(5)"]), "TimeoutExpired"),
        ("/nowhere/bin/python", None, "FileNotFoundError"),  # the hook's runner, for an interpreter not there
    ],
)
def test_a_failing_or_slow_pip_falls_back(monkeypatch, python, run, why):
    """A pip that exits with an error (none in the target environment, no network), one that runs past the limit
    and an interpreter that is not there each give the fallback, never an exception."""
    monkeypatch.setattr(hatch_build, "RESOLVE_SECONDS", 0.5)
    pins, failure = build_requirements(python, REQUIREMENTS, {"PATH": "/usr/bin"}, run)
    assert pins == FALLBACK
    assert failure is not None and why in failure, failure


def test_the_hook_asks_for_the_install_s_versions_but_not_without_kernels(monkeypatch):
    """hatchling asks the hook (nothing static is left in pyproject.toml): it resolves with the interpreter it runs
    under (the target environment's, under pip) and the project's runtime requirements; with the kernels off, and
    for an editable install (asked through the PEP 660 hook), the build needs nothing beyond hatchling."""
    asked, said = [], []

    def resolved(python: str, requirements: list[str], environ) -> tuple[list[str], None]:
        asked.append((python, requirements))
        return ["numba==0.65.1"], None

    monkeypatch.setattr(hatch_build, "build_requirements", resolved)
    hook = SimpleNamespace(
        metadata=SimpleNamespace(core=SimpleNamespace(dependencies=REQUIREMENTS)),
        app=SimpleNamespace(display_info=said.append, display_warning=said.append),
    )
    monkeypatch.delenv("BENCHWATCH_BUILD_KERNELS", raising=False)
    assert hatch_build.KernelsHook.dependencies(hook) == ["numba==0.65.1"]
    assert asked == [(sys.executable, REQUIREMENTS)] and "numba==0.65.1" in said[0]

    def get_requires_for_build_editable() -> list[str]:
        return hatch_build.KernelsHook.dependencies(hook)

    assert get_requires_for_build_editable() == [] and len(asked) == 1
    monkeypatch.setenv("BENCHWATCH_BUILD_KERNELS", "0")
    assert hatch_build.KernelsHook.dependencies(hook) == [] and len(asked) == 1
    assert WheelBuilder(str(ROOT)).config.dependencies == []  # hatchling's own question: no static list either


def test_the_fallback_is_the_runtimes_own_requirements():
    """The fallback resolves the install's numba only while it is the runtime's numba, numpy and PyMC
    requirements; the hook's table keeps no static list."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    runtime = {r.split(">")[0].split("<")[0].split("=")[0]: r for r in project["project"]["dependencies"]}
    assert sorted(FALLBACK) == sorted(runtime[name] for name in ("numba", "numpy", "pymc"))
    assert set(PINNED) <= set(runtime)
    assert "dependencies" not in project["tool"]["hatch"]["build"]["targets"]["wheel"]["hooks"]["custom"]


def test_the_dry_run_resolves_the_requirements_that_decide_the_pins():
    """The runtime's requirements of numba, numpy, scipy and PyMC, as pyproject.toml spells them (markers and
    extras kept); none of the others."""
    runtime = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    chosen = hatch_build.deciding([*runtime, "NumPy[extra]>=2; python_version >= '3.11'"])
    assert [r for r in chosen if r in runtime] == [r for r in runtime if r.split(">")[0] in {*PINNED, "pymc"}]
    assert len([r for r in chosen if r in runtime]) == len(PINNED) + 1
    assert chosen[-1].startswith("NumPy[extra]")


def test_the_kernels_import_nothing_beyond_the_pinned_packages():
    """The build environment holds hatchling and ``PINNED`` (with llvmlite, numba's): every module the kernels are
    compiled from must import with no other package (numba's optional ones may be absent)."""
    allowed = {*PINNED, "llvmlite", "benchwatch"}
    probe = f"""
import importlib.abc, sys
class Only(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        top = name.split(".")[0]
        if top in sys.stdlib_module_names or top in {allowed!r}:
            return None
        raise ModuleNotFoundError(f"not in the build environment: {{name}}", name=name)
sys.meta_path.insert(0, Only())
from benchwatch.kernel_build import every_kernel
print(len(every_kernel()))
"""
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout) > 0
