"""MkDocs hooks for the site's build (``site/hooks/search_scope.py`` hands ``search_scope_hook`` to
``site/mkdocs.yml``): the collapsed rest of a long table is left out of the search index.

A long table on a page shows its first rows and folds the rest into a collapsed block (``_macros.md.j2``'s
``collapsed``: the 130 more models of a leaderboard, the older dates and snapshots), which the templates mark
with the class ``bw-rest``. Those rows are most of the HTML that Material's search plugin parses: at atlas scale
(issue 42) the search cost 3.3 s of the build for 150 benchmarks, and 1.1 s without them; an entry that finds a
page by its 40th model's score says nothing a reader searches for (the data page says so; the rows are in the
downloads). Material's own ``data-search-exclude`` attribute keeps their text out of the index but its parser
still reads every tag of them (2.2 s); so each such block is held aside, a comment in its place, before the search
plugin reads the page, and put back after it, before the page is written: the published page is unchanged."""

from __future__ import annotations

import re
from typing import Any

from mkdocs.plugins import CombinedEvent, event_priority

REST = "bw-rest"  # the class of a collapsed rest of a table (``_macros.md.j2``)
BLOCK = re.compile(rf'<details class="note {REST}">.*?</details>', re.S)  # (a table in it: no nested block)
HELD = re.compile(rf"<!-- {REST} (\d+) -->")  # (upstream text is escaped: no "<" of its own reaches the page)
ATTRIBUTE = "_benchwatch_rest"  # where a page keeps its blocks meanwhile


@event_priority(100)  # before Material's search plugin (priority 0) reads the page
def _hold(context: Any, page: Any, **_: Any) -> Any:
    held: list[str] = []

    def hold(match: re.Match) -> str:
        held.append(match.group(0))
        return f"<!-- {REST} {len(held) - 1} -->"

    page.content = BLOCK.sub(hold, page.content or "")
    setattr(page, ATTRIBUTE, held)
    return context


@event_priority(-100)  # after it, before the theme writes the page
def _put_back(context: Any, page: Any, **_: Any) -> Any:
    held = getattr(page, ATTRIBUTE, None)
    if held:
        page.content = HELD.sub(lambda match: held[int(match.group(1))], page.content)
    setattr(page, ATTRIBUTE, None)
    return context


search_scope_hook = CombinedEvent(_hold, _put_back)  # the hook file's on_page_context
