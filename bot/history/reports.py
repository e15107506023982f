"""The machine-readable audit record in ``reports/``: latest figures, history, alerts and run log."""

from __future__ import annotations

import io
import json
import math
from dataclasses import dataclass
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


@dataclass(frozen=True)
class Reports:
    """The files of one reports folder."""

    root: Path

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
    if not reports.latest.exists():
        return {}
    data = json.loads(reports.latest.read_text(encoding="utf-8"))
    return {rec["benchmark"]: rec for rec in data["benchmarks"]}


def load_alerts(reports: Reports) -> list[dict]:
    """Every alert ever raised, oldest first."""
    if not reports.alerts.exists():
        return []
    return json.loads(reports.alerts.read_text(encoding="utf-8"))["alerts"]


def load_history(reports: Reports) -> pd.DataFrame:
    """The append-only history of snapshots."""
    if not reports.history.exists():
        return pd.DataFrame(columns=HISTORY_COLUMNS)
    return pd.read_csv(reports.history, dtype={"revision": str, "flags": str}, keep_default_na=False)


def _write_if_changed(path: Path, text: str) -> None:
    if path.exists() and path.read_text(encoding="utf-8") == text:
        return
    atomic_write_text(path, text)


def write_latest(reports: Reports, records: dict[str, dict]) -> None:
    """Rewrite latest.json with one record per benchmark, sorted by name."""
    body = {"benchmarks": [records[k] for k in sorted(records)]}
    _write_if_changed(reports.latest, to_json(body))


def write_alerts(reports: Reports, alerts: list[dict]) -> None:
    """Rewrite alerts.json (append-only in content: callers pass the old alerts first)."""
    _write_if_changed(reports.alerts, to_json({"alerts": alerts}))


def append_history(reports: Reports, rows: list[dict]) -> None:
    """Append snapshot rows to history.csv."""
    if not rows:
        return
    old = load_history(reports)
    new = pd.DataFrame([{c: rounded(r.get(c)) for c in HISTORY_COLUMNS} for r in rows], columns=HISTORY_COLUMNS)
    both = new if old.empty else pd.concat([old, new], ignore_index=True)
    _write_if_changed(reports.history, _csv_text(both))


def append_run(reports: Reports, row: dict) -> None:
    """Append one line to the run log."""
    old = pd.read_csv(reports.runs, dtype=str, keep_default_na=False) if reports.runs.exists() else None
    new = pd.DataFrame([{c: row.get(c) for c in RUN_COLUMNS}], columns=RUN_COLUMNS)
    both = new if old is None else pd.concat([old, new], ignore_index=True)
    atomic_write_text(reports.runs, _csv_text(both))


def write_table(path: Path, df: pd.DataFrame) -> None:
    """Write a per-benchmark table (items or models) as sorted CSV."""
    _write_if_changed(path, _csv_text(df))


def load_table(path: Path) -> pd.DataFrame | None:
    """A per-benchmark table (items or models) written by ``write_table``, or None."""
    if not path.exists():
        return None
    key = {"items": "item_id", "models": "model"}.get(path.parent.name, "date")
    return pd.read_csv(path, dtype={key: str}, keep_default_na=False, na_values=[""])


def load_sources(reports: Reports) -> dict[str, dict]:
    """The status of every source ever run: last attempt, last success, error, revision."""
    if not reports.sources.exists():
        return {}
    return json.loads(reports.sources.read_text(encoding="utf-8"))["sources"]


def write_sources(reports: Reports, statuses: dict[str, dict]) -> None:
    """Rewrite sources.json."""
    _write_if_changed(reports.sources, to_json({"sources": statuses}))


def load_changelog(reports: Reports) -> list[dict]:
    """Every snapshot's changes (models and items added, removed or rescored), oldest first."""
    if not reports.changelog.exists():
        return []
    return json.loads(reports.changelog.read_text(encoding="utf-8"))["changes"]


def append_changelog(reports: Reports, changes: list[dict]) -> None:
    """Append the changes of this run's new snapshots."""
    if changes:
        _write_if_changed(reports.changelog, to_json({"changes": load_changelog(reports) + changes}))
