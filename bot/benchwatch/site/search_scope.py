"""A Markdown extension for the site's MkDocs build (``site/mkdocs.yml``): the collapsed rest of a long table is
left out of the search index.

A long table on a page shows its first rows and folds the rest into a collapsed block (``_macros.md.j2``'s
``collapsed``: the 130 more models of a leaderboard, the older dates and snapshots), which the templates mark
with the class ``bw-rest``. Those rows are most of the HTML that Material's search plugin parses, and
at atlas scale that parsing was about 70% of its cost (issue 42: 2.3 s of 3.3 for 150 benchmarks); an entry
that finds a page by its 40th model's score says nothing a reader searches for. This tree processor gives
every such block Material's ``data-search-exclude`` attribute, which the plugin reads (it skips the block's
text) and then removes from the published page, so the pages are otherwise unchanged; the block's title goes
with it; the shown rows and everything else stay in the index."""

from __future__ import annotations

from typing import Any

from markdown import Extension
from markdown.treeprocessors import Treeprocessor

REST = "bw-rest"  # the class of a collapsed rest of a table (``_macros.md.j2``)
EXCLUDE = "data-search-exclude"  # Material's attribute: the element's text is not indexed
PRIORITY = 1  # after the block-level work, before the serialiser: it only sets an attribute


class SearchScope(Treeprocessor):
    def run(self, root: Any) -> None:
        for element in root.iter("details"):
            if REST in (element.get("class") or "").split():
                element.set(EXCLUDE, "rest")


class SearchScopeExtension(Extension):
    def extendMarkdown(self, md: Any) -> None:  # Python-Markdown's name
        md.treeprocessors.register(SearchScope(md), "benchwatch_search_scope", PRIORITY)


def makeExtension(**kwargs: Any) -> SearchScopeExtension:  # how Python-Markdown loads an extension
    return SearchScopeExtension(**kwargs)
