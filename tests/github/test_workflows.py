"""The GitHub Actions workflows pass actionlint, and keep the shape the project relies on."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT

WORKFLOWS = ROOT / ".github" / "workflows"


def _actionlint() -> str:
    found = shutil.which("actionlint") or str(Path(sys.executable).parent / "actionlint")
    assert Path(found).exists(), "actionlint is missing: install the dev extra (pip install '.[dev]')"
    return found


@pytest.mark.parametrize("name", ["audit.yml", "ci.yml"])
def test_workflow_passes_actionlint(name):
    done = subprocess.run([_actionlint(), str(WORKFLOWS / name)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_does_catch_a_broken_workflow(tmp_path):
    bad = tmp_path / "bad.yml"
    bad.write_text(
        "on: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo ${{ github.nope }}\n"
    )
    done = subprocess.run([_actionlint(), str(bad)], capture_output=True, text=True, check=False)
    assert done.returncode != 0


def test_audit_workflow_shape():
    wf = yaml.safe_load((WORKFLOWS / "audit.yml").read_text())
    triggers = wf[True] if True in wf else wf["on"]  # YAML 1.1 reads `on` as true
    assert "schedule" in triggers and "workflow_dispatch" in triggers
    assert set(triggers["workflow_dispatch"]["inputs"]) == {"sources", "force", "method"}
    assert wf["concurrency"]["group"] and wf["permissions"] == {"contents": "read"}
    assert wf["jobs"]["audit"]["permissions"] == {"contents": "write"}
    assert wf["jobs"]["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}
    uses = [s["uses"] for job in wf["jobs"].values() for s in job["steps"] if "uses" in s]
    assert all("@v" in u for u in uses)
    assert any(u.startswith("actions/upload-pages-artifact@") for u in uses)
    assert any(u.startswith("actions/deploy-pages@") for u in uses)
    ci = yaml.safe_load((WORKFLOWS / "ci.yml").read_text())
    assert "bash .ci/run" in str(ci)
