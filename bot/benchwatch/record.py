"""A benchmark's record, typed: what the audit of one benchmark publishes (``latest.json``'s entries), read by
attribute by the rules, alerts and pages (a misspelt field is a type checker's error, and an ``AttributeError``,
never a silent ``None``). ``benchwatch.history.records`` writes and reads it with the other records of
``reports/`` and generates the published JSON Schema from it.

Figures are proportions or positions on the difficulty axis z in [0, 1] unless a field says otherwise; times are
UTC ISO 8601 (``2026-12-01T06:00:00Z``), dates ``YYYY-MM-DD``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

_REQUIRED = object()  # the default of a required field (a record `repair` rebuilt may lack it: see BenchmarkRecord)


def _f(doc: str, default: Any = _REQUIRED) -> Any:
    """A field with its documentation (the schema's description); optional when it has a default."""
    if default is _REQUIRED:
        return Field(default=None, description=doc, json_schema_extra={"required": True})
    return Field(default=default, description=doc)


class _Record(BaseModel):
    """A record of ``reports/``: every field declared (an undeclared one is an error), each of its own type (no
    number read from text, no true read from 1), absent optional fields left absent (``model_dump`` with
    ``exclude_unset``)."""

    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True, frozen=True)

    @model_validator(mode="after")
    def _required_present(self) -> _Record:
        required = required_fields(type(self))
        if getattr(self, "rebuilt", None) is True:  # `repair` rebuilt it from the history: the history's fields
            required = list(REBUILT_REQUIRED)
        elif "figures_version" in type(self).model_fields and "figures_version" not in self.model_fields_set:
            required = list(OLDER_REQUIRED)  # made before figures had versions: read, and audited again next run
        missing = [name for name in required if name not in self.model_fields_set]
        if missing:
            raise ValueError(f"missing required field(s): {', '.join(field_name_of(type(self), m) for m in missing)}")
        return self


OPT = None  # the default of an optional field: absent from a record that does not have it

Number = float | None
Text = str | None
Json = dict[str, Any]


class _BenchmarkFields(_Record):
    """A benchmark record's own fields (``BenchmarkRecord`` adds each figure's variants)."""

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
        'what decided the state: "tiers" (the one rule: within noise exactly when the best\'s tier holds five models '
        'or more, every pair tested at once with Holm\'s correction); where no tiers were computed, "paired" (the '
        'paired item-level interval of top-1 minus top-5 reaches 0, or the paired index 0.7), "published_se" (the '
        'same interval from the standard errors the leaderboard publishes) or "paper_index" (the paper\'s index, '
        "sqrt(n) effective items, at 0.7); null: unknown",
        OPT,
    )
    flags: list[str] = _f("retire, watch, revise, fill: the flags raised")
    synthetic: bool = _f("true for the bundled synthetic sample, which describes no real model")
    snapshot_at: str = _f("when benchwatch first saw this revision of the data (UTC)")
    figures_version: int = _f("the version of benchwatch's figures that made this record (older ones are redone)")
    page: str = _f("the benchmark id whose page shows this record (several sources may share one page)")
    source_name: str = _f("the name of the configured source that produced it")
    origin: str = _f("the data's origin in words: the bundled file's, or the URL")
    licence: Text = _f("the upstream data's licence, as the source's configuration states it", OPT)
    self_reported: bool | None = _f(
        "true where the scores are reported by the models' makers, not measured by a harness (never pooled with "
        "measured ones)",
        OPT,
    )
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
    discrimination_spread: Number = _f(
        "the spread s the data favour: the sd of the items' log discriminations (_lo, _hi: its 95% interval)", OPT
    )
    spread_items: int | None = _f(
        "items the spread's profile was computed on (a fixed subset of a large benchmark)", OPT
    )
    sample_correlation: Number = _f(
        "how far a model's repeated samples of one item agree: the intra-cell correlation rho (_lo, _hi)", OPT
    )
    sample_cells: int | None = _f("cells of several samples the correlation was estimated from", OPT)
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
    first_saturated_date: Text = _f("the first publication date the state was saturated", OPT)
    fell_back_date: Text = _f("the first date after first_saturated_date the state was no longer saturated", OPT)
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


VARIANT_DOCS = {  # a figure's variants, beside it ({} is the figure)
    "_lo": "the lower end of the 95% interval of {}",
    "_hi": "the upper end of the 95% interval of {}",
    "_plugin": "{}, computed at the items' fitted positions (plug-in) instead of as a posterior median",
    "_sampling_p95": "the value of {} that items drawn from the target reach by chance (95th percentile)",
    "_paired": "{}, from the paired item-level error",
}
VARIANTS = {  # every figure with variants, and its variants (each a field of the record, a number or null)
    **dict.fromkeys(("ddm", "max_gap", "top5_gap_sum"), ("_lo", "_hi", "_plugin", "_sampling_p95")),
    "top3_gap_sum": ("_lo", "_hi", "_plugin"),
    **dict.fromkeys(("thin_width", "thin_top5"), ("_sampling_p95",)),
    "saturation_index": ("_lo", "_hi", "_paired"),
    "top_gap": ("_lo", "_hi"),  # top-1 minus top-5 (its interval only)
    **dict.fromkeys(
        ("floor_share", "floor_effective", "floor_undeclared", "discrimination_spread", "sample_correlation"),
        ("_lo", "_hi"),
    ),
}


def _variant(base: str, suffix: str) -> Any:
    return Field(default=None, description=VARIANT_DOCS[suffix].format(base), json_schema_extra={"variant_of": base})


class BenchmarkRecord(_BenchmarkFields):
    """One benchmark's latest figures, flags and provenance: an entry of ``latest.json``'s ``benchmarks``; beside the
    fields, every figure's variants (``VARIANTS``), each named."""

    ddm_lo: Number = _variant("ddm", "_lo")
    ddm_hi: Number = _variant("ddm", "_hi")
    ddm_plugin: Number = _variant("ddm", "_plugin")
    ddm_sampling_p95: Number = _variant("ddm", "_sampling_p95")
    max_gap_lo: Number = _variant("max_gap", "_lo")
    max_gap_hi: Number = _variant("max_gap", "_hi")
    max_gap_plugin: Number = _variant("max_gap", "_plugin")
    max_gap_sampling_p95: Number = _variant("max_gap", "_sampling_p95")
    top5_gap_sum_lo: Number = _variant("top5_gap_sum", "_lo")
    top5_gap_sum_hi: Number = _variant("top5_gap_sum", "_hi")
    top5_gap_sum_plugin: Number = _variant("top5_gap_sum", "_plugin")
    top5_gap_sum_sampling_p95: Number = _variant("top5_gap_sum", "_sampling_p95")
    top3_gap_sum_lo: Number = _variant("top3_gap_sum", "_lo")
    top3_gap_sum_hi: Number = _variant("top3_gap_sum", "_hi")
    top3_gap_sum_plugin: Number = _variant("top3_gap_sum", "_plugin")
    thin_width_sampling_p95: Number = _variant("thin_width", "_sampling_p95")
    thin_top5_sampling_p95: Number = _variant("thin_top5", "_sampling_p95")
    saturation_index_lo: Number = _variant("saturation_index", "_lo")
    saturation_index_hi: Number = _variant("saturation_index", "_hi")
    saturation_index_paired: Number = _variant("saturation_index", "_paired")
    top_gap_lo: Number = _variant("top_gap", "_lo")
    top_gap_hi: Number = _variant("top_gap", "_hi")
    floor_share_lo: Number = _variant("floor_share", "_lo")
    floor_share_hi: Number = _variant("floor_share", "_hi")
    floor_effective_lo: Number = _variant("floor_effective", "_lo")
    floor_effective_hi: Number = _variant("floor_effective", "_hi")
    floor_undeclared_lo: Number = _variant("floor_undeclared", "_lo")
    floor_undeclared_hi: Number = _variant("floor_undeclared", "_hi")
    discrimination_spread_lo: Number = _variant("discrimination_spread", "_lo")
    discrimination_spread_hi: Number = _variant("discrimination_spread", "_hi")
    sample_correlation_lo: Number = _variant("sample_correlation", "_lo")
    sample_correlation_hi: Number = _variant("sample_correlation", "_hi")


REBUILT_REQUIRED = ("benchmark", "revision", "snapshot_at", "state", "flags", "rebuilt")
# A record without figures_version was made by a benchwatch before figures had versions (FIGURES_VERSION 1): it is
# read with the fields every version had, and the next run audits it again (its figures are not today's).
OLDER_REQUIRED = ("benchmark", "revision", "snapshot_at", "state", "flags")


def required_fields(cls: type[BaseModel]) -> list[str]:
    """The attributes a record of ``cls`` must have (``BenchmarkRecord``: unless ``repair`` rebuilt it)."""
    return [k for k, f in cls.model_fields.items() if (f.json_schema_extra or {}).get("required")]  # type: ignore[union-attr]


def field_name_of(cls: type[BaseModel], attribute: str) -> str:
    """A field's name in the files (``from_`` is the record's "from")."""
    return cls.model_fields[attribute].alias or attribute


def as_record(figures: BenchmarkRecord | Mapping[str, Any]) -> BenchmarkRecord:
    """A benchmark's figures as the typed record, to read by attribute: a record as it is; a mapping (a record as
    written, or the figures an audit has so far) unvalidated, its fields set and the others None (its keys that are
    not fields are left out: they are not the record's)."""
    if isinstance(figures, BenchmarkRecord):
        return figures
    known = BenchmarkRecord.model_fields
    return BenchmarkRecord.model_construct(**{k: v for k, v in figures.items() if k in known})
