"""Every number on a page equals the one in reports/."""

from __future__ import annotations

import html
import json
import re

import pytest

from benchwatch.record import as_record
from benchwatch.site.names import display_name
from benchwatch.site.paths import benchmark_page
from benchwatch.vocabulary import as_bound

pytestmark = pytest.mark.slow

BASED = " (model-based: smooth difficulties assumed)"
ROWS = {
    "Items": ("n_items", "{:d}"),
    "Models": ("n_models", "{:d}"),
    "Max Gap's bound: an empty stretch of at most (the widest these models cannot rule out as empty)": (
        "detection_limit",
        "{:.3f}",
    ),
    f"Max Gap{BASED}": ("max_gap", "{:.3f}"),
    f"Top-3 gap sum{BASED}": ("top3_gap_sum", "{:.3f}"),
    f"Top-5 gap sum{BASED}": ("top5_gap_sum", "{:.3f}"),
    "The paper's saturation index (sqrt(n) items)": ("saturation_index", "{:.3f}"),
    "Saturation index with the paired item-level SE": ("saturation_index_paired", "{:.3f}"),  # in the closed block
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
    # issue 64: the real LiveCodeBench snapshot (16 models, ten agreeing samples a cell) publishes its bounds over
    # its spread of discriminations and its samples' correlation, as every synthetic one does
    assert not [r["benchmark"] for r in per_item if r.get("item_model") == "withheld"]
    real = next(r for r in per_item if not r["synthetic"])
    assert real["sample_correlation_lo"] > 0 and real["discrimination_spread_hi"] > 0 and real["detection_limit"]
    for rec in per_item:
        cells = _cells((site / benchmark_page(rec["page"]).removesuffix(".md") / "index.html").read_text())
        if rec.get("item_model") == "withheld":  # the item model does not fit: no bound, no verdict, in words
            assert not rec.get("verdicts") and "detection_limit" not in rec
            for label in ("Max Gap", "Top-5 gap sum"):
                assert cells[label][0] == "withheld (see Item model above)", (rec["benchmark"], label)
            based = " (model-based; the bounds are withheld, see Item model)"
            assert cells[f"Max Gap{based}"][0] == f"{rec['max_gap']:.3f}"  # in the closed block, named so
            assert cells["State"][0] == rec["state"]
            continue
        for label, (key, form) in ROWS.items():
            if key == "detection_limit" and as_bound(rec[key]) is None:  # over the whole axis (issue 60)
                assert cells[label][0] == "no bound with these models", rec["benchmark"]
                continue
            assert cells[label][0] == form.format(rec[key]), (rec["benchmark"], label)
        # null, or over 0.95 of the axis: "no bound" (issues 38 and 60)
        top5 = as_bound(rec["top5_gap_sum_bound_hi"])
        top5_cell = cells["Top-5 gap sum's bound: five empty stretches in all"][0]
        assert top5_cell == ("no bound with these models" if top5 is None else f"at most {top5:.3f}")
        for label, key in PCT.items():
            assert cells[label][0] == f"{100 * rec[key]:.1f}%"
        bounds = next(v for k, v in cells.items() if k.startswith("DDM (W1 to") and k.endswith("bounds"))
        assert bounds[0] == f"{rec['ddm_bound_lo']:.3f} – {rec['ddm_bound_hi']:.3f}"
        based = cells[f"DDM{BASED}"]
        assert based[0] == f"{rec['ddm']:.3f}" and based[1] == f"{rec['ddm_lo']:.3f} – {rec['ddm_hi']:.3f}"
        assert cells["State"][0] == rec["state"]
        words = {"found": "found", "cannot tell": "cannot tell with these models", "clear": "clear"}
        for key, label in (("ddm", "DDM"), ("max_gap", "Coverage hole"), ("top5_gap_sum", "Five coverage holes")):
            row = cells[label]  # the verdict table, first on the page: each under its question's name
            assert row[1] == f"{rec['verdicts'][key]['level']:.3f}" and row[2] == words[rec["verdicts"][key]["verdict"]]


def test_home_page_rows_show_the_reported_figures(built):
    records, site = built
    page = (site / "index.html").read_text()
    cells = _cells(page)
    for rec in records:
        shown = display_name(as_record(rec)) + (" (synthetic)" if rec.get("synthetic") else "")  # marked (issue 40)
        row = cells[shown]  # the name the page shows (Epoch's file ids read as Epoch names them)
        items, models, ddm, gap, coverage, index = row[1:7]
        assert (int(items), int(models)) == (rec["n_items"], rec["n_models"])
        if rec.get("item_model") == "withheld":  # the item model does not fit: the page says so, not a number
            assert (ddm, gap, coverage) == ("withheld", "withheld", "withheld (its page says why)")
        elif rec.get("detection_limit") is not None:  # bounds where the items were placed
            assert ddm == f"{rec['ddm_bound_lo']:.3f} – {rec['ddm_bound_hi']:.3f}"
            bound = as_bound(rec["detection_limit"])
            assert gap == ("no bound" if bound is None else f"≤ {bound:.3f}")
            verdicts = {k: v["verdict"] for k, v in rec["verdicts"].items()}
            named = ["DDM", "Coverage hole", "Five coverage holes"]  # the verdicts' names, not the figures'
            assert "Max Gap" not in coverage
            found = [
                n for (k, n) in zip(("ddm", "max_gap", "top5_gap_sum"), named, strict=True) if verdicts[k] == "found"
            ]
            assert (
                coverage.startswith("found: " + ", ".join(found))
                if found
                else coverage in ("clear",) or coverage.startswith("cannot tell")
            )
        else:
            assert (ddm, gap, coverage) == (_f(rec["ddm"]), _f(rec["max_gap"]), "–")
        assert index == f"{rec['saturation_index']:.3f}"  # its band named on hover
        assert f'<span title="{rec["band"]} band">{index}</span>' in page
        tier = "–" if rec.get("top_tier_size") is None else f"{rec['top_tier_size']} of {rec['n_models']}"
        assert (row[7], row[8]) == (tier, rec["state"])  # the top tier's size, its members on hover


def test_home_says_why_each_state_and_flag_is_what_it_is(built):
    records, site = built
    home = html.unescape(re.sub(r"<[^>]+>", "", (site / "index.html").read_text()))
    assert "Legend: states and flags" in home
    for rec in records:
        assert rec["why"] and rec["why"][0].startswith(rec["state"])  # the state first, then one line per flag
        assert len(rec["why"]) == 1 + len(rec["flags"])
        assert "; ".join(rec["why"]) in home, rec["benchmark"]
