"""A table's download is its file's own text where that is safe (issue 42: the site's assets without writing every
table again), else the table written again with its text cells made safe: either way what ``csv_text`` writes for
the files ``write_table`` writes, and never a cell a spreadsheet would run."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from benchwatch.history import csv_text, published_csv
from benchwatch.history.formats import FORMULA_START, parse_csv, sheet_text

HOSTILE = ["=1+1", "+cmd", "-rm", "@SUM(A1)", "\tx", "'quoted", "plain", "a,=b", "-", "—dash", "x\n=y"]


def _table(rng: np.random.Generator, n: int) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "item_id": rng.choice(HOSTILE + [f"q{k}" for k in range(20)], n),
            "b": rng.normal(0, 2, n) * rng.choice([1e-6, 1.0, 1e6], n),
            "b_sd": np.where(rng.random(n) < 0.2, np.nan, rng.random(n)),
            "z": rng.choice([-np.inf, np.inf, 0.0, -0.5, 1.0], n),
            "n": rng.integers(-5, 5, n),
        }
    )


def _formula_cells(text: str) -> list[str]:
    return [f for row in csv.reader(io.StringIO(text)) for f in row if f.startswith(FORMULA_START) and not _number(f)]


def _number(field: str) -> bool:
    try:
        float(field)
    except ValueError:
        return field.startswith("'")  # a quoted cell: shown as text
    return True


@pytest.mark.parametrize("seed", range(20))
def test_a_written_table_is_published_as_writing_it_again_would(seed):
    rng = np.random.default_rng(seed)
    table = _table(rng, int(rng.integers(1, 60)))
    text = csv_text(table)  # what write_table writes
    read = parse_csv(Path("items/t.csv"), text)
    assert published_csv(text, read) == csv_text(read)
    assert _formula_cells(published_csv(text, read)) == []
    safe = table.assign(item_id=[f"q{k}" for k in range(len(table))])  # its own text, as written
    text = csv_text(safe)
    read = parse_csv(Path("items/t.csv"), text)
    assert published_csv(text, read) is text and text == csv_text(read)


@pytest.mark.parametrize("cell", ["=1+1", "+cmd", "-rm", "@SUM(A1)", "\tx", '"=quoted"'])
def test_a_file_edited_by_hand_with_a_formula_cell_is_written_again_safely(cell):
    field = cell if cell.startswith('"') else f'"{cell}"' if cell[0] == "\t" else cell
    text = f"item_id,b,b_sd,z\nq1,0.5,0.1,0.2\n{field},-1.5,0.2,0.4\n"
    read = parse_csv(Path("items/t.csv"), text)
    out = published_csv(text, read)
    assert out != text and out == csv_text(read) and _formula_cells(out) == []


def test_negative_numbers_and_infinities_keep_the_files_own_text():
    text = "item_id,b,b_sd,z\nq1,-0.5,-1e-05,-inf\nq2,-.5,0.1,inf\n"
    read = parse_csv(Path("items/t.csv"), text)
    assert published_csv(text, read) is text
    assert published_csv(None, read) == csv_text(read)  # no file text: the table written again


@pytest.mark.parametrize("seed", range(10))
def test_a_table_reads_back_as_with_every_text_cell_mapped(seed):
    """``parse_csv`` maps a text column through ``sheet_text`` only where that changes it (a quoted cell, or a column
    with no text, which pandas then gives floats): the frame, dtypes included, of mapping every text column."""
    rng = np.random.default_rng(seed)
    table = _table(rng, int(rng.integers(1, 40)))
    table["date"] = rng.choice(["2025-01-01", None], len(table)) if seed % 2 else None  # some columns all blank
    table["note"] = rng.choice(["'=x", "ok", None], len(table)) if seed % 3 else "plain"
    text = csv_text(table)
    got = parse_csv(Path("models/t.csv"), text)
    dtypes = {c: str for c in ("item_id", "date") if c in table.columns}
    want = pd.read_csv(io.StringIO(text), dtype=dtypes, keep_default_na=False, na_values=[""])
    for col in want.columns:
        if want[col].dtype == object or pd.api.types.is_string_dtype(want[col]):
            want[col] = want[col].map(sheet_text)
    pd.testing.assert_frame_equal(got, want, check_exact=True)
    assert dict(got.dtypes) == dict(want.dtypes)
