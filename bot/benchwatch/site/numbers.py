"""One way to print a figure on the site."""

from __future__ import annotations


def fmt(value: float | None, digits: int = 3) -> str:
    """A figure with a fixed number of decimals, or an en dash when it is missing."""
    if value is None:
        return "–"
    return f"{value:.{digits}f}"


def pct(value: float | None, digits: int = 1) -> str:
    """A proportion as a percentage."""
    if value is None:
        return "–"
    return f"{100 * value:.{digits}f}%"
