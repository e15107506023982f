"""LLM Stats (JonathanChavezTamales/LLMStats): one hand-written model card per model, each listing the benchmark
scores its makers (or a paper) reported: aggregate boards of self-reported figures, never measured here.

Checked against the real files (``../shared/upstream/llmstats/``, the repository @ df1d14ed, 2025-05-22, and its
``schemas/models-schema.json``): ``models/<organisation>/<model_id>/model.json`` (126 files), each an object with
``name, release_date (YYYY-MM-DD), ..., qualitative_metrics``, the last a list of ``{dataset_name, score (a 0-1
fraction, says the schema), is_self_reported, analysis_method, date_recorded, source_link}``. The model id is only in
the path. The files are found in the repository's listing (``index``: GitHub's git trees API; the raw host lists
nothing): every ``<folder><organisation>/<model_id>/model.json`` (``folder`` = ``models/``), anything else ignored.

Rules:

- **A model is its folder's id** (``claude-3-5-sonnet-20241022``), never the card's ``name`` (``Claude 3.5 Sonnet``
  names two versions); where one id lies under two organisations, each is named ``<organisation>/<id>``. Its rows'
  date is the card's ``release_date`` (a card without a valid one is refused, naming the file).
- **A benchmark is a** ``dataset_name``, **read only where the configuration gives its test-set size**
  (``benchmarks``: name -> n_items; the cards give none). The other names are counted in one note; a configured name
  that no card lists is said (``gone``).
- **Scores are checked per configured benchmark**: not a number (or not finite) is an InputError naming the file, the
  model, the benchmark and the value; a number off the 0-1 scale (``MBPP`` 81.4 in ``qwen3-235b-a22b``: a
  percentage, or another measure) is left out into ``excluded`` naming the file and the value: which scale was meant
  cannot be told, and one card's slip does not stop the other cards.
- **One benchmark twice in one card**: an entry repeated (same ``analysis_method`` and ``score``) is read once; the
  same ``analysis_method`` with two scores is an InputError (which is meant cannot be told); two ``analysis_method``
  values (``AIME 2024`` ``Pass@1`` and ``Cons@64``; ``GPQA`` ``Main`` and ``Diamond``) are different measures under
  one name: none is read, all are listed in ``excluded`` with their methods and values, never one picked.
- **is_self_reported false** (111 of the 1,728 entries, 75 on DeepSeek's cards citing its own Hugging Face and
  GitHub pages, 15 citing an ``example.com`` placeholder; 47 of the scores the shipped configuration reads): kept,
  and counted in a note, since the flag does not make a figure measured. Every score of this source is reported, by
  the makers or others, none measured by benchwatch: the table's ``provenance`` carries ``self_reported: True`` for
  the pages to mark, and the shipped configuration gives the source a ``prefix`` (``LLM Stats ``) so that its
  benchmark names never equal another source's measured ones.
- Upstream strings are labels only: a listed path is fetched under ``url`` (URL-quoted, a ``.`` or ``..`` part
  never followed), never used as a file path.
- ``GPQA`` on LLM Stats is mostly the Diamond set (34 of its 97 entries name Diamond in ``analysis_method``, one
  names Main, the rest say nothing; OpenAI's, Anthropic's, Google's and DeepSeek's published figures are Diamond):
  the shipped configuration reads it as Diamond (198 questions).
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from datetime import date
from urllib.parse import quote

import pandas as pd
from pydantic import Field

from benchwatch.errors import InputError
from benchwatch.sources.config import SourceConfig
from benchwatch.sources.github import tree_paths
from benchwatch.sources.http import Fetcher
from benchwatch.sources.options import SourceOptions
from benchwatch.sources.parsing import provenance, read_json, require, where
from benchwatch.sources.table import AGGREGATE_COLUMNS, SourceTable, empty_long

CARD = re.compile(r"([^/]+)/([^/]+)/model\.json")
ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


class Options(SourceOptions):
    """LLM Stats' options."""

    # the repository's listing (GitHub's git trees API, recursive)
    index: str = "https://api.github.com/repos/JonathanChavezTamales/LLMStats/git/trees/main?recursive=1"
    folder: str = "models/"  # where the model cards lie: <folder><organisation>/<model_id>/model.json
    benchmarks: dict[str, int] = Field(default_factory=dict)  # dataset_name -> its test-set size (n_items)


def _cards(paths: list[str], folder: str) -> list[tuple[str, str, str]]:
    """(path, organisation, model) for each model card the listing names; a model id under two organisations is
    named with its organisation."""
    found = []
    for path in paths:
        match = CARD.fullmatch(path[len(folder) :])
        if match and not {match.group(1), match.group(2)} & {".", ".."}:
            found.append((path, match.group(1), match.group(2)))
    ids = Counter(model for _, _, model in found)
    return [(path, org, f"{org}/{model}" if ids[model] > 1 else model) for path, org, model in found]


def _release(doc: object, model: str, src: str, url: str) -> str:
    """The card's release date, YYYY-MM-DD."""
    text = require(doc, "release_date", str, src, url)
    try:
        if not ISO_DAY.fullmatch(text):
            raise ValueError(text)
        date.fromisoformat(text)
    except ValueError:
        raise InputError(where(src, url), f"{model}: not a YYYY-MM-DD date", field="release_date", value=text) from None
    return text


def _entries(doc: object, model: str, sizes: dict[str, int], src: str, url: str) -> tuple[dict, Counter]:
    """The card's configured entries, {dataset_name: [(analysis_method, score, is_self_reported)]}, each checked,
    and the scores of the names not configured, counted by name."""
    metrics = require(doc, "qualitative_metrics", list, src, url)
    read: dict[str, list[tuple[str, float, bool]]] = {}
    unread: Counter[str] = Counter()
    for k, entry in enumerate(metrics):
        label = f"qualitative_metrics[{k}]"
        name = require(entry, "dataset_name", str, src, url, label)
        if name not in sizes:
            unread[name] += 1
            continue
        score = require(entry, "score", (int, float), src, url, label)
        if isinstance(score, bool) or not math.isfinite(score):
            raise InputError(
                where(src, url), f"{model}, {name!r}: the score is not a number", field=f"{label}.score", value=score
            )
        method = entry.get("analysis_method")
        read.setdefault(name, []).append(
            ("" if method is None else str(method), float(score), entry.get("is_self_reported") is not False)
        )
    return read, unread


def _resolve(
    name: str, model: str, found: list[tuple[str, float, bool]], src: str, url: str, path: str
) -> tuple[tuple | None, str]:
    """One benchmark's entries in one card (``path``, as the listing names it): the one entry read ((score,
    self-reported) or None) and, when none is read, the reason it is left out."""
    once = list(dict.fromkeys((m, s) for m, s, _ in found))  # an entry repeated: read once
    methods = Counter(m for m, _ in once)
    twice = [m for m, n in methods.items() if n > 1]
    if twice:
        scores = [s for m, s in once if m == twice[0]]
        raise InputError(
            where(src, url),
            f"{model}: {name!r} is listed twice with the analysis_method {twice[0]!r}, with two scores "
            f"({', '.join(map(repr, scores))}): which is meant cannot be told",
            field="score",
            value=scores,
        )
    if len(once) > 1:
        listed = "; ".join(f"{m!r} {s!r}" for m, s in once)
        return (
            None,
            f"{path}: listed {len(once)} times, told apart only by analysis_method ({listed}): "
            "different measures, none read",
        )
    method, score = once[0]
    if not 0.0 <= score <= 1.0:
        return None, f"{path}: score {score!r} ({method!r}) off the 0-1 scale: not read"
    reported = all(own for _m, _s, own in found)  # one entry, perhaps repeated: its flag
    return (score, reported), ""


def load(fetcher: Fetcher, cfg: SourceConfig) -> SourceTable:
    """Every model card the listing names under ``folder``: its configured benchmarks' scores, a board each."""
    opts = Options.of(cfg)
    src, root = cfg.name, cfg.url if cfg.url.endswith("/") else cfg.url + "/"
    sizes = dict(opts.benchmarks)
    if not sizes:
        raise InputError(src, "no benchmarks configured: add [sources.NAME.benchmarks] dataset_name = n_items")
    for name, n in sizes.items():
        if n < 1:
            raise InputError(src, "a test-set size must be a whole number >= 1", field=f"benchmarks.{name}", value=n)
    cards = _cards(tree_paths(fetcher, opts.index, src, opts.folder), opts.folder)
    if not cards:
        raise InputError(
            where(src, opts.index), f"no model card under {opts.folder!r}", field="folder", value=opts.folder
        )
    downloads, rows, excluded = [], [], []
    unread: Counter[str] = Counter()
    others = repeated = 0  # scores read that the card marks as not self-reported; entries repeated whole
    for (path, _org, model), dl in zip(
        cards, fetcher.get_all([root + quote(p) for p, _, _ in cards], source=src), strict=True
    ):
        downloads.append(dl)
        doc = read_json(dl, src)
        day = _release(doc, model, src, dl.url)
        read, skipped = _entries(doc, model, sizes, src, dl.url)
        unread += skipped
        for name, found in sorted(read.items()):
            repeated += len(found) - len({(m, s) for m, s, _ in found})
            kept, reason = _resolve(name, model, found, src, dl.url, path)
            if kept is None:
                excluded.append({"benchmark": name, "model": model, "reason": reason})
                continue
            others += not kept[1]
            rows.append((name, model, repr(kept[0]), sizes[name], day))
    aggregates = pd.DataFrame(rows, columns=AGGREGATE_COLUMNS)
    gone = tuple(sorted(set(sizes) - set(aggregates["benchmark"]) - {e["benchmark"] for e in excluded}))
    notes = [
        f"{len(cards)} model card(s), {len(rows)} score(s) read: reported by the models' makers or papers, "
        "never measured here"
    ]
    if unread:
        notes.append(
            f"{len(unread)} benchmark name(s) with {sum(unread.values())} score(s) not read: "
            "no test-set size configured"
        )
    if repeated:
        notes.append(f"{repeated} score(s) listed again in one card with the same analysis_method and score: read once")
    if others:
        notes.append(f"{others} score(s) read are marked is_self_reported false (reported by others): kept")
    if gone:
        notes.append(f"configured but on no model card: {', '.join(gone)}")
    digest = hashlib.sha256("".join(sorted(d.sha256 for d in downloads)).encode()).hexdigest()[:12]
    prov = provenance(cfg.url, downloads)
    return SourceTable(
        src,
        cfg.url,
        empty_long(),
        aggregates=aggregates,
        excluded=tuple(excluded),
        notes=tuple(notes),
        gone=gone,
        provenance={**prov, "revision": f"{len(downloads)}files:{digest}", "self_reported": True},
    )
