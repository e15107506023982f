"""A scheduled run heals the reports before it writes: what ``benchwatch check`` finds (quickly: the files'
integrity, not their every cell), rebuilt as ``benchwatch repair`` would (a missing or damaged latest.json from
the history, damaged or missing tables and snapshots refitted from the data the run reads, an interrupted or stale
staging completed or dropped, cut files salvaged), said in the run's log and as one operational alert in the
feed. Nobody has to be there to run ``repair``; what it could not rebuild is said, and the run goes on."""

from __future__ import annotations

from collections.abc import Callable

from benchwatch.alerts import notice_alert
from benchwatch.errors import InputError
from benchwatch.history import Alert, Reports, as_typed, check_reports, load_alerts, recover, repair_reports

REPORTS = "reports/"  # the alert's subject: the reports folder itself, not a benchmark


def heal(reports: Reports, now: str, log: Callable[[str], None]) -> dict | None:
    """Rebuild what the quick check finds; the operational alert saying what was rebuilt, or None when the reports
    were whole."""
    # the transaction's own business first: an interrupted commit is completed, an uncommitted run dropped, as
    # any run does (said in the log only); a stale staging dropped is something the run heals (and says)
    recovered = recover(reports.root)
    if recovered is not None:
        log(f"heal      {_here(reports, recovered.text)}")
    stale = [_here(reports, recovered.text)] if recovered is not None and recovered.kind == "stale" else []
    found = check_reports(reports.root, quick=True)
    if not found and not stale:
        return None
    for line in found:
        log(f"heal      found: {_here(reports, line)}")
    done = repair_reports(reports.root, log=lambda _line: None) if found else []
    for line in done:
        log(f"heal      {_here(reports, line)}")
    left = check_reports(reports.root, quick=True)
    for line in left:
        log(f"heal      NOT rebuilt (the run goes on): {_here(reports, line)}")
    what = "; ".join([*stale, *(_here(reports, line).split(" (the old file is in")[0] for line in done)])
    count = len(found) + len(stale)
    title = f"benchwatch found {count} problem(s) in its reports and rebuilt them before this run: {what}"
    # numbered: two runs within one second (tests) each say what they rebuilt, under ids of their own
    try:
        number = 1 + sum(as_typed(Alert, a).kind == "healed" for a in load_alerts(reports))
    except InputError:  # alerts.json is one of what could not be rebuilt: the run says so, and starts it again
        number = 1
    return notice_alert("healed", REPORTS, f"{now}/{number}", now, title[:2000])


def _here(reports: Reports, line: str) -> str:
    """A line with the reports folder's path taken out (nothing published names the machine that built it), and
    without the advice to run check and repair: the run does it."""
    line = line.split("; run `benchwatch check`")[0]
    return line.replace(str(reports.root) + "/", "").replace(str(reports.root), "reports")
