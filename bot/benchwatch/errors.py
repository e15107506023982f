"""Errors that benchwatch reports to its users."""

from __future__ import annotations


class BusyError(RuntimeError):
    """Another run holds the reports folder's lock."""


class InputError(ValueError):
    """Bad input: names the source, the row, the field and the offending value."""

    def __init__(
        self,
        source: str,
        message: str,
        *,
        field: str | None = None,
        value: object = None,
        row: int | None = None,
    ) -> None:
        self.source = source
        self.field = field
        self.value = value
        self.row = row
        where = [source]
        if row is not None:
            where.append(f"line {row}")
        if field is not None:
            where.append(f"column {field!r}")
        text = ", ".join(where) + f": {message}"
        if value is not None:
            text += f" (value: {value!r})"
        super().__init__(text)
