"""An atlas's plots, downloads and bundle written straight into the built site by a process of their own, while
MkDocs builds: a MkDocs plugin.

``write_pages(..., deferred=True)`` writes the pages and names the files they link to without writing them. Once
MkDocs has emptied the site folder and listed the docs (``on_files``), this plugin adds each named file to that
list, so that links to it resolve and are checked exactly as for a file in the docs folder, and forks a process
that writes them all into the site folder (``benchwatch.site.build.write_assets``). MkDocs copies none of them (a
file is written once, not as an empty stand-in in the docs, again in the site and a third time over it: at atlas
scale a thousand files, each creation about half a millisecond on a virtual disk). After the build
(``on_post_build``) the plugin waits for the process and raises its error, if any (a damaged table, as the pages
would name it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from mkdocs.structure.files import File, Files

from benchwatch.site.forked import ForkedJob


class WrittenBeside(File):
    """A file of the site that the assets' process writes into the site folder: MkDocs copies nothing."""

    def copy_file(self, dirty: bool = False) -> None:
        return None


class AssetsBeside(ForkedJob):
    """``job(site_folder)`` run in a forked process from ``on_files``; ``paths``: what it writes, under the site."""

    def __init__(self, paths: list[str], job: Callable[[str], Any], raised: Callable[[Any], Any]) -> None:
        super().__init__()
        self._paths, self._job, self._raised = paths, job, raised

    def on_files(self, files: Files, *, config: Any) -> Files:
        for path in self._paths:
            files.append(WrittenBeside(path, config.site_dir, config.site_dir, config.use_directory_urls))
        self._start(self._job, config.site_dir)
        return files

    def on_post_build(self, *, config: Any) -> None:
        self._raised(self._result())
