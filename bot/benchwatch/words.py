"""Counted nouns for what the commands and pages print: "1 new snapshot", "2 new snapshots"."""

from __future__ import annotations


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and ``noun``, the noun's last word in the plural unless ``n`` is 1 (``plural`` where it is not +s)."""
    if n == 1:
        return f"{n:,} {noun}"
    return f"{n:,} {plural or noun + 's'}"
