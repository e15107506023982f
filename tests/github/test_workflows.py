"""The GitHub Actions workflows pass actionlint, and keep the shape the project relies on."""

from __future__ import annotations

import re
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
    assert wf["jobs"]["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}
    uses = [s["uses"] for job in wf["jobs"].values() for s in job["steps"] if "uses" in s]
    assert any(u.startswith("actions/upload-pages-artifact@") for u in uses)
    assert any(u.startswith("actions/deploy-pages@") for u in uses)
    ci = yaml.safe_load((WORKFLOWS / "ci.yml").read_text())
    assert "bash .ci/run" in str(ci)


def _uses(wf: dict) -> list[str]:
    return [s["uses"] for job in wf["jobs"].values() for s in job["steps"] if "uses" in s]


@pytest.mark.parametrize("name", ["audit.yml", "ci.yml"])
def test_actions_are_pinned_by_commit(name):
    uses = _uses(yaml.safe_load((WORKFLOWS / name).read_text()))
    assert uses and all(re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", u) for u in uses), uses


def test_the_job_that_reads_upstream_data_holds_no_write_token():
    wf = yaml.safe_load((WORKFLOWS / "audit.yml").read_text())
    runs_benchwatch = [j for j in wf["jobs"].values() if "benchwatch run" in str(j["steps"])]
    assert len(runs_benchwatch) == 1
    job = runs_benchwatch[0]
    assert job["permissions"] == {"contents": "read"} and "timeout-minutes" in job
    checkout = next(s for s in job["steps"] if s.get("uses", "").startswith("actions/checkout@"))
    assert checkout["with"]["persist-credentials"] is False
    writers = [j for j in wf["jobs"].values() if j.get("permissions", {}).get("contents") == "write"]
    assert len(writers) == 1 and "benchwatch " not in str(writers[0]["steps"])  # runs no project code
    assert "pip install" not in str(writers[0]["steps"])
    push = str(writers[0]["steps"])
    assert "git pull --rebase" in push and push.count("git push") == 2  # rebased and retried once
    assert all("timeout-minutes" in j for j in wf["jobs"].values())


def test_lock_file_is_ignored_by_git():
    ignored = (ROOT / "reports" / ".gitignore").read_text().split()
    assert ".benchwatch.lock" in ignored and ".staging/" in ignored


def test_audit_fans_out_one_job_per_source_and_merges_whatever_parts_exist():
    wf = yaml.safe_load((WORKFLOWS / "audit.yml").read_text())
    jobs = wf["jobs"]
    audit = jobs["audit"]
    assert audit["needs"] == "plan" and audit["strategy"]["fail-fast"] is False
    assert "needs.plan.outputs.sources" in audit["strategy"]["matrix"]["source"]
    run = next(s["run"] for s in audit["steps"] if "benchwatch run" in s.get("run", ""))
    assert "--reports-out" in run and "--now" in run and "--sources" in run
    upload = next(s for s in audit["steps"] if s.get("uses", "").startswith("actions/upload-artifact@"))
    assert upload["if"] == "always()" and "matrix.source" in upload["with"]["name"]  # a failed source's part too
    merge = jobs["merge"]
    assert set(merge["needs"]) == {"plan", "audit"} and merge["if"].startswith("always()")
    assert merge["permissions"] == {"contents": "read"}
    assert any("benchwatch merge parts/*" in s.get("run", "") for s in merge["steps"])
    assert jobs["commit"]["needs"] == "merge" and set(jobs["deploy"]["needs"]) == {"merge", "commit"}


def test_when_every_source_fails_the_status_is_still_published_and_the_workflow_fails_after():
    wf = yaml.safe_load((WORKFLOWS / "audit.yml").read_text())
    jobs = wf["jobs"]
    merge = next(s for s in jobs["merge"]["steps"] if s.get("id") == "merge")
    assert "|| status=$?" in merge["run"] and '"$status" -ne 1' in merge["run"]  # exit 1 does not stop the job
    assert jobs["merge"]["outputs"]["status"] == "${{ steps.merge.outputs.status }}"
    verdict = jobs["verdict"]
    assert set(verdict["needs"]) == {"merge", "commit", "deploy"} and verdict["if"] == "always()"
    assert verdict["permissions"] == {}
    assert 'if [ "$STATUS" = "1" ]' in verdict["steps"][0]["run"] and "exit 1" in verdict["steps"][0]["run"]


@pytest.mark.parametrize("name", ["audit.yml", "ci.yml"])
def test_every_job_has_a_timeout(name):
    wf = yaml.safe_load((WORKFLOWS / name).read_text())
    assert [job for job, spec in wf["jobs"].items() if "timeout-minutes" not in spec] == []


def test_download_cache_keys_do_not_grow_with_every_run():
    text = (WORKFLOWS / "audit.yml").read_text()
    assert "github.run_id" not in text.split("jobs:", 1)[1].split("merge:", 1)[0]
    steps = yaml.safe_load(text)["jobs"]["audit"]["steps"]
    saves = [s for s in steps if s.get("uses", "").startswith("actions/cache/save@")]
    assert len(saves) == 1 and "steps.content.outputs.key" in saves[0]["with"]["key"]
    assert "cache-matched-key" in saves[0]["if"]  # an unchanged source saves no new entry


def test_ci_script_uses_sudo_when_not_root():
    text = (ROOT / ".ci" / "run").read_text()
    assert "id -u" in text and "sudo" in text
    assert [line for line in text.splitlines() if line.strip().startswith("apt-get")] == []


def _kernel_sources() -> set[str]:
    """The package's files with numba kernels cached on disk."""
    return {
        str(p.relative_to(ROOT)) for p in (ROOT / "bot").rglob("*.py") if "@njit(cache=True" in p.read_text("utf-8")
    }


@pytest.mark.parametrize(
    ("name", "job", "installs"), [("audit.yml", "audit", "pip install"), ("ci.yml", "test", ".ci/run")]
)
def test_the_compiled_kernels_are_kept_between_runs(name, job, installs):
    """The kernels that building the wheel compiles into it (hatch_build.py) are restored and saved by
    actions/cache, in the folder the build reads and fills (BENCHWATCH_KERNEL_CACHE, on the step that installs),
    keyed on every kernel source and on what compiles them (exactly: no prefix fallback)."""
    steps = yaml.safe_load((WORKFLOWS / name).read_text())["jobs"][job]["steps"]
    caches = [s for s in steps if s.get("uses", "").startswith("actions/cache@")]
    assert len(caches) == 1, caches
    cache = caches[0]
    install = next(s for s in steps if installs in s.get("run", ""))
    assert steps.index(cache) < steps.index(install)
    assert install["env"]["BENCHWATCH_KERNEL_CACHE"] == cache["with"]["path"]
    key = cache["with"]["key"]
    assert "restore-keys" not in cache["with"] and "runner.os" in key and "runner.arch" in key
    hashed = set(re.findall(r"'([^']+)'", key.split("hashFiles(", 1)[1]))
    assert _kernel_sources() <= hashed
    assert {
        "pyproject.toml",
        "hatch_build.py",
        "bot/benchwatch/kernel_cache.py",
        "bot/benchwatch/kernel_build.py",
    } <= hashed
    if name == "ci.yml":  # .ci/run installs the project: the hook runs there
        assert "pip install" in (ROOT / ".ci" / "run").read_text()
    assert "NUMBA_CACHE_DIR" not in (WORKFLOWS / name).read_text()  # it would take the kernels from the wheel's


def test_the_kernel_sources_are_found():
    assert {"bot/benchwatch/irt/kernels.py", "bot/benchwatch/metrics/kernels.py"} <= _kernel_sources()
