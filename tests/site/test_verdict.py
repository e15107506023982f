"""Each page's answer first (issue 60): its state with the evidence that decided it, its coverage verdicts with what
would decide the ones these models cannot, and its flags, in one line under the title."""

from __future__ import annotations

import re

from benchwatch.record import BenchmarkRecord, as_record
from benchwatch.site.verdict import verdict_line

WHY = "saturated: its top five are within noise of each other by the paired item-level comparison"


def _rec(**extra) -> BenchmarkRecord:
    base = {
        "benchmark": "b",
        "state": "saturated",
        "why": ["retire: saturated at every publication date", WHY],
        "flags": ["retire", "fill"],
        "n_models": 16,
        "verdicts": {
            "ddm": {"verdict": "found", "level": 0.1},
            "max_gap": {"verdict": "cannot tell", "level": 0.1},
            "top5_gap_sum": {"verdict": "clear", "level": 0.3},
        },
        "resolve": {"max_gap": {"models": 60, "at_least": False, "samples": None, "largest_tried": 2048}},
    }
    return as_record({**base, **extra})


def test_the_line_reads_the_rules_own_sentence_each_verdict_and_the_flags():
    line = verdict_line(_rec())
    assert line.startswith("**Saturated: its top five are within noise of each other by the paired item\\-level")
    coverage = line.split("Coverage: ", 1)[1]
    assert coverage.index("found DDM") < coverage.index("cannot tell with these 16 models") < coverage.index("clear of")
    assert "coverage hole \\(about 60 models would decide\\)" in line
    assert line.endswith("Flags: **retire, fill**.")


def test_what_the_line_says_where_there_is_no_bound_to_read():
    assert "Coverage: **withheld**" in verdict_line(_rec(item_model="withheld"))
    board = verdict_line(_rec(kind="aggregate", flags=[]))
    assert "Coverage: not measured (scores only" in board and board.endswith("No flag raised.")
    none = verdict_line(_rec(resolve={"max_gap": {"models": None, "samples": None, "largest_tried": 2048}}))
    assert "not even 2048 models would decide" in none
    assert verdict_line(_rec(why=[], state="stagnant")).startswith("**Stagnant**.")  # no sentence kept: the state


def test_an_upstream_string_in_the_line_is_escaped():
    line = verdict_line(_rec(why=["saturated: <script>alert(1)</script> [x](http://e.invalid)"], flags=["*f*"]))
    assert "<script>" not in line and "](http" not in line and "**\\*f\\***" in line


def test_every_sample_page_opens_with_its_answer(sample_site):
    """The first paragraph under each benchmark page's title is its verdict line: its state, its coverage, its
    flags, before any detail."""
    _, _, site = sample_site
    pages = sorted((site / "benchmarks").glob("*/index.html"))
    assert len(pages) >= 10
    for page in pages:
        html = page.read_text()
        first = re.search(r"</h1>\s*<p[^>]*>(.*?)</p>", html, re.S)
        assert first is not None, page
        text = re.sub(r"<[^>]+>", "", first.group(1))
        assert re.match(r"(Saturated|Stagnant|Discriminating)\b", text), (page, text[:120])
        assert "Coverage:" in text and ("Flags:" in text or "No flag raised." in text), (page, text[:300])


def test_every_feed_item_carries_its_benchmarks_answer_in_plain_words(sample_site):
    """Issue 60: a feed item opens with the change it announces, then the benchmark's answer now (its verdict line
    as plain text: no Markdown marks, no escapes), then the figures."""
    import json

    import feedparser

    from benchwatch.site.verdict import verdict_text

    _, reports, site = sample_site
    records = {r["benchmark"]: as_record(r) for r in json.loads((reports / "latest.json").read_text())["benchmarks"]}
    alerts = json.loads((reports / "alerts.json").read_text())["alerts"]
    feed = feedparser.parse((site / "feed.xml").read_text())
    assert len(feed.entries) == len(alerts) >= 5
    by_id = {a["id"]: a for a in alerts}
    for entry in feed.entries:
        rec = records.get(by_id[entry.id]["benchmark"])
        if rec is None or not rec.state:
            continue
        text = verdict_text(rec)
        assert "**" not in text and "\\" not in text and "&lt;" not in text
        assert f"Now: {text}" in entry.description, (entry.title, entry.description[:300])
        assert entry.description.index("Now: ") > 0  # after the change itself
