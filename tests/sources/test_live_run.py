"""A live run of the shipped benchwatch.toml, its URLs pointed at the real upstream files on 127.0.0.1."""

from __future__ import annotations

import json
import re
import tomllib

import feedparser
import pytest

from bot.cli import main
from bot.site.pages import benchmark_page
from tests.conftest import ROOT

pytestmark = pytest.mark.slow

# The sources of the shipped config that have a real copy in ../shared/upstream, and where it lies.
REAL = {
    "swebench": "swebench/leaderboards.json",
    "livecodebench": "livecodebench/performances_generation.json",
    "evalarena": "evalarena/",
    "epoch": "epoch/benchmark_data.zip",
    "evalplus": "evalplus/results.json",
}


def _shipped_config_on(server, tmp_path, extra: str = "") -> str:
    """benchwatch.toml as shipped, with each real source's URL on the local server (others left out)."""
    text = (ROOT / "benchwatch.toml").read_text()
    config = tomllib.loads(text)
    out = []
    for block in re.split(r"(?m)^(?=\[)", text):
        header = re.match(r"\[sources\.([^\].]+)[\].]", block)
        if header and header.group(1) not in REAL:
            continue  # helm and livebench: no real copy can be had here
        if header and block.startswith(f"[sources.{header.group(1)}]"):
            old = config["sources"][header.group(1)]["url"]
            block = block.replace(f'url = "{old}"', f'url = "{server.url}{REAL[header.group(1)]}"')
        out.append(block)
    path = tmp_path / "benchwatch.toml"
    path.write_text("".join(out).replace("retries = 3", "retries = 0") + extra)
    return str(path)


def test_shipped_config_on_the_real_files(shared_upstream, tmp_path, capsys):
    config = _shipped_config_on(shared_upstream, tmp_path)
    site = tmp_path / "_site"
    argv = ["run", "--config", config, "--reports", str(tmp_path / "r"), "--cache", str(tmp_path / "c")]
    assert main([*argv, "--site-out", str(site)]) == 0
    out = capsys.readouterr().out
    assert "FAILED" not in out
    latest = {r["benchmark"]: r for r in json.loads((tmp_path / "r" / "latest.json").read_text())["benchmarks"]}
    # SWE-bench Verified once: one per-item fit of the runs of both boards, the boards as leaderboards.
    per_item = [r for r in latest.values() if r.get("kind") != "aggregate"]
    swe = [r for r in per_item if r["benchmark"].startswith("SWE-bench")]
    assert [r["benchmark"] for r in swe] == ["SWE-bench Verified"]
    assert (swe[0]["n_models"], swe[0]["n_items"]) == (24, 500)
    on_swe_page = sorted(r["benchmark"] for r in latest.values() if r["page"] == "SWE-bench Verified")
    assert on_swe_page == [
        "Epoch swe_bench_bash",
        "Epoch swe_bench_verified",
        "SWE-bench Verified",
        "SWE-bench Verified (published scores)",
        "SWE-bench bash-only (published scores)",
    ]
    board = latest["SWE-bench Verified (published scores)"]["comparison"]
    assert (board["fit_models"], board["board_models"]) == (24, 162) and board["both"] == 24
    page = (site / benchmark_page("SWE-bench Verified").removesuffix(".md") / "index.html").read_text()
    assert "covers 24 models; this board lists 162" in page
    # HumanEval+ and MBPP+: eval-arena's per-item fit and EvalPlus's board on one page each.
    for bench_id, fit, board_name in [
        ("HumanEval+", "humaneval+", "EvalPlus humaneval+"),
        ("MBPP+", "mbpp+", "EvalPlus mbpp+"),
    ]:
        assert latest[fit]["page"] == bench_id and latest[board_name]["page"] == bench_id
        assert latest[fit]["kind"] != "aggregate" and latest[board_name]["kind"] == "aggregate"
        html = (site / benchmark_page(bench_id).removesuffix(".md") / "index.html").read_text()
        assert f"Also: {board_name}" in html and "evalarena" in html and "evalplus" in html
        assert latest[board_name]["comparison"]["with"] == fit
    pages = {p.parent.name for p in (site / "benchmarks").glob("*/index.html")}
    assert len(pages) == len({r["page"] for r in latest.values()}) < len(latest)
    assert latest["Epoch gpqa_diamond"]["n_models"] == 145
    feed = feedparser.parse((site / "feed.xml").read_bytes())
    assert feed.version == "rss20" and len(feed.entries) >= len(latest)
    # An unchanged second run: every source answers 304, nothing is refitted.
    assert main([*argv, "--no-site"]) == 0
    out = capsys.readouterr().out
    assert out.count("not-modified") == len(REAL) and "0 new snapshots" in out
