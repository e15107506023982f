"""The small commands import what they need (issue 42): ``saturation``, ``tiers`` and ``check`` load neither the
audit pipeline, nor the bounds, nor numba (the timings are ``benchmarks/small_commands.py``'s)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

FORBIDDEN = ("numba", "benchwatch.pipeline", "benchwatch.metrics.bounds", "benchwatch.irt.fits.rasch_map")
WATCHED = (*FORBIDDEN, "scipy", "pandas", "benchwatch.metrics.frames", "benchwatch.history.check", "benchwatch.record")

BOARD = "benchmark,model,score,n_items,date\n" + "".join(
    f"MATH-500,m{i},{s},500,2025-01-0{i + 1}\n" for i, s in enumerate([99.2, 99.0, 98.8, 98.4, 98.2, 90])
)


def _per_item(path) -> None:
    """Ten models on 50 items, each model solving the items up to its own level (no two models alike)."""
    rows = [f"bench,m{m},i{k},{float(k % 10 < m)}" for m in range(10) for k in range(50)]
    path.write_text("benchmark,model,item_id,score\n" + "\n".join(rows) + "\n")


def _loaded(argv: list[str], cwd) -> tuple[int, str, set[str]]:
    """Run ``main(argv)`` in a fresh interpreter: its exit status, its output and the watched modules it loaded."""
    probe = (
        "import contextlib, io, json, sys\n"
        "from benchwatch.cli import main\n"
        "out = io.StringIO()\n"
        "with contextlib.redirect_stdout(out):\n"
        f"    rc = main({argv!r})\n"
        f"watched = sorted(m for m in sys.modules if any(m == w or m.startswith(w + '.') for w in {WATCHED!r}))\n"
        "print(json.dumps([rc, out.getvalue(), watched]))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=cwd)
    rc, out, watched = json.loads(done.stdout.splitlines()[-1])
    kept = {m.split(".")[0] if not m.startswith(("benchwatch", "scipy.stats")) else m for m in watched}
    return rc, out, {"scipy.stats" if m.startswith("scipy.stats") else m for m in kept}


def _forbidden(loaded: set[str]) -> list[str]:
    return sorted(m for m in loaded if any(m == f or m.startswith(f + ".") for f in FORBIDDEN))


@pytest.mark.parametrize("extra", [[], ["--json"]])
def test_saturation_loads_no_pipeline_bounds_numba_nor_scipy_stats(tmp_path, extra):
    (tmp_path / "board.csv").write_text(BOARD)
    rc, out, loaded = _loaded(["saturation", "board.csv", "--percent", *extra], tmp_path)
    assert rc == 0 and "0.916" in out  # the figure itself, computed in that process
    assert "benchwatch.metrics.frames" in loaded  # the probe sees the modules the command does load
    assert _forbidden(loaded) == []
    # the state is the tiers' (issue 60: one rule), whose p-values need scipy.special; never scipy.stats (seconds)
    assert "scipy" in loaded and "scipy.stats" not in loaded


def test_tiers_of_per_item_results_and_of_a_board_load_no_pipeline_bounds_nor_numba(tmp_path):
    _per_item(tmp_path / "items.csv")
    rc, out, loaded = _loaded(["tiers", "items.csv"], tmp_path)
    assert rc == 0 and "bench: 10 models in" in out
    assert {"benchwatch.metrics.frames", "scipy", "pandas"} <= loaded  # the tests' p-values need scipy.special
    assert _forbidden(loaded) == []
    (tmp_path / "board.csv").write_text(BOARD)
    rc, out, loaded = _loaded(["tiers", "board.csv", "--percent", "--json"], tmp_path)
    assert rc == 0 and json.loads(out)[0]["benchmark"] == "MATH-500"
    assert _forbidden(loaded) == []


def test_check_loads_no_pipeline_bounds_nor_numba(sample_site, tmp_path):
    _, reports, site = sample_site
    rc, out, loaded = _loaded(["check", "--reports", str(reports), "--site-out", str(site)], tmp_path)
    assert rc == 0 and out.startswith("0 problems")
    assert "benchwatch.history.check" in loaded
    assert _forbidden(loaded) == []


@pytest.mark.parametrize(
    ("argv", "text"),
    [
        (["audit", "bad.csv"], "benchmark,model,score\nb,m1,1\n"),
        (["saturation", "bad.csv"], "benchmark,model,score\nb,m1,0.5\n"),
    ],
)
def test_an_input_error_is_said_before_the_records_load(tmp_path, argv, text):
    """A file without a required column is an error said at once (``benchmarks/startup.py``: under 0.5 s): the
    typed records (pydantic's models, a tenth of a second to build) load only with the first record."""
    (tmp_path / "bad.csv").write_text(text)
    rc, _, loaded = _loaded(argv, tmp_path)
    assert rc == 2
    assert "pandas" in loaded  # the file was read, and refused
    assert "benchwatch.record" not in loaded and "numba" not in loaded and "scipy" not in loaded
