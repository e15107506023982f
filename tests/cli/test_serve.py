"""``benchwatch serve``: every link of the built site's navigation opens its page when served (issue 26)."""

from __future__ import annotations

import re
import threading
from urllib.parse import urljoin

import httpx

from benchwatch.cli import main
from benchwatch.cli.serve import server


def test_every_navigation_link_of_the_served_site_opens_its_page(sample_site):
    _, _, site = sample_site
    httpd = server(site, port=0)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{httpd.server_address[1]}/"
        home = httpx.get(base)
        assert home.status_code == 200 and "benchwatch" in home.text
        nav = set(re.findall(r'<a href="([^"#:]+)" class="md-nav__link', home.text))
        assert len(nav) >= 5, nav
        for href in sorted(nav):
            page = httpx.get(urljoin(base, href))
            assert page.status_code == 200, href
            assert "Index of /" not in page.text and "<article" in page.text, href  # a page, not a folder listing
        assert httpx.get(urljoin(base, "search/search_index.json")).status_code == 200  # search works served
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_serve_without_a_built_site_is_one_error_line(tmp_path, capsys):
    assert main(["serve", "--site-out", str(tmp_path / "none")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "no built site here" in err
