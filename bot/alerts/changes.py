"""Alerts: one per change of state and per flag raised or cleared between two snapshots."""

from __future__ import annotations


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _state_title(bench: str, fig: dict) -> str:
    state = fig["state"]
    if state == "saturated":
        return f"{bench} is saturated: top-5 within noise at {_pct(fig['top5_mean'])}"
    if state == "stagnant":
        return f"{bench} is stagnant: top-5 within noise at {_pct(fig['top5_mean'])}, far below the ceiling"
    if state == "discriminating":
        return f"{bench} separates its top models (saturation index {fig['saturation_index']:.2f})"
    return f"{bench} has too few models to judge saturation"


_FLAG_TITLES = {
    "retire": "meets the retirement rule: saturated on two consecutive snapshots",
    "watch": "is on watch: stagnant, top models within noise far below the ceiling",
    "revise": "needs revision: difficulty mismatch DDM {ddm:.3f}",
    "fill": "has coverage gaps: Max Gap {max_gap:.3f}, top-5 gap sum {top5_gap_sum:.3f}",
}


def _alert(kind: str, bench: str, fig: dict, raised_at: str, title: str, **extra: object) -> dict:
    key = "state" if kind == "state" else f"{extra['flag']}-{kind}"
    return {
        "id": f"{bench}/{key}/{fig['revision']}",
        "benchmark": bench,
        "kind": kind,
        **extra,
        "revision": fig["revision"],
        "raised_at": raised_at,
        "title": title,
        "figures": {k: fig.get(k) for k in ("ddm", "max_gap", "top5_gap_sum", "saturation_index", "top1", "top5")},
    }


def diff_alerts(previous: dict | None, current: dict, raised_at: str) -> list[dict]:
    """Alerts for the move from ``previous`` (None for a new benchmark) to ``current`` figures."""
    bench = current["benchmark"]
    out = []
    before = previous["state"] if previous else None
    if current["state"] != before:
        out.append(
            _alert(
                "state",
                bench,
                current,
                raised_at,
                _state_title(bench, current),
                **{"from": before, "to": current["state"]},
            )
        )
    old_flags = set(previous.get("flags", [])) if previous else set()
    new_flags = set(current.get("flags", []))
    for flag in sorted(new_flags - old_flags):
        title = f"{bench} " + _FLAG_TITLES[flag].format(**current)
        out.append(_alert("raised", bench, current, raised_at, title, flag=flag))
    for flag in sorted(old_flags - new_flags):
        out.append(_alert("cleared", bench, current, raised_at, f"{bench}: the {flag} flag is cleared", flag=flag))
    return out


def notice_alert(kind: str, bench: str, revision: str, raised_at: str, title: str) -> dict:
    """An alert that is not a change of figures: a benchmark ``gone`` upstream, or new data ``held`` back."""
    return {
        "id": f"{bench}/{kind}/{revision}",
        "benchmark": bench,
        "kind": kind,
        "revision": revision,
        "raised_at": raised_at,
        "title": title,
        "figures": {},
    }
