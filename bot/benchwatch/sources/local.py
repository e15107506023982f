"""Local sources: the bundled synthetic sample universe and long-format CSV files."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from benchwatch.errors import InputError
from benchwatch.sources.table import CHANCE, SourceTable
from benchwatch.words import count

if TYPE_CHECKING:
    import pandas as pd

SAMPLE_FILE = Path(__file__).parent / "data" / "sample_universe.csv.gz"  # benchwatch.sources.sample_universe writes it
CHANCE_FROM = "a chance column in the file"


def file_chance(frame: pd.DataFrame) -> str | None:
    """``chance_from`` for a table read as the user wrote it: the file's words when some row gives a floor."""
    if CHANCE not in frame.columns:
        return None
    import pandas as pd

    given = pd.Series(frame[CHANCE].unique(), dtype=object).astype(str).str.strip()  # each distinct value once
    return CHANCE_FROM if given.ne("").any() else None


def _readable(path: Path) -> None:
    """A path that names no readable file is an error before any library loads (it answers at once)."""
    if path.is_dir():
        raise InputError(str(path), "is a folder; give a CSV file")
    if not path.exists():
        raise InputError(str(path), "no such file")
    if path.stat().st_size == 0:
        raise InputError(str(path), "the file is empty")


def read_csv_text(path: str | Path, coded: bool = False) -> pd.DataFrame:
    """Read a local CSV with every column as text (validation is the store's job); ``coded``: as categories of
    that text (each row a code into the column's distinct values, each value held once: a file of millions of
    responses names few distinct models, items and scores)."""
    path = Path(path)
    _readable(path)
    _not_a_table(path)
    import pandas as pd

    try:
        frame = _read_coded(path) if coded else pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[])
    except FileNotFoundError:
        raise InputError(str(path), "no such file") from None
    except pd.errors.EmptyDataError:
        raise InputError(str(path), "the file is empty") from None
    except UnicodeDecodeError:
        raise not_utf8(path) from None
    except pd.errors.ParserError as exc:
        raise InputError(str(path), f"not a readable CSV file: {exc}") from None
    return frame


def _not_a_table(path: Path) -> None:
    """A workbook, an archive or a compressed file given where CSV text is read is named for what it is, with what
    to do (not diagnosed as text in some encoding). pandas itself reads a .zip of one file and a .gz."""
    with path.open("rb") as fh:
        head = fh.read(8)
    if head.startswith(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"):
        raise InputError(str(path), "is an Excel 97-2003 workbook (xls), not CSV text: save it as CSV")
    if head.startswith(b"\x1f\x8b") and path.suffix.lower() != ".gz":
        raise InputError(str(path), "is gzip-compressed, not CSV text: name it .csv.gz, or decompress it")
    if not head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return
    import zipfile

    try:
        with zipfile.ZipFile(path) as archive:
            names = [n for n in archive.namelist() if not n.endswith("/")]
    except (zipfile.BadZipFile, OSError):
        names = []
    if any(n.startswith("xl/") for n in names):
        raise InputError(str(path), "is an Excel workbook (xlsx), not CSV text: save it as CSV (CSV UTF-8 in Excel)")
    if path.suffix.lower() == ".zip" and len(names) == 1:
        return
    shown = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
    raise InputError(
        str(path),
        f"is a zip archive ({count(len(names), 'file')}{': ' + shown if names else ''}), not CSV text: unzip it "
        "and give the CSV inside",
    )


CHUNK_ROWS = 500_000  # rows read as text at a time before they become codes


def _read_coded(path: Path) -> pd.DataFrame:
    """The CSV with every column as categories of its text, read a block of rows at a time (never the whole file
    as text). The categories are the text as written: pandas' own ``dtype="category"`` would read "007" as 7."""
    import pandas as pd
    from pandas.api.types import union_categoricals

    blocks = [
        block.astype("category")
        for block in pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[], chunksize=CHUNK_ROWS)
    ]
    if len(blocks) == 1:
        return blocks[0]
    return pd.DataFrame({c: union_categoricals([b[c] for b in blocks]) for c in blocks[0].columns})


def not_utf8(path: Path) -> InputError:
    """The error for a file that is not UTF-8: the line and column of the first bad byte, the likely encoding."""
    data = path.read_bytes()
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return InputError(str(path), "the file is UTF-16, not UTF-8: save it as UTF-8 (CSV UTF-8 in Excel)")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        start = exc.start
    else:  # pragma: no cover - pandas saw what Python does not
        start = 0
    line = data.count(b"\n", 0, start) + 1
    column = start - (data.rfind(b"\n", 0, start) + 1) + 1
    try:
        data.decode("cp1252")
        likely = "probably Windows-1252 or Latin-1"
    except UnicodeDecodeError:
        likely = "in some other encoding"
    return InputError(
        str(path),
        f"not UTF-8 text: byte 0x{data[start]:02x} at column {column} is not UTF-8 ({likely}); save the file as "
        "UTF-8 (CSV UTF-8 in Excel, or iconv -f cp1252 -t utf-8)",
        row=line,
    )


def fetch_csv_file(path: str | Path) -> SourceTable:
    """Read a local long-format CSV (``benchmark`` defaults to the file's stem); every column is kept, so its
    optional ``chance`` column (the items' floors) reaches validation."""
    path = Path(path)
    frame = read_csv_text(path, coded=True)
    if "benchmark" not in frame.columns:
        import numpy as np
        import pandas as pd

        frame.insert(0, "benchmark", pd.Categorical.from_codes(np.zeros(len(frame), np.int8), [path.stem]))
        frame.attrs["defaulted"] = ("benchmark",)  # from the file name: an error about columns does not name it
    return SourceTable(name=path.name, location=str(path), frame=frame, chance_from=file_chance(frame))


def fetch_sample() -> SourceTable:
    """Read the shipped sample file as raw text columns."""
    import pandas as pd

    from benchwatch.sources.sample_dates import LAST_DAY

    frame = pd.read_csv(SAMPLE_FILE, dtype=str, keep_default_na=False, na_values=[])
    bundled = {"status": "bundled", "bundled": LAST_DAY.strftime("%Y-%m-%d")}  # the day the universe ends
    return SourceTable(
        name="sample", location="bundled synthetic sample", frame=frame, synthetic=True, provenance=bundled
    )


def read_input(path: str | Path) -> SourceTable:
    """What ``audit`` and ``run --input`` accept: a long-format CSV; an Inspect log (``.eval``, ``.json``);
    lm-evaluation-harness ``samples_<task>_<date>.jsonl`` (its ``results_<date>.json`` beside it); an Every
    Eval Ever record (``<uuid>.json``, its ``_samples.jsonl`` beside it); or a folder of any of these."""
    from benchwatch.sources.eee import is_eee_input, read_eee
    from benchwatch.sources.inspect_logs import log_files, read_inspect_logs
    from benchwatch.sources.lm_eval_samples import is_samples_file, read_lm_eval_samples

    path = Path(path)
    if path.is_dir():
        tables = []
        if log_files(path):
            tables.append(read_inspect_logs(path))
        if any(is_samples_file(p) for p in path.rglob("samples_*.jsonl")):
            tables.append(read_lm_eval_samples(path))
        if is_eee_input(path):
            tables.append(read_eee(path))
        if not tables:
            csvs = sorted(p.name for p in path.glob("*.csv"))
            if csvs:  # a folder of tables: each is its own input
                shown = ", ".join(csvs[:3]) + (f" and {len(csvs) - 3} more" if len(csvs) > 3 else "")
                raise InputError(
                    str(path),
                    f"a folder of {count(len(csvs), 'CSV file')} ({shown}), not of evaluation logs: give each "
                    f"file by its path, such as {path.as_posix()}/{csvs[0]}",
                )
            raise InputError(
                str(path),
                "no evaluation logs in this folder (Inspect .eval/.json, lm-evaluation-harness samples_*.jsonl, "
                "Every Eval Ever <uuid>.json)",
            )
        if len(tables) == 1:
            return tables[0]
        import pandas as pd

        frame = pd.concat([t.frame for t in tables], ignore_index=True)
        if CHANCE in frame.columns:  # the rows of a kind of log without floors give none
            frame[CHANCE] = frame[CHANCE].fillna("")
        boards = [t.aggregates for t in tables if t.aggregates is not None]
        return SourceTable(
            name=path.name,
            location=str(path),
            frame=frame,
            aggregates=pd.concat(boards, ignore_index=True) if boards else None,
            excluded=tuple(e for t in tables for e in t.excluded),
            notes=tuple(n for t in tables for n in t.notes),
            chance_from="; ".join(dict.fromkeys(t.chance_from for t in tables if t.chance_from)) or None,
        )
    _readable(path)
    if is_eee_input(path):
        return read_eee(path)
    if path.suffix == ".eval" or (path.suffix == ".json" and not path.name.startswith("results_")):
        return read_inspect_logs(path)
    if path.suffix == ".json":
        raise InputError(str(path), "an lm-evaluation-harness results file: give its samples_*.jsonl, or their folder")
    if path.suffix == ".jsonl":
        return read_lm_eval_samples(path)
    return fetch_csv_file(path)
