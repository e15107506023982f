"""What a source yields: raw per-item rows and/or aggregate rows, with provenance.

An item's chance floor (``chance``: one over its number of options, what a model that guesses uniformly gets
right) rides in an optional seventh column of the long rows, written only by adapters whose upstream format
carries the options, and only when some row has one: a table without floors keeps the six columns it always
had. ``SourceTable.chance_from`` says in words where the floors came from. ``configured_chance`` gives the
floor ``benchwatch.toml`` sets for a benchmark or a source, for the items whose data carry none.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import pandas as pd

LONG_COLUMNS = ["benchmark", "model", "item_id", "score", "date", "trials"]
REQUIRED_COLUMNS = ("benchmark", "model", "item_id", "score")  # of a long table; the others are optional
KEY = ["benchmark", "model", "item_id"]  # one row per key
AGGREGATE_COLUMNS = ["benchmark", "model", "score", "n_items", "date"]
CHANCE = "chance"


@dataclass(frozen=True)
class SourceTable:
    """Raw rows fetched from one source, not yet validated."""

    name: str
    location: str
    frame: pd.DataFrame  # per-item long rows (may be empty)
    synthetic: bool = False
    aggregates: pd.DataFrame | None = None  # benchmark, model, score (proportion), n_items, date
    provenance: dict = field(default_factory=dict)
    excluded: tuple[dict, ...] = ()  # {benchmark, model, reason}
    notes: tuple[str, ...] = ()  # what the run log should say about this source (unknown boards, ...)
    gone: tuple[str, ...] = ()  # configured or known benchmarks that the upstream no longer has
    pages: dict[str, str] = field(default_factory=dict)  # benchmark -> the benchmark id whose page shows it
    # benchmark -> the sentence naming an upstream rescoring (its checker changed: scores moved, not progress), for
    # the changelog and the alerts
    rescored: dict[str, str] = field(default_factory=dict)
    # Every download answered as in the last published run: there is nothing new to read (frame left empty).
    unchanged: bool = False
    # A cap held some of the source's files back for later runs: never taken as unchanged until they are read.
    more: bool = False
    reload: Callable[[], SourceTable] | None = None  # read it all the same (when the last records cannot be kept)
    published: Callable[[], None] | None = None  # to call once the reports that hold this table are committed
    # Where the frame's ``chance`` floors came from, in the words a page shows; None when it has none.
    chance_from: str | None = None


def empty_long() -> pd.DataFrame:
    """A per-item table with no rows."""
    import pandas as pd

    return pd.DataFrame({c: pd.Series(dtype=str) for c in LONG_COLUMNS})


def long_columns(frame: pd.DataFrame) -> list[str]:
    """The long table's columns, with ``chance`` after them when the frame has it (``frame[LONG_COLUMNS]``
    would drop a user's floors)."""
    return [*LONG_COLUMNS, CHANCE] if CHANCE in frame.columns else list(LONG_COLUMNS)


def chance_of(options: int | None) -> float | None:
    """One over a number of options; None for fewer than two (no choice to guess among)."""
    return 1.0 / options if isinstance(options, int) and not isinstance(options, bool) and options >= 2 else None


def with_chance(frame: pd.DataFrame, floors: pd.Series, words: str | None) -> tuple[pd.DataFrame, str | None]:
    """The frame with a text ``chance`` column made from ``floors`` (floats aligned with its rows, NaN where a
    row gives none), and ``words`` for ``SourceTable.chance_from``; the frame unchanged, and None, when no row
    gives one. Every row of an item (benchmark, item_id) gets the item's one floor, the smallest any of its
    rows gives (its largest number of options), so that files which disagree about a question never give its
    rows different floors (``validate_responses`` refuses those)."""
    import pandas as pd

    floors = pd.to_numeric(pd.Series(floors, index=frame.index), errors="coerce")
    if floors.isna().all():
        return frame, None
    keys = [frame["benchmark"].astype(str), frame["item_id"].astype(str)]
    item = floors.groupby(keys, sort=False).transform("min")
    text = item.map({v: repr(float(v)) for v in item.dropna().unique()}).fillna("")
    return frame.assign(**{CHANCE: text}), words


class _Book(Protocol):
    def chance_for(self, benchmark: str) -> float | None: ...


def configured_chance(
    source_options: dict, book: _Book | None, benchmark: str, config: str = "benchwatch.toml"
) -> tuple[float, str] | None:
    """The chance floor ``benchwatch.toml`` sets for a benchmark's items, and the words a page shows for it:
    ``[rules.benchmarks."NAME"] chance`` (``book.chance_for``) wins over the source's ``[sources.NAME] chance``
    (``source_options``: the source's options, as ``load_config`` checked them); None when neither sets one.
    Floors the data carry win over both (the caller's rule)."""
    value = book.chance_for(benchmark) if book is not None else None
    scope = "this benchmark"
    if value is None:
        value, scope = (source_options or {}).get(CHANCE), "this source"
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= value < 1.0:
        raise ValueError(f"chance must be a number in [0, 1), not {value!r}")  # load_config checked it
    return float(value), f"configured: chance = {float(value):g} for {scope} in {config}"


def missing_columns(missing: list[str], found: list[str]) -> str:
    """The error for a table without some required columns: what is missing, what was found, and the likely
    cause where one shows (names in another case, or a file separated by something other than commas)."""
    text = f"missing required column(s) {', '.join(missing)}; found {', '.join(found) or 'none'}"
    by_case = {f.strip().lower(): f for f in found}
    renames = [f"{by_case[m]} to {m}" for m in missing if m in by_case]
    if renames:
        return text + f" (column names are lower case: rename {', '.join(renames)})"
    for mark, name in ((";", "semicolons"), ("\t", "tabs"), ("|", "bars")):
        if any(mark in f for f in found):
            return text + f" (the header looks separated by {name}: the file must be comma-separated CSV)"
    return text
