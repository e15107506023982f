"""One page, one pool: the per-item benchmarks that several sources publish under one benchmark id, and that
share item ids, place their items with every model that answered them.

An item is placed only to within about 0.45 logits by 24 binary models and 0.29 by 60, so the larger pool
is what makes the coverage bounds decide. Each benchmark of such a page is fitted with its own responses and
those of the others on the items it shares with them (their models named ``"<benchmark>: <model>"``, each a
model of its own: another source's run of the same model is another evaluation); its scores, saturation and
models table stay its own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import pandas as pd

from benchwatch.record import BenchmarkRecord


def joint_rows(
    name: str,
    rows: pd.DataFrame,
    page: str,
    records: Mapping[str, BenchmarkRecord],
    fresh: dict[str, pd.DataFrame],
    snapshot: Callable[[str], pd.DataFrame | None],
) -> tuple[pd.DataFrame | None, dict | None]:
    """The other per-item benchmarks' responses on this one's items, and what they add (None, None without).

    ``records``: the benchmarks known so far (their page and kind); ``fresh``: per-item rows published earlier
    in this run; ``snapshot``: a benchmark's last good responses from the reports (for the others).
    """
    siblings = sorted(
        other
        for other, rec in records.items()
        if other != name and rec.page == page and rec.kind == "items" and not rec.gone_since
    )
    siblings += sorted(n for n in fresh if n != name and n not in siblings and n in records and records[n].page == page)
    items = set(rows["item_id"].unique())
    parts, used = [], []
    for other in sorted(set(siblings)):
        theirs = fresh.get(other)
        if theirs is None:
            theirs = snapshot(other)
        if theirs is None or theirs.empty:
            continue
        shared = theirs[theirs["item_id"].isin(items)]
        if shared.empty:
            continue
        parts.append(shared.assign(benchmark=name, model=other + ": " + shared["model"].astype(str)))
        used.append(
            {"benchmark": other, "models": int(shared["model"].nunique()), "items": int(shared["item_id"].nunique())}
        )
    if not parts:
        return None, None
    extra = pd.concat(parts, ignore_index=True)
    columns = [c for c in rows.columns if c in extra.columns]
    return extra[columns], {"with": used, "models": int(extra["model"].nunique())}
