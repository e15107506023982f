"""The shipped sample is exactly what the documented generator makes."""

from __future__ import annotations

import gzip
import zipfile

import pytest

from benchwatch.sources import fetch_sample
from benchwatch.sources.real_snapshot import EPOCH_BENCHMARKS, EPOCH_FILE, LCB_FILE, REAL_DIR, build
from benchwatch.sources.sample_universe import SAMPLE_FILE, generate, to_csv_gz
from tests.conftest import SHARED


def test_shipped_file_is_the_generator_output():
    assert gzip.decompress(to_csv_gz(generate())) == gzip.decompress(SAMPLE_FILE.read_bytes())


def test_sample_shape():
    table = fetch_sample()
    df = table.frame
    assert table.synthetic
    assert df["model"].nunique() == 40
    sizes = df.groupby("benchmark")["item_id"].nunique().to_dict()
    assert sizes["synthetic-olympiad"] == 30 and sizes["synthetic-easy-heavy"] == 500 and len(sizes) == 5
    dates = df["date"].astype("datetime64[ns]")
    assert (dates.max() - dates.min()).days > 600
    assert all("synthetic" in name for name in sizes)


def test_bundled_real_snapshot_is_the_upstream_files():
    """Each bundled real file is what `python -m benchwatch.sources.real_snapshot ../shared/upstream` makes."""
    upstream = SHARED / "upstream"
    if not upstream.is_dir():
        pytest.skip("../shared/upstream is not here: it exists in CI and on the developers' machines only")
    built = build(upstream)
    assert set(built) == {p.name for p in REAL_DIR.iterdir() if p.name != "SOURCES.md"}
    for name, body in built.items():
        assert (REAL_DIR / name).read_bytes() == body, name
    # The LiveCodeBench file is byte for byte the upstream file; the Epoch CSVs too, inside the smaller zip.
    lcb = (upstream / "livecodebench" / "performances_generation.json").read_bytes()
    assert gzip.decompress((REAL_DIR / LCB_FILE).read_bytes()) == lcb
    with (
        zipfile.ZipFile(REAL_DIR / EPOCH_FILE) as mine,
        zipfile.ZipFile(upstream / "epoch" / "benchmark_data.zip") as z,
    ):
        assert all(mine.read(n) == z.read(n) for n in mine.namelist())
        assert set(mine.namelist()) == {"README.md", *(f"{s}.csv" for s in EPOCH_BENCHMARKS)}
