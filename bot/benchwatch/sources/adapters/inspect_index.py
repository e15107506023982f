"""Per-item data from Inspect logs listed by an index: one log URL per model run.

Epoch AI's benchmarking hub is the index this was built for: ``benchmark_data.zip`` (checked against the
real download in ``../shared/upstream/epoch/``) holds one CSV per benchmark, and the CSVs of Epoch's own
runs (``gpqa_diamond.csv``, ``math_level_5.csv``, ...) give each run's ``Model version``, ``Release date``
and, in ``Logs``, the URL of its Inspect ``.eval`` log, whose samples carry the per-item scores.

- ``url``: the index, a zip of CSVs (``files``: the stems to read) or one CSV (``files`` left out; the
  benchmark is then named by ``benchmark``). ``log_column``, ``model_column`` and ``date_column`` name its
  columns (Epoch's by default).
- Each log is read with inspect_ai's own reader (the optional extra ``.[inspect]``; see
  ``bot/benchwatch/sources/inspect_logs.py`` for how scores, epochs and scorers are read). The model is the index's
  name for the run and the date its release date, so that the per-item fit and the published board
  speak of the same models. A multiple-choice sample's ``choices`` give its chance floor (one over their number).
- A log never changes at its URL: it is downloaded once, kept in the download cache, and never asked for
  again. ``max_logs`` caps how many logs one run may download (default 20); the rest wait for later runs,
  named in the run log. A run that failed or was cancelled is listed and skipped; so is a log that cannot be
  downloaded or read, which is dropped from the cache and asked for again by the next run (one bad log never
  stops the others, and never sticks). A log host that refuses scripts (a browser challenge, 401 or 403, an
  HTML page instead of a log: Epoch's own log links do this) fails the source at its first log, in one line
  that says so, with no further log asked for: the source needs a log host that serves logs to scripts.
"""

from __future__ import annotations

import hashlib
import io
import os
import tempfile
import zipfile
from dataclasses import replace
from pathlib import Path, PurePosixPath

import pandas as pd

from benchwatch.errors import InputError
from benchwatch.sources.config import SourceConfig
from benchwatch.sources.http import Download, Fetcher, FetchError
from benchwatch.sources.inspect_logs import CHANCE_FROM, log_rows, reader, table_from_epochs
from benchwatch.sources.options import SourceOptions
from benchwatch.sources.parsing import NewDownloads, provenance, read_once, where, whole_csv
from benchwatch.sources.table import SourceTable

MAX_LOGS = 20


class Options(SourceOptions):
    """An Inspect log index's options."""

    files: list[str] | None = None  # the stems of the CSVs to read from an index that is a zip
    benchmark: str | None = None  # the benchmark of an index that is one CSV (default: its stem)
    log_column: str = "Logs"
    model_column: str = "Model version"
    date_column: str = "Release date"
    max_logs: int = MAX_LOGS  # new logs downloaded a run


def _indexes(dl: Download, cfg: SourceConfig) -> dict[str, pd.DataFrame]:
    """The index's tables by benchmark name."""
    opts = Options.of(cfg)
    src = where(cfg.name, cfg.url)
    body = dl.path.read_bytes()
    read = {"dtype": str, "keep_default_na": False, "na_values": []}
    try:
        if body[:2] != b"PK":
            name = PurePosixPath(cfg.url).stem if opts.benchmark is None else opts.benchmark
            whole_csv(body, cfg.name, cfg.url)  # an index cut mid-row is refused, never read as fewer runs
            return {name: pd.read_csv(io.BytesIO(body), **read)}
        stems = opts.files
        if not isinstance(stems, list) or not stems:
            raise InputError(src, "an index that is a zip needs `files`: the stems of the CSVs to read", field="files")
        with zipfile.ZipFile(io.BytesIO(body)) as archive:
            members = {PurePosixPath(m.filename).stem: m for m in archive.infolist() if m.filename.endswith(".csv")}
            missing = [s for s in stems if s not in members]
            if missing:
                raise InputError(src, "no such CSV in the index", field="files", value=missing)
            tables = {}
            for s in stems:
                data = archive.read(members[s])
                # every CSV of Epoch's archive ends with a newline: one cut mid-row or mid-value is refused
                whole_csv(data, cfg.name, f"{cfg.url} ({members[s].filename})", newline=True)
                tables[str(s)] = pd.read_csv(io.BytesIO(data), **read)
            return tables
    except (zipfile.BadZipFile, pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise InputError(src, f"not a readable index: {exc}") from None


def _looks_like_html(dl: Download) -> bool:
    """A body that is a web page (a challenge, a login, an error page), whatever its content type said."""
    with open(dl.path, "rb") as handle:
        head = handle.read(512).lstrip().lower()
    return head.startswith((b"<!doctype html", b"<html", b"<head", b"<body")) or b"<html" in head


def _refused(exc: Exception) -> bool:
    text = str(exc)
    return any(mark in text for mark in ("HTTP 401", "HTTP 403", "an HTML page", "HTML page, not data"))


def _read_log(dl: Download, label: str) -> tuple[list[tuple], str | None, dict]:
    """inspect_ai tells a log's format by its name: the cached body is read through a link named like the URL."""
    suffix = ".json" if dl.url.lower().split("?")[0].endswith(".json") else ".eval"
    with tempfile.TemporaryDirectory(prefix="benchwatch-log-") as tmp:
        link = Path(tmp) / f"log{suffix}"
        os.symlink(dl.path.resolve(), link)
        return log_rows(link, label)


def load(fetcher: Fetcher, cfg: SourceConfig) -> SourceTable:
    """Read the index, fetch the logs it lists (new ones up to the cap), and read every cached one."""
    opts = Options.of(cfg)
    reader()  # without inspect_ai the source fails at once, saying what to install
    index = fetcher.get(cfg.url, source=cfg.name)
    downloads = [index]
    log_col, model_col, date_col = opts.log_column, opts.model_column, opts.date_column
    rows, excluded, notes, cap = (
        [],
        [],
        [],
        NewDownloads(fetcher, opts.max_logs, "log", "max_logs"),
    )
    for bench, table in _indexes(index, cfg).items():
        for col in (log_col, model_col):
            if col not in table.columns:
                raise InputError(where(cfg.name, cfg.url), f"{bench}: no such column", field=col)
        # one row per model run: a row repeated whole is read once, one model with two runs is an error naming it
        named = table[model_col].str.strip().ne("")
        table, _ = read_once(table[named], [model_col], cfg.name, f"{cfg.url} ({bench})")
        for _, run in table.iterrows():
            url, model = run[log_col].strip(), run[model_col].strip()
            if not url.startswith(("http://", "https://")) or not model:
                continue  # a run without a log (or a model name): nothing per item to read
            if not cap.allow(url):
                continue
            try:
                dl = fetcher.get(url, source=cfg.name, immutable=True)
                if _looks_like_html(dl):
                    raise FetchError(cfg.name, url, "an HTML page instead of a log")
                got, skipped, facts = _read_log(dl, where(cfg.name, url))
            except (FetchError, InputError) as exc:  # one bad log: listed, dropped from the cache, asked again next run
                fetcher.forget(url)
                if _refused(exc):  # the host serves pages to browsers, not logs to scripts: no log will come
                    raise InputError(
                        where(cfg.name, url),
                        f"the log host refused a script ({exc}): a browser challenge, a 401/403 or an HTML page "
                        "instead of an Inspect log. This source needs a log host that serves logs to scripts; no "
                        "more logs are asked for this run, and the last good data is kept",
                    ) from None
                excluded.append({"benchmark": bench, "model": model, "reason": f"log {url}: {exc}"})
                notes.append(f"{bench}: a log could not be read ({model}); fetched again next run")
                continue
            downloads.append(dl)
            if skipped is not None:
                excluded.append({"benchmark": bench, "model": model, "reason": f"log {url}: {skipped}"})
                continue
            day = str(run.get(date_col, "") or facts["date"])[:10]
            for name, _, item, value, _, chance in got:
                scorer = name[len(facts["task"]) :] if name.startswith(facts["task"]) else f"/{name}"
                rows.append((bench + scorer, model, item, value, day, chance))
    notes += [note] if (note := cap.note()) else []
    if not rows:
        raise InputError(where(cfg.name, cfg.url), "no readable log of a successful run in the index")
    table = table_from_epochs(
        rows, cfg.name, cfg.url, excluded=tuple(excluded), notes=tuple(notes), chance_from=CHANCE_FROM
    )
    prov = provenance(cfg.url, downloads[:1])  # the index's hash, and one hash over every log read
    logs = hashlib.sha256("".join(sorted(d.sha256 for d in downloads[1:])).encode()).hexdigest()[:12]
    return replace(
        table,
        more=cap.waiting > 0,
        provenance={**prov, "revision": f"{prov['revision']}+{len(downloads) - 1}logs:{logs}"},
    )
