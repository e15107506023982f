"""An unchanged day: a live run of the shipped benchwatch.toml over 127.0.0.1, every source answering 304,
timed against the baseline of ``python -c "import httpx"`` measured in the same run (the ratio is the figure).

The upstream is ../shared/upstream (the real files, served by the tests' loopback server); the first run
fills reports/ and the cache, then the unchanged runs are timed, with and without the site. The package is
byte-compiled first, as ``pip install .`` leaves it (``sample_run.byte_compile``). Targets (issue 42): the first run
under 30 s, the unchanged run under 2 s.
Run: python benchmarks/unchanged_run.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bot"))
sys.path.insert(0, str(ROOT))  # the tests' loopback server and the shipped configuration's rewrite

from tests.conftest import SHARED  # noqa: E402
from tests.sources.shipped import served_root, shipped_config_on  # noqa: E402
from tests.sources.upstream_server import Upstream  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
from sample_run import byte_compile  # noqa: E402 (the package byte-compiled, as pip install . leaves it)


def timed(argv: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(done.stderr or done.stdout)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    if not (SHARED / "upstream").is_dir():
        raise SystemExit("../shared/upstream is not here: it exists in CI and on the developers' machines only")
    byte_compile([sys.executable])  # (an editable install under PYTHONDONTWRITEBYTECODE=1 compiles every run)
    with tempfile.TemporaryDirectory() as tmp, Upstream(served_root(SHARED / "upstream", Path(tmp) / "up")) as server:
        folder = Path(tmp)
        config = shipped_config_on(server, folder)
        run = [sys.executable, "-m", "benchwatch.cli", "run", "--config", config, "--reports", str(folder / "r")]
        run += ["--cache", str(folder / "c")]
        print("first run (fills reports/ and the cache) ...", flush=True)
        first = timed([*run, "--site-out", str(folder / "_site")])
        baseline = statistics.median(timed([sys.executable, "-c", "import httpx"]) for _ in range(5))
        no_site = statistics.median(timed([*run, "--no-site"]) for _ in range(args.repeats))
        site = statistics.median(timed([*run, "--site-out", str(folder / "_site")]) for _ in range(args.repeats))
    print(f"{'what':<40} {'seconds':>8} {'/ import httpx':>15}")
    rows = [
        ("python -c 'import httpx'", baseline),
        ("first run, with the site", first),
        ("unchanged run, no site", no_site),
        ("unchanged run, with the site", site),
    ]
    for what, seconds in rows:
        print(f"{what:<40} {seconds:>8.2f} {seconds / baseline:>15.1f}")


if __name__ == "__main__":
    main()
