"""The machine-readable audit record in ``reports/``: latest figures, history, alerts and run log, each loaded
and written through the folder's ``Reports`` (``benchwatch.history.folder``) in the text of
``benchwatch.history.formats``."""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from benchwatch.errors import InputError
from benchwatch.history.folder import Reports
from benchwatch.history.formats import csv_text, damaged, parse_csv, parse_json, rounded, to_json, versioned
from benchwatch.history.ledger import ledger_text
from benchwatch.store import parse_snapshot, snapshot_bytes

if TYPE_CHECKING:  # pydantic loads where a record is read or written, not with the history's tables
    from benchwatch.record import BenchmarkRecord

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


def load_latest(reports: Reports, validate: bool = True) -> dict[str, BenchmarkRecord]:
    """The latest record of every benchmark, by name (empty if there is none yet), each validated as the typed
    record (``validate`` off: the file's shape only, for ``check``, which names every field's problem). Each holds
    its fields as the file does (a field absent there is unset, a number as it was written: written back, the same
    bytes)."""
    text = reports.read(reports.latest)
    if text is None:
        return {}
    last = _last_latest
    if last is not None and last[0] == validate and last[1] == text:  # read again unchanged: the same records
        return dict(last[2])
    records = parse_json(reports.latest, text, "benchmarks", list)
    if not all(isinstance(r, dict) and isinstance(r.get("benchmark"), str) for r in records):
        raise damaged(reports.latest, "a record without a benchmark name")
    if validate:
        _validated(reports.latest, "BenchmarkRecord", records, "benchmark")
    from benchwatch.record import as_record

    loaded = {rec.benchmark: rec for rec in (as_record(rec) for rec in records)}
    _remember_latest(validate, text, loaded)
    return dict(loaded)


# The last latest.json read, as text, and its records: a run reads it several times (the repair check, the fetch,
# the publication), most often unchanged; the records are frozen, so the same ones serve every read of that text.
_last_latest: tuple[bool, str, dict[str, BenchmarkRecord]] | None = None


def _remember_latest(validate: bool, text: str, loaded: dict[str, BenchmarkRecord]) -> None:
    global _last_latest
    _last_latest = (validate, text, loaded)


def _validated(path: Path, model: str, records: list, key: str) -> None:
    """Each record of a file read as the typed record it is written as (``benchwatch.history.records``): one that
    does not validate (a field undeclared, mistyped or missing) makes the file damaged, naming the record, the
    field and the value, as on write."""
    from benchwatch.history import records as typed_records

    cls = getattr(typed_records, model)
    for rec in records:
        try:
            typed_records.typed(cls, rec, str(rec.get(key, "?")))
        except InputError as exc:
            raise damaged(path, f"record {exc}") from None


def page_groups(records: Mapping[str, BenchmarkRecord]) -> dict[str, list[BenchmarkRecord]]:
    """Benchmark id -> its records, per-item fits first (the one named as the page first of them), then boards,
    each by name."""
    groups: dict[str, list[BenchmarkRecord]] = {}
    for rec in records.values():
        groups.setdefault(rec.page or rec.benchmark, []).append(rec)
    for pid, recs in groups.items():
        recs.sort(key=partial(_page_order, pid))
    return groups


def _page_order(pid: str, rec: BenchmarkRecord) -> tuple[bool, bool, str]:
    """A record's place on its page's list: per-item fits first, the one named as the page first of them, by name."""
    return (rec.kind == "aggregate", rec.benchmark != pid, rec.benchmark)


def load_alerts(reports: Reports, validate: bool = True) -> list[dict]:
    """Every alert ever raised, oldest first, each validated (``validate``: as ``load_latest``'s)."""
    text = reports.read(reports.alerts)
    if text is None:
        return []
    alerts = parse_json(reports.alerts, text, "alerts", list)
    if not all(isinstance(a, dict) and {"id", "benchmark", "raised_at", "title"} <= a.keys() for a in alerts):
        raise damaged(reports.alerts, "an alert without its id, benchmark, raised_at or title")
    if validate:
        _validated(reports.alerts, "Alert", alerts, "id")
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


def write_latest(reports: Reports, records: Mapping[str, BenchmarkRecord]) -> None:
    """Rewrite latest.json with one record per benchmark, sorted by name, each as its file holds it (``written``)
    and validated as the typed record (``benchwatch.record.BenchmarkRecord``: a mistyped or missing field stops
    the write, naming it)."""
    from benchwatch.history.records import BenchmarkRecord, typed, written

    bodies = [written(records[name]) for name in sorted(records)]
    for name, body in zip(sorted(records), bodies, strict=True):
        typed(BenchmarkRecord, body, f"{reports.latest.name}: {name}")
    _write_if_changed(reports, reports.latest, to_json(versioned("benchmarks", bodies)))


def write_alerts(reports: Reports, alerts: list[dict]) -> None:
    """Rewrite alerts.json (append-only in content: callers pass the old alerts first), each alert validated."""
    from benchwatch.history.records import Alert, typed

    for alert in alerts:
        typed(Alert, alert, f"{reports.alerts.name}: {alert.get('id', '?')}")
    _write_if_changed(reports, reports.alerts, to_json(versioned("alerts", alerts)))
    _write_if_changed(reports, reports.ledger(reports.alerts), ledger_text(alerts))  # its second copy


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
        raise damaged(path, f"no column {', '.join(map(repr, missing))} (the header is {','.join(df.columns)!r})")
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
        raise damaged(path, str(exc).removeprefix(f"{path}: ")) from None


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
    """Append the changes of this run's new snapshots (and write the ledger, its second copy, where it is not yet)."""
    ledger = reports.ledger(reports.changelog)
    if changes or (reports.read_bytes(ledger) is None and reports.read_bytes(reports.changelog) is not None):
        entries = load_changelog(reports) + changes
        _write_if_changed(reports, reports.changelog, to_json(versioned("changes", entries)))
        _write_if_changed(reports, ledger, ledger_text(entries))
