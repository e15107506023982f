"""``benchwatch run``: the whole job, from sources to the built site."""

from __future__ import annotations

import argparse
import sys

from benchwatch import api
from benchwatch.api import INPUT_REPORTS, INPUT_SITE, SAMPLE_CACHE, SAMPLE_REPORTS
from benchwatch.irt import METHODS, SAMPLERS
from benchwatch.sources import DEFAULT_CONFIG
from benchwatch.words import count


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


def handle(args: argparse.Namespace) -> int:
    """Run the job and return the exit status (live: 0 if any source succeeded, 1 if all failed)."""
    options = {"sample": args.sample, "inputs": args.input, "reports": args.reports, "cache": args.cache}
    reports, _, site_out = api.run_folders(**options, site_out=getattr(args, "site_out", None))
    result = api.run(
        args.config,
        **options,
        sources=args.sources,
        site_out=site_out,
        site=not args.no_site,
        site_url=args.site_url,
        force=args.force,
        method=args.method,
        sampler=args.sampler,
        lock_timeout=args.lock_timeout,
        deadline=args.deadline,
        now=args.now,
        reports_out=args.reports_out,
        progress=True,
    )
    if args.reports_out:
        print(
            f"done: {count(result.benchmarks, 'benchmark')}, {count(result.new_snapshots, 'new snapshot')}; "
            f"part in {args.reports_out}"
        )
    else:
        print(
            f"done: {count(result.benchmarks, 'benchmark')}, {count(result.new_snapshots, 'new snapshot')}, "
            f"{count(result.alerts, 'alert')}; reports in {reports}"
            + ("" if args.no_site else f", site in {site_out}/index.html")
        )
    if result.sources_failed and not result.sources_ok:
        if result.unreached >= result.sources_failed:
            print(
                f"benchwatch: no source could be reached: check the network ({count(result.unreached, 'source')} "
                "could not be connected to; each one's failure is above)",
                file=sys.stderr,
            )
        return 1
    return 0
