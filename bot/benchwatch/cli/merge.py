"""``benchwatch merge``: combine the parts of a fan-out into the reports folder, then build the site."""

from __future__ import annotations

import argparse

import benchwatch
from benchwatch.cli.run import site_options
from benchwatch.words import count


def register(parser: argparse.ArgumentParser) -> None:
    """Add this command's options."""
    parser.add_argument("parts", nargs="+", metavar="PART", help="folders written by `benchwatch run --reports-out`")
    parser.add_argument("--reports", default="reports", help="the reports folder to merge into (default: reports)")
    site_options(parser)
    parser.add_argument(
        "--lock-timeout",
        type=float,
        default=600.0,
        metavar="SECONDS",
        help="how long to wait for another run that holds the reports folder (default: 600)",
    )


def handle(args: argparse.Namespace) -> int:
    """Merge and build; exit 1 when every source of every part failed, as `run` does."""
    args.site_out = args.site_out or "_site"
    result = benchwatch.merge(
        args.parts,
        reports=args.reports,
        site_out=args.site_out,
        site=not args.no_site,
        site_url=args.site_url,
        lock_timeout=args.lock_timeout,
        progress=True,
    )
    print(
        f"done: {count(len(args.parts), 'part')}, {count(result.benchmarks, 'benchmark')}, "
        f"{count(result.new_snapshots, 'new snapshot')}, {count(result.alerts, 'alert')}; reports in {args.reports}"
        + ("" if args.no_site else f", site in {args.site_out}/index.html")
    )
    return 1 if result.sources_failed and not result.sources_ok else 0
