"""``check`` and ``repair`` of a reports folder: every file read through its one loader, the folder's
files checked against each other, and what can be rebuilt from the rest rebuilt (after a backup)."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import partial
from pathlib import Path

import pandas as pd

from benchwatch.errors import InputError
from benchwatch.history.folder import COMMIT, STAGING, Reports
from benchwatch.history.formats import damaged
from benchwatch.history.ledger import entry_key, lacking, read_ledger
from benchwatch.history.records import FILES, BenchmarkRecord, file_schema, upgrade
from benchwatch.history.reports import (
    load_alerts,
    load_changelog,
    load_history,
    load_latest,
    load_runs,
    load_sources,
    parse_snapshot_file,
    read_table,
)
from benchwatch.store import safe_slug, slug_collisions
from benchwatch.vocabulary import COVERAGE_FIGURES, SATURATION_FIGURES

BACKUP = ".repair-backup"
TABLES = ("items", "models", "by_date")


def problem_of(load: Callable[[], object]) -> str | None:
    try:
        load()
    except InputError as exc:
        return str(exc)
    return None


def _quick_table(path: Path) -> None:
    """A per-benchmark table's integrity without parsing it: readable text, its header naming the columns its
    readers rely on, ending where a row does (a cut or overwritten file fails here)."""
    from benchwatch.history.reports import TABLE_COLUMNS

    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise damaged(path, "not UTF-8 text") from None
    header = text.split("\n", 1)[0].split(",")
    missing = [c for c in TABLE_COLUMNS.get(path.parent.name, ()) if c not in header]
    if missing or not text.endswith("\n"):
        raise damaged(path, f"no column {', '.join(map(repr, missing))}" if missing else "cut: no final newline")


def _quick_snapshot(path: Path) -> None:
    """A snapshot's integrity without parsing its table: a whole gzip stream (its length and CRC checked) of UTF-8
    text ending where a row does."""
    import gzip
    import zlib

    try:
        text = gzip.decompress(path.read_bytes()).decode("utf-8")
    except (OSError, EOFError, zlib.error, UnicodeDecodeError) as exc:
        raise damaged(path, f"a damaged snapshot ({exc})") from None
    if text and not text.endswith("\n"):
        raise damaged(path, "a damaged snapshot (cut: no final newline)")


def file_loaders(reports: Reports, validate: bool = True, quick: bool = False) -> dict[Path, Callable[[], object]]:
    """Each file's loader; ``validate`` off reads latest.json's and alerts.json's shape only (``check`` names each
    field's problem from the schema instead); ``quick`` checks the tables' and snapshots' integrity without
    parsing them (what a scheduled run checks before it writes: a second or less for the whole atlas)."""
    loaders: dict[Path, Callable[[], object]] = {
        reports.latest: lambda: load_latest(reports, validate=validate),
        reports.alerts: lambda: load_alerts(reports, validate=validate),
        reports.sources: lambda: load_sources(reports),
        reports.changelog: lambda: load_changelog(reports),
        reports.history: lambda: load_history(reports),
        reports.runs: lambda: load_runs(reports),
    }
    for folder in TABLES:
        for path in sorted((reports.root / folder).glob("*.csv")):
            loaders[path] = partial(_quick_table, path) if quick else partial(read_table, reports, path)
    for kind in ("responses", "aggregates"):
        for path in sorted((reports.root / "snapshots" / kind).glob("*.csv.gz")):
            loaders[path] = partial(_quick_snapshot, path) if quick else partial(parse_snapshot_file, path, kind)
    return loaders


def _where(path: Path, body: dict, at: list) -> str:
    """Which record of a file an error is in, by the record's own name where it has one."""
    if len(at) < 2:
        return ""
    key, index = at[0], at[1]
    record = body.get(key, {})
    try:
        rec = record[index]
    except (KeyError, IndexError, TypeError):
        return f"{key}[{index!r}]: "
    label = rec.get("benchmark") if key == "benchmarks" and isinstance(rec, dict) else None
    label = rec.get("id") if key == "alerts" and isinstance(rec, dict) else label
    if key == "sources":
        return f"source {index!r}: "
    return f"{key}[{index}] ({label!r}): " if label else f"{key}[{index}]: "


def schema_problems(path: Path) -> list[str]:
    """A JSON file of reports/ against its published schema (``benchwatch.history.records``): one line per problem,
    naming the file, the record, the field and the value."""
    import jsonschema

    body = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(body, dict) and body.get("schema_version", 0) in (0, 1):
        body = upgrade(path.name, body)  # an older file: checked as the version it upgrades to
    validator = jsonschema.Draft7Validator(file_schema(path.name))
    out = []
    for error in sorted(validator.iter_errors(body), key=lambda e: [str(p) for p in e.absolute_path]):
        at = list(error.absolute_path)
        where = _where(path, body, at)
        if error.validator == "required":
            missing = error.message.split("'")[1] if "'" in error.message else error.message
            out.append(f"{path}: {where}missing the required field {missing!r}")
        elif error.validator == "additionalProperties":
            out.append(f"{path}: {where}{error.message} (a field the schema does not declare)")
        else:
            field = ".".join(str(p) for p in at[2:]) or ".".join(str(p) for p in at) or "(the file)"
            expected = error.schema.get("type", error.validator_value)
            out.append(f"{path}: {where}field {field!r}: expected {expected}, got {error.instance!r}")
    return out


def implied_files(reports: Reports, rec: BenchmarkRecord) -> list[Path]:
    """The files a published record implies: its models table and last good data, and the items table of a
    benchmark whose items were placed. None for a record waiting for its refit (``rebuilt``, ``refit``)."""
    if rec.rebuilt or rec.refit:
        return []
    name = rec.benchmark
    if rec.kind == "aggregate":  # per-item data published as scores only keeps its responses
        return [reports.models(name), reports.snapshot(name, "responses" if rec.per_item else "aggregates")]
    files = [reports.models(name), reports.snapshot(name, "responses")]
    if rec.max_gap is not None:
        files.append(reports.items(name))
    return files


def check_reports(
    root: str | Path, site: str | Path | None = None, quick: bool = False, pending: bool = True
) -> list[str]:
    """Every problem of a reports folder (and of its built site), one line each; empty when all is well.
    ``quick``: the tables' and snapshots' integrity only, not their every cell, and the records validated as the
    typed models instead of by the JSON Schema (what a scheduled run checks before it writes). ``pending``: also
    what only the next run mends (records as rebuilt from history.csv, benchmarks without their page); neither
    quick nor ``repair``'s count of what is left reads them."""
    reports = Reports(Path(root))
    if not reports.root.is_dir():
        return [f"{reports.root}: no such folder (nothing to check)"]
    problems = []
    if (reports.root / STAGING / COMMIT).exists():
        problems.append(f"{reports.root / STAGING}: a committed run was interrupted while its files were swapped in")
    broken = set()
    for path, load in file_loaders(reports, validate=quick, quick=quick).items():
        problem = problem_of(load)
        if problem:
            problems.append(problem)
            broken.add(path)
    for name in () if quick else FILES:
        path = reports.root / name
        if path.exists() and path not in broken:
            found = schema_problems(path)
            problems += found
            if found:
                broken.add(path)
    latest = {} if reports.latest in broken and problem_of(lambda: load_latest(reports)) else load_latest(reports)
    if reports.history not in broken:
        history = load_history(reports)
        if latest and not reports.history.exists():
            problems.append(f"{reports.history}: missing while latest.json lists {len(latest)} benchmark(s)")
        have = set(zip(history["benchmark"], history["revision"], strict=True))
        for name, rec in sorted(latest.items()):
            if reports.history.exists() and (name, rec.revision) not in have:
                problems.append(f"{reports.history}: no row for {name!r} at revision {rec.revision!r}")
        for name in lost_from_latest(reports) if reports.latest not in broken else []:
            problems.append(f"{reports.latest}: {name!r} is in history.csv but not here (lost)")
        for name, column, value in history_cell_problems(history):
            problems.append(f"{reports.history}: {name!r}'s {column!r} is {value!r}, not a number")
        key = ["revision", "method", "scale"]
        again = history[key].eq(history.groupby("benchmark")[key].shift()).all(axis=1)  # a row that changed nothing
        for row in history[again].itertuples():
            problems.append(f"{reports.history}: {row.benchmark!r} at revision {row.revision!r} twice in a row")
    if not reports.latest.exists() and reports.history not in broken:
        named = load_history(reports)["benchmark"].nunique()
        if named:
            problems.append(f"{reports.latest}: missing while history.csv holds {named} benchmark(s)")
    for name, rec in sorted(latest.items()):
        for path in implied_files(reports, rec):
            if not path.exists():
                problems.append(f"{path}: missing, while latest.json publishes {name!r}")
    for a, b in slug_collisions(set(latest)):
        problems.append(f"{reports.latest}: benchmarks {a!r} and {b!r} share one file name")
    problems += ledger_problems(reports, broken)
    if pending and not quick:  # what a run itself mends (it refits them, and builds their pages)
        problems += [
            f"{reports.latest}: {name!r} is as rebuilt from history.csv, not refitted (the next run refits it)"
            for name, rec in sorted(latest.items())
            if rec.rebuilt
        ]
    if site is not None:
        out = Path(site).resolve()
        if not out.exists() and (out.parent / f".{out.name}.old").is_dir():
            problems.append(f"{out}: missing; the last good site is at {out.parent / f'.{out.name}.old'}")
        elif out.is_dir() and pending and not quick:
            problems += _pageless(out, latest)
    return problems


def _pageless(site: Path, latest: dict[str, BenchmarkRecord]) -> list[str]:
    """Every published benchmark without its page in the built site."""
    out = []
    for name, rec in sorted(latest.items()):
        page = site / "benchmarks" / safe_slug(str(rec.page or name)) / "index.html"
        if not rec.gone_since and not page.is_file():
            out.append(f"{page}: missing, while latest.json publishes {name!r}")
    return out


def ledger_problems(reports: Reports, broken: set[Path]) -> list[str]:
    """Each entry that alerts.json or changelog.json and its ledger (``benchwatch.history.ledger``) do not both hold,
    and each damaged line of a ledger; nothing for a folder written before the ledgers (the next run writes them)."""
    out = []
    for path in (reports.alerts, reports.changelog):
        ledger = reports.ledger(path)
        if not ledger.exists():
            continue
        logged, bad = read_ledger(ledger)
        if bad:
            out.append(f"{ledger}: {bad} damaged line(s): {path.name} holds what they held")
        if path in broken:
            out.append(f"{path}: damaged; its ledger {ledger.name} holds {len(logged)} entries to restore it from")
            continue
        entries = load_alerts(reports, validate=False) if path == reports.alerts else load_changelog(reports)
        lost = lacking(entries, logged)
        if lost:
            keys = ", ".join(entry_key(e)[:60] for e in lost[:5]) + (", ..." if len(lost) > 5 else "")
            out.append(f"{path}: lacks {len(lost)} entr{'y' if len(lost) == 1 else 'ies'} its ledger holds: {keys}")
        if not bad and lacking(logged, entries):
            out.append(f"{ledger}: lacks {len(lacking(logged, entries))} entries that {path.name} holds")
    return out


FIGURE_COLUMNS = (*COVERAGE_FIGURES, *SATURATION_FIGURES)


NOT_A_NUMBER = object()


def typed_cell(column: str, value: object) -> object:
    """A history cell as the record's field holds it: counts as integers, figures as numbers, text as text;
    ``NOT_A_NUMBER`` for a count or figure that is not a number."""
    if column not in ("n_models", "n_items") and column not in FIGURE_COLUMNS:
        return value
    if not isinstance(value, str | int | float):
        return NOT_A_NUMBER
    try:
        number = float(value)
    except ValueError:
        return NOT_A_NUMBER
    if column in ("n_models", "n_items"):
        return int(number) if number == number and abs(number) != float("inf") else NOT_A_NUMBER
    return number


def history_cell_problems(history: pd.DataFrame) -> list[tuple[str, str, object]]:
    """(benchmark, column, value) of every count or figure of history.csv that is not a number."""
    out = []
    for row in history.to_dict(orient="records"):
        for column, value in row.items():
            if value != "" and typed_cell(column, value) is NOT_A_NUMBER:
                out.append((str(row["benchmark"]), str(column), value))
    return out


def lost_from_latest(reports: Reports) -> list[str]:
    """Benchmarks history.csv holds that a readable latest.json does not (every benchmark ever published keeps a
    record there, marked gone when its source stops publishing it)."""
    if problem_of(lambda: load_latest(reports)) is not None or problem_of(lambda: load_history(reports)) is not None:
        return []
    if not reports.latest.exists():  # said apart: "missing while history.csv holds ..."
        return []
    return sorted(set(load_history(reports)["benchmark"]) - set(load_latest(reports)))
