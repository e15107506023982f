"""JSON-lines files, line by line (no HTTP or numerical library: read on the command line's input path)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from benchwatch.errors import InputError


def json_lines(lines: Iterable[str | bytes], src: str) -> Iterator[tuple[int, Any]]:
    """(line number, value) of each non-blank line of a JSON-lines file; a line that is not JSON is an error
    naming its number."""
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line)
        except ValueError as exc:
            raise InputError(src, f"not JSON: {exc}", row=number) from None
