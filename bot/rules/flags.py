"""Retirement and revision flags, with hysteresis so that a figure at a threshold does not flap."""

from __future__ import annotations

from dataclasses import dataclass

FLAGS = ("retire", "watch", "revise", "fill")


@dataclass(frozen=True)
class Thresholds:
    """Raising thresholds; a raised flag clears only below ``hysteresis`` times its threshold."""

    revise_ddm: float = 0.10
    fill_max_gap: float = 0.10
    fill_top5_gap_sum: float = 0.30
    hysteresis: float = 0.9


DEFAULT_THRESHOLDS = Thresholds()


def _above(value: float | None, threshold: float, held: bool, hysteresis: float) -> bool:
    if value is None:
        return held
    return value >= (threshold * hysteresis if held else threshold)


def evaluate_flags(
    figures: dict,
    previous_flags: frozenset[str] | set[str] = frozenset(),
    previous_state: str | None = None,
    thresholds: Thresholds = DEFAULT_THRESHOLDS,
) -> list[str]:
    """The flags of a snapshot given its figures and the previous snapshot's flags and state."""
    t, h = thresholds, thresholds.hysteresis
    flags = []
    if figures.get("state") == "saturated" and previous_state == "saturated":
        flags.append("retire")
    if figures.get("state") == "stagnant":
        flags.append("watch")
    if _above(figures.get("ddm"), t.revise_ddm, "revise" in previous_flags, h):
        flags.append("revise")
    held = "fill" in previous_flags
    if _above(figures.get("max_gap"), t.fill_max_gap, held, h) or _above(
        figures.get("top5_gap_sum"), t.fill_top5_gap_sum, held, h
    ):
        flags.append("fill")
    return flags
