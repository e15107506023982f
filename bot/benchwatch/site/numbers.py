"""One way to print a figure on the site."""

from __future__ import annotations

import math


def fmt(value: float | None, digits: int = 3) -> str:
    """A figure with a fixed number of decimals, or an en dash when it is missing (or not a finite number: no nan or
    inf reaches a page)."""
    if value is None or not math.isfinite(value):
        return "–"
    return f"{value:.{digits}f}"


def pct(value: float | None, digits: int = 1) -> str:
    """A proportion as a percentage (an en dash where it is missing or not finite)."""
    if value is None or not math.isfinite(value):
        return "–"
    return f"{100 * value:.{digits}f}%"
