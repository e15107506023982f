"""Small command-line behaviours (issue 14): --version, and calibrate saying what it left out."""

from __future__ import annotations

import pandas as pd
import pytest

from bot import __version__
from bot.cli import main


def test_version(capsys):
    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"benchwatch {__version__}"


def test_calibrate_reports_the_responses_it_could_not_use(tmp_path, capsys):
    responses = tmp_path / "r.csv"
    responses.write_text("benchmark,model,item_id,score\nb,m1,i1,1\nb,m1,i2,0\nb,m2,i9,1\nb,m1,i9,0\n")
    known = tmp_path / "d.csv"
    known.write_text("item_id,b\ni1,0.5\ni2,-0.2\n")
    out = tmp_path / "out.csv"
    assert main(["calibrate", str(responses), "--difficulties", str(known), "--out", str(out)]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "calibrate: left out 2 responses of 1 item with no known difficulty (i9)",
        "calibrate: 1 model had no usable response, so the prior's estimate stands (m2)",
    ]
    table = pd.read_csv(out)
    assert table.set_index("model")["n_responses"].to_dict() == {"m1": 2, "m2": 0}


def test_calibrate_says_nothing_when_everything_was_used(tmp_path, capsys):
    responses = tmp_path / "r.csv"
    responses.write_text("benchmark,model,item_id,score\nb,m1,i1,1\nb,m1,i2,0\n")
    known = tmp_path / "d.csv"
    known.write_text("item_id,b\ni1,0.5\ni2,-0.2\n")
    assert main(["calibrate", str(responses), "--difficulties", str(known)]) == 0
    assert capsys.readouterr().err == ""
