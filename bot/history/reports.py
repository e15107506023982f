"""The machine-readable audit record in ``reports/``: latest figures, history, alerts and run log."""

from __future__ import annotations

import io
import json
import math
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from bot.store import atomic_write_text, safe_slug

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


def _csv_text(df: pd.DataFrame) -> str:
    buf = io.StringIO()
    df.to_csv(buf, index=False, lineterminator="\n", float_format=f"%.{DIGITS}g")
    return buf.getvalue()


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
    def transaction(self) -> Iterator[Reports]:
        """All writes become visible together at the end, or not at all if the run dies before."""
        recover(self.root)
        staging = self.root / STAGING
        staging.mkdir(parents=True, exist_ok=True)
        self._staged = set()
        try:
            yield self
            atomic_write_text(staging / COMMIT, json.dumps(sorted(self._staged)))
            recover(self.root)
        finally:
            self._staged = None
            if not (staging / COMMIT).exists():
                shutil.rmtree(staging, ignore_errors=True)

    def write(self, path: Path, text: str) -> None:
        """Write one file: staged inside a transaction, atomically in place outside one."""
        if self._staged is None:
            atomic_write_text(path, text)
            return
        rel = str(path.relative_to(self.root))
        atomic_write_text(self.root / STAGING / rel, text)
        self._staged.add(rel)

    def read(self, path: Path) -> str | None:
        """A file's text as this run sees it (its own staged writes first), or None."""
        if self._staged is not None:
            rel = str(path.relative_to(self.root))
            if rel in self._staged:
                return (self.root / STAGING / rel).read_text(encoding="utf-8")
        return path.read_text(encoding="utf-8") if path.exists() else None

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


def load_latest(reports: Reports) -> dict[str, dict]:
    """The latest record of every benchmark, by name (empty if there is none yet)."""
    text = reports.read(reports.latest)
    if text is None:
        return {}
    data = json.loads(text)
    return {rec["benchmark"]: rec for rec in data["benchmarks"]}


def page_groups(records: dict[str, dict]) -> dict[str, list[dict]]:
    """Benchmark id -> its records, per-item fits first, then boards, each by name."""
    groups: dict[str, list[dict]] = {}
    for rec in records.values():
        groups.setdefault(rec.get("page") or rec["benchmark"], []).append(rec)
    for recs in groups.values():
        recs.sort(key=lambda r: (r.get("kind") == "aggregate", r["benchmark"]))
    return groups


def load_alerts(reports: Reports) -> list[dict]:
    """Every alert ever raised, oldest first."""
    text = reports.read(reports.alerts)
    return [] if text is None else json.loads(text)["alerts"]


def load_history(reports: Reports) -> pd.DataFrame:
    """The append-only history of snapshots."""
    text = reports.read(reports.history)
    if text is None:
        return pd.DataFrame(columns=HISTORY_COLUMNS)
    return pd.read_csv(io.StringIO(text), dtype={"revision": str, "flags": str}, keep_default_na=False)


def _write_if_changed(reports: Reports, path: Path, text: str) -> None:
    if reports.read(path) == text:
        return
    reports.write(path, text)


def write_latest(reports: Reports, records: dict[str, dict]) -> None:
    """Rewrite latest.json with one record per benchmark, sorted by name."""
    body = {"benchmarks": [records[k] for k in sorted(records)]}
    _write_if_changed(reports, reports.latest, to_json(body))


def write_alerts(reports: Reports, alerts: list[dict]) -> None:
    """Rewrite alerts.json (append-only in content: callers pass the old alerts first)."""
    _write_if_changed(reports, reports.alerts, to_json({"alerts": alerts}))


def append_history(reports: Reports, rows: list[dict]) -> None:
    """Append snapshot rows to history.csv."""
    if not rows:
        return
    old = load_history(reports)
    new = pd.DataFrame([{c: rounded(r.get(c)) for c in HISTORY_COLUMNS} for r in rows], columns=HISTORY_COLUMNS)
    both = new if old.empty else pd.concat([old, new], ignore_index=True)
    _write_if_changed(reports, reports.history, _csv_text(both))


def append_run(reports: Reports, row: dict) -> None:
    """Append one line to the run log."""
    text = reports.read(reports.runs)
    old = None if text is None else pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    new = pd.DataFrame([{c: row.get(c) for c in RUN_COLUMNS}], columns=RUN_COLUMNS)
    both = new if old is None else pd.concat([old, new], ignore_index=True)
    reports.write(reports.runs, _csv_text(both))


def write_table(reports: Reports, path: Path, df: pd.DataFrame) -> None:
    """Write a per-benchmark table (items, models, by date) as CSV."""
    _write_if_changed(reports, path, _csv_text(df))


def _parse_table(text: str | Path, folder: str) -> pd.DataFrame:
    key = {"items": "item_id", "models": "model"}.get(folder, "date")
    source = io.StringIO(text) if isinstance(text, str) else text
    return pd.read_csv(source, dtype={key: str}, keep_default_na=False, na_values=[""])


def load_table(path: Path) -> pd.DataFrame | None:
    """A per-benchmark table (items or models) written by ``write_table``, or None."""
    if not path.exists():
        return None
    return _parse_table(path, path.parent.name)


def read_table(reports: Reports, path: Path) -> pd.DataFrame | None:
    """A per-benchmark table as this run sees it (its own staged writes first), or None."""
    text = reports.read(path)
    return None if text is None else _parse_table(text, path.parent.name)


def load_sources(reports: Reports) -> dict[str, dict]:
    """The status of every source ever run: last attempt, last success, error, revision."""
    text = reports.read(reports.sources)
    return {} if text is None else json.loads(text)["sources"]


def write_sources(reports: Reports, statuses: dict[str, dict]) -> None:
    """Rewrite sources.json."""
    _write_if_changed(reports, reports.sources, to_json({"sources": statuses}))


def load_changelog(reports: Reports) -> list[dict]:
    """Every snapshot's changes (models and items added, removed or rescored), oldest first."""
    text = reports.read(reports.changelog)
    return [] if text is None else json.loads(text)["changes"]


def append_changelog(reports: Reports, changes: list[dict]) -> None:
    """Append the changes of this run's new snapshots."""
    if changes:
        _write_if_changed(reports, reports.changelog, to_json({"changes": load_changelog(reports) + changes}))
