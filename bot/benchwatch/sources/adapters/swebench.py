"""SWE-bench: ``leaderboards.json`` of the SWE-bench site.

Checked against the real file (``../shared/upstream/swebench/leaderboards.json``, SWE-bench/
swe-bench.github.io @ f1176b65): ``{"leaderboards": [{"name", "results": [{"name", "folder", "resolved"
(percent), "date", ..., "per_instance_details"?: {instance_id: {"resolved": bool, ...}}}]}]}``.

Boards are views of a few test sets: ``Verified`` and ``bash-only`` both run on the 500 Verified
instances (and carry the same per-instance runs), ``Lite``, ``Test`` and ``Multimodal`` on their own. So:
- one per-item benchmark per test set (``SWE-bench Verified``), from the per-instance runs of every board
  on it, each run (``folder``) once;
- every board's published percentages as its own aggregate leaderboard
  (``SWE-bench <board> (published scores)``), shown on its test set's page.
An entry whose per-instance total disagrees with its own published percentage by more than
``tolerance_pp`` percentage points is excluded, with the reason. A board the adapter does not know is
logged, and published only when its test-set size is configured (``board_sizes``, ``board_sets``).
"""

from __future__ import annotations

import pandas as pd
from pydantic import Field

from benchwatch.errors import InputError
from benchwatch.sources.config import SourceConfig
from benchwatch.sources.http import Fetcher
from benchwatch.sources.options import SourceOptions
from benchwatch.sources.parsing import proportion, provenance, read_json, require, where
from benchwatch.sources.table import AGGREGATE_COLUMNS, LONG_COLUMNS, SourceTable

TEST_SETS = {
    "Verified": "Verified",
    "bash-only": "Verified",
    "Lite": "Lite",
    "Test": "Test",
    "Multimodal": "Multimodal",
}
SET_SIZES = {"Verified": 500, "Lite": 300, "Test": 2294, "Multimodal": 517}


class Options(SourceOptions):
    """SWE-bench's options."""

    tolerance_pp: float = 1.0  # per-instance total vs published percentage, in points
    board_sets: dict[str, str] = Field(default_factory=dict)  # leaderboard name -> test set (added to TEST_SETS)
    board_sizes: dict[str, int] = Field(default_factory=dict)  # test set -> its size (added to SET_SIZES)


def _runs(board: str, results: list, src: str, url: str, b: int) -> list[tuple[str, float, str, dict]]:
    """(folder, published proportion, date, per-instance resolved) of each entry with per-instance data."""
    out = []
    for e, entry in enumerate(results):
        ctx = f"leaderboards[{b}].results[{e}]"
        details = entry.get("per_instance_details") if isinstance(entry, dict) else None
        if not details:
            continue
        if not isinstance(details, dict):
            raise InputError(where(src, url), "expected an object", field=f"{ctx}.per_instance_details")
        model = str(entry.get("folder") or require(entry, "name", str, src, url, ctx))
        published = proportion(
            require(entry, "resolved", (int, float), src, url, ctx), src, url, f"{ctx}.resolved", percent=True
        )
        resolved = {str(k): bool(v.get("resolved")) if isinstance(v, dict) else False for k, v in details.items()}
        out.append((model, published, str(entry.get("date") or ""), resolved))
    return out


def _once(results: list, board: str, src: str, url: str, b: int) -> list:
    """A board's entries, one per model: an entry repeated whole is read once; two entries of one model with
    other values are an error naming the board and the model (which is meant cannot be told)."""
    seen: dict[str, object] = {}
    out = []
    for e, entry in enumerate(results):
        model = entry.get("folder") or entry.get("name") if isinstance(entry, dict) else None
        if model is not None and str(model) in seen:
            if seen[str(model)] == entry:
                continue
            raise InputError(
                where(src, url),
                f"board {board!r} lists the model {str(model)!r} twice with two values",
                field=f"leaderboards[{b}].results[{e}]",
                value=str(model),
            )
        if model is not None:
            seen[str(model)] = entry
        out.append(entry)
    return out


def load(fetcher: Fetcher, cfg: SourceConfig) -> SourceTable:
    """Fetch and parse the leaderboards."""
    opts = Options.of(cfg)
    dl = fetcher.get(cfg.url, source=cfg.name)
    data = read_json(dl, cfg.name)
    src, url = cfg.name, cfg.url
    tolerance = opts.tolerance_pp
    sets = {**TEST_SETS, **opts.board_sets}
    sizes = {**SET_SIZES, **opts.board_sizes}
    boards = require(data, "leaderboards", list, src, url)
    if not boards:
        raise InputError(where(src, url), "no leaderboards", field="leaderboards", value=[])
    agg_rows, excluded, notes, pages = [], [], [], {}
    runs: dict[str, dict[str, tuple]] = {}  # test set -> folder -> (published, date, resolved, board)
    for b, board in enumerate(boards):
        name = require(board, "name", str, src, url, f"leaderboards[{b}]")
        results = require(board, "results", list, src, url, f"leaderboards[{b}]")
        test_set = sets.get(name)
        if test_set is None or test_set not in sizes:
            notes.append(f"unknown board {name!r} ({len(results)} entries) not published: set board_sets/board_sizes")
            continue
        if not results:
            notes.append(f"board {name!r} has no entries")
            continue
        results = _once(results, name, src, url, b)
        page = f"SWE-bench {test_set}"
        for e, entry in enumerate(results):
            ctx = f"leaderboards[{b}].results[{e}]"
            model = str(entry.get("folder") or require(entry, "name", str, src, url, ctx))
            published = proportion(
                require(entry, "resolved", (int, float), src, url, ctx), src, url, f"{ctx}.resolved", percent=True
            )
            agg_rows.append(
                [f"SWE-bench {name} (published scores)", model, published, sizes[test_set], entry.get("date") or ""]
            )
        pages[f"SWE-bench {name} (published scores)"] = page
        for model, published, date, resolved in _runs(name, results, src, url, b):
            seen = runs.setdefault(test_set, {}).get(model)
            if seen is not None and seen[2] != resolved:
                excluded.append(
                    {
                        "benchmark": page,
                        "model": model,
                        "reason": f"per-instance results differ between boards {seen[3]!r} and {name!r}",
                    }
                )
                runs[test_set][model] = (None, date, resolved, name)
            elif seen is None:
                runs[test_set][model] = (published, date, resolved, name)
    long_rows = []
    for test_set, by_model in sorted(runs.items()):
        bench, n = f"SWE-bench {test_set}", sizes[test_set]
        pages[bench] = bench
        for model, (published, date, resolved, _board) in sorted(by_model.items()):
            if published is None:
                continue
            total = 100.0 * sum(resolved.values()) / n
            if abs(total - 100.0 * published) > tolerance:
                excluded.append(
                    {
                        "benchmark": bench,
                        "model": model,
                        "reason": f"per-instance total {total:.1f}% disagrees with the published "
                        f"{100 * published:.2f}% by more than {tolerance:g} points",
                    }
                )
                continue
            long_rows += [[bench, model, k, "1" if v else "0", date, ""] for k, v in resolved.items()]
    return SourceTable(
        name=src,
        location=url,
        frame=pd.DataFrame(long_rows, columns=LONG_COLUMNS),
        aggregates=pd.DataFrame(agg_rows, columns=AGGREGATE_COLUMNS),
        provenance=provenance(url, [dl]),
        excluded=tuple(excluded),
        notes=tuple(notes),
        pages=pages,
    )
