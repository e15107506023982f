"""HELM: a release on its public bucket (``<url>`` = ``.../benchmark_output/``).

Built from HELM's own code (stanford-crfm/helm @ 63754d05, 2026-06-05), not from memory:
- ``presentation/summarize.py`` writes, for a release, ``releases/<version>/summary.json``
  (``{"release", "suites", "date"}``), ``runs_to_run_suites.json`` (``{run name: suite}``; a run present in
  two suites is listed once, under the latest suite), ``schema.json`` and ``runs.json`` (a list of
  ``{"run_path", "run_spec", "stats"}``, ``run_spec`` with ``name``, ``scenario_spec.args``,
  ``adapter_spec.model`` and ``groups``); the frontend's ``services/`` read exactly these files, then
  ``runs/<suite>/<run name>/per_instance_stats.json`` with each path component URL-encoded.
- ``metrics/metric.py``: ``per_instance_stats.json`` is a list of ``PerInstanceStats``
  (``instance_id``, ``perturbation``, ``train_trial_index``, ``stats``); ``basic_metrics.py`` puts
  ``num_references`` and ``num_train_trials`` first, so "the first stat" is never a score.
- ``schema.json``'s ``run_groups[].environment.main_name`` / ``main_split`` name each scenario's main metric
  (GSM8K: ``final_number_exact_match``; MATH: ``math_equiv_chain_of_thought``).

- ``adaptation/adapter_spec.py``: the multiple-choice adaptation methods are ``multiple_choice_joint``,
  ``multiple_choice_joint_chain_of_thought``, ``multiple_choice_joint_multimodal``,
  ``multiple_choice_separate_original`` and ``multiple_choice_separate_calibrated``: each offers the model an
  instance's ``references`` as its options. ``metrics/basic_metrics.py`` (``compute_request_state_metrics``)
  logs ``num_references`` = ``len(request_state.instance.references)`` for every instance, in
  ``per_instance_stats.json`` beside the scores (the real runs of ``tests/sources/helm_real/``: 4 for HellaSwag
  and MMLU, both ``multiple_choice_joint``; 2 for NarrativeQA, a generation run whose references are answers).

So each run is scored by the main metric of the first of its ``groups`` that the schema gives one
(option ``main_metric`` overrides it), on the main split, without perturbations; trials are averaged.
One benchmark per run group (``HELM <display name>``): run arguments that are not scenario arguments
(``model``, ``stop``, ``method``, ...) do not split it, and scenario arguments that change the items
(``subject``, ``level``, ...) prefix the item ids instead, so a subject's items stay apart.

Chance floors: the instances of a run whose adaptation method is a multiple-choice one (``multiple_choice_*``)
get one over their ``num_references`` (main split, unperturbed); other runs give none. Every row of an item gets
the item's one floor, the smallest any run gives it.
"""

from __future__ import annotations

from collections import Counter
from urllib.parse import quote

import pandas as pd
from pydantic import Field

from benchwatch.errors import InputError
from benchwatch.sources.config import SourceConfig
from benchwatch.sources.http import Fetcher
from benchwatch.sources.options import SourceOptions
from benchwatch.sources.parsing import proportion, read_json, require, where
from benchwatch.sources.table import LONG_COLUMNS, SourceTable, chance_of, with_chance

CHANCE_FROM = "each instance's number of options (HELM's num_references of a multiple-choice run)"


class Options(SourceOptions):
    """HELM's options."""

    version: str = "latest"  # the release (releases/<version>/)
    main_metric: str | None = None  # the metric every run is scored by (default: its group's main metric)
    groups: list[str] = Field(default_factory=list)  # only these run groups (none: every group with a main metric)


def _url(base: str, *parts: str) -> str:
    """A bucket URL with every path component encoded, as HELM's frontend builds it."""
    return base + "/".join(quote(str(p), safe="") for p in parts)


def _main_metrics(schema: object) -> dict[str, tuple[str, str, str]]:
    """Run group -> (display name, main metric, main split) for the groups that name a main metric."""
    out = {}
    groups = schema.get("run_groups", []) if isinstance(schema, dict) else []
    for group in groups if isinstance(groups, list) else []:
        env = group.get("environment") or {} if isinstance(group, dict) else {}
        if isinstance(env, dict) and env.get("main_name"):
            out[str(group.get("name"))] = (
                str(group.get("display_name") or group.get("name")),
                str(env["main_name"]),
                str(env.get("main_split") or "test"),
            )
    return out


def _item_prefix(run_name: str, scenario_args: dict) -> str:
    """The run-name arguments that are scenario arguments (they select the items), as an id prefix."""
    _, _, args = run_name.partition(":")
    pairs = [a.split("=", 1) for a in args.split(",") if "=" in a]
    keep = [f"{k}={v}" for k, v in pairs if k in scenario_args and k != "model"]
    return ",".join(keep) + "/" if keep else ""


def _scores(instances: object, metric: str, split: str, src: str, url: str) -> tuple[dict[str, float], dict]:
    """Instance id -> the metric's mean over trials, unperturbed instances of the main split only; and
    instance id -> its ``num_references`` (the largest logged, where one is)."""
    if not isinstance(instances, list) or not instances:
        raise InputError(where(src, url), "expected a non-empty list of instances")
    values: dict[str, list[float]] = {}
    references: dict[str, int] = {}
    seen: dict[tuple[str, str], object] = {}
    for k, inst in enumerate(instances):
        if isinstance(inst, dict) and inst.get("perturbation"):
            continue
        iid = str(require(inst, "instance_id", (str, int), src, url, f"[{k}]"))
        trial = (iid, str(inst.get("train_trial_index")))
        if trial in seen:  # one instance's trial given twice: read once when whole, else which is meant is unknown
            if seen[trial] == inst:
                continue
            raise InputError(
                where(src, url),
                f"the instance {iid!r} (train trial {trial[1]}) is given twice with two values",
                field=f"[{k}].stats",
                value=iid,
            )
        seen[trial] = inst
        for s, stat in enumerate(require(inst, "stats", list, src, url, f"[{k}]")):
            name = require(stat, "name", dict, src, url, f"[{k}].stats[{s}]")
            if name.get("perturbation") or name.get("split", split) != split or stat.get("mean") is None:
                continue
            if name.get("name") == "num_references":
                count = stat["mean"]
                if isinstance(count, int | float) and not isinstance(count, bool) and float(count).is_integer():
                    references[iid] = max(references.get(iid, 0), int(count))
                continue
            if name.get("name") != metric:
                continue
            label = f"[{k}].stats[{s}].mean ({metric})"
            values.setdefault(iid, []).append(proportion(stat["mean"], src, url, label, percent=False))
    return {iid: sum(v) / len(v) for iid, v in values.items()}, references


def load(fetcher: Fetcher, cfg: SourceConfig) -> SourceTable:
    """Fetch the release's summary, schema, runs and each run's per-instance stats."""
    src, base = cfg.name, cfg.url if cfg.url.endswith("/") else cfg.url + "/"
    opts = Options.of(cfg)
    version = opts.version
    release = ("releases", version)
    summary_url = _url(base, *release, "summary.json")
    summary = read_json(fetcher.get(summary_url, source=src), src)
    require(summary, "suites", list, src, summary_url)
    suites_url = _url(base, *release, "runs_to_run_suites.json")
    run_suites = read_json(fetcher.get(suites_url, source=src), src)
    if not isinstance(run_suites, dict) or not run_suites:
        raise InputError(where(src, suites_url), "expected a non-empty object of run name -> suite")
    schema_url = _url(base, *release, "schema.json")
    metrics = _main_metrics(read_json(fetcher.get(schema_url, source=src), src))
    runs_url = _url(base, *release, "runs.json")
    runs_dl = fetcher.get(runs_url, source=src)
    runs = read_json(runs_dl, src)
    if not isinstance(runs, list):
        raise InputError(where(src, runs_url), "expected a list of runs")
    override = opts.main_metric
    only = set(opts.groups)
    rows, notes, seen, revision = [], [], set(), [runs_dl.sha256[:8]]
    skipped: Counter[str] = Counter()
    for r, run in enumerate(runs):
        spec = require(run, "run_spec", dict, src, runs_url, f"[{r}]")
        name = require(spec, "name", str, src, runs_url, f"[{r}].run_spec")
        if name in seen:  # the same run reached twice: kept once
            continue
        seen.add(name)
        groups = [g for g in spec.get("groups", []) if g in metrics and (not only or g in only)]
        if not groups:
            skipped["group not configured" if only else "no main metric in the schema"] += 1
            continue
        display, metric, split = metrics[groups[0]]
        metric = override or metric
        suite = run_suites.get(name)
        if suite is None:
            skipped["not in runs_to_run_suites.json"] += 1
            continue
        model = str((spec.get("adapter_spec") or {}).get("model") or "")
        if not model:
            raise InputError(where(src, runs_url), "missing field", field=f"[{r}].run_spec.adapter_spec.model")
        stats_url = _url(base, "runs", suite, name, "per_instance_stats.json")
        scores, references = _scores(read_json(fetcher.get(stats_url, source=src), src), metric, split, src, stats_url)
        if not scores:
            notes.append(f"{name}: no {metric!r} on split {split!r}")
            continue
        prefix = _item_prefix(name, (spec.get("scenario_spec") or {}).get("args") or {})
        choice = str((spec.get("adapter_spec") or {}).get("method") or "").startswith("multiple_choice")
        floors = {iid: chance_of(references.get(iid)) if choice else None for iid in scores}
        rows += [[f"HELM {display}", model, prefix + iid, repr(s), "", "", floors[iid]] for iid, s in scores.items()]
    notes += [f"{n} run(s) skipped: {why}" for why, n in sorted(skipped.items())]
    frame = pd.DataFrame(rows, columns=[*LONG_COLUMNS, "floor"])
    # A run listed twice under different names for one (benchmark, model, item) keeps its first score.
    frame = frame.drop_duplicates(["benchmark", "model", "item_id"], keep="first")
    frame, chance_from = with_chance(frame[LONG_COLUMNS], frame["floor"], CHANCE_FROM)
    return SourceTable(
        src,
        base,
        frame,
        provenance={"url": summary_url, "revision": "+".join(revision), "fetched_at": runs_dl.fetched_at},
        notes=tuple(notes),
        chance_from=chance_from,
    )
