"""Audit a local file: per-item responses (full audit) or item difficulties on z (coverage only)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from benchwatch.errors import InputError
from benchwatch.irt import DEFAULT_SCALE
from benchwatch.metrics import (
    UNIFORM,
    Target,
    Tiers,
    binomial_gap_interval,
    coverage,
    index_interval,
    saturation,
    score_intervals,
)
from benchwatch.pipeline.audit import BenchmarkAudit, audit_benchmark, tiers_of_board, unauditable
from benchwatch.pipeline.by_date import BY_DATE_COLUMNS, saturation_runs
from benchwatch.progress import Progress
from benchwatch.rules import threshold_map
from benchwatch.sources import fetch_csv_file
from benchwatch.store import content_revision, validate_difficulties, validate_responses

SATURATION_KEYS = ("saturation_index", "band", "state", "top1", "top5", "top5_mean", "n_models")


def coverage_only(path: str | Path, target: Target = UNIFORM, *, rows: pd.DataFrame | None = None) -> list[dict]:
    """Coverage figures of each benchmark in a difficulty file (the saturation keys are null); ``rows``:
    the file's table, already validated by ``validate_difficulties``."""
    if rows is None:
        table = fetch_csv_file(path)
        rows = validate_difficulties(table.frame, table.location)
    df = rows
    out = []
    for name, rows in df.groupby("benchmark", sort=True):
        cov = coverage(rows["z"].to_numpy(), target)
        rec = {
            "benchmark": name,
            "n_items": cov.n_items,
            "ddm": cov.ddm,
            "max_gap": cov.max_gap,
            "top3_gap_sum": cov.top3_gap_sum,
            "top5_gap_sum": cov.top5_gap_sum,
            "gaps": [{"lo": g.lo, "hi": g.hi, "width": g.width} for g in cov.gaps],
            "target": cov.target,
            "method": None,
            "scale": "given",
            "converged": None,
        }
        out.append(rec | dict.fromkeys(SATURATION_KEYS))
    return out


def audit_responses(
    path: str | Path,
    *,
    method: str = "map",
    scale: str = DEFAULT_SCALE,
    target: Target = UNIFORM,
    sampler: str = "auto",
    rows: pd.DataFrame | None = None,
    chance_from: str | None = None,
    thresholds: dict[str, float] | None = None,
) -> list[BenchmarkAudit]:
    """Full audits of each benchmark in a long-format responses file (``rows``: its table, already
    validated by ``validate_responses``; ``chance_from``: where its chance floors came from, in words;
    ``thresholds``: the flag thresholds by figure, ``benchwatch.rules.threshold_map``'s, default the rules')."""
    location = str(path)
    chance_from = chance_from or "a chance column in the file"
    if rows is None:
        table = fetch_csv_file(path)
        rows, location = validate_responses(table.frame, table.location), table.location
        chance_from = table.chance_from or chance_from
    df = rows
    audits = []
    groups = list(df.groupby("benchmark", sort=True))
    bar = Progress(len(groups), "audit")
    for name, rows in groups:
        bar.step(str(name))
        reason = unauditable(rows)
        try:
            if reason is None:
                audits.append(
                    audit_benchmark(
                        rows,
                        source=location,
                        method=method,
                        scale=scale,
                        target=target,
                        sampler=sampler,
                        thresholds=threshold_map() if thresholds is None else thresholds,
                        progress=bar.note,
                        chance_from=chance_from if "chance" in rows and rows["chance"].notna().any() else None,
                    )
                )
        except (ValueError, ArithmeticError) as exc:  # a data set the fit or the scale cannot take
            reason = str(exc)
        if reason is not None:
            bar.close()
            raise InputError(location, f"benchmark {name!r} cannot be audited: {reason}")
    bar.close()
    return audits


def _top_models(rows: pd.DataFrame, top: Sequence[tuple[str, float]], n: int) -> list[dict]:
    """The top models with each score's 95% interval from ``score_intervals`` (the tiers' own): the standard
    error the board publishes where it gives one, else Wilson's over its test set."""
    given = {}
    if "stderr" in rows.columns:
        given = dict(zip(rows["model"].astype(str), pd.to_numeric(rows["stderr"], errors="coerce"), strict=True))
    out = []
    for m, s in top:
        lo, hi = score_intervals(s, n, given.get(str(m), float("nan")))
        out.append({"model": m, "score": s, "lo": float(lo), "hi": float(hi)})
    return out


def _leaderboard_figures(name: str, rows: pd.DataFrame, ceiling: float) -> dict:
    n = int(rows["n_items"].iloc[0])
    sat = saturation(rows["model"].to_numpy(), rows["score"].to_numpy(), n, ceiling)
    gap = published_gap_interval(rows, sat)
    if gap is not None:  # the leaderboard's own standard errors decide the state, not the paper's index
        sat = sat.decided_by("published_se", *gap)
    out = {
        "benchmark": name,
        **sat.summary(),
        "top_models": _top_models(rows, sat.top_models, n),
        "ceiling": ceiling,
    }
    if sat.saturation_index is not None:  # the index's interval, from the interval of the top gap
        assert sat.top1 is not None and sat.top5 is not None  # an index is of the top-1 and top-5 scores
        gap = gap or binomial_gap_interval(sat.top1, sat.top5, n)
        lo, hi = index_interval(*gap, sat.top1, sat.top5, n)
        out |= {"saturation_index_lo": lo, "saturation_index_hi": hi}
        if sat.state_from == "published_se":
            out |= {"top_gap_lo": sat.gap_lo, "top_gap_hi": sat.gap_hi}
    return out


def published_gap_interval(rows: pd.DataFrame, sat, z: float = 1.959963984540054) -> tuple[float, float] | None:
    """The 95% interval of top-1 minus top-5 from the standard errors the leaderboard publishes for both (the
    two scores independent), or None where it does not publish them."""
    if sat.top5 is None or "stderr" not in rows.columns:
        return None
    first, fifth = sat.top_models[0][0], sat.top_models[4][0]
    se = rows.assign(model=rows["model"].astype(str)).set_index("model")["stderr"]
    se = se[~se.index.duplicated()]
    pair = pd.to_numeric(se.reindex([first, fifth]), errors="coerce").to_numpy(float)
    if pair.size != 2 or not np.all(np.isfinite(pair)):
        return None
    half = z * float(np.hypot(*pair))
    return sat.top1 - sat.top5 - half, sat.top1 - sat.top5 + half


def leaderboard_saturation(table: pd.DataFrame, *, ceiling: float = 1.0) -> list[dict]:
    """The published saturation index of each aggregate leaderboard in a validated table."""
    return [_leaderboard_figures(name, rows, ceiling) for name, rows in table.groupby("benchmark", sort=True)]


def leaderboard_by_date(rows: pd.DataFrame, ceiling: float = 1.0) -> pd.DataFrame | None:
    """The index at each publication date, over the models published by then (None without dates)."""
    if "date" not in rows.columns or rows["date"].isna().all():
        return None
    out = []
    for day in sorted(rows["date"].dropna().unique()):
        pool = rows[rows["date"] <= day]
        fig = _leaderboard_figures("", pool, ceiling)
        fig["top_tier_size"] = tiers_of_board(pool).summary()["top_tier_size"]
        out.append({"date": pd.Timestamp(day).strftime("%Y-%m-%d")} | {k: fig[k] for k in BY_DATE_COLUMNS if k in fig})
    return pd.DataFrame(out).reindex(columns=BY_DATE_COLUMNS)


def audit_leaderboard(
    rows: pd.DataFrame, *, source: str, ceiling: float = 1.0
) -> tuple[dict, pd.DataFrame | None, Tiers]:
    """The record of an aggregate-only benchmark (coverage figures are null), its history by date, and the
    tiers of its models from their standard errors."""
    name = str(rows["benchmark"].iloc[0])
    rec = {
        **dict.fromkeys(("ddm", "max_gap", "top3_gap_sum", "top5_gap_sum", "method", "scale", "converged")),
        **dict.fromkeys(("target", "solved_share")),
        "gaps": [],
        "kind": "aggregate",
        "revision": content_revision(rows),
        "source": source,
        "synthetic": False,
        **_leaderboard_figures(name, rows, ceiling),
    }
    by_date = leaderboard_by_date(rows, ceiling)
    if by_date is not None:
        rec.update(saturation_runs(by_date))
    tiers = tiers_of_board(rows)
    rec.update(tiers.summary())
    return rec, by_date, tiers
