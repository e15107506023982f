"""A record's figures and verdicts, one row per claim (the bounds, or the model-based figures where
there are none), for a benchmark's page and its *Also* sections.

The pages are rendered from the records in ``reports/`` through the templates of
``bot/benchwatch/site/templates/`` (``benchwatch.site.render``): the page modules prepare the values and
format the cells (every upstream string escaped), the templates lay out the Markdown."""

from __future__ import annotations

from benchwatch.metrics import state_evidence
from benchwatch.record import BenchmarkRecord
from benchwatch.rules import resolve_line
from benchwatch.site.cells import bounds_withheld, flags_cell, helpers, state_cell
from benchwatch.site.escape import md
from benchwatch.site.fit_notes import item_model_lines, nuts_check_lines
from benchwatch.site.numbers import fmt, pct
from benchwatch.site.render import EMPTY
from benchwatch.vocabulary import FIGURES, NO_BOUND, VERDICTS, as_bound


def _interval(lo: float | None, hi: float | None) -> str:
    """A 95% interval, or an en dash without one."""
    return "–" if lo is None or hi is None else f"{fmt(lo)} – {fmt(hi)}"


def _first_reached(rec: BenchmarkRecord) -> str:
    first = rec.first_saturated_date
    if not first:
        return "not yet"
    fell = rec.fell_back_date
    return f"{md(first)}, no longer saturated on {md(fell)}" if fell else f"{md(first)}, and saturated since"


def _bound_cells(rec: BenchmarkRecord) -> list[list[str]]:
    """The bounds that hold for any difficulty distribution (``benchwatch.metrics.bounds``)."""
    if rec.detection_limit is None:
        return []
    thin = rec.thin_stretches or []
    where = ", ".join(f"{fmt(lo)} – {fmt(hi)}" for lo, hi in thin)
    lo, hi = rec.detection_stretch or (None, None)
    return [
        [
            f"DDM (W1 to {md(rec.target or '–')}): bounds",
            f"{fmt(rec.ddm_bound_lo)} – {fmt(rec.ddm_bound_hi)}",
            "",
        ],
        [
            "Max Gap's bound: an empty stretch of at most (the widest these models cannot rule out as empty)",
            NO_BOUND if as_bound(rec.detection_limit) is None else fmt(rec.detection_limit),
            "" if lo is None else f"widest at {fmt(lo)} – {fmt(hi)}",
        ],
        ["Top-5 gap sum's bound: five empty stretches in all", _bound(rec.top5_gap_sum_bound_hi), ""],
        [
            "Thin stretches: shown to hold less than a quarter of the target's items",
            fmt(rec.thin_width) if thin else "none",
            where,
        ],
    ]


def _withheld_cells(rec: BenchmarkRecord) -> list[list[str]]:
    """Where the item model does not fit: each coverage figure's row says so, in place of a number."""
    why = "withheld (see Item model above)"
    return [[f"DDM (W1 to {md(rec.target or '–')})", why, ""], ["Max Gap", why, ""], ["Top-5 gap sum", why, ""]]


def _model_based_cells(rec: BenchmarkRecord) -> list[list[str]]:
    """The model-based coverage figures (posterior medians under smooth difficulties) and their intervals."""
    based = " (model-based: smooth difficulties assumed)" if rec.detection_limit is not None else ""
    if bounds_withheld(rec):
        based = " (model-based; the bounds are withheld, see Item model)"
    ddm = _interval(rec.ddm_lo, rec.ddm_hi)
    lo, hi = rec.ddm_bound_lo, rec.ddm_bound_hi
    if rec.ddm is not None and lo is not None and hi is not None and not lo - 1e-9 <= rec.ddm <= hi + 1e-9:
        # the model-based figure outside what holds for any distribution: its smooth prior, not the data, put it there
        ddm += f' <span class="bw-prose">outside the bounds {fmt(lo)}-{fmt(hi)}: read the bounds</span>'
    return [
        [f"DDM{based}", fmt(rec.ddm), ddm],
        [f"Max Gap{based}", fmt(rec.max_gap), _interval(rec.max_gap_lo, rec.max_gap_hi)],
        [f"Top-3 gap sum{based}", fmt(rec.top3_gap_sum), _interval(rec.top3_gap_sum_lo, rec.top3_gap_sum_hi)],
        [f"Top-5 gap sum{based}", fmt(rec.top5_gap_sum), _interval(rec.top5_gap_sum_lo, rec.top5_gap_sum_hi)],
    ]


def _figure_cells(rec: BenchmarkRecord) -> list[list[str]]:
    """The figures of a record, one per claim: name, value, interval (or where). Where the bounds exist they are
    the coverage figures (they hold for any difficulty distribution); the other estimates are in
    ``_other_cells``."""
    bounded = rec.detection_limit is not None
    coverage = (
        _withheld_cells(rec) if bounds_withheld(rec) else _bound_cells(rec) if bounded else _model_based_cells(rec)
    )
    rows = [
        ["Items", str(rec.n_items), ""],
        ["Models", str(rec.n_models), ""],
        *coverage,
    ]
    top_gap = fmt((rec.top1 or 0) - (rec.top5 or 0)) if rec.top5 is not None else "–"
    return [
        *rows,
        [
            _decides("The paper's saturation index (sqrt(n) items)", rec, "paper_index"),
            fmt(rec.saturation_index),
            _interval(rec.saturation_index_lo, rec.saturation_index_hi),
        ],
        ["Band", md(rec.band or "–"), ""],
        [
            _decides("Top tier (models that cannot be told apart from the best)", rec, "tiers"),
            "–" if rec.top_tier_size is None else f"{rec.top_tier_size} of {rec.n_models}",
            "",
        ],
        [_decides(_gap_label(rec), rec, "paired", "published_se"), top_gap, _interval(rec.top_gap_lo, rec.top_gap_hi)],
        ["First saturated (by date)", _first_reached(rec), ""],
        ["Best score (s1)", pct(rec.top1), ""],
        ["Fifth best (s5)", pct(rec.top5), ""],
        ["Top-5 mean", pct(rec.top5_mean), ""],
        ["Items solved by at least one model", pct(rec.solved_share), ""],
        ["State", state_cell(rec), _state_from(rec)],
        ["Flags", flags_cell(rec, explained=True), ""],
    ]


def _stretch(value: float | None) -> str:
    """Max Gap's bound in words: an empty stretch of at most so wide, or no bound over (nearly) the whole axis."""
    value = as_bound(value)
    return NO_BOUND if value is None else f"an empty stretch of at most {fmt(value)}"


def _state_from(rec: BenchmarkRecord) -> str:
    """What decided the state, in words, with its figure (``benchwatch.metrics.state_evidence``, which reads the
    record as written)."""
    words = state_evidence(rec.model_dump(exclude_unset=True))
    # prose in a column of figures: it wraps where the figures do not
    return f'<span class="bw-prose">decided {md(words)}</span>' if words else ""


def _decides(label: str, rec: BenchmarkRecord, *bases: str) -> str:
    """A figure's label, marked where it is the one that decided the state."""
    return f"{label} (decides the state)" if rec.state_from in bases else label


def _gap_label(rec: BenchmarkRecord) -> str:
    if rec.state_from == "published_se":
        return "Top-1 minus top-5 (95% interval from the published standard errors)"
    return "Top-1 minus top-5 (paired 95% interval)" if rec.top_gap_lo is not None else "Top-1 minus top-5"


def _other_cells(rec: BenchmarkRecord) -> list[list[str]]:
    """The estimates that do not decide anything on the page, beside the figures they shadow."""
    rows = _model_based_cells(rec) if rec.detection_limit is not None or bounds_withheld(rec) else []
    if rec.ddm_plugin is not None:
        plugin = f"{fmt(rec.ddm_plugin)} / {fmt(rec.max_gap_plugin)}"
        rows.append(["DDM / Max Gap of the fitted positions (plug-in)", plugin, ""])
    rows.append(["Saturation index with the paired item-level SE", fmt(rec.saturation_index_paired), ""])
    return [row for row in rows if row[1] not in EMPTY]


FIGURE_COLUMNS = [("Figure", "l"), ("Value", "r"), ("95% interval, or where", "r")]


def _figure_rows(rec: BenchmarkRecord) -> list[list[str]]:
    """The figure table's rows, without the figures a record has no value for (an aggregate board: no coverage)."""
    return [row for row in _figure_cells(rec) if row[1] not in EMPTY]


def _verdict_rows(rec: BenchmarkRecord) -> list[list[str]]:
    """One row per verdict: its name, the figures it judged under their own names, the level and the verdict."""
    rows = []
    for key, figure in FIGURES.items():
        v = (rec.verdicts or {}).get(key)
        if not v:
            continue
        bound = {
            "ddm": f"{fmt(rec.ddm_bound_lo)} – {fmt(rec.ddm_bound_hi)}",
            "max_gap": f"Max Gap's bound: {_stretch(rec.detection_limit)}; "
            f"thin stretch (shown to hold too few items): {_thin(rec.thin_width)}",
            "top5_gap_sum": f"top-5 gap sum's bound: {_bound(rec.top5_gap_sum_bound_hi)}; "
            f"five thin stretches in all: {_thin(rec.thin_top5)}",
        }[key]
        need = (rec.resolve or {}).get(key) if v["verdict"] == "cannot tell" else None
        decide = md(resolve_line(key, need).split(": ", 1)[-1]) if need else ""
        rows.append([figure.verdict, bound, fmt(v["level"]), f"**{VERDICTS[v['verdict']].words}**", decide])
    return rows


def _bound(value: float | None) -> str:
    """An upper bound, or "no bound with these models" where it is null (it would cover the whole axis)."""
    value = as_bound(value)
    return NO_BOUND if value is None else f"at most {fmt(value)}"


def _thin(value: float | None) -> str:
    return "none shown" if not value else f"{fmt(value)} wide"


VERDICT_COLUMNS = [("Question", "l"), ("Bounds, any difficulty distribution", "l"), ("Level", "r"), ("Verdict", "l")]


VERDICT_COLUMNS.append(("What would decide", "l"))


def section_helpers() -> dict:
    """The helpers of the templates that show a record's figures and verdicts (a page, or an *Also* section)."""
    return {
        **helpers(),
        "figure_rows": _figure_rows,
        "other_rows": _other_cells,
        "verdict_rows": _verdict_rows,
        "item_model_lines": item_model_lines,
        "nuts_check_lines": nuts_check_lines,
    }


def section_context() -> dict:
    return {"figure_columns": FIGURE_COLUMNS, "verdict_columns": VERDICT_COLUMNS, "heading": "##"}
