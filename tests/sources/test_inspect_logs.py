"""Inspect logs made by running real Inspect tasks offline (mock model provider), audited end to end."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from benchwatch.cli import main
from benchwatch.errors import InputError
from benchwatch.sources import read_input
from benchwatch.sources.inspect_logs import score_value
from benchwatch.store import validate_responses

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
pytest.importorskip("inspect_ai", reason='inspect_ai is the optional extra ".[inspect]" (the dev extra has it)')

from tests.sources.evallogs.inspect_tasks import EPOCHS, MODELS, N_SAMPLES, run_tasks  # noqa: E402


@pytest.fixture(scope="module")
def logs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("inspect-logs")
    made = run_tasks(folder, fail=True, choices=True)
    assert [log.status for log in made] == ["success"] * 6 + ["error"]
    return folder, made


def _expected(made) -> pd.DataFrame:
    """The long table read independently: every sample of every successful log, loaded whole by
    inspect_ai's reader, each scorer's values mapped by Inspect's own value_to_float and averaged over epochs."""
    from inspect_ai.log import read_eval_log
    from inspect_ai.scorer import value_to_float

    to_float = value_to_float()
    rows = []
    for log in made:
        if log.status != "success":
            continue
        whole = read_eval_log(log.location)
        names = sorted(whole.samples[0].scores)
        for sample in whole.samples:
            for name, score in sample.scores.items():
                bench = whole.eval.task if len(names) == 1 else f"{whole.eval.task}/{name}"
                rows.append((bench, whole.eval.model, str(sample.id), to_float(score.value), sample.epoch))
    frame = pd.DataFrame(rows, columns=["benchmark", "model", "item_id", "value", "epoch"])
    out = frame.groupby(["benchmark", "model", "item_id"]).agg(score=("value", "mean"), trials=("epoch", "nunique"))
    return out.reset_index()


def test_the_long_table_equals_what_the_logs_say_sample_for_sample(logs):
    folder, made = logs
    table = read_input(folder)
    got = table.frame.assign(score=table.frame["score"].astype(float), trials=table.frame["trials"].astype(int))
    want = _expected(made)
    assert len(want) == 4 * len(MODELS) * N_SAMPLES  # toy_binary, toy_credit/numeric, toy_credit/partial, toy_choice
    merged = got.merge(want, on=["benchmark", "model", "item_id"], how="outer", suffixes=("", "_want"), indicator=True)
    assert (merged["_merge"] == "both").all()
    assert (merged["score"] - merged["score_want"]).abs().max() < 1e-12
    assert (merged["trials"] == EPOCHS).all() and (merged["trials_want"] == EPOCHS).all()
    assert set(got["benchmark"]) == {"toy_binary", "toy_credit/numeric", "toy_credit/partial", "toy_choice"}
    partial = got[got["benchmark"] == "toy_credit/partial"]["score"]
    assert {0.25, 0.75} & set(partial)  # a partial credit in one epoch shows as a quarter step
    assert set(got["date"]) == {str(made[0].eval.created)[:10]}
    # the failed run is listed, not read
    assert len(table.excluded) == 1 and table.excluded[0]["model"] == MODELS[0]
    assert (
        "the run's status is 'error'" in table.excluded[0]["reason"] and "always fails" in table.excluded[0]["reason"]
    )


def test_a_multiple_choice_samples_floor_is_one_over_its_number_of_choices(logs):
    """toy_choice runs Inspect's multiple_choice() solver on 2, 3 or 4 choices a question: each item's floor is
    one over the number of choices the log's samples (read whole, independently) carry; other tasks have none."""
    from inspect_ai.log import read_eval_log

    folder, made = logs
    table = read_input(folder)
    want = {}
    for log in made:
        if log.status == "success" and log.eval.task == "toy_choice":
            for sample in read_eval_log(log.location).samples:
                want.setdefault(str(sample.id), set()).add(repr(1 / len(sample.choices)))
    assert len(want) == N_SAMPLES and all(len(v) == 1 for v in want.values())
    frame = table.frame
    mine = frame[frame["benchmark"] == "toy_choice"]
    assert len(mine) == len(MODELS) * N_SAMPLES
    assert {(i, c) for i, c in zip(mine["item_id"], mine["chance"], strict=True)} == {
        (i, c) for i, cs in want.items() for c in cs
    }
    assert set(mine["chance"]) == {repr(1 / 2), repr(1 / 3), repr(1 / 4)}
    assert set(frame[frame["benchmark"] != "toy_choice"]["chance"]) == {""}
    assert table.chance_from == "each sample's number of choices (Inspect's choices)"
    rows = validate_responses(frame, "logs")
    floors = rows.groupby("benchmark")["chance"].agg(lambda c: sorted(set(c.dropna())))
    assert floors["toy_choice"] == [1 / 4, 1 / 3, 1 / 2] and floors["toy_binary"] == []
    # a log of a task without choices alone: no chance column at all, as before floors existed
    binary = next(log for log in made if log.status == "success" and log.eval.task == "toy_binary")
    alone = read_input(binary.location)
    assert "chance" not in alone.frame.columns and alone.chance_from is None


def test_audit_and_run_input_accept_the_logs(logs, tmp_path, capsys):
    folder, made = logs
    assert main(["audit", str(folder), "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert {r["benchmark"] for r in records} == {"toy_binary", "toy_credit/numeric", "toy_credit/partial", "toy_choice"}
    assert all(r["n_items"] == N_SAMPLES and r["n_models"] == len(MODELS) for r in records)
    one = made[0].location
    args = ["run", "--input", str(one), "--reports", str(tmp_path / "r"), "--cache", str(tmp_path / "c"), "--no-site"]
    assert main(args) == 0  # one log, one model: nothing can be audited, and the run log says why
    assert "skipped: only one model (mockllm/model-" in capsys.readouterr().out
    assert not (tmp_path / "r" / "latest.json").exists() or "toy" not in (tmp_path / "r" / "latest.json").read_text()


@pytest.mark.parametrize("value", [1.5, -0.1, [1, 0], {"a": 1}, "maybe", float("nan")])
def test_a_score_that_is_not_in_0_1_is_one_clear_error(value):
    with pytest.raises(InputError, match=r"log\.eval, column 'scorer acc': a score that cannot be read"):
        score_value(value, "log.eval", "acc")


@pytest.mark.parametrize(
    ("value", "number"), [("C", 1.0), ("I", 0.0), ("P", 0.5), ("N", 0.0), (True, 1.0), ("0.25", 0.25), (1, 1.0)]
)
def test_inspect_score_values_read_as_inspect_reads_them(value, number):
    from inspect_ai.scorer import value_to_float

    assert score_value(value, "x", "s") == number == value_to_float()(value)


def test_a_log_without_scores_and_a_damaged_log_are_one_line_each(logs, tmp_path, capsys):
    from inspect_ai.log import read_eval_log, write_eval_log

    folder, made = logs
    whole = read_eval_log(made[0].location)
    for sample in whole.samples:
        sample.scores = None
    write_eval_log(whole, str(tmp_path / "unscored.eval"))
    assert main(["audit", str(tmp_path / "unscored.eval")]) == 2
    assert "has no per-sample scores" in capsys.readouterr().err
    damaged = tmp_path / "damaged.eval"
    damaged.write_bytes(next(folder.glob("*.eval")).read_bytes()[:500])
    assert main(["audit", str(damaged)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a readable Inspect log" in err
