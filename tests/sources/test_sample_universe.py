"""The shipped sample is exactly what the documented generator makes."""

from __future__ import annotations

import gzip

from bot.sources import fetch_sample
from bot.sources.sample_universe import SAMPLE_FILE, generate, to_csv_gz


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
