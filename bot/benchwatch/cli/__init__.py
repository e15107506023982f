"""The ``benchwatch`` command group: one module per command, each a thin layer over the Python API."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from collections.abc import Sequence

from benchwatch.errors import BusyError, InputError

__all__ = ["COMMANDS", "build_parser", "main"]

COMMANDS = {  # name -> its one line of help; a command's module is imported only when it runs
    "run": "Run the audit job: fetch, fit, measure, record, alert and build the site.",
    "audit": "Audit a CSV of per-item responses (or of item difficulties z) and print coverage and saturation.",
    "calibrate": "Calibrate new items (with --abilities model,theta) or new models (with --difficulties item_id,b).",
    "saturation": "Saturation index of aggregate leaderboards (benchmark,model,score,n_items[,date]).",
    "tiers": "Who can be told apart: tiers of tied models and rank intervals, from per-item results or a leaderboard.",
    "schedule": "Run the job on a schedule (APScheduler, cron in UTC); --once runs it once through the scheduler.",
    "check": "Check the reports folder: every file readable, the files consistent with each other, the site in place.",
    "merge": "Merge the parts of a fan-out (run --reports-out on several runners) into reports/, then build the site.",
    "repair": "Repair the reports folder from its other files (each replaced file backed up), then check it again.",
    "fill": "Close a benchmark's gaps: plan new items, check candidates on its scale, or generate candidates.",
    "serve": "Serve the built site on this machine (http://127.0.0.1:8000/), as it will look once published.",
}


def _module(name: str):
    return importlib.import_module(f"benchwatch.cli.{name}")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The argument parser with every command registered (or, with ``only``, that command's options alone)."""
    parser = argparse.ArgumentParser(
        prog="benchwatch",
        description="Audit public AI benchmarks: difficulty coverage and saturation, over time.",
    )
    from benchwatch import __version__

    parser.add_argument("--version", action="version", version=f"benchwatch {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, text in COMMANDS.items():
        command = sub.add_parser(name, help=text, description=text)
        if only is None or name == only:
            _module(name).register(command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit status. A reader that stops reading what a command
    prints (``benchwatch tiers x.csv | head -1``) ends it quietly, with status 0."""
    try:
        try:
            return _command(argv)
        finally:
            sys.stdout.flush()  # a reader gone is met here, not at the interpreter's exit (a traceback there)
    except BrokenPipeError:
        # what is left unwritten goes nowhere: the interpreter's last flush must not fail again (a stand-in for
        # standard output, a test's capture, has no descriptor)
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _command(argv: Sequence[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    chosen = next((a for a in argv if not a.startswith("-")), None)
    args = build_parser(only=chosen if chosen in COMMANDS else "").parse_args(argv)
    try:
        return _module(args.command).handle(args)
    except BrokenPipeError:  # the reader of standard output is gone: ``main`` ends quietly
        raise
    except InputError as exc:
        print(f"benchwatch: error: {exc}", file=sys.stderr)
        return 2
    except BusyError as exc:
        print(f"benchwatch: busy: {exc}", file=sys.stderr)
        return 3
    except OSError as exc:  # a full disk, a read-only folder, a missing file: the path and the cause
        print(f"benchwatch: error: {describe_os_error(exc)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("benchwatch: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # a fault benchwatch did not foresee: one line, the traceback only when asked
        if os.environ.get("BENCHWATCH_TRACEBACK"):
            raise
        text = " ".join(str(exc).split()) or "no message"
        print(
            f"benchwatch: error: {type(exc).__name__}: {text} (an unforeseen fault, please report it; "
            "BENCHWATCH_TRACEBACK=1 shows where it happened)",
            file=sys.stderr,
        )
        return 2


def describe_os_error(exc: OSError) -> str:
    """One line naming the path and the cause of an operating-system error."""
    cause = exc.strerror or str(exc) or type(exc).__name__
    paths = [str(p) for p in (exc.filename, exc.filename2) if p is not None]
    return f"{' -> '.join(paths)}: {cause}" if paths else f"{type(exc).__name__}: {cause}"
