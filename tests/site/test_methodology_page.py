"""The methodology page publishes the calibration's tables for every cell of the script's grid."""

from __future__ import annotations

import re

from tests.conftest import ROOT
from tests.metrics.test_resolution import _calibration


def test_the_calibration_tables_cover_every_cell_of_the_grid():
    cal = _calibration()
    page = (ROOT / "site" / "docs" / "methodology.md").read_text(encoding="utf-8")
    section = page.split("## Calibration", 1)[1].split("\n## ", 1)[0]
    grid = {(pool, f"{n:,}", shape) for pool, n, shape, _, _ in cal.cells(1, False, None, None)}
    tables = re.split(r"\n\n(?=[A-Z])", section)
    rows = [
        [{tuple(c.strip() for c in line.strip("|").split("|")[:3]) for line in t.splitlines() if line.startswith("| ")}]
        for t in tables
        if "| Pool | Items | Shape |" in t
    ]
    assert len(rows) == 3
    for (found,) in rows:
        assert grid <= found, sorted(grid - found)[:5]
    for line in section.splitlines():  # every row of the first table: 40 benchmarks, four shares and a limit
        if line.startswith("| ") and "%" in line and line.count("|") == 9:
            cells = [c.strip() for c in line.strip("|").split("|")]
            assert cells[3] == "40" and all(c.endswith("%") for c in cells[4:7]) and 0 < float(cells[7]) <= 1


def test_the_item_behaviour_tables_cover_every_cell_of_their_grid():
    """Issue 37: the item-behaviours grid's two tables (the fit check, the paths, the bounds and flags; the floor's
    interval and the blanks warning) are on the page, every cell of the script's grid in the first."""
    cal = _calibration()
    section, rows = _grid_rows("### Items that do not answer as a 1PL says", "| ", 13)
    grid = {(b, p, s) for b, p, s, _, _ in cal.item_cells(None, None, None)}
    assert grid == set(rows), sorted(grid ^ set(rows))[:5]
    for (_, pool, _), cells in rows.items():
        assert int(cells[3]) == cal.ITEM_REPS[pool]  # every benchmark placed
        assert all(c.endswith("%") or c == "–" for c in cells[4:12])
    floors = [line for line in section.splitlines() if line.startswith("| floor 0") and line.count("|") == 8]
    assert len(floors) >= 3 * 3 * 3  # the declared floors' interval rows, every pool and shape


def test_the_spread_grid_table_covers_every_cell_and_every_bound_holds():
    """Issue 64: every cell of ``--grid spreads`` on the page, each with its benchmarks, the bounds' coverage (the
    detection limit and the top-5 bound in at least 95% of the benchmarks, DDM in at least 90%), at most 5% of the
    grid's benchmarks withheld (the check's false alarms, at its 2.5% level) and at most two of a cell's (a cell of
    twenty sees two by chance in one cell in eleven), and no `fill` or `revise` on a uniform benchmark."""
    cal = _calibration()
    _, rows = _grid_rows("### Spreads of discrimination and agreeing samples", "| s = ", 14)
    grid = {(b, p, s) for b, p, s, _, _ in cal.spread_cells(None, None, None)}
    assert grid == set(rows), sorted(grid ^ set(rows))[:5]

    def pct(cell: str) -> float:
        return float(cell.rstrip("%")) / 100

    withheld = 0.0
    for (_, pool, shape), cells in rows.items():
        assert int(cells[3]) >= cal.SPREAD_REPS[pool]  # the script's size
        assert round(pct(cells[4]) * int(cells[3])) <= 2, cells
        withheld += pct(cells[4]) * int(cells[3])
        assert pct(cells[5]) >= 0.95 and pct(cells[6]) >= 0.95 and pct(cells[7]) >= 0.9, cells
        if shape == "uniform":
            assert cells[8] == "0%" and cells[9] == "0%", cells
    assert withheld <= 0.05 * sum(int(cells[3]) for cells in rows.values())


def _grid_rows(heading: str, start: str, width: int) -> tuple[str, dict[tuple[str, ...], list[str]]]:
    """The methodology page's section under ``heading``, and its table rows that begin with ``start`` and have
    ``width`` cells and a count of benchmarks, by their first three cells (behaviour, pool, shape)."""
    page = (ROOT / "site" / "docs" / "methodology.md").read_text(encoding="utf-8")
    section = page.split(heading, 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if line.startswith(start) and len(cells) == width and cells[3].isdigit():
            rows[tuple(cells[:3])] = cells
    return section, rows


def test_the_small_undeclared_floor_table_is_the_scripts_grid_and_every_bound_it_publishes_holds():
    """The small undeclared floor taken as a nuisance (issue 64): the rows are the script's cells
    (``SMALL_FLOORS`` x the spread grid's pools and shapes), each at its size; the bounds published hold in at least
    95% / 95% / 90% of a cell's benchmarks, and no uniform benchmark raises `fill` or `revise`."""
    cal = _calibration()
    _, rows = _grid_rows("### A small floor left undeclared", "| floor 0.02, undeclared", 14)
    grid = {(b, p, s) for b, p, s, _, _ in cal.spread_cells(None, list(cal.SMALL_FLOORS), None)}
    assert grid == set(rows), sorted(grid ^ set(rows))[:5]
    for (_, pool, shape), cells in rows.items():
        assert int(cells[3]) >= cal.SPREAD_REPS[pool]
        assert float(cells[5].rstrip("%")) >= 95 and float(cells[6].rstrip("%")) >= 95, cells
        assert float(cells[7].rstrip("%")) >= 90, cells
        if shape == "uniform":
            assert cells[8] == "0%" and cells[9] == "0%", cells
