"""The text of the files of ``reports/``: short rounded JSON, spreadsheet-safe CSV, and the parsers that read
them back, naming the file, the line and the problem wherever one is damaged."""

from __future__ import annotations

import csv
import io
import json
import math
import re
from pathlib import Path
from typing import TypeVar

import pandas as pd

from benchwatch.errors import InputError

DIGITS = 6
T = TypeVar("T")  # what parse_json's ``kind`` is: the value under the key is checked to be one


def rounded(value: object) -> object:
    """Round floats (recursively) so that the committed files are short and diff well."""
    if isinstance(value, float):
        return None if math.isnan(value) else round(value, DIGITS)
    if isinstance(value, dict):
        return {k: rounded(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [rounded(v) for v in value]
    return value


def to_json(value: object) -> str:
    """Stable JSON text: sorted keys, rounded floats, a final newline."""
    return json.dumps(rounded(value), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


# A cell a spreadsheet would run as a formula starts with one of these; such text is written after a
# quote (and a leading quote is doubled), so that every CSV here opens safely and reads back exactly.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "'")


def sheet_safe(value: object) -> object:
    """A text cell that a spreadsheet will show as text (numbers are left as they are)."""
    return "'" + value if isinstance(value, str) and value.startswith(FORMULA_START) else value


def sheet_text(value: object) -> object:
    """The text ``sheet_safe`` was given."""
    if isinstance(value, str) and value.startswith("'") and value[1:].startswith(FORMULA_START):
        return value[1:]
    return value


def csv_text(df: pd.DataFrame) -> str:
    """A table as CSV text: short floats, LF line ends, spreadsheet-safe text cells."""
    df = df.copy()
    for col in df.columns:
        if df[col].dtype == object or pd.api.types.is_string_dtype(df[col]):
            df[col] = df[col].map(sheet_safe)
    buf = io.StringIO()
    df.to_csv(buf, index=False, lineterminator="\n", float_format=f"%.{DIGITS}g")
    return buf.getvalue()


# A field of CSV text (after a line start or a comma, maybe quoted) that starts as a formula would: one of
# FORMULA_START but the quote csv_text writes before such text, or a minus that does not start a number.
_FORMULA_FIELD = re.compile(r'(?:^|,)"?(?:[=+@\t\r]|-(?![0-9.]|inf(?:[,"\n]|$)))', re.MULTILINE)


def published_csv(text: str | None, table: pd.DataFrame) -> str:
    """A table read from ``text`` (``parse_csv``) as CSV for others to download: ``text`` itself, as ``csv_text``
    wrote it, where no field starts as a spreadsheet formula would (every file ``write_table`` writes: the same
    bytes as writing the table again, without the cost); else (or with no text) the table written again by
    ``csv_text``, whose text cells are made safe (a file edited by hand, say)."""
    return csv_text(table) if text is None or _FORMULA_FIELD.search(text) else text


def is_merge_marker(line: str) -> bool:
    """A line git writes around a merge conflict."""
    return line.startswith(("<<<<<<< ", ">>>>>>> ")) or line.rstrip() == "======="


def damaged(path: Path, problem: str) -> InputError:
    return InputError(str(path), f"{problem}; run `benchwatch check` for every problem, `benchwatch repair` to fix")


def _merge_marker(path: Path, text: str) -> None:
    if "<<<<<<< " not in text and ">>>>>>> " not in text and "=======" not in text:
        return  # (no line can be one: the lines are looked at only where one might be)
    for number, line in enumerate(text.splitlines(), 1):
        if is_merge_marker(line):
            raise damaged(path, f"a git merge conflict marker on line {number} ({line[:20]!r})")


def parse_json(path: Path, text: str, key: str, kind: type[T]) -> T:
    """``text`` as one of the JSON files of reports/ (``{key: kind}``); anything else names file and problem."""
    _merge_marker(path, text)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        raise damaged(path, f"not valid JSON (cut or damaged) at {where}: {exc.msg}") from None
    if not isinstance(data, dict) or not isinstance(data.get(key), kind):
        raise damaged(path, f"expected an object with {key!r} as a {'list' if kind is list else 'mapping'}")
    from benchwatch.history.records import SCHEMA_VERSION, upgrade  # pydantic: not for `rounded` alone

    version = data.get("schema_version", 0)
    if not isinstance(version, int) or isinstance(version, bool) or not 0 <= version <= SCHEMA_VERSION:
        raise damaged(
            path,
            f"schema_version {version!r}: this benchwatch reads versions 0 to {SCHEMA_VERSION} (a newer benchwatch "
            "wrote it: upgrade benchwatch)",
        )
    return upgrade(path.name, data)[key]


def versioned(key: str, value: object) -> dict:
    """A JSON file's body: its schema version, then its content under ``key``."""
    from benchwatch.history.records import SCHEMA_VERSION

    return {"schema_version": SCHEMA_VERSION, key: value}


def parse_csv(path: Path, text: str, columns: list[str] | None = None, *, blanks: bool = True) -> pd.DataFrame:
    """``text`` as one of the CSV files of reports/, checked row by row (a cut row, an extra field, an
    unclosed quote, the wrong header or a merge marker is an error naming the file, the line and the problem).
    ``blanks``: empty cells are missing values (tables) rather than empty text (history, run log)."""
    _merge_marker(path, text)
    if text and not text.endswith("\n"):
        raise damaged(path, "the last line has no line end (the file was cut)")
    reader = csv.reader(io.StringIO(text), strict=True)
    try:
        rows = list(reader)
    except csv.Error as exc:
        raise damaged(path, f"line {reader.line_num}: {exc} (an unclosed quote?)") from None
    if not rows:
        raise damaged(path, "empty (no header)")
    header = rows[0]
    if columns is not None and header != columns:
        raise damaged(path, f"the header is {','.join(header)!r}, expected {','.join(columns)!r}")
    for number, row in enumerate(rows[1:], 2):
        if len(row) != len(header):
            raise damaged(path, f"line {number} has {len(row)} fields, the header {len(header)}")
    dtypes = {c: str for c in ("revision", "flags", "model", "item_id", "benchmark", "date", "sources", "status")}
    df = pd.read_csv(
        io.StringIO(text),
        dtype={c: t for c, t in dtypes.items() if c in header},
        keep_default_na=False,
        na_values=[""] if blanks else [],
    )
    for col in df.columns:
        if (df[col].dtype == object or pd.api.types.is_string_dtype(df[col])) and _changed(df[col]):
            df[col] = df[col].map(sheet_text)
    return df


def _changed(column: pd.Series) -> bool:
    """Whether mapping a text column through ``sheet_text`` changes it: a cell starts with a quote, or no cell
    holds text (pandas then gives the mapped column floats: kept, as the tables have always been read)."""
    if column.dtype == object:
        return bool(column.map(lambda v: not isinstance(v, str) or v.startswith("'")).any())
    return bool(column.isna().all() or column.str.startswith("'", na=False).any())
