"""The Python API: ``benchwatch.audit`` on a plain DataFrame gives what ``benchwatch audit`` prints, checked as
the command checks a file; ``benchwatch.run`` answers bad input before any work."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest

import benchwatch
from benchwatch import api, history
from benchwatch.cli import main


def _frame(name: str = "toy", models: int = 8, items: int = 30, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    ability = np.linspace(-2.0, 2.0, models)
    difficulty = rng.normal(-1.0, 0.3, items)
    solved = rng.random((models, items)) < 1 / (1 + np.exp(difficulty - ability[:, None]))
    return pd.DataFrame(
        [
            {"benchmark": name, "model": f"m{m}", "item_id": f"q{i}", "score": float(solved[m, i])}
            for m in range(models)
            for i in range(items)
        ]
    )


@pytest.fixture(scope="module")
def toy(tmp_path_factory) -> tuple[str, api.AuditResult]:
    path = tmp_path_factory.mktemp("api") / "toy.csv"
    _frame().to_csv(path, index=False)
    return str(path), benchwatch.audit(pd.read_csv(path), source=str(path))


def test_a_four_column_frame_is_audited_with_verdicts_flags_items_and_models(toy):
    _, result = toy
    assert isinstance(result, benchwatch.AuditResult)
    assert result.benchmark == "toy" and result.record.benchmark == "toy"
    assert isinstance(result.record, benchwatch.BenchmarkRecord) and result.record.n_items == 30
    assert set(result.verdicts) == {"ddm", "max_gap", "top5_gap_sum"}
    assert all(v["verdict"] in ("found", "cannot tell", "clear") for v in result.verdicts.values())
    assert result.record.verdicts == result.verdicts and result.record.flags == result.flags
    with pytest.raises(AttributeError):
        _ = result.record.ddm_bound_low  # type: ignore[attr-defined]  # a misspelt field: an error, never None
    assert sorted(result.items["item_id"]) == sorted(f"q{i}" for i in range(30))
    assert {"item_id", "b", "b_sd", "z"} <= set(result.items.columns)
    assert sorted(result.models["model"]) == [f"m{m}" for m in range(8)]
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.flags = []  # type: ignore[misc]


def test_the_record_is_what_the_audit_command_prints(toy, capsys):
    path, result = toy
    assert main(["audit", path, "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads(json.dumps(history.rounded(result.as_dict()), sort_keys=True))
    assert printed["ddm"] == pytest.approx(result.record.ddm, abs=5e-4)


def test_several_benchmarks_are_an_error_naming_them_and_audit_each_audits_each():
    frame = pd.concat([_frame("alpha", models=5, items=12), _frame("beta", models=5, items=12, seed=1)])
    with pytest.raises(benchwatch.InputError, match=r"2 benchmarks \('alpha', 'beta'\).*audit_each"):
        benchwatch.audit(frame)
    each = benchwatch.audit_each(frame)
    assert list(each) == ["alpha", "beta"]
    assert [r.record.benchmark for r in each.values()] == ["alpha", "beta"]


def test_the_frame_is_checked_as_the_command_checks_a_file():
    frame = _frame(models=5, items=12)
    with pytest.raises(benchwatch.InputError, match="score"):
        benchwatch.audit(frame.drop(columns="score"), source="mine")
    bad = frame.assign(score=frame["score"].where(frame.index != 3, 1.5))
    with pytest.raises(benchwatch.InputError, match=r"mine, line .*score must lie in \[0, 1\]"):
        benchwatch.audit(bad, source="mine")
    with pytest.raises(TypeError, match="DataFrame"):
        benchwatch.audit(frame.to_dict("records"))  # type: ignore[arg-type]


def test_thresholds_change_the_verdicts_levels(toy):
    path, result = toy
    assert result.verdicts["max_gap"]["threshold"] == pytest.approx(0.10)
    raised = benchwatch.audit(pd.read_csv(path), source=path, thresholds={"fill_max_gap": 0.5})
    assert raised.verdicts["max_gap"]["threshold"] == pytest.approx(0.5)
    assert raised.verdicts["max_gap"]["level"] >= 0.5 > result.verdicts["max_gap"]["level"]


def test_run_answers_bad_input_before_any_work(tmp_path):
    with pytest.raises(benchwatch.InputError, match="expected a UTC time"):
        benchwatch.run(sample=True, now="yesterday", reports=tmp_path / "r")
    with pytest.raises(benchwatch.InputError, match=str(tmp_path / "none.toml")):
        benchwatch.run(tmp_path / "none.toml", reports=tmp_path / "r")
    assert not (tmp_path / "r").exists()
    assert api.run_folders(sample=True) == ("_sample/reports", "_sample/cache", "_site")
    assert api.run_folders(inputs=["a.csv"]) == ("_input/reports", "_input/cache", "_input/site")


def test_the_library_is_silent_unless_asked_and_the_commands_show_progress(tmp_path, capfd, monkeypatch):
    monkeypatch.setenv("BENCHWATCH_PROGRESS", "1")  # plain progress lines wherever progress is shown
    frame = _frame(models=6, items=20, seed=3)
    benchwatch.audit(frame)
    assert capfd.readouterr() == ("", "")
    path = tmp_path / "toy.csv"
    frame.to_csv(path, index=False)
    assert main(["audit", str(path)]) == 0
    out, err = capfd.readouterr()
    assert out.startswith("toy: ") and "audit [1/1] toy" in err and "fit (" in err
    solo = tmp_path / "solo.csv"  # one model: skipped, said why, with no fit
    frame[frame["model"] == "m0"].to_csv(solo, index=False)
    folders = {"reports": tmp_path / "r", "cache": tmp_path / "c"}
    result = benchwatch.run(inputs=[solo], site=False, **folders)
    assert result.benchmarks == 0 and capfd.readouterr() == ("", "")
    argv = ["run", "--input", str(solo), "--no-site", "--reports", str(tmp_path / "r2"), "--cache", str(tmp_path / "c")]
    assert main(argv) == 0
    assert "toy skipped: only one model" in capfd.readouterr().out
