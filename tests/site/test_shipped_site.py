"""The shipped benchwatch.toml on the real upstream files of ../shared/upstream (served on 127.0.0.1): one whole
run with its site, which the browser tests read, and then what the run published, checked page by page.

One run for all of them (the run takes minutes): the browser tests first, the run's own checks last, since
they end with a second, unchanged run into the same reports.
"""

from __future__ import annotations

import contextlib
import csv
import functools
import io
import json
import os
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path

import feedparser
import pytest

from benchwatch.cli import main
from benchwatch.record import as_record
from benchwatch.site.names import shown_name
from benchwatch.site.paths import benchmark_page
from benchwatch.store import safe_slug
from benchwatch.vocabulary import as_bound
from tests.site.test_browser import CHROMIUM, FLAGS, _page, _Quiet, _unsearched
from tests.sources.shipped import REAL, SLOW, shipped_config_on

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def shipped(tmp_path_factory):
    """The run: (its upstream server, kept up for a second run; root; config; argv; what it printed)."""
    from tests.conftest import SHARED
    from tests.sources.shipped import served_root
    from tests.sources.upstream_server import Upstream

    if not (SHARED / "upstream").is_dir():
        pytest.skip("../shared/upstream is not here: it exists in CI and on the developers' machines only")
    root = tmp_path_factory.mktemp("real")
    # the zips of many files served extracted, as their repositories serve them
    with Upstream(served_root(SHARED / "upstream", tmp_path_factory.mktemp("served"))) as upstream:
        config = shipped_config_on(upstream, root)
        argv = ["run", "--config", config, "--reports", str(root / "r"), "--cache", str(root / "c")]
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            assert main([*argv, "--site-out", str(root / "site")]) == 0
        yield upstream, root, config, argv, printed.getvalue()


@pytest.fixture(scope="module")
def real_site(shipped):
    """The run's site, served for the browser: (its URL, the run's root, SWE-bench Verified's page)."""
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail("Debian's chromium is missing: .ci/run installs it")
        pytest.skip("Debian's chromium is not installed here (apt-get install chromium); CI installs it")
    _, root, _, _, _ = shipped
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(root / "site")))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    swe = benchmark_page("SWE-bench Verified").removesuffix(".md") + "/"
    yield f"http://127.0.0.1:{server.server_address[1]}/", root, swe
    server.shutdown()
    server.server_close()


def test_the_shipped_configurations_site_reads_every_benchmark_by_its_display_name(shipped):
    """Issue 40: the real configuration's titles, navigation, feeds and alert texts name no benchmark by a raw
    id where it has a display name (Epoch's boards above all)."""
    from tests.site.test_readable_names import assert_display_names_everywhere

    _, root, _, _, _ = shipped
    assert assert_display_names_everywhere(root / "site", root / "r") >= 5


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

    from benchwatch.store import safe_slug

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
        page.locator("object.benchwatch-plot").first.scroll_into_view_if_needed()  # the desktop's (issue 60)
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
        assert named == sorted(shown_name(as_record(r)) for r in records if r.get("saturation_index") is not None)
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
        wider = [(k, w) for k, w in enumerate(widths) if w[0] > w[1]]
        assert widths and not wider, wider
        if which == "swe":
            block = page.locator("article details").filter(has_text="older dates")
            assert block.count() == 1 and block.get_attribute("open") is None
            assert block.locator("table").count() == 1
        browser.close()


def test_no_page_or_download_names_the_build_machine(real_site):
    """Issue 26: no file of the built site (pages, feeds, pictures, downloads) holds a path of the machine that
    built it: its home, its temporary folder, the installed package or the checkout."""
    import sys
    import tempfile

    import benchwatch

    _, root, _ = real_site
    machine = {
        str(Path.home()) + "/",
        tempfile.gettempdir().rstrip("/") + "/",
        "site-packages",
        str(Path(benchwatch.__file__).resolve().parents[2]) + "/",
        sys.prefix + "/",
    }
    found = []
    for path in sorted((root / "site").rglob("*")):
        if not path.is_file() or path.suffix in {".woff2", ".png", ".gz", ".parquet"}:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        found += [(str(path.relative_to(root)), m) for m in machine if m in text]
    assert found == []


def test_no_page_shows_nan_or_inf(shipped):
    """Issue 60: on the real atlas no page's text shows nan or inf (the fill plan read every solve probability NaN
    where a model had answered every item right, and printed "Target b nan")."""
    import html
    import re

    _, root, _, _, _ = shipped
    shown = []
    for page in sorted((root / "site").rglob("*.html")):
        text = html.unescape(re.sub(r"<[^>]+>", " ", page.read_text(encoding="utf-8")))
        shown += [(page.parent.name, m.group(0)) for m in re.finditer(r"(?i)(?<![\w.-])-?(nan|inf)(?![\w.-])", text)]
    assert shown == []


def test_one_rule_decides_every_state_on_the_real_atlas(shipped):
    """Issue 60, must-show 1: no record is "discriminating" (its top five told apart) while five or more of its
    models share the best's tier; every state decided by the tiers, and the history by date's state at each date
    the same rule's at that date."""
    import pandas as pd

    _, root, _, _, _ = shipped
    records = json.loads((root / "r" / "latest.json").read_text())["benchmarks"]
    known = [r for r in records if r.get("state") not in (None, "unknown") and not r.get("gone_since")]
    assert len(known) >= 100
    wrong = [
        (r["benchmark"], r["state"], r.get("top_tier_size"))
        for r in known
        if (r["state"] == "discriminating") != (r.get("top_tier_size") is not None and r["top_tier_size"] < 5)
    ]
    assert wrong == []
    assert {r.get("state_from") for r in known} == {"tiers"}
    dated = 0
    for path in sorted((root / "r" / "by_date").glob("*.csv")):
        table = pd.read_csv(path).dropna(subset=["top_tier_size"])
        table = table[table["state"] != "unknown"]
        dated += len(table)
        assert ((table["state"] == "discriminating") == (table["top_tier_size"] < 5)).all(), path.name
    assert dated >= 100


def test_no_detection_limit_over_the_whole_axis_is_published_as_a_figure(shipped):
    """Issue 60, must-show 1: a Max Gap bound of 0.95 or more of the axis (Epoch's FrontierMath public, 10 items:
    0.995) reads "no bound with these models" on its page, on the home page and in the download, never as a
    number."""
    import html
    import re
    import zipfile

    import pandas as pd

    from benchwatch.vocabulary import NO_BOUND

    _, root, _, _, _ = shipped
    records = json.loads((root / "r" / "latest.json").read_text())["benchmarks"]
    wide = [r for r in records if (r.get("detection_limit") or 0) >= 0.95 and not r.get("gone_since")]
    assert wide, "the real atlas has a benchmark whose detection limit spans the axis (FrontierMath public)"
    for rec in wide:
        page = root / "site" / benchmark_page(rec.get("page") or rec["benchmark"]).removesuffix(".md") / "index.html"
        text = html.unescape(re.sub(r"<[^>]+>", " ", page.read_text(encoding="utf-8")))
        at = text.find("Max Gap's bound: an empty stretch of at most")
        row = " ".join(text[at : at + 400].split())
        assert at >= 0 and row.split("as empty)")[1].lstrip().startswith(NO_BOUND), (rec["benchmark"], row)
    with zipfile.ZipFile(root / "site" / "downloads" / "benchwatch-data.zip") as bundle:
        name = next(n for n in bundle.namelist() if n.endswith("benchmarks.csv"))
        table = pd.read_csv(bundle.open(name))
    assert (table["max_gap_bound"].dropna() < 0.95).all()


def test_each_source_is_as_of_its_upstream_date(real_site):
    """Issue 26: the Sources table's "as of" is the date the upstream's server gives its file (the commit date of
    each real file), not the run's; EvalPlus's file has none, and its row says where its date came from."""
    from playwright.sync_api import sync_playwright

    from tests.sources.shipped import REAL
    from tests.sources.upstream_server import UPSTREAM_DATES

    base, root, _ = real_site
    statuses = json.loads((root / "r" / "sources.json").read_text())["sources"]
    with sync_playwright() as pw:
        browser, page = _page(pw, base)
        rows = page.evaluate(
            """() => {
              const h = [...document.querySelectorAll('h2')].find(h => h.textContent.startsWith('Sources'));
              let t = h.nextElementSibling;
              while (t && !t.querySelector('table') && t.tagName !== 'TABLE') t = t.nextElementSibling;
              const table = t.tagName === 'TABLE' ? t : t.querySelector('table');
              const head = [...table.tHead.rows[0].cells].map(c => c.textContent.trim());
              const col = head.indexOf('As of');
              return [...table.tBodies[0].rows].map(r => {
                const span = r.cells[col].querySelector('.bw-as-of');
                return [r.cells[0].textContent.trim(), span ? span.textContent : r.cells[col].textContent.trim(),
                        span ? span.title : null];
              });
            }"""
        )
        browser.close()
    shown = {name: (when, what) for name, when, what in rows}
    assert set(shown) == set(statuses)
    checked = 0
    for name in statuses:
        path = REAL.get(name)
        prefixes = [p for p in UPSTREAM_DATES if path and path.startswith(p)]
        date = UPSTREAM_DATES[max(prefixes, key=len)] if prefixes else None
        if date is not None:
            assert shown[name] == (date, "upstream date"), name
            checked += 1
        else:  # no date upstream: the newest dated result, or said to be unknown; never the run's date
            assert shown[name][1] == "newest dated result" or shown[name][0] == "not stated upstream", name
            assert shown[name][0] != statuses[name].get("data_since", "")[:10]
    assert checked >= 10


def test_livecodebenchs_figures_table_gives_one_max_gap(real_site):
    """Issue 26: one figure per claim: the figures table of LiveCodeBench's page has one Max Gap row; the
    model-based and plug-in estimates wait in a closed block that says why they differ."""
    from playwright.sync_api import sync_playwright

    base, _, _ = real_site
    with sync_playwright() as pw:
        browser, page = _page(pw, base + benchmark_page("LiveCodeBench code generation").removesuffix(".md") + "/")
        tables = page.evaluate(
            """() => [...document.querySelectorAll('article table')].map(t => [
              [...t.tHead.rows[0].cells].map(c => c.textContent.trim()).join('|'),
              [...t.tBodies[0].rows].map(r => r.cells[0].textContent.trim()),
              !!t.closest('details'), t.closest('details') ? t.closest('details').open : null])"""
        )
        browser.close()
    figures = [rows for head, rows, inside, _ in tables if head.startswith("Figure|Value") and not inside]
    assert figures  # the page's own benchmark first, then the others on its page (eval-arena's run of it)
    assert all(sum("Max Gap" in row for row in rows) == 1 for rows in figures)
    others = [(rows, is_open) for head, rows, inside, is_open in tables if head.startswith("Figure|Value") and inside]
    assert len(others) == len(figures) and all(is_open is False for _, is_open in others)
    assert any("model-based" in row for row in others[0][0]) and any("plug-in" in row for row in others[0][0])


def test_every_flag_shown_says_why(real_site):
    """Issue 26: each flag badge on the home page explains itself on hover, and on a benchmark page in a line
    written beside it."""
    from playwright.sync_api import sync_playwright

    base, root, _ = real_site
    records = json.loads((root / "r" / "latest.json").read_text())["benchmarks"]
    flagged = [r for r in records if r.get("flags")]
    assert len(flagged) >= 5
    with sync_playwright() as pw:
        browser, page = _page(pw, base)
        home = page.evaluate(
            "() => [...document.querySelectorAll('article [class*=bw-flag-]')].map(b => [b.textContent, b.title])"
        )
        assert len(home) == sum(len(r["flags"]) for r in records)
        assert all(len(title) > 15 for _, title in home), [h for h in home if len(h[1]) <= 15]
        for rec in flagged[:8]:
            page.goto(base + benchmark_page(rec["page"]).removesuffix(".md") + "/")
            page.wait_for_load_state("networkidle")
            lines = page.evaluate(
                """() => [...document.querySelectorAll('article td [class*=bw-flag-]')].map(b => {
                  const cell = b.closest('td'), text = cell.innerText.split('\\n');
                  return text.find(line => line.trim().startsWith(b.textContent)) || '';
                })"""
            )
            assert len(lines) >= len(rec["flags"]), rec["benchmark"]
            assert all(len(line) > len("retire") + 15 for line in lines), (rec["benchmark"], lines)
        browser.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_the_summary_pictures_labels_neither_overlap_nor_run_off(real_site, width):
    """Issue 26: the home page's picture at a desktop and a phone width: every benchmark with an index has its
    point; no two labels share a pixel and none runs past the picture's edges."""
    from playwright.sync_api import sync_playwright

    base, _, _ = real_site
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = _unsearched(browser.new_page(viewport={"width": width, "height": 900}))
        page.goto(base)
        page.wait_for_load_state("networkidle")
        shown_plot = "[...document.querySelectorAll('object.benchwatch-plot')].find(x => x.getClientRects().length)"
        page.wait_for_function(f"() => {shown_plot}.contentDocument")  # a phone gets the one drawn for it (issue 60)
        count, hits, outside, shown = page.evaluate(
            """() => {
              const o = SHOWN, doc = o.contentDocument;""".replace("SHOWN", shown_plot)
            + """
              const svg = doc.documentElement.getBoundingClientRect();
              const boxes = [...doc.querySelectorAll('text')].map(t => [t.textContent, t.getBoundingClientRect()])
                .filter(([s, r]) => s.trim() && r.width > 0);
              const hits = [], outside = [];
              for (let i = 0; i < boxes.length; i++) {
                const [a, p] = boxes[i];
                if (p.left < svg.left - 0.5 || p.right > svg.right + 0.5 || p.top < svg.top - 0.5 ||
                    p.bottom > svg.bottom + 0.5) outside.push(a);
                for (let j = i + 1; j < boxes.length; j++) {
                  const [b, q] = boxes[j];
                  const w = Math.min(p.right, q.right) - Math.max(p.left, q.left);
                  const h = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
                  if (w > 0.5 && h > 0.5) hits.push(a + ' / ' + b);
                }
              }
              // the picture fits the page, or (a phone: issue 40) scrolls sideways in a box that does, text legible
              const holder = o.closest('.bw-plot') || o;
              const box = holder.getBoundingClientRect();
              const fits = box.right <= document.documentElement.clientWidth + 0.5;
              const scrolls = holder !== o && getComputedStyle(holder).overflowX === 'auto';
              const inside = o.getBoundingClientRect().right <= box.right + 0.5;
              return [boxes.length, hits, outside, fits && (inside || scrolls)];
            }"""
        )
        browser.close()
    assert count > 10 and hits == [] and outside == [] and shown


def test_the_state_column_sorts_by_severity(real_site):
    """Issue 26: clicking the home table's State header orders the rows saturated, stagnant, unknown,
    discriminating (and back), not alphabetically."""
    from playwright.sync_api import sync_playwright

    from benchwatch.site.cells import SEVERITY

    base, _, _ = real_site
    with sync_playwright() as pw:
        browser, page = _page(pw, base)
        read = """() => { const t = document.querySelector('.bw-filter ~ * table, .bw-filter ~ table');
          const col = [...t.tHead.rows[0].cells].findIndex(c => c.textContent.trim() === 'State');
          return [...t.tBodies[0].rows].map(r => r.cells[col].textContent.trim()); }"""
        header = page.locator(".bw-filter ~ * table th, .bw-filter ~ table th").filter(has_text="State")
        header.click()
        first = page.evaluate(read)
        header.click()
        second = page.evaluate(read)
        browser.close()
    for order in (first, second):
        ranks = [SEVERITY[s] for s in order]
        assert ranks in (sorted(ranks), sorted(ranks, reverse=True)), order
    states = set(first)  # an alphabetical sort of these would give another order: the test can tell the two apart
    assert len(states) >= 3 and sorted(states) != sorted(states, key=SEVERITY.get)


def test_the_methodology_formulas_are_typeset_offline(real_site):
    """Issue 26: the methodology page's formulas are KaTeX's typeset math, with every request the page makes
    answered by the site itself (anything else is refused and would fail the test)."""
    from playwright.sync_api import sync_playwright

    base, _, _ = real_site
    elsewhere: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})

        def gate(route):
            if route.request.url.startswith(base):
                return route.continue_()
            elsewhere.append(route.request.url)
            return route.abort()

        page.route("**/*", gate)
        page.goto(base + "methodology/")
        page.wait_for_load_state("networkidle")
        typeset = page.evaluate("() => document.querySelectorAll('.arithmatex .katex').length")
        raw = page.evaluate(
            "() => [...document.querySelectorAll('.arithmatex')].filter(e => !e.querySelector('.katex')).length"
        )
        fonts = page.evaluate("() => document.fonts.check('16px KaTeX_Main')")
        glossary = page.evaluate("() => document.querySelectorAll('article abbr[title]').length")
        browser.close()
    assert elsewhere == []
    assert typeset >= 10 and raw == 0 and fonts
    assert glossary >= 5  # the statistical terms explained on hover


def test_check_validates_the_real_runs_reports_against_the_published_schemas(shipped):
    """Issue 28: every JSON file of the real run's reports/ validates against its schema (and check finds
    nothing else); the same schemas are published with the site."""
    from benchwatch.history.check import check_reports, schema_problems
    from benchwatch.history.records import FILES, file_schema

    _, root, _, _, _ = shipped
    for name in FILES:
        assert schema_problems(root / "r" / name) == [], name
        published = json.loads((root / "site" / "schema" / name.replace(".json", ".schema.json")).read_text())
        assert published == file_schema(name)
    assert check_reports(root / "r") == []


def test_a_page_of_several_records_names_them_all_at_its_top(shipped):
    """Issue 59: SWE-bench Verified's page opens with its six records side by side (source, models, state), before
    the first record's own sections."""
    _, root, _, _, _ = shipped
    latest = json.loads((root / "r" / "latest.json").read_text())["benchmarks"]
    mine = [r for r in latest if r.get("page") == "SWE-bench Verified"]
    page = (root / "site" / benchmark_page("SWE-bench Verified").removesuffix(".md") / "index.html").read_text()
    top = page.split("<article", 1)[1].split("Also:", 1)[0]
    assert f"This benchmark is measured here {len(mine)} ways" in top and len(mine) == 6
    assert all(f">{r['n_models']}<" in top and r["state"].replace("_", " ") in top for r in mine)


def test_the_real_home_rows_fit_a_phone_and_no_page_is_wider_than_the_screen(real_site):
    """Issue 60 on the real atlas: at 390 px each home row (a card) shows its name, state and flags inside the
    screen, and the home page, SWE-bench Verified's page and the alerts do not scroll sideways; at 1280 px nothing
    in their text is wider than the page and every table fits its box. Screenshots of each in screenshots/."""
    from tests.site.test_browser import assert_home_rows_fit_a_phone, phone_and_desktop

    base, root, swe = real_site
    rows, problems = phone_and_desktop(base, ["", swe, "alerts/"], root / "screenshots")
    assert problems == []
    assert_home_rows_fit_a_phone(rows, json.loads((root / "r" / "latest.json").read_text())["benchmarks"])


def test_every_real_benchmark_page_answers_in_its_first_screen(real_site):
    """Issue 60 on the real atlas: at 1280x900 every benchmark page's state, coverage verdict and flags lie in its
    first 600 px (the verdict line under its title)."""
    from tests.site.test_browser import assert_answers_in_first_screen, benchmark_paths, verdict_tops

    base, root, _ = real_site
    pages = benchmark_paths(root / "site")
    assert len(pages) >= 20
    assert_answers_in_first_screen(verdict_tops(base, pages))


def _assert_the_atlas_and_bfcls_history(latest: dict, reports: Path, site: Path) -> None:
    """What the shipped run read (issue 59's counts) and BFCL's history by date, from its reports and pages."""
    # Issue 59 (and 25 before it): every source of benchwatch.toml with a real copy here, read by its adapter over
    # loopback, publishes at least 150 benchmarks, 60 of them per item (MMLU-Pro's read per item too, though two
    # models place no item), without HELM, the Hub's LiveBench export and Epoch's logs (no copy here)
    read_per_item = {r["benchmark"] for r in latest.values() if r.get("kind") != "aggregate" or r.get("per_item")}
    assert len(latest) >= 150 and len(read_per_item) >= 60, (len(latest), sorted(read_per_item))
    assert {"MMLU-Pro", "MMLU-Pro law", "SWE-bench Verified", "humaneval+"} <= read_per_item
    # Issue 59: BFCL's twelve categories, each dated by its snapshots' own dates (three or more), their pages'
    # "Saturation over time" drawn from them, and 2024-08-11's rescoring (the checker changed) in the changelog and
    # the alerts of each, never taken for progress
    bfcl = sorted(r["benchmark"] for r in latest.values() if r["origin"].endswith("/bfcl_result/"))
    assert len(bfcl) == 12 and all(latest[b]["kind"] == "items" for b in bfcl)
    for name in bfcl:
        with (reports / "by_date" / f"{safe_slug(name)}.csv").open() as fh:
            days = {row["date"] for row in csv.DictReader(fh)}
        assert len(days) >= 3 and days <= {"2024-07-06", "2024-07-20", "2024-07-25", "2024-08-11"}, (name, days)
        html = (site / benchmark_page(latest[name]["page"]).removesuffix(".md") / "index.html").read_text()
        assert 'saturation.svg"' in html and "Saturation over time" in html, name
    changes = json.loads((reports / "changelog.json").read_text())["changes"]
    rescored = [c["benchmark"] for c in changes if c.get("upstream", "").startswith("rescored upstream on 2024-08-11")]
    assert sorted(rescored) == bfcl
    alerts = json.loads((reports / "alerts.json").read_text())["alerts"]
    assert sorted(a["benchmark"] for a in alerts if a["kind"] == "rescored" and a["benchmark"] in bfcl) == bfcl


def test_shipped_config_on_the_real_files(shipped, capsys):
    """Last in this module: its second run writes into the reports that the browser tests above read."""
    _, root, _, argv, out = shipped
    site = root / "site"
    assert "FAILED" not in out
    latest = {r["benchmark"]: r for r in json.loads((root / "r" / "latest.json").read_text())["benchmarks"]}
    # SWE-bench Verified once: one per-item fit of the runs of both boards, the boards as leaderboards.
    per_item = [r for r in latest.values() if r.get("kind") != "aggregate"]
    swe = [r for r in per_item if r["benchmark"].startswith("SWE-bench")]
    assert [r["benchmark"] for r in swe] == ["SWE-bench Verified"]
    assert (swe[0]["n_models"], swe[0]["n_items"]) == (24, 500)
    on_swe_page = sorted(r["benchmark"] for r in latest.values() if r["page"] == "SWE-bench Verified")
    assert on_swe_page == [
        "Epoch samples SWE-bench Verified",
        "Epoch swe_bench_bash",
        "Epoch swe_bench_verified",
        "SWE-bench Verified",
        "SWE-bench Verified (published scores)",
        "SWE-bench bash-only (published scores)",
    ]
    # Epoch's own runs share SWE-bench Verified's instance ids: fitted after it in this first run, they place their
    # items with its 24 models too.
    joint = latest["Epoch samples SWE-bench Verified"]["joint_pool"]
    assert [(w["benchmark"], w["models"]) for w in joint["with"]] == [("SWE-bench Verified", 24)]
    assert 0 < joint["with"][0]["items"] <= 500
    board = latest["SWE-bench Verified (published scores)"]["comparison"]
    assert (board["fit_models"], board["board_models"]) == (24, 162) and board["both"] == 24
    page = (site / benchmark_page("SWE-bench Verified").removesuffix(".md") / "index.html").read_text()
    assert "covers 24 models; this board lists 162" in page
    # HumanEval+ and MBPP+: all-the-noises' per-item fit (eval-arena's, continued) and EvalPlus's board on one page
    # each.
    for bench_id, fit, board_name in [
        ("HumanEval+", "humaneval+", "EvalPlus humaneval+"),
        ("MBPP+", "mbpp+", "EvalPlus mbpp+"),
    ]:
        assert latest[fit]["page"] == bench_id and latest[board_name]["page"] == bench_id
        assert latest[fit]["kind"] != "aggregate" and latest[board_name]["kind"] == "aggregate"
        html = (site / benchmark_page(bench_id).removesuffix(".md") / "index.html").read_text()
        assert f"Also: {board_name}" in html and "all_the_noises" in html and "evalplus" in html
        assert latest[board_name]["comparison"]["with"] == fit
    # Honest figures (issue 22): every per-item page shows the detection limit and the verdicts; MMLU-Pro and its
    # 14 categories, two models each here, publish scores only: no per-item figure and no flag.
    words = {"found": "found", "cannot tell": "cannot tell with these models", "clear": "clear"}
    placed = [r for r in latest.values() if r.get("kind") == "items"]
    assert {"SWE-bench Verified", "LiveCodeBench code generation", "humaneval+", "mbpp+", "lcb_codegen"} <= {
        r["benchmark"] for r in placed
    }
    for rec in placed:
        html = (site / benchmark_page(rec["page"]).removesuffix(".md") / "index.html").read_text()
        assert rec["fit_verdict"] in ("fits", "misfit"), rec["benchmark"]
        if rec["item_model"] == "withheld":  # the item model does not fit: why, and no bound, verdict or flag
            assert "Bounds withheld" in html and not rec.get("verdicts") and "detection_limit" not in rec
            assert not {"fill", "revise"} & set(rec["flags"]), rec["benchmark"]
            continue
        assert set(rec["verdicts"]) == {"ddm", "max_gap", "top5_gap_sum"}, rec["benchmark"]
        bound = as_bound(rec["detection_limit"])  # over 0.95 of the axis or more: "no bound" (issue 60)
        shown = "no bound with these models" if bound is None else f"at most {bound:.3f}"
        assert "What these models can and cannot see" in html and shown in html, rec["benchmark"]
        assert all(words[v["verdict"]] in html for v in rec["verdicts"].values())
        if {"fill", "revise"} & set(rec["flags"]):
            assert "found" in {v["verdict"] for v in rec["verdicts"].values()}
    mmlu = [r for r in latest.values() if r["benchmark"].startswith("MMLU-Pro")]
    assert len(mmlu) == 15
    for rec in mmlu:
        assert rec["kind"] == "aggregate" and rec["per_item"] and rec["n_models"] == 2, rec["benchmark"]
        assert "too few models to place items" in rec["unplaced"] and rec["flags"] == []
        assert rec["ddm"] is None and "detection_limit" not in rec and not rec.get("verdicts")
    html = (site / benchmark_page(mmlu[0]["page"]).removesuffix(".md") / "index.html").read_text()
    assert "too few models to place items" in html and "What these models can and cannot see" not in html
    _assert_the_atlas_and_bfcls_history(latest, root / "r", site)
    pages = {p.parent.name for p in (site / "benchmarks").glob("*/index.html")}
    assert len(pages) == len({r["page"] for r in latest.values()}) < len(latest)
    assert latest["Epoch gpqa_diamond"]["n_models"] == 145
    feed = feedparser.parse((site / "feed.xml").read_bytes())
    assert feed.version == "rss20" and len(feed.entries) >= len(latest)
    # An unchanged second run: every source answers 304, nothing is refitted.
    assert main([*argv, "--no-site"]) == 0
    out = capsys.readouterr().out
    assert out.count("not-modified") == len(REAL) - len(SLOW) and "0 new snapshots" in out
