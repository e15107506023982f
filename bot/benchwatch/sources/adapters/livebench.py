"""LiveBench: the judgments of ``livebench/model_judgment`` and the release dates of its question sets.

Built from LiveBench's own code (LiveBench/LiveBench @ b0fb577b, 2026-08-22) and dataset cards, not from
memory:
- judgments (``livebench/model_judgment``, split ``leaderboard``, parquet): ``question_id, task, model,
  score, turn, tstamp, category``; ``show_livebench_result.py`` drops ``score == -1`` rows and keeps only
  the questions of the chosen release;
- questions (``livebench/<category>``, split ``test``): ``question_id, category, task,
  livebench_release_date`` (timestamp) and ``livebench_removal_date`` (a date, or empty);
  ``common.load_questions`` keeps a question for release R when its release date is one of the releases
  up to R and it was not removed on or before R.

``url`` is the parquet export folder of the judgments (``files`` joined to it); ``questions`` lists the
question sets' parquet URLs. ``release`` picks the release (default: the latest release date found).
One benchmark per category (``LiveBench <category>``); a (question, model) judged twice keeps its latest
judgment. ``tstamp`` is when a judgment was made, not a model's date: a model is dated by the release in
force at its first judgment (the release it entered the leaderboard with). ``-1`` rows are dropped and
counted on the provenance list.
"""

from __future__ import annotations

import pandas as pd
from pydantic import Field

from benchwatch.errors import InputError
from benchwatch.sources.config import SourceConfig
from benchwatch.sources.http import Download, Fetcher
from benchwatch.sources.options import SourceOptions
from benchwatch.sources.parsing import fetch_files, provenance, read_once, where
from benchwatch.sources.table import LONG_COLUMNS, SourceTable

JUDGMENT_COLUMNS = ("question_id", "model", "score", "category", "tstamp")
QUESTION_COLUMNS = ("question_id", "livebench_release_date")


class Options(SourceOptions):
    """LiveBench's options."""

    files: list[str] = Field(default_factory=list)  # the judgment files under url (none: url itself)
    questions: list[str] = Field(default_factory=list)  # the question sets' parquet URLs
    release: str = "latest"  # the release whose live questions are kept (YYYY-MM-DD, or latest)


def _parquet(dl: Download, src: str, required: tuple[str, ...]) -> pd.DataFrame:
    try:
        part = pd.read_parquet(dl.path)
    except Exception as exc:  # pyarrow raises several types for a broken file
        raise InputError(where(src, dl.url), f"not a readable parquet file ({type(exc).__name__})") from None
    missing = [c for c in required if c not in part.columns]
    if missing:
        raise InputError(where(src, dl.url), f"missing column(s) {', '.join(missing)}", field=missing[0])
    return part


def _day(values: pd.Series) -> pd.Series:
    """Dates as ``YYYY-MM-DD`` text ('' where empty), from timestamps or text."""
    text = values.astype("string").fillna("").str.strip()
    parsed = pd.to_datetime(text.where(text.ne("")), errors="coerce", format="mixed")
    return parsed.dt.strftime("%Y-%m-%d").fillna("")


def _questions(fetcher: Fetcher, cfg: SourceConfig, opts: Options) -> tuple[pd.DataFrame, list[Download]]:
    urls = opts.questions
    if not urls:
        raise InputError(cfg.name, "no question sets configured: set `questions` to their parquet URLs")
    downloads = fetcher.get_all(list(urls), source=cfg.name)
    parts = []
    for dl in downloads:
        q = _parquet(dl, cfg.name, QUESTION_COLUMNS)
        removal = q["livebench_removal_date"] if "livebench_removal_date" in q.columns else pd.Series("", index=q.index)
        parts.append(
            pd.DataFrame(
                {
                    "question_id": q["question_id"].astype(str),
                    "released": _day(q["livebench_release_date"]),
                    "removed": _day(removal),
                }
            )
        )
    return pd.concat(parts, ignore_index=True).drop_duplicates("question_id", keep="last"), downloads


def load(fetcher: Fetcher, cfg: SourceConfig) -> SourceTable:
    """Fetch the judgments and the question sets; keep the chosen release's live questions."""
    opts = Options.of(cfg)
    downloads = fetch_files(fetcher, cfg, opts.files)
    df = pd.concat([_parquet(dl, cfg.name, JUDGMENT_COLUMNS) for dl in downloads], ignore_index=True)
    if df.empty:
        raise InputError(where(cfg.name, cfg.url), "no judgments")
    questions, q_downloads = _questions(fetcher, cfg, opts)
    releases = sorted(r for r in questions["released"].unique() if r)
    if not releases:
        raise InputError(cfg.name, "no question carries a livebench_release_date", field="livebench_release_date")
    release = opts.release
    release = releases[-1] if release == "latest" else release
    live = questions[(questions["released"].ne("")) & (questions["released"] <= release)]
    live = live[live["removed"].eq("") | (live["removed"] > release)]
    df["question_id"] = df["question_id"].astype(str)
    df["score"] = pd.to_numeric(df["score"], errors="coerce")
    unscored = df["score"].eq(-1)
    retired = ~df["question_id"].isin(set(live["question_id"]))
    excluded = []
    for (category, model), n in df[unscored & ~retired].groupby(["category", "model"]).size().items():
        reason = f"{n} judgment(s) with score -1 dropped"
        excluded.append({"benchmark": f"LiveBench {category}", "model": str(model), "reason": reason})
    df = df[~unscored & ~retired].copy()
    df["tstamp"] = pd.to_numeric(df["tstamp"], errors="coerce")
    # a judgment made later replaces an earlier one; two of one time with two scores cannot be told apart
    key = ["category", "question_id", "model", "tstamp"]
    read_once(df[[*key, "score"]], key, cfg.name, downloads[0].url if len(downloads) == 1 else cfg.url)
    df = df.sort_values("tstamp", kind="stable").drop_duplicates(["category", "question_id", "model"], keep="last")
    first = pd.to_datetime(df.groupby("model")["tstamp"].transform("min"), unit="s", errors="coerce")
    first_day = first.dt.strftime("%Y-%m-%d").fillna("")
    in_force = pd.Series(pd.Index(releases).searchsorted(first_day.to_numpy(), side="right") - 1, index=df.index)
    date = in_force.clip(lower=0).map(lambda k: releases[k]).where(first_day.ne(""), "")
    frame = pd.DataFrame(
        {
            "benchmark": "LiveBench " + df["category"].astype(str),
            "model": df["model"].astype(str),
            "item_id": df["question_id"],
            "score": df["score"].astype(str),
            "date": date,
            "trials": "",
        }
    )[LONG_COLUMNS]
    notes = [
        f"release {release}: {len(live)} live question(s); {int(retired.sum())} judgment(s) of other releases or "
        f"retired questions left out; {int((unscored & ~retired).sum())} judgment(s) with score -1 dropped"
    ]
    prov = provenance(cfg.url, downloads + q_downloads)
    return SourceTable(cfg.name, cfg.url, frame, provenance=prov, excluded=tuple(excluded), notes=tuple(notes))
