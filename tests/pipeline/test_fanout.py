"""Fan-out (issue 13): one part per source on its own runner, one merge, the same reports/ as one run.

Sources: a team's per-item CSV (simulated, dated: fits, tables, history by date, snapshots) and the
bundled EvalPlus file (bot/benchwatch/sources/data/real/evalplus_results.json, the real upstream board: aggregates).
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from benchwatch.cli import main
from benchwatch.pipeline.parts import manifest_digest
from benchwatch.pipeline.side_work import FLOOR_CACHE_ENV
from benchwatch.sources.real_snapshot import EVALPLUS_FILE, REAL_DIR

NOW = "2026-11-30T06:00:00Z"
LATER = "2026-12-01T06:00:00Z"


def _per_item(seed: int = 5, shift: float = 0.0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    theta, b = rng.normal(shift, 1.2, 14), rng.normal(0, 1.2, 60)
    y = rng.random((14, 60)) < expit(theta[:, None] - b[None, :])
    m, i = np.nonzero(np.ones((14, 60), bool))
    return pd.DataFrame(
        {
            "benchmark": "team-eval",
            "model": [f"model-{j:02d}" for j in m],
            "item_id": [f"q{k:03d}" for k in i],
            "score": y[m, i].astype(int),
            "date": [f"2025-{1 + j // 3:02d}-01" for j in m],
        }
    )


@pytest.fixture
def flow(tmp_path, monkeypatch):
    monkeypatch.setenv(FLOOR_CACHE_ENV, str(tmp_path / "floors"))  # floors are the same either way: computed once
    data = tmp_path / "team.csv"
    _per_item().to_csv(data, index=False)
    config = tmp_path / "benchwatch.toml"
    config.write_text(
        f'[sources.team]\nadapter = "csv"\nurl = "{data}"\n\n'
        f'[sources.evalplus]\nadapter = "evalplus"\nurl = "{REAL_DIR / EVALPLUS_FILE}"\n'
    )

    def run(*args: str) -> int:
        return main(["run", "--config", str(config), "--no-site", *args])

    return tmp_path, data, run


def _files(root) -> dict[str, bytes]:
    out = {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and "lock" not in p.name:
            rel = str(p.relative_to(root))
            out[rel] = p.read_bytes()
    return out


def _without_seconds(runs: bytes) -> list[list[str]]:
    rows = [line.split(",") for line in runs.decode().splitlines()]
    col = rows[0].index("seconds")
    return [[v for k, v in enumerate(r) if k != col] for r in rows]


def _same_reports(a, b) -> None:
    fa, fb = _files(a), _files(b)
    assert sorted(fa) == sorted(fb)
    for name in fa:
        if name == "runs.csv":  # the run's own duration differs
            assert _without_seconds(fa[name]) == _without_seconds(fb[name])
        else:
            assert fa[name] == fb[name], name


def _fan_out(tmp, run, now: str) -> None:
    fan = tmp / "fan"
    fan.mkdir(exist_ok=True)
    before = _files(fan)
    for source in ("team", "evalplus"):
        argv = ["--sources", source, "--reports", str(fan), "--reports-out", str(tmp / f"part-{source}")]
        assert run(*argv, "--cache", str(tmp / f"cache-{source}"), "--now", now) == 0
    assert _files(fan) == before  # a part reads the reports folder and writes nothing into it
    # given in the other order: the merge puts the parts in the configuration's order
    parts = [str(tmp / "part-evalplus"), str(tmp / "part-team")]
    assert main(["merge", *parts, "--reports", str(fan), "--no-site"]) == 0


def test_two_parts_and_a_merge_write_the_reports_of_one_run(flow):
    tmp, data, run = flow
    assert run("--reports", str(tmp / "one"), "--cache", str(tmp / "cache-one"), "--now", NOW) == 0
    _fan_out(tmp, run, NOW)
    _same_reports(tmp / "one", tmp / "fan")
    latest = json.loads((tmp / "fan" / "latest.json").read_text())
    kinds = {r["benchmark"]: r.get("kind") for r in latest["benchmarks"]}
    assert "team-eval" in kinds and any(k == "aggregate" for k in kinds.values())  # both sources are in
    assert (tmp / "fan" / "by_date" / "team-eval.csv").exists()

    # a second day with changed data: history, alerts and the changelog still agree row for row
    _per_item(seed=9, shift=0.8).to_csv(data, index=False)
    assert run("--reports", str(tmp / "one"), "--cache", str(tmp / "cache-one"), "--now", LATER) == 0
    _fan_out(tmp, run, LATER)
    _same_reports(tmp / "one", tmp / "fan")
    assert len(pd.read_csv(tmp / "fan" / "runs.csv")) == 2


def _parts(flow) -> tuple:
    tmp, _, run = flow
    for source in ("team", "evalplus"):
        argv = ["--sources", source, "--reports", str(tmp / "r"), "--reports-out", str(tmp / f"p-{source}")]
        assert run(*argv, "--cache", str(tmp / "c"), "--now", NOW) == 0
    return tmp, tmp / "p-team", tmp / "p-evalplus"


def _refused(capsys, argv: list[str], words: str) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and words in err, err


def test_a_merge_refuses_bad_parts_and_writes_nothing(flow, capsys):
    tmp, team, evalplus = _parts(flow)
    reports = str(tmp / "r")
    before = _files(tmp / "r")
    shutil.copytree(team, tmp / "twice")
    _refused(capsys, ["merge", str(team), str(tmp / "twice"), "--reports", reports], "'team' is also in part")

    manifest = json.loads((team / "part.json").read_text())
    rel = next(iter(manifest["files"]))
    tampered = tmp / "tampered"
    shutil.copytree(team, tampered)
    (tampered / "files" / rel).write_bytes(b"benchmark,model\nx,y\n")
    _refused(capsys, ["merge", str(tampered), "--reports", reports], "does not match its SHA-256")

    escape = tmp / "escape"
    shutil.copytree(team, escape)
    bad = {**manifest, "files": {"../../outside.csv": manifest["files"][rel]}}
    bad["digest"] = manifest_digest(bad)  # even a manifest whose digest was made to match
    (escape / "part.json").write_text(json.dumps(bad))
    _refused(capsys, ["merge", str(escape), "--reports", reports], "outside the reports' tables")

    edited = tmp / "edited"  # issue 27, case 9: one new history row's revision changed, the files untouched
    shutil.copytree(team, edited)
    rows = [{**manifest["new_rows"][0], "revision": "deadbeef0000"}, *manifest["new_rows"][1:]]
    (edited / "part.json").write_text(json.dumps({**manifest, "new_rows": rows}))
    _refused(capsys, ["merge", str(edited), "--reports", reports], "does not match its own SHA-256")

    _refused(capsys, ["merge", str(tmp / "nowhere"), "--reports", reports], "no part here")
    assert _files(tmp / "r") == before

    assert main(["merge", str(team), str(evalplus), "--reports", reports, "--no-site"]) == 0
    # the same parts again: they were computed from the reports as they stood before this merge
    _refused(capsys, ["merge", str(team), "--reports", reports], "computed from other reports")


def test_now_is_checked(flow, capsys):
    tmp, _, run = flow
    assert run("--reports", str(tmp / "r"), "--now", "yesterday") == 2
    assert "--now" in capsys.readouterr().err
