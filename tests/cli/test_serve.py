"""``benchwatch serve``: every link of the built site's navigation opens its page when served (issue 26)."""

from __future__ import annotations

import os
import re
import socket
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


def test_a_port_in_use_is_named_with_the_option(tmp_path, capsys):
    (tmp_path / "index.html").write_text("<html></html>")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--site-out", str(tmp_path), "--port", str(port)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--port" in err and f"port {port}" in err and "in use" in err


def test_serve_finds_the_site_run_input_built(tmp_path, monkeypatch):
    from benchwatch.api import INPUT_SITE
    from benchwatch.cli.serve import built_site

    monkeypatch.chdir(tmp_path)
    assert built_site(None) == "_site"  # neither built: the error names _site and how to build either
    (tmp_path / INPUT_SITE).mkdir(parents=True)
    (tmp_path / INPUT_SITE / "index.html").write_text("<html></html>")
    assert built_site(None) == INPUT_SITE  # `run --input` built one: served, not "run --sample first"
    (tmp_path / "_site").mkdir()
    (tmp_path / "_site" / "index.html").write_text("<html></html>")
    os.utime(tmp_path / "_site" / "index.html", (1, 1))  # the sample's site, built long before
    assert built_site(None) == INPUT_SITE and built_site("_site") == "_site"
