"""Alerts: one per change of state and per flag raised or cleared between two snapshots."""

from __future__ import annotations

from benchwatch.metrics import state_evidence
from benchwatch.record import BenchmarkRecord
from benchwatch.rules import retirement
from benchwatch.vocabulary import FIGURES, FLAGS, VERDICTS


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}%"


def _by(fig: BenchmarkRecord) -> str:
    words = state_evidence(dict(fig))  # the figures as the metrics read them: every field, None where unset
    return f" {words}" if words else ""


def _state_title(bench: str, fig: BenchmarkRecord) -> str:
    state = fig.state
    if state == "saturated":
        return (
            f"{bench} is saturated: its top five are within noise of each other{_by(fig)}, at a mean of "
            f"{_pct(fig.top5_mean)}"
        )
    if state == "stagnant":
        return (
            f"{bench} is stagnant: its top five are within noise of each other{_by(fig)}, at a mean of "
            f"{_pct(fig.top5_mean)}, more than 5 points below the ceiling"
        )
    if state == "discriminating":
        return f"{bench} separates its top models{_by(fig)}"
    return f"{bench} has too few models to judge saturation"


def _alert(kind: str, bench: str, fig: BenchmarkRecord, raised_at: str, title: str, **extra: object) -> dict:
    key = {
        "state": "state",
        "tier": "top-tier",
        "verdict": f"verdict-{extra.get('figure')}",
        "model": "item-model",
    }.get(kind)
    key = key or f"{extra['flag']}-{kind}"
    return {
        "id": f"{bench}/{key}/{fig.revision}",
        "benchmark": bench,
        "kind": kind,
        **extra,
        "revision": fig.revision,
        "raised_at": raised_at,
        "title": title,
        "figures": {  # the figures at the time
            "ddm": fig.ddm,
            "max_gap": fig.max_gap,
            "top5_gap_sum": fig.top5_gap_sum,
            "detection_limit": fig.detection_limit,
            "ddm_bound_lo": fig.ddm_bound_lo,
            "ddm_bound_hi": fig.ddm_bound_hi,
            "saturation_index": fig.saturation_index,
            "top1": fig.top1,
            "top5": fig.top5,
        },
    }


def diff_alerts(previous: BenchmarkRecord | None, current: BenchmarkRecord, raised_at: str) -> list[dict]:
    """Alerts for the move from ``previous`` (None for a new benchmark) to ``current`` figures."""
    bench = current.benchmark
    out = []
    before = previous.state if previous is not None else None
    if current.state != before:
        out.append(
            _alert(
                "state",
                bench,
                current,
                raised_at,
                _state_title(bench, current),
                **{"from": before, "to": current.state},
            )
        )
    old_flags = set(previous.flags or []) if previous is not None else set()
    new_flags = set(current.flags or [])
    for flag in sorted(new_flags - old_flags):
        shown = {"ddm_bound_lo": _three(current.ddm_bound_lo), "thin_width": _three(current.thin_width)}
        shown["noise"] = _by(current)
        shown["retire"] = retirement(current, before)[1]  # the rule that fired, as the flag's rules word it
        title = f"{bench} " + FLAGS[flag].title.format(**shown)
        out.append(_alert("raised", bench, current, raised_at, title, flag=flag))
    for flag in sorted(old_flags - new_flags):
        out.append(_alert("cleared", bench, current, raised_at, f"{bench}: the {flag} flag is cleared", flag=flag))
    out += _model_alerts(previous, current, raised_at)
    out += _verdict_alerts(previous, current, raised_at)
    out += _tier_alerts(previous, current, raised_at)
    return out


def _three(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _path(record: BenchmarkRecord | None) -> str | None:
    """A per-item record's item model path ("1PL" for one made before the item model was checked)."""
    if record is None or record.kind != "items":
        return None
    return record.item_model or "1PL"


def _model_alerts(previous: BenchmarkRecord | None, current: BenchmarkRecord, raised_at: str) -> list[dict]:
    """An alert when the path of the bounds changes: withheld (the widened item model does not fit, or blanks stand
    for failures), over a spread of discriminations (2PL), or the 1PL's again; a new benchmark's is news only when
    its bounds are withheld (most benchmarks' discriminations spread: a 2PL's bounds are the usual case)."""
    before, now = _path(previous), _path(current)
    if now is None or before == now or (before is None and now != "withheld"):
        return []
    bench = current.benchmark
    title = {
        "withheld": f"{bench}: its bounds, fill and revise are withheld: {current.withheld or 'misfit'}",
        "2PL": f"{bench}: its bounds now hold over a spread of discriminations (each item's integrated out)",
        "1PL": f"{bench}: its bounds are the 1PL's again: the items' discriminations show no spread",
    }[now]
    return [_alert("model", bench, current, raised_at, title, **{"from": before, "to": now})]


def _names(models: list[str], most: int = 5) -> str:
    shown = ", ".join(models[:most])
    return shown + (f" and {len(models) - most} more" if len(models) > most else "")


def _tier_alerts(previous: BenchmarkRecord | None, current: BenchmarkRecord, raised_at: str) -> list[dict]:
    """An alert when the top tier changes (a model joins or leaves it), where the previous record had one."""
    before, now = previous.top_tier if previous is not None else None, current.top_tier
    if before is None or now is None or set(before) == set(now):
        return []
    joined = [m for m in now if m not in set(before)]
    left = [m for m in before if m not in set(now)]
    bench = current.benchmark
    parts = [f"joined: {_names(joined)}" if joined else "", f"left: {_names(left)}" if left else ""]
    plural = "s" if len(now) != 1 else ""
    title = f"{bench}: the top tier is now {len(now)} model{plural} ({'; '.join(p for p in parts if p)})"
    return [_alert("tier", bench, current, raised_at, title, joined=joined, left=left, size=len(now))]


def _verdict(record: BenchmarkRecord | None, figure: str) -> str | None:
    verdicts = (record.verdicts if record is not None else None) or {}
    return verdicts.get(figure, {}).get("verdict")


def _verdict_alerts(previous: BenchmarkRecord | None, current: BenchmarkRecord, raised_at: str) -> list[dict]:
    """One alert per coverage verdict that changed (found, cannot tell, clear), where the previous record had
    verdicts (a new benchmark's verdicts are news of its own: its flags say what matters)."""
    if previous is None or not previous.verdicts:
        return []
    bench, out = current.benchmark, []
    for key, figure in FIGURES.items():  # each under its verdict's own name, never the figure's
        before, now = _verdict(previous, key), _verdict(current, key)
        if before == now or now is None:
            continue
        was = VERDICTS[before].words if before is not None and before in VERDICTS else "not judged"
        title = f"{bench}: {figure.verdict} is now {VERDICTS[now].words} (was {was})"
        out.append(_alert("verdict", bench, current, raised_at, title, figure=key, **{"from": before, "to": now}))
    return out


def notice_alert(kind: str, bench: str, revision: str, raised_at: str, title: str) -> dict:
    """An alert that is not a change of figures: a benchmark ``gone`` upstream, new data ``held`` back, or an
    item count that ``grew`` past [rules] max_growth."""
    return {
        "id": f"{bench}/{kind}/{revision}",
        "benchmark": bench,
        "kind": kind,
        "revision": revision,
        "raised_at": raised_at,
        "title": title,
        "figures": {},
    }
