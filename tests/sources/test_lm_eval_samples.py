"""lm-evaluation-harness sample files made by running the harness offline, audited end to end."""

from __future__ import annotations

import json

import pytest

from bot.cli import main
from bot.errors import InputError
from bot.sources import read_input

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
pytest.importorskip("lm_eval", reason="lm-evaluation-harness is in the dev extra (it writes the test's files)")

from tests.sources.evallogs.lm_eval_run import MODELS, N_DOCS, run_harness  # noqa: E402


@pytest.fixture(scope="module")
def output(tmp_path_factory):
    return run_harness(tmp_path_factory.mktemp("lm-eval"))


def test_each_document_scores_its_tasks_primary_metric_under_its_first_filter(output):
    table = read_input(output)
    frame = table.frame.assign(score=table.frame["score"].astype(float))
    assert len(frame) == 2 * len(MODELS) * N_DOCS and set(frame["model"]) == set(MODELS)
    for results_file in output.rglob("results_*.json"):
        results = json.loads(results_file.read_text())
        model = results["model_name"]
        date_id = results_file.stem.removeprefix("results_")
        for task, metric, kept in (("toy_mc", "acc", "none"), ("toy_gen", "exact_match", "strict")):
            lines = [json.loads(x) for x in (results_file.parent / f"samples_{task}_{date_id}.jsonl").open()]
            want = {str(x["doc_id"]): float(x[metric]) for x in lines if x["filter"] == kept}
            mine = frame[(frame["benchmark"] == task) & (frame["model"] == model)]
            assert dict(zip(mine["item_id"], mine["score"], strict=True)) == want
            # and the harness's own aggregate is the mean of what was read
            assert mine["score"].mean() == pytest.approx(results["results"][task][f"{metric},{kept}"])
    assert 0 < frame[frame["benchmark"] == "toy_gen"]["score"].mean() < 1  # the models differ, not all right


def test_audit_and_run_input_read_the_harness_output(output, tmp_path, capsys):
    assert main(["audit", str(output), "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert {r["benchmark"]: (r["n_models"], r["n_items"]) for r in records} == {
        "toy_mc": (len(MODELS), N_DOCS),
        "toy_gen": (len(MODELS), N_DOCS),
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
