"""The run as a readable sequence (issue 39): each source's steps (fetch, validate, plan and start its audits, then
judge and publish), the executor they run on, and the judgement of one record, tested in this process without
forking."""

from __future__ import annotations

import inspect
import os

import pandas as pd
import pytest

from benchwatch.history import Reports, without
from benchwatch.pipeline import gather as gather_module
from benchwatch.pipeline.gather import gather, source_steps
from benchwatch.pipeline.run_state import DEFAULT_RULES, FIGURES_VERSION, Batch, RunState
from benchwatch.pipeline.workers import ForkedExecutor, SerialExecutor
from benchwatch.record import BenchmarkRecord
from benchwatch.sources import SourceTable
from tests.irt.test_rasch_map import simulate

NOW = "2026-12-01T00:00:00Z"


def _per_item(name: str, seed: int = 3, flip: int = 0) -> pd.DataFrame:
    df, _, _ = simulate(12, 30, seed=seed)
    if flip:
        df.loc[df.index[:flip], "score"] = 1 - df.loc[df.index[:flip], "score"]
    return df.assign(benchmark=name).astype(str)


def _board(name: str) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "benchmark": name,
            "model": [f"m{i}" for i in range(6)],
            "score": [0.9, 0.8, 0.7, 0.6, 0.5, 0.4],
            "n_items": 200,
        }
    )


def _sources(fail: bool = False):
    def broken() -> SourceTable:
        raise ConnectionError("upstream down")

    return [
        ("items", lambda: SourceTable("items", "items.csv", _per_item("alpha"))),
        ("down", broken)
        if fail
        else ("boards", lambda: SourceTable("boards", "b.csv", pd.DataFrame(), aggregates=_board("board"))),
    ]


@pytest.fixture
def no_fork(monkeypatch):
    """Any fork of this process fails the test: the serial executor must run everything here."""

    def refuse(*_a, **_k):
        raise AssertionError("forked")

    monkeypatch.setattr(os, "fork", refuse)


def test_gather_on_the_serial_executor_publishes_every_source_in_this_process(tmp_path, no_fork):
    delta, _ = gather(_sources(), Reports(tmp_path / "r"), now=NOW, cache=tmp_path / "c", executor=SerialExecutor())
    assert delta.ok == 2 and delta.failed == 0
    assert set(delta.records) == {"alpha", "board"}
    alpha = delta.records["alpha"]
    assert alpha.kind == "items" and alpha.source_name == "items" and alpha.figures_version == FIGURES_VERSION
    assert delta.records["board"].kind == "aggregate"
    assert {r["benchmark"] for r in delta.new_rows} == {"alpha", "board"}  # one history row each
    assert delta.statuses["items"]["status"] == "ok" and delta.statuses["boards"]["status"] == "ok"
    assert {"models/alpha.csv", "items/alpha.csv", "models/board.csv"} <= set(delta.files)


def test_the_serial_and_forked_executors_give_the_same_delta(tmp_path):
    serial, _ = gather(_sources(), Reports(tmp_path / "a"), now=NOW, cache=tmp_path / "c", executor=SerialExecutor())
    forked, _ = gather(_sources(), Reports(tmp_path / "b"), now=NOW, cache=tmp_path / "d", executor=ForkedExecutor())
    assert serial.records == forked.records
    assert serial.files == forked.files and serial.new_alerts == forked.new_alerts


def test_a_failing_source_is_recorded_and_never_stops_the_others(tmp_path, no_fork):
    delta, _ = gather(
        _sources(fail=True),
        Reports(tmp_path / "r"),
        now=NOW,
        cache=tmp_path / "c",
        strict=False,
        executor=SerialExecutor(),
        log=lambda _line: None,
    )
    assert delta.ok == 1 and delta.failed == 1
    assert delta.statuses["down"]["status"] == "failed" and "upstream down" in delta.statuses["down"]["error"]
    assert "down:failed" in delta.outcomes and set(delta.records) == {"alpha"}
    with pytest.raises(ConnectionError, match="upstream down"):  # strict (tests, `audit`): raised
        gather(_sources(fail=True), Reports(tmp_path / "s"), now=NOW, cache=tmp_path / "c", executor=SerialExecutor())


def test_a_sources_steps_read_in_order_and_yield_once_where_its_audits_run(tmp_path):
    """The steps function names its steps in the order they run, and pauses once: after starting its audits."""
    source = inspect.getsource(source_steps)
    order = [source.index(step + "(") for step in ("fetch", "validate", "start_audits", "judge", "publish")]
    assert order == sorted(order)
    reports = Reports(tmp_path / "r")
    run = RunState(reports, {}, {}, NOW, False, DEFAULT_RULES)
    ctx = gather_module.SourceContext(
        log=lambda _line: None,
        statuses={},
        strict=True,
        method="map",
        sampler="auto",
        scale="ability-quantile",
        cache=tmp_path / "c",
        stop_at=None,
    )
    steps = source_steps(run, "items", _sources()[0][1], ctx, SerialExecutor())
    next(steps)  # fetched, validated, audits started: nothing published yet
    assert run.records == {} and run.pending_names == {"alpha"}
    with pytest.raises(StopIteration) as done:
        next(steps)
    assert done.value.value is True and set(run.records) == {"alpha"} and run.pending_names == set()


def _judged(tmp_path) -> BenchmarkRecord:
    delta, _ = gather(_sources()[:1], Reports(tmp_path / "r"), now=NOW, cache=tmp_path / "c", executor=SerialExecutor())
    return delta.records["alpha"]


def test_record_judges_a_new_revision_and_keeps_a_repeated_one_quiet(tmp_path, no_fork):
    """RunState.record, alone: a new revision gets its flags, verdicts and reasons from the rules, a history row
    and its snapshot time; the same revision again keeps its snapshot time and adds no row."""
    fig = _judged(tmp_path)
    bare = without(fig, "flags", "verdicts", "why", "retirement", "snapshot_at")
    run = RunState(Reports(tmp_path / "r2"), {}, {}, "2026-12-02T00:00:00Z", False, DEFAULT_RULES)
    batch = Batch()
    run.record(batch, bare, "items", None, None)
    new = batch.records["alpha"]
    assert new.flags == fig.flags and new.verdicts == fig.verdicts and new.why == fig.why
    assert new.snapshot_at == "2026-12-02T00:00:00Z" and len(batch.new_rows) == 1
    assert "flags" not in bare.model_fields_set  # the record judged is derived, never changed
    again = RunState(Reports(tmp_path / "r2"), {"alpha": new}, {}, "2026-12-03T00:00:00Z", False, DEFAULT_RULES)
    batch = Batch()
    again.record(batch, bare, "items", None, None)
    assert batch.records["alpha"].snapshot_at == "2026-12-02T00:00:00Z" and batch.new_rows == []


def test_record_raises_an_alert_when_the_state_changes(tmp_path, no_fork):
    fig = _judged(tmp_path)
    bare = without(fig, "flags", "verdicts", "why", "retirement", "snapshot_at")
    other = "saturated" if fig.state != "saturated" else "discriminating"
    before = fig.model_copy(update={"state": other, "revision": "older"})
    run = RunState(Reports(tmp_path / "r2"), {"alpha": before}, {}, NOW, False, DEFAULT_RULES)
    batch = Batch()
    run.record(batch, bare, "items", None, None)
    kinds = [a["kind"] for a in batch.new_alerts]
    assert "state" in kinds, batch.new_alerts
    assert batch.records["alpha"].prior_state == other


def test_the_run_log_names_each_benchmark_as_its_page_does(tmp_path):
    from benchwatch.pipeline import run_job
    from benchwatch.rules import RuleBook

    said: list[str] = []
    solo = pd.DataFrame({"model": "m0", "item_id": ["a", "b"], "score": ["1", "0"]})  # one model: skipped, no fit
    frame = pd.concat(
        [solo.assign(benchmark=b) for b in ("gpqa_diamond", "plain", "Epoch math_level_5", "Epoch bbh_external")]
    )
    table = SourceTable("src", "simulated", frame)
    book = RuleBook(names={"gpqa_diamond": "GPQA Diamond"})
    folders = {"reports_dir": tmp_path / "r", "site_out": None, "cache_dir": tmp_path / "c"}
    run_job([("src", lambda: table)], now=NOW, strict=False, rules=book, log=said.append, **folders)
    line = next(x for x in said if x.startswith("source") and " src: " in x)
    assert "GPQA Diamond skipped: only one model" in line and "plain skipped: only one model" in line
    assert "gpqa_diamond" not in line
    # a source's own ids read as its pages read them (Epoch's file ids as Epoch's site names them)
    assert "MATH Level 5 (Epoch) skipped" in line and "BBH (Epoch, reported by others) skipped" in line
    assert "math_level_5" not in line and "bbh_external" not in line
