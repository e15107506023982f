"""The SVG writer behind the site's pictures: ticks, dates, escaping, and nothing drawn outside the picture."""

import re
from datetime import date

import numpy as np
import pandas as pd
import pytest

from benchwatch.site.plots import difficulty_svg, saturation_svg, tiers_svg
from benchwatch.site.summary_plot import SummaryPoint, summary_svg
from benchwatch.site.svg import CHAR, clip_text, date_ticks, nice_ticks


@pytest.mark.parametrize(("lo", "hi"), [(0, 1), (0.37, 0.93), (0, 0.331), (0.85, 1.0), (0, 47)])
def test_nice_ticks_are_round_cover_the_range_and_are_few(lo, hi):
    ticks = nice_ticks(lo, hi, 6)
    assert 2 <= len(ticks) <= 6 and lo <= ticks[0] <= ticks[-1] <= hi + 1e-12
    steps = np.diff(ticks)
    assert np.allclose(steps, steps[0])
    mantissa = steps[0] / 10 ** np.floor(np.log10(steps[0]))
    assert any(abs(mantissa - m) < 1e-9 for m in (1, 2, 2.5, 5))
    assert ticks[0] - lo < steps[0] and hi - ticks[-1] < steps[0]  # no round value of the range left out


def test_date_ticks_are_calendar_days_inside_the_range():
    for first, last in [
        (date(2023, 3, 14), date(2026, 11, 2)),
        (date(2025, 1, 5), date(2025, 2, 20)),
        (date(2024, 6, 1), date(2025, 1, 1)),
    ]:
        ticks = date_ticks(first, last)
        assert 1 <= len(ticks) <= 7
        assert all(first <= d <= last for d, _ in ticks)
        assert len({label for _, label in ticks}) == len(ticks)
    years = date_ticks(date(2019, 2, 1), date(2026, 6, 1))
    assert all(d.month == 1 and d.day == 1 and label == str(d.year) for d, label in years)


def test_clip_text_fits_its_width():
    text = "a-very-long-model-name-" * 5
    cut = clip_text(text, 11, 200)
    assert len(cut) * CHAR * 11 <= 200 and cut.endswith("…") and text.startswith(cut[:-1])
    assert clip_text("short", 11, 200) == "short"


def _texts_inside(svg: str) -> None:
    """Every text's estimated box lies inside the picture's view box."""
    width, height = map(float, re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', svg).groups())
    texts = re.findall(
        r'<text x="([-\d.]+)" y="([-\d.]+)" font-size="([\d.]+)" text-anchor="(\w+)"([^>]*)>([^<]*)</text>', svg
    )
    assert texts
    for x, y, size, anchor, rest, body in texts:
        x, y, size = float(x), float(y), float(size)
        w = len(body.replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")) * CHAR * size
        left = x if anchor == "start" else x - w if anchor == "end" else x - w / 2
        if "rotate(" in rest:  # a rotated axis title: it runs up the picture, its width is its height
            assert w <= height and x - 1.2 * size >= 0, body
            continue
        assert left >= 0 and left + w <= width + 1, (body, left, w)
        assert 0 <= y <= height, body


def test_pictures_keep_their_text_inside_and_escape_upstream_names():
    evil = "<script>alert(1)</script>" + "x" * 80
    models = pd.DataFrame(
        {
            "model": [evil, "b", "c"],
            "score": [0.9, 0.5, 0.2],
            "score_lo": [0.85, 0.4, 0.1],
            "score_hi": [0.95, 0.6, 0.3],
            "tier": [1, 2, 3],
        }
    )
    top = [{"model": evil, "score": 0.9, "lo": 0.8, "hi": 0.95}, {"model": "m2", "score": 0.5, "lo": None, "hi": None}]
    by_date = pd.DataFrame(
        {
            "date": ["2024-01-02", "2025-06-30"],
            "saturation_index": [0.2, 0.8],
            "saturation_index_lo": [0.1, 0.7],
            "saturation_index_hi": [0.3, 0.9],
        }
    )
    z = np.random.default_rng(0).random(50)
    points = [
        SummaryPoint(name=evil, url="benchmarks/a/", top_tier_size=12, ddm=0.3, state="saturated"),
        SummaryPoint(name="board", url="benchmarks/b/", top_tier_size=7, ddm=None, state="stagnant"),
    ]
    pictures = [
        tiers_svg(models, "exact McNemar"),
        saturation_svg(by_date, top),
        difficulty_svg(
            z,
            [{"lo": 0.1, "hi": 0.2}],
            {"kind": "beta", "a": 2, "b": 2},
            "Beta(2, 2)",
            (0.1, 0.2),
            [evil] * 50,
            [(0.3, 0.4)],
        ),
        summary_svg(points),
    ]
    for svg in pictures:
        assert "<script" not in svg and svg.startswith("<svg ") and svg.endswith("</svg>\n")
        _texts_inside(svg)
    assert pictures[2].count('<path d="M') >= 50 and pictures[2].count("&lt;script&gt;") == 50
    assert pictures[3].count('target="_top"') == 2


def test_a_stretch_that_may_be_empty_is_drawn_only_where_the_strip_shows_no_item():
    """Issue 38: the plot draws nothing its own strip contradicts. Max Gap's bound over a stretch where fitted
    positions fall is said in words, not drawn as a bar "may be empty" across those items."""
    z = np.array([0.05, 0.1, 0.2, 0.3, 0.45, 0.7, 0.9])
    spec, label = {"kind": "uniform"}, "Uniform(0, 1)"
    empty = difficulty_svg(z, [], spec, label, (0.46, 0.69))
    assert "may be empty: 0.230" in empty and "url(#benchwatch-hatch)" in empty.split("</defs>", 1)[1]
    crossed = difficulty_svg(z, [], spec, label, (0.4, 0.69))  # the item at 0.45 lies inside
    assert "may be empty" not in crossed and "url(#benchwatch-hatch)" not in crossed.split("</defs>", 1)[1]
    assert "Max Gap&#x27;s bound 0.290 (spans items)" in crossed
