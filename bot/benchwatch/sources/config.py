"""``benchwatch.toml``: one ``[sources.NAME]`` table per tracked source, plus ``[rules]``.

A source may set ``chance = 0.25``: the chance floor of its items whose data carry none (one over their number
of options; ``[rules.benchmarks."NAME"] chance`` sets one for a benchmark and wins over it, see
``benchwatch.sources.table.configured_chance``).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from benchwatch.errors import InputError

DEFAULT_CONFIG = "benchwatch.toml"


@dataclass(frozen=True)
class SourceConfig:
    """One tracked source: its adapter, its URL (overridable) and the adapter's own options."""

    name: str
    adapter: str
    url: str
    options: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Config:
    """The whole configuration file."""

    path: Path
    sources: dict[str, SourceConfig]
    rules: dict = field(default_factory=dict)
    http: dict = field(default_factory=dict)
    benchmarks: dict = field(default_factory=dict)  # [benchmarks."ID"] aliases = [...]: one page per benchmark id
    site: dict = field(default_factory=dict)  # [site] url = "https://...": where the site is published

    def check_adapters(self, known) -> None:
        """Every source names an adapter that exists (``known``: their names)."""
        known = tuple(known)
        for name, cfg in self.sources.items():
            if cfg.adapter not in known:
                raise InputError(
                    str(self.path),
                    f"unknown adapter; choose one of {', '.join(known)}",
                    field=f"sources.{name}.adapter",
                    value=cfg.adapter,
                )


def check_chance(value: object, where: str, field: str) -> float:
    """A configured chance floor (``chance = 0.25``: one over the number of options of the items it applies
    to, for data that carry none) as a float, or an InputError naming the file, the field and the value."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= value < 1.0:
        raise InputError(where, "must be a number in [0, 1) (one over the number of options)", field=field, value=value)
    return float(value)


def check_address(value: object, where: str, field: str | None = None) -> str:
    """An absolute http(s) address with a host (``https://example.org/benchwatch/``), or an InputError naming
    ``where`` (the option or the file), the field and the value: ``example.org`` or ``http:///x`` is refused."""
    text = value if isinstance(value, str) else ""
    try:
        parts = urlsplit(text)
        whole = bool(re.fullmatch(r"https?://[^\s\"'<>]+", text)) and bool(parts.hostname) and parts.port != 0
    except ValueError:  # a port that is not a number from 0 to 65535, a bracket left open
        whole = False
    if not whole:
        expected = "expected an absolute http(s) address with a host, such as https://example.org/"
        raise InputError(where, expected, field=field, value=value)
    return text


def read_config(path: str | Path = DEFAULT_CONFIG) -> Config:
    """Read the configuration and check its shape; missing URLs and malformed tables are errors naming the table.
    ``benchwatch.sources.configuration.load_config`` also checks each source's options against its adapter's
    class (``Config.check_adapters`` checks the adapters' names against those that exist)."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(str(path), "no such configuration file") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(str(path), f"not valid TOML: {exc}") from None
    tables = data.get("sources", {})
    if not isinstance(tables, dict) or not tables:
        raise InputError(str(path), "no [sources.NAME] tables")
    sources = {}
    for name, table in tables.items():
        if not isinstance(table, dict):
            raise InputError(str(path), "expected a table", field=f"sources.{name}")
        for key in ("adapter", "url"):
            if not isinstance(table.get(key), str) or not table[key]:
                raise InputError(str(path), "missing or empty", field=f"sources.{name}.{key}")
        page = table.get("homepage")
        if page is not None:
            check_address(page, str(path), f"sources.{name}.homepage")
        options = {k: v for k, v in table.items() if k not in ("adapter", "url")}
        if "chance" in options:
            options["chance"] = check_chance(options["chance"], str(path), f"sources.{name}.chance")
        sources[name] = SourceConfig(name, table["adapter"], table["url"], options)
    benchmarks = data.get("benchmarks", {})
    for bench_id, table in benchmarks.items():
        aliases = table.get("aliases") if isinstance(table, dict) else None
        if not isinstance(aliases, list) or not all(isinstance(a, str) and a for a in aliases):
            raise InputError(str(path), "expected a list of benchmark names", field=f"benchmarks.{bench_id}.aliases")
    site = data.get("site", {})
    if not isinstance(site, dict) or not isinstance(site.get("url", ""), str):
        raise InputError(str(path), "expected a table with a text `url`", field="site")
    if site.get("url"):  # checked before any work: a run would otherwise refuse it only once its site is built
        check_address(site["url"], str(path), "site.url")
    return Config(path, sources, data.get("rules", {}), data.get("http", {}), benchmarks, site)
