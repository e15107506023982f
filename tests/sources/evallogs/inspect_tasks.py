"""Small Inspect tasks run offline on Inspect's own mock model provider (``mockllm``), to make real logs.

Each model's answers are a deterministic function of (model, sample, epoch), so the two models differ and
the logs hold every kind of score: ``toy_binary`` (Inspect's ``match`` scorer, C/I), ``toy_credit`` (two
scorers: a numeric one with values in [0, 1], and a partial-credit one with C/P/I). Two epochs each.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

MODELS = ("mockllm/model-a", "mockllm/model-b")
N_SAMPLES = 12
EPOCHS = 2


def unit(*parts: object) -> float:
    """A number in [0, 1) fixed by its arguments."""
    return int(hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()[:8], 16) / 2**32


def run_tasks(log_dir: Path, *, fail: bool = False) -> list:
    """Run both tasks on both mock models; the logs go to ``log_dir``. With ``fail``, a third run of
    ``toy_binary`` whose solver raises on every sample ends in status ``error``."""
    from inspect_ai import Task, task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import CORRECT, INCORRECT, PARTIAL, Score, accuracy, match, mean, scorer
    from inspect_ai.solver import solver

    def outputs():
        while True:  # usage given: the mock provider then counts no tokens (that would need a download)
            out = ModelOutput.from_content(model="mockllm", content="")
            out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
            yield out

    @solver
    def answer(broken: bool = False):
        async def solve(state, generate):
            if broken:
                raise RuntimeError("a solver that always fails")
            state = await generate(state)
            k = int(str(state.sample_id).removeprefix("q"))
            right = unit(state.model, state.sample_id, state.epoch) < 0.15 + 0.06 * k
            state.output.completion = state.target.text if right else "no idea"
            return state

        return solve

    @scorer(metrics=[mean()])
    def numeric():
        async def score(state, target):
            return Score(value=round(unit("numeric", state.model, state.sample_id, state.epoch), 3))

        return score

    @scorer(metrics=[accuracy()])
    def partial():
        async def score(state, target):
            u = unit("partial", state.model, state.sample_id, state.epoch)
            return Score(value=CORRECT if u > 0.6 else PARTIAL if u > 0.3 else INCORRECT)

        return score

    samples = [Sample(id=f"q{k}", input=f"What is {k} + {k}?", target=str(2 * k)) for k in range(N_SAMPLES)]

    @task
    def toy_binary(broken: bool = False):
        return Task(dataset=samples, solver=answer(broken), scorer=match(), epochs=EPOCHS)

    @task
    def toy_credit():
        return Task(dataset=samples, solver=answer(), scorer=[numeric(), partial()], epochs=EPOCHS)

    models = [get_model(name, custom_outputs=outputs()) for name in MODELS]
    opts = {"log_dir": str(log_dir), "display": "none", "log_format": "eval"}
    logs = inspect_eval([toy_binary(), toy_credit()], model=models, **opts)
    if fail:
        logs += inspect_eval(toy_binary(broken=True), model=models[0], fail_on_error=True, **opts)
    return logs
