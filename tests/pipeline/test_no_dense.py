"""The figures stage over the observed cells (issue 23): no models x items array is built in a whole audit."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from benchwatch.irt.responses import ResponseArrays
from benchwatch.pipeline import run_job
from benchwatch.sources import SourceTable
from tests.irt.test_rasch_map import simulate


def _no_dense(self):  # pragma: no cover (it must never run)
    raise AssertionError("a models x items array was built")


@pytest.fixture
def forbid_dense(monkeypatch):
    monkeypatch.setattr(ResponseArrays, "dense", _no_dense)


def test_a_whole_run_never_builds_a_dense_array(tmp_path, forbid_dense):
    df, _, _ = simulate(30, 200, seed=51, missing=0.3)
    df["date"] = pd.to_datetime("2025-01-01") + pd.to_timedelta(df["model"].str[1:].astype(int) // 5, unit="D")
    kw = {"reports_dir": tmp_path / "r", "site_out": None, "cache_dir": tmp_path / "c", "log": lambda s: None}
    first = df[df["model"] < "m027"]
    run_job([("sim", lambda: SourceTable("sim", "simulated", first.astype(str)))], now="2026-01-01T00:00:00Z", **kw)
    # new models only: calibrated onto the fitted scale, also over the cells
    run_job([("sim", lambda: SourceTable("sim", "simulated", df.astype(str)))], now="2026-01-02T00:00:00Z", **kw)
    rec = json.loads((tmp_path / "r" / "latest.json").read_text())["benchmarks"][0]
    assert rec["calibrated_models"] == 3 and rec["detection_limit"] > 0 and "verdicts" in rec
    assert (tmp_path / "r" / "by_date").is_dir()


def test_an_audit_of_a_file_never_builds_a_dense_array(tmp_path, forbid_dense, capsys):
    from benchwatch.cli import main

    df, _, _ = simulate(12, 150, seed=52)
    path = tmp_path / "r.csv"
    df.to_csv(path, index=False)
    assert main(["audit", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["detection_limit"] > 0
