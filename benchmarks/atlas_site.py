"""The site at atlas scale (issue 42): ``build_site`` on a simulated reports folder of 150 benchmarks, timed
as its two parts, the page writing (``write_pages``: Markdown, SVG plots, feeds, downloads) and MkDocs' build of
the written pages (Material, the search index, Markdown of the tables), each per page, plus an unchanged rebuild
(same reports, same day: it must build nothing). The baseline, measured in the same run: MkDocs building the
shipped project (its mkdocs.yml, theme and plugins) with 150 trivial pages, the floor of MkDocs' cost at that
size; the ratios to it are the figures. The target: the whole site stage under 10 s for 150 benchmarks.

The atlas is the bundled sample (``benchwatch run --sample --no-site``, not timed: 15 benchmarks, aggregate
boards and per-item fits, 1,055 items the largest) copied ten times under new names, each copy with its own
records, history rows, alerts and per-benchmark tables, so 150 benchmark pages with their plots and feeds.
Run: ``python benchmarks/atlas_site.py [--copies 10] [--repeats 1] [--profile N]`` (``--profile``: print the N
costliest functions of one full build by cumulative time). The pages are written in worker processes from
``PARALLEL_FROM`` pages on, and their plots, downloads and bundle by a process of their own straight into the built
site while MkDocs builds (``deferred``: ``benchwatch.site.assets_beside``), whose Markdown a forked process renders
in part (``benchwatch.site.render_beside``), as ``build_site`` does there: the run also times ``write_pages`` in one
process writing everything, as before those changes.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bot"))

import benchwatch.site.pages as site_pages  # noqa: E402
from benchwatch.history import Reports  # noqa: E402
from benchwatch.site.build import build_site, find_site_project, write_pages  # noqa: E402

TARGET = 10.0  # seconds for the site stage of 150 benchmarks
NOW = "2026-12-01T00:00:00Z"


def sample_reports(folder: Path) -> Path:
    """The bundled sample's reports (no site), written once by the real pipeline."""
    reports = folder / "sample"
    argv = [sys.executable, "-m", "benchwatch.cli", "run", "--sample", "--no-site", "--now", NOW]
    argv += ["--reports", str(reports), "--cache", str(folder / "cache")]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(done.stderr or done.stdout)
    return reports


def atlas(sample: Path, out: Path, copies: int) -> int:
    """``copies`` renamed copies of every benchmark of ``sample`` in one reports folder; the number of benchmarks."""
    src, dst = Reports(sample), Reports(out)
    out.mkdir(parents=True)
    latest = json.loads(src.latest.read_text(encoding="utf-8"))
    alerts = json.loads(src.alerts.read_text(encoding="utf-8"))
    history = src.history.read_text(encoding="utf-8").splitlines()
    names = [rec["benchmark"] for rec in latest["benchmarks"]]

    def renamed(name: str, k: int) -> str:
        return name if k == 0 else f"{name} copy {k}"

    records, raised, rows = [], [], [history[0]]
    for k in range(copies):
        for rec in latest["benchmarks"]:
            rec = dict(rec, benchmark=renamed(rec["benchmark"], k))
            if rec.get("page"):
                rec["page"] = renamed(rec["page"], k)
            records.append(rec)
        for alert in alerts["alerts"]:
            raised.append(dict(alert, benchmark=renamed(alert["benchmark"], k), id=f"{alert['id']}/{k}"))
        for line in history[1:]:  # snapshot_at,benchmark,...: no benchmark name holds a comma
            at, name, rest = line.split(",", 2)
            rows.append(f"{at},{renamed(name, k)},{rest}")
        for name in names:
            for table in ("items", "models", "by_date"):
                path = getattr(src, table)(name)
                if path.is_file():
                    target = getattr(dst, table)(renamed(name, k))
                    target.parent.mkdir(exist_ok=True)
                    shutil.copyfile(path, target)
    dst.latest.write_text(json.dumps(dict(latest, benchmarks=records)), encoding="utf-8")
    dst.alerts.write_text(json.dumps(dict(alerts, alerts=raised)), encoding="utf-8")
    dst.history.write_text("\n".join(rows) + "\n", encoding="utf-8")
    for extra in (src.sources, src.changelog):
        if extra.is_file():
            shutil.copyfile(extra, out / extra.name)
    return len(records)


def bare_mkdocs(folder: Path, pages: int) -> float:
    """Seconds MkDocs takes to build the shipped project with ``pages`` trivial benchmark pages."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    project = find_site_project()
    docs = folder / "bare-docs"
    shutil.copytree(project / "docs", docs)
    (docs / "benchmarks").mkdir()
    (docs / "index.md").write_text("# Home\n", encoding="utf-8")
    (docs / "alerts.md").write_text("# Alerts\n", encoding="utf-8")
    for k in range(pages):
        (docs / "benchmarks" / f"b{k}.md").write_text(f"# Benchmark {k}\n\nA paragraph.\n", encoding="utf-8")
    nav = [
        {"Home": "index.md"},
        {"Benchmarks": [{f"Benchmark {k}": f"benchmarks/b{k}.md"} for k in range(pages)]},
        {"Alerts": "alerts.md"},
        {"Methodology": "methodology.md"},
        {"Reading the data": "data.md"},
        {"About": "about.md"},
    ]
    config = load_config(
        config_file=str(project / "mkdocs.yml"), docs_dir=str(docs), site_dir=str(folder / "bare-site"), nav=nav
    )
    start = time.perf_counter()
    config.plugins.on_startup(command="build", dirty=False)
    try:
        build(config)
    finally:
        config.plugins.on_shutdown()
    return time.perf_counter() - start


def timed(work: Callable[[], object]) -> float:
    start = time.perf_counter()
    work()
    return time.perf_counter() - start


def cpu_timed(work: Callable[[], object]) -> tuple[float, float]:
    """Wall seconds and CPU seconds of this process and the worker processes it forked and reaped meanwhile (the
    CPU figure moves less than the wall clock on a shared machine)."""
    before = os.times()
    seconds = timed(work)
    after = os.times()
    return seconds, sum(after[:4]) - sum(before[:4])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--profile", type=int, default=0, metavar="N")
    args = parser.parse_args()
    import logging

    logging.getLogger("mkdocs").setLevel(logging.ERROR)  # the bare pages link to no feed
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print("the sample's reports (not timed) ...", flush=True)
        reports = folder / "atlas"
        n = atlas(sample_reports(folder), reports, args.copies)
        project = find_site_project()
        writes: list[float] = []
        serial: list[float] = []
        builds: list[float] = []
        unchanged: list[float] = []
        cpus: list[float] = []
        parallel_from = site_pages.PARALLEL_FROM
        for k in range(args.repeats):
            for times, workers in ((serial, False), (writes, True)):
                docs = folder / f"docs{k}-{workers}"
                shutil.copytree(project / "docs", docs)
                site_pages.PARALLEL_FROM = parallel_from if workers else 10**9
                deferred = workers and site_pages.page_workers(n) > 0
                write = partial(write_pages, Reports(reports), docs, "http://127.0.0.1:8000/", NOW, deferred=deferred)
                times.append(timed(write))
            site_pages.PARALLEL_FROM = parallel_from
            site = folder / f"site{k}"
            wall, cpu = cpu_timed(partial(build_site, reports, site, now=NOW))
            builds.append(wall)
            cpus.append(cpu)
            unchanged.append(timed(partial(build_site, reports, site, now=NOW)))
        pages = len(list((folder / "site0" / "benchmarks").glob("*/index.html")))
        baseline = bare_mkdocs(folder, pages)
        if args.profile:
            profile = cProfile.Profile()
            profile.runcall(build_site, reports, folder / "profiled", now=NOW)
            pstats.Stats(profile).sort_stats("cumulative").print_stats(args.profile)
    write, one, whole, same = (statistics.median(x) for x in (writes, serial, builds, unchanged))
    print(f"{n} benchmarks, {pages} benchmark pages")
    print(f"{'what':<44} {'seconds':>8} {'ms / page':>10} {'/ bare MkDocs':>14}")
    rows = [
        (f"baseline: MkDocs, {pages} trivial pages", baseline),
        ("site stage (build_site), first build", whole),
        ("  of it: writing the pages (write_pages)", write),
        ("    (write_pages in one process, all of it)", one),
        ("  of it: the rest (MkDocs, assets beside it)", whole - write),
        ("unchanged rebuild (same reports, same day)", same),
    ]
    for what, seconds in rows:
        print(f"{what:<44} {seconds:>8.2f} {1000 * seconds / pages:>10.1f} {seconds / baseline:>14.2f}")
    cpu = statistics.median(cpus)
    print(f"site stage's CPU, every process: {cpu:.2f} s over {whole:.2f} s ({cpu / whole:.2f} cores busy)")
    workers = min(site_pages.threads.CORES, site_pages.MAX_WORKERS)
    print(f"page writing: {one / write:.2f}x faster ({workers} workers, the assets left to the process beside MkDocs)")
    if pages >= 150:
        verdict = "met" if whole < TARGET else "NOT met"
        print(f"target: the site stage under {TARGET:.0f} s for 150 benchmarks: {verdict}")
    else:  # a smaller atlas says nothing of the target
        print(f"target: the site stage under {TARGET:.0f} s for 150 benchmarks (not judged at {pages} pages)")


if __name__ == "__main__":
    main()
