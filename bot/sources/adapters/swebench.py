"""SWE-bench: ``leaderboards.json`` of the SWE-bench site.

Boards whose entries carry ``per_instance_details`` become per-item benchmarks (``SWE-bench <board>``);
every board also becomes an aggregate leaderboard of published percentages
(``SWE-bench <board> (published scores)``). An entry whose per-instance total disagrees with its own
published percentage by more than ``tolerance_pp`` percentage points is excluded, with the reason.
"""

from __future__ import annotations

import pandas as pd

from bot.errors import InputError
from bot.sources.config import SourceConfig
from bot.sources.http import Fetcher
from bot.sources.parsing import proportion, provenance, read_json, require, where
from bot.sources.table import AGGREGATE_COLUMNS, LONG_COLUMNS, SourceTable

BOARD_SIZES = {"Verified": 500, "bash-only": 500, "Lite": 300, "Test": 2294, "Multimodal": 517}


def load(fetcher: Fetcher, cfg: SourceConfig) -> SourceTable:
    """Fetch and parse the leaderboards."""
    dl = fetcher.get(cfg.url, source=cfg.name)
    data = read_json(dl, cfg.name)
    src, url = cfg.name, cfg.url
    tolerance = float(cfg.options.get("tolerance_pp", 1.0))
    sizes = {**BOARD_SIZES, **cfg.options.get("board_sizes", {})}
    boards = require(data, "leaderboards", list, src, url)
    if not boards:
        raise InputError(where(src, url), "no leaderboards", field="leaderboards", value=[])
    long_rows, agg_rows, excluded = [], [], []
    for b, board in enumerate(boards):
        name = require(board, "name", str, src, url, f"leaderboards[{b}]")
        results = require(board, "results", list, src, url, f"leaderboards[{b}]")
        if not results:
            raise InputError(where(src, url), "empty board", field=f"leaderboards[{b}].results", value=name)
        bench = f"SWE-bench {name}"
        instances = set()
        for entry in results:
            instances |= set((entry.get("per_instance_details") or {}).keys())
        n_board = len(instances) or sizes.get(name)
        for e, entry in enumerate(results):
            ctx = f"leaderboards[{b}].results[{e}]"
            model = str(entry.get("folder") or require(entry, "name", str, src, url, ctx))
            published = proportion(
                require(entry, "resolved", (int, float), src, url, ctx), src, url, f"{ctx}.resolved", percent=True
            )
            date = str(entry.get("date") or "")
            if n_board:
                agg_rows.append([f"{bench} (published scores)", model, published, n_board, date])
            details = entry.get("per_instance_details")
            if not details:
                continue
            if not isinstance(details, dict):
                raise InputError(where(src, url), "expected an object", field=f"{ctx}.per_instance_details")
            resolved = {k: bool(v.get("resolved")) for k, v in details.items()}
            total = 100.0 * sum(resolved.values()) / n_board
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
    )
