"""Escaping of untrusted upstream strings for Markdown pages rendered to HTML."""

from __future__ import annotations

import html
import re

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|~])")


def md(text: object) -> str:
    """Text safe to place in Markdown (and table cells): no markup, no HTML, no line breaks."""
    s = " ".join(str(text).split())
    s = _MD_SPECIAL.sub(r"\\\1", s)
    return html.escape(s, quote=False)
