"""``benchwatch run``: the whole job, from sources to the built site."""

from __future__ import annotations

import argparse

from bot.errors import InputError
from bot.irt import METHODS
from bot.pipeline import run_job
from bot.sources import SourceTable, fetch_csv_file, fetch_sample

HELP = "Run the audit job: fetch, fit, measure, record, alert and build the site."
SAMPLE_REPORTS = "_sample/reports"
SAMPLE_CACHE = "_sample/cache"


def register(parser: argparse.ArgumentParser) -> None:
    """Add this command's options."""
    parser.add_argument("--sample", action="store_true", help="audit the bundled synthetic sample (no network)")
    parser.add_argument(
        "--input",
        action="append",
        default=[],
        metavar="FILE.csv",
        help="audit a local long-format CSV (benchmark,model,item_id,score[,date,trials]); repeatable",
    )
    parser.add_argument(
        "--reports",
        default=None,
        help=f"reports folder (default: reports, or {SAMPLE_REPORTS} with --sample)",
    )
    parser.add_argument("--site-out", default="_site", help="where the built site goes (default: _site)")
    parser.add_argument("--no-site", action="store_true", help="skip building the site")
    parser.add_argument("--force", action="store_true", help="refit benchmarks whose data did not change")
    parser.add_argument("--method", choices=METHODS, default="map", help="fitting method (default: map)")
    parser.add_argument(
        "--cache", default=None, help=f"cache of last good responses (default: .cache, or {SAMPLE_CACHE} with --sample)"
    )


def handle(args: argparse.Namespace) -> int:
    """Run the job and return the exit status."""
    if not args.sample and not args.input:
        raise InputError("benchwatch run", "live sources are not configured yet; use --sample or --input FILE.csv")
    reports = args.reports or (SAMPLE_REPORTS if args.sample else "reports")

    def fetch() -> list[SourceTable]:
        tables = [fetch_sample()] if args.sample else []
        return tables + [fetch_csv_file(path) for path in args.input]

    result = run_job(
        fetch,
        reports_dir=reports,
        site_out=None if args.no_site else args.site_out,
        force=args.force,
        method=args.method,
        cache_dir=args.cache or (SAMPLE_CACHE if args.sample else ".cache"),
    )
    print(
        f"done: {result.benchmarks} benchmarks, {result.new_snapshots} new snapshots, "
        f"{result.alerts} alerts; reports in {reports}"
        + ("" if args.no_site else f", site in {args.site_out}/index.html")
    )
    return 0
