"""Upstream strings are escaped everywhere they appear, and never become paths."""

from __future__ import annotations

import re

import feedparser
import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from bot.cli import main

pytestmark = pytest.mark.slow

EVIL_MODEL = "<script>alert(1)</script>"
EVIL_ITEM = "../../[x](javascript:alert(1))"
EVIL_BENCH = "evil **bench** | <b>x</b> ../../etc"


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory):
    root = tmp_path_factory.mktemp("hostile")
    rng = np.random.default_rng(7)
    # Abilities rise along the list: the hostile names are among the top five shown on the page.
    models = ["m_6_", "m`5`", "m&amp;4", "<img src=x onerror=alert(3)>", "[m](javascript:alert(2))", EVIL_MODEL]
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
    for path in [*site.rglob("*"), *(root / "r").rglob("*")]:
        assert ".." not in path.relative_to(root).parts
        assert set(path.name) <= set("abcdefghijklmnopqrstuvwxyz0123456789-_."), path
    assert not (root.parent / "etc").exists()
