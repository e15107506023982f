"""The collapsed rest of a long table is left out of the search index (``benchwatch.site.search_scope``, issue 42):
the rows a page shows stay in it, and the published page is the page as Markdown wrote it."""

from __future__ import annotations

import json
import re
from html import unescape
from types import SimpleNamespace

import markdown

from benchwatch.site import search_scope
from benchwatch.site.search_scope import REST
from tests.conftest import ROOT


def _index(site, page: str) -> str:
    """The search index's text of one page."""
    docs = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))["docs"]
    return "\n".join(unescape(d["title"] + " " + d["text"]) for d in docs if d["location"].startswith(page))


def test_the_rest_of_a_long_table_is_not_indexed_and_what_is_shown_is(sample_site):
    _, _, site = sample_site
    assert "hooks/search_scope.py" in (ROOT / "site" / "mkdocs.yml").read_text(encoding="utf-8")
    index = _index(site, "benchmarks/epoch-gpqa-diamond-6232e89e/")
    page = (site / "benchmarks" / "epoch-gpqa-diamond-6232e89e" / "index.html").read_text(encoding="utf-8")
    assert f'<details class="note {REST}">' in page and f"<!-- {REST}" not in page and "data-search" not in page
    rest = page.split(f'<details class="note {REST}">', 1)[1].split("</details>", 1)[0]
    shown = page.split(f'<details class="note {REST}">', 1)[0]
    cells = lambda html: re.findall(r"<td>([^<]*[A-Za-z][^<]*)</td>", html)  # noqa: E731 (names of models)
    only_rest = [c for c in cells(rest) if c not in shown and len(c) > 6]
    assert len(only_rest) > 50  # the 130 models below the first 15
    assert not any(unescape(c) in index for c in only_rest)
    assert all(unescape(c) in index for c in cells(shown)[:10])  # the first rows are still found
    assert "Who can be told apart" in index and "130 more models" not in index  # its title goes with it


def test_the_blocks_are_held_aside_and_put_back_as_they_were():
    text = (
        '??? note bw-rest "3 more"\n    text A\n\n??? note "Other estimates"\n    text B\n\n'
        '??? note bw-rest "9"\n    C\n'
    )
    html = markdown.markdown(text, extensions=["pymdownx.details"])
    page = SimpleNamespace(content=html)
    hold, put_back = search_scope.search_scope_hook.methods
    assert hold.mkdocs_priority > 0 > put_back.mkdocs_priority  # around Material's search plugin (0)
    context = {"page": page}
    assert hold(context, page=page, config=None, nav=None) is context
    assert "text A" not in page.content and " C" not in page.content and "text B" in page.content
    assert put_back(context, page=page, config=None, nav=None) is context
    assert page.content == html
