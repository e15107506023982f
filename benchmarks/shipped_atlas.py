"""The shipped configuration on every real copy, as anyone with ../shared/upstream can repeat it (issue 59).

``benchwatch.toml`` as shipped, each source that has a real copy in ``../shared/upstream`` pointed at it on a
127.0.0.1 server (zips of many files served extracted; the mapping is the suite's, ``tests/sources/shipped.py``), run
fresh into ``--reports`` (and its site into ``--site-out``), then once more unchanged; both timed. Prints, per source:
its benchmarks, how many per item, whether it failed and its seconds (the run log's), then the totals and both
times (issue 59's targets: at least 150 benchmarks, 60 per item, no source failing; the fresh run with its site
under 60 s, the unchanged rerun under 2 s).

Run: ``python benchmarks/shipped_atlas.py --reports DIR [--site-out DIR]`` (DIR must be new or empty).
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the suite's loopback server and the shipped configuration's rewrite

from tests.conftest import SHARED  # noqa: E402
from tests.sources.shipped import served_root, shipped_config_on  # noqa: E402
from tests.sources.upstream_server import Upstream  # noqa: E402

SECONDS = re.compile(r"^source\s+(\d+\.\d+)s\s+([^:\s]+):", re.MULTILINE)


def run(config: str, reports: Path, cache: Path, site: Path | None) -> tuple[float, str]:
    """One run of the package in this checkout: its seconds and its log."""
    argv = [sys.executable, "-m", "benchwatch.cli", "run", "--config", config, "--reports", str(reports)]
    argv += ["--cache", str(cache), *(["--site-out", str(site)] if site else ["--no-site"])]
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=False, cwd=ROOT, env=_env())
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(done.stderr[-4000:] or done.stdout[-4000:])
    return seconds, done.stdout + done.stderr


def _env() -> dict:
    import os

    return {**os.environ, "PYTHONPATH": str(ROOT / "bot")}


def per_source(reports: Path, log: str) -> list[tuple[str, int, int, str, float | None]]:
    """(source, benchmarks, per item, status, seconds) for every source of the run, in name order."""
    statuses = json.loads((reports / "sources.json").read_text())["sources"]
    latest = json.loads((reports / "latest.json").read_text())["benchmarks"]
    seconds = {name: float(s) for s, name in SECONDS.findall(log)}
    out = []
    for name in sorted(statuses):
        mine = [r for r in latest if r.get("source_name") == name and not r.get("gone_since")]
        items = sum(r.get("kind") != "aggregate" for r in mine)
        out.append((name, len(mine), items, statuses[name].get("status", "?"), seconds.get(name)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reports", required=True, type=Path, help="the run's reports (a new or empty folder)")
    parser.add_argument("--site-out", type=Path, default=None, help="build the site here too")
    parser.add_argument("--log", type=Path, default=None, help="write the fresh run's log here (each audit's seconds)")
    args = parser.parse_args()
    if not (SHARED / "upstream").is_dir():
        raise SystemExit("../shared/upstream is not here: it exists in CI and on the developers' machines only")
    if args.reports.exists() and any(args.reports.iterdir()):
        raise SystemExit(f"{args.reports} is not empty: the fresh run needs a new folder")
    with tempfile.TemporaryDirectory() as tmp, Upstream(served_root(SHARED / "upstream", Path(tmp) / "up")) as server:
        config = shipped_config_on(server, Path(tmp))
        fresh, log = run(config, args.reports, Path(tmp) / "cache", args.site_out)
        again, _ = run(config, args.reports, Path(tmp) / "cache", args.site_out)
    if args.log:
        args.log.write_text(log)
    rows = per_source(args.reports, log)
    print("| source | benchmarks | per item | status | seconds |\n|---|---:|---:|---|---:|")
    for name, total, items, status, seconds in rows:
        print(f"| {name} | {total} | {items} | {status} | {'–' if seconds is None else f'{seconds:.1f}'} |")
    failed = [row[0] for row in rows if row[3] != "ok"]
    print(
        f"\n{sum(r[1] for r in rows)} benchmarks, {sum(r[2] for r in rows)} per item, "
        f"{len(failed)} source(s) failing{': ' + ', '.join(failed) if failed else ''}"
    )
    site = " with its site" if args.site_out else ""
    print(f"fresh run{site}: {fresh:.1f} s; unchanged rerun{site}: {again:.1f} s")


if __name__ == "__main__":
    main()
