"""What a source yields: raw per-item rows and/or aggregate rows, with provenance."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

LONG_COLUMNS = ["benchmark", "model", "item_id", "score", "date", "trials"]
AGGREGATE_COLUMNS = ["benchmark", "model", "score", "n_items", "date"]


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
    # Every download answered as in the last published run: there is nothing new to read (frame left empty).
    unchanged: bool = False
    # A cap held some of the source's files back for later runs: never taken as unchanged until they are read.
    more: bool = False
    reload: Callable[[], SourceTable] | None = None  # read it all the same (when the last records cannot be kept)
    published: Callable[[], None] | None = None  # to call once the reports that hold this table are committed


def empty_long() -> pd.DataFrame:
    """A per-item table with no rows."""
    import pandas as pd

    return pd.DataFrame({c: pd.Series(dtype=str) for c in LONG_COLUMNS})
