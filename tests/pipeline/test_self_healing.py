"""Issue 41: a scheduled run heals what it finds, with nobody there to run `repair`. For each damage the campaign
found (latest.json deleted, the snapshots removed, a snapshot damaged, a stale staging folder left with its commit
record, alerts.json cut), plain runs only: `check` is clean after them, the history holds one row per real change,
a later one-cell change is logged as one rescored item, and the feed carries one operational alert saying what
was rebuilt."""

from __future__ import annotations

import hashlib
import json
import shutil

import pandas as pd
import pytest

from benchwatch.history.check import check_reports
from benchwatch.pipeline import run_job
from benchwatch.site import build_site
from benchwatch.sources import SourceTable
from tests.irt.test_rasch_map import simulate

TIMES = [f"2026-01-0{d}T06:00:00Z" for d in range(1, 6)]


def _items(flip: bool = False) -> pd.DataFrame:
    df, _, _ = simulate(10, 40, seed=5)
    df = df.assign(benchmark="alpha").astype(str)
    if flip:  # one cell rescored
        df.loc[df.index[0], "score"] = "0.0" if df.loc[df.index[0], "score"] in ("1", "1.0") else "1.0"
    return df


def _board() -> pd.DataFrame:
    models = [f"m{i}" for i in range(6)]
    return pd.DataFrame(
        {"benchmark": "board", "model": models, "score": [0.9, 0.8, 0.7, 0.6, 0.5, 0.4], "n_items": 200}
    )


def _run(root, when: int, flip: bool = False, site: bool = False, log=None):
    sources = [
        ("items", lambda: SourceTable("items", "items.csv", _items(flip))),
        ("boards", lambda: SourceTable("boards", "b.csv", pd.DataFrame(), aggregates=_board().astype(str))),
    ]
    lines: list[str] = []
    run_job(
        sources,
        reports_dir=root / "r",
        site_out=root / "site" if site else None,
        build_site=build_site,
        cache_dir=root / "c",
        now=TIMES[when],
        strict=False,
        log=log or lines.append,
    )
    return lines


def _drop_latest(r):
    (r / "latest.json").unlink()


def _drop_snapshots(r):
    shutil.rmtree(r / "snapshots")


def _cut_snapshot(r):
    path = r / "snapshots" / "responses" / "alpha.csv.gz"
    path.write_bytes(path.read_bytes()[:40])


def _cut_alerts(r):
    text = (r / "alerts.json").read_text()
    (r / "alerts.json").write_text(text[: int(len(text) * 0.6)])


def _stale_staging(r):
    """A committed staging of a run that read an older latest.json than today's: its latest.json lost a
    benchmark (as the campaign's lost 'EvalPlus mbpp+'); swapped in, it would replace newer data."""
    body = json.loads((r / "latest.json").read_text())
    older = {**body, "benchmarks": [b for b in body["benchmarks"] if b["benchmark"] != "board"]}
    staging = r / ".staging"
    staging.mkdir()
    (staging / "latest.json").write_text(json.dumps(older))
    base = {"latest.json": hashlib.sha256(b"the file as an earlier run read it").hexdigest()}
    (staging / "COMMIT.json").write_text(json.dumps({"files": ["latest.json"], "base": base}))


DAMAGE = {
    "latest.json deleted": _drop_latest,
    "snapshots removed": _drop_snapshots,
    "a snapshot damaged": _cut_snapshot,
    "a stale staging folder": _stale_staging,
    "alerts.json cut": _cut_alerts,
}


@pytest.mark.parametrize("case", sorted(DAMAGE))
def test_plain_runs_heal_the_damage_and_say_so_once(tmp_path, case):
    _run(tmp_path, 0)
    before_alerts = json.loads((tmp_path / "r" / "alerts.json").read_text())["alerts"]
    DAMAGE[case](tmp_path / "r")
    said = _run(tmp_path, 1, site=case == "a stale staging folder")  # the site builds (no link to a lost page)
    assert any(line.startswith("heal") for line in said), said
    _run(tmp_path, 2)
    assert check_reports(tmp_path / "r") == []
    latest = json.loads((tmp_path / "r" / "latest.json").read_text())["benchmarks"]
    assert {r["benchmark"] for r in latest} == {"alpha", "board"}
    _run(tmp_path, 3, flip=True)  # one cell rescored upstream
    assert check_reports(tmp_path / "r") == []
    history = pd.read_csv(tmp_path / "r" / "history.csv", dtype=str)
    assert sorted(history["benchmark"]) == ["alpha", "alpha", "board"]  # one row per real change, no repeat
    changes = json.loads((tmp_path / "r" / "changelog.json").read_text())["changes"]
    last = [c for c in changes if c["snapshot_at"] == TIMES[3]]
    assert len(last) == 1 and last[0]["benchmark"] == "alpha"
    assert last[0]["items_rescored"]["count"] == 1 and last[0]["items_added"]["count"] == 0
    assert last[0]["models_added"]["count"] == 0 and last[0]["models_removed"]["count"] == 0
    alerts = json.loads((tmp_path / "r" / "alerts.json").read_text())["alerts"]
    healed = [a for a in alerts if a["kind"] == "healed"]
    assert len(healed) == 1 and healed[0]["raised_at"] == TIMES[1], healed
    assert str(tmp_path) not in healed[0]["title"]  # the feed names no path of the machine that built it
    whole = {a["id"]: a for a in alerts}
    if case == "alerts.json cut":  # the alerts that were whole are kept as they were, figures and all
        kept = [a for a in before_alerts if a["id"] in whole and whole[a["id"]] == a]
        assert len(kept) >= 1
    else:
        assert all(whole.get(a["id"]) == a for a in before_alerts)
