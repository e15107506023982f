"""The shipped benchwatch.toml on the real upstream files of ../shared/upstream (served on 127.0.0.1): one whole
run with its site, which the browser tests read, and then what the run published, checked page by page.

One run for all of them (the run takes minutes): the browser tests first, the run's own checks last, since
they end with a second, unchanged run into the same reports.
"""

from __future__ import annotations

import contextlib
import functools
import io
import json
import os
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path

import feedparser
import pytest

from bot.cli import main
from bot.site.pages import benchmark_page
from tests.site.test_browser import CHROMIUM, FLAGS, _page, _Quiet
from tests.sources.test_live_run import REAL, SLOW, _shipped_config_on

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def shipped(tmp_path_factory):
    """The run: (its upstream server, kept up for a second run; root; config; argv; what it printed)."""
    from tests.conftest import SHARED
    from tests.sources.upstream_server import Upstream

    if not (SHARED / "upstream").is_dir():
        pytest.skip("../shared/upstream is not here: it exists in CI and on the developers' machines only")
    root = tmp_path_factory.mktemp("real")
    with Upstream(SHARED / "upstream") as upstream:
        config = _shipped_config_on(upstream, root)
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
    # HumanEval+ and MBPP+: eval-arena's per-item fit and EvalPlus's board on one page each.
    for bench_id, fit, board_name in [
        ("HumanEval+", "humaneval+", "EvalPlus humaneval+"),
        ("MBPP+", "mbpp+", "EvalPlus mbpp+"),
    ]:
        assert latest[fit]["page"] == bench_id and latest[board_name]["page"] == bench_id
        assert latest[fit]["kind"] != "aggregate" and latest[board_name]["kind"] == "aggregate"
        html = (site / benchmark_page(bench_id).removesuffix(".md") / "index.html").read_text()
        assert f"Also: {board_name}" in html and "evalarena" in html and "evalplus" in html
        assert latest[board_name]["comparison"]["with"] == fit
    # Honest figures (issue 22): every per-item page shows the detection limit and the verdicts; MMLU-Pro and its
    # 14 categories, two models each here, publish scores only: no per-item figure and no flag.
    words = {"found": "found", "cannot tell": "cannot tell with these models", "clear": "clear"}
    placed = [r for r in latest.values() if r.get("kind") == "items"]
    assert {"SWE-bench Verified", "LiveCodeBench code generation", "humaneval+", "mbpp+", "lcb_codegen"} <= {
        r["benchmark"] for r in placed
    }
    for rec in placed:
        assert set(rec["verdicts"]) == {"ddm", "max_gap", "top5_gap_sum"}, rec["benchmark"]
        html = (site / benchmark_page(rec["page"]).removesuffix(".md") / "index.html").read_text()
        assert "What these models can and cannot see" in html and f"at most {rec['detection_limit']:.3f}" in html
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
    pages = {p.parent.name for p in (site / "benchmarks").glob("*/index.html")}
    assert len(pages) == len({r["page"] for r in latest.values()}) < len(latest)
    assert latest["Epoch gpqa_diamond"]["n_models"] == 145
    feed = feedparser.parse((site / "feed.xml").read_bytes())
    assert feed.version == "rss20" and len(feed.entries) >= len(latest)
    # An unchanged second run: every source answers 304, nothing is refitted.
    assert main([*argv, "--no-site"]) == 0
    out = capsys.readouterr().out
    assert out.count("not-modified") == len(REAL) - len(SLOW) and "0 new snapshots" in out
