"""How long the command line takes to answer before any work: ``benchwatch --help`` (target: under 0.5 s)
against two baselines measured in the same run, starting Python (``python -c pass``) and starting it
and importing httpx (best of several; the ratios are the figures).

Run: python benchmarks/startup.py
"""

from __future__ import annotations

import subprocess
import sys
import time


def best(argv: list[str], repeats: int = 7) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    bare = best([sys.executable, "-c", "pass"])
    baseline = best([sys.executable, "-c", "import httpx"])
    help_ = best([sys.executable, "-m", "bot.cli", "--help"])
    run_help = best([sys.executable, "-m", "bot.cli", "run", "--help"])
    rows = [
        ("python -c pass", bare),
        ("python -c 'import httpx'", baseline),
        ("benchwatch --help", help_),
        ("benchwatch run --help", run_help),
    ]
    print(f"{'what':<32} {'seconds':>8} {'/ python -c pass':>17} {'/ import httpx':>15}")
    for what, seconds in rows:
        print(f"{what:<32} {seconds:>8.3f} {seconds / bare:>17.2f} {seconds / baseline:>15.2f}")


if __name__ == "__main__":
    main()
