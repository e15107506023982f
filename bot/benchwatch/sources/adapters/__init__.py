"""One module per upstream source; each has ``load(fetcher, config) -> SourceTable``."""

from benchwatch.sources.adapters import (
    alpaca_eval,
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
    mmlu_pro,
    open_llm,
    swebench,
)

ADAPTERS = {
    "swebench": swebench.load,
    "livecodebench": livecodebench.load,
    "evalarena": evalarena.load,
    "livebench": livebench.load,
    "livebench_site": livebench_site.load,
    "helm": helm.load,
    "epoch": epoch.load,
    "epoch_samples": epoch_samples.load,
    "evalplus": evalplus.load,
    "mmlu_pro": mmlu_pro.load,
    "inspect_index": inspect_index.load,
    "csv": csv_file.load,
    "alpaca_eval": alpaca_eval.load,
    "eee": eee.load,
    "open_llm": open_llm.load,
}

__all__ = ["ADAPTERS"]
