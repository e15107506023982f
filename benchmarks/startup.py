"""How long the command line takes to answer before any work (target: under 0.5 s): ``benchwatch --help``,
every command's ``--help``, and input errors (a missing file, a folder, a CSV without a required column, a
missing configuration, a bad option value), against two baselines measured in the same run: starting
Python (``python -c pass``) and starting it and importing pandas (best of several; the ratios are the
figures; an error must exit 2 and say it in one line).

Run: python benchmarks/startup.py
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bot"))

from benchwatch.cli import COMMANDS

TARGET = 0.5


def best(argv: list[str], repeats: int = 5, status: int = 0) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True)
        times.append(time.perf_counter() - start)
        if done.returncode != status:
            raise SystemExit(f"{argv}: exit {done.returncode}, expected {status}: {done.stderr.strip()}")
        if status == 2 and len(done.stderr.strip().splitlines()) != 1:
            raise SystemExit(f"{argv}: the error is not one line: {done.stderr!r}")
    return min(times)


def main() -> None:
    bw = [sys.executable, "-m", "benchwatch.cli"]
    bare = best([sys.executable, "-c", "pass"])
    baseline = best([sys.executable, "-c", "import pandas"])
    with tempfile.TemporaryDirectory() as tmp:
        bad = Path(tmp) / "bad.csv"
        bad.write_text("model,item,score\na,b,1\n")
        rows = [("benchwatch --help", best([*bw, "--help"]))]
        rows += [(f"benchwatch {c} --help", best([*bw, c, "--help"])) for c in COMMANDS]
        errors = [
            ("audit: no such file", ["audit", str(Path(tmp) / "none.csv")]),
            ("audit: a folder", ["audit", tmp]),
            ("audit: no item_id column", ["audit", str(bad)]),
            ("run --input: no item_id column", ["run", "--input", str(bad), "--reports", str(Path(tmp) / "r")]),
            ("calibrate: no item_id column", ["calibrate", str(bad), "--abilities", str(bad)]),
            ("saturation: no n_items column", ["saturation", str(bad)]),
            ("run: no configuration file", ["run", "--config", str(Path(tmp) / "none.toml")]),
            ("run: a bad --now", ["run", "--now", "yesterday"]),
            ("schedule: a bad --cron", ["schedule", "--cron", "x", "--once"]),
        ]
        rows += [(f"error, {what}", best([*bw, *argv], status=2)) for what, argv in errors]
    print(f"{'what':<40} {'seconds':>8} {'/ python -c pass':>17} {'/ import pandas':>16}  target {TARGET} s")
    for what, seconds in rows:
        mark = "" if seconds < TARGET else "  OVER"
        print(f"{what:<40} {seconds:>8.3f} {seconds / bare:>17.2f} {seconds / baseline:>16.2f}{mark}")


if __name__ == "__main__":
    main()
