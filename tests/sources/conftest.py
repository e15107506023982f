"""The two-source setup of the fault tests: `good` and `flaky`, both EvalPlus boards over a local server."""

from __future__ import annotations

import pytest

from benchwatch.cli import main
from tests.sources.test_faults import _board


def run_argv(config, tmp_path) -> list[str]:
    """``benchwatch run`` of a configuration, its reports and cache in ``tmp_path``, no site."""
    return [
        "run",
        "--config",
        str(config),
        "--reports",
        str(tmp_path / "r"),
        "--cache",
        str(tmp_path / "c"),
        "--no-site",
    ]


@pytest.fixture
def setup(fixture_server, tmp_path):
    (fixture_server.root / "good.json").write_bytes(_board())
    (fixture_server.root / "flaky.json").write_bytes(_board(1.0))
    config = tmp_path / "benchwatch.toml"

    def write_config(**http):
        settings = {"retries": 1, "backoff": 0.05, "read_timeout": 5, **http}
        lines = ["[http]", *(f"{k} = {v}" for k, v in settings.items())]
        for name in ("good", "flaky"):
            lines += [f"[sources.{name}]", 'adapter = "evalplus"', f'url = "{fixture_server.url}{name}.json"']
            lines += [f'prefix = "{name} "']
        config.write_text("\n".join(lines) + "\n")

    write_config()
    argv = run_argv(config, tmp_path)
    assert main(argv) == 0
    return fixture_server, tmp_path, argv, write_config


@pytest.fixture(scope="session")
def inspect_made(tmp_path_factory):
    """One run of the Inspect tasks (toy_choice too) on the mock models for the session: (folder, logs). The
    Inspect-index tests and the fault battery each serve a copy of its logs."""
    pytest.importorskip("inspect_ai", reason='inspect_ai is the optional extra ".[inspect]" (the dev extra has it)')
    from tests.sources.evallogs.inspect_tasks import run_tasks

    folder = tmp_path_factory.mktemp("inspect-index-logs")
    return folder, run_tasks(folder, choices=True)


@pytest.fixture(scope="session")
def lm_eval_details(tmp_path_factory):
    """One run of lm-evaluation-harness on test_open_llm's toy models and tasks for the session: its output
    folder. The Open LLM tests and the fault battery each lay a copy out as the Hub serves it."""
    pytest.importorskip("lm_eval", reason="the details are written by lm-evaluation-harness itself (the dev extra)")
    from tests.sources.evallogs.lm_eval_run import run_harness
    from tests.sources.test_open_llm import MODELS, TASKS

    return run_harness(tmp_path_factory.mktemp("open-llm"), MODELS, TASKS)
