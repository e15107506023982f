"""Issues 38 and 60: two statements on one page never contradict each other. Over the bundled sample's reports,
site and feeds: the state and the tiers are one rule (told apart exactly when fewer than five models share the
best's tier), a gap verdict never carries the Max Gap figure's name, and a top-5 bound
that would cover the whole axis is null and reads "no bound with these models"."""

from __future__ import annotations

import json
import re

from benchwatch.site.paths import benchmark_page

WITHIN = ("saturated", "stagnant")


def _records(reports) -> list[dict]:
    return json.loads((reports / "latest.json").read_text())["benchmarks"]


def _page(site, rec: dict) -> str:
    """A record's built page (``benchmarks/<slug>.md`` is served as ``benchmarks/<slug>/index.html``)."""
    return (site / benchmark_page(rec.get("page") or rec["benchmark"]).removesuffix(".md") / "index.html").read_text()


def _text_files(site):
    return [p for p in site.rglob("*") if p.suffix in (".html", ".xml", ".json", ".csv", ".md") and p.is_file()]


def test_no_benchmark_is_told_apart_while_five_share_the_best_tier(sample_site):
    """Issue 60, one rule per claim: the state and the tiers are one procedure. A benchmark is "discriminating"
    exactly when fewer than five models share the best's tier, whatever the paired interval beside it says; the
    alerts and the feed never call a told-apart benchmark "within noise"."""
    _, reports, site = sample_site
    records = [r for r in _records(reports) if r["state"] != "unknown"]
    apart = {r["benchmark"] for r in records if r["state"] == "discriminating"}
    assert apart and len(apart) < len(records), "the sample has benchmarks on both sides of the rule"
    for rec in records:
        assert rec["state_from"] == "tiers", rec["benchmark"]
        assert (rec["state"] in WITHIN) == (rec["top_tier_size"] >= 5), rec["benchmark"]
        if rec["benchmark"] in apart:
            assert "watch" not in rec["flags"] and "retire" not in rec["flags"]
    alerts = json.loads((reports / "alerts.json").read_text())["alerts"]
    for alert in alerts:
        if alert["benchmark"] in apart and alert.get("kind") == "state":
            assert "within noise" not in alert["title"], alert["title"]
    feed = (site / "feed.xml").read_text()
    for item in re.findall(r"<item>.*?</item>", feed, re.S):
        if "within noise" in item:
            assert not any(f">{name}" in item or f" {name} " in item for name in apart), item


def test_a_state_names_its_evidence_beside_the_papers_index(sample_site):
    _, reports, site = sample_site
    rec = next(r for r in _records(reports) if r["state_from"] == "tiers" and r["kind"] == "items")
    text = _page(site, rec)
    assert "The paper&#39;s saturation index" in text or "The paper's saturation index" in text
    assert "decided by the tiers" in text


def test_no_gap_verdict_of_found_carries_the_max_gap_name(sample_site):
    _, reports, site = sample_site
    found = [r for r in _records(reports) if ((r.get("verdicts") or {}).get("max_gap") or {}).get("verdict") == "found"]
    assert found, "the sample has a coverage hole found (synthetic-saturated)"
    for rec in found:
        assert rec["thin_width"] >= rec["verdicts"]["max_gap"]["found_level"]  # it judged the thin stretch
    for path in _text_files(site):
        text = path.read_text(errors="replace")
        assert not re.search(r"Max Gap\W{0,12}(is now )?found", text), path
        # a verdict row's first cell is its question's name, never the Max Gap figure's
        for row in re.findall(r"<tr>\s*<td[^>]*>Max Gap</td>.*?</tr>", text, re.S):
            assert ">found<" not in row and "<strong>found</strong>" not in row, (path, row)


def test_a_whole_axis_bound_is_null_and_says_no_bound(sample_site):
    _, reports, site = sample_site
    bounded = [r for r in _records(reports) if r.get("detection_limit") is not None]
    assert bounded
    unbounded = [r for r in bounded if r.get("top5_gap_sum_bound_hi") is None]
    assert unbounded, "the sample has a pool too small to bound the top-5 gap sum"
    for rec in bounded:
        assert rec.get("top5_gap_sum_bound_hi") is None or rec["top5_gap_sum_bound_hi"] < 1.0
    for rec in unbounded:
        text = _page(site, rec)
        assert "no bound with these models" in text
        assert not re.search(r"Top-5 gap sum[^<]{0,60}</td>\s*<td[^>]*>1\.000?<", text)
