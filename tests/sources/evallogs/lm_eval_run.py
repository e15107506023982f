"""lm-evaluation-harness run offline on two local tasks (a JSONL file of twelve questions) with a small
deterministic model registered with the harness, its samples logged by the harness's own
``EvaluationTracker``, exactly as ``lm_eval --log_samples --output_path`` writes them.

``toy_mc`` is multiple choice (metrics ``acc``, then ``acc_norm``), ``toy_gen`` generates an answer (metric
``exact_match`` after the task's two filters, ``strict`` then ``loose``: the first is the primary one). Question
``k`` offers ``2 + k % 3`` choices (2, 3 or 4), the right one first. A task of kind ``mc_mi`` is ``toy_mc``
with ``acc_mutual_info`` as a further metric: the harness then asks each choice once more without its context.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from pathlib import Path

MODELS = {"toy-a": 0.8, "toy-b": 0.4, "toy-c": 0.6}  # model name (pretrained=) -> skill
N_DOCS = 12

TASKS = {  # kind -> the task's YAML
    "mc": """task: {name}
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: multiple_choice
doc_to_text: "{{{{question}}}}"
doc_to_choice: "{{{{choices}}}}"
doc_to_target: label
metric_list:
  - metric: acc
    aggregation: mean
    higher_is_better: true
  - metric: acc_norm
    aggregation: mean
    higher_is_better: true
""",
    "mc_mi": """task: {name}
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: multiple_choice
doc_to_text: "{{{{question}}}}"
doc_to_choice: "{{{{choices}}}}"
doc_to_target: label
metric_list:
  - metric: acc
    aggregation: mean
    higher_is_better: true
  - metric: acc_mutual_info
    aggregation: mean
    higher_is_better: true
""",
    "gen": """task: {name}
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data}
test_split: test
output_type: generate_until
doc_to_text: "{{{{question}}}}"
doc_to_target: "{{{{answer}}}}"
generation_kwargs:
  until: ["\\n"]
filter_list:
  - name: strict
    filter:
      - function: take_first
  - name: loose
    filter:
      - function: regex
        regex_pattern: "(\\\\d+)"
      - function: take_first
metric_list:
  - metric: exact_match
    aggregation: mean
    higher_is_better: true
""",
}


def unit(*parts: object) -> float:
    return int(hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()[:8], 16) / 2**32


@functools.cache
def _toy_model():
    """The toy model, registered with lm-evaluation-harness under "benchwatch-toy" (once)."""
    from lm_eval.api.model import LM
    from lm_eval.api.registry import register_model

    def truth(context: str) -> int:
        return 2 * int(context.split("What is ")[1].split(" +")[0])

    @register_model("benchwatch-toy")
    class Toy(LM):
        def __init__(self, pretrained: str = "toy", skill: float = 0.5, **kwargs) -> None:
            super().__init__()
            self.name, self.skill = pretrained, float(skill)

        def loglikelihood(self, requests):
            out = []
            for request in requests:
                context, continuation = request.args
                if not context:  # acc_mutual_info's unconditional request: the choice alone
                    out.append((-1.0 - unit("alone", continuation), False))
                    continue
                right = continuation.strip() == str(truth(context))
                knows = unit(self.name, context) < self.skill
                out.append((0.0 if right == knows else -1.0 - unit(continuation), False))
            return out

        def loglikelihood_rolling(self, requests):
            return [0.0 for _ in requests]

        def generate_until(self, requests):
            out = []
            for request in requests:
                context = request.args[0]
                u = unit("gen", self.name, context)
                answer = str(truth(context))
                # right; right only once the loose filter extracts the number; or wrong
                out.append(answer if u < self.skill * 0.6 else f"It is {answer}." if u < self.skill else "no idea")
            return out

    return Toy


def run_harness(root: Path, models: dict[str, float] = MODELS, tasks: dict[str, str] | None = None) -> Path:
    """Write the tasks (name -> kind, ``mc``, ``mc_mi`` or ``gen``; by default ``toy_mc`` and ``toy_gen``), run each on
    every model (name -> skill), log the samples; returns the output folder (a folder per model, named as
    the harness names it: ``org__model``)."""
    tasks_of = tasks or {"toy_mc": "mc", "toy_gen": "gen"}
    os.environ.update(HF_DATASETS_OFFLINE="1", HF_HUB_OFFLINE="1", HF_HOME=str(root / "hf"))
    from lm_eval import simple_evaluate
    from lm_eval.loggers import EvaluationTracker
    from lm_eval.tasks import TaskManager

    folder = root / "tasks"
    folder.mkdir(parents=True, exist_ok=True)
    docs = [
        {
            "question": f"What is {k} + {k}?",
            "choices": [str(2 * k), str(2 * k + 1), "0", str(4 * k)][: 2 + k % 3],
            "label": 0,
            "answer": str(2 * k),
            "question_id": 70 + 3 * k,  # a dataset's own id, not the document's index
        }
        for k in range(1, N_DOCS + 1)
    ]
    data = folder / "data.jsonl"
    data.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    for name, kind in tasks_of.items():
        (folder / f"{name}.yaml").write_text(TASKS[kind].format(data=data, name=name), encoding="utf-8")

    _toy_model()  # registered once per process: a second registration of the alias is an error
    manager = TaskManager(include_path=str(folder))
    output = root / "out"
    for name, skill in models.items():
        model_args = f"pretrained={name},skill={skill}"
        results = simple_evaluate(
            model="benchwatch-toy",
            model_args=model_args,
            tasks=list(tasks_of),
            task_manager=manager,
            log_samples=True,
        )
        tracker = EvaluationTracker(output_path=str(output))
        tracker.general_config_tracker.log_experiment_args(
            model_source="benchwatch-toy",
            model_args=model_args,
            system_instruction=None,
            chat_template=None,
            fewshot_as_multiturn=False,
        )
        samples = results.pop("samples")
        tracker.save_results_aggregated(results=results, samples=samples)
        for task in results["configs"]:
            tracker.save_results_samples(task_name=task, samples=samples[task])
    return output
