"""The bundled snapshot of real leaderboards, read by the real adapters (no network needed).

Three upstream files whose licences allow redistribution, as they stood on the dates below, so that the
Quick start's first site holds real benchmarks next to the synthetic patterns (see
``bot/benchwatch/sources/data/real/SOURCES.md`` for each file's origin, licence and what was done to it):

- LiveCodeBench ``performances_generation.json`` (CC BY-SA 4.0), byte for byte, gzip-compressed;
- Epoch AI's ``benchmark_data.zip`` (CC BY 4.0), re-zipped with only the files read here and its README;
- EvalPlus ``results.json`` (Apache-2.0), byte for byte.

``python -m benchwatch.sources.real_snapshot UPSTREAM_DIR`` rebuilds the bundle from a folder laid out like
``../shared/upstream`` (the files the live sources download).
"""

from __future__ import annotations

import gzip
import io
import sys
import zipfile
from pathlib import Path

from benchwatch.sources.config import SourceConfig

REAL_DIR = Path(__file__).parent / "data" / "real"
LCB_FILE = "livecodebench_performances_generation.json.gz"
EPOCH_FILE = "epoch_benchmark_data.zip"
EVALPLUS_FILE = "evalplus_results.json"
EPOCH_BENCHMARKS = {
    "gpqa_diamond": 198,
    "math_level_5": 1324,
    "otis_mock_aime_2024_2025": 45,
    "frontiermath": 290,
    "simpleqa_verified": 1000,
}
ZIP_TIME = (2026, 1, 20, 0, 0, 0)  # fixed member times: the bundle is byte-stable


def snapshot_sources() -> list[SourceConfig]:
    """The bundled files as sources of the real adapters, each naming its origin."""
    return [
        SourceConfig(
            "livecodebench",
            "livecodebench",
            str(REAL_DIR / LCB_FILE),
            {
                "trials": 10,
                "homepage": "https://livecodebench.github.io/leaderboard.html",
                "origin": "bundled snapshot of LiveCodeBench/livecodebench.github.io @ 83b6481b (2025-04-22), "
                "CC BY-SA 4.0",
                "as_of": "2025-04-22",
                "bundled": "2025-04-22",  # the copy's own date: it never touches a network
            },
        ),
        SourceConfig(
            "epoch",
            "epoch",
            str(REAL_DIR / EPOCH_FILE),
            {
                "benchmarks": EPOCH_BENCHMARKS,
                "homepage": "https://epoch.ai/benchmarks",
                "origin": "bundled snapshot of Epoch AI, Data on AI Benchmarking (download of 2026-01-20), CC BY 4.0",
                "as_of": "2026-01-20",
                "bundled": "2026-01-20",  # the copy's own date: it never touches a network
            },
        ),
        SourceConfig(
            "evalplus",
            "evalplus",
            str(REAL_DIR / EVALPLUS_FILE),
            {
                "homepage": "https://evalplus.github.io/leaderboard.html",
                "origin": "bundled snapshot of evalplus/evalplus.github.io @ 87418456, Apache-2.0",
                "bundled": "2024-12-26",  # the copy's own date: it never touches a network
            },
        ),
    ]


def _zip_subset(archive: Path, members: list[str]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(archive) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as dst:
        for name in members:
            dst.writestr(zipfile.ZipInfo(name, ZIP_TIME), src.read(name), zipfile.ZIP_DEFLATED, 9)
    return out.getvalue()


def build(upstream: Path) -> dict[str, bytes]:
    """The bundle's files, made from a folder of upstream files laid out like ``../shared/upstream``."""
    lcb = (upstream / "livecodebench" / "performances_generation.json").read_bytes()
    epoch = upstream / "epoch" / "benchmark_data.zip"
    return {
        LCB_FILE: gzip.compress(lcb, compresslevel=9, mtime=0),
        EPOCH_FILE: _zip_subset(epoch, ["README.md", *(f"{stem}.csv" for stem in EPOCH_BENCHMARKS)]),
        EVALPLUS_FILE: (upstream / "evalplus" / "results.json").read_bytes(),
    }


def main(argv: list[str] | None = None) -> None:
    """Rewrite the bundled files from UPSTREAM_DIR."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        raise SystemExit("usage: python -m benchwatch.sources.real_snapshot UPSTREAM_DIR")
    for name, body in build(Path(args[0])).items():
        (REAL_DIR / name).write_bytes(body)
        print(f"wrote {REAL_DIR / name} ({len(body):,} bytes)")


if __name__ == "__main__":
    main()
