"""What a person reads names each benchmark once, by its display name (issue 40): navigation, page titles, feed
titles and alert texts never show a raw id where a display name exists; the downloads keep the id beside the
name; synthetic rows and alerts say so; bundled copies are called bundled, with their own date; feed items
link to their alert on the configured site."""

from __future__ import annotations

import html
import io
import json
import re
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pandas as pd

from benchwatch.history import Alert, page_groups
from benchwatch.record import as_record
from benchwatch.site.build import LOCAL_ADDRESS
from benchwatch.site.names import display_name, page_name


def _text(page: str) -> str:
    """A page's visible text (tags and attributes dropped, entities read)."""
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def _feeds(site: Path) -> dict[str, ET.Element]:
    return {p.name: ET.parse(p).getroot() for p in sorted(site.glob("*.xml")) if p.name != "sitemap.xml"}


def read_texts(site: Path) -> dict[str, list[str]]:
    """Every page title, navigation entry, feed title and alert text of a built site."""
    pages = sorted(site.rglob("index.html"))
    titles = [_text(t) for p in pages for t in re.findall(r"<title>(.*?)</title>", p.read_text(), re.S)]
    home = (site / "index.html").read_text()
    nav = [_text(n).strip() for n in re.findall(r'<span class="md-ellipsis">(.*?)</span>', home, re.S)]
    feeds = _feeds(site)
    feed_titles = [t.text or "" for f in feeds.values() for t in f.iter("title")]
    feed_titles += [d.text or "" for f in feeds.values() for d in f.iter("description")]
    alerts = [_text((site / "alerts" / "index.html").read_text())]
    latest = home[home.find('id="latest-alerts"') :] if 'id="latest-alerts"' in home else ""
    alerts.append(_text(latest))
    for p in (site / "benchmarks").rglob("index.html"):
        page = p.read_text()
        alerts.append(_text(page[page.find('id="alerts"') :]) if 'id="alerts"' in page else "")
    return {"page titles": titles, "navigation": nav, "feed titles": feed_titles, "alert texts": alerts}


def assert_display_names_everywhere(site: Path, reports: Path) -> int:
    """No raw id where a display name exists, in anything ``read_texts`` reads; every page's display name (its
    benchmark id's) in the navigation. Returns how many benchmarks have a display name other than their id."""
    records = [as_record(r) for r in json.loads((reports / "latest.json").read_text())["benchmarks"]]
    texts = read_texts(site)
    assert all(texts.values()), {k: len(v) for k, v in texts.items()}
    renamed = [r for r in records if display_name(r) != r.benchmark]
    for rec in renamed:
        for where, found in texts.items():
            shown = [t for t in found if rec.benchmark in t]
            assert not shown, (where, rec.benchmark, shown[:1])
    nav = texts["navigation"]
    for pid, recs in page_groups({r.benchmark: r for r in records}).items():  # a page per benchmark id
        assert page_name(pid, recs) in nav, (page_name(pid, recs), nav)
    return len(renamed)


def test_the_sample_site_reads_every_benchmark_by_its_display_name(sample_site):
    _, reports, site = sample_site
    assert assert_display_names_everywhere(site, reports) >= 5  # Epoch's five boards have names of their own
    alerts = _text((site / "alerts" / "index.html").read_text())
    assert "FrontierMath Tiers 1-3 (Epoch)" in alerts and "Epoch frontiermath" not in alerts
    feed = (site / "feed-epoch-frontiermath-8ebc16f8.xml").read_text()
    assert "<title>benchwatch: FrontierMath Tiers 1-3 (Epoch)</title>" in feed


def test_the_downloads_keep_the_id_beside_the_name(sample_site):
    _, _, site = sample_site
    with zipfile.ZipFile(site / "downloads" / "benchwatch-data.zip") as zf:
        for table in ("benchmarks", "alerts", "items", "models", "by_date", "history"):
            frame = pd.read_csv(io.BytesIO(zf.read(f"{table}.csv")))
            assert list(frame.columns[:2]) == ["benchmark", "name"] or (
                "benchmark" in frame.columns and frame.columns[frame.columns.get_loc("benchmark") + 1] == "name"
            ), table
            pairs = dict(zip(frame["benchmark"], frame["name"], strict=True))
            if "Epoch frontiermath" in pairs:
                assert pairs["Epoch frontiermath"] == "FrontierMath Tiers 1-3 (Epoch)", table


def test_feed_items_link_to_their_alert_on_the_configured_site(sample_site):
    _, reports, site = sample_site  # built without an address: the one `benchwatch serve` serves it at
    alerts_page = (site / "alerts" / "index.html").read_text()
    anchors = set(re.findall(r'id="([^"]+)"', alerts_page))
    n_alerts = len(json.loads((reports / "alerts.json").read_text())["alerts"])
    links = [(name, i.findtext("link")) for name, f in _feeds(site).items() for i in f.iter("item")]
    assert len([1 for name, _ in links if name == "feed.xml"]) == n_alerts > 0
    for name, link in links:
        page, _, anchor = link.partition("#")
        assert page == LOCAL_ADDRESS + "alerts/", (name, link)
        assert anchor in anchors, (name, link)  # the alert's own line on the page it opens
    for f in _feeds(site).values():
        channel = f.find("channel")
        assert channel.findtext("link") == LOCAL_ADDRESS
        assert "benchwatch.github.io" not in ET.tostring(f, encoding="unicode")


def test_a_feed_takes_its_base_from_the_configured_address():
    from benchwatch.site.feed import rss_feed
    from benchwatch.site.names import alert_anchor

    alert = Alert.model_construct(id="Epoch frontiermath/state/r1", benchmark="Epoch frontiermath", figures={},
                                  raised_at="2026-01-02T00:00:00Z",
                                  title="Epoch frontiermath separates its top models")  # fmt: skip
    feed = ET.fromstring(rss_feed([alert], title="t", site_url="https://fork.example.org/bw", self_path="feed.xml"))
    item = feed.find("channel/item")
    assert item.findtext("link") == f"https://fork.example.org/bw/alerts/#{alert_anchor(alert)}"
    assert item.findtext("title") == "FrontierMath Tiers 1-3 (Epoch) separates its top models"


def test_synthetic_rows_and_alerts_are_marked_and_bundled_sources_say_bundled_with_their_date(sample_site):
    _, reports, site = sample_site
    records = json.loads((reports / "latest.json").read_text())["benchmarks"]
    synthetic = {r["benchmark"] for r in records if r.get("synthetic")}
    assert len(synthetic) == 5 and len(records) > len(synthetic)
    home = (site / "index.html").read_text()
    rows = [_text(r) for r in re.findall(r"<tr>(.*?)</tr>", home[: home.find('id="why"')], re.S)]
    marked = [r for r in rows if "(synthetic)" in r]
    assert len(marked) == len(synthetic) and all(any(f"{b} (synthetic)" in r for b in synthetic) for r in marked)
    # the alerts page, the latest alerts on home and every feed: a synthetic benchmark's alert says so
    alerts = json.loads((reports / "alerts.json").read_text())["alerts"]
    page_rows = [_text(r) for r in re.findall(r"<tr>(.*?)</tr>", (site / "alerts" / "index.html").read_text(), re.S)]
    for row in page_rows[1:]:
        assert ("(synthetic)" in row) == any(b in row for b in synthetic), row
    latest = _text(home[home.find('id="latest-alerts"') :])
    five = sorted(alerts, key=lambda a: (a["raised_at"], a["id"]))[::-1][:5]  # the five latest
    assert latest.count("(synthetic)") == sum(a["benchmark"] in synthetic for a in five)
    for feed in _feeds(site).values():
        for item in feed.iter("item"):
            title = item.findtext("title")
            assert ("(synthetic)" in title) == any(title.startswith(b) for b in synthetic), title
    # the sources table: each bundled copy is called bundled, with the copy's own date, never today's
    sources = json.loads((reports / "sources.json").read_text())["sources"]
    dates = {"livecodebench": "2025-04-22", "epoch": "2026-01-20", "evalplus": "2024-12-26", "sample": "2025-12-15"}
    assert {name: s.get("bundled") for name, s in sources.items()} == dates
    table = _text(home[home.find('id="sources"') : home.find('id="latest-alerts"')])
    today = sources["epoch"]["data_since"][:10]
    for name, when in dates.items():
        line = re.search(rf"\b{name}\b(.*?)(?=\b(?:{'|'.join(dates)})\b|$)", table, re.S)[1]
        assert "bundled (no network)" in line and f"bundled copy of {when}" in line, line
        assert today not in line and "ok" not in line.split(), line
    runs = pd.read_csv(reports / "runs.csv")
    run_log = runs["sources"].iloc[-1].split()  # never "fetched": nothing touched a network
    assert run_log == [f"{n}:bundled" for n in ("livecodebench", "epoch", "evalplus", "sample")]
