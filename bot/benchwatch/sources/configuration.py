"""``benchwatch.toml`` read (``benchwatch.sources.config``) and checked against the source catalog
(``benchwatch.sources.adapters.CATALOG``): the one way the job, ``check`` and the Python API load it."""

from __future__ import annotations

from pathlib import Path

from benchwatch.sources.config import DEFAULT_CONFIG, Config, SourceConfig, read_config


def check_options(path: str | Path, sources: dict[str, SourceConfig]) -> None:
    """Every source's options against its adapter's options class: an unknown key or a value of the wrong
    type is an ``OptionError`` naming the file, the source, the key and the value. A source whose adapter does
    not exist is left to ``Config.check_adapters``."""
    from benchwatch.sources.adapters import CATALOG  # once the file is read: a missing one loads no adapter

    for cfg in sources.values():
        if cfg.adapter in CATALOG:
            CATALOG[cfg.adapter].options.of(cfg, str(path))


def load_config(path: str | Path = DEFAULT_CONFIG) -> Config:
    """Read and check the configuration: missing URLs, malformed tables and unknown or mistyped options are
    errors naming the table (``Config.check_adapters`` checks the adapters' names against those that exist)."""
    config = read_config(path)
    check_options(config.path, config.sources)
    return config
