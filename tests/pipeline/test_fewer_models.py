"""No benchmark gains a flag by losing models (issue 64): a smaller pool sees less, so it must never publish more."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from benchwatch.pipeline.audit import audit_benchmark
from benchwatch.rules import DEFAULT_THRESHOLDS, evaluate_flags, recorded_verdicts, threshold_map


def _figures(frame: pd.DataFrame) -> dict:
    """The record's figures, verdicts and flags, as a run records them."""
    fig = audit_benchmark(frame, source="shared data", thresholds=threshold_map()).figures()
    fig["verdicts"] = recorded_verdicts(fig, DEFAULT_THRESHOLDS)
    fig["flags"] = evaluate_flags(fig)
    return fig


@pytest.mark.slow
def test_twelve_models_of_a_real_benchmark_raise_no_flag_its_whole_pool_does_not(shared_data):
    """SWE-bench Verified (bash-only), 24 models x 500 items: with its whole pool no `revise` or `fill`; three draws
    of 12 of its models raise neither, publish their bounds all the same (wider: the spread of discriminations
    is placed more loosely), and never a narrower detection limit."""
    frame = pd.read_csv(shared_data / "swebench_verified_bashonly" / "verified.csv")
    frame["benchmark"] = "SWE-bench Verified"
    frame["date"] = pd.to_datetime(frame["date"])
    whole = _figures(frame)
    assert whole["n_models"] == 24 and whole["item_model"] != "withheld"
    assert not {"revise", "fill"} & set(whole["flags"]), whole["flags"]
    models = sorted(frame["model"].unique())
    for seed in range(3):
        keep = np.random.default_rng(seed).choice(models, 12, replace=False)
        few = _figures(frame[frame["model"].isin(keep)])
        assert few["n_models"] == 12
        assert not {"revise", "fill"} & set(few["flags"]), (seed, few["flags"])
        assert few["item_model"] != "withheld" and few["detection_limit"] >= whole["detection_limit"]
        spread = few["discrimination_spread_hi"] - few["discrimination_spread_lo"]
        assert spread > whole["discrimination_spread_hi"] - whole["discrimination_spread_lo"]
