"""What the fill stage reads of one benchmark from the reports folder: its record, items and abilities."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from benchwatch.errors import InputError
from benchwatch.history import Reports, load_latest, load_snapshot, load_table
from benchwatch.record import BenchmarkRecord


@dataclass(frozen=True)
class Benchmark:
    """A per-item benchmark as its last audit left it."""

    record: BenchmarkRecord  # its figures (latest.json)
    items: pd.DataFrame  # item_id, b, b_sd, z
    models: pd.DataFrame  # model, theta, theta_sd, ..., theta_axis (the abilities behind the bounds)
    responses: pd.DataFrame | None = None  # the snapshot the audit read (None where the reports lack it)

    @property
    def theta(self) -> pd.Series:
        """The fitted abilities: a model that answered every item right (or every item wrong) has none (the fit
        leaves it out, its ability unbounded) and is not here; a solve probability at a target is read for the
        others (with it, every one read NaN)."""
        theta = self.models.set_index("model")["theta"].astype(float)
        return theta[np.isfinite(theta)]


def load_benchmark(reports_dir: str | Path, name: str) -> Benchmark:
    """The benchmark ``name`` of a reports folder; an aggregate board or an unknown name is an error."""
    reports = Reports(Path(reports_dir))
    records = load_latest(reports)
    rec = records.get(name)
    if rec is None and not records:
        raise InputError(str(reports.root), "no audited benchmark here: run `benchwatch run` (or --reports DIR)")
    if rec is None:
        near = sorted(records, key=lambda n: (name.lower() not in n.lower(), n))[:5]
        raise InputError(str(reports.root), f"no benchmark {name!r}; some there are: {', '.join(near)}")
    if rec.kind == "aggregate" or rec.method is None:
        raise InputError(str(reports.root), f"{name!r} has no per-item data: there are no difficulties to fill")
    items, models = load_table(reports.items(name)), load_table(reports.models(name))
    if items is None or models is None or "theta" not in models.columns:
        raise InputError(str(reports.root), f"{name!r}: its items or abilities are missing; rerun the audit")
    return Benchmark(rec, items, models, load_snapshot(reports, name))
