"""The built site in headless Chromium: every image loads, the console stays clean; screenshots saved."""

from __future__ import annotations

import functools
import os
import shutil
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

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
            "article img:not(object img), article object",  # those shown at this width (the home's has two)
            "els => els.filter(e => e.getClientRects().length).map(e => e.tagName === 'OBJECT' ? "
            "[e.data, !!(e.contentDocument && "
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


def _unsearched(page):
    """A page that fetches neither the search index (1.7 MB on the real atlas, indexed by a worker on every load:
    half of each load's time) nor the sitemap: no layout reads either, and no test here searches."""
    page.route("**/search/search_index.json", lambda route: route.abort())
    page.route("**/sitemap.xml", lambda route: route.abort())
    return page


def _page(pw, url: str):
    browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
    page = _unsearched(browser.new_page(viewport={"width": 1280, "height": 900}))
    page.goto(url)
    page.wait_for_load_state("networkidle")
    return browser, page


def test_every_model_shows_its_tier_and_rank_interval_and_home_the_top_tier(served_site):
    """Issue 24: a benchmark page lists every model with its tier and 95% interval of rank (the long table's
    rest in a block that opens), and the home page shows each benchmark's top tier size."""
    import json

    from playwright.sync_api import sync_playwright

    from benchwatch.site.paths import benchmark_page

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


# Issue 40: the layout on a phone (390 px) and a laptop (1280 px).
_OVERFLOW = """() => {
  // elements past the viewport's right edge that no scrolling or clipping container (a table's, a picture's) holds
  const width = document.documentElement.clientWidth, out = [];
  const scrolls = e => { for (let a = e.parentElement; a; a = a.parentElement) {
    if (getComputedStyle(a).overflowX !== 'visible') return true; } return false; };
  document.querySelectorAll('article *').forEach(e => {
    const r = e.getBoundingClientRect();
    if (r.width && r.right > width + 1 && !scrolls(e)) out.push(e.tagName + ' ' + (e.textContent || '').slice(0, 40));
  });
  if (document.documentElement.scrollWidth > width + 1) out.push('page ' + document.documentElement.scrollWidth);
  return out;
}"""
_PLOT_TEXT = """() => {
  // each plot's smallest text as rendered: its font size times the picture's scale (px); the pictures shown at
  // this width (the home page draws its summary for a phone's width too, and shows one of the two)
  const out = [], shown = e => e.getClientRects().length > 0;
  document.querySelectorAll('article img[src*="plots/"]:not(object img)').forEach(p => {
    if (shown(p)) out.push([p.getAttribute('data') || p.getAttribute('src'), p.getBoundingClientRect().width]);
  });
  document.querySelectorAll('article object.benchwatch-plot').forEach(o => {
    if (!shown(o)) return;
    const svg = o.contentDocument.documentElement, scale = o.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    const sizes = [...svg.querySelectorAll('text')].filter(t => t.getBoundingClientRect().height > 0)
      .map(t => parseFloat(t.getAttribute('font-size')) * scale);
    out.push([o.getAttribute('data'), Math.min(...sizes), sizes.length]);
  });
  return out;
}"""


def _site_pages(site: Path) -> list[str]:
    skip = {"404.html", "search"}
    return sorted(
        str(p.parent.relative_to(site)).replace(".", "") for p in site.rglob("index.html") if p.parts[-2] not in skip
    )


def test_pages_fit_a_phone_and_a_laptop_and_plot_text_stays_legible(served_site, sample_site):
    """Issue 40: at 390 and 1280 px no page is wider than the screen outside a scrolling table or picture;
    at 390 px every picture's text renders at 10 px or more; at 1280 px no figure of the home table wraps."""
    from playwright.sync_api import sync_playwright

    base, _ = served_site
    pages = _site_pages(sample_site[2])
    assert "" in pages and "methodology" in pages and len(pages) > 8
    wide, small, wrapped = [], [], []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        for width in (390, 1280):
            page = _unsearched(browser.new_page(viewport={"width": width, "height": 900}))
            for path in pages:
                page.goto(base + (path + "/" if path else ""), wait_until="load")
                wide += [(width, path, e) for e in page.evaluate(_OVERFLOW)]
                if width == 390:
                    plots = page.evaluate(_PLOT_TEXT)
                    # a picture in an img is drawn at 720 px or more (its text 10 px or more), an object's text measured
                    small += [(path, p) for p in plots if (len(p) == 2 and p[1] < 719) or (len(p) == 3 and p[1] < 10)]
                    if path == "":
                        assert any(len(p) == 3 and p[2] > 10 for p in plots), plots
            page.close()
        page = _unsearched(browser.new_page(viewport={"width": 1280, "height": 900}))
        page.goto(base, wait_until="load")
        wrapped = page.evaluate(
            """() => [...document.querySelectorAll('article table td[style*="right"]')]
               .filter(td => td.innerText.trim())
               .map(td => { const r = document.createRange(); r.selectNodeContents(td);
                 const tops = new Set([...r.getClientRects()].map(x => Math.round(x.bottom)));
                 return [td.innerText.trim(), tops.size]; })"""
        )
        browser.close()
    Path(os.environ.get("BW_LAYOUT_OUT", os.devnull)).write_text(repr((wide, small, wrapped)))
    assert wide == []
    assert small == []
    assert any(" – " in text for text, _ in wrapped) and any("≤" in text for text, _ in wrapped), wrapped
    # the figures, ranges and bounds (a tier's "14 of 40" is words: it may wrap so the table fits the text)
    assert [w for w in wrapped if w[1] != 1 and " of " not in w[0]] == []


# Issue 60: a phone (390 px) and a desktop (1280 px); each benchmark page's answer in its first screen.
_HOME_ROWS = """() => {
  // each home row (a card on a phone): its name, state and flags cells, labelled by their column, with their boxes
  const table = document.querySelector('.bw-home ~ * table, .bw-home ~ table');
  return [...table.tBodies[0].rows].map(r => Object.fromEntries(['Benchmark', 'State', 'Flags'].map(label => {
    const c = r.querySelector(`td[data-label="${label}"]`);
    if (!c) return [label, null];
    const boxes = [c, ...c.querySelectorAll('*')].map(e => e.getBoundingClientRect()).filter(b => b.width > 0);
    return [label, {text: c.innerText.trim(), left: Math.min(...boxes.map(b => b.left)),
                    right: Math.max(...boxes.map(b => b.right)), before: getComputedStyle(c, '::before').content}];
  })));
}"""
_WIDE = """() => {
  // at a desktop width: elements of the article wider than the page, tables wider than the text's box
  const out = [];
  document.querySelectorAll('article *').forEach(e => {
    const w = e.getBoundingClientRect().width;
    if (w > innerWidth) out.push(e.tagName + ' ' + Math.round(w) + ' ' + (e.textContent || '').trim().slice(0, 40));
  });
  document.querySelectorAll('article table').forEach(t => {
    const box = t.closest('.md-typeset__scrollwrap') || t.parentElement;
    if (t.getClientRects().length && t.scrollWidth > box.clientWidth + 1)
      out.push('table ' + t.scrollWidth + ' in ' + box.clientWidth + ': ' + t.tHead.innerText.replace(/\\s+/g, ' '));
  });
  return out;
}"""
_VERDICT = """(states) => {
  // where the page's verdict line (under its title) names the state, the coverage verdict and the flags
  const p = document.querySelector('article h1 ~ p.bw-verdict');
  if (!p) return null;
  const text = p.textContent;
  const top = re => {
    const m = re.exec(text);
    if (!m) return null;
    const walk = document.createTreeWalker(p, NodeFilter.SHOW_TEXT);
    for (let n, at = 0; (n = walk.nextNode()); at += n.length) {
      if (at + n.length <= m.index) continue;
      const r = document.createRange();
      r.setStart(n, m.index - at);
      r.setEnd(n, Math.min(n.length, m.index - at + m[0].length));
      return r.getBoundingClientRect().top + scrollY;
    }
    return null;
  };
  return {state: top(new RegExp('\\\\b(' + states.join('|') + ')\\\\b', 'i')), coverage: top(/Coverage:/),
          flags: top(/Flags:|No flag/), text: text.slice(0, 80)};
}"""


def phone_and_desktop(base: str, pages: list[str], shots: Path) -> tuple[list, list]:
    """``pages`` (paths under ``base``, the home page first) at 390 and 1280 px, each screenshot saved in ``shots``
    (``{page}-{width}.png``, the whole page): the home rows as read at 390 px, and what does not fit (a page that
    scrolls sideways at 390 px; at 1280 px an element of the article wider than the page, a table wider than its
    box)."""
    from playwright.sync_api import sync_playwright

    shots.mkdir(parents=True, exist_ok=True)
    problems, rows = [], []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        for width in (390, 1280):
            page = _unsearched(browser.new_page(viewport={"width": width, "height": 900}))
            for path in pages:
                page.goto(base + path)
                page.wait_for_load_state("networkidle")
                name = path.strip("/").replace("/", "-") or "home"
                page.screenshot(path=str(shots / f"{name}-{width}.png"), full_page=True)
                if width == 390:
                    scroll = page.evaluate("[document.scrollingElement.scrollWidth, innerWidth]")
                    if scroll[0] > scroll[1]:
                        problems.append((width, name, "scrolls sideways", scroll))
                    if path == "":
                        rows = page.evaluate(_HOME_ROWS)
                else:
                    problems += [(width, name, e) for e in page.evaluate(_WIDE)]
            page.close()
        browser.close()
    return rows, problems


def assert_home_rows_fit_a_phone(rows: list[dict], records: list[dict]) -> None:
    """Every home row at 390 px shows its name, state and flags, each labelled, inside the screen."""
    assert len(rows) == len(records) > 0
    names = {r["benchmark"]: r for r in records}
    for row in rows:
        assert all(row[k] is not None for k in ("Benchmark", "State", "Flags")), row
        for label in ("Benchmark", "State", "Flags"):
            cell = row[label]
            assert cell["left"] >= 0 and cell["right"] <= 390, (label, cell)
        assert (row["State"]["before"], row["Flags"]["before"]) == ('"State: "', '"Flags: "'), row  # "State: saturated"
    states = sorted(row["State"]["text"] for row in rows)
    assert states == sorted(r["state"] for r in names.values())
    flagged = sorted(f for r in records for f in r.get("flags") or [])
    assert sorted(f for row in rows for f in row["Flags"]["text"].split() if f != "–") == flagged


def verdict_tops(base: str, pages: list[str]) -> dict[str, dict]:
    """Each page's verdict line at 1280x900: the top (px from the page's top) of its state, coverage and flags."""
    from playwright.sync_api import sync_playwright

    from benchwatch.vocabulary import STATES

    found = {}
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = _unsearched(browser.new_page(viewport={"width": 1280, "height": 900}))
        # the pictures lie below the verdict line and cannot move it: not fetched (162 real pages in a minute)
        page.route("**/plots/**", lambda route: route.abort())
        for path in pages:  # its stylesheets and scripts read (they come before DOMContentLoaded), not its pictures
            page.goto(base + path, wait_until="domcontentloaded")
            found[path] = page.evaluate(_VERDICT, list(STATES))
        browser.close()
    return found


def assert_answers_in_first_screen(tops: dict[str, dict]) -> None:
    late = {
        path: t
        for path, t in tops.items()
        if t is None or any(t[k] is None or t[k] >= 600 for k in ("state", "coverage", "flags"))
    }
    assert late == {}


def benchmark_paths(site: Path) -> list[str]:
    """The address of every benchmark page of a built site."""
    return sorted(f"benchmarks/{p.parent.name}/" for p in (site / "benchmarks").glob("*/index.html"))


def test_the_home_rows_fit_a_phone_and_no_page_is_wider_than_the_screen(served_site, sample_site):
    """Issue 60: at 390 px each home row (a card) shows its name, state and flags inside the screen, and the home
    page, a benchmark page and the alerts do not scroll sideways; at 1280 px nothing in their text is wider than
    the page and every table fits its box (the alerts' events wrap). Screenshots of each in screenshots/."""
    import json

    base, root = served_site
    pages = ["", "benchmarks/synthetic-saturated/", "alerts/"]
    rows, problems = phone_and_desktop(base, pages, root / "screenshots")
    Path(os.environ.get("BW_LAYOUT_OUT", os.devnull)).write_text(repr((rows, problems)))
    assert problems == []
    assert_home_rows_fit_a_phone(rows, json.loads((root / "r" / "latest.json").read_text())["benchmarks"])


def test_every_benchmark_page_answers_in_its_first_screen(served_site, sample_site):
    """Issue 60: at 1280x900 every benchmark page's state, coverage verdict and flags lie in its first 600 px: the
    verdict line under its title."""
    base, _ = served_site
    pages = benchmark_paths(sample_site[2])
    assert len(pages) == 15
    assert_answers_in_first_screen(verdict_tops(base, pages))
