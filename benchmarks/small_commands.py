"""The small commands as a user waits on them (issue 42): ``benchwatch --help``, ``saturation`` of a six-row
leaderboard, ``tiers`` of a 10-model x 50-item CSV and ``check`` of a tiny reports folder, each run through the
console script in a fresh process, against two baselines measured in the same run, round-robin with the
commands: starting Python (``python -c pass``) and starting it and importing pandas (``python -c "import
pandas"``). The figure is the median of five runs; the targets are 0.8 s for ``saturation`` and ``tiers`` (and
0.5 s for ``--help``, as ``startup.py``'s).

The package is timed as ``pip install .`` leaves it: byte-compiled first (``compileall``, a no-op after an
install). The tiny reports folder is one ``run --input`` of the same 10 x 50 CSV (not timed).
Run: ``python benchmarks/small_commands.py [--repeats 5]``.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from sample_run import byte_compile  # (the package byte-compiled as pip leaves it)

TARGETS = {"benchwatch --help": 0.5, "saturation, 6 rows": 0.8, "tiers, 10 x 50": 0.8}

BOARD = "benchmark,model,score,n_items,date\n" + "".join(
    f"MATH-500,m{i},{s},500,2025-01-0{i + 1}\n" for i, s in enumerate([99.2, 99.0, 98.8, 98.4, 98.2, 90])
)


def per_item_csv(path: Path, n_models: int = 10, n_items: int = 50) -> None:
    """Per-item results: each model solves the items up to its own level, with a few exceptions."""
    rows = [
        f"bench,m{m},i{k},{float((k * 7 + m * 3) % 11 < m + 1)}"  # no model alike on every item
        for m in range(n_models)
        for k in range(n_items)
    ]
    path.write_text("benchmark,model,item_id,score\n" + "\n".join(rows) + "\n")


def console_script() -> list[str]:
    """The ``benchwatch`` the user runs: the console script beside this Python, else ``python -m``."""
    script = Path(sys.executable).with_name("benchwatch")
    return [str(script)] if script.is_file() else [sys.executable, "-m", "benchwatch.cli"]


def once(argv: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{argv}: exit {done.returncode}: {done.stderr.strip()[-500:]}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    opts = parser.parse_args()
    byte_compile([sys.executable])
    bw = console_script()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "board.csv").write_text(BOARD)
        per_item_csv(root / "items.csv")
        run = [*bw, "run", "--input", "items.csv", "--reports", "r", "--site-out", "s", "--cache", "c"]
        once(run, root)
        shutil.rmtree(root / "c", ignore_errors=True)
        commands = {
            "python -c pass": [sys.executable, "-c", "pass"],
            'python -c "import pandas"': [sys.executable, "-c", "import pandas"],
            "benchwatch --help": [*bw, "--help"],
            "saturation, 6 rows": [*bw, "saturation", "board.csv", "--percent"],
            "tiers, 10 x 50": [*bw, "tiers", "items.csv"],
            "check, tiny reports": [*bw, "check", "--reports", "r", "--site-out", "s"],
        }
        for argv in commands.values():  # warm the file cache: the first run of each is not counted
            once(argv, root)
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(opts.repeats):  # round-robin: a busy moment weighs on every command alike
            for name, argv in commands.items():
                times[name].append(once(argv, root))
    median = {name: statistics.median(t) for name, t in times.items()}
    bare, pandas = median["python -c pass"], median['python -c "import pandas"']
    print(f"median of {opts.repeats} fresh processes ({' '.join(bw)})")
    print(f"{'what':<28} {'seconds':>8} {'- python -c pass':>17} {'/ import pandas':>16}  target")
    for name, seconds in median.items():
        target = TARGETS.get(name)
        verdict = "" if target is None else f"{target} s" + ("" if seconds < target else "  OVER")
        print(f"{name:<28} {seconds:>8.3f} {seconds - bare:>17.3f} {seconds / pandas:>16.2f}  {verdict}")


if __name__ == "__main__":
    main()
