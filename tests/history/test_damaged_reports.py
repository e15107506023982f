"""A damaged file in reports/ ends a run with one line naming it (exit 2, nothing written); `check` finds
every damage, `repair` rebuilds from the rest with a backup, and the next run goes on (issue 12)."""

from __future__ import annotations

import io
import json
import shutil

import pandas as pd
import pytest

from benchwatch.cli import main
from benchwatch.history import check_reports
from tests.irt.test_rasch_map import simulate


def _files(root) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not p.name.endswith(".lock") and ".repair-backup" not in p.parts
    }


@pytest.fixture(scope="module")
def good(tmp_path_factory):
    """A reports folder after two runs (two snapshots of one benchmark), and the data of a third."""
    root = tmp_path_factory.mktemp("good")
    df, _, _ = simulate(10, 40, seed=5)
    first, second, third = root / "1.csv", root / "2.csv", root / "3.csv"
    df.to_csv(first, index=False)
    df.assign(score=lambda d: d["score"].where(d.index >= 20, 1 - d["score"])).to_csv(second, index=False)
    df.assign(score=lambda d: d["score"].where(d.index >= 40, 1 - d["score"])).to_csv(third, index=False)
    for data in (first, second):
        argv = ["run", "--input", str(data), "--reports", str(root / "r"), "--cache", str(root / "c"), "--no-site"]
        assert main(argv) == 0
    return root, third


def _cut(path):
    text = path.read_text()
    path.write_text(text[: len(text) // 2])


def _append(line):
    return lambda path: path.write_text(path.read_text() + line)


def _markers(path):
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join([lines[0], "<<<<<<< HEAD\n", *lines[1:], "=======\n", ">>>>>>> theirs\n"]))


DAMAGE = {
    "latest.json cut": ("latest.json", _cut),
    "alerts.json cut": ("alerts.json", _cut),
    "sources.json cut": ("sources.json", _cut),
    "changelog.json cut": ("changelog.json", _cut),
    "runs.csv unclosed quote": ("runs.csv", _append('2026-01-01T00:00:00Z,"1.0,1,1,1,ok,x\n')),
    "history.csv extra field": ("history.csv", _append("a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q,r,extra\n")),
    "history.csv cut mid-row": ("history.csv", lambda p: p.write_text(p.read_text()[:-7])),
    "history.csv merge markers": ("history.csv", _markers),
    "latest.json merge markers": ("latest.json", _markers),
    "latest.json not an object": ("latest.json", lambda p: p.write_text("[]\n")),
}


@pytest.mark.parametrize("case", sorted(DAMAGE))
def test_damage_is_found_by_check_and_healed_by_the_next_run_which_says_so(good, tmp_path, capsys, case):
    """Issue 41: the scheduled run heals what `repair` would (nobody has to be there to run it), keeps the old
    file in the backup, says so in its log and as one operational alert, and goes on to record the new data."""
    root, third = good
    reports, cache = tmp_path / "r", tmp_path / "c"
    shutil.copytree(root / "r", reports)
    shutil.copytree(root / "c", cache) if (root / "c").exists() else cache.mkdir()
    name, damage = DAMAGE[case]
    damage(reports / name)
    before = _files(reports)
    capsys.readouterr()
    assert main(["check", "--reports", str(reports)]) == 1
    assert name in capsys.readouterr().out
    argv = ["run", "--input", str(third), "--reports", str(reports), "--cache", str(cache), "--no-site"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    said = [line for line in out.splitlines() if line.startswith("heal") and name in line]
    assert said and not any(str(reports) in line for line in said), out  # naming the file, not the machine's path
    backup = list((reports / ".repair-backup").rglob(name))
    assert len(backup) == 1 and backup[0].read_bytes() == before[name]  # what was replaced is kept
    assert main(["check", "--reports", str(reports)]) == 0
    history = pd.read_csv(reports / "history.csv", dtype=str)
    assert not history.duplicated(["benchmark", "revision"]).any()
    assert history["revision"].nunique() >= 2  # the third data set was recorded
    healed = [a for a in json.loads((reports / "alerts.json").read_text())["alerts"] if a["kind"] == "healed"]
    assert len(healed) == 1 and name in healed[0]["title"] and healed[0]["benchmark"] == "reports/"
    assert str(tmp_path) not in healed[0]["title"]  # the feed names no path of the machine that built it


def test_repair_by_hand_still_fixes_what_check_finds(good, tmp_path, capsys):
    root, _ = good
    reports = tmp_path / "r"
    shutil.copytree(root / "r", reports)
    _cut(reports / "alerts.json")
    assert main(["repair", "--reports", str(reports)]) == 0
    assert "0 problems left" in capsys.readouterr().out
    assert main(["check", "--reports", str(reports)]) == 0


def test_a_rebuilt_latest_adds_no_history_row_and_no_alert_for_unchanged_data(good, tmp_path, capsys):
    root, _ = good
    reports, cache = tmp_path / "r", tmp_path / "c"
    shutil.copytree(root / "r", reports)
    shutil.copytree(root / "c", cache) if (root / "c").exists() else cache.mkdir()
    (reports / "latest.json").unlink()
    (reports / "latest.json").write_text("{")
    history = (reports / "history.csv").read_bytes()
    alerts = (reports / "alerts.json").read_bytes()
    assert main(["repair", "--reports", str(reports)]) == 0
    data = root / "2.csv"  # the data of the last snapshot
    argv = ["run", "--input", str(data), "--reports", str(reports), "--cache", str(cache), "--no-site"]
    assert main(argv) == 0
    assert (reports / "history.csv").read_bytes() == history
    assert (reports / "alerts.json").read_bytes() == alerts
    latest = json.loads((reports / "latest.json").read_text())["benchmarks"]
    assert all("rebuilt" not in r and "ddm" in r for r in latest)  # refitted in full


def test_a_deleted_history_is_found_and_rebuilt_from_latest(good, tmp_path, capsys):
    root, _ = good
    reports = tmp_path / "r"
    shutil.copytree(root / "r", reports)
    (reports / "history.csv").unlink()
    assert main(["check", "--reports", str(reports)]) == 1
    assert "history.csv: missing while latest.json lists 1 benchmark" in capsys.readouterr().out
    assert main(["repair", "--reports", str(reports)]) == 0
    rows = pd.read_csv(reports / "history.csv", dtype=str, keep_default_na=False)
    assert "None" not in (reports / "history.csv").read_text() and (rows["ddm"] != "").all()
    latest = json.loads((reports / "latest.json").read_text())["benchmarks"]
    assert rows[["benchmark", "revision"]].values.tolist() == [[r["benchmark"], r["revision"]] for r in latest]


def test_alerts_are_rebuilt_from_the_history(good, tmp_path):
    root, _ = good
    reports = tmp_path / "r"
    shutil.copytree(root / "r", reports)
    original = json.loads((reports / "alerts.json").read_text())["alerts"]
    _cut(reports / "alerts.json")
    assert main(["repair", "--reports", str(reports)]) == 0
    rebuilt = json.loads((reports / "alerts.json").read_text())["alerts"]
    assert [a["id"] for a in rebuilt] == [a["id"] for a in original]  # every change of state and flag


def _copy(good, tmp_path):
    root, third = good
    reports, cache = tmp_path / "r", tmp_path / "c"
    shutil.copytree(root / "r", reports)
    shutil.copytree(root / "c", cache) if (root / "c").exists() else cache.mkdir()

    def run(data) -> int:
        return main(["run", "--input", str(data), "--reports", str(reports), "--cache", str(cache), "--no-site"])

    return reports, run, root / "2.csv", third


def test_a_deleted_latest_is_found_rebuilt_and_refitted_without_a_repeated_row(good, tmp_path, capsys):
    """Issue 27, case 1: check said 0 problems and repair did nothing; the next run appended rows repeating
    the previous revision."""
    reports, run, same, _ = _copy(good, tmp_path)
    history = (reports / "history.csv").read_bytes()
    latest = json.loads((reports / "latest.json").read_text())["benchmarks"]
    (reports / "latest.json").unlink()
    assert main(["check", "--reports", str(reports)]) == 1
    assert "latest.json: missing while history.csv holds 1 benchmark(s)" in capsys.readouterr().out
    assert main(["repair", "--reports", str(reports)]) == 0
    assert "0 problems left" in capsys.readouterr().out
    assert run(same) == 0
    assert (reports / "history.csv").read_bytes() == history
    again = json.loads((reports / "latest.json").read_text())["benchmarks"]
    assert [r["revision"] for r in again] == [r["revision"] for r in latest] and "ddm" in again[0]
    assert main(["check", "--reports", str(reports)]) == 0


def test_a_run_never_appends_a_row_that_repeats_the_last_revision(good, tmp_path):
    """Without a repair: latest.json gone, the run refits, and the history gains nothing."""
    reports, run, same, _ = _copy(good, tmp_path)
    history = (reports / "history.csv").read_bytes()
    (reports / "latest.json").unlink()
    assert run(same) == 0
    assert (reports / "history.csv").read_bytes() == history
    assert main(["check", "--reports", str(reports)]) == 0


def test_a_cut_changelog_is_restored_whole_from_its_ledger(good, tmp_path, capsys):
    """Issue 27, case 3: repair reset the changelog to empty; issue 62: it kept only the complete entries of the cut
    file. Its ledger holds every entry: all come back, equal to the originals; without the ledger (a folder
    written before it) the complete entries are kept."""
    reports, _, _, _ = _copy(good, tmp_path)
    path = reports / "changelog.json"
    original = json.loads(path.read_text())["changes"]
    assert len(original) == 2 and (reports / "changelog.jsonl").read_text().count("\n") == 2
    text = path.read_text()
    path.write_text(text[: text.rindex('"snapshot_at"')])  # cut inside the last entry
    assert any("changelog.json" in p for p in check_reports(reports))
    assert main(["repair", "--reports", str(reports)]) == 0
    assert "kept the 1 whole entries as they were, restored 1 from changelog.jsonl" in capsys.readouterr().out
    assert json.loads(path.read_text())["changes"] == original
    (reports / "changelog.jsonl").unlink()
    path.write_text(text[: text.rindex('"snapshot_at"')])
    assert main(["repair", "--reports", str(reports)]) == 0
    assert json.loads(path.read_text())["changes"] == original[:1]


@pytest.mark.parametrize(
    "damage",
    [
        lambda p: p.write_text(p.read_text()[: len(p.read_text()) // 3]),  # cut short
        lambda p: p.write_text("item_id,z\nx,0.5\n"),  # the wrong columns
        lambda p: p.unlink(),  # gone
    ],
    ids=["cut", "wrong columns", "deleted"],
)
def test_a_damaged_items_table_is_refitted_even_when_upstream_is_unchanged(good, tmp_path, capsys, damage):
    """Issue 27, cases 4 and 5: repair moved the table aside saying the next run writes it again, and with the
    data unchanged none did; a table with the wrong columns passed every check."""
    reports, run, same, _ = _copy(good, tmp_path)
    table = next((reports / "items").glob("*.csv"))
    original = table.read_bytes()
    damage(table)
    assert main(["check", "--reports", str(reports)]) == 1
    assert table.name in capsys.readouterr().out
    assert main(["repair", "--reports", str(reports)]) == 0
    out = capsys.readouterr().out
    assert "refitted from its data on the next run" in out and "0 problems left" in out, out
    assert run(same) == 0
    again, before = pd.read_csv(table), pd.read_csv(io.BytesIO(original))
    pd.testing.assert_frame_equal(again, before, atol=1e-4)  # a refit from scratch: the fit's own tolerance
    latest = json.loads((reports / "latest.json").read_text())["benchmarks"]
    assert "refit" not in latest[0]
    assert main(["check", "--reports", str(reports)]) == 0


def test_a_damaged_snapshot_is_rebuilt_before_the_next_change_is_logged(good, tmp_path, capsys):
    """Issue 27, case 6: with its snapshot moved aside and never rebuilt, the next one-cell change was logged
    as every item and model added."""
    reports, run, same, third = _copy(good, tmp_path)
    snap = next((reports / "snapshots" / "responses").glob("*.csv.gz"))
    original = snap.read_bytes()
    snap.write_bytes(original[:20])
    assert main(["repair", "--reports", str(reports)]) == 0
    assert run(same) == 0
    assert snap.read_bytes() == original
    assert run(third) == 0
    last = json.loads((reports / "changelog.json").read_text())["changes"][-1]
    assert last["items_added"]["count"] == 0 and last["models_added"]["count"] == 0, last
    assert last["items_rescored"]["count"] > 0


def test_check_of_a_folder_that_does_not_exist_is_an_error(tmp_path, capsys):
    for command in ("check", "repair"):
        assert main([command, "--reports", str(tmp_path / "no-such")]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "no-such" in err and "no such reports folder" in err, err
    assert not (tmp_path / "no-such").exists()  # nothing made


def test_a_staging_folder_left_after_a_finished_commit_changes_nothing(good, tmp_path, capsys):
    """Issue 27, case 2: killed after its files were swapped in, before the staging folder was removed (its
    manifest left, the files gone from it). The next run, with a site, is that of an undisturbed folder."""
    reports, _, _, third = _copy(good, tmp_path)
    undisturbed, run_undisturbed, _, _ = _copy(good, tmp_path / "undisturbed")
    manifest = sorted(str(p.relative_to(reports)) for p in reports.rglob("*") if p.is_file())
    (reports / ".staging" / "items").mkdir(parents=True)
    (reports / ".staging" / "COMMIT.json").write_text(json.dumps(manifest))
    assert main(["check", "--reports", str(reports)]) == 1  # it is seen
    assert "interrupted" in capsys.readouterr().out
    argv = ["--site-out", str(tmp_path / "_site")]
    assert main(["run", "--input", str(third), "--reports", str(reports), "--cache", str(tmp_path / "c"), *argv]) == 0
    assert run_undisturbed(third) == 0
    assert not (reports / ".staging").exists()
    for name in ("history.csv", "changelog.json"):
        mine, theirs = (reports / name).read_text(), (undisturbed / name).read_text()
        assert mine.count("\n") == theirs.count("\n"), name
    history = pd.read_csv(reports / "history.csv", dtype=str)
    assert not history.duplicated(["benchmark", "revision"]).any() and len(history) == 3
    assert main(["check", "--reports", str(reports), "--site-out", str(tmp_path / "_site")]) == 0


def test_the_run_log_is_append_only_byte_for_byte(good, tmp_path):
    """Issue 27: each run re-wrote the earlier rows of runs.csv (5.30 became 5.3)."""
    reports, run, _, third = _copy(good, tmp_path)
    path = reports / "runs.csv"
    lines = path.read_text().splitlines(keepends=True)
    head, *rows = lines
    fields = rows[-1].split(",")
    fields[1] = "5.30"  # a time as the run writes it, with its trailing zero
    before = "".join([head, *rows[:-1], ",".join(fields)])
    path.write_text(before)
    assert run(third) == 0
    after = path.read_text()
    assert after.startswith(before) and after.count("\n") == before.count("\n") + 1


def test_check_names_a_benchmark_latest_lost_and_the_next_run_restores_it(good, tmp_path, capsys):
    """Issue 41: latest.json that silently lost a benchmark the history holds (a stale staging swapped in did so)
    is a problem check names, and the next plain run rebuilds the record and refits it."""
    root, third = good
    reports, cache = tmp_path / "r", tmp_path / "c"
    shutil.copytree(root / "r", reports)
    shutil.copytree(root / "c", cache) if (root / "c").exists() else cache.mkdir()
    body = json.loads((reports / "latest.json").read_text())
    lost = body["benchmarks"][0]["benchmark"]
    kept = [b for b in body["benchmarks"] if b["benchmark"] != lost]
    (reports / "latest.json").write_text(json.dumps({**body, "benchmarks": kept}))
    capsys.readouterr()
    assert main(["check", "--reports", str(reports)]) == 1
    assert f"{lost!r} is in history.csv but not here (lost)" in capsys.readouterr().out
    argv = ["run", "--input", str(third), "--reports", str(reports), "--cache", str(cache), "--no-site"]
    assert main(argv) == 0
    assert "lost benchmark(s) rebuilt from history.csv" in capsys.readouterr().out
    assert main(["check", "--reports", str(reports)]) == 0
    assert lost in {b["benchmark"] for b in json.loads((reports / "latest.json").read_text())["benchmarks"]}
