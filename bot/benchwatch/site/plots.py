"""SVG pictures of the audit, in one style readable on light and dark themes (``benchwatch.site.svg``)."""

from __future__ import annotations

import math
from datetime import date

import numpy as np
import pandas as pd

from benchwatch.metrics import BANDS, UNIFORM, Target
from benchwatch.site.svg import (
    ACCENT,
    INK,
    MAIN,
    Panel,
    Picture,
    clip_text,
    date_ticks,
    esc,
    nice_ticks,
    num,
    text_width,
    tick_label,
)
from benchwatch.vocabulary import STATES, TOLD_APART_AT

GAP = ACCENT  # the largest gaps, shaded at GAP_OPACITY
GAP_OPACITY = 0.2
WIDTH = 720  # px: every picture is this wide and scales down with the page


def _ticks(values: list[float]) -> list[tuple[float, str]]:
    return [(v, tick_label(v)) for v in values]


def _target_cdf(spec: dict, t: np.ndarray) -> np.ndarray | None:
    """The target's CDF at t (``Target.cdf``), or None for another benchmark's z (the spec has no values)."""
    kind = (spec or {}).get("kind", "uniform")
    if kind == "uniform":
        return UNIFORM.cdf(t)
    if kind == "beta":
        return Target.beta(spec["a"], spec["b"]).cdf(t)
    return None


def _label_width(labels: list[str], size: float, most: float) -> float:
    return min(most, max([text_width(s, size) for s in labels], default=0.0))


def saturation_svg(by_date: pd.DataFrame, top_models: list[dict]) -> str:
    """The saturation index by date over its bands (above), and the current top five with 95% intervals
    (below, where long real model names have the picture's whole width)."""
    names = [str(m["model"]) for m in top_models]
    rows = max(len(names), 1)
    upper_h, row_h = 200, 22
    height = 30 + upper_h + 50 + 30 + rows * row_h + 50
    pic = Picture(WIDTH, height)
    top = Panel(60, 30, WIDTH - 60 - 90, upper_h)
    pic.text(top.x - 50, 12, "saturation index by model publication date", 12)
    lower = 0.0
    for k, (upper, name) in enumerate([*BANDS, (1.0, "very high")]):
        pic.rect(top.x, top.py(upper), top.w, top.py(lower) - top.py(upper), MAIN, 0.05 * (k + 1))
        if upper - lower >= 0.08:  # a band too thin to hold its name stays unnamed (its shade says it)
            pic.text(top.x + top.w + 8, top.py((lower + upper) / 2), name, 10)
        lower = upper
    series = by_date.dropna(subset=["saturation_index"]) if not by_date.empty else by_date
    if not series.empty:
        days = [date.fromisoformat(str(d)[:10]) for d in series["date"]]
        first, last = min(days), max(days)
        span = max((last - first).days, 1)
        top.x0, top.x1 = 0.0, float(span)

        def at(d: date) -> float:
            return top.px((d - first).days if last > first else span / 2)

        values = series["saturation_index"].astype(float).to_numpy()
        if {"saturation_index_lo", "saturation_index_hi"} <= set(series.columns):
            lo = pd.to_numeric(series["saturation_index_lo"], errors="coerce").to_numpy(float)
            hi = pd.to_numeric(series["saturation_index_hi"], errors="coerce").to_numpy(float)
            ok = np.isfinite(lo) & np.isfinite(hi)
            if ok.any():
                xs = [at(d) for d, k in zip(days, ok, strict=True) if k]
                los, his = lo[ok], hi[ok]
                right = top.x + top.w
                upper_edge = [
                    (x, top.py(h)) for x, nxt, h in zip(xs, [*xs[1:], right], his, strict=True) for x in (x, nxt)
                ]
                lower_edge = [
                    (x, top.py(v)) for x, nxt, v in zip(xs, [*xs[1:], right], los, strict=True) for x in (x, nxt)
                ]
                d = "M" + "L".join(f"{num(x)} {num(y)}" for x, y in upper_edge + lower_edge[::-1]) + "Z"
                pic.add(f'<path d="{d}" fill="{MAIN}" fill-opacity="0.18" stroke="none"/>')
        pts = [(at(d), top.py(v)) for d, v in zip(days, values, strict=True)]
        pic.polyline(pts, MAIN)
        for x, y in pts:
            pic.add(f'<circle cx="{num(x)}" cy="{num(y)}" r="2.5" fill="{MAIN}"/>')
        ticks = date_ticks(first, last) if last > first else [(first, first.isoformat())]
        pic.x_axis(top, [((d - first).days if last > first else span / 2, label) for d, label in ticks])
    pic.line(top.x, top.py(0.7), top.x + top.w, top.py(0.7), ACCENT, 1, "2 3")
    pic.y_axis(top, _ticks(nice_ticks(0, 1, 6)), "saturation index")
    # the top five now
    y0 = top.y + top.h + 50
    pic.text(10, y0, "top five now (score, 95% interval)", 12)
    shown = [clip_text(n, 11, 340) for n in names]
    left = 14 + _label_width(shown, 11, 340)
    panel = Panel(left, y0 + 20, WIDTH - left - 30, rows * row_h)
    scores = np.array([m["score"] for m in top_models], float)
    los = np.array([m["score"] if m.get("lo") is None else m["lo"] for m in top_models], float)
    his = np.array([m["score"] if m.get("hi") is None else m["hi"] for m in top_models], float)
    panel.x0 = max(0.0, float(np.floor((np.min(los, initial=1.0) - 0.05) * 20) / 20))
    panel.x1 = 1.0
    for k, name in enumerate(shown):
        y = panel.y + (k + 0.5) * row_h
        pic.text(panel.x - 6, y, name, 11, anchor="end")
        pic.line(panel.px(los[k]), y, panel.px(his[k]), y, INK, 1.2)
        for end in (los[k], his[k]):
            pic.line(panel.px(end), y - 4, panel.px(end), y + 4, INK, 1.2)
        pic.add(
            f'<circle cx="{num(panel.px(scores[k]))}" cy="{num(y)}" r="3.5" fill="{MAIN}">'
            f"<title>{esc(names[k])}: {scores[k]:.3f} [{los[k]:.3f}, {his[k]:.3f}]</title></circle>"
        )
    pic.x_axis(panel, _ticks(nice_ticks(panel.x0, panel.x1, 6)), "score (95% interval)")
    return pic.svg()


def difficulty_svg(
    z: np.ndarray,
    gaps: list[dict],
    target_spec: dict,
    target_label: str,
    may_be_empty: tuple[float, float] | None = None,
    item_ids: list[str] | None = None,
    thin: list | None = None,
) -> str:
    """Every item's z (fitted positions) as a strip with the largest gaps between them shaded, over the
    empirical CDF against the target's.

    Under the strip: ``may_be_empty``, the widest stretch these models cannot rule out as empty (the detection
    limit), as a hatched bar, and ``thin``, the stretches shown to hold too few items, as solid bars. With
    ``item_ids`` each item's line carries its id and z as a title (shown on hover).
    """
    z = np.asarray(z, float)
    pic = Picture(WIDTH, 380)
    strip = Panel(60, 28, WIDTH - 80, 70)
    cdf = Panel(60, strip.y + strip.h + 12, WIDTH - 80, 220)
    pic.add(
        '<defs><pattern id="benchwatch-hatch" width="6" height="6" patternUnits="userSpaceOnUse" '
        f'patternTransform="rotate(45)"><path d="M0 0V6" stroke="{ACCENT}" stroke-width="1.2"/></pattern></defs>'
    )
    # Nothing the strip contradicts: a stretch "may be empty" is drawn only where no fitted position falls in it
    # (elsewhere the bound is said in words: the positions are estimates, and the bound allows for their error).
    covered = may_be_empty is not None and bool(np.any((z > may_be_empty[0]) & (z < may_be_empty[1])))
    bars = "; bars: shown thin (solid), may be empty (hatched)" if may_be_empty is not None and not covered else ""
    if covered and may_be_empty is not None:
        bars = f"; Max Gap's bound {may_be_empty[1] - may_be_empty[0]:.3f} (spans items)"
    pic.text(strip.x, 12, f"{len(z)} items (fitted positions); largest gaps shaded{bars}", 11)
    for gap in gaps:
        for panel in (strip, cdf):
            pic.rect(panel.px(gap["lo"]), panel.y, panel.px(gap["hi"]) - panel.px(gap["lo"]), panel.h, GAP, GAP_OPACITY)
    titles = [f"{i} (z = {v:.3f})" for i, v in zip(item_ids, z, strict=True)] if item_ids is not None else None
    lines = []
    top, bottom = num(strip.y + 2), num(strip.y + strip.h * 0.72)
    for k, v in enumerate(z):
        x = num(strip.px(v))
        title = f"<title>{esc(titles[k])}</title>" if titles is not None else ""
        lines.append(f'<path d="M{x} {top}V{bottom}">{title}</path>')
    pic.add(
        f'<g id="benchwatch-items" stroke="{MAIN}" stroke-width="1" stroke-opacity="0.8">' + "".join(lines) + "</g>"
    )
    bar_y = strip.y + strip.h * 0.8
    for lo, hi in thin or []:
        pic.rect(strip.px(lo), bar_y + 6, strip.px(hi) - strip.px(lo), 5, ACCENT)
    if may_be_empty is not None and not covered:
        lo, hi = may_be_empty
        pic.rect(
            strip.px(lo),
            bar_y - 2,
            strip.px(hi) - strip.px(lo),
            7,
            "url(#benchwatch-hatch)",
            extra=f' stroke="{ACCENT}"',
        )
        label = f"may be empty: {hi - lo:.3f}"
        right = hi + 0.01 < 0.8
        pic.text(
            strip.px(hi + 0.01 if right else lo - 0.01), bar_y + 1.5, label, 10, anchor="start" if right else "end"
        )
    pic.line(strip.x, strip.y + strip.h, strip.x + strip.w, strip.y + strip.h)
    zs = np.sort(z)
    steps = [(cdf.px(0.0), cdf.py(0.0))]
    for k, v in enumerate(zs):
        steps += [(cdf.px(v), cdf.py(k / zs.size)), (cdf.px(v), cdf.py((k + 1) / zs.size))]
    steps.append((cdf.px(1.0), cdf.py(1.0)))
    pic.polyline(steps, MAIN)
    t = np.linspace(0, 1, 201)
    target = _target_cdf(target_spec, t)
    legend = [("items (empirical CDF)", MAIN, "")]
    if target is not None:
        pic.polyline(zip((cdf.px(v) for v in t), (cdf.py(v) for v in target), strict=True), ACCENT, 1.5, "5 4")
        legend.append((f"target: {target_label}", ACCENT, "5 4"))
    for k, (label, colour, dash) in enumerate(legend):
        y = cdf.y + cdf.h - 14 - 18 * (len(legend) - 1 - k)
        left = cdf.x + cdf.w - 10 - text_width(label, 11)
        pic.line(left - 34, y, left - 8, y, colour, 1.5, dash)
        pic.text(left, y, label, 11)
    ticks = _ticks(nice_ticks(0, 1, 6))
    pic.x_axis(cdf, ticks, "difficulty z")
    pic.y_axis(cdf, ticks, "share of items")
    return pic.svg()


LABEL_GAP = 2.0  # px kept between two labels' boxes: a browser's glyphs run a pixel or so past the estimate


def _boxes_clash(a: tuple, b: tuple, gap: float = LABEL_GAP) -> bool:
    return not (a[2] + gap <= b[0] or b[2] + gap <= a[0] or a[3] + gap <= b[1] or b[3] + gap <= a[1])


TIER_TICKS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000)


def _tier_x(size: float) -> float:
    """Where a top tier of ``size`` models lies on the summary picture's axis (log scale)."""
    return math.log(max(float(size), 1.0))


def summary_svg(points: list[dict], width: float = WIDTH) -> str:
    """Every benchmark at (models in its best's tier, DDM), coloured by state, each point a link to its page,
    labelled with its name where the label fits beside it without covering another label or point. The state
    and the position read one rule (``vocabulary.STATE_RULE``): a point right of the line at five has its top
    five in one tier (saturated or stagnant), left of it they are told apart (discriminating).

    ``points``: dicts with ``name``, ``url`` (relative to the picture), ``top_tier_size``, ``ddm`` (None
    for an aggregate-only board, or a benchmark whose bounds are withheld: drawn on the strip below) and
    ``state``. Hovering a point shows its name. ``width``: the picture's (``NARROW``: the home page's on a phone,
    drawn at its own size so that its text stays legible, where the full width would be scaled down to half).
    """
    shown = [p for p in points if p.get("top_tier_size") is not None and p["state"] != "unknown"]
    pic = Picture(width, 470)
    states = [s for s in STATES if any(p["state"] == s for p in shown)]
    x: float = 90
    for s in states:  # the legend, above the picture
        pic.add(f'<circle cx="{num(x)}" cy="14" r="5" fill="{STATES[s].colour}"/>')
        pic.text(x + 9, 14, STATES[s].word, 11)
        x += 24 + text_width(STATES[s].word, 11)
    main = Panel(84, 36, width - 114, 300)
    strip = Panel(84, main.y + main.h + 18, width - 114, 46)
    main.y1 = max([0.3, *(p["ddm"] * 1.1 for p in shown if p.get("ddm") is not None)])
    largest = max([20, *(p["top_tier_size"] for p in shown)])
    ticks = [t for t in TIER_TICKS if t <= largest * 1.5]
    for panel in (main, strip):
        panel.x0, panel.x1 = 0.0, _tier_x(max(largest * 1.5, ticks[-1]))
    caption = "coverage against saturation; a point links to its page"
    size = 11 if main.x + text_width(caption, 11) <= width else 10  # moved left, and smaller, on a narrow one
    pic.text(max(4, min(main.x, width - 4 - text_width(caption, size))), main.y - 4, caption, size, baseline="auto")
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
    on_top = [p for p in shown if p.get("ddm") is not None]
    below = [p for p in shown if p.get("ddm") is None]
    spread = [0.5 + 0.6 * ((k * 0.618) % 1 - 0.5) for k in range(len(below))]  # apart on the strip
    strip.y0, strip.y1 = 0.0, 1.0
    placed = [(main.px(_tier_x(p["top_tier_size"])), main.py(p["ddm"])) for p in on_top]
    placed += [(strip.px(_tier_x(p["top_tier_size"])), strip.py(s)) for p, s in zip(below, spread, strict=True)]
    taken = [(px - 5, py - 5, px + 5, py + 5) for px, py in placed]
    label_w = max(text_width(text, 10) for text in label_lines)
    taken.append((main.px(line), main.y, main.px(line) + 6 + label_w, main.y + 4 + 12 * len(label_lines)))
    captions = (("no coverage", -7), ("figure", 7))  # the strip's name, left of it: no mark may cover it
    for text, shift in captions:
        cy = strip.y + strip.h / 2 + shift
        taken.append((strip.x - 6 - text_width(text, 10), cy - 6, strip.x - 6, cy + 6))
    keyed: list[str]
    links, labels, keyed = [], [], []
    for p, (px, py) in zip([*on_top, *below], placed, strict=True):
        colour = STATES[p["state"]].colour if p["state"] in STATES else INK
        r = 5
        d = f"M{num(px - r)} {num(py)}a{r} {r} 0 1 0 {2 * r} 0a{r} {r} 0 1 0 {-2 * r} 0Z"
        links.append(
            f'<a xlink:href="{esc(p["url"])}" href="{esc(p["url"])}" target="_top"><title>{esc(p["name"])}</title>'
            f'<path d="{d}" fill="{colour}" stroke="white" stroke-width="0.8"/></a>'
        )
        label = clip_text(str(p["name"]), 10, 300)  # a whole real name; a numbered key takes what will not fit
        w = text_width(label, 10)
        panel = main if p.get("ddm") is not None else strip
        spots: tuple[tuple[float, float, str], ...] = (
            (8, 0, "start"),
            (-8, 0, "end"),
            (0, -11, "middle"),
            (0, 12, "middle"),
        )
        spots += tuple((sx * 8, dy, a) for dy in (-12, 12, -24, 24) for sx, a in ((1, "start"), (-1, "end")))
        for dx, dy, anchor in spots:
            x0 = px + dx if anchor == "start" else px + dx - w if anchor == "end" else px - w / 2
            box = (x0, py + dy - 6, x0 + w, py + dy + 6)
            inside = (
                panel.x <= box[0]
                and box[2] <= panel.x + panel.w + 25
                and panel.y - 2 <= box[1]
                and box[3] <= panel.y + panel.h + 2
            )
            if inside and not any(_boxes_clash(box, t) for t in taken):
                taken.append(box)
                labels.append((px + dx, py + dy, label, anchor))
                break
        else:  # no room for the name: a number beside the dot, the name in the key under the picture
            mark = str(sum(entry[0].isdigit() for entry in keyed) + 1)
            mw = text_width(mark, 10)
            for dx, dy in ((7, -7), (-7 - mw, -7), (7, 7), (-7 - mw, 7), (-mw / 2, -12), (-mw / 2, 12)):
                box = (px + dx, py + dy - 6, px + dx + mw, py + dy + 6)
                inside = panel.x + 2 <= box[0] and box[2] <= width - 2  # never on the axis's tick labels
                if inside and not any(_boxes_clash(box, t) for t in taken):
                    taken.append(box)
                    labels.append((box[0], py + dy, mark, "start"))
                    keyed.append(f"{mark} {p['name']}")
                    break
            else:  # not even a number fits (a dense cluster): the key places it by its index instead
                keyed.append(f"{p['name']} ({p['top_tier_size']} in the top tier)")
    for lx, ly, label, anchor in labels:
        pic.text(lx, ly, label, 10, anchor=anchor)
    key_top = strip.y + strip.h + 52
    rows: list[str] = []
    for entry in keyed:  # the key, wrapped to the picture's width
        if rows and text_width(rows[-1] + "; " + entry, 10) <= width - 20:
            rows[-1] += "; " + entry
        else:
            rows.append(clip_text(entry, 10, width - 20))
    for k, row in enumerate(rows):
        pic.text(10, key_top + 15 * k, row, 10)
    pic.height += 15 * len(rows) + (8 if rows else 0)
    pic.parts.extend(links)
    pic.y_axis(main, _ticks(nice_ticks(0, main.y1, 5)), "DDM (W1 to target)")
    pic.line(strip.x, strip.y, strip.x, strip.y + strip.h)
    for text, shift in captions:
        pic.text(strip.x - 6, strip.y + strip.h / 2 + shift, text, 10, anchor="end")
    pic.x_axis(strip, [(_tier_x(t), str(t)) for t in ticks], "models in the best's tier (log scale)")
    return pic.svg()


NARROW = 350  # px: the home page's summary picture on a phone (its text column is 358 px wide at 390)


TIER_SHOWN = 40  # models drawn in the tiers picture (the table lists them all)


def tiers_svg(table: pd.DataFrame, method: str) -> str:
    """Each model's score with its 95% interval, best first, the tiers shaded in turn (the first TIER_SHOWN)."""
    rows = table.dropna(subset=["tier"]).sort_values("score", ascending=False).head(TIER_SHOWN)
    n = len(rows)
    row_h = 18
    tiers = rows["tier"].astype(int).to_numpy()
    labels = [f"{clip_text(str(m), 11, 300)}  (tier {t})" for m, t in zip(rows["model"], tiers, strict=True)]
    left = 12 + _label_width(labels, 11, 380)
    pic = Picture(WIDTH, 40 + n * row_h + 56)
    panel = Panel(left, 30, WIDTH - left - 24, n * row_h)
    score = rows["score"].to_numpy(float)
    lo = rows["score_lo"].to_numpy(float) if "score_lo" in rows else score
    hi = rows["score_hi"].to_numpy(float) if "score_hi" in rows else score
    lo, hi = np.where(np.isfinite(lo), lo, score), np.where(np.isfinite(hi), hi, score)
    panel.x0 = max(0.0, float(np.floor((np.min(lo, initial=1.0) - 0.02) * 20) / 20))
    panel.x1 = min(1.0, float(np.ceil((np.max(hi, initial=0.0) + 0.02) * 20) / 20)) if n else 1.0
    pic.text(10, 12, clip_text(str(method), 11, WIDTH - 20), 11)
    for k in range(n):
        y = panel.y + (k + 0.5) * row_h
        if tiers[k] % 2 == 1:
            pic.rect(panel.x, y - row_h / 2, panel.w, row_h, MAIN, 0.08)
        pic.text(panel.x - 6, y, labels[k], 11, anchor="end")
        pic.line(panel.px(lo[k]), y, panel.px(hi[k]), y, MAIN, 1.5)
        colour = ACCENT if tiers[k] == 1 else MAIN
        pic.add(
            f'<circle cx="{num(panel.px(score[k]))}" cy="{num(y)}" r="3" fill="{colour}">'
            f"<title>{esc(rows['model'].iloc[k])}: {score[k]:.3f} [{lo[k]:.3f}, {hi[k]:.3f}], tier {tiers[k]}</title>"
            "</circle>"
        )
    pic.x_axis(
        panel, _ticks(nice_ticks(panel.x0, panel.x1, 6)), "score (95% interval); tier 1 in orange; tiers shaded in turn"
    )
    return pic.svg()
