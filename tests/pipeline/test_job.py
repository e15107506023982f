"""The job over local files: incremental runs, unchanged runs, and what they record."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from benchwatch.pipeline import merge_parts, run_job
from benchwatch.sources import SourceTable
from tests.irt.test_rasch_map import simulate


def fit_line(lines: list[str]) -> str:
    return [line for line in lines if line.startswith("source")][-1]


def _table(df: pd.DataFrame) -> SourceTable:
    return SourceTable("sim", "simulated", df.astype(str))


def test_new_models_are_calibrated_then_a_changed_cell_refits(tmp_path):
    df, _, _ = simulate(24, 150, seed=41)
    lines: list[str] = []
    kw = {"reports_dir": tmp_path / "r", "site_out": None, "cache_dir": tmp_path / "c", "log": lines.append}
    first = run_job([("sim", lambda: _table(df[df["model"] < "m022"]))], now="2026-01-01T00:00:00Z", **kw)
    assert first.new_snapshots == 1
    second = run_job([("sim", lambda: _table(df))], now="2026-01-02T00:00:00Z", **kw)
    assert second.new_snapshots == 1
    assert "calibrated 2 new models" in fit_line(lines)
    rec = json.loads((tmp_path / "r" / "latest.json").read_text())["benchmarks"][0]
    assert rec["n_models"] == 24 and rec["calibrated_models"] == 2
    changed = df.copy()
    changed.loc[0, "score"] = 1 - changed.loc[0, "score"]
    run_job([("sim", lambda: _table(changed))], now="2026-01-03T00:00:00Z", **kw)
    assert "map fit (warm start)" in fit_line(lines)
    history = pd.read_csv(tmp_path / "r" / "history.csv")
    assert history["snapshot_at"].tolist() == ["2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z"]
    run_job([("sim", lambda: _table(changed))], now="2026-01-04T00:00:00Z", **kw)
    assert "unchanged" in fit_line(lines)
    assert len(pd.read_csv(tmp_path / "r" / "history.csv")) == 3


def test_changed_data_appends_exactly_one_snapshot_and_its_alerts(tmp_path):
    a, _, _ = simulate(12, 60, seed=42)
    b, _, _ = simulate(12, 60, seed=43)
    data = pd.concat([a, b.assign(benchmark="other")])
    kw = {"reports_dir": tmp_path / "r", "site_out": None, "cache_dir": tmp_path / "c", "log": lambda s: None}
    run_job([("sim", lambda: _table(data))], now="2026-01-01T00:00:00Z", **kw)
    reports = tmp_path / "r"
    before = {p.name: p.read_bytes() for p in reports.iterdir() if p.is_file() and p.name != "runs.csv"}
    run_job([("sim", lambda: _table(data))], now="2026-01-02T00:00:00Z", **kw)
    same = {p.name: p.read_bytes() for p in reports.iterdir() if p.is_file() and p.name != "runs.csv"}
    assert same == before
    alerts_before = json.loads((reports / "alerts.json").read_text())["alerts"]
    # Every model now fails every item of `other` but one that all solve: its state changes, `sim` does not move.
    changed = data.copy()
    other = changed["benchmark"] == "other"
    first = changed.loc[other, "item_id"].min()
    changed.loc[other, "score"] = (changed.loc[other, "item_id"] == first).astype(float)
    run_job([("sim", lambda: _table(changed))], now="2026-01-03T00:00:00Z", **kw)
    history = pd.read_csv(reports / "history.csv")
    assert history.groupby("benchmark").size().to_dict() == {"other": 2, "sim": 1}
    alerts = json.loads((reports / "alerts.json").read_text())["alerts"]
    new = alerts[len(alerts_before) :]
    assert alerts[: len(alerts_before)] == alerts_before
    assert (
        new
        and {a["benchmark"] for a in new} == {"other"}
        and all(a["raised_at"] == "2026-01-03T00:00:00Z" for a in new)
    )


def test_a_record_of_an_older_benchwatch_is_audited_again_once(tmp_path):
    """Figures made by an older version (no figures_version: no bounds, no verdicts) are redone on the same
    data, without a history row (the data did not change), then carried as usual."""
    df, _, _ = simulate(12, 80, seed=44)
    lines: list[str] = []
    kw = {"reports_dir": tmp_path / "r", "site_out": None, "cache_dir": tmp_path / "c", "log": lines.append}
    run_job([("sim", lambda: _table(df))], now="2026-01-01T00:00:00Z", **kw)
    latest = tmp_path / "r" / "latest.json"
    data = json.loads(latest.read_text())
    old = {
        k: v for k, v in data["benchmarks"][0].items() if k not in ("figures_version", "verdicts", "detection_limit")
    }
    latest.write_text(json.dumps({**data, "benchmarks": [old]}))
    run_job([("sim", lambda: _table(df))], now="2026-01-02T00:00:00Z", **kw)
    assert "unchanged" not in fit_line(lines)
    rec = json.loads(latest.read_text())["benchmarks"][0]
    assert rec["figures_version"] >= 2 and "detection_limit" in rec and "verdicts" in rec
    assert len(pd.read_csv(tmp_path / "r" / "history.csv")) == 1
    run_job([("sim", lambda: _table(df))], now="2026-01-03T00:00:00Z", **kw)
    assert "unchanged" in fit_line(lines)


def test_audits_on_both_cores_publish_what_one_at_a_time_does(tmp_path, monkeypatch):
    """A source's benchmarks audited by forked workers (two at once) give the reports one-at-a-time audits give,
    byte for byte, a benchmark of one model (scores only) included."""
    import sys

    import pytest

    from benchwatch.pipeline import workers

    if sys.platform != "linux":
        pytest.skip("audits run on forked workers on Linux only")
    parts = [simulate(14, 50, seed=s)[0].assign(benchmark=f"b{s}") for s in (51, 52, 53)]
    one = parts[0].assign(benchmark="b-one-model")
    data = pd.concat([*parts, one[one["model"] == one["model"].min()]])

    def run(folder, forked):
        monkeypatch.setattr(workers, "PARALLEL_CELLS", 10**9 if forked else 0)
        kw = {"reports_dir": tmp_path / folder, "site_out": None, "cache_dir": tmp_path / f"c{folder}", "log": print}
        run_job([("sim", lambda: _table(data))], now="2026-01-01T00:00:00Z", **kw)
        root = tmp_path / folder
        return {
            str(p.relative_to(root)): p.read_bytes()
            for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != "runs.csv"
        }

    import concurrent.futures

    pools = []

    class Counted(concurrent.futures.ProcessPoolExecutor):
        def __init__(self, *args, **kwargs):
            pools.append(args)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", Counted)
    forked = run("a", True)
    assert [p[0] for p in pools] == [2]  # two workers audited the source's benchmarks
    alone = run("b", False)
    assert len(pools) == 1  # one at a time: no workers
    assert forked == alone and len(forked) > 10


def _board_and_items(seed: int) -> tuple[pd.DataFrame, pd.DataFrame]:
    data = simulate(12, 40, seed=seed)[0].assign(benchmark="items")
    rng = np.random.default_rng(seed)
    board = pd.DataFrame(
        {
            "benchmark": [f"board{k % 2}" for k in range(16)],
            "model": [f"m{k}" for k in range(16)],
            "score": rng.uniform(0.3, 0.9, 16).round(4),
            "n_items": 200,
            "date": [f"2025-0{1 + k % 9}-01" for k in range(16)],
        }
    ).astype(str)
    return data, board


def test_leaderboards_computed_beside_the_audits_publish_what_the_run_alone_does(tmp_path, monkeypatch):
    """A source's leaderboards go to the workers beside the audits (the run reads the next source meanwhile):
    the reports are byte for byte those of a run that computes everything in its own process."""
    import sys

    import pytest

    from benchwatch.pipeline import workers

    if sys.platform != "linux":
        pytest.skip("work runs on forked workers on Linux only")
    data, board = _board_and_items(7)
    sources = [("both", lambda: SourceTable("both", "both.csv", data, aggregates=board))]

    def run(folder):
        kw = {"reports_dir": tmp_path / folder, "site_out": None, "cache_dir": tmp_path / f"c{folder}"}
        run_job(sources, now="2026-01-01T00:00:00Z", log=lambda s: None, **kw)
        root = tmp_path / folder
        return {
            str(p.relative_to(root)): p.read_bytes()
            for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != "runs.csv"
        }

    calls = []
    real = workers.ForkedExecutor.call
    monkeypatch.setattr(
        workers.ForkedExecutor, "call", lambda self, fn, **kw: calls.append(self.forked) or real(self, fn, **kw)
    )
    forked = run("a")
    monkeypatch.setattr(workers, "_cores", lambda: 1)  # one core: no workers, everything in the run's process
    alone = run("b")
    assert calls == [True, True, False, False]  # the two boards, on workers, then in the run's own process
    assert forked == alone and any("board0" in k for k in forked)


def _fails(**_kwargs):
    raise ValueError("a board that cannot be read")


def test_a_call_that_raises_raises_where_its_result_is_read():
    import pytest

    from benchwatch.pipeline.workers import ForkedExecutor

    for forked in (False, True):
        pool = ForkedExecutor(forked=forked)
        try:
            ok, bad = pool.call(dict, a=1), pool.call(_fails, x=2)
            assert pool.result(ok) == {"a": 1}
            with pytest.raises(ValueError, match="a board that cannot be read"):
                pool.result(bad)
        finally:
            pool.close()


def test_a_site_to_build_without_the_build_is_refused_before_any_work(tmp_path):
    """The job imports no site: its caller hands it the build (``benchwatch.site.build_site``) with the folder."""
    folders = {"reports_dir": tmp_path / "r", "site_out": tmp_path / "s"}
    with pytest.raises(ValueError, match="build_site"):
        run_job([("sim", lambda: pytest.fail("fetched"))], cache_dir=tmp_path / "c", **folders)
    with pytest.raises(ValueError, match="build_site"):
        merge_parts([tmp_path / "part"], **folders)
    assert not (tmp_path / "r").exists() and not (tmp_path / "c").exists()
