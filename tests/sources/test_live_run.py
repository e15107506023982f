"""A live run over a config of local-server URLs produces the site end to end."""

from __future__ import annotations

import json

import feedparser
import pytest

from bot.cli import main

pytestmark = pytest.mark.slow


def test_config_of_local_urls_builds_the_site(shared_upstream, tmp_path, capsys):
    url = shared_upstream.url
    config = tmp_path / "benchwatch.toml"
    config.write_text(
        f"""
[http]
retries = 0
[sources.swebench]
adapter = "swebench"
url = "{url}swebench/leaderboards.json"
[sources.evalarena]
adapter = "evalarena"
url = "{url}evalarena/"
files = ["humaneval+.jsonl"]
[sources.evalplus]
adapter = "evalplus"
url = "{url}evalplus/results.json"
[sources.broken]
adapter = "livecodebench"
url = "{url}no-such-file.json"
"""
    )
    site = tmp_path / "_site"
    argv = ["run", "--config", str(config), "--reports", str(tmp_path / "r"), "--cache", str(tmp_path / "c")]
    assert main([*argv, "--site-out", str(site), "--sources", "swebench,evalarena,evalplus,broken"]) == 0
    out = capsys.readouterr().out
    assert "broken: FAILED" in out and "HTTP 404" in out
    latest = {r["benchmark"]: r for r in json.loads((tmp_path / "r" / "latest.json").read_text())["benchmarks"]}
    assert latest["SWE-bench bash-only"]["n_models"] == 24 and latest["SWE-bench bash-only"]["n_items"] == 500
    assert latest["humaneval+"]["n_models"] == 49
    assert latest["EvalPlus humaneval+"]["kind"] == "aggregate" and latest["EvalPlus humaneval+"]["ddm"] is None
    excluded = latest["SWE-bench bash-only"]["excluded"]
    assert [e["model"] for e in excluded] == ["20250720_mini-v0.0.0-claude-3-7-sonnet-20250219"]
    home = (site / "index.html").read_text()
    assert "Sources" in home and "broken" in home and "failed" in home
    bash = next(p for p in (site / "benchmarks").iterdir() if p.name.startswith("swe-bench-bash-only"))
    assert "20250720_mini-v0.0.0-claude-3-7-sonnet-20250219" in (bash / "index.html").read_text()
    feed = feedparser.parse((site / "feed.xml").read_bytes())
    assert feed.version == "rss20" and len(feed.entries) >= len(latest)
    changelog = json.loads((tmp_path / "r" / "changelog.json").read_text())["changes"]
    assert {c["benchmark"] for c in changelog} == set(latest)
    # An unchanged second run: every source answers 304, nothing is refitted.
    assert main([*argv, "--no-site", "--sources", "swebench,evalarena,evalplus"]) == 0
    out = capsys.readouterr().out
    assert out.count("not-modified") == 3 and "0 new snapshots" in out
