"""Where two sources score the same models on one benchmark: do they agree within sampling noise?"""

from __future__ import annotations

import math
import re
import unicodedata

import pandas as pd

_NOT_ALNUM = re.compile(r"[^0-9a-z]+")
Z95 = 1.959963984540054


def model_key(name: str) -> str:
    """A model name folded for matching across sources (case, punctuation and width ignored)."""
    return _NOT_ALNUM.sub("", unicodedata.normalize("NFKC", str(name)).casefold())


def compare_scores(first: pd.DataFrame, second: pd.DataFrame, n_first: int, n_second: int) -> list[dict]:
    """Each model both tables score (``model``, ``score`` as proportions), largest difference first.

    A difference counts as a disagreement when it exceeds 1.96 standard errors of the difference of two
    independent binomial proportions over ``n_first`` and ``n_second`` items (or, with no sampling
    variance at all, when it is not zero).
    """
    a = first.assign(key=first["model"].map(model_key)).drop_duplicates("key").set_index("key")
    b = second.assign(key=second["model"].map(model_key)).drop_duplicates("key").set_index("key")
    out = []
    for key in sorted(set(a.index) & set(b.index)):
        p, q = float(a.at[key, "score"]), float(b.at[key, "score"])
        se = math.sqrt(p * (1 - p) / n_first + q * (1 - q) / n_second)
        diff = p - q
        out.append(
            {
                "model": str(a.at[key, "model"]),
                "other_name": str(b.at[key, "model"]),
                "score": p,
                "other_score": q,
                "difference": diff,
                "se": se,
                "disagree": bool(abs(diff) > Z95 * se) if se > 0 else diff != 0,
            }
        )
    return sorted(out, key=lambda r: (-abs(r["difference"]), r["model"]))
