"""Markdown pages of the audit site, rendered from the records in ``reports/``."""

from __future__ import annotations

import html
import json
import re

import pandas as pd

from bot.rules import resolve_line
from bot.site.escape import attribute, md, printable
from bot.site.names import display_name
from bot.site.numbers import fmt, pct
from bot.store import safe_slug

SEVERITY = {"saturated": 0, "stagnant": 1, "unknown": 2, "discriminating": 3}
SYNTHETIC_NOTE = (
    '!!! warning "Synthetic sample"\n'
    "    These figures come from benchwatch's bundled **synthetic** sample universe, "
    "generated to show each pattern the site looks for. They describe no real model.\n"
)


def benchmark_page(benchmark: str) -> str:
    """The site path of a benchmark id's page (safe for any upstream name)."""
    return f"benchmarks/{safe_slug(benchmark)}.md"


def _page_of(rec: dict) -> str:
    """The page (of its benchmark id) that shows a record."""
    return benchmark_page(rec.get("page") or rec["benchmark"])


def plot_path(benchmark: str, kind: str) -> str:
    """The site path of one of a benchmark's pictures."""
    return f"plots/{safe_slug(benchmark)}-{kind}.svg"


def _pictures_and_targets(rec: dict, items: pd.DataFrame | None, plan: list[dict] | None = None) -> list[str]:
    """The difficulty picture and the fill plan (``bot.fill.plan``): for each stretch found thin or not ruled out
    as empty, the difficulty a new item should have, the seed items on either side and how the pool would fare."""
    alt = html.escape(
        f"Every item of {printable(rec['benchmark'])} on the difficulty axis z, the stretches shown thin and the "
        "widest one that may be empty marked, and the items' empirical CDF against the target's"
    )
    # raw HTML is not rewritten by MkDocs: relative to the page's address (benchmarks/SLUG/), not its file
    src = "../../" + plot_path(rec["benchmark"], "difficulty")
    lines = [  # an object, not an img: an item's id shows when the pointer rests on its line of the strip
        f'<object class="benchwatch-plot" type="image/svg+xml" data="{src}" aria-label="{alt}">',
        f'<img src="{src}" alt="{alt}">',
        "</object>",
        "",
        "Rest the pointer on an item's line in the strip to see its id.",
        "",
        "## Fill plan",
        "",
    ]
    if not plan:
        said = "every gap verdict is clear" if rec.get("verdicts") else "no gap verdict"
        return [*lines, f"No stretch is shown thin, and {said}: nothing to fill."]
    lines += [
        "For each stretch shown to hold too few items (**found**), and, where a gap verdict is **cannot tell**, "
        "the widest stretch these models cannot rule out as empty: the difficulty a new item should have (the "
        "stretch's midpoint, and its b on the fitted scale), the existing items on either side (the seeds a "
        "BenchFill-style rewrite starts from) and the solve probability an item at the target would have for "
        "the pool's models. `benchwatch fill check` places candidates that have been evaluated.",
        "",
    ]
    rows = []
    for g in plan:
        solve = [m["p"] for m in g["solve"]]
        seeds = [md(s["item_id"]) + f" ({fmt(s['z'])})" for s in (*g["seeds_below"], *g["seeds_above"])]
        rows.append(
            [
                f"{fmt(g['lo'])} – {fmt(g['hi'])}",
                md(g.get("verdict") or "–"),
                fmt(g["target_z"]),
                fmt(g["target_b"]),
                ", ".join(seeds) or "–",
                f"{fmt(min(solve))} – {fmt(max(solve))}; {sum(p >= 0.5 for p in solve)} of {len(solve)} at 0.5 or more",
            ]
        )
    columns = [("Stretch", "l"), ("Verdict", "l"), ("Target z", "r"), ("Target b", "r"), ("Seeds (z)", "l")]
    columns.append(("Solve probability", "l"))
    return lines + _table(columns, rows)


def benchmark_feed(benchmark: str) -> str:
    """The site path of a benchmark's RSS feed."""
    # At the site root: Material resolves sitemap.xml next to every rel=alternate link it finds.
    return f"feed-{safe_slug(benchmark)}.xml"


def _name(rec: dict) -> str:
    label = md(display_name(rec))
    return f"{label} (synthetic)" if rec.get("synthetic") and "synthetic" not in rec["benchmark"] else label


KNOWN_FLAGS = ("retire", "watch", "revise", "fill")


def _badge(kind: str, value: str, known: tuple[str, ...], title: str | None = None) -> str:
    """A coloured badge; only values from benchwatch's own vocabulary ever become a CSS class."""
    cls = value if value in known else "other"
    hover = f' title="{attribute(title)}"' if title else ""
    return f'<span class="bw-badge bw-{kind}-{cls}"{hover}>{md(value)}</span>'


def flag_reason(rec: dict, flag: str) -> str:
    """The one line that says why a benchmark has ``flag`` (its record's ``why``), or the flag's definition."""
    for line in rec.get("why") or []:
        if isinstance(line, str) and line.startswith(f"{flag}: "):
            return line.removeprefix(f"{flag}: ")
    return FLAG_MEANING.get(flag, "")


FLAG_MEANING = {
    "retire": "saturated on two snapshots (or publication dates) in a row",
    "watch": "not yet solved, yet its leaders are within noise of each other",
    "revise": "the items' difficulties are shown to be far from the target",
    "fill": "a stretch of the difficulty axis is shown to hold too few items",
}


def _flags(rec: dict, explained: bool = False) -> str:
    """The flags as badges, each with the line that says why: on hover, or written beside it (``explained``)."""
    flags = rec.get("flags", [])
    if not flags:
        return "–"
    if explained:
        return "<br>".join(f"{_badge('flag', f, KNOWN_FLAGS)} {md(flag_reason(rec, f))}" for f in flags)
    return " ".join(_badge("flag", f, KNOWN_FLAGS, flag_reason(rec, f)) for f in flags)


def _state(rec: dict) -> str:
    """The state's badge; its severity is the key the home table sorts the column by (most severe first)."""
    badge = _badge("state", rec["state"], tuple(SEVERITY))
    return badge.replace("<span ", f'<span data-sort="{SEVERITY.get(rec["state"], 9)}" ', 1)


def _sorted(records: dict[str, dict]) -> list[dict]:
    return sorted(
        records.values(), key=lambda r: (SEVERITY.get(r["state"], 9), -len(r.get("flags", [])), r["benchmark"])
    )


def _origin(rec: dict) -> str:
    """Where a record's data came from: its source and, for bundled or live data, the origin it names."""
    source = md(rec.get("source_name") or rec["source"])
    if rec.get("synthetic"):
        return f"{source} (synthetic)"
    origin = rec.get("origin")
    return f"{source}: {md(origin)}" if origin else source


def _source(rec: dict) -> str:
    """A record's source, its origin (what the data is, exactly) on hover."""
    source = md(rec.get("source_name") or rec["source"])
    origin = printable(rec.get("origin") or "")
    if rec.get("synthetic"):
        origin = "synthetic: " + (origin or "bundled sample universe")
    return f'<span title="{attribute(origin)}">{source}</span>' if origin else source


SUMMARY_PLOT = "plots/summary.svg"
SUMMARY_ALT = (
    "Every benchmark at its saturation index (across) and its DDM (up), coloured by state; "
    "aggregate-only boards on the strip below. Each point links to its page."
)


def summary_points(records: dict[str, dict]) -> list[dict]:
    """The points of the home page's summary picture, each with its page's address relative to the picture."""
    return [
        {
            "name": rec["benchmark"],
            "url": "../" + _page_of(rec).removesuffix(".md") + "/",
            "saturation_index": rec.get("saturation_index"),
            "ddm": rec.get("ddm"),
            "state": rec["state"],
        }
        for rec in _sorted(records)
    ]


def _notice_mark(rec: dict) -> str:
    if rec.get("gone_since"):
        return f" **gone upstream since {md(rec['gone_since'][:10])}**"
    if rec.get("notice"):
        return " **(last good data: see page)**"
    return ""


def _notice_block(rec: dict) -> list[str]:
    if rec.get("gone_since"):
        return [
            f'!!! warning "No longer published upstream since {md(rec["gone_since"][:10])}"',
            "    These are the last figures benchwatch measured; they are not current.",
            "",
        ]
    if rec.get("notice"):
        return ['!!! warning "Newer data held back"', f"    {md(rec['notice'])}", ""]
    return []


def _short_revision(revision: object) -> str:
    """A revision shortened to a glance (the full one on hover): the first 12 characters of each part."""
    full = printable(revision or "")
    if not full:
        return "–"
    parts = full.split("+")
    short = "+".join(p.removeprefix("sha256:")[:12] for p in parts[:2]) + (
        f" +{len(parts) - 2} more" if len(parts) > 2 else ""
    )
    if short == full:
        return md(full)
    return f'<span title="{attribute(full)}">{attribute(short)}…</span>'


def _source_link(name: str, page: object) -> str:
    """A source's name, linked to the leaderboard page a person reads when the configuration names one."""
    if isinstance(page, str) and re.fullmatch(r"https?://[^\s\"'<>()\\]+", page):
        return f"[{md(name)}]({page})"
    return md(name)


STALE_DAYS = 180  # an upstream unchanged this long says so


def _as_of_cell(status: dict, now: str | None) -> str:
    """A source's "as of": its date, what the date is, and how long ago it was when it is long."""
    when = status.get("as_of")
    if not isinstance(when, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", when):
        return "not stated upstream"
    what = "upstream date" if status.get("as_of_from") == "upstream" else "newest dated result"
    cell = f'<span class="bw-as-of" title="{what}">{when}</span>'
    if now:
        days = (pd.Timestamp(now[:10]) - pd.Timestamp(when)).days
        if days >= STALE_DAYS:
            months = days // 30
            long_ago = f"unchanged upstream for {months} months" if what == "upstream date" else f"{months} months old"
            cell += f" ({long_ago})"
    return cell


def sources_section(sources: dict[str, dict], now: str | None) -> list[str]:
    """One line per source: freshness of its last good data and any failure; then what each left out."""
    if not sources:
        return []
    lines = [
        "",
        "## Sources",
        "",
        "*As of* is the data's own date: the upstream file's (its server's or its pinned copy's), else the newest"
        " dated result in it. *First fetched* is when this revision of the data first reached benchwatch.",
        "",
        "| Source | Status | As of | First fetched | Revision |",
        "|---|---|---|---|---|",
    ]
    for name in sorted(sources):
        s = sources[name]
        status = (
            "ok" if s.get("status") == "ok" else f"**failed** since {md(s.get('failed_since'))}: {md(s.get('error'))}"
        )
        since = s.get("data_since")
        lines.append(
            f"| {_source_link(name, s.get('homepage'))} | {status} | {_as_of_cell(s, now)} | {md((since or '–')[:10])} "
            f"| {_short_revision(s.get('revision'))} |"
        )
    listed = [
        (name, item)
        for name in sorted(sources)
        for item in [
            *sources[name].get("skipped", []),
            *({"benchmark": g, "reason": "gone upstream"} for g in sources[name].get("gone", [])),
        ]
    ]
    if listed:
        lines += ["", "Not published from the last run, with the reason:", ""]
        lines += [f"- {md(name)}: {md(item['benchmark'])}: {md(item['reason'])}" for name, item in listed]
    return lines


LEGEND = """???+ info "Legend: states and flags (click a column's header to sort by it)"
    **States** (from the saturation index of the top five, arXiv:2602.16763):
    **saturated**: the top five cannot be told apart (index >= 0.7) and their mean is within 5 points of the
    ceiling (100% unless configured per benchmark);
    **stagnant**: they cannot be told apart, more than 5 points below the ceiling;
    **discriminating**: the index is below 0.7, the benchmark still separates its top models;
    **unknown**: fewer than five models.

    **Flags**:
    **retire**: saturated on two snapshots (or two publication dates) in a row, the index's interval above 0.7;
    **watch**: stagnant: not yet solved, yet its leaders are within noise of each other;
    **revise**: DDM, the distance of the items' difficulties from the target, *found* at or above its threshold;
    **fill**: a stretch at least as wide as the threshold *found* to hold too few items.

    **Verdicts** of each coverage figure, from bounds that hold for any difficulty distribution:
    **found**: the data show the flaw; **clear**: they rule it out; **cannot tell**: these models cannot
    decide (the benchmark's page says what more data would).
"""


def _top_tier(rec: dict) -> str:
    """The top tier's size on the home page, its members named on hover."""
    k = rec.get("top_tier_size")
    if k is None:
        return "–"
    members = ", ".join(printable(m) for m in rec.get("top_tier") or [])
    return f'<span title="{attribute(members)}">{k} of {rec["n_models"]}</span>'


def _home_ddm(rec: dict) -> str:
    """DDM on the home page: its bounds where it has them (the model-based estimate otherwise)."""
    if rec.get("ddm_bound_lo") is not None:
        return f"{fmt(rec['ddm_bound_lo'])} – {fmt(rec['ddm_bound_hi'])}"
    return fmt(rec.get("ddm"))


def _home_gap(rec: dict) -> str:
    """Max Gap on the home page: at most the detection limit where there are bounds."""
    if rec.get("detection_limit") is not None:
        return f"≤ {fmt(rec['detection_limit'])}"
    return fmt(rec.get("max_gap"))


def _coverage_verdict(rec: dict) -> str:
    """The coverage verdicts in a few words: what was found, what cannot be told, or clear."""
    v = {k: (x or {}).get("verdict") for k, x in (rec.get("verdicts") or {}).items()}
    if not v:
        return "–"
    found = [FIGURE_NAMES[k] for k in FIGURE_NAMES if v.get(k) == "found"]
    unsure = [FIGURE_NAMES[k] for k in FIGURE_NAMES if v.get(k) == "cannot tell"]
    if found:
        return "found: " + ", ".join(found)
    if unsure:
        return "cannot tell: " + ", ".join(unsure)
    return "clear"


def index_page(
    records: dict[str, dict], alerts: list[dict], sources: dict[str, dict] | None = None, now: str | None = None
) -> str:
    """The home page: one row per benchmark, most severe first."""
    lines = ["---", "hide:", "  - toc", "---", "", "# benchwatch: benchmark health", ""]
    if any(r.get("synthetic") for r in records.values()):
        if all(r.get("synthetic") for r in records.values()):
            lines += [SYNTHETIC_NOTE]
        else:
            lines += [
                '!!! note "Real and synthetic benchmarks"',
                "    Rows marked *(synthetic)* come from benchwatch's bundled synthetic sample universe and describe "
                "no real model; every other row is real data, with its origin named.",
                "",
            ]
    lines += [
        "Each benchmark's item difficulties are refitted with a 1PL (Rasch) model and placed on the "
        "difficulty axis z in [0, 1]; the table shows how evenly the items cover that axis and whether "
        "the top models can still be told apart. See [Methodology](methodology.md) for the definitions.",
        "",
        "Subscribe to [all alerts (RSS)](feed.xml). Download every table: [benchwatch-data.zip]"
        "(downloads/benchwatch-data.zip) (CSV and Parquet, with a data dictionary).",
        "",
        f'<object class="benchwatch-plot" type="image/svg+xml" data="{SUMMARY_PLOT}" aria-label="{SUMMARY_ALT}">',
        f'<img src="{SUMMARY_PLOT}" alt="{SUMMARY_ALT}">',
        "</object>",
        "",
        '<div class="bw-filter"></div>',
        "",
    ]
    columns = [("Benchmark", "l"), ("Source", "l"), ("Items", "r"), ("Models", "r"), ("DDM", "r")]
    columns += [("Max Gap", "r"), ("Coverage", "l"), ("Saturation index", "r"), ("Top tier", "r"), ("State", "l")]
    columns += [("Flags", "l")]
    lines += _table(
        columns,
        [
            [
                f"[{_name(rec)}]({_page_of(rec)})" + _notice_mark(rec),
                _source(rec),
                str(rec["n_items"]),
                str(rec["n_models"]),
                _home_ddm(rec),
                _home_gap(rec),
                _coverage_verdict(rec),
                _with_band(rec["saturation_index"], rec.get("band")),
                _top_tier(rec),
                _state(rec),
                _flags(rec),
            ]
            for rec in _sorted(records)
        ],
    )
    lines += ["", LEGEND]
    lines += ["", "## Why", ""]
    for rec in _sorted(records):
        why = rec.get("why")
        text = "; ".join(md(w) for w in why) if why else "–"
        lines.append(f"- [{_name(rec)}]({_page_of(rec)}): {text}")
    lines += sources_section(sources or {}, now)
    if alerts:
        lines += ["", "## Latest alerts", ""]
        for alert in sorted(alerts, key=lambda a: (a["raised_at"], a["id"]), reverse=True)[:5]:
            page = _page_of(records.get(alert["benchmark"], {"benchmark": alert["benchmark"]}))
            lines.append(f"- {alert['raised_at'][:10]}: [{md(alert['title'])}]({page})")
    return "\n".join(lines) + "\n"


def _interval(rec: dict, key: str) -> str:
    lo, hi = rec.get(f"{key}_lo"), rec.get(f"{key}_hi")
    return "–" if lo is None or hi is None else f"{fmt(lo)} – {fmt(hi)}"


def _first_reached(rec: dict) -> str:
    first = rec.get("first_saturated_date")
    if not first:
        return "not yet"
    fell = rec.get("fell_back_date")
    return f"{md(first)}, fell back below 0.7 on {md(fell)}" if fell else f"{md(first)}, and stayed above since"


EMPTY = ("", "–", "– – –")


def _table(columns: list[tuple[str, str]], rows: list[list[str]]) -> list[str]:
    """A Markdown table of ``columns`` (header, alignment: "l" or "r") without the columns empty in every row."""
    keep = [k for k in range(len(columns)) if k == 0 or any(row[k].strip() not in EMPTY for row in rows)]
    lines = [
        "| " + " | ".join(columns[k][0] for k in keep) + " |",
        "|" + "|".join("---:" if columns[k][1] == "r" else "---" for k in keep) + "|",
    ]
    return lines + ["| " + " | ".join(row[k] for k in keep) + " |" for row in rows]


def _bound_cells(rec: dict) -> list[list[str]]:
    """The bounds that hold for any difficulty distribution (``bot.metrics.bounds``)."""
    if rec.get("detection_limit") is None:
        return []
    thin = rec.get("thin_stretches") or []
    where = ", ".join(f"{fmt(lo)} – {fmt(hi)}" for lo, hi in thin)
    lo, hi = rec.get("detection_stretch") or (None, None)
    return [
        [
            f"DDM (W1 to {md(rec.get('target') or '–')}): bounds",
            f"{fmt(rec['ddm_bound_lo'])} – {fmt(rec['ddm_bound_hi'])}",
            "",
        ],
        [
            "Max Gap: at most (the detection limit, the widest stretch these models cannot rule out as empty)",
            fmt(rec["detection_limit"]),
            "" if lo is None else f"widest at {fmt(lo)} – {fmt(hi)}",
        ],
        ["Top-5 gap sum: at most", fmt(rec.get("top5_gap_sum_bound_hi")), ""],
        [
            "Stretches shown to hold less than a quarter of the target's items",
            fmt(rec.get("thin_width")) if thin else "none",
            where,
        ],
    ]


def _model_based_cells(rec: dict) -> list[list[str]]:
    """The model-based coverage figures (posterior medians under smooth difficulties) and their intervals."""
    based = " (model-based: smooth difficulties assumed)" if rec.get("detection_limit") is not None else ""
    return [
        [f"DDM{based}", fmt(rec["ddm"]), _interval(rec, "ddm")],
        *(
            [f"{name}{based}", fmt(rec[key]), _interval(rec, key)]
            for key, name in (
                ("max_gap", "Max Gap"),
                ("top3_gap_sum", "Top-3 gap sum"),
                ("top5_gap_sum", "Top-5 gap sum"),
            )
        ),
    ]


def _figure_cells(rec: dict) -> list[list[str]]:
    """The figures of a record, one per claim: name, value, interval (or where). Where the bounds exist they are
    the coverage figures (they hold for any difficulty distribution); the other estimates are in
    ``_other_cells``."""
    bounded = rec.get("detection_limit") is not None
    rows = [
        ["Items", str(rec["n_items"]), ""],
        ["Models", str(rec["n_models"]), ""],
        *(_bound_cells(rec) if bounded else _model_based_cells(rec)),
    ]
    top_gap = fmt((rec["top1"] or 0) - (rec["top5"] or 0)) if rec.get("top5") is not None else "–"
    return [
        *rows,
        ["Saturation index (decides the state)", fmt(rec["saturation_index"]), _interval(rec, "saturation_index")],
        ["Band", md(rec.get("band") or "–"), ""],
        [
            "Top tier (models that cannot be told apart from the best)",
            "–" if rec.get("top_tier_size") is None else f"{rec['top_tier_size']} of {rec['n_models']}",
            "",
        ],
        ["Top-1 minus top-5", top_gap, _interval(rec, "top_gap")],
        ["Saturation index first reached 0.7", _first_reached(rec), ""],
        ["Best score (s1)", pct(rec["top1"]), ""],
        ["Fifth best (s5)", pct(rec["top5"]), ""],
        ["Top-5 mean", pct(rec["top5_mean"]), ""],
        ["Items solved by at least one model", pct(rec.get("solved_share")), ""],
        ["State", _state(rec), ""],
        ["Flags", _flags(rec, explained=True), ""],
    ]


def _other_cells(rec: dict) -> list[list[str]]:
    """The estimates that do not decide anything on the page, beside the figures they shadow."""
    rows = _model_based_cells(rec) if rec.get("detection_limit") is not None else []
    if rec.get("ddm_plugin") is not None:
        plugin = f"{fmt(rec['ddm_plugin'])} / {fmt(rec['max_gap_plugin'])}"
        rows.append(["DDM / Max Gap of the fitted positions (plug-in)", plugin, ""])
    rows.append(["Saturation index with the paired item-level SE", fmt(rec.get("saturation_index_paired")), ""])
    return [row for row in rows if row[1] not in EMPTY]


OTHER_ESTIMATES = """??? note "Other estimates of the same figures, and why they differ"
    These do not decide a verdict, a flag or the state. The **model-based** coverage figures assume the
    difficulties are smooth (a normal prior on the logit scale); that prior fills any gap the pool cannot
    resolve, so they can sit far inside the bounds above, which assume nothing. The **plug-in** figures are
    those of the items' fitted positions, which pile up where the pool cannot split them. The **paired**
    saturation index replaces the published index's binomial error with the item-level error of the top-1
    minus top-5 difference on the items both answered; the state is decided by the published one.

"""


def _other_estimates(rec: dict) -> list[str]:
    rows = _other_cells(rec)
    if not rows:
        return []
    return [OTHER_ESTIMATES.rstrip("\n"), "", *("    " + line for line in _table(FIGURE_COLUMNS, rows))]


FIGURE_COLUMNS = [("Figure", "l"), ("Value", "r"), ("95% interval, or where", "r")]


def _figures_it_has(rec: dict) -> list[str]:
    """The figure table, without the figures a record has no value for (an aggregate board: no coverage), then
    the other estimates in a closed block."""
    table = _table(FIGURE_COLUMNS, [row for row in _figure_cells(rec) if row[1] not in EMPTY])
    other = _other_estimates(rec)
    return [*table, *(["", *other] if other else [])]


FIGURE_NAMES = {"ddm": "DDM", "max_gap": "Max Gap", "top5_gap_sum": "top-5 gap sum"}


VERDICT_WORDS = {
    "found": "found",
    "cannot tell": "cannot tell with these models",
    "clear": "clear",
}


def _verdict_rows(rec: dict) -> list[list[str]]:
    rows = []
    for key, name in FIGURE_NAMES.items():
        v = (rec.get("verdicts") or {}).get(key)
        if not v:
            continue
        bound = {
            "ddm": f"{fmt(rec.get('ddm_bound_lo'))} – {fmt(rec.get('ddm_bound_hi'))}",
            "max_gap": f"at most {fmt(rec.get('detection_limit'))}; shown thin: {fmt(rec.get('thin_width'))}",
            "top5_gap_sum": f"at most {fmt(rec.get('top5_gap_sum_bound_hi'))}; shown thin: {fmt(rec.get('thin_top5'))}",
        }[key]
        need = (rec.get("resolve") or {}).get(key) if v["verdict"] == "cannot tell" else None
        decide = md(resolve_line(key, need).split(": ", 1)[-1]) if need else ""
        rows.append([name[0].upper() + name[1:], bound, fmt(v["level"]), f"**{VERDICT_WORDS[v['verdict']]}**", decide])
    return rows


def _verdicts(rec: dict, heading: str = "##") -> list[str]:
    """What these models can and cannot see: each coverage figure's bounds, level and verdict."""
    rows = _verdict_rows(rec)
    if not rows:
        return []
    columns = [("Figure", "l"), ("Bounds, any difficulty distribution", "l"), ("Level", "r"), ("Verdict", "l")]
    columns.append(("What would decide", "l"))
    return [
        f"{heading} What these models can and cannot see",
        "",
        "Bounds that assume nothing about how the items' difficulties are distributed, each figure's flag "
        "level (its threshold, raised to what this many items drawn from the target show by chance), and the "
        "verdict: **found** when the lower bound reaches the level (`fill` and `revise` fire only then), "
        "**clear** when the upper bound is below it, **cannot tell with these models** otherwise.",
        "",
        *_table(columns, rows),
        "",
    ]


def _resolution(rec: dict) -> list[str]:
    """What this model pool can resolve, in words: the information limit, the pool's shape, the estimates."""
    pool = rec.get("pool") or {}
    if not pool:
        return []
    a_lo, a_hi = pool["ability_range"]
    b_lo, b_hi = pool["difficulty_range"]
    lines = [
        "## What this model pool can resolve",
        "",
        f"- {rec['n_models']} models give {pool['response_patterns']} distinct response patterns over "
        f"{rec['n_items']} items; the fitted positions take {pool['distinct_z']} distinct z values (with every "
        "model answering, items with the same number of correct answers share one position, and the pool "
        "cannot tell where inside that stretch each lies).",
        f"- Abilities span {fmt(a_lo)} to {fmt(a_hi)} logits; item difficulties {fmt(b_lo)} to {fmt(b_hi)}. "
        "Items far outside the abilities' range are placed by the prior, not by the data.",
    ]
    if rec.get("detection_limit") is not None:
        lines.append(
            f"- These models cannot rule out an empty stretch of the axis up to {fmt(rec['detection_limit'])} wide "
            f"(the detection limit; from the lowest end {fmt(rec.get('detection_limit_low_end'))}, from the "
            f"highest end {fmt(rec.get('detection_limit_high_end'))}), whatever the items' distribution: a Max Gap "
            "narrower than that is invisible to them. The model-based figures assume a smooth distribution of "
            "difficulties; where the items leave a stretch empty, that assumption fills it in."
        )
    joint = rec.get("joint_pool")
    if joint:
        others = ", ".join(
            f"{md(j['benchmark'])} ({j['models']} models on {j['items']} shared items)" for j in joint["with"]
        )
        lines.append(
            f"- Items are placed by {pool.get('fitted_models', rec['n_models'])} models: this benchmark's own and "
            f"those of the other sources of this page that answered the same items: {others}. The scores and the "
            "saturation figures are this benchmark's own."
        )
    for m in rec.get("uninformative") or []:
        lines.append(f"- Left out of the fit: {md(m['model'])}, which {md(m['why'])} ({m['items']} items).")
    if rec.get("retirement"):
        lines.append(f"- Retirement: {md(rec['retirement'])}.")
    return ["", *lines]


def _num(value: object) -> float | None:
    """A CSV cell as a float, or None when it is empty."""
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return None if out != out else out


def _whole(value: object) -> str:
    """A count from a CSV cell, or an en dash."""
    number = _num(value)
    return "–" if number is None else str(int(number))


RECENT_ROWS = 8  # rows of a long table shown; older ones wait behind a collapsed block


def _text(value: object) -> str:
    return value if isinstance(value, str) else "–"


def _recent_first(columns: list[tuple[str, str]], rows: list[list[str]], what: str) -> list[str]:
    """A table newest row first: the latest RECENT_ROWS shown, the older ones in a collapsed block (the same
    columns in both: the empty ones dropped over all the rows)."""
    rows = rows[::-1]
    table = _table(columns, rows)
    lines = table[: 2 + RECENT_ROWS]
    older = table[2 + RECENT_ROWS :]
    if older:
        lines += ["", f'??? note "{len(older)} older {what}"', *("    " + x for x in [*table[:2], *older])]
    return lines


TIER_ROWS = 15  # models shown before the rest of the tiers table collapses


def _tiers_section(rec: dict, models: pd.DataFrame | None, heading: str = "##") -> list[str]:
    """Who can be told apart: the tiers, every model with its tier and rank interval, and the picture."""
    if not rec.get("tier_method") or models is None or "tier" not in models.columns:
        return []
    table = models.dropna(subset=["tier"]).sort_values("score", ascending=False)
    k = rec.get("top_tier_size") or 0
    lines = [
        "",
        f"{heading} Who can be told apart",
        "",
        f"{rec['n_models']} models in {rec.get('n_tiers')} tiers, compared by the {md(rec['tier_method'])}, the "
        f"false separations controlled over all pairs at once (Holm, {rec.get('tier_alpha', 0.05):.0%}). Tier 1 is "
        "the best model and every model not significantly below it; each next tier gathers round the best of the "
        "rest. Two models of one tier cannot be told apart from its leader: their order is within the noise. "
        f"**Top tier: {k} model{'s' if k != 1 else ''}.**",
        "",
        f"![Every model's score with its 95% interval, best first, its tiers shaded]"
        f"(../{plot_path(rec['benchmark'], 'tiers')})",
        "",
    ]
    rows = [
        [
            str(n),
            md(r.model),
            pct(_num(r.score)),
            f"{int(r.rank_lo)} – {int(r.rank_hi)}",
            str(int(r.tier)),
        ]
        for n, r in enumerate(table.itertuples(), 1)
    ]
    columns = [("Rank by score", "r"), ("Model", "l"), ("Score", "r"), ("95% interval of rank", "r"), ("Tier", "r")]
    shown = _table(columns, rows)
    lines += shown[: 2 + TIER_ROWS]
    if len(rows) > TIER_ROWS:
        lines += [
            "",
            f'??? note "{len(rows) - TIER_ROWS} more models"',
            *("    " + x for x in [*shown[:2], *shown[2 + TIER_ROWS :]]),
        ]
    untiered = rec.get("untiered") or []
    if untiered:
        lines += ["", f"{len(untiered)} further models are below the {len(rows)} best by score and not tiered."]
    return lines


def _with_band(value: float | None, band: object) -> str:
    """A saturation index, its band named on hover."""
    return f'<span title="{attribute(band)} band">{fmt(value)}</span>' if isinstance(band, str) else fmt(value)


def benchmark_body(
    rec: dict,
    history: pd.DataFrame,
    alerts: list[dict],
    by_date: pd.DataFrame | None = None,
    changes: list[dict] | None = None,
    items: pd.DataFrame | None = None,
    page_id: str | None = None,
    plan: list[dict] | None = None,
    models: pd.DataFrame | None = None,
) -> str:
    """One benchmark's page (its main record; ``also_section`` adds the others of its benchmark id)."""
    page_id = page_id or rec["benchmark"]
    name = _name(rec)
    meta = {"feed": benchmark_feed(page_id), "feed_title": page_id}
    title = name if page_id == rec["benchmark"] else md(page_id)
    lines = ["---", *(f"{k}: {json.dumps(v)}" for k, v in meta.items()), "---", "", f"# {title}", ""]
    if rec.get("synthetic"):
        lines += [SYNTHETIC_NOTE]
    lines += _notice_block(rec)
    if page_id != rec["benchmark"]:
        lines += [
            f"Shown first: **{name}**, from {_origin(rec)}. Further below: the other sources of this benchmark.",
            "",
        ]
    feed_link = f"[RSS feed of this benchmark's alerts](../{benchmark_feed(page_id)})."
    if rec.get("kind") == "aggregate" and rec.get("unplaced"):
        left = [f"{md(m['model'])} ({md(m['why'])})" for m in rec.get("uninformative") or []]
        lines += [
            f"Per-item data, but {md(rec['unplaced'])}. The saturation index comes from the {rec['n_models']} "
            f"models' scores. {feed_link}",
            "",
            *([f"Left out of the fit: {', '.join(left)}.", ""] if left else []),
            *_figures_it_has(rec),
        ]
    elif rec.get("kind") == "aggregate":
        lines += [
            f"An aggregate-only leaderboard: no per-item data, so no difficulty fit and no coverage figures; "
            f"the saturation index comes from the {rec['n_models']} published scores. {feed_link}",
            "",
            *_figures_it_has(rec),
        ]
    else:
        converged = "converged" if rec.get("converged") else "**did not converge**"
        lines += [
            f"Difficulties from a 1PL fit (`{rec['method']}`, {converged}) over the {rec['n_models']} models of "
            f"this benchmark, on the `{rec['scale']}` scale. {feed_link}",
            "",
            *_verdicts(rec),
            *_figures_it_has(rec),
            "",
            "## What the figures mean",
            "",
            "- An improvement confined to a stretch of the difficulty axis narrower than the Max Gap can fall "
            "between two items and leave every score unchanged: this benchmark cannot detect it, however often "
            f"it is rerun. These models bound the Max Gap by {fmt(rec.get('detection_limit'))} and no finer.",
            f"- Ranked under the target distribution instead, two models can only swap places if their score "
            f"gap is below L × DDM = L × {fmt(rec['ddm'])}, where L bounds how fast the score difference between "
            "them changes along z.",
            "",
            "## Largest gaps",
            "",
            "Between the items' fitted positions (the strip below; plug-in). Items that share a position may lie "
            "anywhere in a stretch the pool cannot split, so these gaps describe the pool as much as the "
            "benchmark: the bounds above are what the data support.",
            "",
            "| From z | To z | Width |",
            "|---:|---:|---:|",
        ]
    lines += [f"| {fmt(g['lo'])} | {fmt(g['hi'])} | {fmt(g['width'])} |" for g in rec["gaps"]]
    if rec.get("kind") != "aggregate":
        lines += [*_resolution(rec), "", *_pictures_and_targets(rec, items, plan)]
    elif rec.get("retirement"):
        lines += ["", f"Retirement: {md(rec['retirement'])}."]
    lines += _tiers_section(rec, models)
    lines += ["", "## Top models", ""]
    lines += _table(
        [("Rank", "r"), ("Model", "l"), ("Score", "r"), ("95% interval", "r")],
        [
            [
                str(i),
                md(m["model"]),
                pct(m["score"]),
                "" if m.get("lo") is None else f"{pct(m['lo'])} – {pct(m.get('hi'))}",
            ]
            for i, m in enumerate(rec["top_models"], 1)
        ],
    )
    lines += ["", "## Saturation over time", ""]
    if by_date is not None and not by_date.empty:
        lines += [
            f"![The saturation index of {md(rec['benchmark'])} at each model publication date, over its bands, "
            f"and the current top five models' scores with 95% intervals]"
            f"(../{plot_path(rec['benchmark'], 'saturation')})",
            "",
        ]
    if by_date is None or by_date.empty:
        lines.append("No publication dates in the data.")
    else:
        rows = [
            [
                md(r.date),
                str(r.n_models),
                _with_band(_num(r.saturation_index), r.band),
                md(r.state),
                pct(_num(r.top1)),
                pct(_num(r.top5)),
                fmt(_num(r.ddm)),
                fmt(_num(r.max_gap)),
                _whole(getattr(r, "top_tier_size", None)),
            ]
            for r in by_date.itertuples()
        ]
        columns = [("Date", "l"), ("Models", "r"), ("Saturation index", "r"), ("State", "l")]
        columns += [("Top-1", "r"), ("Top-5", "r"), ("DDM (model-based)", "r"), ("Max Gap (model-based)", "r")]
        columns += [("Top tier", "r")]
        lines += [
            "The figures as they stood at each model publication date, over the models published by then, "
            "newest first (the saturation index's band on hover).",
            "",
            *_recent_first(columns, rows, "dates"),
        ]
    lines += ["", "## History", ""]
    mine_rows = history[history["benchmark"] == rec["benchmark"]]
    if mine_rows.empty:
        lines.append("No snapshot recorded yet.")
    else:
        rows = [
            [
                md(r.snapshot_at),
                _short_revision(r.revision),
                fmt(_num(r.ddm)),
                fmt(_num(r.max_gap)),
                fmt(_num(r.saturation_index)),
                md(r.state),
            ]
            for r in mine_rows.itertuples()
        ]
        columns = [("Snapshot", "l"), ("Revision", "l"), ("DDM (model-based)", "r"), ("Max Gap (model-based)", "r")]
        columns += [("Saturation index", "r"), ("State", "l")]
        lines += _recent_first(
            columns,
            rows,
            "snapshots",
        )
    lines += ["", "## Data provenance", ""]
    lines += [
        f"- Source: {md(rec.get('source_name') or '–')} ({md(rec['source'])})",
        f"- Origin: {md(rec.get('origin') or rec['source'])}",
        f"- Data revision: {md(rec['revision'])}, first seen {md(rec.get('snapshot_at') or '–')}",
    ]
    excluded = rec.get("excluded") or []
    if excluded:
        lines.append(f"- Excluded ({len(excluded)}):")
        lines += [f"    - {md(e.get('model'))}: {md(e.get('reason'))}" for e in excluded]
    else:
        lines.append("- Excluded: none")
    lines += ["", "## Changes", ""]
    mine_changes = [c for c in (changes or []) if c["benchmark"] == rec["benchmark"]]
    if not mine_changes:
        lines.append("No change recorded yet.")
    for change in reversed(mine_changes):
        parts = [
            f"{change[k]['count']} {k.replace('_', ' ')}"
            for k in (
                "models_added",
                "models_removed",
                "models_rescored",
                "items_added",
                "items_removed",
                "items_rescored",
            )
            if k in change and change[k]["count"]
        ]
        lines.append(f"- {md(change['snapshot_at'])}: {md(', '.join(parts) or 'no model or item changed')}")
        for k in ("models_removed", "models_rescored"):
            if k in change and change[k]["names"]:
                lines.append(f"    - {k.replace('_', ' ')}: {', '.join(md(n) for n in change[k]['names'])}")
    slug = safe_slug(rec["benchmark"])
    lines += ["", "## Downloads", ""]
    lines.append(f"- Figures: [JSON](../downloads/{slug}.json)")
    if rec.get("kind") != "aggregate":
        lines.append(
            f"- Item difficulties (item_id, b, b_sd, z): [CSV](../downloads/{slug}-items.csv), "
            f"[JSON](../downloads/{slug}-items.json)"
        )
    if rec.get("tier_method"):
        lines.append(f"- Models with their tiers and rank intervals: [CSV](../downloads/{slug}-models.csv)")
    if by_date is not None and not by_date.empty:
        lines.append(f"- History by date: [CSV](../downloads/{slug}-by-date.csv)")
    mine = [a for a in alerts if a["benchmark"] == rec["benchmark"]]
    lines += ["", "## Alerts", ""]
    lines += [f"- {a['raised_at'][:10]}: {md(a['title'])}" for a in reversed(mine)] or ["None yet."]
    return "\n".join(lines) + "\n"


ALERT_KINDS = {"state": "state", "raised": "flag raised", "cleared": "flag cleared"}


def alert_events(alerts: list[dict]) -> list[dict]:
    """The alerts as events, one per line of the alerts page: a benchmark's *watch* raised with its move to
    *stagnant* (the flag says what the state says) is one event, the state's; sorted by benchmark, kind and
    newest first."""
    stagnant = {
        (a["benchmark"], a.get("revision")) for a in alerts if a.get("kind") == "state" and a.get("to") == "stagnant"
    }
    events = []
    for a in alerts:
        folded = a.get("kind") == "raised" and a.get("flag") == "watch"
        if folded and (a["benchmark"], a.get("revision")) in stagnant:
            continue
        kind = ALERT_KINDS.get(str(a.get("kind")), str(a.get("kind") or "notice"))
        if a.get("kind") == "state" and a.get("to") == "stagnant":
            kind = "state (watch raised)"
        events.append({**a, "event_kind": kind})
    events.sort(key=lambda a: (a["raised_at"], a["id"]), reverse=True)
    return sorted(events, key=lambda a: (a["benchmark"], a["event_kind"]))


def alerts_page(alerts: list[dict], records: dict[str, dict] | None = None) -> str:
    """Every alert as one line per event, grouped by benchmark and kind, with filters."""
    records = records or {}
    lines = [
        "# Alerts",
        "",
        "Every change of state or flag, one line per event, grouped by benchmark and kind; click a header to"
        " sort (by date, say), or filter below. [RSS](feed.xml)",
        "",
    ]
    if not alerts:
        return "\n".join([*lines, "No alerts yet."]) + "\n"
    lines += ['<div class="bw-filter"></div>', ""]
    rows = []
    for a in alert_events(alerts):
        page = _page_of(records.get(a["benchmark"], {"benchmark": a["benchmark"]}))
        rows.append(
            [
                a["raised_at"][:10],
                f"[{_name(records.get(a['benchmark'], a))}]({page})",
                md(a["event_kind"]),
                md(a["title"]),
            ]
        )
    lines += _table([("Date", "l"), ("Benchmark", "l"), ("Kind", "l"), ("Event", "l")], rows)
    return "\n".join(lines) + "\n"


def _comparison(cmp: dict, rec: dict) -> list[str]:
    """How a board's published scores agree with the per-item fit on the same page."""
    lines = [
        "",
        f"The per-item fit on this page ({md(cmp['with'])}) covers {cmp['fit_models']} models; this board lists "
        f"{cmp['board_models']}. {cmp['both']} are in both (names matched ignoring case and punctuation), and "
        f"{cmp['disagreements']} of them disagree by more than 1.96 standard errors of the difference.",
    ]
    if cmp["rows"]:
        lines += [
            "",
            "| Model | Per-item fit | This board | Difference | Disagree |",
            "|---|---:|---:|---:|---|",
        ]
        lines += [
            f"| {md(r['model'])} | {pct(r['score'])} | {pct(r['other_score'])} | {fmt(100 * r['difference'])} pp "
            f"| {'**yes**' if r['disagree'] else 'no'} |"
            for r in cmp["rows"]
        ]
    return lines


def also_section(rec: dict, history: pd.DataFrame, alerts: list[dict]) -> str:
    """Another record of the same benchmark id: a board of published scores, or a second per-item fit."""
    kind = "leaderboard of published scores" if rec.get("kind") == "aggregate" else "per-item fit"
    lines = ["", f"## Also: {_name(rec)} ({kind})", "", f"From {_origin(rec)}.", ""]
    lines += _notice_block(rec)
    lines += _verdicts(rec, "###")
    lines += _figures_it_has(rec)
    if rec.get("top_tier_size") is not None:
        lines += [
            "",
            f"Top tier of {_name(rec)}: {rec['top_tier_size']} of {rec['n_models']} models cannot be told apart from "
            f"its best, by the {md(rec['tier_method'])}.",
        ]
    if rec.get("comparison"):
        lines += _comparison(rec["comparison"], rec)
    lines += ["", f"Top models of {_name(rec)}:", "", "| Rank | Model | Score |", "|---:|---|---:|"]
    lines += [f"| {i} | {md(m['model'])} | {pct(m['score'])} |" for i, m in enumerate(rec["top_models"], 1)]
    excluded = rec.get("excluded") or []
    if excluded:
        lines += ["", f"Excluded ({len(excluded)}):", ""]
        lines += [f"- {md(e.get('model'))}: {md(e.get('reason'))}" for e in excluded]
    mine = [a for a in alerts if a["benchmark"] == rec["benchmark"]]
    if mine:
        lines += ["", f"Alerts of {_name(rec)}:", ""]
        lines += [f"- {a['raised_at'][:10]}: {md(a['title'])}" for a in reversed(mine)]
    rows = history[history["benchmark"] == rec["benchmark"]]
    lines += ["", f"{len(rows)} snapshot(s) of {_name(rec)} in the history since {md(rec.get('snapshot_at') or '–')}."]
    return "\n".join(lines) + "\n"


def _proposal_bounds(proposal: dict) -> list[str]:
    """The bounds and verdicts before and after the accepted candidates (the audit's own computation)."""
    before, after = proposal.get("bounds_before"), proposal.get("bounds_after")
    if not before or not after:
        return []
    rows = []
    for key, label, fields in (
        ("ddm", "DDM bounds", ("ddm_bound_lo", "ddm_bound_hi")),
        ("max_gap", "Max Gap, at most", ("detection_limit",)),
        ("top5_gap_sum", "Top-5 gap sum, at most", ("top5_gap_sum_bound_hi",)),
    ):
        cells = [" – ".join(fmt(b[f]) for f in fields) + f" ({b['verdicts'].get(key, '–')})" for b in (before, after)]
        rows.append([label, *cells])
    return _table([("For any difficulty distribution", "l"), ("Now", "r"), ("After fill", "r")], rows)


def proposal_section(proposal: dict, rec: dict) -> str:
    """A proposed revision (``benchwatch fill check --record``): the figures after adding the accepted
    candidates, next to the current ones; never part of the benchmark's history."""
    lines = [
        "",
        f"## After fill: a proposed revision of {_name(rec)}",
        "",
        f"{len(proposal['candidates'])} candidate item(s) calibrated onto this benchmark's scale with its "
        f"{proposal['pool']} models' abilities held fixed, each landing inside a stretch of the fill plan "
        "(`benchwatch fill check --record`). Proposed only: the figures above and the history leave them out.",
        "",
    ]
    if proposal.get("revision") != rec.get("revision"):
        lines += ['!!! note "Checked against an earlier revision of the data"', "    Check the candidates again.", ""]
    rows = [
        [
            label,
            *(
                f"{fmt(proposal[k][key]['value'])} ({fmt(proposal[k][key]['lo'])} – {fmt(proposal[k][key]['hi'])})"
                for k in ("before", "after")
            ),
        ]
        for key, label in (("ddm", "DDM"), ("max_gap", "Max Gap"), ("top5_gap_sum", "Top-5 gap sum"))
    ]
    lines += _proposal_bounds(proposal)
    lines += ["", "Model-based (smooth difficulties assumed):", ""]
    lines += _table([("Figure", "l"), ("Now (95% interval)", "r"), ("After fill (95% interval)", "r")], rows)
    lines += ["", "| Candidate | z (95% interval) | Gap |", "|---|---:|---|"]
    lines += [
        f"| {md(c['item_id'])} | {fmt(c['z'])} ({fmt(c['z_lo'])} – {fmt(c['z_hi'])}) "
        f"| {fmt(c['gap']['lo'])} – {fmt(c['gap']['hi'])} |"
        for c in proposal["candidates"]
    ]
    return "\n".join(lines) + "\n"
