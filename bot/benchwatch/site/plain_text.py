"""A Markdown extension for the site's MkDocs build (``site/mkdocs.yml``): plain text skips the inline patterns.

Python-Markdown runs every inline pattern (emphasis, links, code, entities, escapes, inline HTML, the math's
dollars, ...) over every text node, one regular expression search after another from Python; on a benchmark page
most text nodes are table cells that hold a number, a date or a plain name, where none of them can match. At
atlas scale that was the largest part of MkDocs' build (issue 42: about 60 ms of a page's 85). This tree
processor runs just before the inline one and marks such text atomic (``markdown.util.AtomicString``: the inline
patterns and the abbreviations leave it alone), so the page comes out byte for byte as before:

- *plain*: only letters and digits (of any script), spaces and ``. , : ; % ( ) / + - # ' "`` and the dashes and
  signs ``– — × ± ≤ ≥`` (none of them starts an inline pattern of the extensions the site uses; ``*``, ``_``,
  ``[``, ``!``, backticks, ``<``, ``&``, ``\\``, ``$``, ``{`` and every control character, Python-Markdown's
  placeholders among them, keep the full path);
- and no abbreviation of the page's glossary in it (the same expression the abbreviations use: a cell naming a
  glossary term still gets its hover).

A table cell of such text with backslash escapes in it (an upstream name as ``benchwatch.site.escape.md`` writes
it: ``gpt\\-5\\.2``) is unescaped here, as the escape pattern and the unescaping tree processor would, and marked
atomic too, unless a glossary term matches it either before or after (the abbreviations see the escapes as
Python-Markdown's placeholders).

A test builds every page of the sample both ways and compares them."""

from __future__ import annotations

import re
from typing import Any

from markdown import Extension
from markdown.treeprocessors import Treeprocessor
from markdown.util import AtomicString

PLAIN = re.compile(r"(?:[^\W_]|[ .,:;%()/+#'\"–—×±≤≥-])*\Z")
ESCAPED = re.compile(r"(?:[^\W_]|[ .,:;%()/+#'\"–—×±≤≥-]|\\[\\`*_{}\[\]()#+.!|-])*\Z")  # and escapes
UNESCAPE = re.compile(r"\\(.)")
CELLS = frozenset({"td", "th"})
PRIORITY = 25  # before the inline patterns (20), after nothing else of the site's


class PlainText(Treeprocessor):
    def run(self, root: Any) -> None:
        abbrs = getattr(self.md.treeprocessors["abbr"], "abbrs", {}) if "abbr" in self.md.treeprocessors else {}
        terms = None
        if abbrs:  # as markdown.extensions.abbr builds it
            keys = sorted(abbrs, key=len, reverse=True)
            terms = re.compile(f"\\b(?:{'|'.join(re.escape(key) for key in keys)})\\b")

        def plain(text: str | None) -> bool:
            return bool(
                text
                and not isinstance(text, AtomicString)
                and PLAIN.match(text)
                and (terms is None or not terms.search(text))
            )

        def unescaped(text: str | None) -> str | None:
            """A cell's escaped plain text without its escapes, where no pattern or term could match it."""
            if not text or isinstance(text, AtomicString) or "\\" not in text or not ESCAPED.match(text):
                return None
            out = UNESCAPE.sub(r"\1", text)
            held = UNESCAPE.sub(lambda m: f"\x02{ord(m.group(1))}\x03", text)  # as the abbreviations see it
            if terms is not None and (terms.search(out) or terms.search(held)):
                return None
            return out

        for element in root.iter():
            if plain(element.text):
                element.text = AtomicString(element.text)
            elif element.tag in CELLS and (text := unescaped(element.text)) is not None:
                element.text = AtomicString(text)
            if plain(element.tail):
                element.tail = AtomicString(element.tail)


class PlainTextExtension(Extension):
    def extendMarkdown(self, md: Any) -> None:  # Python-Markdown's name
        md.treeprocessors.register(PlainText(md), "benchwatch_plain_text", PRIORITY)


def makeExtension(**kwargs: Any) -> PlainTextExtension:  # how Python-Markdown loads an extension
    return PlainTextExtension(**kwargs)
