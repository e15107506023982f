"""The reports folder: where each of its files lives, and the transaction that makes a run's writes visible all
together or not at all."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from benchwatch.history.formats import damaged
from benchwatch.store import atomic_write_bytes, atomic_write_text, safe_slug

STAGING = ".staging"
COMMIT = "COMMIT.json"


def _digest(path: Path) -> str | None:
    """A file's SHA-256, None when it does not exist."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return None


@dataclass(frozen=True)
class Recovered:
    """What ``recover`` did: ``kind`` "completed" (an interrupted commit swapped in), "uncommitted" (a run that
    died before its commit, dropped) or "stale" (a committed staging older than the files, dropped); in words."""

    kind: str
    text: str


def recover(root: Path) -> Recovered | None:
    """Finish a committed run that was interrupted while swapping files in, or drop an uncommitted one; says
    which it did (None when there was nothing to do).

    The commit record lists each staged file with the digest of the file it replaces, as the run found it. A
    staging whose files are no longer those its run read (a later run wrote them: a stale staging folder left
    behind or put back) is dropped whole, never swapped in over newer data."""
    staging = root / STAGING
    manifest = staging / COMMIT
    done: Recovered | None = None
    if manifest.exists():
        body = json.loads(manifest.read_text(encoding="utf-8"))
        files, base = (body, None) if isinstance(body, list) else (body["files"], body["base"])
        pending = [rel for rel in files if (staging / rel).exists()]
        stale = base is not None and any(_digest(root / rel) != base.get(rel) for rel in pending)
        if stale:
            done = Recovered("stale", f"{staging}: a committed run's files that later runs had replaced: dropped")
        else:
            for rel in pending:
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                os.replace(staging / rel, root / rel)
            done = Recovered("completed", f"{staging}: an interrupted commit's {len(pending)} file(s) swapped in")
    elif staging.exists():
        done = Recovered("uncommitted", f"{staging}: an uncommitted run's files dropped")
    shutil.rmtree(staging, ignore_errors=True)
    return done


@dataclass
class Reports:
    """The files of one reports folder; inside ``transaction()`` writes are staged until commit."""

    root: Path
    _staged: set[str] | None = field(default=None, repr=False)

    @contextmanager
    def transaction(self, on_commit: Callable[[], None] = lambda: None) -> Iterator[Reports]:
        """All writes become visible together at the end, or not at all if the run dies before.

        Once the list of staged files is written the run is committed: if it dies while the files are
        swapped in, the next transaction (or ``recover``) finishes the swap."""
        recover(self.root)
        staging = self.root / STAGING
        staging.mkdir(parents=True, exist_ok=True)
        self._staged = set()
        try:
            yield self
            files = sorted(self._staged)
            base = {rel: _digest(self.root / rel) for rel in files}  # what each staged file replaces
            atomic_write_text(staging / COMMIT, json.dumps({"files": files, "base": base}))
            on_commit()
            recover(self.root)
        finally:
            self._staged = None
            if not (staging / COMMIT).exists():
                shutil.rmtree(staging, ignore_errors=True)

    def write(self, path: Path, text: str) -> None:
        """Write one file: staged inside a transaction, atomically in place outside one."""
        self.write_bytes(path, text.encode("utf-8"))

    def write_bytes(self, path: Path, data: bytes) -> None:
        if self._staged is None:
            atomic_write_bytes(path, data)
            return
        rel = str(path.relative_to(self.root))
        atomic_write_bytes(self.root / STAGING / rel, data)
        self._staged.add(rel)

    def read_bytes(self, path: Path) -> bytes | None:
        """A file's bytes as this run sees it (its own staged writes first), or None."""
        if self._staged is not None:
            rel = str(path.relative_to(self.root))
            if rel in self._staged:
                return (self.root / STAGING / rel).read_bytes()
        try:
            return path.read_bytes()
        except FileNotFoundError:
            return None

    def read(self, path: Path) -> str | None:
        """A file's text as this run sees it (its own staged writes first), or None."""
        data = self.read_bytes(path)
        if data is None:
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise damaged(path, f"not UTF-8 text (byte {exc.start})") from None

    @property
    def latest(self) -> Path:
        return self.root / "latest.json"

    @property
    def history(self) -> Path:
        return self.root / "history.csv"

    @property
    def alerts(self) -> Path:
        return self.root / "alerts.json"

    @property
    def runs(self) -> Path:
        return self.root / "runs.csv"

    @property
    def sources(self) -> Path:
        return self.root / "sources.json"

    @property
    def changelog(self) -> Path:
        return self.root / "changelog.json"

    def ledger(self, path: Path) -> Path:
        """The ledger beside alerts.json or changelog.json (``benchwatch.history.ledger``)."""
        from benchwatch.history.ledger import LEDGERS

        return self.root / LEDGERS[path.name]

    def items(self, benchmark: str) -> Path:
        return self.root / "items" / f"{safe_slug(benchmark)}.csv"

    def models(self, benchmark: str) -> Path:
        return self.root / "models" / f"{safe_slug(benchmark)}.csv"

    def by_date(self, benchmark: str) -> Path:
        return self.root / "by_date" / f"{safe_slug(benchmark)}.csv"

    def proposal(self, benchmark: str) -> Path:
        """A proposed revision (``benchwatch fill check --record``): beside the history, never part of it."""
        return self.root / "proposals" / f"{safe_slug(benchmark)}.json"

    def snapshot(self, benchmark: str, kind: str = "responses") -> Path:
        """A benchmark's last good data (``responses`` or ``aggregates``), kept with the figures it gave."""
        return self.root / "snapshots" / kind / f"{safe_slug(benchmark)}.csv.gz"
