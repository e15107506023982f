"""Names pages show, and the alerts page's events."""

from __future__ import annotations

import re

from benchwatch.history import Alert
from benchwatch.record import as_record
from benchwatch.site.alerts import alert_events, alerts_page
from benchwatch.site.names import default_display_name, display_name


def test_epochs_file_ids_read_as_epoch_names_them_and_a_configured_name_wins():
    assert default_display_name("Epoch otis_mock_aime_2024_2025") == "OTIS Mock AIME 2024-2025 (Epoch)"
    assert default_display_name("Epoch mmlu_external") == "MMLU (Epoch, reported by others)"
    assert default_display_name("Epoch some_new_board") == "some new board (Epoch)"
    assert default_display_name("SWE-bench Verified") == "SWE-bench Verified"  # not Epoch's: as published
    assert display_name(as_record({"benchmark": "Epoch gpqa_diamond", "display_name": "GPQA ◆"})) == "GPQA ◆"
    assert display_name(as_record({"benchmark": "Epoch gpqa_diamond", "display_name": " "})) == "GPQA Diamond (Epoch)"


def _alert(bench, kind, at, rev="r1", **extra):
    return Alert.model_validate({"id": f"{bench}/{kind}/{at}", "benchmark": bench, "kind": kind, "raised_at": at,
                                 "revision": rev, "title": f"{bench} {kind} {extra}", **extra})  # fmt: skip


def test_a_watch_raised_with_its_move_to_stagnant_is_one_event_and_events_group_by_benchmark_and_kind():
    alerts = [
        _alert("b", "state", "2026-01-02", to="stagnant"),
        _alert("b", "raised", "2026-01-02", flag="watch"),
        _alert("b", "raised", "2026-01-02", flag="revise"),
        _alert("a", "raised", "2026-01-01", flag="watch"),  # watch without a move to stagnant: kept
        _alert("a", "state", "2026-01-03", rev="r2", to="saturated"),
        _alert("a", "state", "2026-01-01", to="discriminating"),
    ]
    events = alert_events(alerts)
    assert [(e.alert.benchmark, e.kind, e.alert.raised_at) for e in events] == [
        ("a", "flag raised", "2026-01-01"),
        ("a", "state", "2026-01-03"),
        ("a", "state", "2026-01-01"),
        ("b", "flag raised", "2026-01-02"),
        ("b", "state (watch raised)", "2026-01-02"),
    ]
    page = alerts_page(alerts)
    assert page.count("\n| 2026") == 5 and '<div class="bw-filter"></div>' in page
    assert "| Date | Benchmark | Kind | Event |" in page


def test_a_feed_items_figures_are_a_sentence_in_the_pages_words():
    from benchwatch.site.feed import figures_sentence, rss_feed

    figures = {"saturation_index": 0.9123, "top1": 0.832, "top5": 0.777, "ddm_bound_lo": 0.112, "n": 3, "x": None}
    assert figures_sentence(figures) == (
        "At this revision: the paper's saturation index 0.912, best score 83.2%, fifth-best score 77.7%, "
        "DDM at least 0.112."
    )
    assert figures_sentence({}) == ""
    alert = _alert("b", "state", "2026-01-02T00:00:00Z", to="stagnant").model_copy(update={"figures": figures})
    feed = rss_feed([alert], title="t", site_url="https://x.org/", self_path="feed.xml")
    assert "saturation_index =" not in feed and "At this revision: the paper's saturation index 0.912" in feed


def test_self_reported_scores_are_marked_in_every_name_feed_item_and_on_their_page():
    """A record of scores the makers reported (LLM Stats) is never shown as measured: its name carries
    "(self-reported)" wherever it is shown, its feed items say so whether or not their title opens with the
    benchmark, and its page opens with the warning and names the data's licence."""
    from benchwatch.site.feed import rss_feed
    from benchwatch.site.names import alert_title, shown_name

    rec = as_record({"benchmark": "LLM Stats GPQA", "self_reported": True})
    assert shown_name(rec) == "LLM Stats GPQA (self-reported)"
    assert shown_name(as_record({"benchmark": "GPQA Diamond"})) == "GPQA Diamond"  # a measured record: as it is
    opens = _alert("LLM Stats GPQA", "state", "2026-01-02T00:00:00Z", to="saturated")
    other = opens.model_copy(update={"id": "x", "title": "a notice naming no benchmark first"})
    assert alert_title(opens, rec).startswith("LLM Stats GPQA (self-reported) state")
    assert alert_title(other, rec) == "LLM Stats GPQA (self-reported): a notice naming no benchmark first"
    feed = rss_feed(
        [opens, other], title="t", site_url="https://x.org/", self_path="f.xml", records={rec.benchmark: rec}
    )
    titles = re.findall(r"<item>\s*<title>(.*?)</title>", feed)
    assert len(titles) == 2 and all("(self-reported)" in t for t in titles), titles


def test_a_pages_data_provenance_names_the_licence_and_a_self_reported_page_opens_with_its_warning(sample_site):
    """On the bundled sample (no licence configured) the provenance says "not stated"; the template's warning
    appears only where the record is self-reported."""
    from benchwatch.site.render import render

    _, _, site = sample_site
    pages = [text for p in (site / "benchmarks").rglob("index.html") if "Data provenance" in (text := p.read_text())]
    assert len(pages) >= 10 and all("Licence: not stated" in text for text in pages)
    assert not any("Self-reported scores" in text for text in pages)
    assert "Self-reported scores" in render("_self_reported_note.md.j2", {})
