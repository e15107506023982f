"""An atlas's pages are written by worker processes (issue 42): the same files, byte for byte, as in one process."""

from __future__ import annotations

import shutil

import pytest

import benchwatch.site.build as build_module
import benchwatch.site.pages as pages_module
from benchwatch.errors import InputError
from benchwatch.history import Reports


def _written(docs) -> dict[str, bytes]:
    return {str(p.relative_to(docs)): p.read_bytes() for p in sorted(docs.rglob("*")) if p.is_file()}


def test_pages_written_by_workers_are_those_written_in_one_process(sample_site, tmp_path, monkeypatch):
    _, reports, _ = sample_site
    now = "2026-12-01T00:00:00Z"
    pages = build_module.write_pages(Reports(reports), tmp_path / "one", "http://127.0.0.1:8000/", now)
    monkeypatch.setattr(pages_module, "PARALLEL_FROM", 2)
    monkeypatch.setattr(pages_module.threads, "CORES", 2)
    forked = []
    real = pages_module.ProcessPoolExecutor
    monkeypatch.setattr(pages_module, "ProcessPoolExecutor", lambda *a, **k: forked.append(1) or real(*a, **k))
    assert build_module.write_pages(Reports(reports), tmp_path / "workers", "http://127.0.0.1:8000/", now) == pages
    assert forked == [1] and pages_module._SHARED is None
    one, workers = _written(tmp_path / "one"), _written(tmp_path / "workers")
    assert len(one) > 3 * pages and any(name.endswith(".svg") for name in one)
    assert one.keys() == workers.keys()
    assert [name for name in one if one[name] != workers[name]] == []


def test_a_damaged_table_read_by_a_worker_is_the_error_one_process_gives(sample_site, tmp_path, monkeypatch):
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
    monkeypatch.setattr(pages_module, "PARALLEL_FROM", 2)
    monkeypatch.setattr(pages_module.threads, "CORES", 2)
    workers = error()
    assert str(workers) == str(one) and items.name in str(one) and "fields" in str(one)
    assert (workers.source, workers.row) == (one.source, one.row) and pages_module._SHARED is None
