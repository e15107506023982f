"""An atlas's Markdown rendered on two cores: a MkDocs plugin that forks a process to render the last pages.

MkDocs reads and renders every page one after another (Python-Markdown: at atlas scale about 30 ms a page, the
largest part of its build) before it writes any. From ``benchwatch.site.pages.PARALLEL_FROM`` pages on,
``build_site`` adds this plugin: once the navigation is made (``on_nav``, just before MkDocs reads the pages) it
forks one process that reads and renders the last pages, about ``SHARE`` of the Markdown by size, while MkDocs
renders the first ones here. Each of those pages' ``render`` is replaced by one that takes what the process sent
back: the HTML, the table of contents, the title found in it, the anchors it holds and the links to other
pages' anchors, exactly what ``mkdocs.structure.pages.Page.render`` sets. Everything else of the build (the
plugin events of each page, the templates, the search index, the anchor checks) runs here as before, so the
built site is byte for byte the one MkDocs builds alone (a test compares every file).

The process inherits the configuration, the files and the navigation by the fork. A warning it logs while
rendering (a broken link, say) is logged again here, under the same logger and level, as the page is taken, so
that a strict build counts it as before; an error comes back as its text and is raised here. Where a plugin
changes a page's Markdown before it is rendered (``on_page_markdown``) or replaces how it is read, the pages are
rendered here alone: what the process read would not be what MkDocs renders."""

from __future__ import annotations

import logging
from typing import Any, NamedTuple

from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from benchwatch.site.forked import ForkedJob

SHARE = 0.4  # of the pages' Markdown (by size) rendered by the forked process; the assets run beside it too
_STATE: tuple[Any, Files, list[str]] | None = None  # set before the fork: the process inherits it


class _Records(logging.Handler):
    """The warnings a render logs, as (logger, level, text)."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[tuple[str, int, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append((record.name, record.levelno, record.getMessage()))


def _page(files: Files, uri: str) -> Page:
    file = files.get_file_from_path(uri)
    assert file is not None and file.page is not None  # (a documentation page MkDocs made a Page of)
    return file.page


class _Rendered(NamedTuple):
    """What the forked process sends back: each page's results by its source path, and the error that stopped it,
    if one did, with the page it stopped at."""

    done: dict[str, Any]
    error: str | None = None
    page: str | None = None


def _render_pages() -> _Rendered:
    """In the forked process: read and render its pages; each page's results by its source path, or the error."""
    assert _STATE is not None
    config, files, uris = _STATE
    records = _Records()
    logger = logging.getLogger("mkdocs")
    logger.addHandler(records)
    out: dict[str, Any] = {}
    try:
        for uri in uris:
            page = _page(files, uri)
            config._current_page = page
            page.read_source(config)
            page.render(config, files)
            links = page.links_to_anchors
            out[uri] = {
                "content": page.content,
                "toc": page.toc,
                "_title_from_render": page._title_from_render,
                "present_anchor_ids": page.present_anchor_ids,
                "links_to_anchors": None if links is None else {f.src_uri: v for f, v in links.items()},
                "log": records.records,
            }
            records.records = []
    except Exception as exc:  # any error of a page: raised again in the parent, as MkDocs would
        return _Rendered(out, f"{type(exc).__name__}: {exc}", uri)
    finally:
        config._current_page = None
        logger.removeHandler(records)
    return _Rendered(out)


class RenderBeside(ForkedJob):
    """The plugin ``build_site`` adds to an atlas's build (see the module's text)."""

    def __init__(self) -> None:
        super().__init__()
        self.rendered_beside: list[str] = []  # the pages the process rendered (for the tests)

    def on_nav(self, nav: Any, *, config: Any, files: Files) -> Any:
        global _STATE
        plugins = config.plugins
        if plugins.events.get("page_markdown") or plugins.events.get("page_read_source"):
            return nav
        pages = [f for f in files.documentation_pages() if f.page is not None]
        sizes = [len(f.content_bytes) for f in pages]
        total, tail, first = sum(sizes), 0, len(pages)
        while first > 1 and (tail + sizes[first - 1]) <= SHARE * total:
            first -= 1
            tail += sizes[first]
        uris = [f.src_uri for f in pages[first:]]
        if not uris:
            return nav
        _STATE = (config, files, uris)
        try:
            self._start(_render_pages)
        finally:
            _STATE = None
        for uri in uris:
            page = _page(files, uri)
            page.render = self._taker(page, files)  # type: ignore[method-assign]
        self.rendered_beside = uris
        return nav

    def _taker(self, page: Any, files: Files):
        def render(config: Any, files_now: Files) -> None:
            result: _Rendered = self._result()
            uri = page.file.src_uri
            if uri not in result.done:  # the process stopped at an earlier page's error
                raise RuntimeError(f"rendering {result.page}: {result.error}")
            got = result.done[uri]
            for name, level, text in got["log"]:
                logging.getLogger(name).log(level, "%s", text)
            page.content = got["content"]
            page.toc = got["toc"]
            page._title_from_render = got["_title_from_render"]
            page.present_anchor_ids = got["present_anchor_ids"]
            links = got["links_to_anchors"]
            if links is not None:
                page.links_to_anchors = {files.get_file_from_path(k): v for k, v in links.items()}

        return render
