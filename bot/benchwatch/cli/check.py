"""``benchwatch check``: verify a reports folder (and the built site) file by file and as a whole."""

from __future__ import annotations

import argparse
from pathlib import Path

from benchwatch import history  # its names load when the command runs
from benchwatch.errors import InputError
from benchwatch.sources import DEFAULT_CONFIG
from benchwatch.words import count

# Where each kind of run writes its reports and its site (see ``benchwatch run``): without --reports, check
# looks at the live reports/ when it holds a run, else at the folder of the most recent sample or input run.
RUN_FOLDERS = (("reports", "_site"), ("_sample/reports", "_site"), ("_input/reports", "_input/site"))
ADVICE = "; run `benchwatch check` for every problem, `benchwatch repair` to fix"  # a reader's advice, not check's


def register(parser: argparse.ArgumentParser) -> None:
    """Add this command's options."""
    parser.add_argument(
        "--reports",
        default=None,
        help="the reports folder (default: reports when it holds a run, else the folder of the last "
        "`run --sample` or `run --input`)",
    )
    parser.add_argument("--site-out", default=None, help="the built site to check (default: that run's site)")
    parser.add_argument(
        "--config",
        default=None,
        help=f"the configuration to check first: its sources' adapters and options (default: {DEFAULT_CONFIG} "
        "when there is one)",
    )


def holds_run(folder: str | Path) -> bool:
    """Whether a folder holds anything a run writes (the committed reports/ holds only its .gitignore)."""
    folder = Path(folder)
    return folder.is_dir() and any(not p.name.startswith(".") or p.name == ".staging" for p in folder.iterdir())


def last_run() -> tuple[str, str] | None:
    """The reports folder and site of the most recent run in this checkout (the live reports/ first)."""
    if holds_run(RUN_FOLDERS[0][0]):
        return RUN_FOLDERS[0]
    found = [pair for pair in RUN_FOLDERS[1:] if holds_run(pair[0])]
    if not found:
        return None
    reports = [history.Reports(Path(pair[0])) for pair in found]
    stamps = [max((p.stat().st_mtime for p in (r.latest, r.runs) if p.exists()), default=0.0) for r in reports]
    return found[stamps.index(max(stamps))]


def handle(args: argparse.Namespace) -> int:
    """Print each problem on one line; exit 1 if there is any, 0 otherwise (2: no such folder, or no run, or
    a configuration with an unknown adapter or an unknown or mistyped option: one line, before the reports)."""
    if args.config is not None or Path(DEFAULT_CONFIG).is_file():
        from benchwatch.sources import CATALOG, load_config  # the adapters load only when there is a configuration

        load_config(args.config or DEFAULT_CONFIG).check_adapters(CATALOG)
    if args.reports is None:
        chosen = last_run()
        if chosen is None:
            raise InputError(
                "reports",
                "holds no run yet, and neither does _sample/reports or _input/reports: run `benchwatch run "
                "--sample` (or `benchwatch run`) first, or name the folder with --reports",
            )
        args.reports = chosen[0]
        args.site_out = args.site_out or chosen[1]
        if chosen[0] != "reports":
            print(f"checking {chosen[0]}, the last run's reports (reports/ holds no run yet)")
    args.site_out = args.site_out or "_site"
    if not Path(args.reports).is_dir():  # nothing to check or repair: a mistyped path, not a damaged folder
        raise InputError("--reports", "no such reports folder (nothing to check)", value=args.reports)
    if not holds_run(args.reports):
        raise InputError(args.reports, "the folder holds no run yet: nothing to check (run `benchwatch run` first)")
    problems = history.check_reports(args.reports, args.site_out)
    for line in problems:
        print(line.replace(ADVICE, ""))
    print(f"{count(len(problems), 'problem')} in {args.reports}" + (": run `benchwatch repair`" if problems else ""))
    return 1 if problems else 0
