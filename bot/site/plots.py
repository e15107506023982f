"""SVG pictures of the audit, drawn with matplotlib in one style readable on light and dark themes."""

from __future__ import annotations

import html
import io
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from scipy import stats

from bot.metrics import BANDS
from bot.site.escape import printable

INK = "#8a8f98"  # mid grey: legible on white and on Material's slate
MAIN = "#5c6bc0"
ACCENT = "#ef6c00"
GAP = "#ef6c0033"
STYLE = {
    "svg.fonttype": "none",  # text stays text: searchable, and escaped by the SVG writer
    "svg.hashsalt": "benchwatch",  # stable element ids, so an unchanged plot is an unchanged file
    "text.parse_math": False,  # a `$` in an upstream name is just a character
    "font.size": 10,
    "axes.edgecolor": INK,
    "axes.labelcolor": INK,
    "xtick.color": INK,
    "ytick.color": INK,
    "text.color": INK,
    "axes.facecolor": "none",
    "figure.facecolor": "none",
    "savefig.transparent": True,
    "axes.spines.top": False,
    "axes.spines.right": False,
}


def _svg(fig) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None, "Creator": "benchwatch"})
    plt.close(fig)
    return buf.getvalue()


def _target_cdf(spec: dict, t: np.ndarray) -> np.ndarray | None:
    kind = (spec or {}).get("kind", "uniform")
    if kind == "uniform":
        return t
    if kind == "beta":
        return stats.beta.cdf(t, spec["a"], spec["b"])
    return None


def _titled(svg: str, gid: str, titles: list[str]) -> str:
    """Give each element of the group ``gid`` (one per item, in order) a <title>: the browser shows it on
    hover. The titles are upstream text, escaped for XML."""
    start = svg.find(f'<g id="{gid}"')
    end = svg.find("</g>", start)
    if start < 0 or end < 0:
        return svg
    group = svg[start:end]
    parts = re.split(r"(<path [^>]*?)\s*/>", group)
    if (len(parts) - 1) // 2 != len(titles):
        return svg  # not one element per item: leave the picture as it is
    out = [parts[0]]
    for k, title in enumerate(titles):
        out.append(f"{parts[2 * k + 1]}><title>{html.escape(printable(title))}</title></path>")
        out.append(parts[2 * k + 2])
    return svg[:start] + "".join(out) + svg[end:]


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
    limit), as a hatched bar, and ``thin``, the stretches shown to hold too few items, as solid bars.
    """
    with plt.rc_context(STYLE):
        fig, (strip, cdf) = plt.subplots(
            2, 1, figsize=(7, 3.6), sharex=True, gridspec_kw={"height_ratios": [1, 3], "hspace": 0.08}
        )
        for gap in gaps:
            for ax in (strip, cdf):
                ax.axvspan(gap["lo"], gap["hi"], color=GAP, lw=0)
        strip.vlines(z, 0.25, 1, color=MAIN, lw=0.6, alpha=0.8, gid="benchwatch-items")
        for lo, hi in thin or []:
            strip.hlines(0.06, lo, hi, color=ACCENT, lw=4)
        if may_be_empty is not None:
            lo, hi = may_be_empty
            strip.axvspan(lo, hi, ymin=0.12, ymax=0.22, facecolor="none", edgecolor=ACCENT, hatch="////", lw=0.5)
            label = f"may be empty: {hi - lo:.3f}"
            right = hi + 0.01 < 0.8
            strip.text(
                hi + 0.01 if right else lo - 0.01, 0.17, label, va="center", ha="left" if right else "right", fontsize=7
            )
        strip.set_yticks([])
        strip.set_ylim(0, 1)
        strip.set_title(
            f"{len(z)} items (fitted positions); largest gaps shaded; bars: shown thin (solid), may be empty (hatched)",
            loc="left",
            fontsize=8,
        )
        t = np.linspace(0, 1, 401)
        zs = np.sort(z)
        cdf.step(
            np.concatenate([[0], zs, [1]]),
            np.concatenate([[0], np.arange(1, zs.size + 1) / zs.size, [1]]),
            where="post",
            color=MAIN,
            label="items (empirical CDF)",
        )
        target = _target_cdf(target_spec, t)
        if target is not None:
            cdf.plot(t, target, color=ACCENT, ls="--", label=f"target: {target_label}")
        cdf.set_xlim(0, 1)
        cdf.set_ylim(0, 1)
        cdf.set_xlabel("difficulty z")
        cdf.set_ylabel("share of items")
        cdf.legend(frameon=False, loc="lower right")
        svg = _svg(fig)
    if item_ids is None:
        return svg
    return _titled(svg, "benchwatch-items", [f"{i} (z = {v:.3f})" for i, v in zip(item_ids, z, strict=True)])


def saturation_svg(by_date: pd.DataFrame, top_models: list[dict]) -> str:
    """The saturation index by date over its bands (above), and the current top five with 95% intervals
    (below, where long real model names have the figure's whole width)."""
    import matplotlib.dates as mdates

    with plt.rc_context(STYLE):
        fig, (left, right) = plt.subplots(
            2, 1, figsize=(8, 5.4), layout="constrained", gridspec_kw={"height_ratios": [3, 2]}
        )
        lower = 0.0
        for k, (upper, name) in enumerate([*BANDS, (1.0, "very high")]):
            left.axhspan(lower, upper, color=MAIN, alpha=0.05 * (k + 1), lw=0)
            if upper - lower >= 0.08:  # a band too thin to hold its name stays unnamed (its colour says it)
                left.text(
                    1.01,
                    (lower + upper) / 2,
                    name,
                    transform=left.get_yaxis_transform(),
                    va="center",
                    ha="left",
                    fontsize=8,
                )
            lower = upper
        series = by_date.dropna(subset=["saturation_index"]) if not by_date.empty else by_date
        if not series.empty:
            dates = pd.to_datetime(series["date"])
            if {"saturation_index_lo", "saturation_index_hi"} <= set(series.columns):
                lo = pd.to_numeric(series["saturation_index_lo"], errors="coerce")
                hi = pd.to_numeric(series["saturation_index_hi"], errors="coerce")
                left.fill_between(dates, lo, hi, color=MAIN, alpha=0.18, lw=0, step="post", label="95% interval")
            left.plot(dates, series["saturation_index"].astype(float), color=MAIN, marker="o", ms=3)
            left.axhline(0.7, color=ACCENT, ls=":", lw=1)
            if dates.nunique() > 1:
                locator = mdates.AutoDateLocator(minticks=1, maxticks=6)  # horizontal dates, few enough to fit
                left.xaxis.set_major_locator(locator)
                left.xaxis.set_major_formatter(mdates.ConciseDateFormatter(locator, show_offset=False))
            else:  # one date: one tick, named in full
                left.set_xticks(dates.iloc[:1], [dates.iloc[0].strftime("%Y-%m-%d")])
        left.set_ylim(0, 1)
        left.set_ylabel("saturation index")
        left.set_title("saturation index by model publication date", loc="left")
        names = [printable(m["model"]) for m in top_models][::-1]
        scores = np.array([m["score"] for m in top_models][::-1], float)
        lo = np.array([m.get("lo", m["score"]) if m.get("lo") is not None else m["score"] for m in top_models][::-1])
        hi = np.array([m.get("hi", m["score"]) if m.get("hi") is not None else m["score"] for m in top_models][::-1])
        y = np.arange(len(names))
        right.errorbar(scores, y, xerr=[scores - lo, hi - scores], fmt="o", color=MAIN, ecolor=INK, capsize=3)
        right.set_yticks(y, [n if len(n) <= 48 else n[:47] + "…" for n in names])
        right.set_ylim(-0.6, max(len(names), 1) - 0.4)
        right.set_xlim(max(0.0, float(np.min(lo, initial=1.0)) - 0.05), 1.02)
        right.set_xlabel("score (95% interval)")
        right.set_title("top five now", loc="left")
        return _svg(fig)


STATE_COLOURS = {"saturated": "#d32f2f", "stagnant": "#ef6c00", "discriminating": "#2e7d32", "unknown": INK}
_LINK = re.compile(r'<a xlink:href="([^"]*)" target="_blank">')


def summary_svg(points: list[dict]) -> str:
    """Every benchmark at (saturation index, DDM), coloured by state, each point a link to its page.

    ``points``: dicts with ``name``, ``url`` (relative to the picture), ``saturation_index``, ``ddm`` (None
    for an aggregate-only board: drawn on the strip below) and ``state``. Hovering a point shows its name.
    """
    from matplotlib.lines import Line2D

    shown = [p for p in points if p.get("saturation_index") is not None]
    with plt.rc_context(STYLE):
        fig, (top, strip) = plt.subplots(
            2, 1, figsize=(8, 4.6), sharex=True, layout="constrained", gridspec_kw={"height_ratios": [5, 1]}
        )
        for ax, on_top in ((top, True), (strip, False)):
            mine = [p for p in shown if (p.get("ddm") is not None) == on_top]
            if not mine:
                continue
            # no DDM: spread over the strip so that points at one index stay apart
            spread = [0.5 + 0.6 * ((k * 0.618) % 1 - 0.5) for k in range(len(mine))]
            y = [p["ddm"] for p in mine] if on_top else spread
            dots = ax.scatter(
                [p["saturation_index"] for p in mine],
                y,
                s=36,
                c=[STATE_COLOURS.get(p["state"], INK) for p in mine],
                edgecolor="white",
                linewidth=0.5,
                zorder=3,
            )
            dots.set_urls([p["url"] for p in mine])
        for ax in (top, strip):
            ax.axvline(0.7, color=ACCENT, ls=":", lw=1)
        top.set_xlim(0, 1)
        top.set_ylim(0, max([0.3, *(p["ddm"] * 1.1 for p in shown if p.get("ddm") is not None)]))
        top.set_ylabel("DDM (W1 to target)")
        top.set_title("every benchmark: coverage against saturation; a point links to its page", loc="left")
        states = [s for s in STATE_COLOURS if any(p["state"] == s for p in shown)]
        handles = [Line2D([], [], ls="", marker="o", color=STATE_COLOURS[s], label=s) for s in states]
        if handles:
            fig.legend(handles=handles, frameon=False, loc="outside upper right", fontsize=8, ncols=len(handles))
        strip.set_ylim(0, 1)
        strip.set_yticks([0.5], ["no per-item\ndata"])
        strip.set_xlabel("saturation index of the top five (0.7: cannot be told apart)")
        svg = _svg(fig)
    # the SVG holds the upper axes' points, then the strip's, each in the order given to scatter
    drawn = iter([p for p in shown if p.get("ddm") is not None] + [p for p in shown if p.get("ddm") is None])

    def _linked(match: re.Match) -> str:
        point = next(drawn)
        return f'<a xlink:href="{match.group(1)}" target="_top"><title>{html.escape(printable(point["name"]))}</title>'

    return _LINK.sub(_linked, svg)


TIER_SHOWN = 40  # models drawn in the tiers picture (the table lists them all)


def tiers_svg(table: pd.DataFrame, method: str) -> str:
    """Each model's score with its 95% interval, best first, the tiers shaded in turn (the first TIER_SHOWN)."""
    rows = table.dropna(subset=["tier"]).sort_values("score", ascending=False).head(TIER_SHOWN)
    n = len(rows)
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=(7, 0.9 + 0.22 * n))
        y = np.arange(n)[::-1]
        tiers = rows["tier"].astype(int).to_numpy()
        for k, t in enumerate(tiers):
            if t % 2 == 1:
                ax.axhspan(y[k] - 0.5, y[k] + 0.5, color=MAIN, alpha=0.08, lw=0)
        lo = rows["score_lo"].to_numpy(float) if "score_lo" in rows else rows["score"].to_numpy(float)
        hi = rows["score_hi"].to_numpy(float) if "score_hi" in rows else rows["score"].to_numpy(float)
        score = rows["score"].to_numpy(float)
        ax.hlines(y, lo, hi, color=MAIN, lw=1.5)
        ax.scatter(score, y, c=[ACCENT if t == 1 else MAIN for t in tiers], s=14, zorder=3)
        ax.set_yticks(y)
        labels = [f"{printable(str(m))[:48]}  (tier {t})" for m, t in zip(rows["model"], tiers, strict=True)]
        ax.set_yticklabels(labels, fontsize=7)
        ax.set_xlabel("score (95% interval); tier 1 in orange; tiers shaded in turn")
        ax.set_ylim(-0.7, n - 0.3)
        ax.set_title(printable(method)[:110], loc="left", fontsize=8)
        return _svg(fig)
