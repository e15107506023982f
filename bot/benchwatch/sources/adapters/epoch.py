"""Epoch AI benchmarking hub: ``benchmark_data.zip``, one CSV per benchmark (aggregate only).

Checked against the real download (``../shared/upstream/epoch/benchmark_data.zip``, the hub's CSVs as
of 2026-01-20): file names are lower-case stems (``gpqa_diamond.csv``, ``otis_mock_aime_2024_2025.csv``);
Epoch's own runs carry ``Model version, mean_score, Best score (across scorers), Release date, ...,
stderr, Log viewer, Logs, Started at, id`` (one row per model version, proportions); the ``*_external.csv``
files of results reported by others each have a score column of their own (``EM``, ``Average``,
``Percent correct``, ...) and may list a model more than once (other shot counts or sources).

Only the configured files are read and checked: ``[sources.NAME.benchmarks.<stem>]`` gives each one's
``n_items`` (the test-set size the saturation index needs) and, where it is not Epoch's own
``Best score (across scorers)``, its ``score_column`` and ``percent``. The archive's other files are
counted in one log line. In Epoch's own files (one row per model version) a row repeated whole is read
once and a model listed twice with two scores is an error; in the external files a model listed more than
once keeps its best score (the others are listed on the provenance list). A file cut short (its last line
short of the header's fields, or no final newline) is refused. ``stderr`` is kept where the file has it.
The archive is read in memory, never extracted, and its member names are only ever used as labels.
"""

from __future__ import annotations

import io
import zipfile
from pathlib import Path, PurePosixPath
from typing import Any

import pandas as pd
from pydantic import Field

from benchwatch.errors import InputError
from benchwatch.sources.config import SourceConfig
from benchwatch.sources.http import Fetcher
from benchwatch.sources.options import SourceOptions
from benchwatch.sources.parsing import proportion, provenance, where, whole_csv
from benchwatch.sources.table import AGGREGATE_COLUMNS, SourceTable, empty_long

MAX_UNCOMPRESSED = 256 * 1024 * 1024
OWN_SCORE = "Best score (across scorers)"
MODEL = "Model version"
DATE = "Release date"


class Options(SourceOptions):
    """Epoch's options."""

    # file stem -> its test-set size, or a table: n_items, score_column, percent, label (checked by _spec)
    benchmarks: dict[str, int | dict[str, Any]] = Field(default_factory=dict)


def _spec(stem: str, table: object, src: str) -> dict:
    if isinstance(table, int | float):  # the short form: stem = n_items
        table = {"n_items": table}
    if not isinstance(table, dict) or not isinstance(table.get("n_items"), int) or table["n_items"] < 1:
        raise InputError(src, "expected a table with a whole n_items >= 1", field=f"benchmarks.{stem}", value=table)
    return {"score_column": OWN_SCORE, "percent": False, "label": stem, **table}


def _read_member(body: bytes, filename: str, src: str, url: str) -> pd.DataFrame:
    try:
        return pd.read_csv(io.BytesIO(body), dtype=str, keep_default_na=False, na_values=[])
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise InputError(where(src, url), f"{filename} is not a readable CSV file: {exc}") from None


def load(fetcher: Fetcher, cfg: SourceConfig) -> SourceTable:
    """Fetch the archive and read the configured CSVs in it."""
    opts = Options.of(cfg)
    dl = fetcher.get(cfg.url, source=cfg.name)
    src, url = cfg.name, cfg.url
    specs = {stem: _spec(stem, t, src) for stem, t in opts.benchmarks.items()}
    if not specs:
        raise InputError(src, "no benchmarks configured: add [sources.NAME.benchmarks.<file stem>] tables")
    archive, members = _csv_members(dl.path, src, url)
    rows, excluded, notes, gone = [], [], [], []
    for stem, spec in sorted(specs.items()):
        member = members.get(stem)
        if member is None:
            gone.append(stem)
            continue
        frame = _member_frame(archive, member, spec, src, url)
        best, listed_again, unnamed = _best_rows(frame, member.filename, spec, src, url)
        rows += best
        excluded += listed_again
        if unnamed:
            notes.append(f"{member.filename}: {unnamed} scored row(s) without a {MODEL!r} left out")
    if gone:
        notes.append(f"configured but not in the archive: {', '.join(gone)}")
    others = sorted(set(members) - set(specs))
    if others:
        notes.append(f"{len(others)} file(s) not configured, not read")
    return SourceTable(
        src,
        url,
        empty_long(),
        aggregates=pd.DataFrame(rows, columns=[*AGGREGATE_COLUMNS, "stderr"]),
        provenance=provenance(url, [dl]),
        excluded=tuple(excluded),
        notes=tuple(notes),
        gone=tuple(f"Epoch {specs[s]['label']}" for s in gone),
    )


def _csv_members(path: Path, src: str, url: str) -> tuple[zipfile.ZipFile, dict[str, zipfile.ZipInfo]]:
    """The archive, opened in memory, and its CSV files by stem (an archive that is not a zip, or holds no CSV
    file, refused)."""
    try:
        archive = zipfile.ZipFile(path)
    except zipfile.BadZipFile:
        raise InputError(where(src, url), "not a zip archive") from None
    members = {
        PurePosixPath(m.filename).stem: m
        for m in archive.infolist()
        if m.filename.lower().endswith(".csv") and not m.is_dir()
    }
    if not members:
        raise InputError(where(src, url), "the archive holds no CSV file")
    return archive, members


def _member_frame(archive: zipfile.ZipFile, member: zipfile.ZipInfo, spec: dict, src: str, url: str) -> pd.DataFrame:
    """One configured CSV of the archive, as text (one that unpacks too large, is cut short or lacks the model or
    the score column refused)."""
    if member.file_size > MAX_UNCOMPRESSED:
        raise InputError(where(src, url), f"{member.filename} unpacks to more than {MAX_UNCOMPRESSED:,} bytes")
    body = archive.read(member)
    # every file of the archive ends with a newline: one cut mid-row or mid-value is refused (issue 41)
    whole_csv(body, src, f"{url} ({member.filename})", newline=True)
    frame = _read_member(body, member.filename, src, url)
    for col in (MODEL, spec["score_column"]):
        if col not in frame.columns:
            raise InputError(where(src, url), f"missing column in {member.filename}", field=col)
    return frame


def _best_rows(frame: pd.DataFrame, filename: str, spec: dict, src: str, url: str) -> tuple[list, list[dict], int]:
    """One file's aggregate rows, one a model (its best score in an external file, the others listed as excluded;
    two in one of Epoch's own an error), the excluded entries, and how many scored rows name no model."""
    score_col = spec["score_column"]
    bench = f"Epoch {spec['label']}"
    best: dict[str, list] = {}
    excluded = []
    unnamed = 0
    for k, rec in frame.iterrows():
        text = rec[score_col].strip()
        model = rec[MODEL].strip()
        unnamed += bool(text) and not model
        if not text or not model:
            continue
        label = f"{filename} line {k + 2} {score_col}"
        score = proportion(text, src, url, label, percent=bool(spec["percent"]))
        stderr = rec.get("stderr", "").strip()
        row = [bench, model, score, int(spec["n_items"]), rec.get(DATE, "").strip()[:10], stderr]
        if model in best and score_col == OWN_SCORE:
            # Epoch's own runs have one row per model version: a row repeated whole is read once, and
            # two scores for one cannot be told apart
            if row == best[model]:
                continue
            raise InputError(
                where(src, url),
                f"{filename}: the model {model!r} is listed twice with two values "
                f"({best[model][2]:.4g} and {score:.4g})",
                field=MODEL,
                value=model,
            )
        if model in best:
            kept, dropped = (row, best[model]) if score > best[model][2] else (best[model], row)
            excluded.append(
                {"benchmark": bench, "model": model, "reason": f"listed again with {dropped[2]:.4g}: kept the best"}
            )
            best[model] = kept
        else:
            best[model] = row
    return list(best.values()), excluded, unnamed
