"""mkdocs build --strict passes on the three real data sets."""

from __future__ import annotations

import pytest

from bot.cli import main

pytestmark = pytest.mark.slow


def test_strict_site_on_swebench_livecodebench_and_mmlu_pro(shared_data, tmp_path):
    inputs = [
        shared_data / "swebench_verified_bashonly" / "verified.csv",
        shared_data / "livecodebench" / "codegeneration_v2025-04.csv",
        shared_data / "mmlu_pro" / "mmlu_pro.csv",
    ]
    site = tmp_path / "site"
    argv = ["run", "--reports", str(tmp_path / "r"), "--cache", str(tmp_path / "c"), "--site-out", str(site)]
    for path in inputs:
        argv += ["--input", str(path)]
    assert main(argv) == 0
    for name in ("verified", "codegeneration-v2025-04", "mmlu-pro"):
        pages = [p for p in (site / "benchmarks").iterdir() if p.name.startswith(name)]
        assert len(pages) == 1 and (pages[0] / "index.html").is_file()
    assert len(list((site / "plots").glob("*.svg"))) == 6
