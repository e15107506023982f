"""An atlas's pages are written by worker processes (issue 42): the same files, byte for byte, as in one process."""

from __future__ import annotations

import shutil

import pytest
from mkdocs.structure.files import File

import benchwatch.site.build as build_module
import benchwatch.site.forked as forked_module
import benchwatch.site.pages as pages_module
from benchwatch.errors import InputError
from benchwatch.history import Reports
from tests.site.conftest import site_files


def test_pages_written_by_workers_are_those_written_in_one_process(sample_site, tmp_path, monkeypatch, request):
    _, reports, _ = sample_site
    now = "2026-12-01T00:00:00Z"
    pages = build_module.write_pages(Reports(reports), tmp_path / "one", "http://127.0.0.1:8000/", now)
    request.getfixturevalue("as_atlas")
    forked = []
    real = pages_module.ProcessPoolExecutor
    monkeypatch.setattr(pages_module, "ProcessPoolExecutor", lambda *a, **k: forked.append(1) or real(*a, **k))
    workers_written = build_module.write_pages(Reports(reports), tmp_path / "workers", "http://127.0.0.1:8000/", now)
    assert workers_written.pages == pages.pages and workers_written.tables.keys() == pages.tables.keys()
    assert forked == [1] and pages_module._SHARED is None
    one, workers = site_files(tmp_path / "one"), site_files(tmp_path / "workers")
    assert len(one) > 3 * pages.pages and any(name.endswith(".svg") for name in one)
    assert one.keys() == workers.keys()
    assert [name for name in one if one[name] != workers[name]] == []
    # deferred: the plots, downloads and bundle are named, not written; the rest is the same
    left = build_module.write_pages(Reports(reports), tmp_path / "left", "http://127.0.0.1:8000/", now, deferred=True)
    written = site_files(tmp_path / "left")
    assert left.pages == pages.pages and left.deferred and not set(left.deferred) & written.keys()
    assert sorted(written.keys() | set(left.deferred)) == sorted(one)
    assert [name for name in written if written[name] != one[name]] == []


def test_a_damaged_table_read_by_a_worker_is_the_error_one_process_gives(sample_site, tmp_path, monkeypatch, request):
    _, reports, _ = sample_site
    copy = tmp_path / "r"
    shutil.copytree(reports, copy)
    items = sorted((copy / "items").glob("*.csv"))[-1]
    items.write_text(items.read_text() + "cut,row\n")

    def error() -> InputError:
        with pytest.raises(InputError) as caught:
            build_module.write_pages(Reports(copy), tmp_path / "docs", "http://127.0.0.1:8000/")
        return caught.value

    one = error()
    request.getfixturevalue("as_atlas")
    workers = error()
    assert str(workers) == str(one) and items.name in str(one) and "fields" in str(one)
    assert (workers.source, workers.row) == (one.source, one.row) and pages_module._SHARED is None


def test_an_atlas_site_with_its_assets_written_beside_mkdocs_is_the_site_written_in_one_go(
    sample_site, tmp_path, monkeypatch, request
):
    """From ``PARALLEL_FROM`` pages on, the plots, downloads and bundle are written into the built site by a process
    of their own while MkDocs builds from the pages that name them: the site is the one written in one go, byte for
    byte, and MkDocs copied none of those files (none was written in the docs folder)."""
    _, reports, _ = sample_site
    now = "2026-12-01T00:00:00Z"
    build_module.build_site(reports, tmp_path / "one", now=now)
    request.getfixturevalue("as_atlas")
    copied: list[str] = []
    copy = File.copy_file
    monkeypatch.setattr(File, "copy_file", lambda self, dirty=False: copied.append(self.src_uri) or copy(self, dirty))
    forked = []
    real = forked_module.ProcessPoolExecutor
    monkeypatch.setattr(forked_module, "ProcessPoolExecutor", lambda *a, **k: forked.append(a) or real(*a, **k))
    build_module.build_site(reports, tmp_path / "beside", now=now)
    assert forked == [(1,), (1,)]  # one process beside MkDocs for the assets, one for the Markdown
    one, beside = site_files(tmp_path / "one"), site_files(tmp_path / "beside")
    assert one.keys() == beside.keys() and len(one) > 100
    assert [name for name in one if one[name] != beside[name]] == []
    assert all(beside[name] for name in beside if name.startswith(("downloads/", "plots/")))  # none left empty
    assert copied and not [path for path in copied if path.startswith(("downloads/", "plots/benchmark"))]


def test_an_error_of_the_assets_process_stops_the_build_and_keeps_the_last_site(
    sample_site, tmp_path, monkeypatch, request
):
    _, reports, _ = sample_site
    out = tmp_path / "site"
    build_module.build_site(reports, out, now="2026-12-01T00:00:00Z")
    before = site_files(out)
    request.getfixturevalue("as_atlas")

    def damaged(*args, **kwargs):
        raise InputError("models/x.csv", "line 3 has 2 fields, the header 9")

    monkeypatch.setattr(build_module, "write_assets", damaged)  # inherited by the forked process
    with pytest.raises(InputError, match="line 3 has 2 fields") as caught:
        build_module.build_site(reports, out, now="2026-12-02T00:00:00Z")
    assert caught.value.source == "models/x.csv"
    assert site_files(out) == before and not [p for p in tmp_path.iterdir() if p.name.startswith(".site")]


def test_a_damaged_table_read_for_the_assets_is_the_error_the_pages_give(sample_site, tmp_path, monkeypatch):
    _, reports, _ = sample_site
    written = build_module.write_pages(Reports(reports), tmp_path / "ok", "http://127.0.0.1:8000/", deferred=True)
    copy = tmp_path / "r"
    shutil.copytree(reports, copy)
    models = sorted((copy / "models").glob("*.csv"))[-1]
    models.write_text(models.read_text() + "cut,row\n")
    with pytest.raises(InputError) as pages:
        build_module.write_pages(Reports(copy), tmp_path / "docs", "http://127.0.0.1:8000/")
    # the assets take the tables the pages read; one not given is read, from the damaged copy here
    inputs = written.inputs.__class__(**{**vars(written.inputs), "reports": Reports(copy)})
    monkeypatch.setattr(build_module, "_ASSETS", written._replace(inputs=inputs, tables={}))
    returned = build_module._write_assets_job(str(tmp_path / "assets"))
    assert isinstance(returned, tuple)  # an InputError does not pickle: its fields and text come back
    with pytest.raises(InputError) as assets:
        pages_module._raised(returned)
    assert str(assets.value) == str(pages.value) and models.name in str(pages.value)
