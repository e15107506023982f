"""Benchmarks of one page that share item ids are fitted together: every item is placed by the larger pool."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
from scipy.special import expit

from benchwatch.pipeline import run_job
from benchwatch.rules import rules_from_config
from benchwatch.sources import SourceTable


def _responses(name: str, theta: np.ndarray, b: np.ndarray, items: list[str], seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.random((theta.size, b.size)) < expit(theta[:, None] - b[None, :])
    return pd.DataFrame(
        [(name, f"{name}-m{j:02d}", items[i], float(y[j, i])) for j in range(theta.size) for i in range(b.size)],
        columns=["benchmark", "model", "item_id", "score"],
    )


def _sources(a: pd.DataFrame, c: pd.DataFrame):
    return [
        ("small", lambda: SourceTable("small", "small source", a.astype(str))),
        ("large", lambda: SourceTable("large", "large source", c.astype(str))),
    ]


def test_a_page_of_two_sources_places_items_with_both_pools(tmp_path):
    rng = np.random.default_rng(1)
    z = rng.random(200)
    b = np.quantile(rng.normal(0, 1, 10_000), z)
    items = [f"q{k:03d}" for k in range(200)]
    small = _responses("A", rng.normal(0, 1, 8), b, items, seed=2)
    large = _responses("B", rng.normal(0, 1, 40), b[:150], items[:150], seed=3)
    kw = {"site_out": None, "cache_dir": tmp_path / "c", "log": lambda s: None, "now": "2026-01-01T00:00:00Z"}
    rules = rules_from_config({}, benchmarks={"Page": {"aliases": ["A", "B"]}})
    run_job(_sources(small, large), reports_dir=tmp_path / "joint", rules=rules, **kw)
    run_job(_sources(small, large), reports_dir=tmp_path / "apart", **kw)

    def records(folder: str) -> dict[str, dict]:
        return {r["benchmark"]: r for r in json.loads((tmp_path / folder / "latest.json").read_text())["benchmarks"]}

    joint, apart = records("joint"), records("apart")
    a = joint["A"]
    # A's own 8 models, and B's 40 on the 150 items they share (B is read after A: its last good data is
    # this run's, the next run's audit of A sees it; the first run of A sees none yet)
    assert apart["A"]["pool"]["fitted_models"] == 8 and "joint_pool" not in apart["A"]
    b_rec = joint["B"]
    assert b_rec["joint_pool"] == {"with": [{"benchmark": "A", "models": 8, "items": 150}], "models": 8}
    assert b_rec["pool"]["fitted_models"] == 48 and b_rec["n_models"] == 40  # its scores stay its own
    # the next run places A's items with B's pool too: A's revision now includes B's responses
    run_job(
        _sources(small, large), reports_dir=tmp_path / "joint", rules=rules, **{**kw, "now": "2026-01-02T00:00:00Z"}
    )
    a = records("joint")["A"]
    assert a["joint_pool"]["with"] == [{"benchmark": "B", "models": 40, "items": 150}]
    assert a["pool"]["fitted_models"] == 48 and a["n_models"] == 8 and len(a["top_models"]) == 5
    assert a["revision"] != apart["A"]["revision"]
    # more models place the items more finely: the detection limit falls, for any difficulty distribution
    assert a["detection_limit"] < apart["A"]["detection_limit"]
    # a change in B alone reaches A once B's new data is its last good data: A's revision covers B's responses
    large2 = large.copy()
    large2.loc[0, "score"] = 1 - large2.loc[0, "score"]
    for day in ("03", "04"):
        lines: list[str] = []
        run_job(
            _sources(small, large2),
            reports_dir=tmp_path / "joint",
            rules=rules,
            **{**kw, "now": f"2026-01-{day}T00:00:00Z", "log": lines.append},
        )
        said = " ".join(lines)
        assert ("A unchanged" in said) == (day == "03") and ("B unchanged" in said) == (day == "04")


def test_a_source_starts_every_audit_at_once_even_two_of_one_page(tmp_path):
    """One source publishing two benchmarks of one page (A and C) and one of its own (B): their audits start at
    once (none waits for another to be judged: a benchmark pools what its page's others published before, and a
    source's batch is published only when the whole source is judged), judged in order. Each pools the other's
    rows from the run after they were first published."""
    from benchwatch.history import Reports
    from benchwatch.pipeline.gather import gather
    from benchwatch.pipeline.workers import SerialExecutor

    class Recording(SerialExecutor):
        def __init__(self) -> None:
            super().__init__()
            self.events: list[tuple[str, str]] = []
            self.names: dict[int, str] = {}

        def submit(self, job, bar):
            ticket = super().submit(job, bar)
            self.names[ticket] = str(job["rows"]["benchmark"].iloc[0])
            self.events.append(("start", self.names[ticket]))
            return ticket

        def result(self, ticket):
            if ticket in self.names:
                self.events.append(("judge", self.names[ticket]))
            return super().result(ticket)

    rng = np.random.default_rng(7)
    b = rng.normal(0, 1, 60)
    items = [f"q{k:02d}" for k in range(60)]
    parts = [
        _responses("A", rng.normal(0, 1, 10), b, items, seed=4),
        _responses("B", rng.normal(0, 1, 10), b, items, seed=5),
        _responses("C", rng.normal(0, 1, 12), b[:40], items[:40], seed=6),
    ]
    rules = rules_from_config({}, benchmarks={"Page": {"aliases": ["A", "C"]}})
    kw = {"site_out": None, "cache_dir": tmp_path / "c", "log": lambda s: None, "rules": rules}
    pool = Recording()
    sources = [("one", lambda: SourceTable("one", "one source", pd.concat(parts).astype(str)))]
    run_job(sources, reports_dir=tmp_path / "r", now="2026-01-01T00:00:00Z", **kw)
    parts[2].loc[0, "score"] = 1.0 - parts[2].loc[0, "score"]  # C changes: audited again, now beside A's rows
    delta, _ = gather(
        sources,
        Reports(tmp_path / "r"),
        now="2026-01-02T00:00:00Z",
        cache=tmp_path / "c",
        rules=rules,
        executor=pool,
        log=lambda s: None,
    )
    # A pools C's rows of the first run and C A's (B's unchanged: carried); both start before either is judged
    assert pool.events == [("start", "A"), ("start", "C"), ("judge", "A"), ("judge", "C")]
    assert delta.records["C"].joint_pool == {"with": [{"benchmark": "A", "models": 10, "items": 40}], "models": 10}
    assert delta.records["A"].joint_pool == {"with": [{"benchmark": "C", "models": 12, "items": 40}], "models": 12}
    pool = delta.records["C"].pool
    assert pool is not None and pool["fitted_models"] == 22 and "B" not in delta.records  # carried
