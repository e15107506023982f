"""Local sources: the bundled synthetic sample universe and long-format CSV files."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from bot.errors import InputError
from bot.sources.table import SourceTable

if TYPE_CHECKING:
    import pandas as pd


def _readable(path: Path) -> None:
    """A path that names no readable file is an error before any library loads (it answers at once)."""
    if path.is_dir():
        raise InputError(str(path), "is a folder; give a CSV file")
    if not path.exists():
        raise InputError(str(path), "no such file")
    if path.stat().st_size == 0:
        raise InputError(str(path), "the file is empty")


def read_csv_text(path: str | Path) -> pd.DataFrame:
    """Read a local CSV with every column as text (validation is the store's job)."""
    path = Path(path)
    _readable(path)
    import pandas as pd

    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[])
    except FileNotFoundError:
        raise InputError(str(path), "no such file") from None
    except pd.errors.EmptyDataError:
        raise InputError(str(path), "the file is empty") from None
    except (pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise InputError(str(path), f"not a readable CSV file: {exc}") from None
    return frame


def fetch_csv_file(path: str | Path) -> SourceTable:
    """Read a local long-format CSV (``benchmark`` defaults to the file's stem)."""
    path = Path(path)
    frame = read_csv_text(path)
    if "benchmark" not in frame.columns:
        frame.insert(0, "benchmark", path.stem)
    return SourceTable(name=path.name, location=str(path), frame=frame)


def fetch_sample() -> SourceTable:
    """Read the shipped sample file as raw text columns."""
    import pandas as pd

    from bot.sources.sample_universe import SAMPLE_FILE

    frame = pd.read_csv(SAMPLE_FILE, dtype=str, keep_default_na=False, na_values=[])
    return SourceTable(name="sample", location="bundled synthetic sample", frame=frame, synthetic=True)
