"""Escaping of untrusted upstream strings for Markdown pages, XML (RSS, SVG) and spreadsheets."""

from __future__ import annotations

import html
import re
import unicodedata

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~])")


def printable(text: object) -> str:
    """The text without control or invisible format characters (never valid in XML 1.0, never wanted on
    a page); tabs and line breaks become spaces."""
    s = str(text)
    if s.isprintable():
        return s
    kept = (ch for ch in s if ch in "\t\n\r" or unicodedata.category(ch) not in ("Cc", "Cf", "Cs"))
    return "".join(" " if ch in "\t\n\r" else ch for ch in kept)


def md(text: object) -> str:
    """Text safe to place in Markdown (and table cells): no markup, no HTML, no line breaks."""
    s = " ".join(printable(text).split())
    s = _MD_SPECIAL.sub(r"\\\1", s)
    return html.escape(s, quote=False).replace("$", "&#36;")  # a $ would open math (the site's arithmatex)


def attribute(text: object) -> str:
    """Text safe inside a quoted HTML attribute on a Markdown page (a hover title in a table cell): HTML
    escaped, and the characters that Markdown would read there (a ``|`` ends a table cell) as numeric
    character references, which the browser shows as the characters themselves."""
    s = " ".join(printable(text).split())
    return "".join(f"&#{ord(ch)};" if ch in _ATTRIBUTE_SPECIAL else ch for ch in s)


_ATTRIBUTE_SPECIAL = frozenset("&<>\"'|\\`*_[]")
