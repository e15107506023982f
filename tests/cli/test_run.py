"""End to end: ``benchwatch run --sample`` from the bundled sample to a built site with RSS."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import feedparser
import pytest

from benchwatch.cli import main
from benchwatch.record import as_record
from benchwatch.site.names import display_name

pytestmark = pytest.mark.slow


def snapshot_files(reports: Path) -> dict[str, bytes]:
    return {str(p.relative_to(reports)): p.read_bytes() for p in sorted(reports.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def sample_run(tmp_path_factory):
    root = tmp_path_factory.mktemp("run")
    reports, site = root / "reports", root / "_site"
    argv = ["run", "--sample", "--reports", str(reports), "--site-out", str(site), "--cache", str(root / "cache")]
    assert main(argv) == 0
    first = snapshot_files(reports)
    first_feed = (site / "feed.xml").read_bytes()
    assert main(argv) == 0
    return reports, site, first, first_feed


def _synthetic(reports: Path) -> list[dict]:
    return [r for r in json.loads((reports / "latest.json").read_text())["benchmarks"] if r["synthetic"]]


def test_site_has_home_benchmark_pages_and_a_valid_feed(sample_run):
    reports, site, _, _ = sample_run
    latest = _synthetic(reports)
    assert len(latest) == 5
    home = (site / "index.html").read_text()
    assert 'type="application/rss+xml"' in home and 'href="feed.xml"' in home
    for rec in latest:
        page = site / "benchmarks" / rec["benchmark"] / "index.html"
        assert page.is_file()
        assert f"benchmarks/{rec['benchmark']}/" in home
    feed = feedparser.parse((site / "feed.xml").read_bytes())
    assert feed.version == "rss20" and not feed.bozo
    assert len(feed.entries) >= 5
    assert len({e.id for e in feed.entries}) == len(feed.entries)
    for rec in latest:
        per = feedparser.parse((site / f"feed-{rec['benchmark']}.xml").read_bytes())
        assert per.version == "rss20" and len(per.entries) >= 1


def test_each_pattern_is_visible_in_reports_and_on_the_site(sample_run):
    reports, site, _, _ = sample_run
    by = {r["benchmark"]: r for r in _synthetic(reports)}
    assert by["synthetic-olympiad"]["max_gap"] >= 0.10 and by["synthetic-olympiad"]["n_items"] == 30
    assert by["synthetic-easy-heavy"]["ddm"] >= 0.10 and by["synthetic-easy-heavy"]["n_items"] == 500
    assert by["synthetic-saturated"]["state"] == "saturated"
    assert by["synthetic-stagnant"]["state"] == "stagnant"
    assert by["synthetic-healthy"]["state"] == "discriminating"
    assert by["synthetic-healthy"]["ddm"] < 0.05 and by["synthetic-healthy"]["max_gap"] < 0.10
    home = (site / "index.html").read_text()
    assert "Real and synthetic benchmarks" in home
    for rec in by.values():
        page = (site / "benchmarks" / rec["benchmark"] / "index.html").read_text()
        assert f"{rec['ddm']:.3f}" in page and f"{rec['max_gap']:.3f}" in page and rec["state"] in page


def test_first_run_retires_the_long_saturated_benchmark_and_flags_no_matched_one(sample_run):
    reports, site, _, _ = sample_run
    by = {r["benchmark"]: r for r in _synthetic(reports)}
    saturated = by["synthetic-saturated"]
    history = (reports / "history.csv").read_text().splitlines()
    assert sum("synthetic-saturated" in line for line in history) == 1  # one snapshot, yet retired:
    assert "retire" in saturated["flags"] and saturated["saturated_since"].startswith("2025-")
    assert f"since {saturated['saturated_since']}" in saturated["retirement"]
    assert saturated["saturation_index_lo"] >= 0.7
    assert by["synthetic-healthy"]["flags"] == []  # its items are drawn from the target
    page = (site / "benchmarks" / "synthetic-saturated" / "index.html").read_text()
    assert f"since {saturated['saturated_since']}" in page


def test_the_home_page_shows_real_benchmarks_each_with_its_origin(sample_run):
    reports, site, _, _ = sample_run
    real = [r for r in json.loads((reports / "latest.json").read_text())["benchmarks"] if not r["synthetic"]]
    names = {r["benchmark"] for r in real}
    assert {"LiveCodeBench code generation", "Epoch gpqa_diamond", "EvalPlus humaneval+"} <= names
    lcb = next(r for r in real if r["benchmark"] == "LiveCodeBench code generation")
    assert (lcb["n_models"], lcb["n_items"]) == (16, 1055)  # the real file, read by the real adapter
    home = (site / "index.html").read_text()
    licences = {"livecodebench": "CC BY-SA 4.0", "epoch": "CC BY 4.0", "evalplus": "Apache-2.0"}
    for rec in real:
        assert "bundled snapshot of" in rec["origin"] and licences[rec["source_name"]] in rec["origin"]
        shown = html.escape(display_name(as_record(rec)), quote=False)  # the name the page shows
        row = next(r for r in re.findall(r"<tr>(.*?)</tr>", home, re.S) if f">{shown}</a>" in r)
        assert "bundled snapshot of" in row and licences[rec["source_name"]] in row


def test_second_run_changes_nothing_but_the_run_log(sample_run):
    reports, site, first, first_feed = sample_run
    second = snapshot_files(reports)
    runs = second.pop("runs.csv").decode().splitlines()
    first_runs = first.pop("runs.csv").decode().splitlines()
    assert second == first
    assert len(runs) == len(first_runs) + 1 == 3
    assert (site / "feed.xml").read_bytes() == first_feed


def test_bad_input_file_gives_one_error_line_and_status_2(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("benchmark,model,item_id,score\nb,m,i,1\nb,m,j,7\n")
    argv = ["run", "--input", str(bad), "--reports", str(tmp_path / "r"), "--cache", str(tmp_path / "c")]
    status = main([*argv, "--no-site"])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2
    assert len(err) == 1
    assert "bad.csv" in err[0] and "line 3" in err[0] and "'score'" in err[0] and "'7'" in err[0]
    written = [p.name for p in (tmp_path / "r").rglob("*") if p.is_file()]
    assert written in ([], [".benchwatch.lock"])  # nothing was recorded
