"""Long work shows progress on standard error: which benchmark a run is on, and each stage of an audit."""

from __future__ import annotations

import io

import pandas as pd

from benchwatch.progress import Progress
from tests.irt.test_rasch_map import simulate


def test_plain_lines_off_a_terminal(monkeypatch):
    monkeypatch.setenv("BENCHWATCH_PROGRESS", "1")
    out = io.StringIO()
    bar = Progress(2, "sim", out)
    bar.step("first")
    bar.note("bounds")
    bar.step("second")
    bar.close()
    lines = out.getvalue().splitlines()
    assert lines[0] == "  sim [1/2] first" and lines[1].startswith("    bounds (") and lines[2] == "  sim [2/2] second"


def test_silenced(monkeypatch):
    monkeypatch.setenv("BENCHWATCH_PROGRESS", "0")
    out = io.StringIO()
    bar = Progress(1, "sim", out)
    bar.step("x")
    bar.close()
    assert out.getvalue() == ""


def test_a_run_says_which_benchmark_it_is_on_and_what_it_is_doing(tmp_path, monkeypatch, capsys):
    from benchwatch.pipeline import run_job
    from benchwatch.sources import SourceTable

    monkeypatch.setenv("BENCHWATCH_PROGRESS", "1")
    a, _, _ = simulate(12, 60, seed=61)
    b, _, _ = simulate(12, 60, seed=62)
    data = pd.concat([a, b.assign(benchmark="other")])
    from benchwatch.pipeline import workers

    for folder, forked in (("a", False), ("b", True)):
        monkeypatch.setattr(workers, "PARALLEL_CELLS", 10**9 if forked else 0)
        kw = {"reports_dir": tmp_path / folder, "site_out": None, "cache_dir": tmp_path / "c", "log": lambda s: None}
        table = SourceTable("src", "simulated", data.astype(str))
        run_job([("src", lambda table=table: table)], now="2026-01-01T00:00:00Z", **kw)
        err = capsys.readouterr().err
        assert "src [1/2] other" in err and "src [2/2] sim" in err
        if forked:  # two workers: the run says when each benchmark is done
            assert "audited other" in err and "audited sim" in err
        else:  # one at a time: what each stage is doing
            assert "map fit" in err and "bounds, for any difficulty distribution" in err


def test_nothing_is_shown_inside_silenced(monkeypatch):
    from benchwatch.progress import first_run_note, silenced

    monkeypatch.setenv("BENCHWATCH_PROGRESS", "1")
    monkeypatch.setattr("benchwatch.progress.kernels_compiled", lambda: False)
    out = io.StringIO()
    with silenced():
        bar = Progress(1, "sim", out)
        bar.step("x")
        bar.note("bounds")
        bar.close()
        assert not first_run_note(out)
    with silenced(False):
        Progress(1, "sim", out).step("shown")
    assert out.getvalue() == "  sim [1/1] shown\n"


def test_the_compiled_kernels_are_looked_for_where_progress_was_told(tmp_path, monkeypatch):
    import importlib
    from pathlib import Path

    from benchwatch import irt, progress

    importlib.import_module("benchwatch.api")  # the API tells progress where the fit's kernels are
    assert Path(irt.__file__).parent in progress._KERNELS  # progress itself imports no stage
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setattr(Path, "home", lambda: tmp_path / "home")
    monkeypatch.setattr(progress, "_KERNELS", [])
    folder = tmp_path / "stage"
    (folder / "__pycache__").mkdir(parents=True)
    (folder / "__pycache__" / "kernels.solve-10.py311.nbi").touch()
    assert not progress.kernels_compiled()  # told no folder: only the user's cache, empty
    progress.kernels_in(folder)
    progress.kernels_in(folder)  # told twice: one folder
    assert len(progress._KERNELS) == 1 and progress.kernels_compiled()
