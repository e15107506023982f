"""all-the-noises (eval-arena's successor, all-the-noises.github.io): per-item tables, one CSV per benchmark and
sampling setting, ``<version>/assets/tables/input_table_<bench>.csv``.

Checked against the real files (``../shared/upstream/all_the_noises/``, all-the-noises.github.io @ 929a82c5) and the
site's pages, which link each table as "results on all the models". Two shapes, each with a first, unnamed column
(a pandas index, not read):

- ``main/`` (the published results eval-arena collected): ``benchmark_id, model, example_id, pass1, count, date,
  hyperparams``. ``pass1`` is the mean success over ``count`` samples (a float such as ``10.0``; it differs between
  models of one table); ``date`` is the problem's (LiveCodeBench's tables only), not the model's, and
  ``hyperparams`` the sampling temperature the table's ``benchmark_id`` already names (``CRUXEval-input-T0.2``).
- the other versions (``lowk_temp0.7/``: open models under vLLM at temperature 0.7, 4 to 21 samples an item;
  ``highk_temp0.7/``: up to 1,100): ``model, benchmark_id, temperature, rl_thinking_length, example_id, count,
  correct, pass1``, ``correct`` of ``count`` samples right (``pass1`` their ratio, checked).

Each file is one benchmark with ``count`` as the cell's trials (none where it is 1: the row is the answer). In
``main/`` it is the table's ``benchmark_id``, the id eval-arena gave the same tables (``humaneval+``, ``mbpp+``,
``mbpp``, ``humaneval``), so that a benchmark read before from eval-arena's files continues under its name (the run
records it as moved to this source). In another version it is ``<benchmark_id> (<setting>)``, the version's
sampling (``SETTINGS``, or the option ``settings``): a sampling setting is a benchmark of its own (its
``example_id`` is a 0-based index, not the ids of ``main/``: never one pool with it). ``names`` gives a file (its
path under ``url``) another name: eval-arena's ``CRUXEval-input`` is ``main/``'s ``CRUXEval-input-T0.2``, the same
cells, with each cell's samples, which eval-arena's file does not give.
"""

from __future__ import annotations

import io

import pandas as pd
from pydantic import Field

from benchwatch.errors import InputError
from benchwatch.sources.config import SourceConfig
from benchwatch.sources.http import Fetcher
from benchwatch.sources.options import SourceOptions
from benchwatch.sources.parsing import fetch_files, provenance, read_bytes, read_once, where, whole_csv
from benchwatch.sources.table import LONG_COLUMNS, SourceTable

# each version's sampling, in the words of the site's own menu ("Open models with vLLM: T=0.7", "high K T=0.7")
SETTINGS = {"lowk_temp0.7": "T=0.7", "highk_temp0.7": "T=0.7, high K"}
SAMPLED = ["model", "benchmark_id", "example_id", "count", "correct"]  # the other versions' columns it reads
PUBLISHED = ["model", "benchmark_id", "example_id", "count", "pass1"]  # main/'s


class Options(SourceOptions):
    """all-the-noises' options."""

    files: list[str] = Field(default_factory=list)  # the tables under url (none: url itself)
    names: dict[str, str] = Field(default_factory=dict)  # file -> the benchmark name its rows take
    settings: dict[str, str] = Field(default_factory=dict)  # version folder -> its sampling, in the names


def _version(url: str) -> str:
    """The site's version folder a table lies in (the folder above ``assets/``; "" where there is none)."""
    parts = url.split("/")
    return parts[parts.index("assets") - 1] if "assets" in parts[1:] else ""


def _numbers(column: pd.Series, label: str, src: str, url: str) -> pd.Series:
    values = pd.to_numeric(column.where(column.str.strip().ne("")), errors="coerce")
    bad = values.isna()
    if bad.any():
        row = int(bad.to_numpy().argmax())
        raise InputError(where(src, url), "not a number", field=label, value=column.iloc[row], row=row + 2)
    return values


def _refuse(bad: pd.Series, table: pd.DataFrame, column: str, message: str, src: str, url: str) -> None:
    """An error naming the first row where ``bad`` holds, with its model and value."""
    if bad.any():
        row = int(bad.to_numpy().argmax())
        model = table["model"].iloc[row]
        raise InputError(where(src, url), f"model {model!r}: {message}", field=column, value=table[column].iloc[row])


def _parse(data: bytes, src: str, url: str, name: str | None, setting: str | None) -> pd.DataFrame:
    whole_csv(data, src, url)  # a table cut mid-row is refused, never read as fewer models
    try:
        table = pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise InputError(where(src, url), f"not a readable CSV file: {exc}") from None
    sampled = "correct" in table.columns
    missing = [c for c in (SAMPLED if sampled else PUBLISHED) if c not in table.columns]
    if missing or table.empty:
        raise InputError(where(src, url), "missing column" if missing else "no rows", field=", ".join(missing))
    benchmarks = sorted(table["benchmark_id"].unique())
    if len(benchmarks) != 1:
        raise InputError(where(src, url), "expected one benchmark_id a table", field="benchmark_id", value=benchmarks)
    count = _numbers(table["count"], "count", src, url)
    _refuse((count < 1) | (count % 1 != 0), table, "count", "samples must be a whole number >= 1", src, url)
    if sampled:
        right = _numbers(table["correct"], "correct", src, url)
        off = (right < 0) | (right > count) | (right % 1 != 0)
        _refuse(off, table, "correct", "right answers must be whole, from 0 to count", src, url)
        score = right / count
        if "pass1" in table.columns:  # the file's own ratio, which it must agree with
            stated = pd.to_numeric(table["pass1"], errors="coerce")
            _refuse(~((stated - score).abs() <= 1e-6), table, "pass1", "pass1 is not correct / count", src, url)
    else:
        score = _numbers(table["pass1"], "pass1", src, url)
        _refuse((score < 0) | (score > 1), table, "pass1", "score must lie in [0, 1]", src, url)
    bench = name or (benchmarks[0] if not setting else f"{benchmarks[0]} ({setting})")
    frame = pd.DataFrame(
        {
            "benchmark": bench,
            "model": table["model"],
            "item_id": table["example_id"],
            "score": score.map(repr),
            "date": "",
            # one sample: the answer itself, as eval-arena's files give it (no count), so that a benchmark continued
            # from them keeps its content revision
            "trials": count.astype(int).astype(str).where(count > 1, ""),
        }
    )[LONG_COLUMNS]
    return frame


def load(fetcher: Fetcher, cfg: SourceConfig) -> SourceTable:
    """Fetch every configured table: one benchmark each."""
    opts = Options.of(cfg)
    settings = {**SETTINGS, **opts.settings}
    downloads = fetch_files(fetcher, cfg, opts.files)
    names = {cfg.url + f: n for f, n in opts.names.items()}
    frames, notes = [], []
    seen: dict[str, str] = {}
    for dl in downloads:
        version = _version(dl.url)
        setting = None if version in ("", "main") else settings.get(version, version)
        frame = _parse(read_bytes(dl, cfg.name), cfg.name, dl.url, names.get(dl.url), setting)
        bench = str(frame["benchmark"].iloc[0])
        other = seen.setdefault(bench, dl.url)
        if other != dl.url:
            raise InputError(
                where(cfg.name, dl.url),
                f"benchmark {bench!r} is also that of {other}: name one of them in `names`",
                field="names",
                value=dl.url.removeprefix(cfg.url),
            )
        once, note = read_once(frame, ["benchmark", "model", "item_id"], cfg.name, dl.url)
        if note:  # a row repeated whole is read once
            notes.append(f"{dl.url.removeprefix(cfg.url)}: {note}")
        frames.append(once)
    return SourceTable(
        cfg.name,
        cfg.url,
        pd.concat(frames, ignore_index=True),
        notes=tuple(notes),
        provenance=provenance(cfg.url, downloads),
    )
