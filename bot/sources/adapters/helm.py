"""HELM: a release on its public bucket.

``<url>releases/<version>/summary.json`` names the suites (``{"suites": [...]}``);
``<url>runs/<suite>/runs.json`` lists the runs (``[{"run_spec": {"name": ...}}, ...]``); each run's
``<url>runs/<suite>/<run>/per_instance_stats.json`` is a list of
``{"instance_id", "train_trial_index", "stats": [{"name": {"name", "split"}, "mean"}]}``.
The correctness metric is chosen per run in the order ``quasi_exact_match``, ``exact_match``, then the
run's main metric (option ``main_metric``, else the first metric the run reports). A run's model is its
``model=`` argument; its benchmark is the rest of its name. Trials of one instance are averaged.
"""

from __future__ import annotations

from urllib.parse import quote

import pandas as pd

from bot.errors import InputError
from bot.sources.config import SourceConfig
from bot.sources.http import Fetcher
from bot.sources.parsing import proportion, read_json, require, where
from bot.sources.table import LONG_COLUMNS, SourceTable

PREFERRED = ("quasi_exact_match", "exact_match")


def split_run_name(name: str) -> tuple[str, str]:
    """(benchmark, model) of a run name such as ``mmlu:subject=anatomy,model=openai_gpt-4``."""
    scenario, _, args = name.partition(":")
    parts = [a for a in args.split(",") if a]
    model = next((a.split("=", 1)[1] for a in parts if a.startswith("model=")), "")
    rest = [a for a in parts if not a.startswith("model=")]
    return f"HELM {scenario}" + (f" ({', '.join(rest)})" if rest else ""), model


def _metric(stats_by_name: dict[str, list[float]], main: str | None) -> str | None:
    for name in (*PREFERRED, main):
        if name and name in stats_by_name:
            return name
    return next(iter(stats_by_name), None)


def load(fetcher: Fetcher, cfg: SourceConfig) -> SourceTable:
    """Fetch the release's suites, runs and per-instance stats."""
    src, base = cfg.name, cfg.url if cfg.url.endswith("/") else cfg.url + "/"
    version = str(cfg.options.get("version", "latest"))
    summary_url = f"{base}releases/{quote(version, safe='')}/summary.json"
    summary = read_json(fetcher.get(summary_url, source=src), src)
    suites = require(summary, "suites", list, src, summary_url)
    if not suites:
        raise InputError(where(src, summary_url), "no suites", field="suites", value=[])
    main = cfg.options.get("main_metric")
    rows, revision = [], []
    for suite in suites:
        runs_url = f"{base}runs/{quote(str(suite), safe='')}/runs.json"
        runs_dl = fetcher.get(runs_url, source=src)
        revision.append(runs_dl.sha256[:8])
        for r, run in enumerate(read_json(runs_dl, src)):
            spec = require(run, "run_spec", dict, src, runs_url, f"[{r}]")
            name = require(spec, "name", str, src, runs_url, f"[{r}].run_spec")
            bench, model = split_run_name(name)
            stats_url = f"{base}runs/{quote(str(suite), safe='')}/{quote(name, safe=':=,')}/per_instance_stats.json"
            instances = read_json(fetcher.get(stats_url, source=src), src)
            if not isinstance(instances, list) or not instances:
                raise InputError(where(src, stats_url), "expected a non-empty list of instances")
            per_instance: dict[str, dict[str, list[float]]] = {}
            for k, inst in enumerate(instances):
                iid = str(require(inst, "instance_id", (str, int), src, stats_url, f"[{k}]"))
                for s, stat in enumerate(require(inst, "stats", list, src, stats_url, f"[{k}]")):
                    label = require(stat, "name", dict, src, stats_url, f"[{k}].stats[{s}]")
                    metric = require(label, "name", str, src, stats_url, f"[{k}].stats[{s}].name")
                    if "mean" in stat:
                        per_instance.setdefault(iid, {}).setdefault(metric, []).append(stat["mean"])
            metric = _metric({m: v for d in per_instance.values() for m, v in d.items()}, main)
            for iid, by_metric in per_instance.items():
                if metric not in by_metric:
                    continue
                values = by_metric[metric]
                score = sum(proportion(v, src, stats_url, f"{iid}.{metric}", percent=False) for v in values)
                rows.append([bench, model, iid, repr(score / len(values)), "", ""])
    return SourceTable(
        src,
        base,
        pd.DataFrame(rows, columns=LONG_COLUMNS),
        provenance={"url": summary_url, "revision": "+".join(revision), "fetched_at": ""},
    )
