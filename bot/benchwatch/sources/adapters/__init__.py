"""The source catalog: one module per upstream source, each registered here once with its options class.

Each module has ``load(fetcher, cfg) -> SourceTable`` and ``Options``, a subclass of
``benchwatch.sources.options.SourceOptions`` declaring every option its ``load`` reads, typed, with its default;
``load`` reads them by attribute from ``Options.of(cfg)``. ``load_config`` checks every source's options against
its adapter's class before anything is fetched, so an unknown or mistyped key is an error naming the source,
the key and the value.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from benchwatch.sources.adapters import (
    all_the_noises,
    alpaca_eval,
    benchbench,
    bfcl,
    bfcl_leaderboard,
    can_ai_code,
    csv_file,
    eee,
    epoch,
    epoch_samples,
    evalarena,
    evalplus,
    helm,
    inspect_index,
    livebench,
    livebench_site,
    livecodebench,
    llmstats,
    mmlu_pro,
    open_llm,
    swebench,
    terminal_bench,
)
from benchwatch.sources.config import SourceConfig
from benchwatch.sources.http import Fetcher
from benchwatch.sources.options import SourceOptions
from benchwatch.sources.table import SourceTable


@dataclass(frozen=True)
class Adapter:
    """One registered adapter: the name a source's ``adapter`` gives, its reader and its options class."""

    name: str
    load: Callable[[Fetcher, SourceConfig], SourceTable]
    options: type[SourceOptions]


CATALOG: dict[str, Adapter] = {
    a.name: a
    for a in (
        Adapter("swebench", swebench.load, swebench.Options),
        Adapter("livecodebench", livecodebench.load, livecodebench.Options),
        Adapter("evalarena", evalarena.load, evalarena.Options),
        Adapter("livebench", livebench.load, livebench.Options),
        Adapter("livebench_site", livebench_site.load, livebench_site.Options),
        Adapter("helm", helm.load, helm.Options),
        Adapter("epoch", epoch.load, epoch.Options),
        Adapter("epoch_samples", epoch_samples.load, epoch_samples.Options),
        Adapter("evalplus", evalplus.load, evalplus.Options),
        Adapter("mmlu_pro", mmlu_pro.load, mmlu_pro.Options),
        Adapter("inspect_index", inspect_index.load, inspect_index.Options),
        Adapter("csv", csv_file.load, csv_file.Options),
        Adapter("alpaca_eval", alpaca_eval.load, alpaca_eval.Options),
        Adapter("eee", eee.load, eee.Options),
        Adapter("open_llm", open_llm.load, open_llm.Options),
        Adapter("all_the_noises", all_the_noises.load, all_the_noises.Options),
        Adapter("terminal_bench", terminal_bench.load, terminal_bench.Options),
        Adapter("bfcl", bfcl.load, bfcl.Options),
        Adapter("bfcl_leaderboard", bfcl_leaderboard.load, bfcl_leaderboard.Options),
        Adapter("can_ai_code", can_ai_code.load, can_ai_code.Options),
        Adapter("llmstats", llmstats.load, llmstats.Options),
        Adapter("benchbench", benchbench.load, benchbench.Options),
    )
}

# Each adapter's reader by name, as the run calls it (derived from the catalog, never edited by hand).
ADAPTERS = {name: a.load for name, a in CATALOG.items()}

__all__ = ["ADAPTERS", "CATALOG", "Adapter"]
