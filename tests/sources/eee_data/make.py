"""Remake this folder: the suite's own evaluation logs, and Every Eval Ever records converted from them by
Every Eval Ever's own converters.

    python tests/sources/eee_data/make.py logs          # the project's venv: runs the harness and Inspect
    <venv with every-eval-ever>/bin/python tests/sources/eee_data/make.py convert

``logs`` runs ``tests/sources/evallogs``' lm-evaluation-harness tasks (models named ``benchwatch/toy-*``:
Every Eval Ever's converter needs a developer, the part before ``/``) and Inspect tasks into ``logs/``.
Every Eval Ever's Inspect converter knows no ``mockllm`` provider, so each Inspect log's model is renamed
``openai/<name>`` (the log's ``eval.model`` and each sample's ``output.model``), read and written back by
inspect_ai's own log functions. ``convert`` runs ``every_eval_ever convert lm_eval --include_samples`` on each
model's harness folder and ``every_eval_ever convert inspect`` on each Inspect log, into ``eee/data/``.
every-eval-ever 0.3.0 needs Python 3.12 or newer, so it is not an extra of this project (Python 3.11).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
LOGS, EEE = HERE / "logs", HERE / "eee" / "data"


def logs() -> None:
    sys.path.insert(0, str(HERE.parents[2]))
    from inspect_ai.log import read_eval_log, write_eval_log

    import tests.sources.evallogs.lm_eval_run as harness
    from tests.sources.evallogs.inspect_tasks import run_tasks

    shutil.rmtree(LOGS, ignore_errors=True)
    with tempfile.TemporaryDirectory() as tmp:
        harness.MODELS = {f"benchwatch/{name}": skill for name, skill in harness.MODELS.items()}
        out = harness.run_harness(Path(tmp) / "harness")
        shutil.copytree(out, LOGS / "harness")
        run_tasks(Path(tmp) / "inspect")
        for path in sorted((Path(tmp) / "inspect").glob("*.eval")):
            log = read_eval_log(str(path))
            name = log.eval.model.split("/", 1)[1]
            log.eval.model = f"openai/{name}"
            for sample in log.samples:
                sample.output.model = name
            (LOGS / "inspect").mkdir(parents=True, exist_ok=True)
            write_eval_log(log, str(LOGS / "inspect" / path.name))


def convert() -> None:
    shutil.rmtree(EEE.parent, ignore_errors=True)
    tool = str(Path(sys.executable).with_name("every_eval_ever"))
    common = ["--output_dir", str(EEE), "--source_organization_name", "benchwatch-tests"]
    for folder in sorted((LOGS / "harness").iterdir()):
        subprocess.run(
            [
                tool,
                "convert",
                "lm_eval",
                "--log_path",
                str(folder),
                "--include_samples",
                "--eval_library_version",
                "0.4.13",
                *common,
            ],
            check=True,
        )
    for log in sorted((LOGS / "inspect").glob("*.eval")):
        subprocess.run([tool, "convert", "inspect", "--log_path", str(log), *common], check=True)


if __name__ == "__main__":
    {"logs": logs, "convert": convert}[sys.argv[1]]()
