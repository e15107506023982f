"""A small writer of SVG pictures: panels with linear axes, ticks, text and shapes, every string escaped.

The site's pictures are a few dozen lines, dots and labels each; drawing them here instead of through a
plotting library costs milliseconds, not a third of a second a picture (a fresh site had 31 of them), and
puts every label where a test can find it: the text widths are estimated from the font size (a wide
sans-serif average, so that a label never runs past the space it was given).
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date, timedelta

from benchwatch.site.escape import printable

INK = "#8a8f98"  # mid grey: legible on white and on Material's slate
MAIN = "#5c6bc0"
ACCENT = "#ef6c00"
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif"
CHAR = 0.6  # an upper estimate of a character's width, in units of the font size


def esc(text: object) -> str:
    """Upstream text made safe for an SVG attribute or element (control characters shown, markup escaped)."""
    return html.escape(printable(str(text)), quote=True)


WIDE = 0.8  # capitals and m, w: wider than the average (a name in capitals, "MMLU-Pro", ran past its estimate)
# and the signs as wide as a figure's box in common fonts ("mbpp+" ran 5 px past its estimate into the next label)


def _char(c: str) -> float:
    return WIDE if c.isupper() or c in "mwMW@%+=<>~#&" else CHAR


def text_width(text: str, size: float) -> float:
    """An upper estimate of the width of ``text`` at font size ``size`` (px)."""
    return size * sum(_char(c) for c in text)


def clip_text(text: str, size: float, width: float) -> str:
    """``text`` cut (with an ellipsis) to fit ``width`` px at ``size``."""
    if text_width(text, size) <= width:
        return text
    room, used, cut = width - CHAR * size, 0.0, 0
    while cut < len(text) and used + _char(text[cut]) * size <= room:
        used += _char(text[cut]) * size
        cut += 1
    return text[: max(cut, 1)] + "…"


def num(v: float) -> str:
    """A coordinate with two decimals, no trailing zeros (small, stable files)."""
    s = f"{v:.2f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def nice_ticks(lo: float, hi: float, most: int = 6) -> list[float]:
    """Round tick values covering [lo, hi], at most ``most`` of them (steps of 1, 2 or 5 times a power of 10)."""
    if not hi > lo:
        return [lo]
    raw = (hi - lo) / max(1, most - 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(s * power for s in (1, 2, 2.5, 5, 10) if s * power >= raw)
    first = math.ceil(lo / step - 1e-9) * step
    ticks = []
    v = first
    while v <= hi + 1e-9 * step:
        ticks.append(round(v, 10))
        v += step
    return ticks


def tick_label(v: float) -> str:
    return f"{v:.10g}"


def date_ticks(first: date, last: date, most: int = 6) -> list[tuple[date, str]]:
    """Calendar ticks between two dates: the first days of months (every 1, 2, 3, 6, 12, 24 or 60 months) or,
    within two months, days; each labelled as short as its step allows."""
    if last <= first:
        return [(first, first.isoformat())]
    span = (last - first).days
    if span < 62:
        step = next((s for s in (1, 2, 7, 14, 31) if span / s <= most), 31)
        ticks, d = [], first
        while d <= last:
            ticks.append((d, d.strftime("%m-%d") if first.year == last.year else d.isoformat()))
            d += timedelta(days=step)
        return ticks
    months = (last.year - first.year) * 12 + last.month - first.month
    step = next((s for s in (1, 2, 3, 6, 12, 24, 60) if months / s <= most), 120)
    index = first.year * 12 + first.month - 1
    index += -index % step if first.day == 1 else (step - index % step) or step
    ticks = []
    while True:
        d = date(index // 12, index % 12 + 1, 1)
        if d > last:
            break
        if d >= first:
            ticks.append((d, str(d.year) if step >= 12 else d.strftime("%Y-%m")))
        index += step
    return ticks or [(first, first.isoformat())]


@dataclass
class Panel:
    """A plotting area at (x, y) of size (w, h) px showing [x0, x1] x [y0, y1] (y upwards)."""

    x: float
    y: float
    w: float
    h: float
    x0: float = 0.0
    x1: float = 1.0
    y0: float = 0.0
    y1: float = 1.0

    def px(self, v: float) -> float:
        return self.x + (min(max(v, self.x0), self.x1) - self.x0) / ((self.x1 - self.x0) or 1.0) * self.w

    def py(self, v: float) -> float:
        return self.y + self.h - (min(max(v, self.y0), self.y1) - self.y0) / ((self.y1 - self.y0) or 1.0) * self.h


@dataclass
class Picture:
    """An SVG document built element by element (``add``), written by ``svg``."""

    width: float
    height: float
    parts: list[str] = field(default_factory=list)

    def add(self, element: str) -> None:
        self.parts.append(element)

    def text(
        self,
        x: float,
        y: float,
        text: str,
        size: float = 12,
        anchor: str = "start",
        colour: str = INK,
        weight: str = "normal",
        baseline: str = "middle",
        rotate: bool = False,
    ) -> None:
        extra = f' transform="rotate(-90 {num(x)} {num(y)})"' if rotate else ""
        bold = ' font-weight="bold"' if weight != "normal" else ""
        self.add(
            f'<text x="{num(x)}" y="{num(y)}" font-size="{num(size)}" text-anchor="{anchor}" '
            f'dominant-baseline="{baseline}" fill="{colour}"{bold}{extra}>{esc(text)}</text>'
        )

    def line(
        self, x1: float, y1: float, x2: float, y2: float, colour: str = INK, width: float = 1, dash: str = ""
    ) -> None:
        style = f' stroke-dasharray="{dash}"' if dash else ""
        self.add(
            f'<path d="M{num(x1)} {num(y1)}L{num(x2)} {num(y2)}" stroke="{colour}" stroke-width="{num(width)}"'
            f' fill="none"{style}/>'
        )

    def rect(self, x: float, y: float, w: float, h: float, fill: str, opacity: float = 1.0, extra: str = "") -> None:
        alpha = f' fill-opacity="{num(opacity)}"' if opacity < 1 else ""
        self.add(
            f'<rect x="{num(x)}" y="{num(y)}" width="{num(max(w, 0))}" height="{num(max(h, 0))}" fill="{fill}"'
            f"{alpha}{extra}/>"
        )

    def polyline(self, points: Iterable[tuple[float, float]], colour: str, width: float = 1.5, dash: str = "") -> None:
        pts = list(points)
        if len(pts) < 2:
            return
        d = "M" + "L".join(f"{num(x)} {num(y)}" for x, y in pts)
        style = f' stroke-dasharray="{dash}"' if dash else ""
        self.add(f'<path d="{d}" stroke="{colour}" stroke-width="{num(width)}" fill="none"{style}/>')

    def x_axis(self, panel: Panel, ticks: list[tuple[float, str]], title: str = "", size: float = 11) -> None:
        base = panel.y + panel.h
        self.line(panel.x, base, panel.x + panel.w, base)
        for v, label in ticks:
            x = panel.px(v)
            self.line(x, base, x, base + 4)
            self.text(x, base + 9, label, size, anchor="middle", baseline="hanging")
        if title:  # centred under the panel, moved in where it would run past the picture's edge
            half = text_width(title, size) / 2
            centre = min(max(panel.x + panel.w / 2, half + 2), self.width - half - 2)
            self.text(centre, base + 12 + size * 1.6, title, size, anchor="middle", baseline="hanging")

    def y_axis(self, panel: Panel, ticks: list[tuple[float, str]], title: str = "", size: float = 11) -> None:
        self.line(panel.x, panel.y, panel.x, panel.y + panel.h)
        widest = 0.0
        for v, label in ticks:
            y = panel.py(v)
            self.line(panel.x - 4, y, panel.x, y)
            self.text(panel.x - 6, y, label, size, anchor="end")
            widest = max(widest, text_width(label, size))
        if title:
            self.text(panel.x - 12 - widest, panel.y + panel.h / 2, title, size, anchor="middle", rotate=True)

    def svg(self) -> str:
        head = (
            f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
            f'viewBox="0 0 {num(self.width)} {num(self.height)}" width="{num(self.width)}" '
            f'height="{num(self.height)}" font-family="{FONT}" role="img">'
        )
        return head + "\n" + "\n".join(self.parts) + "\n</svg>\n"
