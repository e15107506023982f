"""Audit a local file: per-item responses (full audit) or item difficulties on z (coverage only)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from benchwatch.errors import InputError
from benchwatch.irt import DEFAULT_SCALE
from benchwatch.metrics import UNIFORM, Target, Tiers, coverage, leaderboard_figures, tiers_of_board
from benchwatch.pipeline.audit import BenchmarkAudit, audit_benchmark, unauditable
from benchwatch.pipeline.by_date import BY_DATE_COLUMNS, saturation_runs
from benchwatch.progress import Progress
from benchwatch.record import BenchmarkRecord, as_record
from benchwatch.rules import threshold_map
from benchwatch.sources import fetch_csv_file
from benchwatch.store import content_revision, validate_difficulties, validate_responses
from benchwatch.vocabulary import COVERAGE_FIGURES

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
            **{k: getattr(cov, k) for k in COVERAGE_FIGURES},
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
    names = sorted(df["benchmark"].unique())
    bar = Progress(len(names), "audit")
    for name in names:  # each benchmark's rows taken in turn (one benchmark's are the table itself, not a copy)
        rows = df if len(names) == 1 else df[df["benchmark"] == name]
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


def leaderboard_by_date(rows: pd.DataFrame, ceiling: float = 1.0) -> pd.DataFrame | None:
    """The index at each publication date, over the models published by then (None without dates)."""
    if "date" not in rows.columns or rows["date"].isna().all():
        return None
    out = []
    for day in sorted(rows["date"].dropna().unique()):
        pool = rows[rows["date"] <= day]
        fig = leaderboard_figures("", pool, ceiling)  # its state and top tier from the tiers at that date
        out.append({"date": pd.Timestamp(day).strftime("%Y-%m-%d")} | {k: fig[k] for k in BY_DATE_COLUMNS if k in fig})
    return pd.DataFrame(out).reindex(columns=BY_DATE_COLUMNS)


def audit_leaderboard(
    rows: pd.DataFrame, *, source: str, ceiling: float = 1.0
) -> tuple[BenchmarkRecord, pd.DataFrame | None, Tiers]:
    """The record of an aggregate-only benchmark (coverage figures are null; made once, as the typed record), its
    history by date, and the tiers of its models from their standard errors."""
    name = str(rows["benchmark"].iloc[0])
    rec = {
        **dict.fromkeys((*COVERAGE_FIGURES, "method", "scale", "converged")),
        **dict.fromkeys(("target", "solved_share")),
        "gaps": [],
        "kind": "aggregate",
        "revision": content_revision(rows),
        "source": source,
        "synthetic": False,
        **leaderboard_figures(name, rows, ceiling),
    }
    by_date = leaderboard_by_date(rows, ceiling)
    if by_date is not None:
        rec.update(saturation_runs(by_date))
    tiers = tiers_of_board(rows)
    rec.update(tiers.summary())
    return as_record(rec), by_date, tiers
