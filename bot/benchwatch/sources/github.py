"""A GitHub repository's file list, from its git trees API (``GET /repos/OWNER/REPO/git/trees/REF?recursive=1``): the
way to find a repository's files when it publishes no index of its own (the raw files' host lists nothing).

The answer is ``{"sha", "url", "tree": [{"path", "mode", "type": "blob" | "tree", "sha", "size"?, "url"}],
"truncated"}`` (GitHub's REST API reference, "Get a tree"); a truncated listing (over 100,000 entries or 7 MB) is
refused, never read as the whole repository.
"""

from __future__ import annotations

from benchwatch.errors import InputError
from benchwatch.sources.http import Fetcher
from benchwatch.sources.parsing import read_json, require, where


def tree_paths(fetcher: Fetcher, url: str, source: str, prefix: str = "") -> list[str]:
    """The paths of the files (blobs) under ``prefix`` in the listing at ``url``, sorted."""
    download = fetcher.get(url, source=source)
    doc = read_json(download, source)
    tree = require(doc, "tree", list, source, url)
    if doc.get("truncated"):
        raise InputError(where(source, url), "the listing is truncated: not every file is named", field="truncated")
    out = []
    for k, entry in enumerate(tree):
        path = require(entry, "path", str, source, url, f"tree[{k}]")
        if entry.get("type") == "blob" and path.startswith(prefix):
            out.append(path)
    return sorted(out)
