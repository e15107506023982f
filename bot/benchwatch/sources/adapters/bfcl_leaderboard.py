"""The Berkeley Function-Calling Leaderboard's published tables (BFCL): aggregate boards, one dated version of its
site at a time.

Checked against the real files (``../shared/upstream/gorilla_bfcl/``: ShishirPatil/gorilla, branch ``gh-pages``,
five commits 2024-08-14 to 2025-12-16) and the leaderboard's own code on ``main``
(``berkeley-function-call-leaderboard/.../eval_checker/eval_runner_helper.py``, ``CHANGELOG.md``). A version is
one commit of the site: the 2024-08-14 one has ``data.csv`` (``Rank, Overall Acc, Model, ..., AST Summary, Exec
Summary, ..., Relevance Detection, Cost ..., Latency ...``); the later ones ``data_overall.csv``,
``data_non_live.csv``, ``data_live.csv``, ``data_multi_turn.csv`` (from 2025-01-19), ``data_agentic.csv`` and
``data_format_sensitivity.csv`` (2025-12-16), one row per model, ``Model`` a display name with the mode in
parentheses (``GPT-4o-2024-08-06 (FC)``). Headers are renamed between versions (``Non_Live Overall Acc`` up to
2025-04-14, ``Non-Live Overall Acc`` after). No file ends with a newline.

Configuration: ``url`` the raw base (``https://raw.githubusercontent.com/ShishirPatil/gorilla/``) and ``versions``,
date -> ``{prefix, files}``: the version's path under ``url`` (its commit and ``/``) and the tables to read. The site
itself (``https://gorilla.cs.berkeley.edu/<file>``) serves the newest commit's tables with no date of their own;
pinned commits give each version its real date.

Rules:

- **A benchmark per (family, headline column)** with a known test-set size (``BOARDS``): the 2024-08-14 table is
  the original (BFCL V1) test set of 1,700 items, before the V2 live set (2024-08-19): ``v1 overall``, ``v1 AST``,
  ``v1 exec``, ``v1 relevance detection``; the later tables (V3, then V4 from 2025-07-17) give ``overall``,
  ``non-live``, ``live``, ``multi-turn`` and ``agentic``, each category's headline from its own file
  (``live`` and ``multi-turn`` from ``data_overall.csv``'s ``Live Acc``, ``Multi Turn Acc`` where a version has no
  file of their own: the two are equal wherever both exist). A renamed column is mapped to one benchmark, so its
  history spans versions; a listed file with none of a benchmark's columns is refused, naming the file and the
  columns looked for. Sub-columns, cost, latency, rank and the format-sensitivity table are never read.
- **Cells**: an accuracy is a percent string (``"90.53%"``), read as a proportion. ``N/A`` is no score for that
  model there (never 0): the model is left out of that benchmark in that version. Any other text (a bare number,
  an empty cell) or a percentage above 100% is refused: an InputError naming the file, the model, the column and
  the value.
- **Each version a publication, read in date order.** A benchmark's scores are those of the newest version that
  has it (one checker for the whole pool), and its test-set size that version's (``BOARDS``' sizes change where
  BFCL changed the test set: the executable categories retired on 2025-04-09, V4's new formula on 2025-07-17). A
  model's date is the first version that lists it with a score for that benchmark, so the figures by date are
  the pool as it grew, on the versions' own dates. A model the newest version no longer lists (or lists as N/A)
  is left out (``excluded``, with the version it was last in).
- **A rescoring is named, not taken for progress.** For each version, the scores that moved for models the version
  before listed are counted (a line in ``notes``); a version that moved any is named a rescoring (``<date>:
  rescored: N of M scores moved, no new model`` or ``..., K new model(s)``: the benchmark's checker changed, or
  the listed models were run again), whether or not new models came with it (BFCL's per-item files: 2024-08-11
  moved 561 of 612 scores and added 20 models). A version
  where a benchmark's test set changed says so too. Each benchmark so affected carries its sentence in
  ``SourceTable.rescored``.
- A model is its ``Model`` cell as written (surrounding spaces stripped), the same string in every file and version
  (the tables carry no model id). A row repeated whole is read once; one model twice with other cells is refused.
"""

from __future__ import annotations

import io
import itertools
import re
from dataclasses import dataclass
from datetime import date

import pandas as pd
from pydantic import ConfigDict, Field, with_config
from typing_extensions import TypedDict

from benchwatch.errors import InputError
from benchwatch.sources.config import SourceConfig
from benchwatch.sources.http import Download, Fetcher
from benchwatch.sources.options import SourceOptions
from benchwatch.sources.parsing import provenance, read_bytes, read_once, where, whole_csv
from benchwatch.sources.table import AGGREGATE_COLUMNS, SourceTable, empty_long

MODEL = "Model"
PERCENT = re.compile(r"(\d+(?:\.\d+)?)%")
NA = "N/A"
EXEC_RETIRED = "2025-04-09"  # CHANGELOG #943: rest and the four exec categories retired from the leaderboard
V4 = "2025-07-17"  # CHANGELOG #1019: BFCL V4 (agentic; Non-Live/Live without (ir)relevance; weighted overall)


@dataclass(frozen=True)
class Board:
    """One benchmark: where its score lies (file, the column's names over time), first found first, and its
    test-set size from each date on."""

    label: str
    sources: tuple[tuple[str, tuple[str, ...]], ...]
    sizes: tuple[tuple[str, int], ...]  # (from date, n_items), oldest first

    def size(self, day: str) -> int:
        return [n for since, n in self.sizes if since <= day][-1]


# Test-set sizes: the items of each category's data file (berkeley-function-call-leaderboard/data/, later
# bfcl/data/ and bfcl_eval/data/, one JSON line an item) at the main-branch commit before each site version:
# simple 400, multiple 200, parallel 200, parallel_multiple 200, java 100, javascript 50 (AST: 1,150); exec_simple
# 100, rest 70, exec_multiple 50, exec_parallel 50, exec_parallel_multiple 40 (exec: 310); irrelevance ("relevance"
# in 2024) 240; live_simple 258, live_multiple 1,053 (1,037 in 2024-10), live_parallel 16, live_parallel_multiple
# 24 (live AST: 1,351), live_irrelevance 882 (875 in 2024-10, 884 in V4), live_relevance 18 (41 in 2024-10, 16 in
# V4): 2,251 all three times; multi_turn base, miss_func, miss_param, long_context 200 each (composite not scored);
# V4 web_search 100 questions x 2 settings, memory 155 x 3 back-ends (665). What each headline averages
# (eval_runner_helper.py at those commits): non-live = AST + exec + irrelevance (1,700), without exec from
# 2025-04-09 (1,390), AST alone in V4 (1,150); live = all six live categories (2,251), their AST four in V4
# (1,351); overall = non-live + live + multi-turn (4,751; 4,441), in V4 those (AST only) + irrelevance and
# live_irrelevance + agentic (1,150 + 1,351 + 1,124 + 800 + 665 = 5,090).
BOARDS = (
    Board("v1 overall", (("data.csv", ("Overall Acc",)),), (("", 1700),)),
    Board("v1 AST", (("data.csv", ("AST Summary",)),), (("", 1150),)),
    Board("v1 exec", (("data.csv", ("Exec Summary",)),), (("", 310),)),
    Board("v1 relevance detection", (("data.csv", ("Relevance Detection",)),), (("", 240),)),
    Board("overall", (("data_overall.csv", ("Overall Acc",)),), (("", 4751), (EXEC_RETIRED, 4441), (V4, 5090))),
    Board(
        "non-live",
        (("data_non_live.csv", ("Non_Live Overall Acc", "Non-Live Overall Acc")),),
        (("", 1700), (EXEC_RETIRED, 1390), (V4, 1150)),
    ),
    Board(
        "live",
        (("data_live.csv", ("Live Overall Acc",)), ("data_overall.csv", ("Live Acc",))),
        (("", 2251), (V4, 1351)),
    ),
    Board(
        "multi-turn",
        (("data_multi_turn.csv", ("Multi Turn Overall Acc",)), ("data_overall.csv", ("Multi Turn Acc",))),
        (("", 800),),
    ),
    Board("agentic", (("data_agentic.csv", ("Agentic Overall Acc",)),), (("", 665),)),
)
FILES = sorted({f for b in BOARDS for f, _ in b.sources})


@with_config(ConfigDict(extra="forbid", strict=True))
class Version(TypedDict):
    """One dated version of the site: its path under ``url`` and the tables to read there (a TypedDict: the option
    reaches the adapter as the file gives it)."""

    prefix: str  # the commit and "/" (a folder under url)
    files: list[str]  # some of FILES


class Options(SourceOptions):
    """BFCL leaderboard's options."""

    versions: dict[str, Version] = Field(default_factory=dict)  # YYYY-MM-DD -> the version's prefix and files


def _check(versions: dict[str, Version], src: str) -> list[str]:
    """The configured version dates, oldest first; an InputError naming the key where one is malformed."""
    if not versions:
        raise InputError(src, "no versions configured: add [sources.NAME.versions] date = {prefix, files}")
    for day, v in versions.items():
        try:
            ok = date.fromisoformat(day).isoformat() == day
        except ValueError:
            ok = False
        if not ok:
            raise InputError(src, "a version's key must be a date YYYY-MM-DD", field="versions", value=day)
        prefix, files = v["prefix"], v["files"]
        if "://" in prefix or prefix.startswith("/") or ".." in prefix.split("/") or prefix[-1:] not in ("/", ""):
            raise InputError(src, "a folder under url ending in /", field=f"versions.{day}.prefix", value=prefix)
        unknown = [f for f in files if f not in FILES]
        if not files or unknown or len(set(files)) < len(files):
            words = f"the tables to read, each once, among {', '.join(FILES)}"
            raise InputError(src, words, field=f"versions.{day}.files", value=unknown or files)
    return sorted(versions)


def _table(body: bytes, src: str, url: str) -> tuple[pd.DataFrame, str | None]:
    """A table's cells as text, one row per model (a row repeated whole read once: the note)."""
    whole_csv(body, src, url)  # a table cut mid-row is refused, never read as fewer models
    try:
        frame = pd.read_csv(io.BytesIO(body), dtype=str, keep_default_na=False, na_values=[])
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise InputError(where(src, url), f"not a readable CSV file: {exc}") from None
    if MODEL not in frame.columns:
        raise InputError(where(src, url), "missing column", field=MODEL, value=[str(c) for c in frame.columns][:8])
    frame[MODEL] = frame[MODEL].str.strip()
    empty = frame.index[frame[MODEL].eq("")]
    if len(empty):
        raise InputError(where(src, url), "a row without a model", field=MODEL, row=int(empty[0]) + 2)
    return read_once(frame, [MODEL], src, url)


def score_of(text: str, src: str, url: str, model: str, column: str) -> float | None:
    """A percent string as a proportion; None for ``N/A``; anything else, or above 100%, an InputError."""
    cell = text.strip()
    if cell == NA:
        return None
    found = PERCENT.fullmatch(cell)
    file = url.rsplit("/", 1)[-1]
    if found is None:
        words = f"{file}: model {model!r}: not a percent string (nor N/A)"
        raise InputError(where(src, url), words, field=column, value=text)
    value = float(found.group(1))
    if value > 100:
        raise InputError(where(src, url), f"{file}: model {model!r}: above 100%", field=column, value=text)
    return value / 100


@dataclass
class Read:
    """What the versions gave: ``scores[day][label] = {model: proportion}``, the N/A cells, the column each
    board was read from, the downloads and the notes."""

    scores: dict[str, dict[str, dict[str, float]]]
    na: dict[str, dict[str, set[str]]]
    columns: dict[str, dict[str, str]]  # label -> day -> "file: column"
    downloads: list[Download]
    notes: list[str]


def _version(fetcher: Fetcher, cfg: SourceConfig, day: str, version: Version, read: Read) -> None:
    """One version's tables: each board's column read from the first of its files the version lists."""
    root = cfg.url if cfg.url.endswith("/") else cfg.url + "/"
    tables = {}
    for file in version["files"]:
        url = f"{root}{version['prefix']}{file}"
        dl = fetcher.get(url, source=cfg.name)
        read.downloads.append(dl)
        frame, note = _table(read_bytes(dl, cfg.name), cfg.name, url)
        if note:
            read.notes.append(f"{day} {file}: {note}")
        tables[file] = (frame, url)
    read.scores[day], read.na[day] = {}, {}
    for board in BOARDS:
        found = next(((f, names) for f, names in board.sources if f in tables), None)
        if found is None:
            continue
        file, names = found
        frame, url = tables[file]
        column = next((c for c in names if c in frame.columns), None)
        if column is None:
            words = f"{file}: no column for the {board.label!r} benchmark (looked for {' or '.join(names)})"
            raise InputError(where(cfg.name, url), words, field=names[-1], value=[str(c) for c in frame.columns][:8])
        values = {m: score_of(t, cfg.name, url, m, column) for m, t in zip(frame[MODEL], frame[column], strict=True)}
        read.scores[day][board.label] = {m: v for m, v in values.items() if v is not None}
        read.na[day][board.label] = {m for m, v in values.items() if v is None}
        read.columns.setdefault(board.label, {})[day] = f"{file}: {column}"


def _moves(read: Read, days: list[str]) -> tuple[dict[str, str], list[str]]:
    """Per version, the scores that moved for models the version before listed (a rescoring, whether or not new
    models came with it), and each benchmark whose test set changed; each benchmark so affected with its
    sentence."""
    rescored: dict[str, str] = {}
    lines = []
    by_label = {b.label: b for b in BOARDS}
    for before, after in itertools.pairwise(days):
        old, new = read.scores[before], read.scores[after]
        added = {m for s in new.values() for m in s} - {m for s in old.values() for m in s}
        moved: dict[str, tuple[int, int]] = {}
        changed = set()
        for label in sorted(old.keys() & new.keys()):
            shared = old[label].keys() & new[label].keys()
            moved[label] = (sum(abs(old[label][m] - new[label][m]) > 1e-12 for m in shared), len(shared))
            a, b = by_label[label].size(before), by_label[label].size(after)
            if a != b:
                changed.add(label)
                lines.append(f"{after}: {label}: test set changed from {a:,} to {b:,} items (BFCL's own change)")
                rescored[label] = (
                    f"test set changed upstream on {after} ({a:,} to {b:,} items): {moved[label][0]} of the "
                    f"{moved[label][1]} models listed on {before} have other scores: a new measure, not progress"
                )
        if not moved:
            lines.append(f"{after}: no benchmark in common with {before}")
            continue
        n, m = sum(x for x, _ in moved.values()), sum(y for _, y in moved.values())
        if n:  # a listed model's score moved: the checker changed (whatever models came with it)
            news = f"{len(added)} new model(s)" if added else "no new model"
            lines.append(f"{after}: rescored: {n} of {m} scores moved, {news}")
            for label, (x, y) in moved.items():
                if x and label not in changed:
                    rescored[label] = (
                        f"rescored upstream on {after}: {x} of the {y} models listed on {before} have other scores "
                        "(the benchmark's checker changed): a rescoring, not progress"
                    )
        else:
            lines.append(f"{after}: no score of a model listed on {before} moved; {len(added)} new model(s)")
    return rescored, lines


def _renamed(read: Read) -> list[str]:
    """A line for each benchmark read from more than one column over the versions (a renamed header)."""
    out = []
    for label, by_day in read.columns.items():
        spans: dict[str, list[str]] = {}
        for day, column in sorted(by_day.items()):
            spans.setdefault(column, []).append(day)
        if len(spans) > 1:
            parts = [f"{c} ({d[0]}" + (f" to {d[-1]})" if len(d) > 1 else ")") for c, d in spans.items()]
            out.append(f"{label}: read from {'; '.join(parts)}")
    return out


def load(fetcher: Fetcher, cfg: SourceConfig) -> SourceTable:
    """Every configured version in date order; each benchmark's newest version published, its models dated by
    the first version that scores them."""
    opts = Options.of(cfg)
    days = _check(opts.versions, cfg.name)
    read = Read({}, {}, {}, [], [])
    for day in days:
        _version(fetcher, cfg, day, opts.versions[day], read)
    rows, excluded = [], []
    for board in BOARDS:
        have = [d for d in days if board.label in read.scores[d]]
        if not have:
            continue
        newest, n = have[-1], board.size(have[-1])
        for model, value in sorted(read.scores[newest][board.label].items()):
            first = next(d for d in have if model in read.scores[d][board.label])
            rows.append([board.label, model, repr(value), n, first])
        last: dict[str, str] = {}
        for d in have[:-1]:
            last |= dict.fromkeys(read.scores[d][board.label], d)
        for model in sorted(set(last) - set(read.scores[newest][board.label])):
            why = "N/A there" if model in read.na[newest][board.label] else "not listed there"
            reason = f"not in the newest version with this benchmark ({newest}: {why}); last scored {last[model]}"
            excluded.append({"benchmark": board.label, "model": model, "reason": reason})
    rescored, lines = _moves(read, days)
    na = sum(len(s) for by in read.na.values() for s in by.values())
    if na:
        lines.append(f"{na} N/A accuracy cell(s) read as no score (not 0)")
    if excluded:
        lines.append(f"{len(excluded)} (benchmark, model) pair(s) of earlier versions not in the newest: left out")
    return SourceTable(
        cfg.name,
        cfg.url,
        empty_long(),
        aggregates=pd.DataFrame(rows, columns=AGGREGATE_COLUMNS),
        # the newest version's own date (raw.githubusercontent.com sends no Last-Modified)
        provenance={**provenance(cfg.url, read.downloads), "release": days[-1], "upstream_date": days[-1]},
        excluded=tuple(excluded),
        notes=tuple([*read.notes, *_renamed(read), *lines]),
        rescored=rescored,
    )
