"""Retirement and revision flags, with hysteresis so that a figure at a threshold does not flap."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from benchwatch.metrics import CEILING_MARGIN, state_evidence
from benchwatch.record import BenchmarkRecord, as_record
from benchwatch.vocabulary import FIGURES, FLAG_NAMES, NO_BOUND, as_bound, why_line
from benchwatch.vocabulary import FLAGS as _FLAGS
from benchwatch.vocabulary import VERDICTS as _VERDICTS

Figures = BenchmarkRecord | Mapping[str, Any]  # the typed record, or a record as written (read through as_record)

FLAGS = FLAG_NAMES  # the vocabulary's (benchwatch.vocabulary), most severe first


@dataclass(frozen=True)
class Thresholds:
    """Raising thresholds; a raised flag clears only below ``hysteresis`` times its threshold."""

    revise_ddm: float = 0.10
    fill_max_gap: float = 0.10
    fill_top5_gap_sum: float = 0.30
    hysteresis: float = 0.9


DEFAULT_THRESHOLDS = Thresholds()
VERDICTS = tuple(_VERDICTS)  # the vocabulary's: found, cannot tell, clear


@dataclass(frozen=True)
class _Reads:
    """What a verdict reads of the record, by attribute (a misspelt field is the type checker's error)."""

    threshold: str  # the Thresholds field
    upper: Callable[[BenchmarkRecord], float | None]
    lower: Callable[[BenchmarkRecord], float | None]
    level: Callable[[BenchmarkRecord], float | None]  # what items drawn from the target show by chance (upper)
    found: Callable[[BenchmarkRecord], float | None]  # the same for the lower bound


_VERDICT_KEYS = {
    "ddm": _Reads(
        "revise_ddm",
        lambda r: r.ddm_bound_hi,
        lambda r: r.ddm_bound_lo,
        lambda r: r.ddm_sampling_p95,
        lambda r: r.ddm_sampling_p95,
    ),
    "max_gap": _Reads(
        "fill_max_gap",
        lambda r: r.detection_limit,
        lambda r: r.thin_width,
        lambda r: r.max_gap_sampling_p95,
        lambda r: r.thin_width_sampling_p95,
    ),
    "top5_gap_sum": _Reads(
        "fill_top5_gap_sum",
        lambda r: r.top5_gap_sum_bound_hi,
        lambda r: r.thin_top5,
        lambda r: r.top5_gap_sum_sampling_p95,
        lambda r: r.thin_top5_sampling_p95,
    ),
}
FLAG_OF = {figure.field: figure.flag for figure in FIGURES.values()}


def threshold_map(thresholds: Thresholds = DEFAULT_THRESHOLDS) -> dict[str, float]:
    """The flag thresholds by figure, against which the verdicts are read."""
    return {figure: getattr(thresholds, reads.threshold) for figure, reads in _VERDICT_KEYS.items()}


def _threshold(thresholds: Thresholds | dict, figure: str) -> float | None:
    if isinstance(thresholds, Thresholds):
        return getattr(thresholds, _VERDICT_KEYS[figure].threshold)
    return thresholds.get(figure)


def verdicts(
    figures: Figures,
    thresholds: Thresholds | dict = DEFAULT_THRESHOLDS,
    held: frozenset[str] | set[str] = frozenset(),
    hysteresis: float | None = None,
) -> dict[str, dict]:
    """For each coverage figure with bounds: found, cannot tell or clear, against its flag's threshold.

    The level is the threshold, raised to what the benchmark's number of items drawn from the target shows
    by chance (its 95th percentile) where that is higher. "found": the lower bound (for the gaps: the widest
    stretch shown to hold less than a quarter of the target's items, or the five widest together; for DDM
    its lower bound) reaches the level; "clear": the upper bound (the detection limit, the top-5 bound, DDM's
    upper bound) is below it; "cannot tell" otherwise. A raised flag (``held``: figures whose flag was raised
    on the previous snapshot) stays found down to ``hysteresis`` times its level.
    """
    hysteresis = thresholds.hysteresis if hysteresis is None and isinstance(thresholds, Thresholds) else hysteresis
    rec = as_record(figures)
    out = {}
    for figure, reads in _VERDICT_KEYS.items():
        threshold = _threshold(thresholds, figure)
        upper, lower = reads.upper(rec), reads.lower(rec)
        if upper is None and lower is not None and figure == "top5_gap_sum":
            upper = 1.0  # null: no bound with these models (the whole axis), so never clear
        if threshold is None or upper is None or lower is None or upper != upper or lower != lower:
            continue
        level = max(threshold, reads.level(rec) or 0.0)
        found_level = max(threshold, reads.found(rec) or 0.0)
        if figure in held and hysteresis:
            found_level *= hysteresis
        if lower >= found_level:
            verdict = "found"
        elif upper < level:
            verdict = "clear"
        else:
            verdict = "cannot tell"
        out[figure] = {
            "verdict": verdict,
            "threshold": threshold,
            "level": level,
            "found_level": found_level,
            "lower": lower,
            "upper": upper,
        }
    return out


def retirement(figures: Figures, previous_state: str | None) -> tuple[bool, str]:
    """Whether a benchmark meets the retirement rule, and the evidence (or what holds it back), in words.

    The rule: the state is ``saturated`` now and was on the previous snapshot, or on the last two or more
    publication dates of the history by date (``saturated_since``): one rule (``vocabulary.STATE_RULE``), held
    twice.
    """
    rec = as_record(figures)
    if rec.state != "saturated":
        return False, ""
    since = rec.saturated_since
    if previous_state == "saturated":
        evidence = "saturated on two consecutive snapshots"
    elif since:
        evidence = f"saturated at every publication date since {since}"
    else:
        return False, "saturated on this snapshot only: retirement needs a second snapshot or two dates in a row"
    return True, evidence


def held_figures(previous_flags: frozenset[str] | set[str]) -> set[str]:
    """The figures whose flag was raised on the previous snapshot (their found level has the hysteresis)."""
    return {fig for fig, flag in FLAG_OF.items() if flag in previous_flags}


def evaluate_flags(
    figures: Figures,
    previous_flags: frozenset[str] | set[str] = frozenset(),
    previous_state: str | None = None,
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
) -> list[str]:
    """The flags of a snapshot given its figures and the previous snapshot's flags and state: ``revise`` and
    ``fill`` only where their figure's verdict is "found" (``verdicts``)."""
    flags = []
    rec = as_record(figures)
    if retirement(rec, previous_state)[0]:
        flags.append("retire")
    if rec.state == "stagnant":
        flags.append("watch")
    now = verdicts(rec, thresholds, held_figures(previous_flags))
    found = {k for k, v in now.items() if v["verdict"] == "found"}
    if "ddm" in found:
        flags.append("revise")
    if found & {"max_gap", "top5_gap_sum"}:
        flags.append("fill")
    return flags


def recorded_verdicts(
    figures: Figures,
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
    previous_flags: frozenset[str] | set[str] = frozenset(),
) -> dict[str, dict]:
    """The verdicts as a record keeps them: per figure its verdict, threshold, level and found level (the
    bounds themselves are the record's own fields)."""
    return {
        k: {key: v[key] for key in ("verdict", "threshold", "level", "found_level")}
        for k, v in verdicts(figures, thresholds, held_figures(previous_flags)).items()
    }


# One name per claim: a verdict's own name, never its figure's (``benchwatch.vocabulary.FIGURES`` says why).
VERDICT_NAMES = {figure.field: figure.verdict for figure in FIGURES.values()}
BOUND_NAMES = {
    field: name
    for figure in FIGURES.values()
    for field, name in ((figure.upper, figure.upper_name), (figure.lower, figure.lower_name))
}
_NAMES = VERDICT_NAMES
_UNSURE = _VERDICTS["cannot tell"].words


def bound_text(value: float | None) -> str:
    """A bound in words: the number, or "no bound with these models" where it is null (the whole axis)."""
    value = as_bound(value)
    return NO_BOUND if value is None else f"{value:.3f}"


def resolve_line(figure: str, need: dict) -> str:
    """What more data would decide a "cannot tell", in words (``pool_needed``'s answer for one figure)."""
    name = _NAMES[figure]
    parts = []
    if need.get("models"):
        least = "at least " if need.get("at_least") else ""
        parts.append(f"{least}about {need['models']} models answering every item")
    if need.get("samples"):
        parts.append(f"{need['samples']} samples per item from these models")
    if not parts:
        tried = need.get("largest_tried")
        return f"{name}: not even {tried} models answering every item would decide it" if tried else ""
    spread = (
        " (simulated with items of one discrimination: the spread of these items' discriminations needs more)"
        if need.get("at_least")
        else ""
    )
    return f"{name}: with {' or '.join(parts)}, a benchmark of this size without the flaw would be told clear{spread}"


def verdict_line(figure: str, v: dict) -> str:
    """One verdict in words, beside the figure it judged (a thin stretch, or Max Gap's bound)."""
    name = _NAMES[figure]
    level = v["found_level"] if v["verdict"] == "found" else v["level"]
    if figure == "ddm":
        if v["verdict"] == "found":
            return f"{name}: found, at least {v['lower']:.3f} (>= {level:.3g}) for any difficulty distribution"
        if v["verdict"] == "clear":
            return f"{name}: clear, at most {v['upper']:.3f} (< {level:.3g}) for any difficulty distribution"
        return f"{name}: {_UNSURE}, between {v['lower']:.3f} and {v['upper']:.3f} (level {level:.3g})"
    one = figure == "max_gap"
    if v["verdict"] == "found":
        which = "a thin stretch" if one else "five thin stretches"
        return (
            f"{name}: found, {which} {v['lower']:.3f} wide{'' if one else ' in all'} (>= {level:.3g}), shown to "
            "hold less than a quarter of the items the target puts there"
        )
    bound = "Max Gap's bound" if one else "the top-5 gap sum's bound"
    upper = as_bound(v["upper"])
    if v["verdict"] == "clear":
        return f"{name}: clear, {bound} {bound_text(upper)} (< {level:.3g}) for any difficulty distribution"
    what = "an empty stretch" if one else "five empty stretches in all"
    ruled = f"{what} up to {upper:.3f} wide cannot be ruled out" if upper is not None else f"{bound}: {NO_BOUND}"
    return f"{name}: {_UNSURE}, {ruled}; no thin stretch of {level:.3g} is shown"


def explain(
    figures: Figures,
    flags: list[str],
    previous_flags: frozenset[str] | set[str] = frozenset(),
    previous_state: str | None = None,
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
) -> list[str]:
    """Why the state and each flag are what they are: the figure that crossed which threshold, in words
    (one line each, the state first), for the home page."""
    rec = as_record(figures)
    state, index, top5 = rec.state, rec.saturation_index, rec.top5_mean
    ceiling = 1.0 if rec.ceiling is None else rec.ceiling
    evidence = state_evidence({**dict(rec), "state_from": rec.state_from or "paper_index"})
    if state == "unknown" or index is None:
        out = ["unknown: fewer than five models, no saturation index"]
    elif state == "discriminating":
        out = [f"discriminating: its top five are told apart {evidence}"]
    else:
        where = "within" if state == "saturated" else "more than"
        out = [
            f"{state}: its top five are within noise of each other {evidence}, their mean "
            f"{top5:.0%} {where} {CEILING_MARGIN:.0%} {'of' if state == 'saturated' else 'below'} the ceiling "
            f"{ceiling:.0%}"
        ]
    if rec.unplaced:
        out.append(rec.unplaced)
    found = verdicts(rec, thresholds, held_figures(previous_flags))
    for flag in flags:
        if flag == "retire":
            out.append(why_line(flag, retirement(rec, previous_state)[1]))
        elif flag == "watch":
            out.append(why_line(flag, f"{_FLAGS[flag].meaning}: more items, or harder ones, would tell them apart"))
        elif flag == "revise":
            out.append(why_line(flag, verdict_line("ddm", found["ddm"])))
        elif flag == "fill":
            parts = [verdict_line(k, v) for k, v in found.items() if FLAG_OF[k] == flag and v["verdict"] == "found"]
            out.append(why_line(flag, "; ".join(parts)))
    return out
