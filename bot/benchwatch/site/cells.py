"""The cells the site's pages share, formatted and escaped (a record's name, badges, flags, state, a short
revision, a CSV cell as a number), and the helpers every template calls."""

from __future__ import annotations

from typing import SupportsFloat, SupportsIndex

from benchwatch.record import BenchmarkRecord
from benchwatch.site.escape import attribute, md, printable
from benchwatch.site.names import shown_name
from benchwatch.site.numbers import fmt
from benchwatch.site.paths import plot_path
from benchwatch.vocabulary import FLAG_NAMES, FLAGS, STATES, reason

SEVERITY = {state.name: state.severity for state in STATES.values()}  # 0 the most severe


def name_cell(rec: BenchmarkRecord) -> str:
    """A record's name as every page shows it, escaped."""
    return md(shown_name(rec))


def badge_span(kind: str, value: str, known: tuple[str, ...], title: str | None = None) -> str:
    """A coloured badge; only values from benchwatch's own vocabulary ever become a CSS class."""
    cls = value if value in known else "other"
    hover = f' title="{attribute(title)}"' if title else ""
    return f'<span class="bw-badge bw-{kind}-{cls}"{hover}>{md(value)}</span>'


def flag_reason(rec: BenchmarkRecord, flag: str) -> str:
    """The one line that says why a benchmark has ``flag`` (its record's ``why``), or the flag's definition."""
    found = reason(rec.why, flag)
    if found is not None:
        return found
    return FLAGS[flag].meaning if flag in FLAGS else ""


def flags_cell(rec: BenchmarkRecord, explained: bool = False) -> str:
    """The flags as badges, each with the line that says why: on hover, or written beside it (``explained``)."""
    flags = rec.flags or []
    if not flags:
        return "–"
    if explained:
        return "<br>".join(f"{badge_span('flag', f, FLAG_NAMES)} {md(flag_reason(rec, f))}" for f in flags)
    return " ".join(badge_span("flag", f, FLAG_NAMES, flag_reason(rec, f)) for f in flags)


def state_cell(rec: BenchmarkRecord) -> str:
    """The state's badge; its severity is the key the home table sorts the column by (most severe first)."""
    badge = badge_span("state", rec.state, tuple(STATES))
    return badge.replace("<span ", f'<span data-sort="{SEVERITY.get(rec.state, 9)}" ', 1)


def by_severity(records: dict[str, BenchmarkRecord]) -> list[BenchmarkRecord]:
    """The records, most severe state first, then most flags, then by name."""
    return sorted(records.values(), key=lambda r: (SEVERITY.get(r.state, 9), -len(r.flags or []), r.benchmark))


def origin_cell(rec: BenchmarkRecord) -> str:
    """Where a record's data came from: its source and, for bundled or live data, the origin it names."""
    source = md(rec.source_name or rec.source)
    if rec.synthetic:
        return f"{source} (synthetic)"
    origin = rec.origin
    return f"{source}: {md(origin)}" if origin else source


def short_revision(revision: object) -> str:
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


def helpers() -> dict:
    """The functions the templates call (each formats a value of a record; none lays out Markdown)."""
    return {"name": name_cell, "origin": origin_cell, "plot_path": plot_path}


WITHHELD_CELL = '<span title="the bounds are withheld: the benchmark\'s page says why">withheld</span>'


def bounds_withheld(rec: BenchmarkRecord) -> bool:
    """Whether the record's bounds are withheld: its item model does not fit (``benchwatch.irt.item_model.model``)."""
    return rec.item_model == "withheld"


def csv_float(value: str | SupportsFloat | SupportsIndex | None) -> float | None:
    """A CSV cell as a float, or None when it is empty."""
    if value is None:
        return None
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return None if out != out else out


def csv_count(value: str | SupportsFloat | SupportsIndex | None) -> str:
    """A count from a CSV cell, or an en dash."""
    number = csv_float(value)
    return "–" if number is None else str(int(number))


def with_band(value: float | None, band: object) -> str:
    """A saturation index, its band named on hover."""
    return f'<span title="{attribute(band)} band">{fmt(value)}</span>' if isinstance(band, str) else fmt(value)
