"""Every Eval Ever's aggregate records by their datastore name, ``<uuid>.json``: the one test that both the record
reader (``benchwatch.sources.eee``) and the Inspect log finder (``benchwatch.sources.inspect_logs``, which leaves such
records out of a folder's logs) need, kept apart so that neither imports the other for it."""

from __future__ import annotations

import re
from pathlib import Path

UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def is_record_path(path: Path) -> bool:
    """An aggregate record by its datastore name: ``<uuid>.json``."""
    return path.suffix == ".json" and UUID.fullmatch(path.stem) is not None
