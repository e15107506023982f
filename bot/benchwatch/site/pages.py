"""The pages of the audit site, rendered from the records in ``reports/`` through the templates of
``bot/benchwatch/site/templates/`` (one per page kind, ``benchwatch.site.render``): this module prepares each
page's values and formats its cells (every upstream string escaped), the templates lay out the Markdown."""

from __future__ import annotations

import html
import re

import pandas as pd

from benchwatch.metrics import state_evidence
from benchwatch.rules import NO_BOUND, VERDICT_NAMES, resolve_line
from benchwatch.site.escape import attribute, md, printable
from benchwatch.site.names import alert_anchor, alert_title, page_name, shown_name
from benchwatch.site.numbers import fmt, pct
from benchwatch.site.render import EMPTY, render
from benchwatch.store import safe_slug

SEVERITY = {"saturated": 0, "stagnant": 1, "unknown": 2, "discriminating": 3}


def _plan_rows(plan: list[dict] | None) -> list[list[str]]:
    """The fill plan (``benchwatch.fill.plan``) as rows: for each stretch found thin or not ruled out as empty, the
    difficulty a new item should have, the seed items on either side and how the pool would fare."""
    rows = []
    for g in plan or []:
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
    return rows


PLAN_COLUMNS = [("Stretch", "l"), ("Verdict", "l"), ("Target z", "r"), ("Target b", "r"), ("Seeds (z)", "l")]
PLAN_COLUMNS.append(("Solve probability", "l"))


def _difficulty_alt(rec: dict) -> str:
    return html.escape(
        f"Every item of {printable(shown_name(rec))} on the difficulty axis z, the stretches shown thin and the "
        "widest one that may be empty marked, and the items' empirical CDF against the target's"
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


def benchmark_feed(benchmark: str) -> str:
    """The site path of a benchmark's RSS feed."""
    # At the site root: Material resolves sitemap.xml next to every rel=alternate link it finds.
    return f"feed-{safe_slug(benchmark)}.xml"


def _name(rec: dict) -> str:
    return md(shown_name(rec))


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
    source = source.replace("\\_", "\\_<wbr>")  # a long id may break after its underscores in a narrow column
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
            "name": shown_name(rec),  # the name every page shows (issue 40)
            "url": "../" + _page_of(rec).removesuffix(".md") + "/",
            "saturation_index": rec.get("saturation_index"),
            "ddm": None if _withheld(rec) else rec.get("ddm"),  # withheld: on the strip of no coverage figure
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


def _helpers() -> dict:
    """The functions the templates call (each formats a value of a record; none lays out Markdown)."""
    return {"name": _name, "origin": _origin, "plot_path": plot_path}


def _source_rows(sources: dict[str, dict], now: str | None) -> list[list[str]]:
    rows = []
    for name in sorted(sources):
        s = sources[name]
        status = (
            "ok" if s.get("status") == "ok" else f"**failed** since {md(s.get('failed_since'))}: {md(s.get('error'))}"
        )
        since = md((s.get("data_since") or "–")[:10])
        if s.get("bundled") and s.get("status") == "ok":  # shipped with benchwatch: never fetched
            status, since = "bundled (no network)", f"bundled copy of {md(s['bundled'])}"
        rows.append(
            [
                _source_link(name, s.get("homepage")),
                status,
                _as_of_cell(s, now),
                since,
                _short_revision(s.get("revision")),
            ]
        )
    return rows


def _sources_context(sources: dict[str, dict], now: str | None) -> dict:
    listed = [
        (name, item)
        for name in sorted(sources)
        for item in [
            *sources[name].get("skipped", []),
            *({"benchmark": g, "reason": "gone upstream"} for g in sources[name].get("gone", [])),
        ]
    ]
    return {"sources": sources, "source_rows": _source_rows(sources, now), "listed": listed}


def sources_section(sources: dict[str, dict], now: str | None) -> str:
    """One line per source: freshness of its last good data and any failure; then what each left out."""
    return render("_sources.md.j2", _helpers(), **_sources_context(sources, now))


def _top_tier(rec: dict) -> str:
    """The top tier's size on the home page, its members named on hover."""
    k = rec.get("top_tier_size")
    if k is None:
        return "–"
    members = ", ".join(printable(m) for m in rec.get("top_tier") or [])
    return f'<span title="{attribute(members)}">{k} of {rec["n_models"]}</span>'


def _withheld(rec: dict) -> bool:
    """Whether the record's bounds are withheld: its item model does not fit (``benchwatch.irt.item_model``)."""
    return rec.get("item_model") == "withheld"


WITHHELD_CELL = '<span title="the bounds are withheld: the benchmark\'s page says why">withheld</span>'


def _home_ddm(rec: dict) -> str:
    """DDM on the home page: its bounds where it has them (the model-based estimate otherwise)."""
    if _withheld(rec):
        return WITHHELD_CELL
    if rec.get("ddm_bound_lo") is not None:
        return f"{fmt(rec['ddm_bound_lo'])} – {fmt(rec['ddm_bound_hi'])}"
    return fmt(rec.get("ddm"))


def _home_gap(rec: dict) -> str:
    """Max Gap on the home page: at most the detection limit where there are bounds."""
    if _withheld(rec):
        return WITHHELD_CELL
    if rec.get("detection_limit") is not None:
        return f"≤ {fmt(rec['detection_limit'])}"
    return fmt(rec.get("max_gap"))


def _coverage_verdict(rec: dict) -> str:
    """The coverage verdicts in a few words: what was found, what cannot be told, or clear."""
    v = {k: (x or {}).get("verdict") for k, x in (rec.get("verdicts") or {}).items()}
    if _withheld(rec):
        return "withheld (its page says why)"
    if not v:
        return "–"
    found = [VERDICT_NAMES[k] for k in VERDICT_NAMES if v.get(k) == "found"]
    unsure = [VERDICT_NAMES[k] for k in VERDICT_NAMES if v.get(k) == "cannot tell"]
    if found:
        return "found: " + ", ".join(found)
    if unsure:
        return "cannot tell: " + ", ".join(unsure)
    return "clear"


HOME_COLUMNS = [("Benchmark", "l"), ("Source", "l"), ("Items", "r"), ("Models", "r"), ("DDM", "r")]
HOME_COLUMNS += [("Max Gap", "r"), ("Coverage", "l"), ("Saturation index", "r"), ("Top tier", "r"), ("State", "l")]
HOME_COLUMNS += [("Flags", "l")]


def _home_row(rec: dict) -> list[str]:
    return [
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


def _why(rec: dict) -> str:
    why = rec.get("why")
    return "; ".join(md(w) for w in why) if why else "–"


def index_page(
    records: dict[str, dict], alerts: list[dict], sources: dict[str, dict] | None = None, now: str | None = None
) -> str:
    """The home page: one row per benchmark, most severe first."""
    synthetic = [bool(r.get("synthetic")) for r in records.values()]
    latest = sorted(alerts, key=lambda a: (a["raised_at"], a["id"]), reverse=True)[:5]
    return render(
        "index.md.j2",
        {**_helpers(), "page_of": _page_of, "why": _why},
        synthetic="all" if synthetic and all(synthetic) else "some" if any(synthetic) else "none",
        summary_plot=SUMMARY_PLOT,
        summary_alt=SUMMARY_ALT,
        columns=HOME_COLUMNS,
        rows=[_home_row(rec) for rec in _sorted(records)],
        records=_sorted(records),
        latest_alerts=[
            ({**a, "title": alert_title(a, records.get(a["benchmark"]))}, "alerts.md#" + alert_anchor(a))
            for a in latest
        ],
        **_sources_context(sources or {}, now),
    )


def _interval(rec: dict, key: str) -> str:
    lo, hi = rec.get(f"{key}_lo"), rec.get(f"{key}_hi")
    return "–" if lo is None or hi is None else f"{fmt(lo)} – {fmt(hi)}"


def _first_reached(rec: dict) -> str:
    first = rec.get("first_saturated_date")
    if not first:
        return "not yet"
    fell = rec.get("fell_back_date")
    return f"{md(first)}, fell back below 0.7 on {md(fell)}" if fell else f"{md(first)}, and stayed above since"


def _bound_cells(rec: dict) -> list[list[str]]:
    """The bounds that hold for any difficulty distribution (``benchwatch.metrics.bounds``)."""
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
            "Max Gap's bound: an empty stretch of at most (the widest these models cannot rule out as empty)",
            fmt(rec["detection_limit"]),
            "" if lo is None else f"widest at {fmt(lo)} – {fmt(hi)}",
        ],
        ["Top-5 gap sum's bound: five empty stretches in all", _bound(rec.get("top5_gap_sum_bound_hi")), ""],
        [
            "Thin stretches: shown to hold less than a quarter of the target's items",
            fmt(rec.get("thin_width")) if thin else "none",
            where,
        ],
    ]


def _withheld_cells(rec: dict) -> list[list[str]]:
    """Where the item model does not fit: each coverage figure's row says so, in place of a number."""
    why = "withheld (see Item model above)"
    return [[f"DDM (W1 to {md(rec.get('target') or '–')})", why, ""], ["Max Gap", why, ""], ["Top-5 gap sum", why, ""]]


def _model_based_cells(rec: dict) -> list[list[str]]:
    """The model-based coverage figures (posterior medians under smooth difficulties) and their intervals."""
    based = " (model-based: smooth difficulties assumed)" if rec.get("detection_limit") is not None else ""
    if _withheld(rec):
        based = " (model-based; the bounds are withheld, see Item model)"
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
    coverage = _withheld_cells(rec) if _withheld(rec) else _bound_cells(rec) if bounded else _model_based_cells(rec)
    rows = [
        ["Items", str(rec["n_items"]), ""],
        ["Models", str(rec["n_models"]), ""],
        *coverage,
    ]
    top_gap = fmt((rec["top1"] or 0) - (rec["top5"] or 0)) if rec.get("top5") is not None else "–"
    return [
        *rows,
        [
            _decides("The paper's saturation index (sqrt(n) items)", rec, "paper_index"),
            fmt(rec["saturation_index"]),
            _interval(rec, "saturation_index"),
        ],
        ["Band", md(rec.get("band") or "–"), ""],
        [
            "Top tier (models that cannot be told apart from the best)",
            "–" if rec.get("top_tier_size") is None else f"{rec['top_tier_size']} of {rec['n_models']}",
            "",
        ],
        [_decides(_gap_label(rec), rec, "paired", "published_se"), top_gap, _interval(rec, "top_gap")],
        ["Saturation index first reached 0.7", _first_reached(rec), ""],
        ["Best score (s1)", pct(rec["top1"]), ""],
        ["Fifth best (s5)", pct(rec["top5"]), ""],
        ["Top-5 mean", pct(rec["top5_mean"]), ""],
        ["Items solved by at least one model", pct(rec.get("solved_share")), ""],
        ["State", _state(rec), _state_from(rec)],
        ["Flags", _flags(rec, explained=True), ""],
    ]


def _state_from(rec: dict) -> str:
    """What decided the state, in words, with its figure (``benchwatch.metrics.state_evidence``)."""
    words = state_evidence(rec)  # prose in a column of figures: it wraps where the figures do not
    return f'<span class="bw-prose">decided {md(words)}</span>' if words else ""


def _decides(label: str, rec: dict, *bases: str) -> str:
    """A figure's label, marked where it is the one that decided the state."""
    return f"{label} (decides the state)" if rec.get("state_from") in bases else label


def _gap_label(rec: dict) -> str:
    if rec.get("state_from") == "published_se":
        return "Top-1 minus top-5 (95% interval from the published standard errors)"
    return "Top-1 minus top-5 (paired 95% interval)" if rec.get("top_gap_lo") is not None else "Top-1 minus top-5"


def _other_cells(rec: dict) -> list[list[str]]:
    """The estimates that do not decide anything on the page, beside the figures they shadow."""
    rows = _model_based_cells(rec) if rec.get("detection_limit") is not None or _withheld(rec) else []
    if rec.get("ddm_plugin") is not None:
        plugin = f"{fmt(rec['ddm_plugin'])} / {fmt(rec['max_gap_plugin'])}"
        rows.append(["DDM / Max Gap of the fitted positions (plug-in)", plugin, ""])
    rows.append(["Saturation index with the paired item-level SE", fmt(rec.get("saturation_index_paired")), ""])
    return [row for row in rows if row[1] not in EMPTY]


FIGURE_COLUMNS = [("Figure", "l"), ("Value", "r"), ("95% interval, or where", "r")]


def _figure_rows(rec: dict) -> list[list[str]]:
    """The figure table's rows, without the figures a record has no value for (an aggregate board: no coverage)."""
    return [row for row in _figure_cells(rec) if row[1] not in EMPTY]


FIGURE_NAMES = {"ddm": "DDM", "max_gap": "Max Gap", "top5_gap_sum": "top-5 gap sum"}

VERDICT_WORDS = {
    "found": "found",
    "cannot tell": "cannot tell with these models",
    "clear": "clear",
}


def _share(x: float | None) -> str:
    return "–" if x is None else f"{x:.2f}"


def item_model_lines(rec: dict) -> dict:
    """The item model behind a record's bounds, in sentences (values formatted and escaped here; the partial
    ``_item_model.md.j2`` lays them out): the chance floors, the fit check, the path, who answered what, and
    blanks that sit where failures would."""
    out: dict = {}
    if rec.get("chance_nominal") is not None:
        lo, hi = rec.get("floor_effective_lo"), rec.get("floor_effective_hi")
        placed = (rec.get("floor_share_hi") or 1.0) - (rec.get("floor_share_lo") or 0.0) < 0.999
        out["floor"] = (
            f"each item's nominal chance floor is one over its number of options ({md(rec.get('chance_from') or '–')};"
            f" {rec.get('chance_items')} items, mean {fmt(rec['chance_nominal'])}); the data favour "
            f"{_share(rec.get('floor_share'))} of it, an effective floor of {fmt(rec.get('floor_effective'))} "
            f"[{fmt(lo)}, {fmt(hi)}] (95%, profile likelihood over {rec.get('floor_items')} items)"
            + ("" if placed else ": these models cannot place it, and the bounds hold over the whole interval")
            + "; the bounds hold at both ends of that interval"
        )
    elif rec.get("fit_verdict") is not None:  # a checked per-item record without floors: open-ended
        out["floor"] = (
            "none: the items declare no options (open-ended; a chance column, or chance = ... in benchwatch.toml, "
            "declares them)"
        )
    check = rec.get("fit_check") or {}
    if rec.get("fit_verdict") in ("fits", "misfit"):
        said = "the item model fits" if rec["fit_verdict"] == "fits" else "the 1PL does not fit"
        p = "–" if rec.get("fit_p") is None else f"{rec['fit_p']:.3f}"
        out["check"] = (
            f"{said} (p = {p} by a parametric bootstrap of {check.get('replicates', '–')} "
            f"simulated benchmarks; discriminations z = {fmt(check.get('discrimination_z'))}, the weakest models "
            f"on the hardest items z = {fmt(check.get('floor_z'))})"
        )
    if rec.get("item_model") == "2PL":
        out["path"] = (
            "the bounds are a 2PL's: each item's likelihood is integrated over its discrimination, whose log has "
            f"a spread (sd) of {fmt(rec.get('discrimination_spread'))} across the items"
        )
    if _withheld(rec):
        out["withheld"] = md(rec.get("withheld") or "the item model does not fit")
    groups = rec.get("design_groups") or []
    if groups:
        parts = "; ".join(f"{g['items']} items answered by {g['models']} models" for g in groups)
        out["design"] = (
            f"the items form {len(groups)} groups by the models that answered them ({parts}): each group has its "
            "own distribution of difficulty in the bounds, so that items given only to some models are not pulled "
            "towards the others"
        )
    blanks = rec.get("blanks_warning")
    if blanks and not _withheld(rec):  # a withheld record's reason says it already
        shown = ", ".join(md(str(m["model"])) for m in blanks.get("models", [])[:5])
        more = blanks.get("flagged", 0) - min(5, len(blanks.get("models", [])))
        out["blanks"] = (
            f"{blanks.get('flagged', 0)} models leave blank the items they would likely fail ({shown}"
            + (f" and {more} more" if more > 0 else "")
            + f"; z = {fmt(blanks.get('z'))} over {blanks.get('tested')} models): if these blanks are failed or "
            "errored samples, record them as 0. As blanks they raise those models' scores and move every figure "
            "here, and nothing can correct that from the data"
        )
    return out


def _verdict_rows(rec: dict) -> list[list[str]]:
    """One row per verdict: its name, the figures it judged under their own names, the level and the verdict."""
    rows = []
    for key, name in VERDICT_NAMES.items():
        v = (rec.get("verdicts") or {}).get(key)
        if not v:
            continue
        bound = {
            "ddm": f"{fmt(rec.get('ddm_bound_lo'))} – {fmt(rec.get('ddm_bound_hi'))}",
            "max_gap": f"Max Gap's bound: an empty stretch of at most {fmt(rec.get('detection_limit'))}; "
            f"thin stretch (shown to hold too few items): {_thin(rec.get('thin_width'))}",
            "top5_gap_sum": f"top-5 gap sum's bound: {_bound(rec.get('top5_gap_sum_bound_hi'))}; "
            f"five thin stretches in all: {_thin(rec.get('thin_top5'))}",
        }[key]
        need = (rec.get("resolve") or {}).get(key) if v["verdict"] == "cannot tell" else None
        decide = md(resolve_line(key, need).split(": ", 1)[-1]) if need else ""
        rows.append([name, bound, fmt(v["level"]), f"**{VERDICT_WORDS[v['verdict']]}**", decide])
    return rows


def _bound(value: float | None) -> str:
    """An upper bound, or "no bound with these models" where it is null (it would cover the whole axis)."""
    return NO_BOUND if value is None else f"at most {fmt(value)}"


def _thin(value: float | None) -> str:
    return "none shown" if not value else f"{fmt(value)} wide"


VERDICT_COLUMNS = [("Question", "l"), ("Bounds, any difficulty distribution", "l"), ("Level", "r"), ("Verdict", "l")]
VERDICT_COLUMNS.append(("What would decide", "l"))


NUTS_COLUMNS = [("Figure", "l"), ("Published (MAP)", "r"), ("NUTS", "r"), ("NUTS 95% interval", "r")]
NUTS_COLUMNS.append(("NUTS at its positions (plug-in)", "r"))


def nuts_check_lines(rec: dict) -> dict:
    """``--method nuts``: what the NUTS check says (``benchwatch.pipeline.nuts_check``), in a sentence and a table of
    the figures beside the published ones (``_nuts_check.md.j2``); empty without a check."""
    check = rec.get("nuts_check")
    if not check:
        return {}
    said = "converged" if check.get("converged") else "**did not converge**"
    whole = {k: _whole(check.get(k)) for k in ("chains", "draws", "tune", "seconds", "min_ess_bulk", "divergences")}
    return {
        "said": (
            f"The positions, abilities and figures on this page come from the "
            f"{md(rec.get('figures_from') or 'map')} fit (the path the calibration of these figures checks). "
            f"NUTS ({md(str(check.get('sampler')))}, {whole['chains']} chains of {whole['draws']} draws after "
            f"{whole['tune']} tuning steps, {whole['seconds']} s) sampled the same 1PL beside it, under its fixed "
            f"N(0, 3²) priors, and {said} (largest R-hat {fmt(check.get('max_rhat'))}, smallest bulk ESS "
            f"{whole['min_ess_bulk']}, {whole['divergences']} divergences). Pooled over the items the posterior "
            f"cannot tell apart, its posterior means take {check.get('distinct_z')} distinct positions "
            f"({check.get('distinct_z_unpooled')} before pooling: its Monte Carlo error alone splits them); no "
            f"item's position moves more than {fmt(check.get('max_position_shift'))} on z from the published one, "
            f"no model's ability more than {fmt(check.get('max_ability_shift'))} logits. Its figures, from "
            f"{check.get('kept_draws')} of its draws:"
        ),
        "columns": NUTS_COLUMNS,
        "rows": [
            [
                name,
                fmt(check.get(f"{key}_published")),
                fmt(check.get(key)),
                f"[{fmt(check.get(f'{key}_lo'))}, {fmt(check.get(f'{key}_hi'))}]",
                fmt(check.get(f"{key}_plugin")),
            ]
            for key, name in (
                ("ddm", "DDM"),
                ("max_gap", "Max Gap"),
                ("top3_gap_sum", "Top-3 gap sum"),
                ("top5_gap_sum", "Top-5 gap sum"),
            )
        ],
    }


def _section_helpers() -> dict:
    """The helpers of the templates that show a record's figures and verdicts (a page, or an *Also* section)."""
    return {
        **_helpers(),
        "figure_rows": _figure_rows,
        "other_rows": _other_cells,
        "verdict_rows": _verdict_rows,
        "item_model_lines": item_model_lines,
        "nuts_check_lines": nuts_check_lines,
    }


def _section_context() -> dict:
    return {"figure_columns": FIGURE_COLUMNS, "verdict_columns": VERDICT_COLUMNS, "heading": "##"}


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


TIER_ROWS = 15  # models shown before the rest of the tiers table collapses

TIER_COLUMNS = [("Rank by score", "r"), ("Model", "l"), ("Score", "r"), ("95% interval of rank", "r")]
TIER_COLUMNS.append(("Tier", "r"))


def _tier_rows(rec: dict, models: pd.DataFrame | None) -> list[list[str]] | None:
    """Every tiered model, best first, with its tier and rank interval (both from the tiers' tests) and its note
    (few items, or every item alike); None where the record has no tiers."""
    if not rec.get("tier_method") or models is None or "tier" not in models.columns:
        return None
    table = models.dropna(subset=["tier"]).sort_values("score", ascending=False)
    return [
        [
            str(n),
            md(r.model) + (f" ({md(r.note)})" if isinstance(getattr(r, "note", None), str) and r.note else ""),
            pct(_num(r.score)),
            f"{int(r.rank_lo)} – {int(r.rank_hi)}",
            str(int(r.tier)),
        ]
        for n, r in enumerate(table.itertuples(), 1)
    ]


def _with_band(value: float | None, band: object) -> str:
    """A saturation index, its band named on hover."""
    return f'<span title="{attribute(band)} band">{fmt(value)}</span>' if isinstance(band, str) else fmt(value)


TOP_COLUMNS = [("Rank", "r"), ("Model", "l"), ("Score", "r"), ("95% interval", "r")]
BY_DATE_COLUMNS = [("Date", "l"), ("Models", "r"), ("Saturation index", "r"), ("State", "l")]
BY_DATE_COLUMNS += [("Top-1", "r"), ("Top-5", "r"), ("DDM (model-based)", "r"), ("Max Gap (model-based)", "r")]
BY_DATE_COLUMNS += [("Top tier", "r")]
HISTORY_COLUMNS = [("Snapshot", "l"), ("Revision", "l"), ("DDM (model-based)", "r"), ("Max Gap (model-based)", "r")]
HISTORY_COLUMNS += [("Saturation index", "r"), ("State", "l")]
CHANGED = ("models_added", "models_removed", "models_rescored", "items_added", "items_removed", "items_rescored")


def _by_date_rows(by_date: pd.DataFrame | None) -> list[list[str]]:
    """The figures at each model publication date, newest first."""
    if by_date is None or by_date.empty:
        return []
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
    return rows[::-1]


def _history_rows(rec: dict, history: pd.DataFrame) -> list[list[str]]:
    """The benchmark's snapshots in the history, newest first."""
    rows = [
        [
            md(r.snapshot_at),
            _short_revision(r.revision),
            fmt(_num(r.ddm)),
            fmt(_num(r.max_gap)),
            fmt(_num(r.saturation_index)),
            md(r.state),
        ]
        for r in history[history["benchmark"] == rec["benchmark"]].itertuples()
    ]
    return rows[::-1]


def _changes(rec: dict, changes: list[dict] | None) -> list[tuple[str, str, list[tuple[str, list[str]]]]]:
    """The changelog of the benchmark, newest first: (when, what changed in words, the models named)."""
    out = []
    for change in reversed([c for c in (changes or []) if c["benchmark"] == rec["benchmark"]]):
        parts = [f"{change[k]['count']} {k.replace('_', ' ')}" for k in CHANGED if k in change and change[k]["count"]]
        named = [
            (k.replace("_", " "), change[k]["names"])
            for k in ("models_removed", "models_rescored")
            if k in change and change[k]["names"]
        ]
        out.append((change["snapshot_at"], ", ".join(parts) or "no model or item changed", named))
    return out


def _top_rows(rec: dict) -> list[list[str]]:
    return [
        [
            str(i),
            md(m["model"]),
            pct(m["score"]),
            "" if m.get("lo") is None else f"{pct(m['lo'])} – {pct(m.get('hi'))}",
        ]
        for i, m in enumerate(rec["top_models"], 1)
    ]


def _mine(rec: dict, alerts: list[dict]) -> list[dict]:
    """The record's alerts, newest first, each titled as a person reads it (``alert_title``)."""
    return [{**a, "title": alert_title(a, rec)} for a in alerts if a["benchmark"] == rec["benchmark"]][::-1]


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
    return render(
        "benchmark.md.j2",
        _section_helpers(),
        **_section_context(),
        rec=rec,
        page_id=page_id,
        feed=benchmark_feed(page_id),
        title=md(page_name(page_id, [rec])),
        feed_title=page_name(page_id, [rec]),
        left_out=[f"{md(m['model'])} ({md(m['why'])})" for m in rec.get("uninformative") or []],
        # raw HTML is not rewritten by MkDocs: relative to the page's address (benchmarks/SLUG/), not its file
        difficulty_src="../../" + plot_path(rec["benchmark"], "difficulty"),
        difficulty_alt=_difficulty_alt(rec),
        plan_columns=PLAN_COLUMNS,
        plan_rows=_plan_rows(plan),
        tier_columns=TIER_COLUMNS,
        tier_rows=_tier_rows(rec, models),
        tier_shown=TIER_ROWS,
        top_tier=rec.get("top_tier_size") or 0,
        top_columns=TOP_COLUMNS,
        top_rows=_top_rows(rec),
        recent=RECENT_ROWS,
        by_date_columns=BY_DATE_COLUMNS,
        by_date_rows=_by_date_rows(by_date),
        history_columns=HISTORY_COLUMNS,
        history_rows=_history_rows(rec, history),
        changes=_changes(rec, changes),
        slug=safe_slug(rec["benchmark"]),
        alerts=_mine(rec, alerts),
    )


ALERT_KINDS = {"state": "state", "raised": "flag raised", "cleared": "flag cleared", "model": "item model"}


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
    rows = []
    for a in alert_events(alerts):
        rec = records.get(a["benchmark"], a)
        # an id for each alert the line stands for (a folded *watch* is its state's line): the feeds link here
        ids = [alert_anchor(a), *(alert_anchor(x) for x in alerts if _folded_into(x, a))]
        spans = "".join(f'<span id="{i}"></span>' for i in dict.fromkeys(ids))
        title = md(alert_title(a, records.get(a["benchmark"])))
        rows.append([a["raised_at"][:10] + spans, f"[{_name(rec)}]({_page_of(rec)})", md(a["event_kind"]), title])
    return render("alerts.md.j2", _helpers(), any_alerts=bool(alerts), rows=rows)


def _folded_into(alert: dict, event: dict) -> bool:
    """Whether ``alert`` is a *watch* raised that the alerts page shows as ``event``, its move to stagnant."""
    same = (alert["benchmark"], alert.get("revision")) == (event["benchmark"], event.get("revision"))
    folded = alert.get("kind") == "raised" and alert.get("flag") == "watch"
    return same and folded and event.get("kind") == "state" and event.get("to") == "stagnant"


def also_section(rec: dict, history: pd.DataFrame, alerts: list[dict]) -> str:
    """Another record of the same benchmark id: a board of published scores, or a second per-item fit."""
    snapshots = int((history["benchmark"] == rec["benchmark"]).sum())
    return render(
        "also.md.j2", _section_helpers(), **_section_context(), rec=rec, alerts=_mine(rec, alerts), snapshots=snapshots
    )


def _proposal_bound_rows(proposal: dict) -> list[list[str]]:
    """The bounds and verdicts before and after the accepted candidates (the audit's own computation)."""
    before, after = proposal.get("bounds_before"), proposal.get("bounds_after")
    if not before or not after:
        return []
    rows = []
    for key, label, fields in (
        ("ddm", "DDM bounds", ("ddm_bound_lo", "ddm_bound_hi")),
        ("max_gap", "Coverage hole: Max Gap's bound; thin stretch", ("detection_limit", "thin_width")),
        ("top5_gap_sum", "Five coverage holes: top-5 bound; thin in all", ("top5_gap_sum_bound_hi", "thin_top5")),
    ):
        cells = [
            "; ".join(NO_BOUND if b.get(f) is None else fmt(b[f]) for f in fields) + f" ({b['verdicts'].get(key, '–')})"
            for b in (before, after)
        ]
        rows.append([label, *cells])
    return rows


def proposal_section(proposal: dict, rec: dict) -> str:
    """A proposed revision (``benchwatch fill check --record``): the figures after adding the accepted
    candidates, next to the current ones; never part of the benchmark's history."""
    model_rows = [
        [
            label,
            *(
                f"{fmt(proposal[k][key]['value'])} ({fmt(proposal[k][key]['lo'])} – {fmt(proposal[k][key]['hi'])})"
                for k in ("before", "after")
            ),
        ]
        for key, label in (("ddm", "DDM"), ("max_gap", "Max Gap"), ("top5_gap_sum", "Top-5 gap sum"))
    ]
    return render(
        "proposal.md.j2",
        _helpers(),
        proposal=proposal,
        rec=rec,
        bound_rows=_proposal_bound_rows(proposal),
        model_rows=model_rows,
    )
