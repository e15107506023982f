"""lm-evaluation-harness sample files made by running the harness offline, audited end to end."""

from __future__ import annotations

import json

import pytest

from benchwatch.cli import main
from benchwatch.errors import InputError
from benchwatch.sources import read_input
from benchwatch.store import validate_responses

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
pytest.importorskip("lm_eval", reason="lm-evaluation-harness is in the dev extra (it writes the test's files)")

from tests.sources.evallogs.lm_eval_run import MODELS, N_DOCS, run_harness  # noqa: E402

TASKS = {"toy_mc": "mc", "toy_gen": "gen", "toy_mi": "mc_mi"}


@pytest.fixture(scope="module")
def output(tmp_path_factory):
    return run_harness(tmp_path_factory.mktemp("lm-eval"), tasks=TASKS)


def test_each_document_scores_its_tasks_primary_metric_under_its_first_filter(output):
    table = read_input(output)
    frame = table.frame.assign(score=table.frame["score"].astype(float))
    assert len(frame) == len(TASKS) * len(MODELS) * N_DOCS and set(frame["model"]) == set(MODELS)
    for results_file in output.rglob("results_*.json"):
        results = json.loads(results_file.read_text())
        model = results["model_name"]
        date_id = results_file.stem.removeprefix("results_")
        for task, metric, kept in (
            ("toy_mc", "acc", "none"),
            ("toy_gen", "exact_match", "strict"),
            ("toy_mi", "acc", "none"),
        ):
            lines = [json.loads(x) for x in (results_file.parent / f"samples_{task}_{date_id}.jsonl").open()]
            want = {str(x["doc_id"]): float(x[metric]) for x in lines if x["filter"] == kept}
            mine = frame[(frame["benchmark"] == task) & (frame["model"] == model)]
            assert dict(zip(mine["item_id"], mine["score"], strict=True)) == want
            # and the harness's own aggregate is the mean of what was read
            assert mine["score"].mean() == pytest.approx(results["results"][task][f"{metric},{kept}"])
    assert 0 < frame[frame["benchmark"] == "toy_gen"]["score"].mean() < 1  # the models differ, not all right


def test_a_multiple_choice_documents_floor_is_one_over_its_choices_as_the_harness_logged_its_requests(output):
    """Each document of toy_mc offers 2, 3 or 4 choices: its floor is one over the number of loglikelihood
    requests the harness logged for it (``arguments``), which is its number of choices; with acc_mutual_info
    (toy_mi) the harness logs twice as many requests for the same choices; a generative task has none."""
    table = read_input(output)
    frame = table.frame
    assert table.chance_from == "each sample's number of choices (lm-evaluation-harness's arguments)"
    for path in output.rglob("samples_toy_m[ci]_*.jsonl"):
        task = "toy_mi" if "toy_mi" in path.name else "toy_mc"
        lines = [json.loads(x) for x in path.open()]
        per_choice = 2 if task == "toy_mi" else 1
        assert all(len(x["arguments"]) == per_choice * len(x["doc"]["choices"]) for x in lines)
        want = {str(x["doc_id"]): repr(1 / len(x["doc"]["choices"])) for x in lines}
        mine = frame[frame["benchmark"] == task]
        assert dict(zip(mine["item_id"], mine["chance"], strict=True)) == want
    assert set(frame[frame["benchmark"] == "toy_mc"]["chance"]) == {repr(1 / 2), repr(1 / 3), repr(1 / 4)}
    assert set(frame[frame["benchmark"] == "toy_gen"]["chance"]) == {""}
    rows = validate_responses(frame, "harness")
    assert rows[rows["benchmark"] == "toy_gen"]["chance"].isna().all()
    assert sorted(rows[rows["benchmark"] == "toy_mi"]["chance"].unique()) == [1 / 4, 1 / 3, 1 / 2]
    # a generative task's file alone: no chance column at all
    gen = read_input(next(output.rglob("samples_toy_gen_*.jsonl")))
    assert "chance" not in gen.frame.columns and gen.chance_from is None


def test_audit_and_run_input_read_the_harness_output(output, tmp_path, capsys):
    assert main(["audit", str(output), "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert {r["benchmark"]: (r["n_models"], r["n_items"]) for r in records} == {
        task: (len(MODELS), N_DOCS) for task in TASKS
    }
    one = next(output.rglob("samples_toy_mc_*.jsonl"))
    assert main(["audit", str(one), "--json"]) == 2  # one file: one model
    assert "only one model" in capsys.readouterr().err


def test_a_samples_file_without_its_results_or_with_an_unreadable_metric_is_one_line(output, tmp_path):
    one = next(output.rglob("samples_toy_mc_*.jsonl"))
    alone = tmp_path / one.name
    alone.write_bytes(one.read_bytes())
    with pytest.raises(InputError, match=r"no results_.*\.json beside it"):
        read_input(alone)
    results = one.parent / f"results_{one.stem.split('_toy_mc_')[1]}.json"
    data = json.loads(results.read_text())
    data["configs"]["toy_mc"]["metric_list"] = [{"metric": "perplexity"}]
    (tmp_path / results.name).write_text(json.dumps(data))
    lines = [json.loads(x) for x in one.open()]
    for line in lines:
        line["perplexity"] = 12.5
    alone.write_text("".join(json.dumps(x) + "\n" for x in lines))
    with pytest.raises(InputError, match=r"column 'perplexity'.*not a score in \[0, 1\].*value: 12\.5"):
        read_input(alone)
