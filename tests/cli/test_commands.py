"""Small command-line behaviours (issue 14): --version, and calibrate saying what it left out."""

from __future__ import annotations

import pandas as pd
import pytest

from benchwatch import __version__
from benchwatch.cli import main


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


# Issue 26's command findings, one test each.


def _one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    return err


def test_a_csv_with_capitalised_headers_is_told_to_rename_them(tmp_path, capsys):
    path = tmp_path / "up.csv"
    path.write_text("Model,Item_ID,Score\na,b,1\n")
    assert main(["audit", str(path)]) == 2
    err = _one_line_error(capsys)
    assert "rename Model to model, Item_ID to item_id, Score to score" in err


@pytest.mark.parametrize(("mark", "name"), [(";", "semicolons"), ("\t", "tabs")])
def test_a_csv_separated_by_something_else_says_so(tmp_path, capsys, mark, name):
    path = tmp_path / "x.csv"
    path.write_text(mark.join(["model", "item_id", "score"]) + "\n" + mark.join(["a", "b", "1"]) + "\n")
    assert main(["audit", str(path)]) == 2
    assert f"separated by {name}: the file must be comma-separated CSV" in _one_line_error(capsys)


def test_a_folder_of_csv_files_is_told_to_give_each_file(tmp_path, capsys):
    folder = tmp_path / "tables"
    folder.mkdir()
    for k in range(5):
        (folder / f"t{k}.csv").write_text("benchmark,model,item_id,score\nb,m,i,1\n")
    for argv in (["audit", str(folder)], ["run", "--input", str(folder), "--reports", str(tmp_path / "r")]):
        assert main(argv) == 2
        err = _one_line_error(capsys)
        assert "a folder of 5 CSV files (t0.csv, t1.csv, t2.csv and 2 more)" in err and "t0.csv" in err


def test_schedule_offers_no_one_run_options(capsys):
    with pytest.raises(SystemExit):
        main(["schedule", "--help"])
    text = capsys.readouterr().out
    assert "--cron" in text and "--reports-out" not in text and "--now" not in text
    with pytest.raises(SystemExit) as done:
        main(["schedule", "--now", "2026-01-01T00:00:00Z", "--once"])
    assert done.value.code == 2  # not an option of schedule


def test_run_input_builds_its_site_apart_from_the_samples(tmp_path, capsys, monkeypatch):
    from tests.irt.test_rasch_map import simulate

    monkeypatch.chdir(tmp_path)
    df, _, _ = simulate(12, 40, seed=5)
    df.to_csv("mine.csv", index=False)
    assert main(["run", "--input", "mine.csv"]) == 0
    out = capsys.readouterr().out
    assert (tmp_path / "_input" / "site" / "index.html").is_file() and not (tmp_path / "_site").exists()
    assert "site in _input/site/index.html" in out


def test_counts_are_in_words_that_agree(tmp_path, capsys):
    from tests.irt.test_rasch_map import simulate

    df, _, _ = simulate(12, 40, seed=6)
    path = tmp_path / "one.csv"
    df.to_csv(path, index=False)
    argv = ["run", "--input", str(path), "--reports", str(tmp_path / "r"), "--no-site"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "done: 1 benchmark, 1 new snapshot," in out and "1 new snapshot(s)" not in out
    assert main(["check", "--reports", str(tmp_path / "r")]) == 0
    assert "0 problems in" in capsys.readouterr().out


def test_audit_prints_the_flags_a_run_records(tmp_path, capsys):
    """The same file: the flags `audit` prints are the ones `run --input` records (and alerts on)."""
    import json

    from benchwatch.sources.local import SAMPLE_FILE

    sample = pd.read_csv(SAMPLE_FILE)
    path = tmp_path / "easy.csv"
    sample[sample["benchmark"] == "synthetic-easy-heavy"].to_csv(path, index=False)  # flagged: its hard end is empty
    assert main(["audit", str(path)]) == 0
    printed = [line for line in capsys.readouterr().out.splitlines() if line.strip().startswith("flags:")]
    assert main(["run", "--input", str(path), "--reports", str(tmp_path / "r"), "--no-site"]) == 0
    rec = json.loads((tmp_path / "r" / "latest.json").read_text())["benchmarks"][0]
    assert rec["flags"] and printed, (rec["flags"], printed)
    assert printed[0].split(":", 1)[1].strip() == ", ".join(rec["flags"])
