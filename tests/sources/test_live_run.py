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
    "livecodebench_execution": "livecodebench/performances_execution.json",
    "livecodebench_repair": "livecodebench/performances_repair.json",
    "livecodebench_testgen": "livecodebench/performances_testgen.json",
    "evalarena": "evalarena/",
    "epoch": "epoch/benchmark_data.zip",
    "evalplus": "evalplus/results.json",
    "mmlu_pro": "mmlu_pro/",
    "epoch_samples": "epoch_samples/parsed.csv",
    "alpaca_eval": "alpaca_eval/",
    "livebench_site": "livebench_site/",
}


OTHER_URLS = {"epoch_samples": {"runs": "epoch_samples/benchmarks_runs.csv"}}

# Left out of the whole runs below: none since the resolution floors are gone (MMLU-Pro's two real output files
# are two models: scores only, in a second).
SLOW: tuple[str, ...] = ()


def _shipped_config_on(server, tmp_path, extra: str = "", leave_out: tuple[str, ...] = SLOW) -> str:
    """benchwatch.toml as shipped, with each real source's URL on the local server (others left out)."""
    text = (ROOT / "benchwatch.toml").read_text()
    config = tomllib.loads(text)
    out = []
    for block in re.split(r"(?m)^(?=\[)", text):
        header = re.match(r"\[sources\.([^\].]+)[\].]", block)
        if header and (header.group(1) not in REAL or header.group(1) in leave_out):
            continue  # helm and livebench: no real copy can be had here
        if header and block.startswith(f"[sources.{header.group(1)}]"):
            old = config["sources"][header.group(1)]["url"]
            block = block.replace(f'url = "{old}"', f'url = "{server.url}{REAL[header.group(1)]}"')
            for key, path in OTHER_URLS.get(header.group(1), {}).items():  # a source's other URLs
                block = block.replace(
                    f'{key} = "{config["sources"][header.group(1)][key]}"', f'{key} = "{server.url}{path}"'
                )
            files = config["sources"][header.group(1)].get("files")
            if isinstance(files, list):  # only the files that have a real copy (two of MMLU-Pro's 44 zips)
                here = [f for f in files if (server.root / REAL[header.group(1)] / f).is_file()]
                block = re.sub(r"(?ms)^files = \[.*?\]", "files = " + json.dumps(here), block)
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
        "Epoch samples SWE-bench Verified",
        "Epoch swe_bench_bash",
        "Epoch swe_bench_verified",
        "SWE-bench Verified",
        "SWE-bench Verified (published scores)",
        "SWE-bench bash-only (published scores)",
    ]
    # Epoch's own runs share SWE-bench Verified's instance ids: fitted after it in this first run, they place their
    # items with its 24 models too.
    joint = latest["Epoch samples SWE-bench Verified"]["joint_pool"]
    assert [(w["benchmark"], w["models"]) for w in joint["with"]] == [("SWE-bench Verified", 24)]
    assert 0 < joint["with"][0]["items"] <= 500
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
    # Honest figures (issue 22): every per-item page shows the detection limit and the verdicts; MMLU-Pro and its
    # 14 categories, two models each here, publish scores only: no per-item figure and no flag.
    words = {"found": "found", "cannot tell": "cannot tell with these models", "clear": "clear"}
    placed = [r for r in latest.values() if r.get("kind") == "items"]
    assert {"SWE-bench Verified", "LiveCodeBench code generation", "humaneval+", "mbpp+", "lcb_codegen"} <= {
        r["benchmark"] for r in placed
    }
    for rec in placed:
        assert set(rec["verdicts"]) == {"ddm", "max_gap", "top5_gap_sum"}, rec["benchmark"]
        html = (site / benchmark_page(rec["page"]).removesuffix(".md") / "index.html").read_text()
        assert "What these models can and cannot see" in html and f"at most {rec['detection_limit']:.3f}" in html
        assert all(words[v["verdict"]] in html for v in rec["verdicts"].values())
        if {"fill", "revise"} & set(rec["flags"]):
            assert "found" in {v["verdict"] for v in rec["verdicts"].values()}
    mmlu = [r for r in latest.values() if r["benchmark"].startswith("MMLU-Pro")]
    assert len(mmlu) == 15
    for rec in mmlu:
        assert rec["kind"] == "aggregate" and rec["per_item"] and rec["n_models"] == 2, rec["benchmark"]
        assert "too few models to place items" in rec["unplaced"] and rec["flags"] == []
        assert rec["ddm"] is None and "detection_limit" not in rec and not rec.get("verdicts")
    html = (site / benchmark_page(mmlu[0]["page"]).removesuffix(".md") / "index.html").read_text()
    assert "too few models to place items" in html and "What these models can and cannot see" not in html
    pages = {p.parent.name for p in (site / "benchmarks").glob("*/index.html")}
    assert len(pages) == len({r["page"] for r in latest.values()}) < len(latest)
    assert latest["Epoch gpqa_diamond"]["n_models"] == 145
    feed = feedparser.parse((site / "feed.xml").read_bytes())
    assert feed.version == "rss20" and len(feed.entries) >= len(latest)
    # An unchanged second run: every source answers 304, nothing is refitted.
    assert main([*argv, "--no-site"]) == 0
    out = capsys.readouterr().out
    assert out.count("not-modified") == len(REAL) - len(SLOW) and "0 new snapshots" in out


def test_the_shipped_configuration_reaches_80_benchmarks_30_of_them_per_item(shared_upstream, tmp_path):
    """Every source of benchwatch.toml that has a real copy here, read by its adapter over loopback (no audit):
    the benchmarks they publish (issue 25: at least 80, 30 of them per item), without HELM, the Hub's LiveBench
    export and Epoch's logs, which have no copy here."""
    from bot.sources import Fetcher, load_config, load_source
    from bot.store import validate_aggregates, validate_responses

    config = load_config(_shipped_config_on(shared_upstream, tmp_path, leave_out=()))
    per_item, boards = set(), set()
    with Fetcher(tmp_path / "cache", retries=0) as fetcher:
        for cfg in config.sources.values():
            table = load_source(fetcher, cfg)
            if len(table.frame):
                per_item |= set(validate_responses(table.frame, cfg.name)["benchmark"])
            if table.aggregates is not None and len(table.aggregates):
                boards |= set(validate_aggregates(table.aggregates.astype(str), cfg.name)["benchmark"])
    print(f"{len(per_item | boards)} benchmarks, {len(per_item)} of them per item")
    assert len(per_item | boards) >= 80 and len(per_item) >= 30, (sorted(per_item), sorted(boards))
    assert {"MMLU-Pro", "MMLU-Pro law", "SWE-bench Verified", "humaneval+"} <= per_item
