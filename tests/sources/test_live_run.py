"""A live run of the shipped benchwatch.toml, its URLs pointed at the real upstream files on 127.0.0.1."""

from __future__ import annotations

import json
import re
import tomllib

import pytest

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
    "all_the_noises": "all_the_noises/",
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


def test_the_shipped_configuration_reaches_80_benchmarks_30_of_them_per_item(shared_upstream, tmp_path):
    """Every source of benchwatch.toml that has a real copy here, read by its adapter over loopback (no audit):
    the benchmarks they publish (issue 25: at least 80, 30 of them per item), without HELM, the Hub's LiveBench
    export and Epoch's logs, which have no copy here."""
    from benchwatch.sources import Fetcher, load_config, load_source
    from benchwatch.store import validate_aggregates, validate_responses

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
