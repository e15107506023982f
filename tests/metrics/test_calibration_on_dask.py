"""The calibration grid on a Dask distributed cluster (``benchmarks/calibration.py --dask``, issue 61): the same
cells, bit for bit, as local processes, and resumed from ``--out`` the same way."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "calibration.py"
TWO_CELLS = ["--reps", "1", "--pools", "12 binary", "--shapes", "uniform"]  # 40 and 400 items


def _grid(tmp_path: Path, name: str, *where: str) -> tuple[list[dict], str]:
    out = tmp_path / f"{name}.json"
    argv = [sys.executable, str(SCRIPT), *TWO_CELLS, *where, "--out", str(out)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(out.read_text()), done.stdout


def _cells(kept: list[dict]) -> list[dict]:
    return [{k: v for k, v in cell.items() if k != "seconds"} for cell in kept]


def test_a_two_cell_grid_on_a_local_dask_cluster_is_the_processes_grid(tmp_path):
    on_dask, printed = _grid(tmp_path, "dask", "--dask", "local:2")
    local, _ = _grid(tmp_path, "local", "--jobs", "1")
    assert [(c["pool"], c["items"], c["shape"]) for c in on_dask] == [
        ("12 binary", 400, "uniform"),
        ("12 binary", 40, "uniform"),
    ]
    assert all(len(c["rows"]) == 1 for c in on_dask)
    assert _cells(on_dask) == _cells(local)  # every benchmark's figures, bit for bit (JSON keeps a float's digits)
    assert "Dask at local:2" in printed
    again, _ = _grid(tmp_path, "dask", "--dask", "local:2")  # resumed: both cells kept, none run again
    assert again == on_dask
