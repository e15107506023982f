"""The real atlas: the shipped benchwatch.toml run fresh over 127.0.0.1 on every real copy in ../shared/upstream,
timed, and a table of its per-item benchmarks (issue 64): models, items, the spread s of log discrimination, the
cells' intra-cell correlation rho and the floor's share f with their intervals, the bounds, their verdicts and
the flags; and how many publish a detection limit, a top-5 bound and DDM bounds.

Run: ``python benchmarks/real_atlas.py [--json out.json] [--baseline REV] [--no-site] [--sources A,B]``.
``--baseline REV`` also runs the code of git revision REV (``git archive`` into a temporary folder, a process of its
own) on the same copies in the same run, first, and prints both times and the ratio (issue 64's speed target:
within 1.5x); ``--sources`` limits both runs to the sources REV knows (a source it lacks would fail there, its time
not counted).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the tests' loopback server and the shipped configuration's rewrite

from tests.conftest import SHARED  # noqa: E402
from tests.sources.shipped import served_root, shipped_config_on  # noqa: E402
from tests.sources.upstream_server import Upstream  # noqa: E402


def fresh_run(code: Path, server, folder: Path, site: bool, sources: str | None = None) -> tuple[float, list[dict]]:
    """One fresh run of the shipped configuration by the package under ``code`` (its bot/), and its records
    (``sources``: only these, comma-separated)."""
    config = shipped_config_on(server, folder)
    if sources:
        _only(Path(config), set(sources.split(",")))
    argv = [sys.executable, "-m", "benchwatch.cli", "run", "--config", config, "--reports", str(folder / "r")]
    argv += ["--cache", str(folder / "c")]
    argv += ["--site-out", str(folder / "_site")] if site else ["--no-site"]
    env = {**os.environ, "PYTHONPATH": str(code / "bot")}
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=False, env=env, cwd=code)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(done.stderr[-4000:] or done.stdout[-4000:])
    (folder / "run.log").write_text(done.stdout + done.stderr)
    if os.environ.get("REAL_ATLAS_LOG"):  # the run's own log, for a look at where its time went
        Path(os.environ["REAL_ATLAS_LOG"]).write_text(done.stdout + done.stderr)
    if os.environ.get("REAL_ATLAS_KEEP"):  # the reports, kept for a closer look
        shutil.copytree(folder / "r", Path(os.environ["REAL_ATLAS_KEEP"]) / folder.name, dirs_exist_ok=True)
    latest = json.loads((folder / "r" / "latest.json").read_text())
    records = latest["benchmarks"] if isinstance(latest, dict) and "benchmarks" in latest else latest
    if isinstance(records, dict):
        records = [{"benchmark": k, **v} for k, v in records.items()]
    return seconds, records


def _only(config: Path, keep: set[str]) -> None:
    """The configuration without the sources not in ``keep`` (their tables and subtables): an older revision
    refuses an adapter it does not know."""
    out, skipping = [], False
    for line in config.read_text(encoding="utf-8").splitlines():
        header = re.match(r"^\[\[?sources\.([A-Za-z0-9_-]+)", line)
        if line.startswith("["):
            skipping = header is not None and header.group(1) not in keep
        if not skipping:
            out.append(line)
    config.write_text("\n".join(out) + "\n", encoding="utf-8")


def _interval(rec: dict, key: str) -> str:
    value, lo, hi = rec.get(key), rec.get(f"{key}_lo"), rec.get(f"{key}_hi")
    if value is None:
        return "–"
    return f"{value:.2f} [{lo:.2f}, {hi:.2f}]" if lo is not None and hi is not None else f"{value:.2f}"


def _num(value, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def table(records: list[dict]) -> str:
    rows = [r for r in records if r.get("kind") == "per-item" or r.get("item_model") is not None]
    lines = [
        "| Benchmark | Models | Items | Path | s | rho | f | Detection limit | Top-5 bound | DDM bounds | Max Gap "
        "| Top-5 | DDM | Flags |",
        "|---|---:|---:|---|---|---|---|---:|---:|---|---|---|---|---|",
    ]
    for r in sorted(rows, key=lambda r: str(r.get("benchmark"))):
        verdicts = r.get("verdicts") or {}

        def verdict(key: str, verdicts: dict = verdicts) -> str:
            v = verdicts.get(key)
            return v.get("verdict", "–") if isinstance(v, dict) else (v or "–")

        ddm = "–" if r.get("ddm_bound_lo") is None else f"{r['ddm_bound_lo']:.3f}-{r['ddm_bound_hi']:.3f}"
        lines.append(
            f"| {r.get('benchmark')} | {r.get('n_models', '–')} | {r.get('n_items', '–')} | {r.get('item_model')} "
            f"| {_interval(r, 'discrimination_spread')} | {_interval(r, 'sample_correlation')} "
            f"| {_interval(r, 'floor_share')} "
            f"| {_num(r.get('detection_limit'))} | {_num(r.get('top5_gap_sum_bound_hi'))} | {ddm} "
            f"| {verdict('max_gap')} | {verdict('top5_gap_sum')} | {verdict('ddm')} "
            f"| {', '.join(r.get('flags') or []) or '–'} |"
        )
    published = [r for r in rows if r.get("detection_limit") is not None and r.get("ddm_bound_lo") is not None]
    lines.append("")
    lines.append(f"{len(published)} of {len(rows)} per-item benchmarks publish a detection limit and DDM bounds")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", default=None, help="write the per-item records here")
    parser.add_argument("--baseline", default=None, help="a git revision to time in the same run (first)")
    parser.add_argument("--no-site", action="store_true", help="the run without its site")
    parser.add_argument(
        "--sources", default=None, help="only these sources, comma-separated (those a --baseline revision reads)"
    )
    args = parser.parse_args()
    if not (SHARED / "upstream").is_dir():
        raise SystemExit("../shared/upstream is not here: it exists in CI and on the developers' machines only")
    with tempfile.TemporaryDirectory() as tmp, Upstream(served_root(SHARED / "upstream", Path(tmp) / "up")) as server:
        base_seconds = None
        if args.baseline:
            code = Path(tmp) / "baseline"
            code.mkdir()
            archive = subprocess.run(["git", "archive", args.baseline], cwd=ROOT, capture_output=True, check=True)
            subprocess.run(["tar", "-x", "-C", str(code)], input=archive.stdout, check=True)
            (Path(tmp) / "b").mkdir()
            base_seconds, _ = fresh_run(code, server, Path(tmp) / "b", not args.no_site, args.sources)
        (Path(tmp) / "h").mkdir()
        seconds, records = fresh_run(ROOT, server, Path(tmp) / "h", not args.no_site, args.sources)
    print(table(records))
    print(f"\nfresh run{'' if not args.no_site else ' (no site)'}: {seconds:.1f} s")
    if base_seconds is not None:
        print(f"baseline {args.baseline}: {base_seconds:.1f} s; ratio {seconds / base_seconds:.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps(records, indent=1, default=str))


if __name__ == "__main__":
    main()
