"""BFCL (the Berkeley Function-Calling Leaderboard): its per-item score files, one dated snapshot a folder.

Checked against the real files (``../shared/upstream/bfcl_result/``: the repository HuanzhiMao/BFCL-Result @ b4adfc9b,
five snapshots 2024-07-06 to 2024-08-11) and the leaderboard's own table three days later (its scores equal the
2024-08-11 files'). A file is ``<date>/score/<model>/<category>_score.json`` (``score-BFCL/`` in the first snapshot),
JSON lines: the first ``{"accuracy", "correct_count", "total_count"}``, each further one a FAILED item, ``{"id": k}``
(its 1-based position in the category's test file) with ``prompt.id`` = ``<category>_<k - 1>`` where given.

- **A benchmark a category** (``BFCL simple``, ... 12 of them, 40-400 items); an item ``<category>_<k - 1>``, passed
  unless a failure line names it.
- **Each snapshot a publication, read in date order.** The models are the newest snapshot's, with their scores there
  (one checker for the whole pool); a model's date is the first snapshot that lists it, so the figures by date
  are the pool as it grew, on the snapshots' own dates. A model the newest snapshot no longer lists is left out,
  named.
- **A rescoring is named, not taken for progress.** Where a snapshot moves the scores of models the one before listed
  (the checker changed: 93 of 600 (model, category) scores on 2024-07-22 with no new model, 561 of 612 on
  2024-08-11), each benchmark whose scores moved says so (``SourceTable.rescored``): the changelog and the alerts
  name it a rescoring.
- Refused, naming the file and the value: a name off the layout, a first line without whole counts, a count that
  does not match its failure lines, an item id off ``1..total_count`` or given twice, a category whose size
  differs between files.

The files are found in the repository's listing (``index``: the GitHub git trees API). A snapshot's file never
changes once published (its folder is its date): downloaded once, then kept.
"""

from __future__ import annotations

import itertools
import json
import re

import pandas as pd

from benchwatch.errors import InputError
from benchwatch.sources.config import SourceConfig
from benchwatch.sources.github import tree_paths
from benchwatch.sources.http import Fetcher
from benchwatch.sources.options import SourceOptions
from benchwatch.sources.parsing import provenance, read_bytes, where
from benchwatch.sources.table import LONG_COLUMNS, SourceTable

PATH = re.compile(r"^(\d{4}-\d{2}-\d{2})/score(?:-BFCL)?/([^/]+)/([A-Za-z0-9_]+)_score\.json$")


class Options(SourceOptions):
    """BFCL's options."""

    # the repository's listing (GitHub's git trees API, recursive)
    index: str = "https://api.github.com/repos/HuanzhiMao/BFCL-Result/git/trees/main?recursive=1"
    benchmark: str = "BFCL {category}"  # each category's benchmark name


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _failures(body: bytes, src: str, url: str) -> tuple[int, frozenset[int]]:
    """A score file's test-set size and the ids of its failed items, checked against its counts."""
    try:
        lines = [json.loads(line) for line in body.decode("utf-8").splitlines() if line.strip()]
    except (UnicodeDecodeError, ValueError) as exc:
        raise InputError(where(src, url), f"not JSON lines: {exc}") from None
    head = lines[0] if lines else None
    if not isinstance(head, dict) or not all(_whole(head.get(k)) for k in ("correct_count", "total_count")):
        raise InputError(where(src, url), "line 1 lacks whole counts", field="total_count", value=head)
    total, failed = head["total_count"], set[int]()
    accuracy = head.get("accuracy")
    if not isinstance(accuracy, int | float) or abs(accuracy - head["correct_count"] / max(total, 1)) > 1e-3:
        raise InputError(
            where(src, url), f"line 1: not {head['correct_count']} of {total}", field="accuracy", value=accuracy
        )
    for k, line in enumerate(lines[1:], 2):
        if isinstance(line, dict) and "total_count" in line:
            raise InputError(where(src, url), f"line {k}: the counts given twice", field="total_count", value=line)
        item = line.get("id") if isinstance(line, dict) else None
        if not isinstance(item, int) or not _whole(item) or not 1 <= item <= total or item in failed:
            why = "given twice" if item in failed else f"not an id in 1..{total}"
            raise InputError(where(src, url), f"line {k}: failed item {why}", field="id", value=item)
        failed.add(item)
    if head["correct_count"] != total - len(failed):
        raise InputError(
            where(src, url),
            f"{len(failed)} failure lines of {total} items",
            field="correct_count",
            value=head["correct_count"],
        )
    return total, frozenset(failed)


def _snapshots(fetcher: Fetcher, cfg: SourceConfig, paths: list[str]) -> tuple[dict, list]:
    """Every score file read: {(date, model, category): (size, failed ids)}, and the downloads."""
    read: dict[tuple[str, str, str], tuple[int, frozenset[int]]] = {}
    sizes = dict[str, int]()
    matched = [(path, found) for path in paths if (found := PATH.match(path)) is not None]
    # a snapshot's file never changes
    downloads = fetcher.get_all([cfg.url + path for path, _ in matched], source=cfg.name, immutable=True)
    for (_, found), dl in zip(matched, downloads, strict=True):
        total, failed = _failures(read_bytes(dl, cfg.name), cfg.name, dl.url)
        date, model, category = found.groups()
        if sizes.setdefault(category, total) != total:
            raise InputError(
                where(cfg.name, dl.url), f"{category} has {sizes[category]} items elsewhere", field="total_count"
            )
        read[(date, model, category)] = (total, failed)
    if not read:
        raise InputError(where(cfg.name, cfg.url), "no score file in the listing", field="path")
    return read, downloads


def _rescored(read: dict, name: str) -> tuple[dict[str, str], list[str]]:
    """The benchmarks whose scores a later snapshot moved for models the one before listed, each with its sentence
    (the newest such snapshot's), and the run log's line per snapshot."""
    dates = sorted({d for d, _, _ in read})
    out: dict[str, str] = {}
    lines = []
    for before, after in itertools.pairwise(dates):
        old = {(m, c): f for (d, m, c), (_, f) in read.items() if d == before}
        new = {(m, c): f for (d, m, c), (_, f) in read.items() if d == after}
        shared = old.keys() & new.keys()
        moved = {k for k in shared if old[k] != new[k]}
        if not moved:
            continue
        added = len({m for m, _ in new} - {m for m, _ in old})
        lines.append(
            f"{after}: rescored: {len(moved)} of {len(shared)} (model, category) scores moved, "
            + (f"{added} new model(s)" if added else "no new model")
        )
        for category in sorted({c for _, c in moved}):
            pairs = [k for k in shared if k[1] == category]
            n = sum(k in moved for k in pairs)
            out[name.format(category=category)] = (
                f"rescored upstream on {after}: {n} of the {len(pairs)} models listed on {before} have other "
                "scores (the benchmark's checker changed): a rescoring, not progress"
            )
    return out, lines


def load(fetcher: Fetcher, cfg: SourceConfig) -> SourceTable:
    """Every category of the newest snapshot, a model dated by the first snapshot that lists it."""
    opts = Options.of(cfg)
    read, downloads = _snapshots(fetcher, cfg, tree_paths(fetcher, opts.index, cfg.name))
    newest = max(d for d, _, _ in read)
    first: dict[str, str] = {}
    for date, model, _ in sorted(read):
        first.setdefault(model, date)
    rows = []
    for (date, model, category), (total, failed) in sorted(read.items()):
        if date != newest:
            continue
        bench = opts.benchmark.format(category=category)
        rows += [
            (bench, model, f"{category}_{k - 1}", "0" if k in failed else "1", first[model])
            for k in range(1, total + 1)
        ]
    frame = pd.DataFrame(rows, columns=["benchmark", "model", "item_id", "score", "date"]).assign(trials="")
    gone = sorted({(m, c) for d, m, c in read if d != newest} - {(m, c) for d, m, c in read if d == newest})
    excluded = tuple(
        {"benchmark": opts.benchmark.format(category=c), "model": m, "reason": f"not in the newest snapshot ({newest})"}
        for m, c in gone
    )
    rescored, lines = _rescored(read, opts.benchmark)
    return SourceTable(
        cfg.name,
        cfg.url,
        frame[LONG_COLUMNS],
        excluded=excluded,
        notes=tuple(lines),
        rescored=rescored,
        provenance=provenance(cfg.url, downloads),
    )
