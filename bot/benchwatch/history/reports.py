"""The machine-readable audit record in ``reports/``: latest figures, history, alerts and run log."""

from __future__ import annotations

import csv
import io
import json
import math
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from benchwatch.errors import InputError
from benchwatch.history.records import SCHEMA_VERSION, upgrade
from benchwatch.store import atomic_write_bytes, atomic_write_text, parse_snapshot, safe_slug, snapshot_bytes

DIGITS = 6
HISTORY_COLUMNS = [
    "snapshot_at",
    "benchmark",
    "revision",
    "method",
    "scale",
    "n_models",
    "n_items",
    "ddm",
    "max_gap",
    "top3_gap_sum",
    "top5_gap_sum",
    "saturation_index",
    "band",
    "top1",
    "top5",
    "top5_mean",
    "state",
    "flags",
]
RUN_COLUMNS = ["started_at", "seconds", "benchmarks", "new_snapshots", "alerts", "status", "sources"]


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


def is_merge_marker(line: str) -> bool:
    """A line git writes around a merge conflict."""
    return line.startswith(("<<<<<<< ", ">>>>>>> ")) or line.rstrip() == "======="


def _damaged(path: Path, problem: str) -> InputError:
    return InputError(str(path), f"{problem}; run `benchwatch check` for every problem, `benchwatch repair` to fix")


def _merge_marker(path: Path, text: str) -> None:
    for number, line in enumerate(text.splitlines(), 1):
        if is_merge_marker(line):
            raise _damaged(path, f"a git merge conflict marker on line {number} ({line[:20]!r})")


def parse_json(path: Path, text: str, key: str, kind: type) -> object:
    """``text`` as one of the JSON files of reports/ (``{key: kind}``); anything else names file and problem."""
    _merge_marker(path, text)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno}, column {exc.colno}"
        raise _damaged(path, f"not valid JSON (cut or damaged) at {where}: {exc.msg}") from None
    if not isinstance(data, dict) or not isinstance(data.get(key), kind):
        raise _damaged(path, f"expected an object with {key!r} as a {'list' if kind is list else 'mapping'}")
    version = data.get("schema_version", 0)
    if not isinstance(version, int) or isinstance(version, bool) or not 0 <= version <= SCHEMA_VERSION:
        raise _damaged(
            path,
            f"schema_version {version!r}: this benchwatch reads versions 0 to {SCHEMA_VERSION} (a newer benchwatch "
            "wrote it: upgrade benchwatch)",
        )
    return upgrade(path.name, data)[key]


def versioned(key: str, value: object) -> dict:
    """A JSON file's body: its schema version, then its content under ``key``."""
    return {"schema_version": SCHEMA_VERSION, key: value}


def parse_csv(path: Path, text: str, columns: list[str] | None = None, *, blanks: bool = True) -> pd.DataFrame:
    """``text`` as one of the CSV files of reports/, checked row by row (a cut row, an extra field, an
    unclosed quote, the wrong header or a merge marker is an error naming the file, the line and the problem).
    ``blanks``: empty cells are missing values (tables) rather than empty text (history, run log)."""
    _merge_marker(path, text)
    if text and not text.endswith("\n"):
        raise _damaged(path, "the last line has no line end (the file was cut)")
    reader = csv.reader(io.StringIO(text), strict=True)
    try:
        rows = list(reader)
    except csv.Error as exc:
        raise _damaged(path, f"line {reader.line_num}: {exc} (an unclosed quote?)") from None
    if not rows:
        raise _damaged(path, "empty (no header)")
    header = rows[0]
    if columns is not None and header != columns:
        raise _damaged(path, f"the header is {','.join(header)!r}, expected {','.join(columns)!r}")
    for number, row in enumerate(rows[1:], 2):
        if len(row) != len(header):
            raise _damaged(path, f"line {number} has {len(row)} fields, the header {len(header)}")
    dtypes = {c: str for c in ("revision", "flags", "model", "item_id", "benchmark", "date", "sources", "status")}
    df = pd.read_csv(
        io.StringIO(text),
        dtype={c: t for c, t in dtypes.items() if c in header},
        keep_default_na=False,
        na_values=[""] if blanks else [],
    )
    for col in df.columns:
        if df[col].dtype == object or pd.api.types.is_string_dtype(df[col]):
            df[col] = df[col].map(sheet_text)
    return df


STAGING = ".staging"
COMMIT = "COMMIT.json"


def recover(root: Path) -> None:
    """Finish a committed run that was interrupted while swapping files in, or drop an uncommitted one."""
    staging = root / STAGING
    manifest = staging / COMMIT
    if manifest.exists():
        for rel in json.loads(manifest.read_text(encoding="utf-8")):
            staged = staging / rel
            if staged.exists():
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                os.replace(staged, root / rel)
    shutil.rmtree(staging, ignore_errors=True)


@dataclass
class Reports:
    """The files of one reports folder; inside ``transaction()`` writes are staged until commit."""

    root: Path
    _staged: set[str] | None = field(default=None, repr=False)

    @contextmanager
    def transaction(self, on_commit: Callable[[], None] = lambda: None) -> Iterator[Reports]:
        """All writes become visible together at the end, or not at all if the run dies before.

        Once the list of staged files is written the run is committed: if it dies while the files are
        swapped in, the next transaction (or ``recover``) finishes the swap."""
        recover(self.root)
        staging = self.root / STAGING
        staging.mkdir(parents=True, exist_ok=True)
        self._staged = set()
        try:
            yield self
            atomic_write_text(staging / COMMIT, json.dumps(sorted(self._staged)))
            on_commit()
            recover(self.root)
        finally:
            self._staged = None
            if not (staging / COMMIT).exists():
                shutil.rmtree(staging, ignore_errors=True)

    def write(self, path: Path, text: str) -> None:
        """Write one file: staged inside a transaction, atomically in place outside one."""
        self.write_bytes(path, text.encode("utf-8"))

    def write_bytes(self, path: Path, data: bytes) -> None:
        if self._staged is None:
            atomic_write_bytes(path, data)
            return
        rel = str(path.relative_to(self.root))
        atomic_write_bytes(self.root / STAGING / rel, data)
        self._staged.add(rel)

    def read_bytes(self, path: Path) -> bytes | None:
        """A file's bytes as this run sees it (its own staged writes first), or None."""
        if self._staged is not None:
            rel = str(path.relative_to(self.root))
            if rel in self._staged:
                return (self.root / STAGING / rel).read_bytes()
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return None

    def read(self, path: Path) -> str | None:
        """A file's text as this run sees it (its own staged writes first), or None."""
        data = self.read_bytes(path)
        if data is None:
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _damaged(path, f"not UTF-8 text (byte {exc.start})") from None

    @property
    def latest(self) -> Path:
        return self.root / "latest.json"

    @property
    def history(self) -> Path:
        return self.root / "history.csv"

    @property
    def alerts(self) -> Path:
        return self.root / "alerts.json"

    @property
    def runs(self) -> Path:
        return self.root / "runs.csv"

    @property
    def sources(self) -> Path:
        return self.root / "sources.json"

    @property
    def changelog(self) -> Path:
        return self.root / "changelog.json"

    def items(self, benchmark: str) -> Path:
        return self.root / "items" / f"{safe_slug(benchmark)}.csv"

    def models(self, benchmark: str) -> Path:
        return self.root / "models" / f"{safe_slug(benchmark)}.csv"

    def by_date(self, benchmark: str) -> Path:
        return self.root / "by_date" / f"{safe_slug(benchmark)}.csv"

    def proposal(self, benchmark: str) -> Path:
        """A proposed revision (``benchwatch fill check --record``): beside the history, never part of it."""
        return self.root / "proposals" / f"{safe_slug(benchmark)}.json"

    def snapshot(self, benchmark: str, kind: str = "responses") -> Path:
        """A benchmark's last good data (``responses`` or ``aggregates``), kept with the figures it gave."""
        return self.root / "snapshots" / kind / f"{safe_slug(benchmark)}.csv.gz"


def load_latest(reports: Reports) -> dict[str, dict]:
    """The latest record of every benchmark, by name (empty if there is none yet)."""
    text = reports.read(reports.latest)
    if text is None:
        return {}
    records = parse_json(reports.latest, text, "benchmarks", list)
    if not all(isinstance(r, dict) and isinstance(r.get("benchmark"), str) for r in records):
        raise _damaged(reports.latest, "a record without a benchmark name")
    return {rec["benchmark"]: rec for rec in records}


def page_groups(records: dict[str, dict]) -> dict[str, list[dict]]:
    """Benchmark id -> its records, per-item fits first (the one named as the page first of them), then boards,
    each by name."""
    groups: dict[str, list[dict]] = {}
    for rec in records.values():
        groups.setdefault(rec.get("page") or rec["benchmark"], []).append(rec)
    for pid, recs in groups.items():
        recs.sort(key=lambda r, pid=pid: (r.get("kind") == "aggregate", r["benchmark"] != pid, r["benchmark"]))
    return groups


def load_alerts(reports: Reports) -> list[dict]:
    """Every alert ever raised, oldest first."""
    text = reports.read(reports.alerts)
    if text is None:
        return []
    alerts = parse_json(reports.alerts, text, "alerts", list)
    if not all(isinstance(a, dict) and {"id", "benchmark", "raised_at", "title"} <= a.keys() for a in alerts):
        raise _damaged(reports.alerts, "an alert without its id, benchmark, raised_at or title")
    return alerts


def load_history(reports: Reports) -> pd.DataFrame:
    """The append-only history of snapshots."""
    text = reports.read(reports.history)
    if text is None:
        return pd.DataFrame(columns=HISTORY_COLUMNS)
    return parse_csv(reports.history, text, HISTORY_COLUMNS, blanks=False)


def load_runs(reports: Reports) -> pd.DataFrame | None:
    """The run log, or None before the first run."""
    text = reports.read(reports.runs)
    return None if text is None else parse_csv(reports.runs, text, RUN_COLUMNS, blanks=False)


def _write_if_changed(reports: Reports, path: Path, text: str) -> None:
    if reports.read_bytes(path) == text.encode("utf-8"):
        return
    reports.write(path, text)


def write_latest(reports: Reports, records: dict[str, dict]) -> None:
    """Rewrite latest.json with one record per benchmark, sorted by name, each validated as the typed record
    (``benchwatch.record.BenchmarkRecord``: an undeclared or mistyped field stops the write, naming it)."""
    from benchwatch.history.records import BenchmarkRecord, typed

    for name in sorted(records):
        typed(BenchmarkRecord, records[name], f"{reports.latest.name}: {name}")
    body = versioned("benchmarks", [records[k] for k in sorted(records)])
    _write_if_changed(reports, reports.latest, to_json(body))


def write_alerts(reports: Reports, alerts: list[dict]) -> None:
    """Rewrite alerts.json (append-only in content: callers pass the old alerts first), each alert validated."""
    from benchwatch.history.records import Alert, typed

    for alert in alerts:
        typed(Alert, alert, f"{reports.alerts.name}: {alert.get('id', '?')}")
    _write_if_changed(reports, reports.alerts, to_json(versioned("alerts", alerts)))


def history_rows(rows: list[dict]) -> pd.DataFrame:
    """Records as rows of history.csv."""
    return pd.DataFrame([{c: rounded(r.get(c)) for c in HISTORY_COLUMNS} for r in rows], columns=HISTORY_COLUMNS)


REPEAT_KEY = ["revision", "method", "scale"]  # a history row with these as its benchmark's last one says nothing new


def append_history(reports: Reports, rows: list[dict]) -> int:
    """Append snapshot rows to history.csv, except a row that only repeats its benchmark's last one (the same
    revision, method and scale: a refit after lost figures, not a new snapshot). Returns the rows appended."""
    if not rows:
        return 0
    old = load_history(reports)
    new = history_rows(rows)
    last = (
        {}
        if old.empty
        else {r["benchmark"]: r for r in old.drop_duplicates("benchmark", keep="last").to_dict("records")}
    )
    keep = []
    for row in new.to_dict("records"):
        before = last.get(row["benchmark"])
        if before is not None and all(str(before[k]) == str(row[k]) for k in REPEAT_KEY):
            continue
        keep.append(row)
        last[row["benchmark"]] = row
    if not keep:
        return 0
    new = pd.DataFrame(keep, columns=HISTORY_COLUMNS)
    both = new if old.empty else pd.concat([old, new], ignore_index=True)
    _write_if_changed(reports, reports.history, csv_text(both))
    return len(keep)


def append_run(reports: Reports, row: dict) -> None:
    """Append one line to the run log: the earlier lines are kept byte for byte (checked first, never
    rewritten)."""
    load_runs(reports)  # a damaged log is an error, not something to append to
    old = reports.read(reports.runs)
    new = csv_text(pd.DataFrame([{c: row.get(c) for c in RUN_COLUMNS}], columns=RUN_COLUMNS))
    reports.write(reports.runs, new if old is None else old + new.split("\n", 1)[1])


def write_table(reports: Reports, path: Path, df: pd.DataFrame) -> None:
    """Write a per-benchmark table (items, models, by date) as CSV."""
    _write_if_changed(reports, path, csv_text(df))


def load_proposal(reports: Reports, benchmark: str) -> dict | None:
    """The proposed revision of a benchmark, or None."""
    path = reports.proposal(benchmark)
    text = reports.read(path)
    return None if text is None else parse_json(path, text, "proposal", dict)


def load_table(path: Path) -> pd.DataFrame | None:
    """A per-benchmark table (items or models) written by ``write_table``, or None."""
    return read_table(Reports(path.parent.parent), path)


TABLE_COLUMNS = {  # the columns every reader of a per-benchmark table relies on, by its folder
    "items": ("item_id", "b", "b_sd", "z"),
    "models": ("model", "score"),
    "by_date": ("date",),
}


def read_table(reports: Reports, path: Path) -> pd.DataFrame | None:
    """A per-benchmark table as this run sees it (its own staged writes first), or None; a table without the
    columns its readers rely on is damaged."""
    text = reports.read(path)
    if text is None:
        return None
    df = parse_csv(path, text)
    missing = [c for c in TABLE_COLUMNS.get(path.parent.name, ()) if c not in df.columns]
    if missing:
        raise _damaged(path, f"no column {', '.join(map(repr, missing))} (the header is {','.join(df.columns)!r})")
    return df


def load_snapshot(reports: Reports, benchmark: str, kind: str = "responses") -> pd.DataFrame | None:
    """A benchmark's last good data as this run sees it, or None (a damaged snapshot is an error)."""
    path = reports.snapshot(benchmark, kind)
    data = reports.read_bytes(path)
    return None if data is None else _snapshot(path, data, kind)


def parse_snapshot_file(path: Path, kind: str) -> pd.DataFrame:
    """A snapshot file read on its own (by ``check``); damage names the file."""
    return _snapshot(path, path.read_bytes(), kind)


def _snapshot(path: Path, data: bytes, kind: str) -> pd.DataFrame:
    try:
        return parse_snapshot(data, str(path), kind)
    except ValueError as exc:
        raise _damaged(path, str(exc).removeprefix(f"{path}: ")) from None


def write_snapshot(reports: Reports, benchmark: str, rows: pd.DataFrame, kind: str = "responses") -> None:
    """Keep a benchmark's data with its figures (the same data writes the same bytes)."""
    path = reports.snapshot(benchmark, kind)
    data = snapshot_bytes(rows)
    if reports.read_bytes(path) != data:
        reports.write_bytes(path, data)


def load_sources(reports: Reports) -> dict[str, dict]:
    """The status of every source ever run: last attempt, last success, error, revision."""
    text = reports.read(reports.sources)
    return {} if text is None else parse_json(reports.sources, text, "sources", dict)


def write_sources(reports: Reports, statuses: dict[str, dict]) -> None:
    """Rewrite sources.json."""
    _write_if_changed(reports, reports.sources, to_json(versioned("sources", statuses)))


def load_changelog(reports: Reports) -> list[dict]:
    """Every snapshot's changes (models and items added, removed or rescored), oldest first."""
    text = reports.read(reports.changelog)
    return [] if text is None else parse_json(reports.changelog, text, "changes", list)


def append_changelog(reports: Reports, changes: list[dict]) -> None:
    """Append the changes of this run's new snapshots."""
    if changes:
        body = versioned("changes", load_changelog(reports) + changes)
        _write_if_changed(reports, reports.changelog, to_json(body))
