"""``check`` and ``repair`` of a reports folder: every file read through its one loader, the folder's
files checked against each other, and what can be rebuilt from the rest rebuilt (after a backup)."""

from __future__ import annotations

import csv
import json
import shutil
from collections.abc import Callable
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

import pandas as pd

from benchwatch.errors import InputError
from benchwatch.history.folder import COMMIT, STAGING, Reports, recover
from benchwatch.history.formats import csv_text, is_merge_marker, parse_csv, to_json, versioned
from benchwatch.history.records import FILES, file_schema, upgrade
from benchwatch.history.reports import (
    HISTORY_COLUMNS,
    RUN_COLUMNS,
    history_rows,
    load_alerts,
    load_changelog,
    load_history,
    load_latest,
    load_runs,
    load_sources,
    parse_snapshot_file,
    read_table,
)
from benchwatch.store import slug_collisions

BACKUP = ".repair-backup"
TABLES = ("items", "models", "by_date")


def _problem(load: Callable[[], object]) -> str | None:
    try:
        load()
    except InputError as exc:
        return str(exc)
    return None


def _file_loaders(reports: Reports, validate: bool = True) -> dict[Path, Callable[[], object]]:
    """Each file's loader; ``validate`` off reads latest.json's and alerts.json's shape only (``check`` names each
    field's problem from the schema instead)."""
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
            loaders[path] = partial(read_table, reports, path)
    for kind in ("responses", "aggregates"):
        for path in sorted((reports.root / "snapshots" / kind).glob("*.csv.gz")):
            loaders[path] = partial(parse_snapshot_file, path, kind)
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


def implied_files(reports: Reports, rec: dict) -> list[Path]:
    """The files a published record implies: its models table and last good data, and the items table of a
    benchmark whose items were placed. None for a record waiting for its refit (``rebuilt``, ``refit``)."""
    if rec.get("rebuilt") or rec.get("refit"):
        return []
    name = rec["benchmark"]
    if rec.get("kind") == "aggregate":  # per-item data published as scores only keeps its responses
        return [reports.models(name), reports.snapshot(name, "responses" if rec.get("per_item") else "aggregates")]
    files = [reports.models(name), reports.snapshot(name, "responses")]
    if rec.get("max_gap") is not None:
        files.append(reports.items(name))
    return files


def check_reports(root: str | Path, site: str | Path | None = None) -> list[str]:
    """Every problem of a reports folder (and of its built site), one line each; empty when all is well."""
    reports = Reports(Path(root))
    if not reports.root.is_dir():
        return [f"{reports.root}: no such folder (nothing to check)"]
    problems = []
    if (reports.root / STAGING / COMMIT).exists():
        problems.append(f"{reports.root / STAGING}: a committed run was interrupted while its files were swapped in")
    damaged = set()
    for path, load in _file_loaders(reports, validate=False).items():
        problem = _problem(load)
        if problem:
            problems.append(problem)
            damaged.add(path)
    for name in FILES:
        path = reports.root / name
        if path.exists() and path not in damaged:
            found = schema_problems(path)
            problems += found
            if found:
                damaged.add(path)
    latest = {} if reports.latest in damaged and _problem(lambda: load_latest(reports)) else load_latest(reports)
    if reports.history not in damaged:
        history = load_history(reports)
        if latest and not reports.history.exists():
            problems.append(f"{reports.history}: missing while latest.json lists {len(latest)} benchmark(s)")
        have = set(zip(history["benchmark"], history["revision"], strict=True))
        for name, rec in sorted(latest.items()):
            if reports.history.exists() and (name, rec.get("revision")) not in have:
                problems.append(f"{reports.history}: no row for {name!r} at revision {rec.get('revision')!r}")
        for name, column, value in history_cell_problems(history):
            problems.append(f"{reports.history}: {name!r}'s {column!r} is {value!r}, not a number")
        key = ["revision", "method", "scale"]
        again = history[key].eq(history.groupby("benchmark")[key].shift()).all(axis=1)  # a row that changed nothing
        for row in history[again].itertuples():
            problems.append(f"{reports.history}: {row.benchmark!r} at revision {row.revision!r} twice in a row")
    if not reports.latest.exists() and reports.history not in damaged:
        named = load_history(reports)["benchmark"].nunique()
        if named:
            problems.append(f"{reports.latest}: missing while history.csv holds {named} benchmark(s)")
    for name, rec in sorted(latest.items()):
        for path in implied_files(reports, rec):
            if not path.exists():
                problems.append(f"{path}: missing, while latest.json publishes {name!r}")
    for a, b in slug_collisions(set(latest)):
        problems.append(f"{reports.latest}: benchmarks {a!r} and {b!r} share one file name")
    if site is not None:
        out = Path(site).resolve()
        if not out.exists() and (out.parent / f".{out.name}.old").is_dir():
            problems.append(f"{out}: missing; the last good site is at {out.parent / f'.{out.name}.old'}")
    return problems


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

    before: dict[str, dict]
    alerts, before = [], {}
    for row in history.to_dict(orient="records"):
        fig = {**row, "flags": str(row.get("flags") or "").split()}
        for k in ("ddm", "max_gap", "top5_gap_sum", "saturation_index", "top1", "top5", "top5_mean"):
            fig[k] = pd.to_numeric(fig.get(k), errors="coerce")
            fig[k] = None if pd.isna(fig[k]) else float(fig[k])
        alerts += diff_alerts(before.get(row["benchmark"]), fig, row["snapshot_at"])
        before[row["benchmark"]] = fig
    seen, unique = set(), []
    for a in alerts:
        if a["id"] not in seen:
            seen.add(a["id"])
            unique.append(a)
    return unique


FIGURE_COLUMNS = ("ddm", "max_gap", "top3_gap_sum", "top5_gap_sum", "saturation_index", "top1", "top5", "top5_mean")


_NOT_A_NUMBER = object()


def _typed(column: str, value: object) -> object:
    """A history cell as the record's field holds it: counts as integers, figures as numbers, text as text;
    ``_NOT_A_NUMBER`` for a count or figure that is not a number."""
    if column not in ("n_models", "n_items") and column not in FIGURE_COLUMNS:
        return value
    if not isinstance(value, str | int | float):
        return _NOT_A_NUMBER
    try:
        number = float(value)
    except ValueError:
        return _NOT_A_NUMBER
    if column in ("n_models", "n_items"):
        return int(number) if number == number and abs(number) != float("inf") else _NOT_A_NUMBER
    return number


def history_cell_problems(history: pd.DataFrame) -> list[tuple[str, str, object]]:
    """(benchmark, column, value) of every count or figure of history.csv that is not a number."""
    out = []
    for row in history.to_dict(orient="records"):
        for column, value in row.items():
            if value != "" and _typed(column, value) is _NOT_A_NUMBER:
                out.append((str(row["benchmark"]), str(column), value))
    return out


def _latest_from_history(history: pd.DataFrame) -> dict:
    """Minimal records (the history's last row of each benchmark), marked ``rebuilt``: the next run refits them. A
    cell that is not a number is left out of its record (the record stays valid; ``check`` names the cell)."""
    records: list[dict] = []  # JSON records, as load_latest reads them
    for row in history.drop_duplicates("benchmark", keep="last").to_dict(orient="records"):
        rec = {k: _typed(k, v) for k, v in row.items() if v != ""}
        rec = {k: v for k, v in rec.items() if v is not _NOT_A_NUMBER}
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


def repair_reports(root: str | Path, log: Callable[[str], None] = print) -> list[str]:
    """Fix what ``check_reports`` finds from the folder's other files; every file
    replaced is first copied to ``.repair-backup/<time>/``. Returns what was done, one line each."""
    reports = Reports(Path(root))
    done: list[str] = []
    recover(reports.root)
    backup = reports.root / BACKUP / datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")

    def replace(path: Path, text: str | bytes, how: str) -> None:
        kept = backup / path.relative_to(reports.root)
        if path.exists() and not kept.exists():  # the file as it was before the repair, not a step of it
            kept.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, kept)
        reports.write_bytes(path, text if isinstance(text, bytes) else text.encode("utf-8"))
        done.append(f"{path}: {how}" + (f" (the old file is in {backup})" if backup.exists() else ""))

    loaders = _file_loaders(reports)
    refit: set[Path] = set()  # tables and snapshots moved aside
    for path, load in loaders.items():
        if _problem(load) is None:
            continue
        if path == reports.history:
            history, dropped = _salvage_csv(path, HISTORY_COLUMNS)
            replace(path, csv_text(history), f"kept {len(history)} good rows, dropped {dropped}")
        elif path == reports.runs:
            runs, dropped = _salvage_csv(path, RUN_COLUMNS)
            replace(path, csv_text(runs), f"kept {len(runs)} good rows, dropped {dropped}")
        elif path == reports.latest:
            pass  # rebuilt below, from the history
        elif path == reports.alerts:
            replayed = _replay_alerts(load_history(reports))
            replace(path, to_json(versioned("alerts", replayed)), "rebuilt from history.csv")
        elif path == reports.sources:
            replace(path, to_json(versioned("sources", {})), "reset: the next run records every source again")
        elif path == reports.changelog:
            kept, lost = _salvage_entries(path)
            replace(path, to_json(versioned("changes", kept)), f"kept the {len(kept)} complete entries, dropped {lost}")
        else:  # a table or a snapshot: moved aside, its benchmark refitted from its data on the next run
            (backup / path.relative_to(reports.root)).parent.mkdir(parents=True, exist_ok=True)
            shutil.move(path, backup / path.relative_to(reports.root))
            refit.add(path)
    if _problem(lambda: load_latest(reports)) is not None or (
        not reports.latest.exists() and len(load_history(reports))
    ):
        history = load_history(reports)
        replace(reports.latest, to_json(_latest_from_history(history)), "rebuilt from history.csv (refit next run)")
        for name, column, value in history_cell_problems(history.drop_duplicates("benchmark", keep="last")):
            done.append(f"{reports.latest}: {name!r}'s {column!r} left out: history.csv holds {value!r}, not a number")
    latest_now = load_latest(reports)
    for name, rec in sorted(latest_now.items()):  # a published benchmark whose files are damaged or gone
        gone = {p for p in implied_files(reports, rec) if not p.exists()} | (refit & _own_files(reports, name))
        if gone:
            rec["refit"] = "its files were damaged or missing: " + ", ".join(sorted({p.name for p in gone}))
            for p in sorted(gone):
                how = "moved to the backup" if p in refit else "missing"
                done.append(f"{p}: {how}; {name!r} is refitted from its data on the next run, which writes it again")
    if any(rec.get("refit") for rec in latest_now.values()):
        marked = versioned("benchmarks", [latest_now[k] for k in sorted(latest_now)])
        replace(reports.latest, to_json(marked), "refits marked")
    for path in sorted(refit - {p for n in latest_now for p in _own_files(reports, n)}):
        done.append(f"{path}: moved to the backup (no published benchmark has it)")
    latest = {k: r for k, r in load_latest(reports).items() if not r.get("rebuilt")}
    history = load_history(reports)
    have = set(zip(history["benchmark"], history["revision"], strict=True))
    missing = [  # records whose snapshot the history lost
        {**r, "flags": " ".join(r.get("flags", []))}
        for r in latest.values()
        if (r["benchmark"], r.get("revision")) not in have
    ]
    if missing:
        rows = pd.concat([history, history_rows(missing)], ignore_index=True) if len(history) else history_rows(missing)
        rows = rows.sort_values("snapshot_at", kind="stable")
        how = f"{len(missing)} row(s) rebuilt from latest.json (the latest snapshot of each benchmark)"
        replace(reports.history, csv_text(rows), how)
    for line in done:
        log(line)
    return done
