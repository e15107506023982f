"""Calibration against what is known, as ``benchwatch calibrate`` does it: new items placed given the models' known
abilities, or new models given the items' known difficulties, without refitting the rest.

Only the standard library loads with this module; the stages load when ``calibrate`` runs.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from benchwatch import irt, sources, store
from benchwatch.errors import InputError

if TYPE_CHECKING:
    import pandas as pd

    from benchwatch.irt import ResponseArrays

__all__ = ["Calibration", "calibrate"]


@dataclass(frozen=True, eq=False)
class Calibration:
    """``calibrate``'s answer: the ``estimates``, one row per new item (item_id, b, ...) or per new model (model,
    theta, ...), and what it ``left_out``, in words, one line each."""

    estimates: pd.DataFrame
    left_out: list[str]

    def csv(self) -> str:
        """The estimates as ``benchwatch calibrate`` writes them: CSV, six significant digits."""
        return self.estimates.to_csv(index=False, lineterminator="\n", float_format="%.6g")


def calibrate(
    responses: str | Path,
    *,
    abilities: str | Path | None = None,
    difficulties: str | Path | None = None,
    out: str | Path | None = None,
) -> Calibration:
    """Calibrate the new items or the new models of ``responses`` (a long-format CSV: benchmark, model, item_id,
    score; trials optional), as ``benchwatch calibrate`` does, against what is known: ``abilities`` (a CSV of
    model, theta) places the new items, ``difficulties`` (a CSV of item_id, b) the new models; one of the two.

    Responses of models (or to items) with nothing known are left out, and an estimate that rests on no response
    is the prior's: ``left_out`` says which. Each file is checked as the command checks it (an ``InputError``
    names the file, the line and the column at fault). ``out``: the estimates also written there as CSV.
    """
    if (abilities is None) == (difficulties is None):
        raise TypeError("calibrate() takes abilities or difficulties: one of the two")
    table = sources.fetch_csv_file(responses)
    data = irt.encode_responses(store.validate_responses(table.frame, table.location))
    known = str(abilities if abilities is not None else difficulties)
    try:
        if abilities is not None:
            given = store.validate_parameters(sources.read_csv_text(known), known, "model", "theta")
            estimates = irt.calibrate_items(data, given)
        else:
            given = store.validate_parameters(sources.read_csv_text(known), known, "item_id", "b")
            estimates = irt.calibrate_models(data, given)
    except ValueError as exc:
        raise InputError(known, str(exc)) from None
    done = Calibration(estimates, _left_out(data, given.index, abilities is not None, estimates))
    if out:
        store.atomic_write_text(out, done.csv())
    return done


def _names(values: Collection[object]) -> str:
    shown = [str(v) for v in list(values)[:5]]
    return ", ".join(shown) + (", ..." if len(values) > 5 else "")


def _left_out(data: ResponseArrays, known: pd.Index, items_fitted: bool, out: pd.DataFrame) -> list[str]:
    """What the calibration could not use: responses of unknown models (or to unknown items), and the
    estimates that rest on no response at all (the prior's)."""
    counterpart = data.models if items_fitted else data.items
    index = data.model_idx if items_fitted else data.item_idx
    import pandas as pd

    unknown = ~pd.Index(counterpart).isin(known)
    lines = []
    if unknown.any():
        n = int(unknown[index].sum())
        k = int(unknown.sum())
        what = ("model" if items_fitted else "item") + ("s" if k != 1 else "")
        known_what = "no known ability" if items_fitted else "no known difficulty"
        lines.append(
            f"left out {n} response{'s' if n != 1 else ''} of {k} {what} with {known_what} "
            f"({_names(counterpart[unknown])})"
        )
    bare = out[out["n_responses"] == 0].iloc[:, 0]
    if len(bare):
        noun = ("item" if items_fitted else "model") + ("s" if len(bare) != 1 else "")
        lines.append(f"{len(bare)} {noun} had no usable response, so the prior's estimate stands ({_names(bare)})")
    return lines
