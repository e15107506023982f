"""The API's functions behind the commands (``benchwatch.tiers``, ``check``, ``audit_file``, ...): each returns,
typed, what its command prints, checks its input as the command does, and prints nothing unless asked."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import benchwatch
from benchwatch import BenchmarkRecord, InputError
from benchwatch.cli import main
from benchwatch.upkeep import ReportsCheck
from tests.irt.test_rasch_map import simulate

BOARD = "benchmark,model,score,n_items\n" + "".join(f"B,m{i},{0.9 - 0.03 * i:.3f},300\n" for i in range(8))


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    """A small file of per-item responses and the reports of one run of it (no site)."""
    root = tmp_path_factory.mktemp("commands")
    simulate(10, 30, seed=61)[0].to_csv(root / "sim.csv", index=False)
    done = benchwatch.run(inputs=[root / "sim.csv"], reports=root / "r", cache=root / "c", site=False)
    assert done.benchmarks == 1
    return root


def test_leaderboard_saturation_gives_a_typed_record_per_board_as_the_command_prints_it(tmp_path, capsys):
    (tmp_path / "board.csv").write_text(BOARD)
    records = benchwatch.leaderboard_saturation(tmp_path / "board.csv")
    assert capsys.readouterr().out == ""
    assert [type(r) for r in records] == [BenchmarkRecord] and records[0].n_models == 8
    assert main(["saturation", str(tmp_path / "board.csv"), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed[0]["saturation_index"] == pytest.approx(records[0].saturation_index, abs=1e-6)
    (tmp_path / "pct.csv").write_text("benchmark,model,score,n_items\nB,a,55,100\n")  # percentages, unsaid
    with pytest.raises(InputError, match="line 2"):
        benchwatch.leaderboard_saturation(tmp_path / "pct.csv")


def test_tiers_of_per_item_results_and_of_a_board(audited, tmp_path):
    found = benchwatch.tiers(audited / "sim.csv")
    assert list(found) == ["sim"] and len(found["sim"].models) == 10
    (tmp_path / "board.csv").write_text(BOARD)
    assert len(benchwatch.tiers(tmp_path / "board.csv")["B"].models) == 8


def test_audit_file_audits_each_benchmark_and_a_difficulty_file_gets_coverage_alone(audited, tmp_path, capsys):
    results = benchwatch.audit_file(audited / "sim.csv", items_out=tmp_path / "items.csv")
    assert [r.benchmark for r in results] == ["sim"] and results[0].record.n_items == 30
    assert list(pd.read_csv(tmp_path / "items.csv").columns) == ["item_id", "b", "b_sd", "z"]
    z = tmp_path / "z.csv"
    pd.DataFrame({"item_id": [f"q{i}" for i in range(20)], "z": np.linspace(0, 1, 20)}).to_csv(z, index=False)
    (given,) = benchwatch.audit_file(z)
    assert (given.verdicts, given.flags, given.record.method, len(given.items)) == ({}, [], None, 20)
    assert capsys.readouterr().out == ""
    assert main(["audit", str(z), "--json"]) == 0
    assert json.loads(capsys.readouterr().out).keys() == given.as_dict().keys()


def test_check_and_repair_of_a_reports_folder(audited, tmp_path, monkeypatch, capsys):
    found = benchwatch.check(audited / "r")
    assert found == ReportsCheck(str(audited / "r"), "_site", [], False)
    with pytest.raises(InputError, match="no such reports folder"):
        benchwatch.check(tmp_path / "none")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError, match="holds no run yet"):
        benchwatch.check()
    repaired = benchwatch.repair(audited / "r", site_out=tmp_path / "site")
    assert (repaired.done, repaired.left) == ([], [])
    assert capsys.readouterr().out == ""


def test_calibrate_takes_one_of_what_is_known(audited, tmp_path):
    (tmp_path / "b.csv").write_text("item_id,b\n" + "".join(f"i{k:04d},0.1\n" for k in range(30)))
    done = benchwatch.calibrate(audited / "sim.csv", difficulties=tmp_path / "b.csv", out=tmp_path / "m.csv")
    assert len(done.estimates) == 10 and (tmp_path / "m.csv").read_text() == done.csv()
    with pytest.raises(TypeError):
        benchwatch.calibrate(audited / "sim.csv")


def test_schedule_refuses_a_bad_cron_before_any_run():
    ran = []
    with pytest.raises(InputError, match="--cron"):
        benchwatch.schedule(lambda: ran.append(1), cron="61 * * * *", once=True)
    assert ran == []
