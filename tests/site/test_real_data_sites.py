"""The three real data sets: a strict site, every figure inside its interval, the floor on every page."""

from __future__ import annotations

import json
import re

import pytest

from benchwatch.cli import main
from benchwatch.site.paths import benchmark_page
from tests.site.test_readable_names import assert_display_names_everywhere

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
    benchmark_plots = [p for p in (site / "plots").glob("*.svg") if not p.name.startswith("summary")]  # home's two
    kinds = sorted(p.stem.rsplit("-", 1)[1] for p in benchmark_plots)  # each: its difficulties, tiers, history
    assert kinds == ["difficulty"] * 3 + ["saturation"] * 3 + ["tiers"] * 3
    assert (site / "plots" / "summary.svg").is_file()

    latest = json.loads((tmp_path / "r" / "latest.json").read_text())["benchmarks"]
    assert {r["benchmark"] for r in latest} == {"verified", "codegeneration_v2025-04", "mmlu_pro"}
    words = {"found": "found", "cannot tell": "cannot tell with these models", "clear": "clear"}
    for rec in latest:
        for key in ("ddm", "max_gap", "top3_gap_sum", "top5_gap_sum"):  # the model-based estimates
            assert rec[f"{key}_lo"] <= rec[key] <= rec[f"{key}_hi"], (rec["benchmark"], key)
        html = (site / benchmark_page(rec["page"]).removesuffix(".md") / "index.html").read_text()
        plot = site / "plots" / f"{benchmark_page(rec['benchmark']).split('/')[1].removesuffix('.md')}-difficulty.svg"
        assert rec["fit_verdict"] in ("fits", "misfit") and "Fit check:" in html
        assert not re.search(r"Max Gap\W{0,12}(is now )?found", html)  # a gap verdict never carries that name
        if rec["item_model"] == "withheld":  # the item model does not fit: no bound, no verdict, no flag, and why
            assert rec["fit_verdict"] == "misfit" and "Bounds withheld" in html
            assert "detection_limit" not in rec and not rec.get("verdicts")
            assert not {"fill", "revise"} & set(rec["flags"]) and "may be empty" not in plot.read_text()
            continue
        # the bounds: the detection limit above the widest gap between the fitted positions would be no check
        # (they are a product of the pool); it lies in [0, 1], and the DDM bounds are ordered
        assert 0 < rec["detection_limit"] <= 1 and 0 <= rec["ddm_bound_lo"] <= rec["ddm_bound_hi"] <= 1
        assert rec["top5_gap_sum_bound_hi"] is None or rec["top5_gap_sum_bound_hi"] >= rec["detection_limit"]
        assert set(rec["verdicts"]) == {"ddm", "max_gap", "top5_gap_sum"}
        assert "What these models can and cannot see" in html and "What this model pool can resolve" in html
        assert f"at most {rec['detection_limit']:.3f}" in html
        if rec["top5_gap_sum_bound_hi"] is None:  # a bound over the whole axis is none (issue 38)
            assert "no bound with these models" in html
        for v in rec["verdicts"].values():
            assert words[v["verdict"]] in html
        # the stretch that may be empty: drawn where the strip shows no item in it, said in words where it does
        svg = plot.read_text()
        assert ("may be empty" in svg) != ("(spans items)" in svg)
        if "fill" in rec["flags"]:
            assert "found" in {rec["verdicts"][k]["verdict"] for k in ("max_gap", "top5_gap_sum")}
    assert_display_names_everywhere(site, tmp_path / "r")  # issue 40: titles, navigation, feeds and alerts
    mmlu = next(r for r in latest if r["benchmark"] == "mmlu_pro")
    assert (mmlu["n_models"], mmlu["n_items"]) == (29, 12032)
