"""Upstream strings never become markup."""

from __future__ import annotations

import html

import markdown
import pytest

from benchwatch.site import md

HOSTILE = [
    "<script>alert(1)</script>",
    "[click](javascript:alert(1))",
    "![img](http://x/y.png)",
    "**bold** _it_ `code`",
    "a | b",
    "<img src=x onerror=alert(1)>",
    "../../etc/passwd",
    "# heading",
    "&lt;already&gt;",
]


@pytest.mark.parametrize("name", HOSTILE)
def test_rendered_text_is_the_name_itself(name):
    html = markdown.markdown(f"| x |\n|---|\n| {md(name)} |", extensions=["tables"])
    assert "<script" not in html and "<img" not in html and "<a " not in html
    assert "<strong>" not in html and "<em>" not in html and "<code>" not in html and "<h1" not in html
    cell = html.split("<td>")[1].split("</td>")[0]
    import html as html_lib

    assert html_lib.unescape(cell) == name


@pytest.mark.parametrize("text", ["+cmd|' /C calc'!A0", '<a href="javascript:x">m</a> | `c` *b* [l](u) \\ &amp;'])
def test_attribute_reads_back_as_the_text_and_holds_nothing_markdown_or_html_would_read(text):
    from benchwatch.site.escape import attribute

    out = attribute(text)
    assert html.unescape(out) == text
    assert not set(out) & set("|<>\"'`*[]\\")
