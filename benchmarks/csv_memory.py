"""Peak memory of ``benchwatch audit`` on a large long-format CSV (issue 42: 1,500 x 6,000 with 30% missing, under
1 GB), beside the same command on a 10 x 50 CSV measured in the same run (the cost of the process itself: Python,
pandas, numba's kernels), each in a fresh process, its peak read from the kernel (``wait4``'s maximum resident set).

The file is read as codes (``benchwatch.sources.fetch_csv_file``: each column a category of its text), checked
once per distinct value (``benchwatch.store.validate_responses``) and held as categories; the audit then works on
the cells' integer codes.

Run: ``python benchmarks/csv_memory.py`` (default 1,500 x 6,000, 30% missing); ``--models``, ``--items``,
``--missing`` for other sizes.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def write_csv(path: Path, n_models: int, n_items: int, missing: float, seed: int = 0) -> int:
    """A simulated 1PL matrix as a long CSV (benchmark,model,item_id,score), a block of models at a time."""
    rng = np.random.default_rng(seed)
    theta, b = rng.normal(0, 1.5, n_models), rng.normal(0, 1.5, n_items)
    rows = 0
    with path.open("w", encoding="utf-8") as out:
        out.write("benchmark,model,item_id,score\n")
        for lo in range(0, n_models, 100):
            for m in range(lo, min(lo + 100, n_models)):
                items = np.flatnonzero(rng.random(n_items) >= missing)
                y = rng.random(items.size) < 1 / (1 + np.exp(-(theta[m] - b[items])))
                out.writelines(f"large,m{m:05d},i{i:06d},{int(v)}\n" for i, v in zip(items, y, strict=True))
                rows += items.size
    return rows


def peak(command: list[str]) -> tuple[float, float, int]:
    """(peak resident memory in GB, wall seconds, exit status) of one fresh process."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    return usage.ru_maxrss / 1024**2, time.perf_counter() - start, os.waitstatus_to_exitcode(status)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=1500)
    parser.add_argument("--items", type=int, default=6000)
    parser.add_argument("--missing", type=float, default=0.3)
    args = parser.parse_args()
    audit = [sys.executable, "-m", "benchwatch", "audit", "--json"]
    with tempfile.TemporaryDirectory() as tmp:
        small, large = Path(tmp) / "small.csv", Path(tmp) / "large.csv"
        write_csv(small, 10, 50, 0.0, seed=1)
        print(f"writing {args.models:,} x {args.items:,}, {args.missing:.0%} missing ...", flush=True)
        cells = write_csv(large, args.models, args.items, args.missing)
        peak([*audit, str(small)])  # numba's kernels compiled (or loaded) once, outside the figures
        base_gb, base_s, base_rc = peak([*audit, str(small)])
        gb, seconds, rc = peak([*audit, str(large)])
    if base_rc or rc:
        sys.exit(f"an audit failed (exit {base_rc}, {rc})")
    print(f"baseline, `audit` of 10 x 50: peak {base_gb:.2f} GB ({base_s:.1f} s)")
    print(
        f"`audit` of {args.models:,} x {args.items:,} ({cells:,} cells, {large_size(cells)}): peak {gb:.2f} GB "
        f"({seconds:.0f} s), {gb - base_gb:.2f} GB above the baseline, {gb / base_gb:.1f}x it; target under 1 GB: "
        f"{'met' if gb < 1.0 else 'NOT met'}"
    )


def large_size(cells: int) -> str:
    return f"{cells * 8 / 1024**2:.0f} MB as 8-byte numbers"


if __name__ == "__main__":
    main()
