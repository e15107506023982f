"""Command messages that say what went wrong (issue 40): columns, encodings, percentages, ids, `check`."""

from __future__ import annotations

import shutil
import zipfile

import pytest

from benchwatch.cli import main
from benchwatch.store.responses import MAX_NAME

SCORES = [0.93, 0.91, 0.5, 0.45, 0.4, 0.3]


def _error(capsys, argv) -> str:
    assert main(argv) == 2
    return capsys.readouterr().err


@pytest.mark.parametrize(
    ("header", "names", "hint"),
    [
        ("name,question,correct", "found name, question, correct", ""),
        ("model;item_id;score", "found model;item_id;score", "separated by semicolons"),
        ("Model,Item_ID,Score", "found Model, Item_ID, Score", "rename Model to model"),
    ],
)
def test_wrong_columns_name_the_missing_and_the_found(tmp_path, capsys, header, names, hint):
    path = tmp_path / "mine.csv"
    path.write_text(header + "\n" + header.replace("_", "") + "\n")
    err = _error(capsys, ["audit", str(path)])
    assert "missing required column(s) model, item_id, score" in err
    assert names in err and "benchmark" not in err.split("found", 1)[1]  # not the column the reader filled in
    assert hint in err


def test_a_file_not_in_utf8_names_the_line_and_the_likely_encoding(tmp_path, capsys):
    path = tmp_path / "latin.csv"
    path.write_bytes(b"model,item_id,score\nm,a,1\nm,caf\xe9,0\n")
    err = _error(capsys, ["audit", str(path)])
    assert "line 3" in err and "0xe9" in err and "Windows-1252" in err and "codec" not in err


def test_percent_on_proportions_is_refused(tmp_path, capsys):
    path = tmp_path / "board.csv"
    path.write_text("benchmark,model,score,n_items\n" + "".join(f"b,m{k},{v},500\n" for k, v in enumerate(SCORES)))
    err = _error(capsys, ["saturation", str(path), "--percent"])
    assert "--percent" in err and "0.93, 0.91, 0.5, ..." in err and "proportions" in err
    assert main(["saturation", str(path)]) == 0
    out = capsys.readouterr().out
    assert "saturation index " in out and "best 0.930" in out


def test_saturation_prints_three_decimals(tmp_path, capsys):
    path = tmp_path / "board.csv"
    rows = "".join(f"b,m{k},{100 * v:g},500\n" for k, v in enumerate(SCORES))
    path.write_text("benchmark,model,score,n_items\n" + rows)
    assert main(["saturation", str(path), "--percent"]) == 0
    index = capsys.readouterr().out.split("saturation index ", 1)[1].split(" ", 1)[0]
    assert len(index.split(".")[1]) == 3, index


@pytest.mark.parametrize("command", ["audit", "run"])
def test_a_huge_item_id_is_refused_with_its_row(tmp_path, capsys, command):
    path = tmp_path / "huge.csv"
    path.write_text("model,item_id,score\nm,a,1\nm," + "x" * 200_000 + ",0\n")
    argv = [command, str(path)] if command == "audit" else ["run", "--input", str(path), "--reports", "r", "--no-site"]
    err = _error(capsys, argv)
    assert "huge.csv, line 3, column 'item_id'" in err and f"limit of {MAX_NAME:,}" in err
    assert len(err) < 500


def test_check_after_the_quick_start_checks_the_sample_run(sample_site, tmp_path, monkeypatch, capsys):
    _, reports, site = sample_site
    monkeypatch.chdir(tmp_path)
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / ".gitignore").write_text("")
    assert main(["check"]) == 2  # before any run: says so, instead of "0 problems" in an empty folder
    assert "holds no run" in capsys.readouterr().err
    shutil.copytree(reports, tmp_path / "_sample" / "reports")
    shutil.copytree(site, tmp_path / "_site")
    assert main(["check"]) == 0
    out = capsys.readouterr().out
    assert "checking _sample/reports" in out and "0 problems in _sample/reports" in out
    assert main(["check", "--reports", "reports"]) == 2
    assert "holds no run" in capsys.readouterr().err


def test_check_does_not_tell_you_to_run_check(sample_site, tmp_path, capsys):
    _, reports, _ = sample_site
    copy = tmp_path / "r"
    shutil.copytree(reports, copy)
    (copy / "latest.json").write_text("{not json")
    assert main(["check", "--reports", str(copy), "--site-out", str(tmp_path / "none")]) == 1
    out = capsys.readouterr().out
    assert "benchwatch check" not in out and "run `benchwatch repair`" in out


def _workbook(path) -> None:
    """A small real .xlsx (Office Open XML: a zip of XML parts under xl/), as Excel saves one."""
    parts = {
        "[Content_Types].xml": '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/'
        'content-types"><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-'
        'officedocument.spreadsheetml.sheet.main+xml"/></Types>',
        "xl/workbook.xml": '<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/'
        '2006/main"><sheets><sheet name="Sheet1" sheetId="1"/></sheets></workbook>',
        "xl/worksheets/sheet1.xml": '<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/'
        'spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>model</t></is></c></row>'
        "</sheetData></worksheet>",
    }
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as book:
        for name, text in parts.items():
            book.writestr(name, text)


@pytest.mark.parametrize("command", ["audit", "run", "tiers"])
def test_an_excel_workbook_renamed_csv_is_named_as_one(tmp_path, capsys, command):
    path = tmp_path / "results.csv"
    _workbook(path)
    argv = [command, str(path)] if command != "run" else ["run", "--input", str(path), "--reports", "r", "--no-site"]
    err = _error(capsys, argv)
    assert f"{path}: is an Excel workbook (xlsx), not CSV text: save it as CSV" in err
    assert "UTF-8" not in err.split("save it as CSV", 1)[0] and "1252" not in err


def test_a_zip_archive_is_named_as_one(tmp_path, capsys):
    path = tmp_path / "results.csv"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("a.csv", "model,item_id,score\nm,a,1\n")
        archive.writestr("b.csv", "model,item_id,score\nm,a,1\n")
    err = _error(capsys, ["audit", str(path)])
    assert "is a zip archive (2 files: a.csv, b.csv), not CSV text: unzip it" in err and "1252" not in err


def test_audit_gives_the_percent_hint_that_saturation_gives(tmp_path, capsys):
    from benchwatch.store.responses import percent_hint

    path = tmp_path / "mine.csv"
    path.write_text(
        "model,item_id,score\n" + "".join(f"m{k},i{j},{100 * ((k + j) % 2)}\n" for k in range(3) for j in range(4))
    )
    err = _error(capsys, ["audit", str(path)])
    assert "line 3, column 'score'" in err and percent_hint([0, 100]) in err and "divided by 100" in err
    board = tmp_path / "board.csv"
    board.write_text(
        "benchmark,model,score,n_items\n" + "".join(f"b,m{k},{v * 100:g},500\n" for k, v in enumerate(SCORES))
    )
    err = _error(capsys, ["saturation", str(board)])
    assert percent_hint([0, 93], "--percent") in err and "use --percent" in err
    assert percent_hint([0, 1.5, -2]) == percent_hint([0, 250]) == percent_hint([0.2, 1]) == ""  # not percentages
