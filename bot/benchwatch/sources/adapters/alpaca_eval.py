"""AlpacaEval 2: the judge's preference on every instruction, per model, and the published leaderboard.

Checked against the real files (``../shared/upstream/alpaca_eval/``, tatsu-lab/alpaca_eval @ cd543a14) and the
producer's own scoring code: ``results/<model>/<annotator>/annotations.json`` is a list with one record per
instruction ``{instruction, dataset, output_1, generator_1 (the baseline), output_2, generator_2, annotator,
preference, ...}``, ``preference`` from 1 (the baseline wins) to 2 (the model wins). The win rate is the mean
of ``preference - 1`` over the records whose preference lies in [1, 2], a preference of 0 read as a draw
(1.5) and anything else dropped (``BaseScoringRule.describe_head2head`` in ``src/alpaca_eval/metrics/
helpers.py``, called by ``get_winrate``): so each instruction's score is ``preference - 1``, partial credit.

An instruction's id is a hash of its dataset and text (the file has no id; the 805 instructions are the same
for every model). A model is named by its results folder (NullModel's records name the generator ``example``).
Each model's recomputed win rate is checked against the leaderboard's ``win_rate``: one that differs by more
than ``tolerance`` points (0.01) is listed and left out. The leaderboard is also published as a board of its
own (``win_rate``, its ``standard_error``, ``n_total`` instructions).

``url`` is the repository's root (``.../alpaca_eval/main/``); ``models`` the results folders to read;
``annotator`` (``weighted_alpaca_eval_gpt4_turbo``) and ``leaderboard`` (its CSV's path) may be changed.
"""

from __future__ import annotations

import hashlib
import io

import pandas as pd
from pydantic import Field

from benchwatch.errors import InputError
from benchwatch.sources.config import SourceConfig
from benchwatch.sources.http import Fetcher
from benchwatch.sources.options import SourceOptions
from benchwatch.sources.parsing import provenance, read_bytes, read_json, read_once, where
from benchwatch.sources.table import AGGREGATE_COLUMNS, LONG_COLUMNS, SourceTable

ANNOTATOR = "weighted_alpaca_eval_gpt4_turbo"
LEADERBOARD = "src/alpaca_eval/leaderboards/data_AlpacaEval_2/weighted_alpaca_eval_gpt4_turbo_leaderboard.csv"
BENCHMARK = "AlpacaEval 2"
BOARD = "AlpacaEval 2 (published win rates)"
TOLERANCE = 0.01  # percentage points


class Options(SourceOptions):
    """AlpacaEval's options."""

    models: list[str] = Field(default_factory=list)  # the results folders to read
    annotator: str = ANNOTATOR  # the judge whose annotations are read
    tolerance: float = TOLERANCE  # recomputed vs published win rate, percentage points
    leaderboard: str = LEADERBOARD  # the leaderboard CSV, under url


def _item(record: dict) -> str:
    text = f"{record.get('dataset', '')}\n{record['instruction']}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _scores(records: object, model: str, src: str, url: str) -> tuple[list[tuple[str, float]], int]:
    """(item, preference - 1) for every usable record, and how many were dropped."""
    if not isinstance(records, list) or not records:
        raise InputError(where(src, url), f"{model}: expected a non-empty list of annotations")
    out, dropped = [], 0
    for n, rec in enumerate(records, 1):
        if not isinstance(rec, dict) or not isinstance(rec.get("instruction"), str):
            raise InputError(where(src, url), f"{model}: record {n} has no instruction", field="instruction")
        pref = rec.get("preference")
        if not isinstance(pref, int | float) or isinstance(pref, bool):
            dropped += 1
            continue
        pref = 1.5 if pref == 0 else float(pref)
        if not 1.0 <= pref <= 2.0:
            dropped += 1
            continue
        out.append((_item(rec), pref - 1.0))
    if not out:  # nothing to average: say where, never divide by zero (issue 41)
        raise InputError(
            where(src, url), f"{model}: no record has a preference in [1, 2] (of {len(records)})", field="preference"
        )
    once, _ = read_once(pd.DataFrame(out, columns=["item", "score"]), ["item"], src, url)
    return list(once.itertuples(index=False, name=None)), dropped


def load(fetcher: Fetcher, cfg: SourceConfig) -> SourceTable:
    """Fetch the leaderboard and each configured model's annotations."""
    src, root = cfg.name, cfg.url if cfg.url.endswith("/") else cfg.url + "/"
    opts = Options.of(cfg)
    models = list(opts.models)
    if not models:
        raise InputError(src, "no models configured: list their results folders in `models`", field="models")
    annotator, tolerance, board_url = opts.annotator, opts.tolerance, root + opts.leaderboard
    board_dl = fetcher.get(board_url, source=src)
    try:
        board = pd.read_csv(io.BytesIO(read_bytes(board_dl, src)), index_col=0)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise InputError(where(src, board_url), f"not a readable CSV file: {exc}") from None
    for column in ("win_rate", "standard_error", "n_total"):
        if column not in board.columns:
            raise InputError(where(src, board_url), "missing column", field=column, value=list(board.columns))
    downloads, rows, excluded, notes = [board_dl], [], [], []
    for model in models:
        url = f"{root}results/{model}/{annotator}/annotations.json"
        dl = fetcher.get(url, source=src)
        downloads.append(dl)
        scores, dropped = _scores(read_json(dl, src), model, src, url)
        if dropped:
            notes.append(f"{model}: {dropped} record(s) without a preference in [1, 2] dropped, as AlpacaEval does")
        rate = 100 * sum(s for _, s in scores) / len(scores)
        if model in board.index and abs(rate - float(board.at[model, "win_rate"])) > tolerance:
            published = float(board.at[model, "win_rate"])
            excluded.append(
                {
                    "benchmark": BENCHMARK,
                    "model": model,
                    "reason": f"its recomputed win rate {rate:.2f} differs from the leaderboard's {published:.2f}",
                }
            )
            continue
        if model not in board.index:
            notes.append(f"{model}: not on the leaderboard, its win rate unchecked")
        rows += [(BENCHMARK, model, item, repr(score), "", "") for item, score in scores]
    frame = pd.DataFrame(rows, columns=LONG_COLUMNS)
    good = board[pd.to_numeric(board["win_rate"], errors="coerce").notna()]
    aggregates = pd.DataFrame(
        {
            "benchmark": BOARD,
            "model": good.index.astype(str),
            "score": (good["win_rate"].astype(float) / 100).map(repr),
            "n_items": str(int(good["n_total"].max())),  # the test set (a few models left a record or two out)
            "date": "",
            "stderr": (good["standard_error"].astype(float) / 100).map(repr),
        }
    )[[*AGGREGATE_COLUMNS, "stderr"]]
    return SourceTable(
        src,
        cfg.url,
        frame,
        aggregates=aggregates,
        excluded=tuple(excluded),
        notes=tuple(notes),
        provenance=provenance(cfg.url, downloads),
    )
