"""Alerts on changes of state and flags."""

from __future__ import annotations

from benchwatch.alerts import diff_alerts
from benchwatch.record import BenchmarkRecord, as_record


def record(state="discriminating", flags=(), revision="r1", **extra) -> BenchmarkRecord:
    base = {
        "benchmark": "bench",
        "revision": revision,
        "state": state,
        "flags": list(flags),
        "ddm": 0.12,
        "max_gap": 0.2,
        "top5_gap_sum": 0.4,
        "saturation_index": 0.95,
        "top1": 0.97,
        "top5": 0.96,
        "top5_mean": 0.965,
    }
    return as_record({**base, **extra})


def test_a_new_benchmark_announces_its_state_and_flags():
    alerts = diff_alerts(None, record("saturated", ["fill"]), "2026-01-01T00:00:00Z")
    assert [(a["kind"], a.get("flag")) for a in alerts] == [("state", None), ("raised", "fill")]
    assert alerts[0]["title"] == "bench is saturated: its top five are within noise of each other, at a mean of 96.5%"
    assert alerts[0]["from"] is None and alerts[0]["to"] == "saturated"


def test_no_change_no_alert():
    rec = record("stagnant", ["watch"])
    assert diff_alerts(rec, rec, "2026-01-02T00:00:00Z") == []


def test_raised_and_cleared_flags_and_stable_ids():
    old = record("discriminating", ["revise"], revision="r1")
    new = record("saturated", ["fill"], revision="r2")
    alerts = diff_alerts(old, new, "2026-01-03T00:00:00Z")
    assert {(a["kind"], a.get("flag")) for a in alerts} == {("state", None), ("raised", "fill"), ("cleared", "revise")}
    ids = [a["id"] for a in alerts]
    assert len(set(ids)) == 3
    assert ids == [a["id"] for a in diff_alerts(old, new, "2027-05-05T00:00:00Z")]  # the id does not hold the time


def test_a_changed_verdict_is_one_alert_with_its_words():
    def with_verdicts(revision: str, **verdicts: str) -> BenchmarkRecord:
        return record(revision=revision, verdicts={k: {"verdict": v} for k, v in verdicts.items()})

    old = with_verdicts("r1", ddm="clear", max_gap="cannot tell", top5_gap_sum="cannot tell")
    new = with_verdicts("r2", ddm="clear", max_gap="found", top5_gap_sum="cannot tell")
    alerts = diff_alerts(old, new, "2026-01-04T00:00:00Z")
    assert [(a["kind"], a["figure"], a["from"], a["to"]) for a in alerts] == [
        ("verdict", "max_gap", "cannot tell", "found")
    ]
    assert alerts[0]["title"] == "bench: Coverage hole is now found (was cannot tell with these models)"
    assert alerts[0]["id"] == "bench/verdict-max_gap/r2"
    # a first audit, or a record from before the verdicts, raises none
    assert not [a for a in diff_alerts(record(), new, "t") if a["kind"] == "verdict"]
    assert not [a for a in diff_alerts(None, new, "t") if a["kind"] == "verdict"]


def test_a_change_of_the_top_tier_is_one_alert_naming_who_joined_and_left():
    old = record(revision="r1", top_tier=["a", "b", "c"])
    new = record(revision="r2", top_tier=["a", "b", "d"])
    alerts = [a for a in diff_alerts(old, new, "2026-01-05T00:00:00Z") if a["kind"] == "tier"]
    assert len(alerts) == 1 and alerts[0]["joined"] == ["d"] and alerts[0]["left"] == ["c"]
    assert alerts[0]["title"] == "bench: the top tier is now 3 models (joined: d; left: c)"
    assert alerts[0]["id"] == "bench/top-tier/r2"
    same_order = record(revision="r3", top_tier=["b", "a", "d"])
    assert not [a for a in diff_alerts(new, same_order, "t") if a["kind"] == "tier"]
    assert not [a for a in diff_alerts(record(), new, "t") if a["kind"] == "tier"]  # no tiers before: none


def test_a_change_of_the_bounds_path_is_an_alert_that_says_why():
    """Issue 37: bounds withheld (the item model does not fit), a 2PL's, the 1PL's again: one alert each; a
    record from before the item model was checked counts as the 1PL's."""
    old = record(kind="items")  # no item_model: made before the check
    why = "the items' discriminations differ more than a 1PL allows"
    withheld = record(kind="items", revision="r2", item_model="withheld", withheld=why)
    alerts = [a for a in diff_alerts(old, withheld, "2026-01-04T00:00:00Z") if a["kind"] == "model"]
    assert [(a["from"], a["to"], a["id"]) for a in alerts] == [("1PL", "withheld", "bench/item-model/r2")]
    assert alerts[0]["title"] == f"bench: its bounds, fill and revise are withheld: {why}"
    back = record(kind="items", revision="r3", item_model="1PL")
    again = [a for a in diff_alerts(withheld, back, "2026-01-05T00:00:00Z") if a["kind"] == "model"]
    assert again[0]["title"] == "bench: its bounds are the 1PL's again: the items' discriminations show no spread"
    assert not [a for a in diff_alerts(None, back, "2026-01-05T00:00:00Z") if a["kind"] == "model"]
    # issue 64: a new benchmark whose bounds hold over a spread of discriminations is the usual case, no news;
    # a benchmark that moves there from the 1PL is
    spread = record(kind="items", revision="r4", item_model="2PL")
    assert not [a for a in diff_alerts(None, spread, "2026-01-05T00:00:00Z") if a["kind"] == "model"]
    moved = [a for a in diff_alerts(back, spread, "2026-01-06T00:00:00Z") if a["kind"] == "model"]
    assert [(a["from"], a["to"]) for a in moved] == [("1PL", "2PL")]
    assert "spread of discriminations" in moved[0]["title"]
    fresh = [a for a in diff_alerts(None, withheld, "2026-01-05T00:00:00Z") if a["kind"] == "model"]
    assert [(a["from"], a["to"]) for a in fresh] == [(None, "withheld")]
    assert not [a for a in diff_alerts(record(), record(revision="r9"), "2026-01-05T00:00:00Z") if a["kind"] == "model"]


def test_a_state_alert_names_the_evidence_that_decided_it():
    paired = record("saturated", state_from="paired", top_gap_lo=-0.004, top_gap_hi=0.024)
    title = diff_alerts(None, paired, "2026-01-01T00:00:00Z")[0]["title"]
    assert "by the paired item-level comparison of the top-1 and top-5 models" in title
    assert "top-1 minus top-5 1.0 points, 95% interval -0.4 to 2.4," in title
    paper = diff_alerts(None, record("saturated", state_from="paper_index"), "2026-01-01T00:00:00Z")[0]["title"]
    assert "by the paper's saturation index (sqrt(n) effective items): 0.95, within noise from 0.7" in paper


def test_a_retirement_alert_names_the_rule_that_fired():
    """On a first snapshot only the history by date can retire a benchmark: the alert says so, not "two
    consecutive snapshots" (there is one)."""
    first = record("saturated", ["retire"], saturated_since="2026-03-01", saturation_index_lo=0.8)
    title = next(a for a in diff_alerts(None, first, "2026-01-01T00:00:00Z") if a.get("flag") == "retire")["title"]
    assert title == "bench meets the retirement rule: saturated at every publication date since 2026-03-01"
    again = record("saturated", ["retire"], revision="r2", saturation_index_lo=0.8)
    title = next(a for a in diff_alerts(record("saturated"), again, "2026-01-02T00:00:00Z") if a.get("flag"))["title"]
    assert title == "bench meets the retirement rule: saturated on two consecutive snapshots"
