"""``benchwatch repair``: fix what ``benchwatch.history.check_reports`` finds from the folder's other files (a
scheduled run does it too before it writes, ``benchwatch.pipeline.heal``); every file replaced is first copied to
``.repair-backup/<time>/``."""

from __future__ import annotations

import csv
import json
import shutil
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from benchwatch.errors import InputError
from benchwatch.history.check import (
    BACKUP,
    NOT_A_NUMBER,
    file_loaders,
    history_cell_problems,
    implied_files,
    lost_from_latest,
    problem_of,
    typed_cell,
)
from benchwatch.history.folder import Reports, recover
from benchwatch.history.formats import csv_text, is_merge_marker, parse_csv, to_json, versioned
from benchwatch.history.ledger import lacking, ledger_text, read_ledger, union
from benchwatch.history.records import BenchmarkRecord, written
from benchwatch.history.reports import (
    HISTORY_COLUMNS,
    RUN_COLUMNS,
    history_rows,
    load_alerts,
    load_changelog,
    load_history,
    load_latest,
)
from benchwatch.vocabulary import FIGURES, SATURATION_FIGURES


def _salvage_csv(path: Path, columns: list[str]) -> tuple[pd.DataFrame, int]:
    """The rows of a damaged CSV that have the header's fields (merge markers and cut rows left out)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    lines = [ln for ln in text.splitlines() if not is_merge_marker(ln)]
    if text and not text.endswith("\n") and lines:
        lines = lines[:-1]  # a cut last line
    good, dropped = [], 0
    for line in lines[1:]:
        try:
            row = next(csv.reader([line], strict=True))
        except (csv.Error, StopIteration):
            dropped += 1
            continue
        if len(row) == len(columns):
            good.append(row)
        else:
            dropped += 1
    frame = pd.DataFrame(good, columns=columns).drop_duplicates()
    return parse_csv(path, csv_text(frame), columns, blanks=False), dropped


def _replay_alerts(history: pd.DataFrame) -> list[dict]:
    """The alerts of every change of state and flag in the history (the notices of held or gone data cannot be)."""
    from benchwatch.alerts import diff_alerts
    from benchwatch.record import as_record

    before: dict[str, BenchmarkRecord]
    alerts, before = [], {}
    for row in history.to_dict(orient="records"):
        fig = {**row, "flags": str(row.get("flags") or "").split()}
        for k in (*FIGURES, *SATURATION_FIGURES):  # the figures the alerts read
            fig[k] = pd.to_numeric(fig.get(k), errors="coerce")
            fig[k] = None if pd.isna(fig[k]) else float(fig[k])
        rec = as_record(fig)
        alerts += diff_alerts(before.get(rec.benchmark), rec, rec.snapshot_at)
        before[rec.benchmark] = rec
    seen, unique = set(), []
    for a in alerts:
        if a["id"] not in seen:
            seen.add(a["id"])
            unique.append(a)
    return unique


def _latest_from_history(history: pd.DataFrame) -> dict:
    """Minimal records (the history's last row of each benchmark), marked ``rebuilt``: the next run refits them. A
    cell that is not a number is left out of its record (the record stays valid; ``check`` names the cell)."""
    records: list[dict] = []  # JSON records, as load_latest reads them
    for row in history.drop_duplicates("benchmark", keep="last").to_dict(orient="records"):
        rec = {k: typed_cell(k, v) for k, v in row.items() if v != ""}
        rec = {k: v for k, v in rec.items() if v is not NOT_A_NUMBER}
        rec["flags"] = str(row.get("flags") or "").split()
        rec["rebuilt"] = True
        records.append(rec)
    return versioned("benchmarks", sorted(records, key=lambda r: r["benchmark"]))


def _own_files(reports: Reports, name: str) -> set[Path]:
    """Every table and snapshot a benchmark may have."""
    return {
        reports.items(name),
        reports.models(name),
        reports.by_date(name),
        reports.snapshot(name, "responses"),
        reports.snapshot(name, "aggregates"),
    }


def _salvage_entries(path: Path) -> tuple[list[dict], int]:
    """The complete entries of a cut or damaged ``{"changes": [...]}`` file, and how many were lost (at least
    the one that was cut, when the file does not end where an entry does)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    start = text.find("[")
    decoder, kept, at = json.JSONDecoder(), [], start + 1
    while start >= 0:
        while at < len(text) and text[at] in " \t\r\n,":
            at += 1
        if at >= len(text) or text[at] != "{":
            break
        try:
            entry, at = decoder.raw_decode(text, at)
        except json.JSONDecodeError:
            break
        if isinstance(entry, dict):
            kept.append(entry)
    complete = text.rstrip().endswith("}") and text[at:].strip().startswith("]")
    return kept, 0 if complete else 1


def _whole_alerts(path: Path) -> list[dict]:
    """The complete alerts of a cut or damaged alerts.json that are valid alerts, as they were."""
    return [entry for entry in _salvage_entries(path)[0] if _is_alert(entry)]


def _restore_pair(reports: Reports, path: Path, damaged: bool, replace: Callable[[Path, str, str], None]) -> None:
    """alerts.json or changelog.json and its ledger made whole from each other (``benchwatch.history.ledger``):
    every entry either holds, once, as it was; the alerts neither holds replayed from history.csv. Untouched where
    both are whole and agree."""
    alerts = path == reports.alerts
    ledger = reports.ledger(path)
    logged, bad = read_ledger(ledger)
    if alerts:
        logged = [a for a in logged if _is_alert(a)]
    missing = not path.exists() and bool(logged)
    if damaged or missing:
        whole = [] if missing else (_whole_alerts(path) if alerts else _salvage_entries(path)[0])
    else:
        whole = load_alerts(reports) if alerts else load_changelog(reports)
    restored = lacking(whole, logged)
    replayed = []
    if alerts and (damaged or missing):  # what neither copy holds: the history's changes of state and flag
        replayed = lacking([*whole, *restored], _replay_alerts(load_history(reports)))
    entries = (
        union(path.name, logged, [*whole, *replayed])
        if bad == 0 and logged
        else union(path.name, whole, [*restored, *replayed])
    )
    if damaged or missing or restored:
        how = f"kept the {len(whole)} whole entries as they were, restored {len(restored)} from {ledger.name}"
        how += f", rebuilt {len(replayed)} lost ones from history.csv" if alerts else ""
        replace(path, to_json(versioned("alerts" if alerts else "changes", entries)), how)
    if (ledger.exists() or entries) and (bad or lacking(logged, entries)):
        replace(ledger, ledger_text(entries), f"rewritten from {path.name} ({bad} damaged line(s))")


def _is_alert(entry: dict) -> bool:
    from benchwatch.history.records import Alert, typed

    try:
        typed(Alert, entry, "alerts.jsonl")
    except InputError:
        return False
    return True


def _fix_damaged(
    reports: Reports,
    loaders: dict[Path, Callable[[], object]],
    backup: Path,
    replace: Callable[[Path, str, str], None],
) -> set[Path]:
    """Each damaged file of ``loaders`` fixed from itself: history.csv and runs.csv keep their good rows, sources.json
    is reset, a table or a snapshot is moved to ``backup`` (returned: its benchmark is refitted from its data on the
    next run); latest.json, alerts.json and changelog.json are left to the steps after."""
    refit: set[Path] = set()
    for path, load in loaders.items():
        if problem_of(load) is None:
            continue
        if path == reports.history:
            history, dropped = _salvage_csv(path, HISTORY_COLUMNS)
            replace(path, csv_text(history), f"kept {len(history)} good rows, dropped {dropped}")
        elif path == reports.runs:
            runs, dropped = _salvage_csv(path, RUN_COLUMNS)
            replace(path, csv_text(runs), f"kept {len(runs)} good rows, dropped {dropped}")
        elif path == reports.latest:
            pass  # rebuilt below, from the history
        elif path in (reports.alerts, reports.changelog):
            pass  # restored below, with its ledger
        elif path == reports.sources:
            replace(path, to_json(versioned("sources", {})), "reset: the next run records every source again")
        else:  # a table or a snapshot: moved aside, its benchmark refitted from its data on the next run
            (backup / path.relative_to(reports.root)).parent.mkdir(parents=True, exist_ok=True)
            shutil.move(path, backup / path.relative_to(reports.root))
            refit.add(path)
    return refit


def repair_reports(root: str | Path, log: Callable[[str], None] = print) -> list[str]:
    """Fix what ``check_reports`` finds from the folder's other files; every file
    replaced is first copied to ``.repair-backup/<time>/``. Returns what was done, one line each."""
    reports = Reports(Path(root))
    done: list[str] = []
    recovered = recover(reports.root)
    if recovered is not None:
        done.append(recovered.text)
    backup = reports.root / BACKUP / datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")

    def replace(path: Path, text: str | bytes, how: str) -> None:
        kept = backup / path.relative_to(reports.root)
        if path.exists() and not kept.exists():  # the file as it was before the repair, not a step of it
            kept.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, kept)
        reports.write_bytes(path, text if isinstance(text, bytes) else text.encode("utf-8"))
        done.append(f"{path}: {how}" + (f" (the old file is in {backup})" if backup.exists() else ""))

    loaders = file_loaders(reports)
    refit = _fix_damaged(reports, loaders, backup, replace)  # tables and snapshots moved aside
    for path in (reports.alerts, reports.changelog):
        _restore_pair(reports, path, problem_of(loaders[path]) is not None, replace)
    if problem_of(lambda: load_latest(reports)) is not None or (
        not reports.latest.exists() and len(load_history(reports))
    ):
        history = load_history(reports)
        replace(reports.latest, to_json(_latest_from_history(history)), "rebuilt from history.csv (refit next run)")
        for name, column, value in history_cell_problems(history.drop_duplicates("benchmark", keep="last")):
            done.append(f"{reports.latest}: {name!r}'s {column!r} left out: history.csv holds {value!r}, not a number")
    lost_names = lost_from_latest(reports)
    if lost_names:
        rebuilt = _latest_from_history(load_history(reports))["benchmarks"]
        records = {k: written(r) for k, r in load_latest(reports).items()}
        records.update({r["benchmark"]: r for r in rebuilt if r["benchmark"] in lost_names})
        body = versioned("benchmarks", [records[k] for k in sorted(records)])
        replace(
            reports.latest,
            to_json(body),
            f"{len(lost_names)} lost benchmark(s) rebuilt from history.csv (refit next run)",
        )
    latest_now = load_latest(reports)
    for name, rec in sorted(latest_now.items()):  # a published benchmark whose files are damaged or gone
        gone = {p for p in implied_files(reports, rec) if not p.exists()} | (refit & _own_files(reports, name))
        if gone:
            why = "its files were damaged or missing: " + ", ".join(sorted({p.name for p in gone}))
            latest_now[name] = rec.model_copy(update={"refit": why})
            for p in sorted(gone):
                how = "moved to the backup" if p in refit else "missing"
                done.append(f"{p}: {how}; {name!r} is refitted from its data on the next run, which writes it again")
    if any(rec.refit for rec in latest_now.values()):
        marked = versioned("benchmarks", [written(latest_now[k]) for k in sorted(latest_now)])
        replace(reports.latest, to_json(marked), "refits marked")
    for path in sorted(refit - {p for n in latest_now for p in _own_files(reports, n)}):
        done.append(f"{path}: moved to the backup (no published benchmark has it)")
    latest = {k: r for k, r in load_latest(reports).items() if not r.rebuilt}
    history = load_history(reports)
    have = set(zip(history["benchmark"], history["revision"], strict=True))
    missing = [  # records whose snapshot the history lost
        {**written(r), "flags": " ".join(r.flags or [])}
        for r in latest.values()
        if (r.benchmark, r.revision) not in have
    ]
    if missing:
        rows = pd.concat([history, history_rows(missing)], ignore_index=True) if len(history) else history_rows(missing)
        rows = rows.sort_values("snapshot_at", kind="stable")
        how = f"{len(missing)} row(s) rebuilt from latest.json (the latest snapshot of each benchmark)"
        replace(reports.history, csv_text(rows), how)
    for line in done:
        log(line)
    return done
