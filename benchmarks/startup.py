"""How long the command line takes to answer before any work: ``benchwatch --help`` against the baseline
of starting Python and importing httpx, in the same run (best of several; the ratio is the figure).

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
    baseline = best([sys.executable, "-c", "import httpx"])
    help_ = best([sys.executable, "-m", "bot.cli", "--help"])
    run_help = best([sys.executable, "-m", "bot.cli", "run", "--help"])
    rows = [("python -c 'import httpx'", baseline), ("benchwatch --help", help_), ("benchwatch run --help", run_help)]
    print(f"{'what':<32} {'seconds':>8} {'/ import httpx':>15}")
    for what, seconds in rows:
        print(f"{what:<32} {seconds:>8.3f} {seconds / baseline:>15.2f}")


if __name__ == "__main__":
    main()
