"""Upstream strings are escaped everywhere they appear, and never become paths."""

from __future__ import annotations

import csv
import io
import json
import re
import xml.etree.ElementTree as ET

import feedparser
import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from benchwatch.cli import main
from benchwatch.history import load_table

pytestmark = pytest.mark.slow

EVIL_MODEL = "<script>alert(1)</script>"
EVIL_ITEM = "../../[x](javascript:alert(1))"
EVIL_BENCH = "evil **bench** | <b>x</b> ../../etc"
CONTROL_MODEL = "bell\x07 esc\x1b[31m vt\x0b nul-free\x7f"
CONTROL_BENCH = "ctrl\x1b[0m bench\x08"
FORMULAS = ['=HYPERLINK("http://evil.example","x")', "+cmd|' /C calc'!A0", "@SUM(1+1)*cmd"]


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    rng = np.random.default_rng(7)
    # Abilities rise along the list: the hostile names are among the top five shown on the page.
    models = ["m_6_", "m`5`", "m&amp;4", "<img src=x onerror=alert(3)>", "[m](javascript:alert(2))", EVIL_MODEL]
    models += [CONTROL_MODEL, *FORMULAS]
    items = [EVIL_ITEM, "<svg onload=alert(4)>", "../../../etc/passwd"] + [f"item-{k}" for k in range(27)]
    theta, b = np.linspace(-1, 2, len(models)), rng.normal(0, 1, len(items))
    rows = [
        {
            "benchmark": EVIL_BENCH,
            "model": m,
            "item_id": i,
            "score": int(rng.random() < expit(t - d)),
            "date": f"2025-0{1 + j % 6}-01",
        }
        for j, (m, t) in enumerate(zip(models, theta, strict=True))
        for i, d in zip(items, b, strict=True)
    ]
    rows += [{**r, "benchmark": CONTROL_BENCH} for r in rows]
    path = root / "hostile.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    site = root / "site"
    argv = ["run", "--input", str(path), "--reports", str(root / "r"), "--cache", str(root / "c")]
    assert main([*argv, "--site-out", str(site)]) == 0
    return root, site


def _texts(site, suffixes):
    return {p: p.read_text(encoding="utf-8") for p in site.rglob("*") if p.suffix in suffixes}


def test_no_markup_from_upstream_in_html_feeds_or_plots(hostile_site):
    _, site = hostile_site
    texts = _texts(site, {".html", ".xml", ".svg"})
    assert len(texts) > 5
    for path, text in texts.items():
        assert "<script>alert" not in text, path
        assert "<img src=x" not in text and "<svg onload" not in text and "<b>x</b>" not in text, path
        assert not re.search(r"""href=["']?javascript:""", text, re.I), path
    page = next(p for p in texts if p.parent.parent.name == "benchmarks" and p.name == "index.html")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in texts[page]  # shown, as text


def test_feeds_parse_and_carry_the_name_as_text(hostile_site):
    _, site = hostile_site
    feed = feedparser.parse((site / "feed.xml").read_bytes())
    assert feed.version == "rss20" and not feed.bozo
    assert any(EVIL_BENCH in e.title for e in feed.entries)


def test_no_file_is_named_after_upstream_strings(hostile_site):
    root, site = hostile_site
    vendored = site / "javascripts" / "vendor"  # scripts and fonts named by their authors (KaTeX_Main-...)
    for path in [*site.rglob("*"), *(root / "r").rglob("*")]:
        assert ".." not in path.relative_to(root).parts
        if vendored in path.parents:
            continue
        assert set(path.name) <= set("abcdefghijklmnopqrstuvwxyz0123456789-_."), path
    assert not (root.parent / "etc").exists()


NUMBER = re.compile(r"-?\d+(\.\d*)?(e-?\d+)?")
CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def test_control_characters_reach_no_page_feed_picture_or_report(hostile_site):
    root, site = hostile_site
    kinds = {".html", ".xml", ".svg", ".json", ".csv", ".md", ".js"}
    files = [p for p in [*site.rglob("*"), *(root / "r").rglob("*")] if p.is_file() and p.suffix in kinds]
    texts = {p: p.read_text(encoding="utf-8") for p in files}
    assert any(p.suffix == ".svg" for p in texts) and any(p.name.startswith("feed") for p in texts)
    for path, text in texts.items():
        assert not CONTROL.search(text), path
        if path.suffix in (".xml", ".svg"):
            ET.fromstring(text.encode("utf-8"))  # well-formed XML
    latest = json.loads((root / "r" / "latest.json").read_text())["benchmarks"]
    assert "ctrl[0m bench" in {r["benchmark"] for r in latest}  # the name, without its control characters
    assert any("read as" in e["reason"] for r in latest for e in r["excluded"])  # the respelling is listed


def test_no_csv_cell_starts_a_formula_and_the_names_read_back(hostile_site):
    root, site = hostile_site
    csvs = [*site.rglob("*.csv"), *(root / "r").rglob("*.csv")]
    assert any("downloads" in p.parts for p in csvs)
    for path in csvs:
        for row in csv.reader(io.StringIO(path.read_text(encoding="utf-8"))):
            for cell in row:
                if cell[:1] in ("=", "+", "@") or (cell[:1] == "-" and not NUMBER.fullmatch(cell)):
                    raise AssertionError(f"{path}: {cell!r}")
    models = load_table(next((root / "r" / "models").glob("*.csv")))
    assert set(FORMULAS) <= set(models["model"])  # reports/ reads back exactly what upstream said


def test_no_page_feed_plot_or_download_names_the_folder_it_was_built_in(hostile_site):
    """The input was a local file under a temporary folder: its name is shown, never the folder."""
    root, site = hostile_site
    texts = _texts(site, {".html", ".xml", ".svg", ".csv", ".json", ".md"})
    assert any("hostile.csv" in t for t in texts.values())
    for path, text in texts.items():
        assert str(root) not in text and "/tmp/" not in text, path
