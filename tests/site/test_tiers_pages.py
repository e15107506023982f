"""Tiers on the site (issue 24): the source of each board's errors named, and a top-tier change alerted."""

from __future__ import annotations

import html
import json
import re

import feedparser
import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from benchwatch.pipeline import run_job
from benchwatch.site import build_site
from benchwatch.site.paths import benchmark_feed, benchmark_page
from benchwatch.sources import SourceTable

pytestmark = pytest.mark.slow


def _text(path) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", path.read_text()))


def test_boards_name_where_their_errors_come_from(sample_site):
    _, reports, site = sample_site
    records = {r["benchmark"]: r for r in json.loads((reports / "latest.json").read_text())["benchmarks"]}
    gpqa, evalplus = records["Epoch gpqa_diamond"], records["EvalPlus humaneval"]
    assert gpqa["tier_method"] == "z test on the standard errors the source publishes"
    assert evalplus["tier_method"].startswith("z test on the binomial error of the test-set size (164 items)")
    for rec in (gpqa, evalplus):
        page = _text(site / benchmark_page(rec["page"]).removesuffix(".md") / "index.html")
        assert "Who can be told apart" in page and rec["tier_method"] in " ".join(page.split())
        assert f"Top tier: {rec['top_tier_size']} model" in page


def test_every_sample_record_has_one_procedure_and_one_score_interval(sample_site):
    """Every record of the bundled sample run (per-item and boards): every tier-1 model's rank interval includes
    1, tiers never rise as scores fall, the top tier is tier 1 of the models table, and the record's top models
    carry the very score intervals of that table (one function: the audit's and the tiers')."""
    from benchwatch.history.folder import Reports

    _, reports, _ = sample_site
    records = json.loads((reports / "latest.json").read_text())["benchmarks"]
    tiered = [r for r in records if r.get("tier_method")]
    assert sum(r["kind"] == "items" for r in tiered) >= 5 and sum(r["kind"] == "aggregate" for r in tiered) >= 2
    for rec in tiered:
        models = pd.read_csv(Reports(reports).models(rec["benchmark"]))
        table = models.dropna(subset=["tier"]).sort_values("score", ascending=False)
        n = len(table) + len(rec.get("untiered") or [])
        assert (table.loc[table["tier"] == 1, "rank_lo"] == 1).all(), rec["benchmark"]
        assert (table["tier"].diff().dropna() >= 0).all(), rec["benchmark"]
        assert ((table["rank_lo"] >= 1) & (table["rank_lo"] <= table["rank_hi"]) & (table["rank_hi"] <= n)).all()
        assert sorted(table.loc[table["tier"] == 1, "model"]) == sorted(rec["top_tier"])
        by_model = models.set_index(models["model"].astype(str))
        for top in rec["top_models"]:
            row = by_model.loc[str(top["model"])]
            assert (top["lo"], top["hi"]) == pytest.approx((row["score_lo"], row["score_hi"]), abs=2e-6), top


def _source(scores: list[float], seed: int) -> SourceTable:
    rng = np.random.default_rng(seed)
    easiness = rng.normal(0, 1, 800)
    rows = []
    for k, skill in enumerate(scores):
        solved = rng.random(800) < expit(skill + easiness)
        rows += [("tiered", f"model-{k}", f"i{j}", float(v)) for j, v in enumerate(solved)]
    frame = pd.DataFrame(rows, columns=["benchmark", "model", "item_id", "score"])
    return SourceTable("sim", "simulated", frame.astype(str))


def test_a_change_of_the_top_tier_raises_one_alert_in_the_benchmarks_feed(tmp_path):
    kw = {"reports_dir": tmp_path / "r", "site_out": tmp_path / "s", "cache_dir": tmp_path / "c", "log": lambda s: None}
    kw["build_site"] = build_site
    skills = [1.0, 1.0, 0.0, -0.5, -1.0, -1.5]
    run_job([("sim", lambda: _source(skills, 1))], now="2026-01-01T00:00:00Z", **kw)
    first = json.loads((tmp_path / "r" / "latest.json").read_text())["benchmarks"][0]
    assert set(first["top_tier"]) == {"model-0", "model-1"}
    skills[2] = 1.0  # model-2 catches up with the two best
    run_job([("sim", lambda: _source(skills, 1))], now="2026-01-02T00:00:00Z", **kw)
    second = json.loads((tmp_path / "r" / "latest.json").read_text())["benchmarks"][0]
    assert "model-2" in second["top_tier"]
    feed = feedparser.parse((tmp_path / "s" / benchmark_feed("tiered")).read_bytes())
    tier_items = [e for e in feed.entries if "top tier" in e.title]
    assert len(tier_items) == 1 and "joined: model-2" in tier_items[0].title
