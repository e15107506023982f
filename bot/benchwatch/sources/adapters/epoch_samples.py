"""Epoch AI's own runs, per sample: the scores METR parsed from Epoch's Inspect logs.

Checked against the real files (``../shared/upstream/epoch_samples/``, METR/cross-domain-horizon @ e97c0245,
``src/epoch/data/parsed.csv`` and ``src/epoch/benchmarks_runs.csv``, written by ``src/epoch/parse_logs.py``):
``parsed.csv`` has one row per (run, sample) ``model,task,sample_id,score,benchmark,run_id``, ``score`` the
sample's mean over the run's epochs (the log's ``mean`` reduction); ``benchmarks_runs.csv`` has one row per
run ``id,task,model,Best score (across scorers),Scores,...``, ``model`` Epoch's own model-version name, the one
its hub shows. Runs are joined on ``run_id`` (a model can have several runs), each run a model of the
benchmark named after Epoch's model version (the run id added where one version has two runs).

Each run's mean over its samples is checked against Epoch's published best score: a run that disagrees by
more than ``tolerance`` (0.005) is listed with both numbers and left out of the fit (three 8-epoch GPQA
Diamond runs, at this commit); a run with no published score is kept and said so in the run log. ``url`` is
``parsed.csv``; the option ``runs`` is the runs table's URL (by default beside it); ``benchmarks`` maps each
``benchmark`` value to the benchmark it is published as.
"""

from __future__ import annotations

import io

import pandas as pd
from pydantic import Field

from benchwatch.errors import InputError
from benchwatch.sources.config import SourceConfig
from benchwatch.sources.http import Fetcher
from benchwatch.sources.options import SourceOptions
from benchwatch.sources.parsing import provenance, read_bytes, read_once, where
from benchwatch.sources.table import LONG_COLUMNS, SourceTable

BENCHMARKS = {
    "GPQA diamond": "Epoch samples GPQA Diamond",
    "OTIS Mock AIME 2024-2025": "Epoch samples OTIS Mock AIME 2024-2025",
    "SWE-Bench verified": "Epoch samples SWE-bench Verified",
    "FrontierMath-2025-02-28-Public": "Epoch samples FrontierMath public",
}
SAMPLE_COLUMNS = ("model", "sample_id", "score", "benchmark", "run_id")
RUN_COLUMNS = ("id", "model", "Best score (across scorers)")
TOLERANCE = 0.005


class Options(SourceOptions):
    """Epoch samples' options."""

    runs: str | None = None  # the runs table (default: benchmarks_runs.csv two folders above url)
    benchmarks: dict[str, str] = Field(default_factory=dict)  # Epoch's benchmark name -> ours (added to BENCHMARKS)
    tolerance: float = TOLERANCE  # a run's mean vs its published best score


def _csv(data: bytes, columns: tuple[str, ...], src: str, url: str) -> pd.DataFrame:
    try:
        frame = pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise InputError(where(src, url), f"not a readable CSV file: {exc}") from None
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputError(
            where(src, url), f"missing column(s) {', '.join(missing)}", field="columns", value=list(frame.columns)
        )
    return frame


def load(fetcher: Fetcher, cfg: SourceConfig) -> SourceTable:
    """Fetch the per-sample scores and the runs table; one per-item benchmark per Epoch benchmark."""
    opts = Options.of(cfg)
    src = cfg.name
    runs_url = cfg.url.rsplit("/", 2)[0] + "/benchmarks_runs.csv" if opts.runs is None else opts.runs
    names = {**BENCHMARKS, **opts.benchmarks}
    tolerance = opts.tolerance
    samples_dl = fetcher.get(cfg.url, source=src)
    runs_dl = fetcher.get(runs_url, source=src)
    samples = _csv(read_bytes(samples_dl, src), SAMPLE_COLUMNS, src, cfg.url)
    # a sample given twice: read once when repeated whole, an error naming it (and its run's model) otherwise
    samples, repeated = read_once(samples, ["benchmark", "run_id", "sample_id"], src, cfg.url)
    runs = _csv(read_bytes(runs_dl, src), RUN_COLUMNS, src, runs_url).drop_duplicates("id").set_index("id")
    score = pd.to_numeric(samples["score"], errors="coerce")
    bad = score.isna() | (score < 0) | (score > 1)
    if bad.any():
        first = int(bad.idxmax())
        raise InputError(
            where(src, cfg.url),
            "score is not a proportion",
            row=first + 2,
            field="score",
            value=samples["score"][first],
        )
    samples = samples.assign(score=score)
    unknown = sorted(set(samples["benchmark"]) - set(names))
    samples = samples[samples["benchmark"].isin(names)]
    excluded, notes, rows = [], [], []
    if repeated:
        notes.append(repeated)
    if unknown:
        notes.append(f"benchmarks not configured, left out: {', '.join(unknown)}")
    for (bench, run), part in samples.groupby(["benchmark", "run_id"], sort=True):
        name = names[bench]
        mean = float(part["score"].mean())
        if run in runs.index:
            version = str(runs.at[run, "model"])
            published = pd.to_numeric(runs.at[run, "Best score (across scorers)"], errors="coerce")
            if pd.notna(published) and abs(mean - float(published)) > tolerance:
                excluded.append(
                    {
                        "benchmark": name,
                        "model": f"{version} (run {run})",
                        "reason": f"its per-sample mean {mean:.3f} disagrees with Epoch's published best score "
                        f"{float(published):.3f}: left out of the fit",
                    }
                )
                continue
        else:
            version = str(part["model"].iloc[0])
            notes.append(f"{name}: run {run} ({version}) has no row in the runs table: no published score to check")
        rows.append((name, version, run, part))
    seen: dict[tuple[str, str], int] = {}
    for name, version, _run, _part in rows:
        seen[(name, version)] = seen.get((name, version), 0) + 1
    out = []
    for name, version, run, part in rows:
        label = version if seen[(name, version)] == 1 else f"{version} (run {run})"
        out.append(
            pd.DataFrame(
                {
                    "benchmark": name,
                    "model": label,
                    "item_id": part["sample_id"].astype(str),
                    "score": part["score"].map(repr),
                    "date": "",
                    "trials": "",
                }
            )
        )
    frame = pd.concat(out, ignore_index=True)[list(LONG_COLUMNS)] if out else pd.DataFrame(columns=LONG_COLUMNS)
    return SourceTable(
        src,
        cfg.url,
        frame,
        excluded=tuple(excluded),
        notes=tuple(notes),
        provenance=provenance(cfg.url, [samples_dl, runs_dl]),
    )
