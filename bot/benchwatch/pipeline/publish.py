"""What one source's run ends with (``benchwatch.pipeline.gather.source_steps``): what it started, its batch
published into the run with its status, or its failure recorded; and its line of the run's log."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import pandas as pd

from benchwatch.pipeline import phases
from benchwatch.pipeline.benchmark import public_location
from benchwatch.pipeline.run_state import Batch, RunState, SourceContext, as_of
from benchwatch.progress import Progress
from benchwatch.sources import SourceTable


@dataclass
class Started:
    """A source whose audits are running: what its judge and publish steps read once they are in."""

    table: SourceTable
    frame: pd.DataFrame | None  # its per-item rows (validated)
    aggs: pd.DataFrame | None  # its leaderboards' rows (validated)
    names: list[str]  # the benchmarks it publishes
    pages: set[str]  # the pages of its per-item benchmarks (a later source's per-item benchmark waits for them)
    batch: Batch = field(default_factory=Batch)
    notes: list[str] = field(default_factory=list)  # what its line of the run's log says, in order
    pending: list[tuple] = field(default_factory=list)  # (name, rows, joint, change, ticket): audits to judge
    boards: dict[str, int] = field(default_factory=dict)  # leaderboard -> the ticket of its figures
    bar: Progress | None = None


def publish(run: RunState, name: str, started: Started, ctx: SourceContext, status: dict, gone: list[str]) -> None:
    """Publish what a source that succeeded produced (its records, rows, alerts, tables and snapshots reach the
    run), and its status."""
    table, batch = started.table, started.batch
    run.commit(batch, name, started.names)
    if table.published is not None:
        ctx.published.append(table.published)
    phases.phase("snapshot save")
    prov = table.provenance
    mine = sorted(r.revision for r in run.records.values() if r.source_name == name)
    revision = prov.get("revision") or "+".join(mine)
    if status.get("revision") != revision or "data_since" not in status:
        status["data_since"] = run.now  # the age of the last good data counts from its first fetch
    status.pop("failed_since", None)
    status.pop("bundled", None)
    status.update(as_of(prov, [t for t in (started.frame, started.aggs) if t is not None]))
    if prov.get("bundled"):
        status["bundled"] = prov["bundled"]
    status.update(
        {
            "status": "ok",
            "error": None,
            "url": public_location(str(prov.get("url", table.location))),  # never a path of this machine
            "homepage": prov.get("homepage"),
            "licence": prov.get("licence"),
            "revision": revision,
            "adapter": prov.get("adapter"),
            "excluded": list(table.excluded),
            "skipped": batch.skipped,
            "gone": gone,
            "notes": list(table.notes),
            "rules": run.rules.fingerprint(),
        }
    )
    ctx.statuses[name] = status
    ctx.outcomes.append(f"{name}:{prov.get('status', 'read')}")


def failed(run: RunState, name: str, ctx: SourceContext, status: dict, clock: float, exc: Exception) -> bool:
    """A source that failed: recorded in its status (nothing of it published), or raised when strict."""
    if ctx.strict:
        raise exc
    if status.get("status") != "failed":
        status["failed_since"] = run.now
    status.update({"status": "failed", "error": f"{type(exc).__name__}: {exc}"})
    ctx.statuses[name] = status
    ctx.outcomes.append(f"{name}:failed")
    ctx.log(f"source    {time.perf_counter() - clock:7.2f}s  {name}: FAILED (nothing new published): {exc}")
    return False


def log_source(name: str, started: Started, ctx: SourceContext, clock: float, gone: list[str]) -> None:
    """The source's line of the run's log (and its notes)."""
    table = started.table
    prov = table.provenance
    fetched = prov.get("status", "read")
    if fetched == "bundled":  # a copy shipped with benchwatch, read from disk: never "fetched"
        fetched = f"read its bundled copy of {prov.get('bundled')}"
    size = f", {prov['bytes']:,} bytes" if "bytes" in prov else ""
    said = "; ".join(started.notes) or "no change"
    ctx.log(f"source    {time.perf_counter() - clock:7.2f}s  {name}: {fetched}{size}; {said}")
    for note in table.notes:
        ctx.log(f"source             {name}: {note}")
    for g in gone:
        ctx.log(f"source             {name}: {g} is gone upstream (kept, marked gone)")
