"""The product's one vocabulary: the names, words, meanings, severity and colour of its flags, states, verdicts
and the figures it gives a verdict on. The rules raise these flags and verdicts, the alerts word them, the pages
show them; each reads them from here (a stage keeps no copy of its own). Imports nothing of the package, so every
stage may import it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Flag:
    """A flag a benchmark's snapshot can raise."""

    name: str  # as records keep it, and the badge's CSS class (``bw-flag-<name>``)
    title: str  # the alert's title after the benchmark's name; ``{...}``: the raising record's figures, formatted
    meaning: str  # its definition, as the pages show it where a record gives no reason of its own
    severity: int  # 0 the most severe: the order the rules raise the flags in


@dataclass(frozen=True)
class State:
    """A benchmark's saturation state."""

    name: str  # as records keep it, and the badge's CSS class (``bw-state-<name>``)
    word: str  # as the pages' badges and legends show it
    meaning: str
    severity: int  # 0 the most severe: the home table lists (and sorts) the most severe first
    colour: str  # the state's points and legend in the summary picture


@dataclass(frozen=True)
class Verdict:
    """A verdict on a coverage figure, against its flag's threshold."""

    name: str  # as records keep it (``verdicts.<figure>.verdict``)
    word: str  # in a few words, where a page lists the figures it was given on
    words: str  # in full, as the alerts and the figure table word it


@dataclass(frozen=True)
class Figure:
    """A coverage figure with a verdict, and the bounds the verdict reads (record fields, each named)."""

    field: str  # the record's field of the figure, and the verdict's key
    name: str  # the figure's own name
    verdict: str  # the verdict's name: one name per claim, never the figure's (see ``benchwatch.rules.flags``)
    upper: str  # the record's field of the bound "clear" rests on
    upper_name: str
    lower: str  # the record's field of the bound "found" rests on
    lower_name: str
    flag: str  # the flag its "found" raises


FLAGS: dict[str, Flag] = {
    f.name: f
    for f in (
        Flag(
            "retire",
            "meets the retirement rule: {retire}",
            "saturated on two snapshots (or publication dates) in a row",
            0,
        ),
        Flag(
            "watch",
            "is on watch: not yet solved, yet its leaders are within noise of each other{noise}",
            "not yet solved, yet its leaders are within noise of each other",
            1,
        ),
        Flag(
            "revise",
            "needs revision: its difficulties are found to miss the target, DDM at least {ddm_bound_lo}",
            "the items' difficulties are shown to be far from the target",
            2,
        ),
        Flag(
            "fill",
            "has a coverage hole: a thin stretch {thin_width} wide, shown to hold too few items",
            "a stretch of the difficulty axis is shown to hold too few items",
            3,
        ),
    )
}
FLAG_NAMES = tuple(FLAGS)

STATES: dict[str, State] = {
    s.name: s
    for s in (
        State("saturated", "saturated", "its top five are within noise of each other, near the ceiling", 0, "#d32f2f"),
        State(
            "stagnant", "stagnant", "its top five are within noise of each other, far below the ceiling", 1, "#ef6c00"
        ),
        State("discriminating", "discriminating", "its top five are told apart", 3, "#2e7d32"),
        State("unknown", "unknown", "fewer than five models: no saturation index", 2, "#8a8f98"),  # the ink
    )
}
STATE_NAMES = tuple(STATES)  # in the order the summary picture's legend lists them
# The one rule behind every state, in the words the legend, the plot, the pages and the feeds read
TOLD_APART_AT = 5  # a top tier of this many models or more: the top five cannot be told apart
STATE_RULE = (
    "the top five are told apart exactly when the fifth-best model is not in the best's tier (every pair of "
    "models tested at once, Holm's correction); within noise, they are saturated when their mean is within 5 "
    "points of the ceiling, stagnant when further below it"
)

VERDICTS: dict[str, Verdict] = {
    v.name: v
    for v in (
        Verdict("found", "found", "found"),
        Verdict("cannot tell", "cannot tell", "cannot tell with these models"),
        Verdict("clear", "clear", "clear"),
    )
}

# A verdict asks whether the items leave a hole in the axis at least the level wide (one stretch, or five
# together): "found" rests on a *thin stretch* (shown to hold less than a quarter of the items the target puts
# there), "clear" on *Max Gap's bound* (no empty stretch can be wider). Neither is the Max Gap figure (the widest
# spacing of the fitted positions), so a verdict never carries that figure's name.
FIGURES: dict[str, Figure] = {
    f.field: f
    for f in (
        Figure(
            "ddm",
            "DDM",
            "DDM",
            "ddm_bound_hi",
            "DDM's upper bound (for any difficulty distribution)",
            "ddm_bound_lo",
            "DDM's lower bound (for any difficulty distribution)",
            "revise",
        ),
        Figure(
            "max_gap",
            "Max Gap",
            "Coverage hole",
            "detection_limit",
            "Max Gap's bound (an empty stretch of at most)",
            "thin_width",
            "thin stretch (shown to hold too few items)",
            "fill",
        ),
        Figure(
            "top5_gap_sum",
            "top-5 gap sum",
            "Five coverage holes",
            "top5_gap_sum_bound_hi",
            "top-5 gap sum's bound (five empty stretches of at most, in all)",
            "thin_top5",
            "five thin stretches (in all)",
            "fill",
        ),
    )
}

# Every figure a record holds, by kind, each a field of the record (the stages list them from here, never by hand):
# the coverage figures (each with its _lo, _hi and _plugin variants; those of ``FIGURES`` have a verdict too) and the
# saturation figures of the scores.
COVERAGE_FIGURES = ("ddm", "max_gap", "top3_gap_sum", "top5_gap_sum")
SATURATION_FIGURES = ("saturation_index", "top1", "top5", "top5_mean")
BOUND_FIELDS = (  # the record's fields of the bounds the verdicts read, and where the stretches behind them lie
    "detection_limit",
    "detection_stretch",
    "top5_gap_sum_bound_hi",
    "thin_stretches",
    "thin_width",
    "thin_top5",
    "ddm_bound_lo",
    "ddm_bound_hi",
)

NO_BOUND = "no bound with these models"  # a null upper bound: it would cover the whole axis
GAP_BOUNDS = ("detection_limit", "top5_gap_sum_bound_hi")  # the records' upper bounds on gaps (``as_bound``)
NO_BOUND_FROM = 0.95  # an upper bound on a gap this wide or wider spans (nearly) the whole axis: it bounds nothing


def as_bound(value: float | None) -> float | None:
    """An upper bound on a gap as the pages, feeds, downloads and commands give it: None (read ``NO_BOUND``) where
    it is null or spans ``NO_BOUND_FROM`` of the axis or more (a stretch of 0.995 over 0.0025 - 0.9975 says
    nothing a reader can use)."""
    return None if value is None or value != value or value >= NO_BOUND_FROM else value


def why_line(name: str, reason: str) -> str:
    """A line of a record's ``why``: the state's or flag's name, then the reason it is what it is."""
    return f"{name}: {reason}"


def reason(why: list | None, name: str) -> str | None:
    """The reason a record's ``why`` gives for the state or flag ``name`` (its ``why_line``), or None."""
    head = why_line(name, "")
    for line in why or []:
        if isinstance(line, str) and line.startswith(head):
            return line.removeprefix(head)
    return None
