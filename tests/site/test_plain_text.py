"""Plain text skips the inline patterns (``benchwatch.site.plain_text``, issue 42): every page of the sample
renders to the same HTML with the extension as without it, and text where a pattern or a glossary term could
match still takes the full path."""

from __future__ import annotations

import markdown
import pytest
from markdown.util import AtomicString
from mkdocs.config import load_config

import benchwatch.site.build as build_module
from benchwatch.history import Reports
from benchwatch.site import plain_text
from tests.conftest import ROOT

NAME = "benchwatch.site.plain_text"


def _renderers():
    config = load_config(str(ROOT / "site" / "mkdocs.yml"))
    names = [e for e in config.markdown_extensions]
    assert NAME in names  # the site's build uses it

    def render(with_it: bool):
        chosen = [e for e in names if with_it or e != NAME]
        return markdown.Markdown(extensions=chosen, extension_configs=config.mdx_configs)

    return render(True), render(False)


def test_every_page_of_the_sample_renders_the_same_with_it(sample_site, tmp_path, monkeypatch):
    _, reports, _ = sample_site
    docs = tmp_path / "docs"
    build_module.write_pages(Reports(reports), docs, "http://127.0.0.1:8000/", "2026-12-01T00:00:00Z")
    pages = sorted(docs.rglob("*.md")) + sorted((ROOT / "site" / "docs").rglob("*.md"))
    marked = []
    real = plain_text.PlainText.run

    escaped = []

    def counting(self, root):
        held = {id(e): e.text for e in root.iter() if e.tag in plain_text.CELLS and e.text and "\\" in e.text}
        real(self, root)
        marked.append(sum(isinstance(e.text, AtomicString) for e in root.iter()))
        escaped.append(sum(isinstance(e.text, AtomicString) for e in root.iter() if id(e) in held))

    monkeypatch.setattr(plain_text.PlainText, "run", counting)
    fast, full = _renderers()
    assert len(list((docs / "benchmarks").glob("*.md"))) == 15  # every benchmark page of the sample
    for page in pages:
        text = page.read_text(encoding="utf-8")
        assert fast.reset().convert(text) == full.reset().convert(text), page.name
    assert sum(marked) > 1000  # most table cells took the short path
    assert escaped and sum(escaped) > 100  # escaped names among them


def test_an_escaped_cell_takes_the_short_path():
    fast, _ = _renderers()
    root = fast.parser.parseDocument(["| a |", "|---|", r"| gpt\-5\.2 |"]).getroot()
    plain_text.PlainText(fast).run(root)
    cell = next(root.iter("td"))
    assert isinstance(cell.text, AtomicString) and cell.text == "gpt-5.2"


@pytest.mark.parametrize(
    ("cell", "html"),
    [
        ("*strong*", "<em>strong</em>"),
        ("a `code` b", "<code>code</code>"),
        ("[link](https://example.org/)", '<a href="https://example.org/">link</a>'),
        ("AT&amp;T", "AT&amp;T"),
        ("the DDM bound", '<abbr title="Difficulty distribution mismatch">DDM</abbr>'),
        ("0.115 (0.1 to 0.2)", "<td>0.115 (0.1 to 0.2)</td>"),
        # escaped text: unescaped on the short path, with or without a term in it
        (r"gpt\-5\.2\_high", "<td>gpt-5.2_high</td>"),
        (r"a\\\-b \| c", "<td>a\\-b | c</td>"),
        (r"the DDM\-x", '<abbr title="Difficulty distribution mismatch">DDM</abbr>-x'),
        (r"x\-DDM", 'x-<abbr title="Difficulty distribution mismatch">DDM</abbr>'),
        (r"a\*b\* \[c\](d)", "<td>a*b* [c](d)</td>"),
        (r"q\n \<", r"<td>q\n \&lt;</td>"),  # not an escape: the full path
    ],
)
def test_text_a_pattern_or_a_term_could_match_keeps_the_full_path(cell, html):
    page = f"| a |\n|---|\n| {cell} |\n\n*[DDM]: Difficulty distribution mismatch\n"
    fast, full = _renderers()
    out = fast.convert(page)
    assert out == full.convert(page) and html in out
