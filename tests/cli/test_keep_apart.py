"""A user's own file never lands in the live history (issue 14): `audit` writes nothing unless asked, and
`run --input` keeps its reports apart, as `--sample` does."""

from __future__ import annotations

import pandas as pd

from benchwatch.cli import main
from tests.irt.test_rasch_map import simulate


def _tree(root) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_audit_and_run_input_leave_the_reports_folder_alone(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    live = tmp_path / "reports"
    (live / "by_date").mkdir(parents=True)
    (live / "latest.json").write_text('{"benchmarks": []}\n')
    (live / ".gitignore").write_text(".benchwatch.lock\n")
    before = _tree(live)
    df, _, _ = simulate(8, 30, seed=2)
    df["benchmark"] = "mine"
    df["date"] = [f"2025-0{1 + int(m[1:]) // 3}-01" for m in df["model"]]
    df.to_csv(tmp_path / "mine.csv", index=False)

    assert main(["audit", "mine.csv"]) == 0
    assert main(["run", "--input", "mine.csv", "--no-site"]) == 0
    assert _tree(live) == before  # not one byte, not one new file
    kept = pd.read_csv(tmp_path / "_input" / "reports" / "history.csv")
    assert kept["benchmark"].tolist() == ["mine"]

    assert main(["audit", "mine.csv", "--reports", "elsewhere"]) == 0  # asked: the history by date goes there
    assert (tmp_path / "elsewhere" / "by_date" / "mine.csv").exists()
    assert _tree(live) == before
