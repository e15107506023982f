"""The upkeep of a reports folder, as ``benchwatch check`` and ``benchwatch repair`` do it: every file checked, alone
and against the others (and the built site), and what can be rebuilt from the other files rebuilt.

Only the standard library loads with this module; the stages load when a function runs, and ``check`` never loads
the audit's pipeline.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from benchwatch import history, site, sources
from benchwatch.errors import InputError
from benchwatch.sources import DEFAULT_CONFIG

__all__ = ["DEFAULT_CONFIG", "RUN_FOLDERS", "Repair", "ReportsCheck", "check", "holds_run", "last_run", "repair"]

# Where each kind of run writes its reports and its site (see ``benchwatch run``): without a folder, check looks at
# the live reports/ when it holds a run, else at the folder of the most recent sample or input run.
RUN_FOLDERS = (("reports", "_site"), ("_sample/reports", "_site"), ("_input/reports", "_input/site"))


@dataclass(frozen=True)
class ReportsCheck:
    """What ``check`` found: ``problems``, one line each (none: all is well), in the folder ``reports`` and its
    site ``site``; ``fallback``: no folder was given and reports/ holds no run, so the last run's was checked."""

    reports: str
    site: str
    problems: list[str]
    fallback: bool = False


@dataclass(frozen=True)
class Repair:
    """What ``repair`` did, one line per file replaced (the site put back included), and the problems ``left``."""

    done: list[str]
    left: list[str]


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


def check(
    reports: str | Path | None = None, *, site_out: str | Path | None = None, config: str | Path | None = None
) -> ReportsCheck:
    """Check a reports folder, as ``benchwatch check`` does: every file readable, the files consistent with each
    other, the built site in place. Returns a ``ReportsCheck``: the problems, one line each.

    ``reports``: the folder (default: reports/ when it holds a run, else the folder of the last ``run --sample``
    or ``run --input``, as ``last_run`` finds it); ``site_out``: its site (default: that run's, else _site);
    ``config``: a configuration checked first, its sources' adapters and options (default: benchwatch.toml when
    there is one). No such folder, a folder without a run, or a configuration with an unknown adapter or option
    is an ``InputError``, raised before any file is checked.
    """
    if config is not None or Path(DEFAULT_CONFIG).is_file():
        sources.load_config(config or DEFAULT_CONFIG).check_adapters(sources.CATALOG)
    fallback = False
    if reports is None:
        chosen = last_run()
        if chosen is None:
            raise InputError(
                "reports",
                "holds no run yet, and neither does _sample/reports or _input/reports: run `benchwatch run "
                "--sample` (or `benchwatch run`) first, or name the folder with --reports",
            )
        reports, site_out, fallback = chosen[0], site_out or chosen[1], chosen[0] != RUN_FOLDERS[0][0]
    site_out = site_out or "_site"
    if not Path(reports).is_dir():  # nothing to check or repair: a mistyped path, not a damaged folder
        raise InputError("--reports", "no such reports folder (nothing to check)", value=str(reports))
    if not holds_run(reports):
        raise InputError(str(reports), "the folder holds no run yet: nothing to check (run `benchwatch run` first)")
    return ReportsCheck(str(reports), str(site_out), history.check_reports(reports, site_out), fallback)


def repair(reports: str | Path = "reports", *, site_out: str | Path = "_site", progress: bool = False) -> Repair:
    """Repair a reports folder from its other files, as ``benchwatch repair`` does (each replaced file first
    backed up under ``.repair-backup/``), put back the last good site where a run died swapping it, then check
    the folder again: what the next run mends is not left. ``progress``: each repair printed as it is made.
    No such folder is an ``InputError``.
    """
    if not Path(reports).is_dir():
        raise InputError("--reports", "no such reports folder (nothing to repair)", value=str(reports))
    log: Callable[[str], None] = print if progress else _unsaid
    done = history.repair_reports(reports, log=log)
    if site.restore_site(Path(site_out).resolve()):
        done.append(f"{site_out}: the last good site put back")
        log(done[-1])
    return Repair(done, history.check_reports(reports, site_out, pending=False))


def _unsaid(line: str) -> None:
    """A repair's log when no progress is asked for."""
