"""The built site in headless Chromium: every image loads, the console stays clean; screenshots saved."""

from __future__ import annotations

import functools
import os
import shutil
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from bot.cli import main

pytestmark = pytest.mark.slow

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def served_site(request):
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail("Debian's chromium is missing: .ci/run installs it")
        pytest.skip("Debian's chromium is not installed here (apt-get install chromium); CI installs it")
    root, _, site = request.getfixturevalue("sample_site")
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/", root
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def real_site(tmp_path_factory):
    """The site that the shipped configuration builds from the real upstream files of ../shared/upstream
    (served on 127.0.0.1), served in turn for the browser."""
    from bot.site.pages import benchmark_page
    from tests.conftest import SHARED
    from tests.sources.test_live_run import _shipped_config_on
    from tests.sources.upstream_server import Upstream

    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail("Debian's chromium is missing: .ci/run installs it")
        pytest.skip("Debian's chromium is not installed here (apt-get install chromium); CI installs it")
    if not (SHARED / "upstream").is_dir():
        pytest.skip("../shared/upstream is not here: it exists in CI and on the developers' machines only")
    root = tmp_path_factory.mktemp("real")
    site = root / "site"
    with Upstream(SHARED / "upstream") as upstream:
        config = _shipped_config_on(upstream, root)
        argv = ["run", "--config", config, "--reports", str(root / "r"), "--cache", str(root / "c")]
        assert main([*argv, "--site-out", str(site)]) == 0
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    swe = benchmark_page("SWE-bench Verified").removesuffix(".md") + "/"
    yield f"http://127.0.0.1:{server.server_address[1]}/", root, swe
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("path", ["", "benchmarks/synthetic-olympiad/", "benchmarks/synthetic-saturated/"])
def test_page_images_load_and_console_is_clean(served_site, path):
    from playwright.sync_api import sync_playwright

    base, root = served_site
    problems: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
        page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
        page.on("requestfailed", lambda r: problems.append(f"request failed: {r.url}"))
        page.on("response", lambda r: problems.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None)
        page.goto(base + path)
        page.wait_for_load_state("networkidle")
        images = page.eval_on_selector_all(  # a picture is an img, or an object (an interactive SVG) with its alt
            "article img:not(object img), article object",
            "els => els.map(e => e.tagName === 'OBJECT' ? [e.data, !!(e.contentDocument && "
            "e.contentDocument.documentElement.tagName === 'svg'), e.getAttribute('aria-label')] : "
            "[e.getAttribute('src'), e.complete && e.naturalWidth > 0, e.alt])",
        )
        shots = root / "screenshots"
        shots.mkdir(exist_ok=True)
        page.screenshot(path=str(shots / f"{path.strip('/').replace('/', '-') or 'home'}.png"), full_page=True)
        browser.close()
    assert problems == []
    if path:
        assert len(images) == 3  # the difficulty strip, the tiers and the history
    assert all(loaded for _, loaded, _ in images), images
    assert all(len(alt) > 20 for _, _, alt in images)


def _page(pw, url: str):
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(url)
    page.wait_for_load_state("networkidle")
    return browser, page


def test_a_table_sorts_on_click(real_site):
    """Material's sortable-tables recipe, with the script served by the site itself."""
    from playwright.sync_api import sync_playwright

    base, _, swe = real_site
    with sync_playwright() as pw:
        browser, page = _page(pw, base + swe)
        tables = page.locator("article table")
        assert tables.count() > 0
        column = "(t, k) => Array.from(t.tBodies[0].rows).map(r => r.cells[k].innerText.trim())"
        for t in range(tables.count()):  # the first table with a column that is out of order as built
            table = tables.nth(t)
            header = table.locator("thead th")
            found = None
            for k in range(header.count()):
                before = table.evaluate(column, k)
                if len(before) > 2 and before != sorted(before) and before != sorted(before, reverse=True):
                    found = (k, before)
                    break
            if found:
                break
        assert found, "no table with a column to sort"
        k, before = found
        header.nth(k).click()
        after = table.evaluate(column, k)
        assert after != before and sorted(after) == sorted(before)
        assert header.nth(k).get_attribute("aria-sort") in ("ascending", "descending")
        browser.close()


def test_alerts_and_about_are_one_click_from_home(real_site):
    from playwright.sync_api import sync_playwright

    base, _, _ = real_site
    with sync_playwright() as pw:
        browser, page = _page(pw, base)
        for title, path in (("Alerts", "alerts/"), ("About", "about/")):
            link = page.locator("nav.md-nav--primary").get_by_role("link", name=title, exact=True).first
            assert link.is_visible(), f"{title} is not in the navigation of the home page"
            link.click()
            page.wait_for_load_state("networkidle")
            assert page.url.rstrip("/").endswith(path.rstrip("/")), page.url
            page.goto(base)
            page.wait_for_load_state("networkidle")
        browser.close()


def test_an_item_of_the_difficulty_strip_shows_its_id_on_hover(real_site):
    """SWE-bench Verified's real instance ids, one per line of the strip."""
    import pandas as pd
    from playwright.sync_api import sync_playwright

    from bot.store import safe_slug

    base, root, swe = real_site
    slug = safe_slug("SWE-bench Verified")
    ids = set(pd.read_csv(root / "site" / "downloads" / f"{slug}-items.csv", dtype=str)["item_id"])
    assert len(ids) == 500 and any("__" in i for i in ids)
    with sync_playwright() as pw:
        browser, page = _page(pw, base + swe)
        ready = "() => { const o = document.querySelector('object.benchwatch-plot');"
        ready += " return o && o.contentDocument && o.contentDocument.querySelector('#benchwatch-items path'); }"
        page.wait_for_function(ready)
        page.locator("object.benchwatch-plot").scroll_into_view_if_needed()
        spot = page.evaluate(
            """() => {
              const o = document.querySelector('object.benchwatch-plot');
              const paths = o.contentDocument.querySelectorAll('#benchwatch-items path');
              const r = paths[Math.floor(paths.length / 2)].getBoundingClientRect();
              const box = o.getBoundingClientRect();
              const x = r.left + r.width / 2, y = r.top + r.height / 2;
              return {n: paths.length, inner: [x, y], outer: [box.left + x, box.top + y]};
            }"""
        )
        assert spot["n"] == len(ids)  # one line, and one title, per item
        page.mouse.move(*spot["outer"])
        shown = page.evaluate(
            """([x, y]) => {
              const e = document.querySelector('object.benchwatch-plot').contentDocument.elementFromPoint(x, y);
              const t = e && e.querySelector(':scope > title');
              return t ? t.textContent : null;
            }""",
            spot["inner"],
        )
        browser.close()
    assert shown is not None and shown.split(" (z = ")[0] in ids, shown


OVERLAPS = """() => {
  const boxes = Array.from(document.querySelectorAll('text')).map(t => [t.textContent, t.getBoundingClientRect()])
    .filter(([s, r]) => s.trim() && r.width > 0 && r.height > 0);
  const hits = [];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const [a, p] = boxes[i], [b, q] = boxes[j];
    const w = Math.min(p.right, q.right) - Math.max(p.left, q.left);
    const h = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
    if (w > 1 && h > 1) hits.push(a + ' / ' + b);
  }
  return [boxes.length, hits];
}"""


def test_no_label_overlaps_another_in_the_saturation_plots(real_site):
    """Every saturation picture of the site built from the real files (real model names), rendered by
    the browser: no two pieces of text share any pixels."""
    from playwright.sync_api import sync_playwright

    base, root, _ = real_site
    plots = sorted(p.name for p in (root / "site" / "plots").glob("*-saturation.svg"))
    assert any(p.startswith("epoch-") for p in plots)
    found = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        for name in plots:
            page.goto(base + "plots/" + name)
            count, hits = page.evaluate(OVERLAPS)
            assert count > 10, name  # the labels are text, not paths
            if hits:
                found[name] = hits
        browser.close()
    assert found == {}


def test_home_filters_by_source_and_state(real_site):
    """The menus above the home table show only the rows of one source, or of one state, or of both."""
    from playwright.sync_api import sync_playwright

    base, root, _ = real_site
    import json

    records = json.loads((root / "r" / "latest.json").read_text())["benchmarks"]
    with sync_playwright() as pw:
        browser, page = _page(pw, base)
        visible = """() => Array.from(document.querySelector('.bw-filter ~ * table, .bw-filter ~ table')
            .tBodies[0].rows).filter(r => r.style.display !== 'none').length"""
        assert page.evaluate(visible) == len(records)
        for column, key in (("State", "state"), ("Source", "source_name")):
            counts = {}
            for rec in records:
                counts[rec[key]] = counts.get(rec[key], 0) + 1
            value = min(counts, key=counts.get)  # the rarest value: the filter must hide most rows
            page.select_option(f'.bw-filter select[data-column="{column}"]', value)
            assert page.evaluate(visible) == counts[value], (column, value)
            page.select_option(f'.bw-filter select[data-column="{column}"]', "")
        assert page.evaluate(visible) == len(records)
        page.select_option('.bw-filter select[data-column="Source"]', "epoch")
        page.select_option('.bw-filter select[data-column="State"]', "stagnant")
        both = sum(r["source_name"] == "epoch" and r["state"] == "stagnant" for r in records)
        assert 0 < both < len(records) and page.evaluate(visible) == both
        browser.close()


def test_each_point_of_the_summary_picture_links_to_its_page(real_site):
    """The home page's picture: one point per benchmark with a saturation index, named on hover; clicking
    one opens that benchmark's page in the window (not inside the picture)."""
    import json

    from playwright.sync_api import sync_playwright

    base, root, _ = real_site
    records = json.loads((root / "r" / "latest.json").read_text())["benchmarks"]
    with sync_playwright() as pw:
        browser, page = _page(pw, base)
        ready = "() => { const o = document.querySelector('object.benchwatch-plot');"
        ready += " return o && o.contentDocument && o.contentDocument.querySelector('a'); }"
        page.wait_for_function(ready)
        page.locator("object.benchwatch-plot").scroll_into_view_if_needed()
        points = page.evaluate(
            """() => {
              const o = document.querySelector('object.benchwatch-plot'), box = o.getBoundingClientRect();
              return Array.from(o.contentDocument.querySelectorAll('a')).map(a => {
                const r = a.querySelector('use, path').getBoundingClientRect();
                return [a.querySelector(':scope > title').textContent, a.getAttribute('target'),
                        box.left + r.left + r.width / 2, box.top + r.top + r.height / 2];
              });
            }"""
        )
        named = sorted(title for title, *_ in points)
        assert named == sorted(r["benchmark"] for r in records if r.get("saturation_index") is not None)
        assert {target for _, target, *_ in points} == {"_top"}
        title, _, x, y = points[0]
        with page.expect_navigation():
            page.mouse.click(x, y)
        assert "/benchmarks/" in page.url
        assert title in page.locator("article").inner_text()
        browser.close()


@pytest.mark.parametrize("which", ["home", "swe"])
def test_every_table_fits_the_text_width(real_site, which):
    """No table runs off the right edge of the text at a desktop width; older dates wait in a closed block."""
    from playwright.sync_api import sync_playwright

    base, _, swe = real_site
    with sync_playwright() as pw:
        browser, page = _page(pw, base + ("" if which == "home" else swe))
        widths = page.evaluate(
            """() => Array.from(document.querySelectorAll('article table')).filter(t => t.offsetParent !== null)
               .map(t => [t.scrollWidth, document.querySelector('article').clientWidth])"""
        )
        assert widths and all(table <= text for table, text in widths), widths
        if which == "swe":
            block = page.locator("article details").filter(has_text="older dates")
            assert block.count() == 1 and block.get_attribute("open") is None
            assert block.locator("table").count() == 1
        browser.close()


def test_every_model_shows_its_tier_and_rank_interval_and_home_the_top_tier(served_site):
    """Issue 24: a benchmark page lists every model with its tier and 95% interval of rank (the long table's
    rest in a block that opens), and the home page shows each benchmark's top tier size."""
    import json

    from playwright.sync_api import sync_playwright

    from bot.site.pages import benchmark_page

    base, root = served_site
    records = json.loads((root / "r" / "latest.json").read_text())["benchmarks"]
    rec = next(r for r in records if r["benchmark"] == "synthetic-stagnant")
    with sync_playwright() as pw:
        browser, page = _page(pw, base + benchmark_page(rec["page"]).removesuffix(".md") + "/")
        for block in page.locator("details").all():  # open every collapsed block
            block.evaluate("d => d.open = true")
        rows = page.evaluate(
            """() => {
              const heading = [...document.querySelectorAll('h2')].find(h => h.textContent.startsWith('Who can be'));
              const out = [];
              let node = heading.nextElementSibling;
              while (node && node.tagName !== 'H2') {
                node.querySelectorAll('table').forEach(t => {
                  const head = [...t.tHead.rows[0].cells].map(c => c.textContent.trim());
                  if (!head.includes('Tier')) return;
                  [...t.tBodies[0].rows].forEach(r => out.push([...r.cells].map(c => c.innerText.trim())));
                });
                node = node.nextElementSibling;
              }
              return out;
            }"""
        )
        assert len(rows) == rec["n_models"]
        assert all(row[-1].isdigit() and " – " in row[-2] for row in rows)  # a tier and a rank interval each
        assert sum(row[-1] == "1" for row in rows) == rec["top_tier_size"]
        page.goto(base)
        page.wait_for_load_state("networkidle")
        home = page.locator("article").inner_text()
        browser.close()
    for r in records:
        assert f"{r['top_tier_size']} of {r['n_models']}" in home, r["benchmark"]
