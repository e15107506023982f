"""The bundled synthetic sample universe, as a source like any other."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from bot.sources.sample_universe import SAMPLE_FILE


@dataclass(frozen=True)
class SourceTable:
    """Raw rows fetched from one source, not yet validated."""

    name: str
    location: str
    frame: pd.DataFrame
    synthetic: bool = False


def fetch_sample() -> SourceTable:
    """Read the shipped sample file as raw text columns."""
    frame = pd.read_csv(SAMPLE_FILE, dtype=str, keep_default_na=False, na_values=[])
    return SourceTable(name="sample", location="bundled synthetic sample", frame=frame, synthetic=True)
