"""Every number on a page equals the one in reports/."""

from __future__ import annotations

import html
import json
import re

import pytest

from bot.site.pages import benchmark_page

pytestmark = pytest.mark.slow

ROWS = {
    "Items": ("n_items", "{:d}"),
    "Models": ("n_models", "{:d}"),
    "Max Gap": ("max_gap", "{:.3f}"),
    "Top-3 gap sum": ("top3_gap_sum", "{:.3f}"),
    "Top-5 gap sum": ("top5_gap_sum", "{:.3f}"),
    "Saturation index (published, n_eff = √n)": ("saturation_index", "{:.3f}"),
    "Saturation index (paired item-level SE)": ("saturation_index_paired", "{:.3f}"),
}
PCT = {"Best score (s1)": "top1", "Fifth best (s5)": "top5", "Top-5 mean": "top5_mean"}


def _cells(page: str) -> dict[str, list[str]]:
    out = {}
    for row in re.findall(r"<tr>(.*?)</tr>", page, re.S):
        cells = [
            html.unescape(re.sub(r"<[^>]+>", "", c)).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)
        ]
        if cells:
            out.setdefault(cells[0], cells[1:])
    return out


@pytest.fixture(scope="module")
def built(sample_site):
    _, reports, site = sample_site
    return json.loads((reports / "latest.json").read_text())["benchmarks"], site


def _f(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def test_benchmark_pages_show_the_reported_figures(built):
    records, site = built
    per_item = [r for r in records if r["kind"] == "items"]
    assert len(per_item) == 6  # five synthetic patterns and the real LiveCodeBench snapshot
    for rec in per_item:
        cells = _cells((site / benchmark_page(rec["page"]).removesuffix(".md") / "index.html").read_text())
        for label, (key, form) in ROWS.items():
            assert cells[label][0] == form.format(rec[key]), (rec["benchmark"], label)
        for label, key in PCT.items():
            assert cells[label][0] == f"{100 * rec[key]:.1f}%"
        ddm_row = next(v for k, v in cells.items() if k.startswith("DDM"))
        assert ddm_row[0] == f"{rec['ddm']:.3f}" and ddm_row[1] == f"{rec['ddm_lo']:.3f} – {rec['ddm_hi']:.3f}"
        assert cells["State"][0] == rec["state"]


def test_home_page_rows_show_the_reported_figures(built):
    records, site = built
    page = (site / "index.html").read_text()
    cells = _cells(page)
    for rec in records:
        row = cells[rec["benchmark"]]
        items, models, ddm, gap, top5, index = row[1:7]
        assert (int(items), int(models)) == (rec["n_items"], rec["n_models"])
        assert (ddm, gap, top5) == (_f(rec["ddm"]), _f(rec["max_gap"]), _f(rec["top5_gap_sum"]))
        assert index == f"{rec['saturation_index']:.3f}"  # its band named on hover
        assert f'<span title="{rec["band"]} band">{index}</span>' in page
        assert row[7] == rec["state"]


def test_home_says_why_each_state_and_flag_is_what_it_is(built):
    records, site = built
    home = html.unescape(re.sub(r"<[^>]+>", "", (site / "index.html").read_text()))
    assert "Legend: states and flags" in home
    for rec in records:
        assert rec["why"] and rec["why"][0].startswith(rec["state"])  # the state first, then one line per flag
        assert len(rec["why"]) == 1 + len(rec["flags"])
        assert "; ".join(rec["why"]) in home, rec["benchmark"]
