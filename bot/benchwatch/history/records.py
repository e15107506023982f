# ruff: noqa: RUF009  (_f is dataclasses.field with the field's documentation)
"""The records of ``reports/``, typed: a benchmark's record (``latest.json``), an alert (``alerts.json``), a
source's status (``sources.json``), a snapshot's changes (``changelog.json``), a history row (``history.csv``)
and a run (``runs.csv``). Each field says what it holds and in what unit; the JSON Schema of each file is
generated from these classes (``schema_of``, ``file_schema``), published with the site (``schema/*.json``)
and in the downloads bundle, and ``benchwatch check`` validates ``reports/`` against it.

Figures are proportions or positions on the difficulty axis z in [0, 1] unless a field says otherwise;
times are UTC ISO 8601 (``2026-12-01T06:00:00Z``), dates ``YYYY-MM-DD``. Every JSON file of ``reports/``
carries ``schema_version``; reading a file of an older version upgrades it (``upgrade``).
"""

from __future__ import annotations

import dataclasses
import types
import typing
from dataclasses import dataclass, field
from typing import Any

SCHEMA_VERSION = 1  # 0: the files before they carried a version (the same fields)
SCHEMA_BASE = "https://benchwatch.github.io/benchwatch/schema/"


def _f(doc: str, default: Any = dataclasses.MISSING) -> Any:
    """A field with its documentation (the schema's description); optional when it has a default."""
    if default is dataclasses.MISSING:
        return field(metadata={"doc": doc})
    return field(default=default, metadata={"doc": doc})


OPT = None  # the default of an optional field: absent from a record that does not have it

Number = float | None
Text = str | None
Json = dict[str, Any]


@dataclass(kw_only=True)
class BenchmarkRecord:
    """One benchmark's latest figures, flags and provenance: an entry of ``latest.json``'s ``benchmarks``.

    Fields ending in ``_lo``/``_hi`` (a 95% interval's ends), ``_plugin`` (the figure at the items' fitted
    positions), ``_sampling_p95`` (what items drawn from the target show by chance, the 95th percentile) and
    ``_paired`` (with the item-level paired error) are numbers or null beside the figure they qualify."""

    benchmark: str = _f("the benchmark's id as its source publishes it")
    revision: str = _f("a hash of the benchmark's responses (and of the pool it was fitted with): same data, same hash")
    source: str = _f("where the data came from: a URL, or a file's name (never a path of the machine)")
    kind: str = _f('"items" (per-item responses, difficulties fitted) or "aggregate" (scores only)')
    n_items: int = _f("items of the benchmark")
    n_models: int = _f("models that answered the benchmark")
    state: str = _f(
        "saturated, stagnant, discriminating or unknown: top five within noise or not (state_from), and the ceiling"
    )
    state_from: Text = _f(
        'what decided the state: "paired" (the paired item-level interval of top-1 minus top-5 reaches 0, or the '
        'paired index 0.7), "published_se" (the same interval from the standard errors the leaderboard publishes) '
        'or "paper_index" (the paper\'s index, sqrt(n) effective items, at 0.7); null: unknown',
        OPT,
    )
    flags: list[str] = _f("retire, watch, revise, fill: the flags raised")
    synthetic: bool = _f("true for the bundled synthetic sample, which describes no real model")
    snapshot_at: str = _f("when benchwatch first saw this revision of the data (UTC)")
    figures_version: int = _f("the version of benchwatch's figures that made this record (older ones are redone)")
    page: str = _f("the benchmark id whose page shows this record (several sources may share one page)")
    source_name: str = _f("the name of the configured source that produced it")
    origin: str = _f("the data's origin in words: the bundled file's, or the URL")
    n_cells: int = _f("responses (model x item cells) behind the figures")
    # coverage, model-based (posterior medians under smooth difficulties)
    ddm: Number = _f("DDM: the 1-Wasserstein distance of the items' z from the target (model-based median)")
    max_gap: Number = _f("Max Gap: the widest spacing of sorted z, ends 0 and 1 included (model-based median)")
    top3_gap_sum: Number = _f("the sum of the three widest spacings (model-based median)")
    top5_gap_sum: Number = _f("the sum of the five widest spacings (model-based median)")
    gaps: list[Json] = _f("the widest spacings between the items' fitted positions (plug-in): lo, hi, width")
    target: Text = _f("the target distribution in words (Uniform(0, 1) unless configured); null without figures")
    target_spec: Json | None = _f("the target as configured: {} (uniform), {beta: [a, b]} or {benchmark: name}", OPT)
    method: Text = _f(
        'the method asked for: "map" (exact posterior mode) or "nuts" (MAP and a NUTS check); null: no fit'
    )
    figures_from: Text = _f(
        'the fit the positions, abilities and figures come from: "map" (with method "nuts" too: see nuts_check)', OPT
    )
    nuts_check: Json | None = _f(
        'method "nuts": NUTS sampled the same 1PL as a check: its diagnostics, each figure from its draws (_lo, _hi; '
        "_plugin at its positions pooled over items of identical responses; _published beside), distinct_z pooled "
        "and unpooled, max_position_shift (z) and max_ability_shift (logits) from the published ones",
        OPT,
    )
    scale: Text = _f('the difficulty axis: "ability-quantile" (default) or "expected-failure"')
    converged: bool | None = _f("whether the fit the figures come from converged (MAP: Newton's test)")
    iterations: int | None = _f("Newton iterations of the MAP fit", OPT)
    max_rhat: Number = _f("the NUTS check: the largest R-hat (converged: at most 1.01)", OPT)
    min_ess_bulk: Number = _f("the NUTS check: the smallest bulk effective sample size (converged: 400 or more)", OPT)
    calibrated_models: int | None = _f("models calibrated against held difficulties (no refit)", OPT)
    calibrated_items: int | None = _f("items calibrated against held abilities (no refit)", OPT)
    detection_boundary: Number = _f("the narrowest improvement this benchmark can detect (= max_gap)", OPT)
    rank_flip_bound_per_lipschitz: Number = _f("two models can swap ranks under the target only below L x this", OPT)
    # bounds that hold for any difficulty distribution
    ddm_bound_lo: Number = _f("DDM's lower bound over every difficulty distribution the data allow", OPT)
    ddm_bound_hi: Number = _f("DDM's upper bound over every difficulty distribution the data allow", OPT)
    detection_limit: Number = _f("the widest stretch of z these models cannot rule out as empty (Max Gap's bound)", OPT)
    detection_stretch: list[float] | None = _f("where that stretch lies: [lo, hi] on z", OPT)
    detection_limit_low_end: Number = _f("the widest empty stretch not ruled out at z = 0", OPT)
    detection_limit_high_end: Number = _f("the widest empty stretch not ruled out at z = 1", OPT)
    top5_gap_sum_bound_hi: Number = _f("the top-5 gap sum's upper bound over every distribution", OPT)
    thin_stretches: list[list[float]] | None = _f("stretches shown to hold under a quarter of the target's items", OPT)
    thin_width: Number = _f("the widest stretch shown to hold under a quarter of the target's items (0: none)", OPT)
    thin_top5: Number = _f("the sum of the five widest such thin stretches", OPT)
    verdicts: Json | None = _f("per figure (ddm, max_gap, top5_gap_sum): found, clear or cannot tell, and why", OPT)
    # the item model behind the bounds: chance floors, the fit check, the path (issue 37)
    item_model: Text = _f('the path of the bounds: "1PL", "2PL" (discriminations integrated out) or "withheld"', OPT)
    withheld: Text = _f("why the bounds, fill and revise are withheld (a misfit, blanks for failures)", OPT)
    chance_nominal: Number = _f("the items' mean nominal chance floor (one over the options; null: open-ended)", OPT)
    chance_from: Text = _f("where the nominal floors came from, in words (the format, a column, the config)", OPT)
    chance_items: int | None = _f("items with a nominal floor", OPT)
    floor_share: Number = _f("the share f of the nominal floors the data favour (_lo, _hi: its 95% interval)", OPT)
    floor_effective: Number = _f("the effective floor, f x the mean nominal floor (_lo, _hi: its interval)", OPT)
    floor_items: int | None = _f("items the floor's profile was computed on (a fixed subset of a large benchmark)", OPT)
    floor_undeclared: Number = _f("an open-ended benchmark's floor its weak models show (misfit; _lo, _hi)", OPT)
    fit_verdict: Text = _f('the fit check of the item model: "fits" or "misfit"', OPT)
    fit_statistic: Number = _f("the fit check's statistic (the larger of its two standardised departures)", OPT)
    fit_p: Number = _f("the fit check's p, by a parametric bootstrap from the fitted model", OPT)
    fit_check: Json | None = _f("the fit check in full: each departure's statistic and p, what does not fit", OPT)
    discrimination_spread: Number = _f("the 2PL path: the sd of the items' log discriminations", OPT)
    design_groups: list[Json] | None = _f("items grouped by the models that answered them: items, models", OPT)
    blanks_warning: Json | None = _f("models whose blanks sit where their failures would (z, the models)", OPT)
    resolve: Json | None = _f("per undecided figure: the pool of models that would decide it (simulated)", OPT)
    pool: Json | None = _f("what the model pool can resolve: response patterns, distinct z, the prior", OPT)
    # saturation (arXiv:2602.16763)
    saturation_index: Number = _f("the saturation index of the top five: exp(-R^2), 1 = cannot be told apart")
    band: Text = _f("the paper's band of the index: very low, low, moderate, high, very high")
    band_paired: Text = _f("the paper's band of the paired saturation index", OPT)
    top1: Number = _f("the best score (a proportion)")
    top5: Number = _f("the fifth-best score")
    top5_mean: Number = _f("the mean of the top five scores")
    top_models: list[Json] = _f("the top five: model, score and its 95% interval (lo, hi)")
    ceiling: float = _f("the highest score the benchmark allows (1 unless configured)")
    top_gap_se_paired: Number = _f("the item-level standard error of the top-1 minus top-5 difference", OPT)
    shared_items_top1_top5: int | None = _f("items both the best and the fifth-best model answered", OPT)
    solved_share: Number = _f("the share of items at least one model solved")
    first_saturated_date: Text = _f("the first publication date the index reached 0.7", OPT)
    fell_back_date: Text = _f("the first date after first_saturated_date the index fell below 0.7 again", OPT)
    saturated_since: Text = _f("the start of the run of saturated dates ending at the latest one", OPT)
    # tiers
    top_tier: list[str] = _f(
        "the best models up to the first one that some model is significantly better than (Holm-corrected tests)", OPT
    )
    top_tier_size: int | None = _f("the number of models in the top tier", OPT)
    n_tiers: int | None = _f("tiers among the tiered models", OPT)
    tier_method: Text = _f("the test behind the tiers", OPT)
    tier_alpha: Number = _f("the family-wise error rate of the tiers' tests", OPT)
    untiered: list[str] = _f("models beyond the tiered ones (ranked by score only)", OPT)
    tier_notes: list[Json] = _f(
        "tiered models whose place deserves a word: model and why (every item alike, or few items answered)", OPT
    )
    # flags and history
    prior_state: Text = _f("the state of the previous revision (null for a new benchmark)", OPT)
    why: list[str] = _f("one line per state and flag: the figure that crossed which threshold", OPT)
    retirement: Text = _f("what the retirement rule says of this benchmark, in words", OPT)
    excluded: list[Json] = _f("models or rows the source left out, with the reason", OPT)
    uninformative: list[Json] = _f("models that answered every item alike: in the scores, not in the fit", OPT)
    unplaced: Text = _f("why the items could not be placed (scores only)", OPT)
    per_item: bool | None = _f("true for per-item data published as scores only", OPT)
    joint_pool: Json | None = _f("the other benchmarks of the page whose models placed these items", OPT)
    comparison: Json | None = _f("how a board's published scores agree with the per-item fit of its page", OPT)
    display_name: Text = _f("the name pages show, as configured", OPT)
    notice: Text = _f("why the latest data are not published (held back, gone upstream)", OPT)
    gone_since: Text = _f("when the source stopped publishing it (UTC)", OPT)
    rebuilt: bool | None = _f("true when `repair` rebuilt this record from the history (refitted next run)", OPT)
    refit: Text = _f("why `repair` asks for a refit of this record", OPT)


SUFFIXED = r"^(?!band_)[a-z0-9_]+_(lo|hi|plugin|sampling_p95|paired)$"  # a figure's interval ends and variants


@dataclass(kw_only=True)
class Alert:
    """A change of state or flag: an entry of ``alerts.json``'s ``alerts`` (append-only)."""

    id: str = _f("benchmark/kind/revision: one alert per change")
    benchmark: str = _f("the benchmark it is about")
    kind: str = _f("state, raised, cleared, tier, verdict, model (the bounds' path) or a notice (held, gone, grew)")
    revision: str = _f("the revision of the data that raised it")
    raised_at: str = _f("when the alert was raised (UTC)")
    title: str = _f("the alert in a sentence")
    figures: Json | None = _f("the figures at the time", OPT)
    flag: Text = _f("the flag raised or cleared", OPT)
    to: Text = _f("the new state, tier, verdict or path of the bounds", OPT)
    figure: Text = _f("the figure whose verdict changed", OPT)
    joined: list[str] | None = _f("models that joined the top tier", OPT)
    size: int | None = _f("the top tier's new size", OPT)
    left: list[str] | None = _f("models that left it", OPT)
    from_: Text = _f("the previous state, tier or verdict", OPT)


@dataclass(kw_only=True)
class SourceStatus:
    """A source's last attempt: an entry of ``sources.json``'s ``sources`` (by source name)."""

    status: str = _f('"ok" or "failed"')
    error: Text = _f("the last failure in words (null when ok)", OPT)
    failed_since: Text = _f("since when it fails (UTC)", OPT)
    data_since: Text = _f("when this revision of its data first reached benchwatch (UTC)", OPT)
    url: Text = _f("its URL, or a file's name", OPT)
    homepage: Text = _f("the leaderboard page a person reads", OPT)
    revision: Text = _f("hashes of its downloads (or of its benchmarks' revisions)", OPT)
    adapter: Text = _f("the adapter that reads it", OPT)
    as_of: Text = _f("the data's own date: the upstream's, else the newest dated result", OPT)
    as_of_from: Text = _f('"upstream" or "newest dated result"', OPT)
    bundled: Text = _f("the date of the copy shipped with benchwatch that it reads, never fetched (YYYY-MM-DD)", OPT)
    excluded: list[Json] = _f("what it left out, with the reason", OPT)
    skipped: list[Json] = _f("benchmarks not published from the last run, with the reason", OPT)
    gone: list[str] = _f("benchmarks it no longer publishes", OPT)
    notes: list[str] = _f("what its adapter noticed", OPT)
    rules: Text = _f("the fingerprint of the rules it was audited under", OPT)


@dataclass(kw_only=True)
class Change:
    """What changed with a snapshot: an entry of ``changelog.json``'s ``changes``."""

    snapshot_at: str = _f("the run that saw it (UTC)")
    source: str = _f("the source")
    benchmark: str = _f("the benchmark")
    revision: str = _f("the new revision")
    models_added: Json = _f("count and names (the first 50)")
    models_removed: Json = _f("count and names")
    models_rescored: Json = _f("count and names")
    items_added: Json | None = _f("count and names (per-item data)", OPT)
    items_removed: Json | None = _f("count and names", OPT)
    items_rescored: Json | None = _f("count and names", OPT)


FILES = {  # file -> (its top-level key, the record class, keyed by name (an object) or a list)
    "latest.json": ("benchmarks", BenchmarkRecord, list),
    "alerts.json": ("alerts", Alert, list),
    "sources.json": ("sources", SourceStatus, dict),
    "changelog.json": ("changes", Change, list),
}


def _json_type(hint: Any) -> dict:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        parts = [_json_type(a) for a in typing.get_args(hint)]
        kinds = []
        for p in parts:
            kinds += p["type"] if isinstance(p["type"], list) else [p["type"]]
        out = {"type": sorted(set(kinds), key=kinds.index)}
        items = [p["items"] for p in parts if "items" in p]
        if items:
            out["items"] = items[0]
        return out
    if hint is type(None):
        return {"type": "null"}
    if hint is bool:
        return {"type": "boolean"}
    if hint is int:
        return {"type": "integer"}
    if hint is float:
        return {"type": "number"}
    if hint is str:
        return {"type": "string"}
    if origin is list:
        (inner,) = typing.get_args(hint) or (Any,)
        return {"type": "array", **({"items": _json_type(inner)} if inner is not Any else {})}
    if origin is dict or hint is dict:
        return {"type": "object"}
    return {}


def field_name(f: dataclasses.Field) -> str:
    return f.name.removesuffix("_")  # from_ is the record's "from"


def schema_of(cls: type) -> dict:
    """The JSON Schema (draft 7) of one record: every field typed and described, the required ones required."""
    hints = typing.get_type_hints(cls)
    props, required = {}, []
    for f in dataclasses.fields(cls):
        props[field_name(f)] = {**_json_type(hints[f.name]), "description": f.metadata["doc"]}
        if f.default is dataclasses.MISSING:
            required.append(field_name(f))
    out = {
        "type": "object",
        "title": cls.__name__,
        "description": " ".join((cls.__doc__ or "").split()),
        "properties": props,
        "required": required,
        "additionalProperties": False,
    }
    if cls is BenchmarkRecord:
        out["patternProperties"] = {SUFFIXED: {"type": ["number", "null"]}}
        # a record `repair` rebuilt from the history holds the history's fields only, until the next run refits it
        out["if"] = {"properties": {"rebuilt": {"const": True}}, "required": ["rebuilt"]}
        out["then"] = {"required": list(REBUILT_REQUIRED)}
        out["else"] = {"required": required}
        out["required"] = ["benchmark"]
    return out


REBUILT_REQUIRED = ("benchmark", "revision", "snapshot_at", "state", "flags", "rebuilt")


def file_schema(name: str) -> dict:
    """The JSON Schema of one JSON file of ``reports/``."""
    key, cls, shape = FILES[name]
    record = schema_of(cls)
    body = {"type": "array", "items": record} if shape is list else {"type": "object", "additionalProperties": record}
    return {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": SCHEMA_BASE + name.replace(".json", ".schema.json"),
        "title": f"benchwatch reports/{name}",
        "type": "object",
        "properties": {"schema_version": {"type": "integer", "const": SCHEMA_VERSION}, key: body},
        "required": ["schema_version", key],
        "additionalProperties": False,
    }


def documented_fields(cls: type) -> dict[str, str]:
    """Field -> its documentation, in the class's order."""
    return {field_name(f): f.metadata["doc"] for f in dataclasses.fields(cls)}


def upgrade(name: str, body: dict) -> dict:
    """A JSON file's body in today's version: a file without ``schema_version`` is version 0, the same fields
    (it gains the version). A newer version than this benchwatch knows is refused by the loader."""
    version = body.get("schema_version", 0)
    if version == 0:
        body = {"schema_version": SCHEMA_VERSION, **body}
    return body
