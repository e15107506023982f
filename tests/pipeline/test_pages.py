"""One page, several records (issue 59): a board of published scores is compared with the per-item fit on its page
that shares the most models with it, not with whichever fit sorts first."""

from __future__ import annotations

import pandas as pd

from benchwatch.pipeline.pages import compare_pages
from benchwatch.record import BenchmarkRecord, as_record


def test_a_board_is_compared_with_the_fit_that_shares_the_most_models():
    def rec(name: str, kind: str, n: int) -> BenchmarkRecord:
        return as_record({"benchmark": name, "page": "HumanEval+", "kind": kind, "n_items": 164, "n_models": n})

    records = {
        "human_eval_plus (T=0.7)": rec("human_eval_plus (T=0.7)", "items", 3),  # sorts first: other models
        "humaneval+": rec("humaneval+", "items", 4),
        "EvalPlus humaneval+": rec("EvalPlus humaneval+", "aggregate", 4),
    }
    tables = {
        "human_eval_plus (T=0.7)": pd.DataFrame({"model": ["x", "y", "a"], "score": [0.1, 0.2, 0.5]}),
        "humaneval+": pd.DataFrame({"model": ["a", "b", "c", "d"], "score": [0.5, 0.6, 0.7, 0.8]}),
        "EvalPlus humaneval+": pd.DataFrame({"model": ["A", "b", "c", "e"], "score": [0.5, 0.6, 0.9, 0.3]}),
    }
    compare_pages(records, tables.get)
    board = records["EvalPlus humaneval+"].comparison
    assert board is not None
    assert board["with"] == "humaneval+" and board["both"] == 3 and board["disagreements"] == 1
    assert "comparison" not in records["humaneval+"].model_fields_set
