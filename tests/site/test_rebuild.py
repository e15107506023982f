"""The site is rebuilt only when something it shows changed (issue 13)."""

from __future__ import annotations

import json
import shutil

import benchwatch.site.build as build_module
from benchwatch.pipeline import run_job
from benchwatch.site import build_site
from benchwatch.sources import SourceTable
from tests.irt.test_rasch_map import simulate


def _files(site) -> dict[str, bytes]:
    return {str(p.relative_to(site)): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}


def test_a_site_whose_inputs_did_not_change_is_not_built_again(tmp_path, monkeypatch):
    df, _, _ = simulate(8, 30, seed=4)
    reports, site = tmp_path / "r", tmp_path / "_site"
    source = [("s", lambda: SourceTable("s", "s.csv", df.astype(str)))]
    run_job(source, reports_dir=reports, site_out=None, cache_dir=tmp_path / "c", log=lambda s: None)
    now = "2026-05-01T06:00:00Z"
    pages = build_site(reports, site, now=now)
    first = _files(site)
    built = []
    real = build_module.write_pages
    monkeypatch.setattr(build_module, "write_pages", lambda *a, **k: built.append(1) or real(*a, **k))
    assert build_site(reports, site, now="2026-05-01T23:00:00Z") == pages  # same day, same reports
    (reports / "runs.csv").write_text((reports / "runs.csv").read_text() + "x\n")  # the run log is not shown
    assert build_site(reports, site, now=now) == pages
    assert built == [] and _files(site) == first
    # Anything the site shows: a report, the day (the pages give the data's age in days).
    assert build_site(reports, site, now="2026-05-02T06:00:00Z") == pages and built == [1]
    latest = json.loads((reports / "latest.json").read_text())
    (reports / "latest.json").write_text(json.dumps(latest, indent=1))
    assert build_site(reports, site, now="2026-05-02T06:00:00Z") == pages and built == [1, 1]


def test_a_changed_template_changes_what_the_site_was_built_from(tmp_path, monkeypatch):
    """The templates are inputs of the build, as the code is: a site built before a template changed is rebuilt."""
    reports, project = tmp_path / "r", build_module.find_site_project()
    reports.mkdir()
    now = "2026-05-01T06:00:00Z"
    before = build_module.inputs_digest(reports, project, None, now)
    copy = tmp_path / "templates"
    shutil.copytree(build_module.TEMPLATES, copy)
    monkeypatch.setattr(build_module, "TEMPLATES", copy)
    assert build_module.inputs_digest(reports, project, None, now) == before
    page = copy / "alerts.md.j2"
    page.write_text(page.read_text() + "\n")
    assert build_module.inputs_digest(reports, project, None, now) != before
