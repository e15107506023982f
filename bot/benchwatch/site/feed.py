"""RSS 2.0 feeds of alerts (stable guids, newest first, byte-stable for the same alerts)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from datetime import datetime
from email.utils import format_datetime

from benchwatch.history import Alert
from benchwatch.record import BenchmarkRecord
from benchwatch.site.escape import printable
from benchwatch.site.names import alert_anchor, alert_title
from benchwatch.site.verdict import verdict_text
from benchwatch.vocabulary import GAP_BOUNDS, NO_BOUND, as_bound


def _rfc822(iso: str) -> str:
    return format_datetime(datetime.fromisoformat(iso.replace("Z", "+00:00")))


FIGURE_WORDS = (  # an alert's figures, in the words the pages use: (key, name, as a percentage)
    ("saturation_index", "the paper's saturation index", False),
    ("top1", "best score", True),
    ("top5", "fifth-best score", True),
    ("ddm", "DDM (model-based)", False),
    ("ddm_bound_lo", "DDM at least", False),
    ("ddm_bound_hi", "DDM at most", False),
    ("detection_limit", "Max Gap's bound (the widest stretch these models cannot rule out as empty)", False),
    ("max_gap", "Max Gap (model-based)", False),
    ("top5_gap_sum", "top-5 gap sum (model-based)", False),
)


def figures_sentence(figures: dict) -> str:
    """An alert's figures as a sentence ("At this revision: saturation index 0.912, best score 83.2%, ..."),
    or "" without any."""
    said = []
    for key, name, percent in FIGURE_WORDS:
        value = figures.get(key)
        if key in GAP_BOUNDS and isinstance(value, float) and as_bound(value) is None:
            said.append(f"{name}: {NO_BOUND}")  # over (nearly) the whole axis: no bound
        elif isinstance(value, float) and not isinstance(value, bool):
            said.append(f"{name} {100 * value:.1f}%" if percent else f"{name} {value:.3f}")
    return f"At this revision: {', '.join(said)}." if said else ""


ALERTS_PAGE = "alerts/"  # the URL path of the alerts page, where every alert's line has its anchor


def rss_feed(
    alerts: list[Alert], *, title: str, site_url: str, self_path: str, records: dict[str, BenchmarkRecord] | None = None
) -> str:
    """An RSS 2.0 document for ``alerts`` at ``site_url`` (the configured address, or the local one): each item
    titled as the pages title it (the display name of its benchmark, from its record in ``records``) and linked
    to its line on the alerts page."""
    records = records or {}
    base = site_url.rstrip("/") + "/"
    newest = sorted(alerts, key=lambda a: (a.raised_at, a.id), reverse=True)
    rss = ET.Element("rss", {"version": "2.0", "xmlns:atom": "http://www.w3.org/2005/Atom"})
    channel = ET.SubElement(rss, "channel")
    ET.SubElement(channel, "title").text = printable(title)
    ET.SubElement(channel, "link").text = base
    ET.SubElement(
        channel, "description"
    ).text = "benchwatch alerts: benchmarks that became saturated, stagnant or badly covered, and back."
    ET.SubElement(channel, "atom:link", {"href": base + self_path, "rel": "self", "type": "application/rss+xml"})
    if newest:
        ET.SubElement(channel, "lastBuildDate").text = _rfc822(newest[0].raised_at)
    for alert in newest:
        item = ET.SubElement(channel, "item")
        rec = records.get(alert.benchmark)
        shown = alert_title(alert, rec)
        ET.SubElement(item, "title").text = printable(shown)
        ET.SubElement(item, "link").text = f"{base}{ALERTS_PAGE}#{alert_anchor(alert)}"
        figures = figures_sentence(alert.figures or {})
        now = f"Now: {verdict_text(rec)}" if rec is not None and rec.state else ""  # the answer first
        ET.SubElement(item, "description").text = printable(
            " ".join(p for p in (f"{shown.rstrip('.')}.", now, figures) if p)
        )
        ET.SubElement(item, "guid", {"isPermaLink": "false"}).text = printable(alert.id)
        ET.SubElement(item, "pubDate").text = _rfc822(alert.raised_at)
    ET.indent(rss)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(rss, encoding="unicode") + "\n"
