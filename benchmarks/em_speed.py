"""The marginal abilities' EM with and without squared extrapolation (``benchwatch.irt.fits.accelerate``), on the pools
the history by date refits: the first 2, 4, 8, 16 and all models of each benchmark of the bundled sample.

Prints the steps and seconds of each, and how far each stops from the fixed point (the plain iteration run
to a step of 1e-12). Run: ``python benchmarks/em_speed.py``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bot"))

from benchwatch.irt import encode_responses, fit_map
from benchwatch.irt.fits.cells import cell_patterns
from benchwatch.irt.fits.marginal import marginal_abilities_patterns
from benchwatch.irt.responses import arrays_from_dense
from benchwatch.sources.local import SAMPLE_FILE
from benchwatch.store.responses import validate_responses


def main() -> None:
    frame = validate_responses(pd.read_csv(SAMPLE_FILE, dtype=str, keep_default_na=False, na_values=[]), "sample")
    total_plain = total_fast = 0.0
    for name, rows in frame.groupby("benchmark"):
        data = encode_responses(rows)
        trials, successes = data.dense()
        for n in (2, 4, 8, 16, data.n_models):
            cp = cell_patterns(arrays_from_dense(trials[:n], successes[:n]))
            start = fit_map(encode_responses(rows[rows["model"].isin(data.models[:n])])).theta
            t = time.perf_counter()
            slow, slow_steps = marginal_abilities_patterns(cp, start, extrapolate=False)
            t_plain = time.perf_counter() - t
            t = time.perf_counter()
            fast, fast_steps = marginal_abilities_patterns(cp, start)
            t_fast = time.perf_counter() - t
            exact, _ = marginal_abilities_patterns(cp, start, tol=1e-12, max_iter=100_000, extrapolate=False)
            total_plain, total_fast = total_plain + t_plain, total_fast + t_fast
            off_plain, off_fast = np.abs(slow - exact).max(), np.abs(fast - exact).max()
            print(
                f"{name:22s} {n:3d} models: plain {slow_steps:4d} steps {t_plain:6.3f} s, off {off_plain:.1e}"
                f" | extrapolated {fast_steps:4d} steps {t_fast:6.3f} s, off {off_fast:.1e}"
            )
    print(f"all: plain {total_plain:.2f} s, extrapolated {total_fast:.2f} s ({total_plain / total_fast:.1f}x faster)")


if __name__ == "__main__":
    main()
