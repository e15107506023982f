"""SVG pictures of the audit, in one style readable on light and dark themes (``benchwatch.site.svg``): a
benchmark's saturation, difficulties and tiers; the home page's summary picture is ``benchwatch.site.summary_plot``."""

from __future__ import annotations

from collections.abc import Sequence
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

GAP = ACCENT  # the largest gaps, shaded at GAP_OPACITY
GAP_OPACITY = 0.2
WIDTH = 720  # px: every picture is this wide and scales down with the page


def axis_ticks(values: list[float]) -> list[tuple[float, str]]:
    """Each tick value with its label, as an axis of these pictures takes them."""
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
    pic.y_axis(top, axis_ticks(nice_ticks(0, 1, 6)), "saturation index")
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
    pic.x_axis(panel, axis_ticks(nice_ticks(panel.x0, panel.x1, 6)), "score (95% interval)")
    return pic.svg()


def difficulty_svg(
    z: np.ndarray,
    gaps: list[dict],
    target_spec: dict,
    target_label: str,
    may_be_empty: Sequence[float] | None = None,
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
    _cdf_panel(pic, cdf, z, target_spec, target_label)
    return pic.svg()


def _cdf_panel(pic: Picture, cdf: Panel, z: np.ndarray, target_spec: dict, target_label: str) -> None:
    """The difficulty picture's lower panel: the items' empirical CDF against the target's, with its legend and
    axes."""
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
    ticks = axis_ticks(nice_ticks(0, 1, 6))
    pic.x_axis(cdf, ticks, "difficulty z")
    pic.y_axis(cdf, ticks, "share of items")


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
        panel,
        axis_ticks(nice_ticks(panel.x0, panel.x1, 6)),
        "score (95% interval); tier 1 in orange; tiers shaded in turn",
    )
    return pic.svg()
