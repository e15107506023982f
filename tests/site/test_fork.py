"""A fork's site points at the fork (issue 14): GITHUB_REPOSITORY in Actions, or --site-url, sets the
address of every canonical link, feed and sitemap entry."""

from __future__ import annotations

import re

import pytest

from benchwatch.cli import main
from benchwatch.site.build import site_address
from tests.irt.test_rasch_map import simulate

FORK = "https://someone.github.io/benchwatch-fork/"


def _site(tmp_path, monkeypatch, *extra: str):
    monkeypatch.chdir(tmp_path)
    df, _, _ = simulate(8, 30, seed=4)
    df.to_csv(tmp_path / "mine.csv", index=False)
    assert main(["run", "--input", "mine.csv", "--site-out", "site", *extra]) == 0
    return {
        p.relative_to(tmp_path / "site"): p.read_text(errors="replace")
        for p in (tmp_path / "site").rglob("*")
        if p.suffix in (".html", ".xml")
    }


def test_a_fork_in_actions_publishes_every_address_on_its_own_pages(tmp_path, monkeypatch):
    monkeypatch.setenv("GITHUB_REPOSITORY", "Someone/benchwatch-fork")
    files = _site(tmp_path, monkeypatch)
    text = "\n".join(files.values())
    assert "benchwatch.github.io" not in text  # nothing left pointing at the original site
    sitemap = re.findall(r"<loc>([^<]+)</loc>", files[next(p for p in files if p.name == "sitemap.xml")])
    canonical = re.findall(r'<link rel="canonical" href="([^"]+)"', text)
    feeds = [f for p, f in files.items() if p.name.endswith("feed.xml") or p.name == "feed.xml"]
    feed_links = [u for f in feeds for u in re.findall(r"<(?:link|guid)[^>]*>(https?://[^<]+)<", f)]
    feed_links += [u for f in feeds for u in re.findall(r'atom:link href="([^"]+)"', f)]
    alternates = re.findall(r'<link rel="alternate" type="application/rss\+xml"[^>]*href="([^"]+)"', text)
    assert sitemap and canonical and feeds
    for url in sitemap + canonical + feed_links + [a for a in alternates if a.startswith("http")]:
        assert url.startswith(FORK), url
    anchors = set(re.findall(r'id="([^"]+)"', files[next(p for p in files if p.as_posix() == "alerts/index.html")]))
    items = [u for f in feeds for u in re.findall(r"<item>\s*<title>[^<]*</title>\s*<link>([^<]+)</link>", f)]
    assert items and all(u.split("#")[0] == FORK + "alerts/" and u.split("#")[1] in anchors for u in items)


def test_site_url_option_wins_and_bad_addresses_are_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("GITHUB_REPOSITORY", "someone/benchwatch-fork")
    assert site_address("https://audit.example.org/x") == "https://audit.example.org/x/"
    assert site_address(None, {"GITHUB_REPOSITORY": "someone/someone.github.io"}) == "https://someone.github.io/"
    assert site_address(None, {"GITHUB_REPOSITORY": "../../etc"}) is None
    assert site_address(None, {}) is None
    monkeypatch.chdir(tmp_path)
    with pytest.raises(Exception, match="http"):
        site_address("javascript:alert(1)")
    files = _site(tmp_path, monkeypatch, "--site-url", "https://audit.example.org/")
    sitemap = files[next(p for p in files if p.name == "sitemap.xml")]
    assert re.findall(r"<loc>([^<]+)</loc>", sitemap)[0].startswith("https://audit.example.org/")
