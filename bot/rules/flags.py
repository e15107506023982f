"""Retirement and revision flags, with hysteresis so that a figure at a threshold does not flap."""

from __future__ import annotations

from dataclasses import dataclass

FLAGS = ("retire", "watch", "revise", "fill")
SATURATION_LINE = 0.7


@dataclass(frozen=True)
class Thresholds:
    """Raising thresholds; a raised flag clears only below ``hysteresis`` times its threshold."""

    revise_ddm: float = 0.10
    fill_max_gap: float = 0.10
    fill_top5_gap_sum: float = 0.30
    hysteresis: float = 0.9


DEFAULT_THRESHOLDS = Thresholds()


def _above(value: float | None, threshold: float, held: bool, hysteresis: float, floor: float | None = None) -> bool:
    """A figure at or above its threshold (lowered by the hysteresis for a raised flag) and above its floor.

    ``floor`` is the figure's level on target-matched benchmarks measured by the same pool that at most 5%
    of them exceed on any flagged figure (``{figure}_null_flag``): at or below it, the figure is within what
    this pool shows by chance, and no flag fires.
    """
    if value is None:
        return held
    if floor is not None and value <= floor:
        return False
    return value >= (threshold * hysteresis if held else threshold)


def _floor(figures: dict, key: str) -> float | None:
    """The level a figure must exceed to flag: the joint 5% level, else the 95th percentile, of its floor."""
    value = figures.get(f"{key}_null_flag")
    return figures.get(f"{key}_null_p95") if value is None else value


def retirement(figures: dict, previous_state: str | None) -> tuple[bool, str]:
    """Whether a benchmark meets the retirement rule, and the evidence (or what holds it back), in words.

    The rule: the state is ``saturated`` now and was on the previous snapshot, or on the last two or more
    publication dates of the history by date (``saturated_since``); and the saturation index's 95% interval
    stays at or above 0.7.
    """
    if figures.get("state") != "saturated":
        return False, ""
    since = figures.get("saturated_since")
    if previous_state == "saturated":
        evidence = "saturated on two consecutive snapshots"
    elif since:
        evidence = f"saturated at every publication date since {since}"
    else:
        return False, "saturated on this snapshot only: retirement needs a second snapshot or two dates in a row"
    low = figures.get("saturation_index_lo")
    if low is not None and low < SATURATION_LINE:
        return False, f"{evidence}, but the index's 95% interval still reaches {low:.2f} < {SATURATION_LINE}"
    return True, evidence


def evaluate_flags(
    figures: dict,
    previous_flags: frozenset[str] | set[str] = frozenset(),
    previous_state: str | None = None,
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
) -> list[str]:
    """The flags of a snapshot given its figures and the previous snapshot's flags and state."""
    t, h = thresholds, thresholds.hysteresis
    flags = []
    if retirement(figures, previous_state)[0]:
        flags.append("retire")
    if figures.get("state") == "stagnant":
        flags.append("watch")
    if _above(figures.get("ddm"), t.revise_ddm, "revise" in previous_flags, h, _floor(figures, "ddm")):
        flags.append("revise")
    held = "fill" in previous_flags
    gap = _above(figures.get("max_gap"), t.fill_max_gap, held, h, _floor(figures, "max_gap"))
    top5 = _above(figures.get("top5_gap_sum"), t.fill_top5_gap_sum, held, h, _floor(figures, "top5_gap_sum"))
    if gap or top5:
        flags.append("fill")
    return flags


def _crossed(figures: dict, key: str, label: str, threshold: float, held: bool, hysteresis: float) -> str:
    value, floor = figures.get(key), _floor(figures, key)
    level = threshold * hysteresis if held else threshold
    text = f"{label} {value:.3f} >= {level:.3g}" + (" (held: clears below it)" if held else "")
    return text + (f", above this pool's floor {floor:.3f}" if floor is not None else "")


def explain(
    figures: dict,
    flags: list[str],
    previous_flags: frozenset[str] | set[str] = frozenset(),
    previous_state: str | None = None,
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
) -> list[str]:
    """Why the state and each flag are what they are: the figure that crossed which threshold, in words
    (one line each, the state first), for the home page."""
    t, h = thresholds, thresholds.hysteresis
    state, index, top5 = figures.get("state"), figures.get("saturation_index"), figures.get("top5_mean")
    ceiling = figures.get("ceiling", 1.0)
    if state == "unknown" or index is None:
        out = ["unknown: fewer than five models, no saturation index"]
    elif state == "discriminating":
        out = [f"discriminating: saturation index {index:.2f} < {SATURATION_LINE}"]
    else:
        where = "near" if state == "saturated" else "far below"
        out = [
            f"{state}: saturation index {index:.2f} >= {SATURATION_LINE}, the top five's mean "
            f"{top5:.2f} {where} the ceiling {ceiling:g}"
        ]
    for flag in flags:
        if flag == "retire":
            out.append(f"retire: {retirement(figures, previous_state)[1]}")
        elif flag == "watch":
            out.append("watch: stagnant (top models indistinguishable, far from the ceiling)")
        elif flag == "revise":
            held = "revise" in previous_flags
            out.append("revise: " + _crossed(figures, "ddm", "DDM", t.revise_ddm, held, h))
        elif flag == "fill":
            held = "fill" in previous_flags
            parts = []
            for key, label, level in (
                ("max_gap", "Max Gap", t.fill_max_gap),
                ("top5_gap_sum", "top-5 gap sum", t.fill_top5_gap_sum),
            ):
                if _above(figures.get(key), level, held, h, _floor(figures, key)):
                    parts.append(_crossed(figures, key, label, level, held, h))
            out.append("fill: " + "; ".join(parts))
    return out
