"""The home page's summary picture (``summary_svg``): every benchmark at (models in its best's tier, DDM),
coloured by state, each point a link to its page, labelled where its name fits; in the style of the audit's other
pictures (``benchwatch.site.plots``)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import NamedTuple

from benchwatch.site.plots import WIDTH, axis_ticks
from benchwatch.site.svg import ACCENT, INK, Panel, Picture, clip_text, esc, nice_ticks, num, text_width
from benchwatch.vocabulary import STATES, TOLD_APART_AT

LABEL_GAP = 2.0  # px kept between two labels' boxes: a browser's glyphs run a pixel or so past the estimate


def _boxes_clash(a: tuple, b: tuple, gap: float = LABEL_GAP) -> bool:
    return not (a[2] + gap <= b[0] or b[2] + gap <= a[0] or a[3] + gap <= b[1] or b[3] + gap <= a[1])


TIER_TICKS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000)


def _tier_x(size: float) -> float:
    """Where a top tier of ``size`` models lies on the summary picture's axis (log scale)."""
    return math.log(max(float(size), 1.0))


class SummaryPoint(NamedTuple):
    """A benchmark on the home page's summary picture (``summary_svg``)."""

    name: str  # the name the pages show (shown on hover)
    url: str  # its page, relative to the picture
    top_tier_size: int | None  # models in its best's tier (None: not drawn)
    ddm: float | None  # None for an aggregate-only board, or a benchmark whose bounds are withheld: on the strip
    state: str


Box = tuple[float, float, float, float]  # x0, y0, x1, y1
STRIP_CAPTIONS = (("no coverage", -7), ("figure", 7))  # the strip's name, left of it: no mark may cover it
LABEL_SPOTS: tuple[tuple[float, float, str], ...] = (  # where a point's name may go: (dx, dy, anchor), in turn
    (8, 0, "start"),
    (-8, 0, "end"),
    (0, -11, "middle"),
    (0, 12, "middle"),
    *((sx * 8, dy, a) for dy in (-12, 12, -24, 24) for sx, a in ((1, "start"), (-1, "end"))),
)


def summary_svg(points: list[SummaryPoint], width: float = WIDTH) -> str:
    """Every benchmark at (models in its best's tier, DDM), coloured by state, each point a link to its page,
    labelled with its name where the label fits beside it without covering another label or point. The state
    and the position read one rule (``vocabulary.STATE_RULE``): a point right of the line at five has its top
    five in one tier (saturated or stagnant), left of it they are told apart (discriminating).

    ``points``: ``SummaryPoint``s, a point whose ``ddm`` is None (an aggregate-only board, or a benchmark whose
    bounds are withheld) drawn on the strip below. Hovering a point shows its name. ``width``: the picture's
    (``NARROW``: the home page's on a phone, drawn at its own size so that its text stays legible, where the full
    width would be scaled down to half).
    """
    shown = [p for p in points if p.top_tier_size is not None and p.state != "unknown"]
    pic = Picture(width, 470)
    _state_legend(pic, shown)
    main = Panel(84, 36, width - 114, 300)
    strip = Panel(84, main.y + main.h + 18, width - 114, 46)
    main.y1 = max([0.3, *(p.ddm * 1.1 for p in shown if p.ddm is not None)])
    largest = max([20, *(p.top_tier_size or 0 for p in shown)])
    ticks = [t for t in TIER_TICKS if t <= largest * 1.5]
    for panel in (main, strip):
        panel.x0, panel.x1 = 0.0, _tier_x(max(largest * 1.5, ticks[-1]))
    caption = "coverage against saturation; a point links to its page"
    size = 11 if main.x + text_width(caption, 11) <= width else 10  # moved left, and smaller, on a narrow one
    pic.text(max(4, min(main.x, width - 4 - text_width(caption, size))), main.y - 4, caption, size, baseline="auto")
    line_label = _told_apart_line(pic, main, strip, width)
    on_top = [p for p in shown if p.ddm is not None]
    below = [p for p in shown if p.ddm is None]
    spread = [0.5 + 0.6 * ((k * 0.618) % 1 - 0.5) for k in range(len(below))]  # apart on the strip
    strip.y0, strip.y1 = 0.0, 1.0
    placed = [(main.px(_tier_x(p.top_tier_size or 0)), main.py(p.ddm or 0.0)) for p in on_top]
    placed += [(strip.px(_tier_x(p.top_tier_size or 0)), strip.py(s)) for p, s in zip(below, spread, strict=True)]
    layout = _Labels([(px - 5, py - 5, px + 5, py + 5) for px, py in placed])
    layout.taken.append(line_label)
    for text, shift in STRIP_CAPTIONS:
        cy = strip.y + strip.h / 2 + shift
        layout.taken.append((strip.x - 6 - text_width(text, 10), cy - 6, strip.x - 6, cy + 6))
    links = []
    for p, (px, py) in zip([*on_top, *below], placed, strict=True):
        links.append(_point_link(p, px, py))
        layout.place(p, px, py, main if p.ddm is not None else strip, width)
    for lx, ly, label, anchor in layout.labels:
        pic.text(lx, ly, label, 10, anchor=anchor)
    _summary_key(pic, layout.keyed, strip.y + strip.h + 52, width)
    pic.parts.extend(links)
    pic.y_axis(main, axis_ticks(nice_ticks(0, main.y1, 5)), "DDM (W1 to target)")
    pic.line(strip.x, strip.y, strip.x, strip.y + strip.h)
    for text, shift in STRIP_CAPTIONS:
        pic.text(strip.x - 6, strip.y + strip.h / 2 + shift, text, 10, anchor="end")
    pic.x_axis(strip, [(_tier_x(t), str(t)) for t in ticks], "models in the best's tier (log scale)")
    return pic.svg()


def _state_legend(pic: Picture, shown: list[SummaryPoint]) -> None:
    """The summary picture's legend, above it: each state a shown point has, in its colour."""
    states = [s for s in STATES if any(p.state == s for p in shown)]
    x: float = 90
    for s in states:
        pic.add(f'<circle cx="{num(x)}" cy="14" r="5" fill="{STATES[s].colour}"/>')
        pic.text(x + 9, 14, STATES[s].word, 11)
        x += 24 + text_width(STATES[s].word, 11)


def _told_apart_line(pic: Picture, main: Panel, strip: Panel, width: float) -> Box:
    """The dashed line at five models in the best's tier, across both panels, and its label (on two lines where
    one would run off the picture, the main panel's top raised to make room); returns the label's box, which no
    point's label may cover."""
    line = _tier_x(TOLD_APART_AT - 0.5)  # five or more in the best's tier: right of the line
    for panel in (main, strip):
        pic.line(panel.px(line), panel.y, panel.px(line), panel.y + panel.h, ACCENT, 1, "2 3")
    line_label = f"{TOLD_APART_AT}+: the top five share one tier"
    label_lines = [line_label]
    if main.px(line) + 4 + text_width(line_label, 10) > width - 2:  # on two lines where one would run off the edge
        cut = min((k for k, c in enumerate(line_label) if c == " "), key=lambda k: abs(k - len(line_label) / 2))
        label_lines = [line_label[:cut], line_label[cut + 1 :]]
        main.y1 *= 1.1  # room above the highest point for the second line
    for k, text in enumerate(label_lines):
        pic.text(main.px(line) + 4, main.y + 8 + 12 * k, text, 10, anchor="start", colour=ACCENT)
    label_w = max(text_width(text, 10) for text in label_lines)
    return (main.px(line), main.y, main.px(line) + 6 + label_w, main.y + 4 + 12 * len(label_lines))


def _point_link(p: SummaryPoint, px: float, py: float) -> str:
    """A point of the summary picture: a dot in its state's colour, a link to its page, named on hover."""
    colour = STATES[p.state].colour if p.state in STATES else INK
    r = 5
    d = f"M{num(px - r)} {num(py)}a{r} {r} 0 1 0 {2 * r} 0a{r} {r} 0 1 0 {-2 * r} 0Z"
    return (
        f'<a xlink:href="{esc(p.url)}" href="{esc(p.url)}" target="_top"><title>{esc(p.name)}</title>'
        f'<path d="{d}" fill="{colour}" stroke="white" stroke-width="0.8"/></a>'
    )


@dataclass
class _Labels:
    """The summary picture's labels as they are placed: the boxes no label may cover (points, placed labels), the
    labels placed (x, y, text, anchor) and the key's entries (the names that found no room beside their point)."""

    taken: list[Box]
    labels: list[tuple[float, float, str, str]] = field(default_factory=list)
    keyed: list[str] = field(default_factory=list)

    def place(self, p: SummaryPoint, px: float, py: float, panel: Panel, width: float) -> None:
        """Label a point at (px, py) of ``panel``: its name at the first spot beside it that is free; else a number
        beside the dot, its name in the key under the picture; else (a dense cluster) its name in the key alone."""
        label = clip_text(p.name, 10, 300)  # a whole real name; a numbered key takes what will not fit
        w = text_width(label, 10)
        for dx, dy, anchor in LABEL_SPOTS:
            x0 = px + dx if anchor == "start" else px + dx - w if anchor == "end" else px - w / 2
            box = (x0, py + dy - 6, x0 + w, py + dy + 6)
            inside = (
                panel.x <= box[0]
                and box[2] <= panel.x + panel.w + 25
                and panel.y - 2 <= box[1]
                and box[3] <= panel.y + panel.h + 2
            )
            if inside and self._take(box):
                self.labels.append((px + dx, py + dy, label, anchor))
                return
        mark = str(sum(entry[0].isdigit() for entry in self.keyed) + 1)
        mw = text_width(mark, 10)
        for dx, dy in ((7, -7), (-7 - mw, -7), (7, 7), (-7 - mw, 7), (-mw / 2, -12), (-mw / 2, 12)):
            box = (px + dx, py + dy - 6, px + dx + mw, py + dy + 6)
            if panel.x + 2 <= box[0] and box[2] <= width - 2 and self._take(box):  # never on the axis's tick labels
                self.labels.append((box[0], py + dy, mark, "start"))
                self.keyed.append(f"{mark} {p.name}")
                return
        self.keyed.append(f"{p.name} ({p.top_tier_size} in the top tier)")  # the key places it by its index

    def _take(self, box: Box) -> bool:
        """Take ``box`` where it clashes with nothing taken; whether it did."""
        if any(_boxes_clash(box, t) for t in self.taken):
            return False
        self.taken.append(box)
        return True


def _summary_key(pic: Picture, keyed: list[str], top: float, width: float) -> None:
    """The summary picture's key under it (the names placed by a number, or not at all), wrapped to its width;
    the picture grows to hold it."""
    rows: list[str] = []
    for entry in keyed:
        if rows and text_width(rows[-1] + "; " + entry, 10) <= width - 20:
            rows[-1] += "; " + entry
        else:
            rows.append(clip_text(entry, 10, width - 20))
    for k, row in enumerate(rows):
        pic.text(10, top + 15 * k, row, 10)
    pic.height += 15 * len(rows) + (8 if rows else 0)


NARROW = 350  # px: the home page's summary picture on a phone (its text column is 358 px wide at 390)
