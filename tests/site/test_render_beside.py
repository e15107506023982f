"""An atlas's Markdown rendered by a forked process beside MkDocs (issue 42): the same site, the same warnings,
the same errors."""

from __future__ import annotations

import logging

import pytest
from mkdocs.commands.build import build
from mkdocs.config import load_config
from mkdocs.exceptions import Abort
from mkdocs.structure.pages import Page

import benchwatch.site.build as build_module
import benchwatch.site.render_beside as beside_module
from benchwatch.site.render_beside import RenderBeside
from tests.site.conftest import site_files


def test_an_atlas_rendered_on_two_cores_is_the_site_mkdocs_builds_alone(sample_site, tmp_path, monkeypatch, request):
    _, reports, _ = sample_site
    now = "2026-12-01T00:00:00Z"
    build_module.build_site(reports, tmp_path / "one", now=now)
    request.getfixturevalue("as_atlas")
    plugins: list[RenderBeside] = []
    real = beside_module.RenderBeside.__init__

    def spy(self) -> None:
        real(self)
        plugins.append(self)

    monkeypatch.setattr(beside_module.RenderBeside, "__init__", spy)
    build_module.build_site(reports, tmp_path / "two", now=now)
    assert len(plugins) == 1
    beside = plugins[0].rendered_beside
    assert len(beside) >= 3 and all(uri.startswith("benchmarks/") for uri in beside)  # the last pages, by size
    one, two = site_files(tmp_path / "one"), site_files(tmp_path / "two")
    assert one.keys() == two.keys()
    assert [name for name in one if one[name] != two[name]] == []


def _project(tmp_path, pages: dict[str, str]):
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in pages.items():
        (docs / name).write_text(text, encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text("site_name: t\nmarkdown_extensions:\n  - toc\n", encoding="utf-8")
    return tmp_path / "mkdocs.yml"


def _build(config_file, site, *, beside: bool, strict: bool = True) -> list[str]:
    config = load_config(config_file=str(config_file), site_dir=str(site), strict=strict)
    if beside:
        config.plugins["benchwatch/render-beside"] = plugin = RenderBeside()
    seen: list[str] = []

    class Seen(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(record.getMessage())

    handler = Seen(logging.WARNING)
    logging.getLogger("mkdocs").addHandler(handler)
    try:
        build(config)
    finally:
        logging.getLogger("mkdocs").removeHandler(handler)
    if beside:
        assert plugin.rendered_beside  # the test means the process rendered some
    return seen


PAGES = {
    "index.md": "# Home\n\n" + "A line of text.\n\n" * 50,
    "a.md": "# A\n\n## One\n\nSee [b](b.md#two) and [nothing](missing.md).\n",
    "b.md": "# B\n\n## Two\n\n| x | y |\n|---|---|\n| 1 | 2 |\n",
    "c.md": "# C\n\nSee [a's one](a.md#one) and [b's three](b.md#three).\n",
}


def test_a_warning_in_the_process_is_logged_again_and_counted_in_strict_mode(tmp_path, monkeypatch):
    monkeypatch.setattr(beside_module, "SHARE", 0.9)  # every page but the first rendered beside
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")  # the theme prints the build's date
    config_file = _project(tmp_path, PAGES)
    alone = _build(config_file, tmp_path / "alone", beside=False, strict=False)
    two = _build(config_file, tmp_path / "two", beside=True, strict=False)
    assert any("missing.md" in text for text in alone) and sorted(alone) == sorted(two)
    assert site_files(tmp_path / "alone") == site_files(tmp_path / "two")
    with pytest.raises(Abort, match="warnings in strict mode"):
        _build(config_file, tmp_path / "strict", beside=True)


def test_an_error_in_the_process_is_raised_at_its_page(tmp_path, monkeypatch):
    monkeypatch.setattr(beside_module, "SHARE", 0.9)
    config_file = _project(tmp_path, PAGES)
    real = Page.render

    def broken(self, config, files):
        if self.file.src_uri == "c.md":
            raise ValueError("cannot render this page")
        real(self, config, files)

    monkeypatch.setattr(Page, "render", broken)  # inherited by the forked process
    with pytest.raises(ValueError, match="cannot render this page"):
        _build(config_file, tmp_path / "alone", beside=False)
    with pytest.raises(RuntimeError, match=r"rendering c\.md: ValueError: cannot render this page"):
        _build(config_file, tmp_path / "two", beside=True)


def test_a_plugin_that_changes_the_markdown_keeps_the_rendering_here(tmp_path):
    config_file = _project(tmp_path, PAGES)
    config = load_config(config_file=str(config_file), site_dir=str(tmp_path / "site"))

    class Shout:
        def on_page_markdown(self, markdown, **kwargs):
            return markdown.upper()

    config.plugins["shout"] = Shout()  # type: ignore[assignment]
    config.plugins["benchwatch/render-beside"] = plugin = RenderBeside()
    build(config)
    assert plugin.rendered_beside == []
    assert "SEE" in (tmp_path / "site" / "a" / "index.html").read_text(encoding="utf-8")
