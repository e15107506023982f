"""One canonical spelling of an upstream name, shared by the adapters (which tell a name listed twice by it) and
the store (which writes every name in it)."""

from __future__ import annotations

import unicodedata

# Dashes NFKC leaves as they are: the non-breaking hyphen becomes U+2010, the minus sign stays U+2212.
_DASHES = dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"), "-")


def clean_name(text: str) -> str:
    """The canonical spelling of an upstream name: NFKC, ASCII dashes, no control or invisible
    characters, single spaces, no space at either end. Names that look the same become the same."""
    s = unicodedata.normalize("NFKC", str(text)).translate(_DASHES)
    s = "".join(" " if ch.isspace() else ch for ch in s if unicodedata.category(ch) not in ("Cc", "Cf") or ch.isspace())
    return " ".join(s.split())
