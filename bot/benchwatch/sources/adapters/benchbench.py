"""IBM BenchBench's catalogue of leaderboard snapshots: one aggregate CSV per leaderboard (issue 59).

Checked against the real files (``../shared/upstream/benchbench/``, IBM/benchbench @ 1dfd46a6) and the package that
reads them (``Benchmark.load_local_catalog`` in ``src/bat/benchmark.py``): ``src/bat/assets/benchmarks/`` holds 40
files named ``<source>_<YYMMDD>_<category>.csv`` (the leaderboard, the day it was copied, a category), each with the
header ``model,<score column>[,...]`` and one row per model, the scores as each leaderboard prints them (percent,
0-1 fractions, Elo, MT-bench's 1-10: no common scale); ``src/bat/assets/lower_is_better_benchmarks.txt`` names the
leaderboards whose lower score is the better one, one a line. No file ends with a newline, and none gives its
test-set size.

Rules:

- **Only the configured boards are read**: ``boards`` maps a file stem to its spec, or to a list of specs (one per
  score column of a file with several): ``n_items`` (the test-set size, which the files do not give), ``scale``
  (``"percent"``: 0 to 100; ``"fraction"``: 0 to 1), ``score_column`` (default: the file's single score column; a
  file with several must name one) and ``label`` (the benchmark's name; default the stem, or ``stem/column``). A
  stem is only ever a configured name (letters, digits, ``_``, ``.``, ``-``): upstream strings never make a path.
- **Lower is better**: a configured stem that a line of the list names (the stem itself, or the line followed by
  ``_<category>``: the list gives ``helm_airbench_240916`` for ``helm_airbench_240916_safety``, which the package
  compares with ``<line>.csv`` and so never matches) is refused, naming it: a lower-is-better score is no share of
  items passed.
- **The model column** is the first one, ``model``, or ``llm_model`` (lvbench's); anything else is refused.
- **The date** of every row is the board's copy date from its stem: the six-digit groups that are real ``YYMMDD``
  dates, the newest where there are two (``livecodebench_240601_230701``: 2024-06-01, the end of the window of
  problems it starts at 2023-07-01; said in a note). A stem without one (``lvbench_241189``: 89 is no day) gives
  no date, and a note says so.
- **A row without a score** (an empty cell, the ``-`` a leaderboard prints for none, or a line holding the model's
  name alone, as ``opencompass_academic``'s last) is left out into ``excluded`` with the reason.
- **A score off its board's scale** (above 100 on a percent board, above 1 on a fraction board, negative, not a
  finite number) is an error naming the file, the model and the value.
- **A model listed twice** (its names equal once spelled canonically: ``clean_name``) with the same score is one
  row (a note counts them); with different scores every one of its rows is left out into ``excluded``, naming
  the values: the file cannot say which variant is which (``bfcl``'s FC and prompt variants lost their suffix).
- **A cut body**: a line with some but not all of the header's fields, or a body that stops right after a
  separator (no file ends with a newline, so a last line ending in ``,`` is where a transfer stopped), is refused.
  A body cut inside its last score cannot be told from a shorter number (the fault battery lists it).
"""

from __future__ import annotations

import csv
import io
import math
import re
from datetime import datetime
from typing import Annotated, Literal, Required

import pandas as pd
from pydantic import ConfigDict, Field, with_config
from typing_extensions import TypedDict  # pydantic reads typing.TypedDict only from Python 3.12

from benchwatch.errors import InputError
from benchwatch.sources.config import SourceConfig
from benchwatch.sources.http import Download, Fetcher
from benchwatch.sources.options import SourceOptions
from benchwatch.sources.parsing import provenance, read_bytes, where
from benchwatch.sources.table import AGGREGATE_COLUMNS, SourceTable, empty_long
from benchwatch.spelling import clean_name

FOLDER = "src/bat/assets/benchmarks/"
LOWER = "src/bat/assets/lower_is_better_benchmarks.txt"
STEM = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
DATE = re.compile(r"(?<![0-9])([0-9]{6})(?![0-9])")
MODEL_COLUMNS = ("model", "llm_model")
NO_SCORE = ("", "-")
TOP = {"percent": 100.0, "fraction": 1.0}


@with_config(ConfigDict(extra="forbid", strict=True))
class Board(TypedDict, total=False):
    """One board of a file: its test-set size, its scale, its score column and its name."""

    n_items: Required[Annotated[int, Field(ge=1)]]
    scale: Required[Literal["percent", "fraction"]]
    score_column: str
    label: str


class Options(SourceOptions):
    """BenchBench's options."""

    # file stem -> its board, or a list of boards (one per score column)
    boards: dict[str, Board | list[Board]] = Field(default_factory=dict)
    folder: str = FOLDER  # where the CSVs lie, under url
    lower_is_better: str = LOWER  # the list of lower-is-better leaderboards, under url


def _specs(opts: Options, src: str) -> dict[str, list[Board]]:
    """Each configured stem's boards, checked: a stem is a plain name, each label and column used once."""
    out: dict[str, list[Board]] = {}
    labels: set[str] = set()
    for stem, given in sorted(opts.boards.items()):
        if not STEM.fullmatch(stem) or ".." in stem:
            raise InputError(src, "a board's key is a file stem (letters, digits, _ . -)", field="boards", value=stem)
        boards = given if isinstance(given, list) else [given]
        columns = [b.get("score_column") for b in boards]
        if not boards or len(set(columns)) < len(columns) or (len(boards) > 1 and None in columns):
            raise InputError(src, "each board of a file names its own score column", field=f"boards.{stem}")
        out[stem] = []
        for board in boards:
            column = board.get("score_column")
            label = board.get("label") or (stem if len(boards) == 1 else f"{stem}/{column}")
            if label in labels:
                raise InputError(src, "two boards with one label", field=f"boards.{stem}", value=label)
            labels.add(label)
            spec = board.copy()
            spec["label"] = label
            out[stem].append(spec)
    if not out:
        raise InputError(src, "no boards configured: add [sources.NAME.boards] <file stem> = {n_items, scale}")
    return out


def _lower_is_better(body: bytes, stems: list[str], src: str, url: str) -> None:
    """Refuse a configured stem that the lower-is-better list names (the stem, or its name before the category)."""
    try:
        lines = [line.strip() for line in body.decode("utf-8").splitlines()]
    except UnicodeDecodeError:
        raise InputError(where(src, url), "the body is not UTF-8 text") from None
    for stem in stems:
        for line in lines:
            if line and (stem == line or stem.startswith(line + "_")):
                raise InputError(
                    where(src, url),
                    f"the board {stem!r} is listed as lower-is-better ({line!r}): its score is no share of "
                    "items passed; take it out of boards",
                    field="boards",
                    value=stem,
                )


def _date(stem: str) -> tuple[str, str | None]:
    """The board's copy date from its stem (the newest real YYMMDD), and a note where it is not plain."""
    found = DATE.findall(stem)
    dates = []
    for group in found:
        try:
            dates.append(datetime.strptime(group, "%y%m%d").strftime("%Y-%m-%d"))
        except ValueError:
            continue
    if not dates:
        shown = ", ".join(found) or "no six-digit group"
        return "", f"{stem}: {shown} is no date (YYMMDD): its rows carry no date"
    if len(found) > 1:
        return max(dates), f"{stem}: the name carries {', '.join(found)}: dated {max(dates)}, the newest"
    return dates[0], None


def _lines(body: bytes, src: str, url: str) -> tuple[list[str], list[tuple[int, list[str]]]]:
    """The header and the data lines (line number, fields) of a file; a body cut short is refused."""
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(where(src, url), "the body is not UTF-8 text") from None
    rows = [(n, r) for n, r in enumerate(csv.reader(io.StringIO(text, newline="")), 1) if r]
    if not rows:
        raise InputError(where(src, url), "an empty body: no header")
    (_, header), data = rows[0], rows[1:]
    if header[0].strip() not in MODEL_COLUMNS:
        raise InputError(where(src, url), "the first column is not the model's", field="model", value=header[0][:80])
    if not text.endswith("\n") and text.rstrip("\r").endswith(",") and data:
        raise InputError(where(src, url), "the body stops right after a separator: cut short?", row=data[-1][0])
    for n, fields in data:
        if len(fields) > len(header) or 1 < len(fields) < len(header):
            raise InputError(
                where(src, url),
                f"the line has {len(fields)} of the header's {len(header)} fields: cut short?",
                row=n,
                value=",".join(fields)[:80],
            )
    return header, data


def _column(header: list[str], board: Board, src: str, url: str) -> int:
    """The index of the board's score column (the single one when the spec names none)."""
    column = board.get("score_column")
    if column is None:
        if len(header) != 2:
            raise InputError(where(src, url), "several score columns: name one", field="score_column", value=header)
        return 1
    if column not in header[1:]:
        raise InputError(where(src, url), "missing score column", field=column, value=header)
    return header.index(column, 1)


def _score(text: str, model: str, board: Board, src: str, url: str, column: str) -> float:
    """A cell as a proportion; not a finite number or off the board's scale is an error naming model and value."""
    top = TOP[board["scale"]]
    try:
        number = float(text)
    except ValueError:
        number = math.nan
    if not math.isfinite(number) or not 0.0 <= number <= top:
        raise InputError(
            where(src, url),
            f"model {model!r}: the score is not a number in [0, {top:g}] (the board's {board['scale']} scale)",
            field=column,
            value=text[:80],
        )
    return number / top


def _board(data: list[tuple[int, list[str]]], header: list[str], board: Board, src: str, url: str) -> tuple:
    """One board's rows (model, score), what was left out, and how many rows were read once."""
    index = _column(header, board, src, url)
    label, column, name = board["label"], header[index], url.rsplit("/", 1)[-1]
    seen: dict[str, list[tuple[str, str, float]]] = {}
    excluded = []
    for n, fields in data:
        model = fields[0]
        if not model.strip():
            raise InputError(
                where(src, url), "a row without a model name", row=n, field="model", value=",".join(fields)
            )
        text = fields[index].strip() if index < len(fields) else ""
        if text in NO_SCORE:
            why = "the line holds its name alone" if len(fields) == 1 else f"its cell is {text!r}"
            excluded.append({"benchmark": label, "model": model, "reason": f"no score in {name} ({why})"})
            continue
        score = _score(text, model, board, src, url, column)
        seen.setdefault(clean_name(model), []).append((model, text, score))
    rows, repeated = [], 0
    for listed in seen.values():
        model, scores = listed[0][0], sorted({s for _, _, s in listed})
        if len(scores) > 1:
            values = ", ".join(t for _, t, _ in listed)
            reason = f"listed {len(listed)} times in {name} with different scores ({values}): which is which cannot "
            excluded.append({"benchmark": label, "model": model, "reason": reason + "be told; all left out"})
            continue
        repeated += len(listed) - 1
        rows.append((model, scores[0]))
    return rows, excluded, repeated


def load(fetcher: Fetcher, cfg: SourceConfig) -> SourceTable:
    """Fetch the lower-is-better list and each configured board's file; one aggregate board per spec."""
    opts = Options.of(cfg)
    src, root = cfg.name, cfg.url if cfg.url.endswith("/") else cfg.url + "/"
    specs = _specs(opts, src)
    lower_url = root + opts.lower_is_better
    lower = fetcher.get(lower_url, source=src)
    _lower_is_better(read_bytes(lower, src), list(specs), src, lower_url)
    downloads: list[Download] = [lower]
    rows: list[list] = []
    excluded: list[dict] = []
    notes: list[str] = []
    for stem, boards in specs.items():
        name, url = f"{stem}.csv", f"{root}{opts.folder}{stem}.csv"
        dl = fetcher.get(url, source=src)
        downloads.append(dl)
        header, data = _lines(read_bytes(dl, src), src, url)
        date, note = _date(stem)
        notes += [note] if note else []
        for board in boards:
            got, left, repeated = _board(data, header, board, src, url)
            rows += [[board["label"], m, s, board["n_items"], date] for m, s in got]
            excluded += left
            if repeated:
                notes.append(f"{name}: {repeated} row(s) repeating a model's score read once ({board['label']})")
    return SourceTable(
        src,
        cfg.url,
        empty_long(),
        aggregates=pd.DataFrame(rows, columns=AGGREGATE_COLUMNS),
        provenance=provenance(cfg.url, downloads),
        excluded=tuple(excluded),
        notes=tuple(notes),
    )
