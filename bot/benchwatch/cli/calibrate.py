"""``benchwatch calibrate``: new items given known abilities, or new models given known difficulties."""

from __future__ import annotations

import argparse
import sys

from benchwatch import irt, sources, store  # stages: their names load when the command runs
from benchwatch.errors import InputError


def register(parser: argparse.ArgumentParser) -> None:
    """Add this command's options."""
    parser.add_argument("file", metavar="RESPONSES.csv", help="responses of the new items or new models")
    known = parser.add_mutually_exclusive_group(required=True)
    known.add_argument("--abilities", metavar="MODELS.csv", help="known abilities (model,theta): fit new items")
    known.add_argument("--difficulties", metavar="ITEMS.csv", help="known difficulties (item_id,b): fit new models")
    parser.add_argument("--out", metavar="FILE.csv", help="write here instead of standard output")


def _names(values) -> str:
    shown = [str(v) for v in list(values)[:5]]
    return ", ".join(shown) + (", ..." if len(values) > 5 else "")


def _left_out(data, known, items_fitted: bool, out) -> list[str]:
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


def handle(args: argparse.Namespace) -> int:
    """Calibrate and write the estimates as CSV."""
    table = sources.fetch_csv_file(args.file)
    data = irt.encode_responses(store.validate_responses(table.frame, table.location))
    try:
        if args.abilities:
            theta = store.validate_parameters(sources.read_csv_text(args.abilities), args.abilities, "model", "theta")
            out = irt.calibrate_items(data, theta)
        else:
            b = store.validate_parameters(sources.read_csv_text(args.difficulties), args.difficulties, "item_id", "b")
            out = irt.calibrate_models(data, b)
    except ValueError as exc:
        raise InputError(args.abilities or args.difficulties, str(exc)) from None
    for line in _left_out(data, theta.index if args.abilities else b.index, bool(args.abilities), out):
        print(f"calibrate: {line}", file=sys.stderr)
    text = out.to_csv(index=False, lineterminator="\n", float_format="%.6g")
    if args.out:
        store.atomic_write_text(args.out, text)
    else:
        sys.stdout.write(text)
    return 0
