"""The home page (``index.md.j2``): one row per benchmark, most severe first, the summary picture's points,
the latest alerts and the sources.

The pages are rendered from the records in ``reports/`` through the templates of
``bot/benchwatch/site/templates/`` (``benchwatch.site.render``): the page modules prepare the values and
format the cells (every upstream string escaped), the templates lay out the Markdown."""

from __future__ import annotations

from benchwatch.history import Alert, SourceStatus
from benchwatch.record import BenchmarkRecord
from benchwatch.site.cells import (
    WITHHELD_CELL,
    bounds_withheld,
    by_severity,
    flags_cell,
    helpers,
    name_cell,
    state_cell,
    with_band,
)
from benchwatch.site.escape import attribute, md, printable
from benchwatch.site.names import alert_anchor, alert_title, shown_name
from benchwatch.site.numbers import fmt
from benchwatch.site.paths import page_of
from benchwatch.site.render import render
from benchwatch.site.sources_table import sources_context
from benchwatch.site.summary_plot import SummaryPoint
from benchwatch.site.verdict import verdict_line
from benchwatch.vocabulary import FIGURES, NO_BOUND, STATE_RULE, as_bound


def _source(rec: BenchmarkRecord) -> str:
    """A record's source, its origin (what the data is, exactly) on hover."""
    source = md(rec.source_name or rec.source)
    source = source.replace("\\_", "\\_<wbr>")  # a long id may break after its underscores in a narrow column
    origin = printable(rec.origin or "")
    if rec.synthetic:
        origin = "synthetic: " + (origin or "bundled sample universe")
    return f'<span title="{attribute(origin)}">{source}</span>' if origin else source


SUMMARY_PLOT = "plots/summary.svg"
SUMMARY_PLOT_NARROW = "plots/summary-narrow.svg"  # the same picture drawn for a phone's width (issue 60)


SUMMARY_ALT = (
    "Every benchmark at the number of models in its best's tier (across, log scale; five or more: its top five "
    "cannot be told apart) and its DDM (up), coloured by state; "
    "aggregate-only boards on the strip below. Each point links to its page."
)


def summary_points(records: dict[str, BenchmarkRecord]) -> list[SummaryPoint]:
    """The points of the home page's summary picture, each with its page's address relative to the picture."""
    return [
        SummaryPoint(
            name=shown_name(rec),  # the name every page shows (issue 40)
            url="../" + page_of(rec).removesuffix(".md") + "/",
            top_tier_size=rec.top_tier_size,
            ddm=None if bounds_withheld(rec) else rec.ddm,  # withheld: on the strip of no coverage figure
            state=rec.state,
        )
        for rec in by_severity(records)
    ]


def _notice_mark(rec: BenchmarkRecord) -> str:
    if rec.gone_since:
        return f" **gone upstream since {md(rec.gone_since[:10])}**"
    if rec.notice:
        return " **(last good data: see page)**"
    return ""


def _top_tier(rec: BenchmarkRecord) -> str:
    """The top tier's size on the home page, its members named on hover."""
    k = rec.top_tier_size
    if k is None:
        return "–"
    members = ", ".join(printable(m) for m in rec.top_tier or [])
    return f'<span title="{attribute(members)}">{k} of {rec.n_models}</span>'


def _home_ddm(rec: BenchmarkRecord) -> str:
    """DDM on the home page: its bounds where it has them (the model-based estimate otherwise)."""
    if bounds_withheld(rec):
        return WITHHELD_CELL
    if rec.ddm_bound_lo is not None:
        return f"{fmt(rec.ddm_bound_lo)} – {fmt(rec.ddm_bound_hi)}"
    return fmt(rec.ddm)


def _home_gap(rec: BenchmarkRecord) -> str:
    """Max Gap on the home page: at most the detection limit where there are bounds."""
    if bounds_withheld(rec):
        return WITHHELD_CELL
    if rec.detection_limit is not None:
        bound = as_bound(rec.detection_limit)
        return f'<span title="{NO_BOUND}">no bound</span>' if bound is None else f"≤ {fmt(bound)}"
    return fmt(rec.max_gap)


def _coverage_verdict(rec: BenchmarkRecord) -> str:
    """The coverage verdicts in a few words: what was found, what cannot be told, or clear."""
    v = {k: (x or {}).get("verdict") for k, x in (rec.verdicts or {}).items()}
    if bounds_withheld(rec):
        return "withheld (its page says why)"
    if not v:
        return "–"
    found = [f.verdict for k, f in FIGURES.items() if v.get(k) == "found"]
    unsure = [f.verdict for k, f in FIGURES.items() if v.get(k) == "cannot tell"]
    if found:
        return "found: " + ", ".join(found)
    if unsure:
        return "cannot tell: " + ", ".join(unsure)
    return "clear"


HOME_COLUMNS = [("Benchmark", "l"), ("Source", "l"), ("Items", "r"), ("Models", "r"), ("DDM", "r")]


HOME_COLUMNS += [("Max Gap", "r"), ("Coverage", "l"), ("Saturation index", "r"), ("Top tier", "r"), ("State", "l")]


HOME_COLUMNS += [("Flags", "l"), ("Verdict", "l")]


def _home_row(rec: BenchmarkRecord) -> list[str]:
    return [
        f"[{name_cell(rec)}]({page_of(rec)})" + _notice_mark(rec),
        _source(rec),
        str(rec.n_items),
        str(rec.n_models),
        _home_ddm(rec),
        _home_gap(rec),
        _coverage_verdict(rec),
        with_band(rec.saturation_index, rec.band),
        _top_tier(rec),
        state_cell(rec),
        flags_cell(rec),
        f'<span class="bw-prose bw-row-verdict">{verdict_line(rec)}</span>',  # its answer in a line (issue 60)
    ]


def _why(rec: BenchmarkRecord) -> str:
    why = rec.why
    return "; ".join(md(w) for w in why) if why else "–"


def index_page(
    records: dict[str, BenchmarkRecord],
    alerts: list[Alert],
    sources: dict[str, SourceStatus] | None = None,
    now: str | None = None,
) -> str:
    """The home page: one row per benchmark, most severe first."""
    synthetic = [bool(r.synthetic) for r in records.values()]
    latest = sorted(alerts, key=lambda a: (a.raised_at, a.id), reverse=True)[:5]
    return render(
        "index.md.j2",
        {**helpers(), "page_of": page_of, "why": _why},
        synthetic="all" if synthetic and all(synthetic) else "some" if any(synthetic) else "none",
        summary_plot=SUMMARY_PLOT,
        summary_plot_narrow=SUMMARY_PLOT_NARROW,
        summary_alt=SUMMARY_ALT,
        state_rule=STATE_RULE,
        columns=HOME_COLUMNS,
        rows=[_home_row(rec) for rec in by_severity(records)],
        records=by_severity(records),
        latest_alerts=[
            (a.model_copy(update={"title": alert_title(a, records.get(a.benchmark))}), "alerts.md#" + alert_anchor(a))
            for a in latest
        ],
        **sources_context(sources or {}, now),
    )
