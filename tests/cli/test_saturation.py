"""``benchwatch saturation`` on aggregate leaderboards."""

from __future__ import annotations

import json

import pytest

from benchwatch.cli import main
from benchwatch.metrics import saturation_index

BOARD = (
    "benchmark,model,score,n_items,date\n"
    + "".join(f"MATH-500,m{i},{s},500,2025-01-0{i + 1}\n" for i, s in enumerate([99.2, 99.0, 98.8, 98.4, 98.2, 90]))
    + "".join(f"HLE,m{i},{s},2500,\n" for i, s in enumerate([37.72, 30, 29, 27, 26.32]))
)


def test_percent_leaderboards_match_the_paper(tmp_path, capsys):
    path = tmp_path / "board.csv"
    path.write_text(BOARD)
    assert main(["saturation", str(path), "--percent", "--json"]) == 0
    out = {r["benchmark"]: r for r in json.loads(capsys.readouterr().out)}
    assert out["MATH-500"]["saturation_index"] == pytest.approx(saturation_index(0.992, 0.982, 500), abs=1e-6)
    assert out["MATH-500"]["band"] == "very high" and out["MATH-500"]["state"] == "saturated"
    assert out["HLE"]["saturation_index"] == pytest.approx(0.219758, abs=1e-6)
    assert out["HLE"]["state"] == "discriminating"
    assert (out["HLE"]["top1"], out["HLE"]["top5"]) == (0.3772, 0.2632)


def test_percentages_without_the_flag_are_refused_clearly(tmp_path, capsys):
    path = tmp_path / "board.csv"
    path.write_text(BOARD)
    assert main(["saturation", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "line 2" in err and "'score'" in err and "--percent" in err


def test_two_test_set_sizes_in_one_benchmark_are_refused(tmp_path, capsys):
    path = tmp_path / "board.csv"
    path.write_text("benchmark,model,score,n_items\nB,a,0.5,100\nB,b,0.4,120\n")
    assert main(["saturation", str(path)]) == 2
    assert "more than one test-set size" in capsys.readouterr().err
