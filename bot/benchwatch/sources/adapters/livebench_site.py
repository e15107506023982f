"""LiveBench's own site tables: every task and every category of its newest release, each model dated by the
first release it appears in.

Checked against the real files (``../shared/upstream/livebench_site/``, LiveBench/livebench.github.io @
4bf96c8d, ``public/``) and the site's own code: each release has ``table_<YYYY_MM_DD>.csv`` (``model,<task>,...``,
one row per model, scores 0 to 100, an empty cell where a model has no score) and ``categories_<YYYY_MM_DD>.json``
(``{category: [task column, ...]}``, fetched together by ``src/Table/CSVTable.jsx``). A category's score is the
mean of the model's non-empty cells of that category's tasks, and the global average the mean of its category
scores (``src/Table/Averaging.js``). Task names change between releases, so each release is read with its own
mapping.

The newest of the configured ``releases`` is published: one board per task (``LiveBench <task>``), per category
(``LiveBench <category>``) and the global average (``LiveBench global average``). A model's date is the first
release it appears in, so the history by date is LiveBench's own. A task of an earlier release that the newest
no longer has is not published (a benchmark published before is then marked gone) and said so in the run log.
The tables give no test-set sizes: ``n_items`` gives each task's (by default ``N_ITEMS``; a category counts its
tasks' together), and the run log says the default was assumed.
"""

from __future__ import annotations

import io
import re

import pandas as pd
from pydantic import Field

from benchwatch.errors import InputError
from benchwatch.sources.config import SourceConfig
from benchwatch.sources.http import Fetcher
from benchwatch.sources.options import SourceOptions
from benchwatch.sources.parsing import provenance, read_bytes, read_json, read_once, where, whole_csv
from benchwatch.sources.table import AGGREGATE_COLUMNS, SourceTable, empty_long

N_ITEMS = 50  # questions per task assumed where n_items says nothing (the site tables do not give them)
RELEASE = re.compile(r"^\d{4}_\d{2}_\d{2}$")


class Options(SourceOptions):
    """LiveBench site tables' options."""

    releases: list[str] = Field(default_factory=list)  # the releases to read, YYYY_MM_DD
    n_items: dict[str, int] = Field(default_factory=dict)  # task -> its number of questions (default: N_ITEMS)


def _release_date(release: str) -> str:
    return release.replace("_", "-")


def _table(data: bytes, src: str, url: str) -> pd.DataFrame:
    whole_csv(data, src, url)  # a table cut mid-row is refused, never read as fewer models (issue 41)
    try:
        table = pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise InputError(where(src, url), f"not a readable CSV file: {exc}") from None
    if "model" not in table.columns:
        raise InputError(where(src, url), "missing column", field="model", value=list(table.columns))
    table, _ = read_once(table, ["model"], src, url)
    return table.set_index("model")


def _categories(data: object, columns: list[str], src: str, url: str) -> dict[str, list[str]]:
    if not isinstance(data, dict) or not all(isinstance(v, list) for v in data.values()):
        raise InputError(where(src, url), "expected {category: [task, ...]}")
    mapping = {str(k): [str(t) for t in v] for k, v in data.items()}
    unknown = sorted({t for ts in mapping.values() for t in ts} - set(columns))
    if unknown:
        raise InputError(where(src, url), "tasks not in the release's table", field="categories", value=unknown)
    return mapping


def scores_of(table: pd.DataFrame, src: str, url: str) -> pd.DataFrame:
    """The table's cells as numbers (percent); an empty cell is missing, any other text an error."""
    numbers = table.apply(lambda col: pd.to_numeric(col.where(col.str.strip().ne("")), errors="coerce"))
    bad = numbers.isna() & table.apply(lambda col: col.str.strip().ne(""))
    if bad.to_numpy().any():
        model, task = next((m, t) for t in table.columns for m in table.index if bad.at[m, t])
        raise InputError(where(src, url), f"model {model!r}: not a number", field=task, value=table.at[model, task])
    if ((numbers < 0) | (numbers > 100)).to_numpy().any():
        raise InputError(where(src, url), "a score outside [0, 100]")
    return numbers


def category_averages(scores: pd.DataFrame, categories: dict[str, list[str]]) -> pd.DataFrame:
    """As the site computes them: each category the mean of its non-empty task cells, the global average the mean
    of the category averages (a model with no cell in a category has no average there)."""
    out = pd.DataFrame({cat: scores[tasks].mean(axis=1, skipna=True) for cat, tasks in categories.items()})
    out["global average"] = out.mean(axis=1, skipna=True)
    return out


def load(fetcher: Fetcher, cfg: SourceConfig) -> SourceTable:
    """Fetch every configured release's table and categories; publish the newest one's boards."""
    opts = Options.of(cfg)
    src = cfg.name
    root = cfg.url if cfg.url.endswith("/") else cfg.url + "/"
    releases = sorted(opts.releases)
    bad = [r for r in releases if not RELEASE.match(r)]
    if not releases or bad:
        raise InputError(src, "expected release dates as YYYY_MM_DD", field="releases", value=bad or releases)
    sizes = dict(opts.n_items)
    first_seen: dict[str, str]
    downloads, first_seen, tasks_seen, notes = [], {}, {}, []
    newest = None
    for release in releases:
        table_url, cat_url = f"{root}table_{release}.csv", f"{root}categories_{release}.json"
        table_dl, cat_dl = fetcher.get(table_url, source=src), fetcher.get(cat_url, source=src)
        downloads += [table_dl, cat_dl]
        table = _table(read_bytes(table_dl, src), src, table_url)
        scores = scores_of(table, src, table_url)
        categories = _categories(read_json(cat_dl, src), list(table.columns), src, cat_url)
        for model in scores.index:
            first_seen.setdefault(str(model), _release_date(release))
        for task in scores.columns:
            tasks_seen[task] = release
        newest = (release, scores, categories, table_url)
    assert newest is not None  # releases is never empty (refused above)
    release, scores, categories, table_url = newest
    left = sorted(t for t, r in tasks_seen.items() if r != release)
    if left:
        notes.append(
            f"tasks of earlier releases not in the newest ({_release_date(release)}): "
            + ", ".join(f"{t} (last {_release_date(tasks_seen[t])})" for t in left)
        )
    assumed = [t for t in scores.columns if t not in sizes]
    if assumed:
        notes.append(f"test-set sizes not in the site tables: {N_ITEMS} questions assumed for {len(assumed)} task(s)")
    averages = category_averages(scores, categories)
    rows = []

    def board(name: str, values: pd.Series, n: int) -> None:
        for model, value in values.dropna().items():
            rows.append([f"LiveBench {name}", str(model), repr(float(value) / 100), str(n), first_seen[str(model)]])

    for task in scores.columns:
        board(task, scores[task], sizes.get(task, N_ITEMS))
    n_of = {cat: sum(sizes.get(t, N_ITEMS) for t in ts) for cat, ts in categories.items()}
    for cat in categories:
        board(cat, averages[cat], n_of[cat])
    board("global average", averages["global average"], sum(n_of.values()))
    aggregates = pd.DataFrame(rows, columns=AGGREGATE_COLUMNS)
    return SourceTable(
        src,
        cfg.url,
        empty_long(),
        aggregates=aggregates,
        notes=tuple(notes),
        provenance={**provenance(cfg.url, downloads), "release": _release_date(release)},
    )
