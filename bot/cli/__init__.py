"""The ``benchwatch`` command group: one module per command, each a thin layer over the Python API."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from bot.cli import audit as audit_command
from bot.cli import calibrate as calibrate_command
from bot.cli import check as check_command
from bot.cli import repair as repair_command
from bot.cli import run as run_command
from bot.cli import saturation as saturation_command
from bot.cli import schedule as schedule_command
from bot.errors import InputError
from bot.pipeline import BusyError

__all__ = ["COMMANDS", "build_parser", "main"]

COMMANDS = {
    "run": run_command,
    "audit": audit_command,
    "calibrate": calibrate_command,
    "saturation": saturation_command,
    "schedule": schedule_command,
    "check": check_command,
    "repair": repair_command,
}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every command registered."""
    parser = argparse.ArgumentParser(
        prog="benchwatch",
        description="Audit public AI benchmarks: difficulty coverage and saturation, over time.",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, module in COMMANDS.items():
        module.register(sub.add_parser(name, help=module.HELP, description=module.HELP))
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command].handle(args)
    except InputError as exc:
        print(f"benchwatch: error: {exc}", file=sys.stderr)
        return 2
    except BusyError as exc:
        print(f"benchwatch: busy: {exc}", file=sys.stderr)
        return 3
    except OSError as exc:  # a full disk, a read-only folder, a missing file: the path and the cause
        print(f"benchwatch: error: {describe_os_error(exc)}", file=sys.stderr)
        return 2


def describe_os_error(exc: OSError) -> str:
    """One line naming the path and the cause of an operating-system error."""
    cause = exc.strerror or str(exc) or type(exc).__name__
    paths = [str(p) for p in (exc.filename, exc.filename2) if p is not None]
    return f"{' -> '.join(paths)}: {cause}" if paths else f"{type(exc).__name__}: {cause}"
