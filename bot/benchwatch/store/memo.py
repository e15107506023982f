"""A small JSON memo on disk: results of costly simulations, kept by key, written atomically."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from benchwatch.store.atomic import atomic_write_text


def json_memo(folder: str | Path) -> Callable[[str, Callable[[], dict]], dict]:
    """``memo(key, compute)``: the stored value for ``key``, else ``compute()`` stored (a damaged entry is redone)."""
    folder = Path(folder)

    def memo(key: str, compute: Callable[[], dict]) -> dict:
        path = folder / f"{key}.json"
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            pass
        value = compute()
        atomic_write_text(path, json.dumps(value, sort_keys=True))
        return value

    return memo
