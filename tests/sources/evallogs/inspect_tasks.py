"""Small Inspect tasks run offline on Inspect's own mock model provider (``mockllm``), to make real logs.

Each model's answers are a deterministic function of (model, sample, epoch), so the two models differ and
the logs hold every kind of score: ``toy_binary`` (Inspect's ``match`` scorer, C/I), ``toy_credit`` (two
scorers: a numeric one with values in [0, 1], and a partial-credit one with C/P/I). Two epochs each.
``toy_choice`` (with ``choices=True``) is multiple choice, Inspect's own ``multiple_choice()`` solver and
``choice()`` scorer: question ``c<k>`` offers ``2 + k % 3`` choices (2, 3 or 4), the right one at a position
that moves; the mock model answers ``ANSWER: <letter>`` to the prompt the solver writes, right or wrong by
(model, question, how many times it was asked).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from pathlib import Path

MODELS = ("mockllm/model-a", "mockllm/model-b")
N_SAMPLES = 12
EPOCHS = 2


def unit(*parts: object) -> float:
    """A number in [0, 1) fixed by its arguments."""
    return int(hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()[:8], 16) / 2**32


def choice_samples() -> list[tuple[str, str, list[str], str]]:
    """``toy_choice``'s questions: (id, question, choices, the right choice's letter)."""
    out = []
    for k in range(1, N_SAMPLES + 1):
        n = 2 + k % 3
        options = [str(2 * k), str(2 * k + 1), str(2 * k - 1), str(4 * k)][:n]
        at = k % n  # the right answer's position moves from question to question
        options = options[n - at :] + options[: n - at]
        out.append((f"c{k}", f"What is {k} + {k}?", options, chr(ord("A") + at)))
    return out


def run_tasks(log_dir: Path, *, fail: bool = False, choices: bool = False) -> list:
    """Run both tasks (with ``choices``, ``toy_choice`` too) on both mock models; the logs go to ``log_dir``.
    With ``fail``, a further run of ``toy_binary`` whose solver raises on every sample ends in status ``error``."""
    from inspect_ai import Task, task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import Sample
    from inspect_ai.model import ModelOutput, ModelUsage, get_model
    from inspect_ai.scorer import CORRECT, INCORRECT, PARTIAL, Score, accuracy, choice, match, mean, scorer
    from inspect_ai.solver import multiple_choice, solver

    def outputs(name: str):
        asked: Counter = Counter()

        def reply(messages, tools, tool_choice, config):
            text = messages[-1].text if messages else ""
            offered = re.findall(r"^([A-Z])\) (.*)$", text, flags=re.MULTILINE)
            question = re.search(r"What is (\d+) \+", text)
            content = ""  # the other tasks' solver writes its own completion
            if offered and question:  # toy_choice's prompt, as multiple_choice() writes it
                k = int(question.group(1))
                right = next(letter for letter, value in offered if value == str(2 * k))
                wrong = next(letter for letter, value in offered if value != str(2 * k))
                times = asked[k]
                asked[k] += 1
                content = f"ANSWER: {right if unit('choice', name, k, times) < 0.2 + 0.05 * k else wrong}"
            out = ModelOutput.from_content(model="mockllm", content=content)
            # usage given: the mock provider then counts no tokens (that would need a download)
            out.usage = ModelUsage(input_tokens=1, output_tokens=1, total_tokens=2)
            return out

        return reply

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

    @task
    def toy_choice():
        dataset = [Sample(id=i, input=q, choices=c, target=t) for i, q, c, t in choice_samples()]
        return Task(dataset=dataset, solver=multiple_choice(), scorer=choice(), epochs=EPOCHS)

    models = [get_model(name, custom_outputs=outputs(name)) for name in MODELS]
    opts = {"log_dir": str(log_dir), "display": "none", "log_format": "eval"}
    tasks = [toy_binary(), toy_credit(), *([toy_choice()] if choices else [])]
    logs = inspect_eval(tasks, model=models, **opts)
    if fail:
        logs += inspect_eval(toy_binary(broken=True), model=models[0], fail_on_error=True, **opts)
    return logs
