"""The options a source's table may set besides ``adapter`` and ``url``, declared and typed.

Every adapter declares its options as a subclass of ``SourceOptions`` (the keys any source may set:
``homepage``, ``chance``, ``as_of``, ``bundled``, ``origin``, ``prefix``) and registers it with its ``load`` in
``benchwatch.sources.adapters.CATALOG``. ``load_config`` checks every source's table against its adapter's
class before anything is fetched: an unknown key (a typo such as ``tolerence_pp``) or a value of the wrong type
(``trials = "10"``) is an ``OptionError`` naming the file, the source, its adapter, the key and the value, on
one line. Values are strict: a number is not read from a string, nor a whole number from a float or a boolean
(a float option takes a whole number: ``tolerance_pp = 1``).
"""

from __future__ import annotations

from typing import Self

from pydantic import BaseModel, ConfigDict, ValidationError

from benchwatch.errors import InputError
from benchwatch.sources.config import SourceConfig


class OptionError(InputError):
    """An unknown or mistyped option of one source: ``FILE: source 'NAME' (ADAPTER): ...`` on one line."""

    def __init__(self, where: str, source: str, adapter: str, key: str, value: object, problem: str) -> None:
        super().__init__(where, f"source {source!r} ({adapter}): {problem}")
        self.field = key
        self.value = value


class SourceOptions(BaseModel):
    """The keys every source may set; an adapter's own options extend it (unknown keys are errors)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    homepage: str | None = None  # the leaderboard page a person reads (load_config checks it is http(s))
    chance: float | None = None  # the chance floor of the source's items whose data carry none
    as_of: str | None = None  # YYYY-MM-DD: the upstream date of a pinned or bundled copy
    bundled: str | None = None  # YYYY-MM-DD: the date of a copy shipped with benchwatch (read from disk)
    origin: str | None = None  # where a bundled copy came from, and its licence
    prefix: str = ""  # put before every benchmark name, keeping two sources' same names apart
    licence: str | None = None  # the upstream data's licence, shown on its pages

    @classmethod
    def of(cls, cfg: SourceConfig, where: str = "configuration") -> Self:
        """The source's options checked against this class; an ``OptionError``
        naming ``where`` (the configuration file), the source, the key and the value when one is unknown or
        of the wrong type."""
        try:
            return cls.model_validate(cfg.options)
        except ValidationError as exc:
            error = exc.errors()[0]  # one line: the first problem
            loc = error["loc"]
            key = "".join(f"[{p}]" if isinstance(p, int) else (f".{p}" if i else str(p)) for i, p in enumerate(loc))
            value = error.get("input")
            if error["type"] == "extra_forbidden":
                problem = f"unknown option {key!r} = {_short(value)}"
            else:
                message = error["msg"][:1].lower() + error["msg"][1:]
                problem = f"option {key!r} = {_short(value)}: {message}"
            raise OptionError(where, cfg.name, cfg.adapter, key, value, problem) from None


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."
