"""``benchwatch run``: the whole job, from sources to the built site."""

from __future__ import annotations

import argparse
import re
import time
from pathlib import Path
from typing import TYPE_CHECKING

from benchwatch import pipeline, rules, sources, store  # stages: their names load when the command runs
from benchwatch.errors import InputError
from benchwatch.irt import METHODS, SAMPLERS
from benchwatch.sources import DEFAULT_CONFIG
from benchwatch.words import count

if TYPE_CHECKING:
    from benchwatch.rules import RuleBook
    from benchwatch.sources import Fetcher

NOW = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")
SAMPLE_REPORTS = "_sample/reports"
SAMPLE_CACHE = "_sample/cache"
INPUT_REPORTS = "_input/reports"  # your own files: kept apart from the live history in reports/
INPUT_CACHE = "_input/cache"
INPUT_SITE = "_input/site"  # a site of your own files does not replace the sample's in _site


def site_options(parser: argparse.ArgumentParser, configured: str = "") -> None:
    """--site-out, --no-site and --site-url, shared by the commands that build the site."""
    parser.add_argument(
        "--site-out", default=None, help=f"where the built site goes (default: _site; {INPUT_SITE} with run --input)"
    )
    parser.add_argument("--no-site", action="store_true", help="skip building the site")
    parser.add_argument(
        "--site-url",
        default=None,
        metavar="URL",
        help=f"where the site is published (default: {configured}in GitHub Actions the repository's Pages "
        "address; else benchwatch serve's, http://127.0.0.1:8000/)",
    )


def register(parser: argparse.ArgumentParser, scheduled: bool = False) -> None:
    """Add this command's options (``scheduled``: as ``benchwatch schedule`` takes them, without the one-run
    options of a fan-out part and a fixed timestamp)."""
    parser.add_argument(
        "--sample",
        action="store_true",
        help="audit the bundled sample: a snapshot of real leaderboards and the synthetic patterns (no network)",
    )
    parser.add_argument(
        "--input",
        action="append",
        default=[],
        metavar="FILE",
        help="audit a local long-format CSV (benchmark,model,item_id,score[,date,trials]), Inspect logs (.eval, "
        ".json), lm-evaluation-harness samples_*.jsonl, or a folder of logs; repeatable",
    )
    parser.add_argument("--config", default=DEFAULT_CONFIG, help=f"live sources (default: {DEFAULT_CONFIG})")
    parser.add_argument("--sources", default=None, help="limit a live run to these sources (comma-separated)")
    parser.add_argument(
        "--reports",
        default=None,
        help=f"reports folder (default: reports; {SAMPLE_REPORTS} with --sample, {INPUT_REPORTS} with --input)",
    )
    site_options(parser, "[site] url of the configuration; ")
    parser.add_argument("--force", action="store_true", help="refit benchmarks whose data did not change")
    parser.add_argument("--method", choices=METHODS, default="map", help="fitting method (default: map)")
    parser.add_argument(
        "--sampler",
        choices=SAMPLERS,
        default="auto",
        help="NUTS sampler with --method nuts: numpyro or blackjax run through JAX, on a GPU where JAX has one "
        '(pip install ".[jax]"); auto: nutpie where installed, else PyMC\'s own',
    )
    parser.add_argument(
        "--lock-timeout",
        type=float,
        default=600.0,
        metavar="SECONDS",
        help="how long to wait for another run that holds the reports folder (default: 600)",
    )
    parser.add_argument(
        "--deadline",
        type=float,
        default=None,
        metavar="SECONDS",
        help="sources not started this long after the run did fail, keeping their last good data "
        "(default: [http] run_deadline of the configuration, else none)",
    )
    if scheduled:  # every scheduled run writes into the reports at its own time
        parser.set_defaults(reports_out=None, now=None)
    else:
        parser.add_argument(
            "--reports-out",
            default=None,
            metavar="PART",
            help="fan-out: write what these sources produced to the folder PART instead of into the reports "
            "folder (read, not changed), for `benchwatch merge` to combine with the other runners' parts",
        )
        parser.add_argument(
            "--now",
            default=None,
            metavar="YYYY-MM-DDTHH:MM:SSZ",
            help="the run's timestamp in UTC (default: now); the runners of one fan-out share one",
        )
    parser.add_argument(
        "--cache",
        default=None,
        help=f"downloads, pool simulations and source manifests (default: .cache, or {SAMPLE_CACHE} with --sample)",
    )


def _live_sources(args: argparse.Namespace, cache: str) -> tuple[list, Fetcher, RuleBook, float | None, int, str]:
    config = sources.load_config(args.config)  # a missing or malformed file answers before any adapter loads
    book = rules.rules_from_config(config.rules, str(config.path), config.benchmarks)
    chosen = list(config.sources)
    if args.sources:
        chosen = [s.strip() for s in args.sources.split(",") if s.strip()]
        unknown = [s for s in chosen if s not in config.sources]
        if unknown:
            raise InputError(str(config.path), f"no such source(s) {', '.join(unknown)}", field="--sources")
    config.check_adapters(sources.ADAPTERS)
    http = config.http
    deadline = args.deadline if args.deadline is not None else http.get("run_deadline")
    deadline = None if deadline is None else float(deadline)
    fetcher = sources.Fetcher(
        Path(cache),
        connect_timeout=float(http.get("connect_timeout", 10)),
        read_timeout=float(http.get("read_timeout", 60)),
        retries=int(http.get("retries", 3)),
        backoff=float(http.get("backoff", 1.0)),
        max_bytes=int(http.get("max_bytes", 512 * 1024 * 1024)),
        deadline=float(http.get("deadline", sources.DEADLINE)),
        stop_at=None if deadline is None else time.monotonic() + deadline,
    )
    loads = [(name, lambda cfg=config.sources[name]: sources.load_source(fetcher, cfg)) for name in chosen]
    order = list(config.sources)
    position = min((order.index(name) for name in chosen), default=0)  # a part's place in a merge
    return loads, fetcher, book, deadline, position, config.site.get("url")


def handle(args: argparse.Namespace) -> int:
    """Run the job and return the exit status (live: 0 if any source succeeded, 1 if all failed)."""
    local = args.sample or args.input
    reports = args.reports or (SAMPLE_REPORTS if args.sample else INPUT_REPORTS if args.input else "reports")
    cache = args.cache or (SAMPLE_CACHE if args.sample else INPUT_CACHE if args.input else ".cache")
    if getattr(args, "site_out", None) is None:
        args.site_out = INPUT_SITE if args.input and not args.sample else "_site"
    fetcher, book, deadline, position, site_url = None, None, args.deadline, 0, args.site_url
    if args.now is not None and not NOW.fullmatch(args.now):
        raise InputError("--now", f"expected a UTC time like 2026-01-31T06:00:00Z, got {args.now!r}", field="--now")
    if local:
        loads = []
        if args.sample:
            fetcher = sources.Fetcher(Path(cache))
            loads += [
                (cfg.name, lambda cfg=cfg: sources.load_source(fetcher, cfg)) for cfg in sources.snapshot_sources()
            ]
            loads.append(("sample", sources.fetch_sample))
        for path in args.input:  # read and checked before the job's libraries load: a bad file answers at once
            table = sources.read_input(path)
            if len(table.frame) or table.aggregates is None:  # board rows alone (Every Eval Ever) are a board
                store.validate_responses(table.frame, table.location)
            else:
                store.validate_aggregates(table.aggregates, table.location)
            loads.append((Path(path).name, lambda table=table: table))
    else:
        loads, fetcher, book, deadline, position, configured = _live_sources(args, cache)
        site_url = site_url or configured
    from benchwatch.progress import first_run_note

    first_run_note()  # the fits compile their kernels first: a minute with no other line on a busy machine
    try:
        result = pipeline.run_job(
            loads,
            reports_dir=reports,
            site_out=None if args.no_site else args.site_out,
            force=args.force,
            method=args.method,
            sampler=args.sampler,
            cache_dir=cache,
            strict=bool(local),
            rules=book or rules.RuleBook(),
            lock_timeout=args.lock_timeout,
            deadline=deadline,
            now=args.now,
            part_out=args.reports_out,
            position=position,
            site_url=site_url,
        )
    finally:
        if fetcher is not None:
            fetcher.close()
    if args.reports_out:
        print(
            f"done: {count(result.benchmarks, 'benchmark')}, {count(result.new_snapshots, 'new snapshot')}; "
            f"part in {args.reports_out}"
        )
    else:
        print(
            f"done: {count(result.benchmarks, 'benchmark')}, {count(result.new_snapshots, 'new snapshot')}, "
            f"{count(result.alerts, 'alert')}; reports in {reports}"
            + ("" if args.no_site else f", site in {args.site_out}/index.html")
        )
    if result.sources_failed and not result.sources_ok:
        return 1
    return 0
